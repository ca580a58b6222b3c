#!/usr/bin/env python3
"""Record the names PyTorch 2.13 offers in the namespaces of its tensor API, as test data.

Run with a Python that has PyTorch installed (the only place torch is used):

    python tests/api/record_api.py

It writes ``torch_api.json`` next to this file:

* ``namespaces``: for torch, torch.Tensor, torch.linalg, torch.special and torch.fft, each public
  name and what it is: ``builtin`` (a C function or method), ``python <signature>`` (a function
  written in Python, with its signature), ``property``, ``class``, ``module``, ``dtype`` or
  ``value``;
* ``saved``: for every grad_fn class PyTorch defines, the ``_saved_*`` attributes it shows.
"""
from __future__ import annotations

import inspect
import json
from pathlib import Path

import torch

OUT = Path(__file__).resolve().parent / "torch_api.json"


def kind(value: object, owner: object = None, name: str = "") -> str:
    if owner is not None:  # a member of torch.Tensor: look at the class attribute itself
        value = inspect.getattr_static(owner, name)
        if isinstance(value, (property,)) or type(value).__name__ == "getset_descriptor":
            return "property"
        if isinstance(value, (staticmethod, classmethod)):
            value = value.__func__
    type_name = type(value).__name__
    if type_name in ("builtin_function_or_method", "method_descriptor"):
        return "builtin"
    if inspect.isfunction(value):
        try:
            return f"python {inspect.signature(value)}"
        except (TypeError, ValueError):
            return "python"
    if inspect.ismodule(value):
        return "module"
    if isinstance(value, type):
        return "class"
    if isinstance(value, torch.dtype):
        return "dtype"
    return "value"


def main() -> None:
    namespaces = {}
    for label, holder in (("torch", torch), ("torch.linalg", torch.linalg), ("torch.special", torch.special),
                          ("torch.fft", torch.fft)):
        namespaces[label] = {name: kind(getattr(holder, name)) for name in sorted(dir(holder))
                             if not name.startswith("_")}
    namespaces["torch.Tensor"] = {name: kind(None, torch.Tensor, name) for name in sorted(dir(torch.Tensor))
                                  if not name.startswith("_")}
    saved = {}
    for name in sorted(dir(torch._C._functions)):
        cls = getattr(torch._C._functions, name)
        if isinstance(cls, type) and "Backward" in name:
            saved[name] = sorted(attr for attr in dir(cls) if attr.startswith("_saved_"))
    OUT.write_text(json.dumps({"namespaces": namespaces, "saved": saved}, indent=1, sort_keys=True) + "\n",
                   encoding="utf-8")
    print(f"{OUT}: {sum(map(len, namespaces.values()))} names, {len(saved)} grad_fn classes")


if __name__ == "__main__":
    main()
