#!/usr/bin/env python3
"""Record the signature and the first line of the docstring of PyTorch's public functions,
classes and Tensor methods: what the Jupyter kernel shows on Shift-Tab (gradcalc/notebook/
torch_docs.json). Run with a Python that has PyTorch 2.13 installed (the only place torch is used):

    python tools/record_docstrings.py
"""
from __future__ import annotations

import inspect
import json
import os
import re

import torch

# the namespaces a notebook that teaches autograd reaches, by the name a program writes
_NAMESPACES = ("torch", "torch.nn", "torch.nn.functional", "torch.nn.init", "torch.autograd",
               "torch.autograd.functional", "torch.linalg", "torch.special", "torch.optim", "torch.func",
               "torch.distributions", "torch.testing")
_SIGNATURE_LINE = re.compile(r"^\s*([\w.]+\(.*\))(\s*->\s*.*)?$")
_OUT = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "gradcalc", "notebook",
                    "torch_docs.json")


def _describe(name: str, value: object) -> list[str] | None:
    """[signature, first line of the docstring], or None for what has neither."""
    doc = inspect.getdoc(value) or ""
    lines = [line.strip() for line in doc.splitlines()]
    signature = ""
    if lines and _SIGNATURE_LINE.match(lines[0]):
        signature = lines.pop(0)
    else:
        try:
            signature = name.rpartition(".")[2] + str(inspect.signature(value))
        except (TypeError, ValueError):
            pass
    summary = next((line for line in lines if line), "")
    summary = re.sub(r":(?:attr|func|class|meth|math|ref):`~?([^`]*)`", r"\1", summary)
    if not signature and not summary:
        return None
    return [signature, summary[:300]]


def main() -> None:
    table: dict[str, list[str]] = {}
    for namespace in _NAMESPACES:
        module = eval(namespace, {"torch": torch})  # the names above only
        for name in dir(module):
            if name.startswith("_"):
                continue
            value = getattr(module, name, None)
            if callable(value):
                described = _describe(f"{namespace}.{name}", value)
                if described:
                    table[f"{namespace}.{name}"] = described
    for name in dir(torch.Tensor):
        if not name.startswith("_"):
            described = _describe(f"torch.Tensor.{name}", getattr(torch.Tensor, name))
            if described:
                table[f"torch.Tensor.{name}"] = described
    with open(_OUT, "w", encoding="utf-8") as handle:
        json.dump(table, handle, indent=0, sort_keys=True, ensure_ascii=False)
        handle.write("\n")
    print(f"{len(table)} names -> {_OUT}")


if __name__ == "__main__":
    main()
