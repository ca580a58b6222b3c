#!/usr/bin/env python3
"""Generate small random gradcalc programs for differential testing against PyTorch.

Usage:  python tests/fuzz/generate.py [--seed N] [--count N] [--out DIR]

Each program is a handful of statements from the subset people use with autograd: tensor
creation (scalars, nested lists, int/float/bool data, dtype=, requires_grad=), arithmetic
between tensors and Python numbers with broadcasting, element-wise functions, reductions with
dims and keepdim, views, indexing and slicing, in-place ops, backward and autograd.grad,
.grad access and reset, detach/clone, no_grad blocks and printing; and, from families.py, the op
registry's families: joining, indexing and scatter, shape, linear algebra, sorting and clamping
with tensors, activations and losses through F, cumulative ops and random ops after
manual_seed. The generator keeps a rough model of each variable (shape, dtype, requires_grad)
so that most programs are valid, yet many are not: a program ends at its first error, which is
compared as well.

The same seed always gives the same programs (`programs(seed, count)`), so a mismatch found by
tests/fuzz/compare.py can be reproduced from its seed and index alone. With --out, programs
are written as DIR/fuzz_<seed>_<index>.grad; otherwise they are printed, separated by
`# ---- <index>` lines.
"""
from __future__ import annotations

import argparse
import math
import random
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from families import FamilyStatements

FLOAT_DTYPES = ["torch.float32", "torch.float64"]
ALL_DTYPES = FLOAT_DTYPES + ["torch.int64", "torch.int32", "torch.bool", "torch.float16"]
UNARY = ["exp", "log", "sin", "cos", "tanh", "sigmoid", "relu", "sqrt", "abs", "neg", "square",
         "reciprocal", "rsqrt", "log1p", "expm1", "floor", "ceil", "round", "sign", "trunc", "frac",
         "asin", "acos", "atan", "sinh", "cosh", "log2", "log10", "exp2", "erf", "sgn"]
TORCH_UNARY = ["exp", "log", "sin", "cos", "tanh", "sigmoid", "relu", "sqrt"]  # in the prelude
BINARY_OPS = ["+", "-", "*", "/", "**", "//", "%"]
COMPARE_OPS = ["<", ">", "<=", ">=", "==", "!="]
RANDOM_WORDS = ("rand", "normal", "uniform_", "bernoulli", "multinomial", "ropout", "exponential_", "geometric_",
                "cauchy_")
REDUCTIONS = ["sum", "mean", "prod", "max", "min", "amax", "amin", "std", "var", "norm",
              "argmax", "argmin", "logsumexp", "cumsum", "cumprod", "all", "any", "median",
              "nansum", "count_nonzero"]


@dataclass
class Var:
    shape: tuple
    dtype: str  # "torch.float32", ...
    grad: bool  # requires_grad, roughly


