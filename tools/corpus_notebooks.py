#!/usr/bin/env python3
"""Write tests/notebooks/ from the oracle corpus: one notebook per tutorial (seeds/sNNN_*) or
feature folder, each program's top-level statements split into cells after every expression
statement (a notebook shows each value in its own cell), after a cell with the SPEC's prelude.
Their outputs are then recorded under PyTorch, never typed:

    python tools/corpus_notebooks.py ORACLE/corpus tests/notebooks
    gradcalc nbcheck --record TORCH_PYTHON tests/notebooks/*.ipynb
"""
import ast
import glob
import os
import sys

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

CORPUS, OUT = sys.argv[1:3] if len(sys.argv) == 3 else sys.exit(__doc__)
PRELUDE = """import torch
import torch.nn as nn
import torch.nn.functional as F
from torch import (tensor, ones, zeros, ones_like, zeros_like, full, full_like,
                   arange, linspace, eye, rand, randn, randint, rand_like, randn_like,
                   manual_seed, no_grad, enable_grad, set_grad_enabled, autograd,
                   exp, log, sin, cos, tanh, sigmoid, relu, sqrt, matmul, stack, cat)
torch.manual_seed(0);"""


def cells_of(source: str) -> list[str]:
    lines = source.splitlines()
    try:
        body = ast.parse(source).body
    except SyntaxError:
        return [source.strip()]
    cells, start = [], 0
    for node in body:
        if isinstance(node, ast.Expr) and not isinstance(node.value, ast.Constant):  # not a docstring
            end = node.end_lineno
            chunk = "\n".join(lines[start:end]).strip()
            if chunk:
                cells.append(chunk)
            start = end
    rest = "\n".join(lines[start:]).strip()
    if rest:
        cells.append(rest)
    return cells


def make(name: str, title: str, programs: list[str], source: str) -> None:
    nb = new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.cells.append(new_markdown_cell(f"# {title}\n\nAdapted from the gradcalc oracle corpus (`{source}`); outputs "
                                      "recorded under PyTorch 2.13 with `gradcalc nbcheck --record`."))
    nb.cells.append(new_code_cell(PRELUDE))
    for path in programs:
        nb.cells.append(new_markdown_cell(f"## {os.path.basename(path)[:-5]}"))
        for chunk in cells_of(open(path, encoding="utf-8").read()):
            nb.cells.append(new_code_cell(chunk))
    nbformat.write(nb, os.path.join(OUT, name + ".ipynb"))


def main() -> None:
    for seed in ["s000", "s001", "s002", "s003", "s004"]:
        make(f"tutorial_{seed}", f"Tutorial {seed}", sorted(glob.glob(f"{CORPUS}/seeds/{seed}_*.grad")),
             f"oracle/corpus/seeds/{seed}_*.grad")
    for feature in ["autograd", "grad_modes", "inplace", "nn", "views", "reductions", "repr", "arithmetic"]:
        make(f"feature_{feature}", feature, sorted(glob.glob(f"{CORPUS}/features/{feature}/*.grad")),
             f"oracle/corpus/features/{feature}/")


if __name__ == "__main__":
    main()
