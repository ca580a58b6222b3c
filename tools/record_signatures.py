#!/usr/bin/env python3
"""Record PyTorch's argument-parser signatures, the data gradcalc's argument parser reads.

Run with a Python that has PyTorch 2.13 installed (the only place torch is used):

    python tools/record_signatures.py

PyTorch's C functions parse their arguments against signature strings compiled into
libtorch_python (`sum(Tensor input, IntArrayRef[1]? dim, bool keepdim=False, ...)`). This
script reads those strings from the library, asks each public C function and Tensor method
which of them it accepts (a call with too many arguments makes the parser list its visible
signatures), and writes gradcalc/autograd/ops/signatures.txt: one `[namespace name]` header
per function, then its signatures in the parser's order (hidden ones marked `|hidden` or
`|deprecated`, as in the library).
"""
from __future__ import annotations

import os
import re
import sys
from pathlib import Path

import torch

OUT = Path(__file__).resolve().parent.parent / "gradcalc" / "autograd" / "ops" / "signatures.txt"
NAMESPACES = {"torch": torch._C._VariableFunctions, "Tensor": torch._C.TensorBase, "linalg": torch._C._linalg,
              "special": torch._C._special, "fft": torch._C._fft, "nn": torch._C._nn}
PREFIX = {"linalg": "linalg_", "special": "special_", "fft": "fft_"}
# C functions and types outside those namespaces whose parsers gradcalc uses too, by their parser's name
OTHERS = {"device": torch.device, "set_grad_enabled": torch._C._set_grad_enabled,
          "set_anomaly_enabled": torch.set_anomaly_enabled, "finfo": torch.finfo, "iinfo": torch.iinfo,
          "_unique2": torch._unique2}
# private C functions torch's own Python calls with a program's arguments, whose parsers answer them
PRIVATE = {"nn": ("_upsample_bilinear2d_aa", "_upsample_bicubic2d_aa", "_upsample_lanczos2d_aa")}
PROBE_COUNT = 40
_TYPE_NAMES = {"Tensor": "Tensor", "Scalar": "Number", "int64_t": "int", "SymInt": "int", "double": "float",
               "complex": "complex", "TensorList": "tuple of Tensors", "c10::List<::std::optional<Tensor>>":
               "tuple of Tensors", "IntArrayRef": "tuple of ints", "SymIntArrayRef": "tuple of ints",
               "ArrayRef<double>": "tuple of floats", "Generator": "torch.Generator", "bool": "bool",
               "Storage": "torch.Storage", "PyObject*": "object", "ScalarType": "torch.dtype",
               "Layout": "torch.layout", "MemoryFormat": "torch.memory_format", "QScheme": "torch.qscheme",
               "Device": "torch.device", "Stream": "Stream", "std::string": "str", "c10::string_view": "str",
               "std::string_view": "str",
               "Dimname": "name", "DimnameList": "tuple of names", "ScalarList": "tuple of Scalars",
               "DeviceIndex": "int"}


class Probe:
    pass


def library_signatures() -> list:
    path = Path(torch.__file__).parent / "lib" / "libtorch_python.so"
    data = path.read_bytes()
    found = re.findall(rb"(?<=\x00)([a-z_][a-zA-Z0-9_.]*\((?:[^\x00()]|\([^\x00()]*\))*\)(?:\|deprecated|\|hidden)?)(?=\x00)",
                       data)
    return [s.decode() for s in found]


def parameters(signature: str) -> list:
    inner = signature[signature.index("(") + 1:signature.rindex(")")]
    return [p for p in inner.split(", ") if p] if inner else []


def display(signature: str) -> str:
    """FunctionSignature::toString of a raw signature, as error messages show it."""
    parts, keyword = [], False
    for param in parameters(signature):
        if param == "*":
            keyword = True
            parts.append("*")
            continue
        kind, _, rest = param.partition(" ")
        kind = re.sub(r"\[\d*\]", "", kind.rstrip("?"))
        kind = kind.rstrip("?")
        name, _, default = rest.partition("=")
        text = f"{_TYPE_NAMES.get(kind, kind)} {name}"
        if default:
            text += f" = {default}"
        parts.append(text)
    return "(" + ", ".join(parts) + ")"


def probe(function) -> str:
    try:
        function(*[Probe()] * PROBE_COUNT)
    except Exception as error:  # noqa: BLE001 - the message is what we want
        return f"{type(error).__name__}: {error}"
    return "no error"


