"""Notebooks: the Jupyter kernel (kernel.py, which never runs program code: its worker does,
through cell.py and pretty.py) and `gradcalc nbcheck` (check.py), which runs a notebook's cells in
gradcalc and compares their outputs with those stored in the notebook."""
