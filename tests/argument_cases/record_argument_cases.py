"""Record what PyTorch says to calls with wrong, missing, extra or misspelled arguments, and to the
spellings its argument parser also accepts (`axis=`, `keepdims=`, `size=`), as differential test
cases for gradcalc's argument parser.

Run with a Python that has PyTorch installed (the only place torch is used):

    python tests/argument_cases/record_argument_cases.py

It writes ``argument_cases.json`` next to this file: a list of ``{"expr", "output"}``, where
``output`` is what the interactive interpreter shows for the expression (its repr and a
newline), or ``ErrorType: message`` and a newline if it raises, as tests/golden/reference.py
shows errors. The expressions come from fixed lists, so re-running gives the same file.
"""
from __future__ import annotations

import json
import re
import runpy
import traceback
from pathlib import Path

HERE = Path(__file__).resolve().parent
OUT = HERE / "argument_cases.json"
PRELUDE = runpy.run_path(str(HERE.parents[1] / "gradcalc" / "golden" / "reference.py"))["PRELUDE"]
ADDRESS = re.compile(r"0x[0-9a-fA-F]+")
INTERNAL_NOTE = re.compile(r"\s*\(Triggered internally at [^)]*\)\s*$")
SETUP = "x = torch.arange(6.).reshape(2, 3)\ni = torch.tensor([[0, 1], [1, 0]])\nv = torch.tensor([1., 2., 3.])\n"

# functions of torch and methods of Tensor taking a tensor first
UNARY = ["exp", "log", "sin", "cos", "tanh", "sigmoid", "sqrt", "abs", "neg", "relu", "floor", "round", "sign",
         "reciprocal", "square", "t", "clone", "detach", "flatten", "isnan", "numel", "trunc", "erf", "rsqrt"]
BINARY = ["add", "sub", "mul", "div", "pow", "maximum", "minimum", "atan2", "eq", "lt", "ge", "matmul", "mm",
          "dot", "remainder", "floor_divide", "logical_and", "bitwise_and", "isclose", "allclose", "equal"]
REDUCTIONS = ["sum", "mean", "prod", "max", "min", "amax", "argmax", "argmin", "any", "all", "std", "var",
              "logsumexp", "cumsum", "median", "nansum", "count_nonzero", "sort", "argsort", "topk"]
SHAPES = ["view", "reshape", "permute", "transpose", "squeeze", "unsqueeze", "expand", "repeat", "flip", "roll",
          "narrow", "select", "split", "chunk", "unbind", "movedim", "tril", "gather", "masked_fill", "clamp",
          "softmax", "log_softmax", "to", "type", "size", "stride", "diag", "lerp", "where", "index_put"]
CREATION = ["zeros", "ones", "empty", "full", "rand", "randn", "randint", "arange", "linspace", "eye", "tensor",
            "zeros_like", "ones_like", "full_like", "rand_like", "randperm", "cat", "stack", "normal"]
BAD = ["1j", "'a'", "None", "[1.5]", "(1, 'a')", "x, 'a'", "x, 1.5", "x, 1, 2, 3, 4, 5, 6, 7", "x, foo=1",
       "x, dim='a'", "x, 1, foo=2, bar=3", "", "x, x, x"]


