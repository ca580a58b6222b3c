"""A program's own files: an in-memory tree per session (tree.py) and the modules over it."""
