#!/usr/bin/env python3
"""Record how inspect.signature shows PyTorch's Python classes and functions, the data
`inspect.signature` reads in gradcalc (gradcalc/language/modules/introspection.py).

Run with a Python that has PyTorch 2.13 installed (the only place torch is used):

    python tools/record_python_signatures.py

For every public class and Python function of the torch modules a program can import, writes
its parameters' names with the text inspect shows for each annotation, and the return
annotation's, to gradcalc/language/modules/python_signatures.json, keyed by
`module.qualname`. gradcalc shows these annotations where its own callable has the same
parameters (its own annotations are its implementation's, not PyTorch's).
"""
from __future__ import annotations

import importlib
import inspect
import json
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "gradcalc" / "language" / "modules" / "python_signatures.json"
MODULES = ("torch", "torch.nn", "torch.nn.functional", "torch.nn.init", "torch.nn.utils", "torch.nn.parallel",
           "torch.optim", "torch.optim.lr_scheduler", "torch.optim.swa_utils", "torch.utils.data",
           "torch.utils.checkpoint", "torch.autograd", "torch.autograd.functional", "torch.autograd.forward_ad",
           "torch.autograd.graph", "torch.func", "torch.random", "torch.cuda", "torch.amp", "torch.distributions",
           "torch.testing", "torch.distributed")


def _shown(annotation: object) -> object:
    return None if annotation is inspect.Parameter.empty else inspect.formatannotation(annotation)


def main() -> None:
    import torch  # noqa: F401  (the modules below are its)

    recorded: dict = {}
    for name in MODULES:
        module = importlib.import_module(name)
        for member in dir(module):
            value = getattr(module, member, None)
            if member.startswith("_") or not (inspect.isclass(value) or inspect.isfunction(value)):
                continue
            try:
                signature = inspect.signature(value)
            except (TypeError, ValueError):
                continue
            key = f"{value.__module__}.{value.__qualname__}"
            entry = {"parameters": [[p.name, _shown(p.annotation)] for p in signature.parameters.values()],
                     "return": _shown(signature.return_annotation)}
            # only torch's own that show annotations: the others show as gradcalc's do, without
            if key.startswith("torch.") and (entry["return"] or any(shown for _, shown in entry["parameters"])):
                recorded[key] = entry
    lines = ",\n".join(f"{json.dumps(key)}: {json.dumps(entry)}" for key, entry in sorted(recorded.items()))
    OUT.write_text("{\n" + lines + "\n}\n", encoding="utf-8")
    print(f"{len(recorded)} signatures written to {OUT}")


if __name__ == "__main__":
    main()