def expressions() -> list:
    found = []
    for name in UNARY + BINARY + REDUCTIONS + SHAPES:
        for args in BAD:
            found.append(f"torch.{name}({args})")
        for args in ["'a'", "1.5", "1j", "None", "1, 2, 3, 4, 5, 6, 7", "foo=1", "x", "(0, 1.5)", "dim=1.5",
                     "1, foo=2"]:
            found.append(f"x.{name}({args})")
    for name in CREATION:
        for args in BAD + ["2, 3.5", "(2, 3), 1.5", "size=(2, 3)", "2, dtype=1", "2, device=1.5", "-1",
                           "2, requires_grad=1", "(2,), (3,)", "[2, 'a']"]:
            # what empty holds is whatever memory it got: only its shape is comparable
            found.append(f"torch.{name}({args})" + (".shape" if name.startswith("empty") else ""))
    found += [
        "torch.sum(x, axis=0)", "torch.sum(x, dim=0, keepdims=True)", "x.sum(axis=1, keepdims=True)",
        "torch.mean(a=x)", "torch.add(x1=x, x2=x)", "x.argmax(axis=1)", "torch.rand(size=(2, 3)).shape",
        "torch.zeros(size=[2])", "x.max(dim=1)", "x.max(1, True)", "x.max(x)", "torch.max(x, 1, keepdim=True)",
        "x.view(3, 2)", "x.view((3, 2))", "x.view([3, 2])", "x.view(-1)", "x.view(torch.tensor(6))",
        "x.permute(1, 0)", "x.permute([1, 0])", "x.reshape(3, -1)", "x.expand(2, 2, 3).shape", "x.sum(dim=(0, 1))",
        "x.sum(dim=[0, 1])", "x.sum(0, True)", "x.std(0, True)", "x.std(unbiased=False)", "x.var(0, correction=0)",
        "x.add(1, alpha=2)", "x.add(other=v, alpha=2)", "torch.add(x, 2, alpha=3)", "x.pow(exponent=2)",
        "torch.pow(2, v)", "torch.pow(self=2, exponent=v)", "torch.clamp(x, min=1)", "x.clamp(max=2)",
        "x.clamp(torch.tensor(1.), torch.tensor(3.))", "torch.where(x > 2, x, 0.)", "torch.where(x > 2)",
        "x.where(x > 2, 0.)", "torch.full((2,), 7)", "torch.full((2,), 7.)", "torch.full((2,), True)",
        "torch.arange(5)", "torch.arange(1, 4)", "torch.arange(1, 4, 0.5)", "torch.arange(end=3)",
        "torch.arange(start=1, end=3)", "torch.linspace(0, 1, 3)", "torch.linspace(0, 1, steps=3)", "torch.eye(2, 3)",
        "torch.tensor([1, 2], dtype=torch.float64)", "torch.tensor(3, requires_grad=True)", "torch.zeros(2, 3).dtype",
        "torch.randint(3, (2,)).shape", "torch.randint(1, 3, (2,)).dtype", "torch.randint(high=3, size=(2,)).shape",
        "torch.cat([x, x], 1)", "torch.cat((x, x), dim=-1).shape", "torch.cat(x)", "torch.cat([x, 1])",
        "torch.stack([v, v])", "torch.stack(v)", "torch.stack([v, 2])", "x.to(torch.float64).dtype", "x.to(float).dtype",
        "x.to(int).dtype", "x.to(bool).dtype", "x.to('cpu').dtype", "x.to('cpu', torch.int32).dtype",
        "x.to(v).dtype", "x.to(dtype=torch.float16).dtype", "x.to(1)", "x.type(torch.float64)", "x.type('torch.IntTensor')",
        "x.size(1)", "x.size(dim=1)", "x.size(-1)", "x.stride(0)", "x.numel()", "x.dim()", "x.t().is_contiguous()",
        "x.transpose(0, 1).shape", "x.gather(1, i)", "torch.gather(x, 1, i)", "torch.gather(x, 1, i.float())",
        "x.masked_fill(x > 2, 0)", "x.masked_fill(x > 2, torch.tensor(1.))", "x.softmax(1)", "x.softmax(dim=1)",
        "torch.softmax(x, 1)", "torch.softmax(x, 1, torch.float64)", "x.log_softmax(-1)", "x.new_zeros(2)",
        "x.new_ones((2, 1))", "x.new_full((2,), 3)", "x.new_tensor([1, 2])", "x.split(1)", "x.split([1, 1])",
        "torch.split(x, 1, dim=1)", "x.chunk(2, 1)", "x.unbind(1)", "x.narrow(1, 1, 2)", "x.select(1, -1)",
        "x.topk(2)", "x.sort(descending=True)", "x.sort(stable=True)", "x.median(0)", "x.cumsum(dim=1)",
        "x.flip(0)", "x.flip([0, 1])", "x.roll(1)", "x.roll(1, 1)", "x.roll((1, 1), (0, 1))", "x.repeat(2, 1).shape",
        "x.movedim(0, 1).shape", "x.squeeze(0)", "x.unsqueeze(-1).shape", "x.tril(-1)", "x.lerp(x * 2, 0.5)",
        "x.mean(dtype=torch.float64)", "x.sum(dtype=torch.int64)", "torch.normal(0., 1., (2,)).shape",
        "torch.normal(mean=v, std=1.).shape", "x.index_put((torch.tensor([0]),), torch.tensor(9.))",
        "x.equal(x)", "torch.isclose(x, x).all()", "x.allclose(x, rtol=0.1)", "x.count_nonzero(1)",
        "x.amax((0, 1))", "x.any(1)", "x.all()", "x.prod(1)", "x.nansum(1)", "x.logsumexp(1)", "x.std()",
    ]
    # ints taken together as one list, the same types as calls above (whose bindings a parser may
    # keep) with values to refuse
    found += ["x.view(2 ** 62, 2)", "x.view(True, 6)", "x.view(2, 3.0)", "x.reshape(-1, 4)", "x.permute(1, 1)",
              "torch.randn(2, 3).shape", "torch.randn(2, -3)", "x.repeat(2, 1.5)", "x.expand(3, 2, -2)"]
    return found


def run(expr: str, namespace: dict) -> str:
    import warnings

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            value = eval(compile(expr, "<case>", "eval"), namespace)
            shown = "" if value is None else repr(value) + "\n"
        except Exception as error:  # noqa: BLE001 - the message is the answer
            # as tests/golden/reference.py shows an error: its last line, trailing newlines dropped
            shown = "".join(traceback.format_exception_only(type(error), error)).rstrip("\n") + "\n"
    notes = "".join(f"{w.category.__name__}: {INTERNAL_NOTE.sub('', str(w.message))}\n" for w in caught)
    return notes + shown


def main() -> None:
    import torch

    cases = []
    for expr in expressions():
        namespace: dict = {}
        exec(PRELUDE, namespace)
        torch.manual_seed(0)
        exec(SETUP, namespace)
        cases.append({"expr": expr, "output": ADDRESS.sub("0x?", run(expr, namespace))})
    OUT.write_text(json.dumps({"setup": SETUP, "cases": cases}, indent=1) + "\n", encoding="utf-8")
    print(f"{OUT}: {len(cases)} cases")


if __name__ == "__main__":
    main()