def shown_signatures(message: str) -> list | None:
    if "but expected one of:\n" in message:
        return [line[3:] for line in message.split("\n") if line.startswith(" * ")]
    found = re.search(r"but expected (\(.*\))$", message)
    return [found.group(1)] if found else None


def main() -> None:
    raw = library_signatures()
    by_name: dict = {}
    for signature in raw:
        by_name.setdefault(signature[:signature.index("(")], []).append(signature)
    lines, unresolved = [], []
    tensor = torch.ones(1)
    methods = {name for name in dir(torch._C.TensorBase) if not name.startswith("__")}
    functions = {name for name in dir(torch._C._VariableFunctions) if not name.startswith("__")}
    for namespace, name, parser_name, member in _functions():
        candidates = by_name.get(parser_name, [])
        function = getattr(tensor, name) if namespace == "Tensor" else member
        message = probe(function)
        if re.search(r"takes no arguments \(\d+ given\)$", message):
            lines += [f"[{namespace} {name}]", f"{parser_name}()|noargs"]  # METH_NOARGS: no parser
            continue
        if not candidates:
            continue
        is_method_form = namespace == "Tensor"
        visible = [c for c in candidates if "|" not in c]
        hidden = [c for c in candidates if "|" in c]

        def fits(candidate: str) -> bool:
            if namespace not in ("torch", "Tensor") or name not in (methods if namespace == "torch" else functions):
                return True  # no namesake in the other namespace: every string with this name is ours
            function_form = bool(re.match(r"\w+\(Tensor input[,)]", candidate)) or " out=None" in candidate
            return function_form != is_method_form or not parameters(candidate) or namespace in ("nn",)

        shown = shown_signatures(message.partition(": ")[2])
        if shown is not None:
            chosen = []
            for text in shown:
                matches = [c for c in visible if display(c) == text and c not in chosen]
                if len(matches) > 1:
                    matches = [c for c in matches if fits(c)] or matches
                if not matches:
                    unresolved.append((namespace, name, text))
                    break
                chosen.append(matches[0])
            else:
                chosen += [c for c in hidden if fits(c)]
                lines.append(f"[{namespace} {name}]")
                lines += chosen
            continue
        singles = [c for c in visible if fits(c)]
        counted = re.search(r"takes (?:from (\d+) to (\d+)|(\d+)) positional argument", message)
        if counted and len(singles) > 1:
            low, high, exact = counted.groups()
            wanted = (int(low), int(high)) if low else (None, int(exact))
            singles = [c for c in singles if _positional_range(c, wanted)] or singles
        if len(singles) == 1:
            lines.append(f"[{namespace} {name}]")
            lines += singles
        else:
            unresolved.append((namespace, name, message[:200], singles))
    OUT.write_text("# Recorded from PyTorch 2.13 by tools/record_signatures.py: do not edit.\n"
                   + "\n".join(lines) + "\n", encoding="utf-8")
    for item in unresolved:
        print("unresolved:", item, file=sys.stderr)
    print(f"{OUT}: {sum(1 for line in lines if line.startswith('['))} functions", file=sys.stderr)


def _functions() -> list:
    """(namespace, name, its parser's name, the function) of each C function to record."""
    found = []
    for namespace, holder in NAMESPACES.items():
        for name in sorted(dir(holder)):
            if name.startswith("_") and name not in PRIVATE.get(namespace, ()):
                continue  # private: no program reaches it
            member = getattr(holder, name)
            if type(member).__name__ not in ("builtin_function_or_method", "method_descriptor"):
                continue
            # torch._C._linalg holds `linalg_det`: torch.linalg.det, parsed as `linalg_det`
            parser_name = name
            name = name[len(PREFIX[namespace]):] if namespace in PREFIX else name
            if name and (not name.startswith("_") or name in PRIVATE.get(namespace, ())):
                found.append((namespace, name, parser_name, member))
    return found + [("_C", name, name, function) for name, function in OTHERS.items()]


def _positional_range(signature: str, wanted: tuple) -> bool:
    params = parameters(signature)
    positional = params[:params.index("*")] if "*" in params else params
    required = sum(1 for p in params if "=" not in p and p != "*")
    return len(positional) == wanted[1] and (wanted[0] is None or required == wanted[0])


if __name__ == "__main__":
    main()
