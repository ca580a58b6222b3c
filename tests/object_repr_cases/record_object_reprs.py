"""Record what PyTorch echoes for the objects around tensors: dtypes, torch.Size, devices,
torch.return_types, x.type(), as differential test cases for gradcalc.

Run with a Python that has PyTorch installed (the only place torch is used):

    python tests/object_repr_cases/record_object_reprs.py

It writes ``object_repr_cases.json`` next to this file: a list of ``{"expr", "output"}``,
where ``output`` is what the interactive interpreter shows for the expression statement
``expr`` (its repr and a newline), or ``ErrorType: message`` and a newline if it raises, as
gradcalc/golden/reference.py shows errors.
Memory addresses are replaced by ``0x?``. The expressions are generated from fixed lists, so
re-running gives the same file.
"""
from __future__ import annotations

import itertools
import json
import re
import runpy
import traceback
from pathlib import Path

HERE = Path(__file__).resolve().parent
OUT = HERE / "object_repr_cases.json"
PRELUDE = runpy.run_path(str(HERE.parent.parent / "gradcalc" / "golden" / "reference.py"))["PRELUDE"]
ADDRESS = re.compile(r"0x[0-9a-fA-F]+")

DTYPES = ["float16", "float32", "float64", "complex64", "complex128", "uint8", "int8", "int16", "int32", "int64",
          "bool"]
ALIASES = ["float", "double", "half", "long", "int", "short", "cfloat", "cdouble"]
SHAPES = [(), (0,), (1,), (3,), (2, 3), (0, 3), (2, 0, 4), (1, 1, 1, 1), (5, 4, 3, 2, 1)]
# Values with ties, so that the index max and min pick among equal elements is tested too.
REDUCE_SHAPES = [(), (1,), (5,), (2, 3), (3, 1), (2, 3, 4)]
REDUCE_DTYPES = ["float32", "float64", "int64", "int32", "bool"]


def expressions() -> list[str]:
    found = []
    for name in DTYPES + ALIASES:
        found += [f"torch.{name}", f"str(torch.{name})", f"torch.{name}.is_floating_point",
                  f"torch.{name}.is_complex", f"torch.{name}.is_signed", f"torch.{name}.itemsize",
                  f"torch.zeros(2, dtype=torch.{name}).dtype", f"torch.zeros(2, dtype=torch.{name}).type()"]
    for a, b in itertools.product(DTYPES, repeat=2):
        found.append(f"torch.promote_types(torch.{a}, torch.{b})")
    for shape in SHAPES:
        x = f"torch.zeros({shape})"
        found += [f"{x}.shape", f"{x}.size()", f"str({x}.shape)", f"{x}.shape[1:]", f"{x}.shape[::-1]",
                  f"{x}.shape.numel()", f"len({x}.shape)", f"{x}.shape + (7,)", f"(7,) + {x}.shape",
                  f"{x}.shape * 2", f"torch.Size({list(shape)})", f"{x}.shape == {shape}",
                  f"{x}.size(-1)", f"{x}.size(0)", f"{x}.size({len(shape)})"]
    for shape, dtype, kind in itertools.product(REDUCE_SHAPES, REDUCE_DTYPES, ["max", "min"]):
        n = 1
        for size in shape:
            n *= size
        x = f"(torch.arange({n}) * 7 % 4).reshape({shape}).to(torch.{dtype})"
        for dim, keepdim in itertools.product(range(-max(len(shape), 1), max(len(shape), 1)), [False, True]):
            found.append(f"torch.{kind}({x}, {dim}, keepdim={keepdim})")
        found.append(f"{x}.{kind}(dim=0)")
    for x in ["tensor([1., float('nan'), 3.])", "tensor([[float('nan'), 1.], [2., float('nan')]])"]:
        found += [f"torch.max({x}, 0)", f"torch.min({x}, -1)"]
    found += ["torch.max(tensor([1., 2.], requires_grad=True), 0)", "tensor([[1., 2.]]).max(1).values",
              "tensor([[1., 2.]]).min(1).indices", "type(tensor([1.]).max(0))", "type(tensor([1.]).min(0))"]
    for device in ["'cpu'", "'cpu:0'", "'cpu:3'", "'cpu', 0", "'cpu', 2", "type='cpu'", "'cpu', index=1", "'cuda'",
                   "'cuda:1'", "'cuda', 0", "'mps'", "'meta'", "torch.device('cuda', 2)", "'cpu:x'", "'cpu:01'",
                   "' cpu'", "'CPU'", "'gpu'", "'cpu:0', 1", "'cpu', -1", "'cpu', 1.5", "None", "1.5", ""]:
        found += [f"torch.device({device})", f"str(torch.device({device}))", f"torch.device({device}).index",
                  f"torch.device({device}).type", f"torch.device({device}) == torch.device('cpu')"]
    return list(dict.fromkeys(found))


def echo(expr: str, namespace: dict) -> str:
    try:
        value = eval(expr, namespace)
    except Exception as error:  # the case records the error as gradcalc/golden/reference.py shows it
        return "".join(traceback.format_exception_only(type(error), error)).rstrip("\n") + "\n"
    return "" if value is None else repr(value) + "\n"


def main() -> None:
    namespace: dict = {}
    exec(PRELUDE, namespace)
    cases = [{"expr": expr, "output": ADDRESS.sub("0x?", echo(expr, namespace))} for expr in expressions()]
    OUT.write_text(json.dumps(cases, indent=0) + "\n", encoding="utf-8")
    print(f"{len(cases)} cases written to {OUT}")


if __name__ == "__main__":
    main()
