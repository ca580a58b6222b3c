"""The interactive REPL: `gradcalc` on a terminal.

prompt_toolkit and pygments are imported in this package and nowhere else, so scripts and `-e`
never load them. `app` is the loop and the editing; the rest are its parts: `loading` (what the
first input needs, made while the first prompt waits), `completion`, `hints` ("Did you mean"),
`transcript` (pasted `>>> ` examples, `:save`), `commands` (`:help`, `:vars`, `:graph`, ...) and
`history`.
"""
from .app import Repl, run_repl

__all__ = ["Repl", "run_repl"]