class Generator(FamilyStatements):
    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.vars: dict = {}
        self.lines: list = []
        self.counter = 0

    # ----------------------------------------------------------------- helpers

    def new_name(self) -> str:
        self.counter += 1
        return "abcdefghijkmnpqrsuvw"[(self.counter - 1) % 20] + ("" if self.counter <= 20 else str(self.counter))

    def define(self, shape: tuple, dtype: str, grad: bool, expr: str) -> str:
        """A new variable `name = expr` of roughly that shape, dtype and requires_grad; its name."""
        name = self.new_name()
        self.vars[name] = Var(tuple(shape), dtype, grad)
        self.lines.append(f"{name} = {expr}")
        return name

    def pick(self, predicate=lambda v: True) -> Optional[str]:
        names = [n for n, v in self.vars.items() if predicate(v)]
        return self.rng.choice(names) if names else None

    def number(self, kind: Optional[str] = None) -> str:
        kind = kind or self.rng.choice(["int", "float", "float", "bool", "small"])
        r = self.rng
        if kind == "int":
            return str(r.randint(-4, 5))
        if kind == "bool":
            return r.choice(["True", "False"])
        if kind == "small":
            return r.choice(["0.5", "1e-3", "0.1", "-0.25", "1e5", "123.456", "3.14159", "1e-8", "2.0", "0."])
        return str(round(r.uniform(-5, 5), r.randint(0, 4)))

    def shape(self) -> tuple:
        return self.rng.choice([(), (1,), (2,), (3,), (4,), (2, 3), (3, 2), (1, 3), (2, 1), (2, 2),
                                (2, 3, 4), (1, 2, 3), (3, 1, 2), (0,), (5,), (6,)])

    def data(self, shape: tuple, kind: str) -> str:
        if not shape:
            return self.number(kind)
        return "[" + ", ".join(self.data(shape[1:], kind) for _ in range(shape[0])) + "]"

    def broadcastable(self, shape: tuple) -> tuple:
        """A shape broadcastable with `shape` (mostly)."""
        r = self.rng.random()
        if r < 0.3 or not shape:
            return shape
        if r < 0.5:
            return shape[1:]
        if r < 0.7:
            return tuple(1 if self.rng.random() < 0.5 else d for d in shape)
        if r < 0.8:
            return (1,) + shape
        return self.shape()

    # ----------------------------------------------------------------- statements

    def creation(self) -> None:
        r = self.rng
        name = self.new_name()
        shape = self.shape()
        kind = r.choice(["float", "float", "float", "int", "bool", "small", "mixed"])
        dtype = None
        grad = False
        choice = r.random()
        if choice < 0.55:
            if kind == "mixed":
                text = self.data(shape, r.choice(["float", "int"]))
                if shape:  # one int among floats, or a bool among ints
                    text = text.replace(text.strip("[]").split(",")[0].strip("[] "), r.choice(["1", "True", "2.5"]), 1)
            else:
                text = self.data(shape, kind)
            args = [text]
            dt = "torch.float32" if kind in ("float", "small") or "." in text else "torch.int64"
            if kind == "bool":
                dt = "torch.bool"
            if r.random() < 0.3:
                dt = r.choice(ALL_DTYPES)
                args.append(f"dtype={dt}")
            # requires_grad mostly where it is allowed (floating dtypes), sometimes where it is not
            if r.random() < (0.6 if dt in FLOAT_DTYPES else 0.05):
                grad = True
                args.append("requires_grad=True")
            expr = f"tensor({', '.join(args)})"
            dtype = dt
        elif choice < 0.75:
            fn = r.choice(["ones", "zeros", "rand", "randn"])
            dims = ", ".join(map(str, shape)) if shape else ""
            args = [dims] if dims else ["()"] if fn in ("ones", "zeros") else [dims]
            args = [a for a in args if a]
            if not args:
                args = ["1"]
                shape = (1,)
            dtype = "torch.float32"
            if r.random() < 0.2:
                dtype = r.choice(FLOAT_DTYPES)
                args.append(f"dtype={dtype}")
            if r.random() < 0.6:
                grad = True
                args.append("requires_grad=True")
            expr = f"torch.{fn}({', '.join(args)})" if fn in ("rand", "randn") else f"{fn}({', '.join(args)})"
            if fn in ("rand", "randn") and r.random() < 0.5:
                self.lines.append(f"manual_seed({r.randint(0, 10)})")
        elif choice < 0.9:
            n = math.prod(shape) if shape else 1
            start = r.choice(["", "1.", "-2.", "0.5"])
            expr = f"arange({start + ', ' if start else ''}{n}{'' if start else r.choice(['', '.'])})"
            dtype = "torch.float32" if "." in expr else "torch.int64"
            if shape and len(shape) > 1:
                expr += f".reshape({', '.join(map(str, shape))})"
            elif not shape:
                expr += ".sum()"
            if dtype != "torch.int64" and r.random() < 0.5:
                expr += ".requires_grad_()"
                grad = True
        else:
            fn = r.choice(["full", "linspace", "eye", "full_like", "ones_like", "zeros_like"])
            if fn == "full":
                expr = f"full({shape}, {self.number()}{', requires_grad=True' if r.random() < 0.5 else ''})"
                dtype, grad = "torch.float32", "requires_grad" in expr
            elif fn == "linspace":
                n = r.randint(1, 6)
                shape = (n,)
                expr = f"linspace({self.number('int')}, {self.number('int')}, {n}{', requires_grad=True' if r.random() < 0.5 else ''})"
                dtype, grad = "torch.float32", "requires_grad" in expr
            elif fn == "eye":
                n = r.randint(1, 3)
                shape = (n, n)
                expr = f"eye({n})"
                dtype = "torch.float32"
            else:
                other = self.pick()
                if other is None:
                    return self.creation()
                shape, dtype = self.vars[other].shape, self.vars[other].dtype
                extra = f", {self.number()}" if fn == "full_like" else ""
                expr = f"{fn}({other}{extra})"
        self.vars[name] = Var(shape, dtype or "torch.float32", grad)
        self.lines.append(f"{name} = {expr}")

    def operand(self, shape: tuple) -> str:
        r = self.rng
        if r.random() < 0.35 or not self.vars:
            return self.number()
        other = self.pick(lambda v: v.shape == shape or v.shape == () or r.random() < 0.3)
        return other or self.number()

    def arithmetic(self) -> None:
        r = self.rng
        a = self.pick()
        if a is None:
            return self.creation()
        va = self.vars[a]
        op = r.choice(BINARY_OPS + ["+", "*", "-", "@"] + COMPARE_OPS[:2])
        b = self.operand(va.shape)
        if op == "@":
            b = self.pick(lambda v: v.shape and va.shape and v.shape[0] == va.shape[-1]) or self.pick()
        if op == "**" and r.random() < 0.6:
            b = r.choice(["2", "3", "0.5", "-1", "2.0", "0", "1"])
        expr = f"{b} {op} {a}" if r.random() < 0.3 else f"{a} {op} {b}"
        if r.random() < 0.15:
            expr = f"({expr}) {r.choice(['+', '*', '-'])} {self.operand(va.shape)}"
        if r.random() < 0.1:
            fn = r.choice(["torch.add", "torch.mul", "torch.sub", "torch.div", "torch.maximum", "torch.minimum",
                           "torch.pow", "torch.atan2", "torch.where"])
            if fn == "torch.where":
                expr = f"torch.where({a} > 0, {a}, {b})"
            elif fn == "torch.add" and r.random() < 0.5:
                expr = f"torch.add({a}, {b}, alpha={self.number('int')})"
            else:
                expr = f"{fn}({a}, {b})"
        name = self.new_name()
        bvar = self.vars.get(b)
        shape = va.shape if bvar is None or len(bvar.shape) <= len(va.shape) else bvar.shape
        dtype = va.dtype if op not in COMPARE_OPS else "torch.bool"
        if op == "/" and "int" in dtype:
            dtype = "torch.float32"
        self.vars[name] = Var(shape, dtype, va.grad or bool(bvar and bvar.grad))
        self.lines.append(f"{name} = {expr}")

    def unary(self) -> None:
        r = self.rng
        a = self.pick()
        if a is None:
            return self.creation()
        va = self.vars[a]
        fn = r.choice(UNARY)
        c = r.random()
        if c < 0.25 and fn in TORCH_UNARY:
            expr = f"{fn}({a})"
        elif c < 0.4:
            expr = f"torch.{fn}({a})"
        elif c < 0.5:
            expr = r.choice([f"{a}.clamp(min={self.number('float')})", f"{a}.clamp({self.number('int')}, {self.number('int')})",
                             f"{a}.clamp(max={self.number()})", f"F.relu({a})", f"F.softmax({a}, dim=-1)",
                             f"F.log_softmax({a}, dim=0)", f"{a}.pow({self.number()})", f"F.gelu({a})",
                             f"F.leaky_relu({a}, 0.1)", f"{a}.lerp({a} * 2, 0.3)", f"torch.nan_to_num({a})",
                             f"{a}.masked_fill({a} > 0, {self.number()})", f"F.silu({a})", f"F.softplus({a})",
                             f"{a}.float()", f"{a}.double()", f"{a}.long()", f"{a}.int()", f"{a}.bool()",
                             f"{a}.to(torch.float64)", f"{a}.type(torch.float32)", f"{a}.half()"])
        else:
            expr = f"{a}.{fn}()"
        name = self.new_name()
        self.vars[name] = Var(va.shape, va.dtype, va.grad)
        self.lines.append(f"{name} = {expr}")

    def dim(self, shape: tuple) -> int:
        n = max(len(shape), 1)
        return self.rng.randint(-n, n - 1)

    def reduction(self) -> None:
        r = self.rng
        a = self.pick()
        if a is None:
            return self.creation()
        va = self.vars[a]
        fn = r.choice(REDUCTIONS)
        c = r.random()
        shape: tuple = ()
        if fn in ("cumsum", "cumprod"):
            expr = f"{a}.{fn}({self.dim(va.shape)})"
            shape = va.shape
        elif c < 0.4:
            expr = f"{a}.{fn}()" if r.random() < 0.7 else f"torch.{fn}({a})"
        elif c < 0.85:
            d = self.dim(va.shape)
            keep = r.random() < 0.4 and fn != "count_nonzero"  # count_nonzero has no keepdim
            arg = f"dim={d}" if r.random() < 0.5 else str(d)
            expr = f"{a}.{fn}({arg}{', keepdim=True' if keep else ''})"
            shape = tuple(1 if i == d % max(len(va.shape), 1) else s for i, s in enumerate(va.shape)) if keep else \
                tuple(s for i, s in enumerate(va.shape) if i != d % max(len(va.shape), 1))
            if fn in ("max", "min", "median") and r.random() < 0.5:
                expr += r.choice([".values", ".indices", "[0]", "[1]"])
        else:
            dims = sorted(set(self.dim(va.shape) for _ in range(2)))
            extra = r.choice(["", ", keepdim=True", ", unbiased=False", ", correction=0"] if fn in ("std", "var")
                             else ["", ", keepdim=True"] if fn != "count_nonzero" else [""])
            expr = f"{a}.{fn}(dim={tuple(dims) if len(dims) > 1 else dims[0]}{extra})"
            shape = ()
        name = self.new_name()
        self.vars[name] = Var(shape, va.dtype, va.grad)
        self.lines.append(f"{name} = {expr}")

    def index_expr(self, va: Var, a: str) -> tuple:
        """(subscript text, resulting shape guess)."""
        r = self.rng
        shape = va.shape
        if not shape:
            return r.choice(["[None]", "[...]", "[()]"]), shape
        n = shape[0]
        c = r.random()
        if c < 0.2:
            i = r.randint(-n, n - 1) if n else 0
            return f"[{i}]", shape[1:]
        if c < 0.35:
            start, stop, step = r.choice(["", "1", "-1", "0"]), r.choice(["", "2", "-1", "10"]), r.choice(["", "2", "1"])
            text = f"{start}:{stop}" + (f":{step}" if step else "")
            return f"[{text}]", shape
        if c < 0.45:
            return f"[{a} > {self.number('int')}]", (None,)
        if c < 0.55 and len(shape) > 1:
            return f"[:, {r.randint(-shape[1], shape[1] - 1) if shape[1] else 0}]", shape[:1] + shape[2:]
        if c < 0.65:
            return r.choice(["[None]", "[..., None]", "[None, ...]"]), (1,) + shape
        if c < 0.75:
            return f"[..., {r.randint(-shape[-1], shape[-1] - 1) if shape[-1] else 0}]", shape[:-1]
        if c < 0.85 and n:
            idx = [r.randint(-n, n - 1) for _ in range(r.randint(1, 3))]
            return f"[{idx}]", (len(idx),) + shape[1:]
        if c < 0.92 and n:
            k = r.randint(-n, n - 1)
            return f"[tensor({[k, 0][:r.randint(1, 2)]})]", shape
        return f"[{r.randint(-n, n - 1) if n else 0}, ...]", shape[1:]

    def view(self) -> None:
        r = self.rng
        a = self.pick()
        if a is None:
            return self.creation()
        va = self.vars[a]
        shape = va.shape
        n = math.prod(shape) if shape else 1
        c = r.random()
        if c < 0.45:
            text, shape = self.index_expr(va, a)
            expr = a + text
            if r.random() < 0.2 and shape and shape[0] is not None:
                text2, shape = self.index_expr(Var(shape, va.dtype, va.grad), a + text)
                expr += text2
        else:
            options = [(f"{a}.view(-1)", (n,)), (f"{a}.reshape({n}, 1)", (n, 1)), (f"{a}.t()", shape[::-1]),
                       (f"{a}.T", shape[::-1]), (f"{a}.unsqueeze({self.dim(shape + (1,))})", None),
                       (f"{a}.squeeze()", tuple(s for s in shape if s != 1)), (f"{a}.flatten()", (n,)),
                       (f"{a}.transpose(0, -1)", None), (f"{a}.contiguous()", shape),
                       (f"{a}.expand(2, *{a}.shape)", (2,) + shape), (f"{a}.permute(*reversed(range({a}.dim())))", shape[::-1]),
                       (f"{a}.flip(0)", shape), (f"{a}.repeat(2{', 1' * max(len(shape) - 1, 0)})", None),
                       (f"{a}.view({a}.shape)", shape), (f"{a}.squeeze(0)", None), (f"{a}.narrow(0, 0, 1)", None),
                       (f"{a}.select(0, -1)", shape[1:]), (f"{a}.chunk(2)[0]", None), (f"{a}.split(1)[-1]", None),
                       (f"{a}.unbind()[0]", shape[1:]), (f"{a}.diag()", None), (f"{a}.tril()", shape),
                       (f"{a}.roll(1)", shape), (f"torch.cat([{a}, {a}])", None), (f"torch.stack([{a}, {a}], dim=-1)", None),
                       (f"{a}.reshape(-1, {r.choice([1, 2, 3])})", None), (f"{a}.view_as({a})", shape),
                       (f"{a}.expand_as({a})", shape), (f"{a}.movedim(0, -1)", None), (f"{a}.mT", None),
                       (f"{a}.sort(descending=True)[0]", shape), (f"{a}.topk(1).values", None), (f"{a}.gather(0, {a}.argsort(0))", shape)]
            expr, guess = r.choice(options)
            shape = guess if guess is not None else shape
        if shape and shape[0] is None:
            shape = (2,)
        name = self.new_name()
        self.vars[name] = Var(tuple(shape), va.dtype, va.grad)
        self.lines.append(f"{name} = {expr}")

    def inplace(self) -> None:
        r = self.rng
        a = self.pick()
        if a is None:
            return self.creation()
        va = self.vars[a]
        c = r.random()
        if c < 0.3:
            op = r.choice(["+=", "-=", "*=", "/="])
            self.lines.append(f"{a} {op} {self.operand(va.shape)}")
        elif c < 0.55:
            text, _ = self.index_expr(va, a)
            self.lines.append(f"{a}{text} = {self.number() if r.random() < 0.7 else self.operand(())}")
        elif c < 0.75:
            fn = r.choice(["add_", "mul_", "sub_", "div_", "clamp_", "zero_", "fill_", "exp_", "relu_", "neg_",
                           "pow_", "sigmoid_", "copy_", "uniform_", "normal_", "abs_", "masked_fill_"])
            if fn in ("zero_", "exp_", "relu_", "neg_", "sigmoid_", "abs_", "uniform_", "normal_"):
                arg = ""
            elif fn == "clamp_":
                arg = f"min={self.number('int')}"
            elif fn == "copy_":
                arg = self.pick(lambda v: v.shape == va.shape) or self.number()
            elif fn == "masked_fill_":
                arg = f"{a} < 0, {self.number()}"
            else:
                arg = self.operand(va.shape)
            self.lines.append(f"{a}.{fn}({arg})")
        elif c < 0.85:
            self.lines.append(r.choice([f"with torch.no_grad():\n    {a} -= 0.1 * {a}", f"with torch.no_grad():\n    {a}[0] = 1",
                                        f"with torch.no_grad():\n    {a}.add_(1)",
                                        f"{a}.data.mul_(2)", f"{a}.detach().zero_()", f"{a}.data = {a}.data * 2",
                                        f"{a}.requires_grad_()", f"{a}.requires_grad = {r.choice(['True', 'False'])}"]))
        else:
            b = self.new_name()
            self.vars[b] = Var(va.shape, va.dtype, va.grad)
            self.lines.append(f"{b} = {a}.{r.choice(['add_', 'mul_', 'sub_', 'pow_'])}({self.operand(va.shape)})")

    def backward(self) -> None:
        r = self.rng
        a = self.pick(lambda v: v.grad) or self.pick()
        if a is None:
            return self.creation()
        leaves = [n for n, v in self.vars.items() if v.grad]
        c = r.random()
        retain = r.choice(["", "retain_graph=True", ""])
        if c < 0.35:
            self.lines.append(f"{a}.backward({retain})")
        elif c < 0.55:
            self.lines.append(f"{a}.sum().backward({retain})" if r.random() < 0.7 else f"{a}.mean().backward()")
        elif c < 0.65:
            self.lines.append(f"{a}.backward(torch.ones_like({a}){', ' + retain if retain else ''})")
        elif c < 0.85 and leaves:
            inputs = r.sample(leaves, min(len(leaves), r.randint(1, 2)))
            opts = r.choice(["", ", retain_graph=True", ", create_graph=True", ", allow_unused=True",
                             ", grad_outputs=torch.ones_like(" + a + ")"])
            target = a if r.random() < 0.5 else f"{a}.sum()"
            name = self.new_name()
            self.vars[name] = Var(self.vars[inputs[0]].shape, "torch.float32", "create" in opts)
            if len(inputs) == 1 and r.random() < 0.5:
                self.lines.append(f"{name}, = autograd.grad({target}, {inputs[0]}{opts})")
            else:
                self.lines.append(f"{name} = torch.autograd.grad({target}, [{', '.join(inputs)}]{opts})")
                self.vars[name].shape = (len(inputs),)  # a tuple of gradients: only its length is known
        else:
            self.lines.append(f"{a}.retain_grad()")

    def grad_access(self) -> None:
        r = self.rng
        a = self.pick()
        if a is None:
            return self.creation()
        self.lines.append(r.choice([f"{a}.grad", f"print({a}.grad)", f"{a}.grad = None", f"{a}.grad.zero_()",
                                    f"{a}.grad_fn", f"{a}.is_leaf", f"{a}.requires_grad", f"{a}.grad_fn.next_functions",
                                    f"{a}.grad_fn.name()", f"{a}.grad is None", f"{a}.retains_grad"]))

    def copy(self) -> None:
        r = self.rng
        a = self.pick()
        if a is None:
            return self.creation()
        va = self.vars[a]
        name = self.new_name()
        expr = r.choice([f"{a}.detach()", f"{a}.clone()", f"{a}.data", f"{a}.detach().clone()",
                         f"{a}.clone().detach().requires_grad_(True)", f"torch.tensor({a}.tolist())", f"{a}.new_ones(2)",
                         f"{a}.new_tensor([1, 2])", f"{a}.new_zeros({a}.shape)"])
        self.vars[name] = Var(va.shape, va.dtype, "clone()" == expr[-7:] and va.grad)
        self.lines.append(f"{name} = {expr}")

    def no_grad(self) -> None:
        r = self.rng
        a = self.pick()
        if a is None:
            return self.creation()
        name = self.new_name()
        va = self.vars[a]
        ctx = r.choice(["torch.no_grad()", "no_grad()", "torch.enable_grad()", "torch.set_grad_enabled(False)"])
        self.vars[name] = Var(va.shape, va.dtype, "enable" in ctx and va.grad)
        body = r.choice([f"{name} = {a} * 2", f"{name} = {a}.exp()", f"{name} = {a} + 1\n    print({name}.requires_grad)",
                         f"{name} = {a}.sum()\n    {name}"])
        self.lines.append(f"with {ctx}:\n    {body}")

    def show(self) -> None:
        r = self.rng
        a = self.pick()
        if a is None:
            return self.creation()
        self.lines.append(r.choice([a, a, f"print({a})", f"print({a}, {a}.shape)", f"{a}.shape", f"{a}.dtype",
                                    f"{a}.item()", f"{a}.tolist()", f"print(f'{{{a}}}')", f"f'{{{a}.sum().item():.4f}}'",
                                    f"{a}.size()", f"{a}.dim()", f"{a}.numel()", f"len({a})", f"float({a}.sum())",
                                    f"int({a}.sum())", f"bool({a}.any())", f"str({a})", f"repr({a}.dtype)",
                                    f"print({a}.shape, {a}.dtype, {a}.requires_grad)", f"{a}.size(-1)", f"{a}.stride()",
                                    f"{a}.is_contiguous()", f"list({a})", f"[x for x in {a}]", f"{a} == {a}",
                                    f"torch.equal({a}, {a})", f"torch.allclose({a}, {a})", f"{a}.isnan().any()",
                                    f"print(f'{{{a}.mean()=}}')", f"{a}.abs().max()", f"{a}.data_ptr() == {a}.data_ptr()",
                                    f"for x in {a}:\n    print(x)", f"{a}.is_floating_point()", f"{a}.element_size()",
                                    f"{a}.requires_grad_(False)" if r.random() < 0.2 else a]))

    def misc(self) -> None:
        r = self.rng
        self.lines.append(r.choice(["torch.set_printoptions(precision=2)", "torch.set_printoptions(sci_mode=False)",
                                    "torch.set_default_dtype(torch.float64)", "torch.set_printoptions(precision=6)",
                                    "torch.is_grad_enabled()", "torch.set_grad_enabled(False)",
                                    "torch.set_printoptions(threshold=5)", "torch.set_printoptions(linewidth=40)",
                                    "torch.set_printoptions(profile='full')"]))

    def program(self) -> str:
        steps = [(self.creation, 4), (self.arithmetic, 6), (self.unary, 3), (self.reduction, 3), (self.view, 4),
                 (self.inplace, 2), (self.backward, 3), (self.grad_access, 3), (self.copy, 1), (self.no_grad, 1),
                 (self.show, 5), (self.misc, 0.3), (self.joining, 1.5), (self.scatter, 1.5), (self.shape_op, 1.5),
                 (self.linalg, 1.5), (self.sorting, 1.5), (self.activation, 1.5), (self.loss, 1.5),
                 (self.cumulative, 1), (self.random_op, 1.5)]
        functions, weights = zip(*steps)
        self.creation()
        if self.rng.random() < 0.5:
            self.creation()
        for _ in range(self.rng.randint(3, 12)):
            self.rng.choices(functions, weights)[0]()
            if self.rng.random() < 0.3:  # echo what was just made, so most values get printed
                last = self.lines[-1].split(" = ")[0]
                if last != self.lines[-1] and last.isidentifier() and last in self.vars:
                    self.lines.append(last)
        if any(word in line for line in self.lines for word in RANDOM_WORDS):
            # an unseeded generator starts from a random seed in PyTorch: no program may depend on it
            self.lines.insert(0, f"gen = manual_seed({self.rng.randint(0, 99)})")
        return "\n".join(self.lines) + "\n"


def programs(seed: int, count: int) -> list:
    """`count` programs from `seed`; program i depends only on (seed, i)."""
    return [Generator(random.Random(f"{seed}:{i}")).program() for i in range(count)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--count", type=int, default=20)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    for index, text in enumerate(programs(args.seed, args.count)):
        if args.out:
            args.out.mkdir(parents=True, exist_ok=True)
            (args.out / f"fuzz_{args.seed}_{index}.grad").write_text(text, encoding="utf-8")
        else:
            print(f"# ---- {index}\n{text}")


if __name__ == "__main__":
    main()
