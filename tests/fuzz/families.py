"""Statements for the op registry's families, mixed into generate.py's Generator.

Each statement picks (or makes) operands whose shapes fit the op most of the time, writes one
line and records the result's rough shape, dtype and requires_grad through `define`, as the
statements of generate.py do. Shapes stay small (up to about 4x5) and now and then an argument
is deliberately wrong (a dimension out of range, an index too large, a mismatched shape), so
PyTorch's error messages are compared too.
"""

from __future__ import annotations

import math
from typing import Callable, Optional

FLOAT = ("torch.float32", "torch.float64")
SMALL_SHAPES = [(2,), (3,), (4,), (2, 3), (3, 2), (2, 2), (3, 3), (1, 4), (4, 1), (2, 3, 4), (2, 1, 3), (3, 4)]
EINSUMS = [
    ("ij,jk->ik", 2),
    ("ij->ji", 1),
    ("i,i->", 1),
    ("ij->", 1),
    ("bij,bjk->bik", 2),
    ("i,j->ij", 2),
    ("ii->i", 1),
    ("ij,ij->i", 2),
    ("ij->j", 1),
    ("bi,bi->b", 2),
]


def normal_dim(shape: tuple, dim: int) -> int:
    return dim % max(len(shape), 1)


def nested(shape: tuple, item: Callable[[], str]) -> str:
    if not shape:
        return item()
    return "[" + ", ".join(nested(shape[1:], item) for _ in range(shape[0])) + "]"


class FamilyStatements:
    """One method per family; each appends one or two lines to self.lines."""

    # ----------------------------------------------------------------- operands

    def float_tensor(self, predicate: Callable = lambda v: True, shape: Optional[tuple] = None) -> str:
        """A float variable satisfying `predicate`, or a fresh one (of `shape`, if given)."""
        r = self.rng
        name = self.pick(lambda v: v.dtype in FLOAT and v.shape and None not in v.shape and predicate(v))
        if name is not None and r.random() < 0.7:
            return name
        shape = shape or r.choice(SMALL_SHAPES)
        grad = r.random() < 0.7
        dims = ", ".join(map(str, shape))
        dtype = r.choice(["", "", "", ", dtype=torch.float64"])
        if r.random() < 0.5:
            expr = f"torch.randn({dims}{dtype}{', requires_grad=True' if grad else ''})"
        else:
            expr = (
                f"tensor({nested(shape, lambda: str(round(r.uniform(-3, 3), r.randint(0, 2))))}{dtype}"
                f"{', requires_grad=True' if grad else ''})"
            )
        return self.define(shape, "torch.float64" if dtype else "torch.float32", grad, expr)

    def index_tensor(self, shape: tuple, high: int) -> str:
        """An int64 tensor literal of `shape` with values in [0, high), now and then one out of range."""
        r = self.rng
        wrong = r.random() < 0.04
        return f"tensor({nested(shape, lambda: str(high if wrong else r.randrange(max(high, 1))))})"

    def dim_of(self, shape: tuple) -> int:
        if self.rng.random() < 0.03:
            return len(shape) + 1  # out of range: PyTorch's IndexError
        return self.dim(shape)

    def float_along_dim(self) -> tuple:
        """A float operand, its Var, a dimension of it (as written) and that dimension wrapped."""
        a = self.float_tensor()
        va = self.vars[a]
        d = self.dim_of(va.shape)
        return a, va, d, normal_dim(va.shape, d)

    # ----------------------------------------------------------------- families

    def joining(self) -> None:
        r = self.rng
        a, va, d, k = self.float_along_dim()
        shape = va.shape
        c = r.random()
        if c < 0.3:
            b = self.pick(lambda v: v.shape == shape and v.dtype in FLOAT and v is not va) or a
            if r.random() < 0.2:
                b = self.float_tensor()
            fn = r.choice(["torch.cat", "cat", "torch.concat", "torch.cat"])
            extra = r.choice([f", dim={d}", f", {d}", ""])
            along = k if extra else 0
            out = tuple(s * 2 if i == along else s for i, s in enumerate(shape))
            self.define(out, va.dtype, va.grad or self.vars[b].grad, f"{fn}([{a}, {b}]{extra})")
        elif c < 0.5:
            b = self.pick(lambda v: v.shape == shape and v.dtype in FLOAT and v is not va) or f"{a} * 2"
            d = r.randint(-len(shape) - 1, len(shape))
            out = list(shape)
            out.insert(d % (len(shape) + 1), 2)
            fn = r.choice(["torch.stack", "stack", "torch.stack"])
            self.define(tuple(out), va.dtype, va.grad, f"{fn}([{a}, {b}], dim={d})")
        elif c < 0.7:
            size = r.choice([1, 2, 3])
            if r.random() < 0.3 and shape[k] > 1:
                sizes = [1, shape[k] - 1]
                size = sizes
            part = r.choice(["[0]", "[-1]", ""])
            out = tuple(
                s if i != k else (size[0] if isinstance(size, list) else min(size, s)) for i, s in enumerate(shape)
            )
            expr = r.choice([f"{a}.split({size}, dim={d})", f"torch.split({a}, {size}, {d})"]) + part
            if part:
                self.define(out, va.dtype, va.grad, expr)
            else:
                self.lines.append(expr)
        elif c < 0.85:
            n = r.choice([1, 2, 3])
            part = r.choice(["[0]", "[-1]", ""])
            expr = r.choice([f"{a}.chunk({n}, {d})", f"torch.chunk({a}, {n}, dim={d})"]) + part
            if part:
                self.define(
                    tuple(s if i != k else math.ceil(s / n) for i, s in enumerate(shape)), va.dtype, va.grad, expr
                )
            else:
                self.lines.append(expr)
        else:
            part = r.choice(["[0]", "[1]", ""])
            expr = r.choice([f"{a}.unbind({d})", f"torch.unbind({a}, dim={d})"]) + part
            if part:
                self.define(tuple(s for i, s in enumerate(shape) if i != k), va.dtype, va.grad, expr)
            else:
                self.lines.append(expr)

    def scatter(self) -> None:
        r = self.rng
        a, va, d, k = self.float_along_dim()
        shape = va.shape
        c = r.random()
        smaller = tuple(r.randint(1, s) if s else 0 for s in shape)
        if c < 0.15:
            index = self.index_tensor(smaller, shape[k])
            expr = r.choice([f"{a}.gather({d}, {index})", f"torch.gather({a}, {d}, {index})"])
            self.define(smaller, va.dtype, va.grad, expr)
        elif c < 0.35:
            index = self.index_tensor(smaller, shape[k])
            fn = r.choice(["scatter", "scatter_add", "scatter", "scatter_reduce"])
            src = r.choice([a, f"torch.ones_like({a})", f"{a}.detach() * 2"])
            if fn == "scatter" and r.random() < 0.4:
                src = f"value={self.number('float')}" if r.random() < 0.5 else self.number("float")
            reduce = f", reduce='{r.choice(['sum', 'prod', 'mean', 'amax', 'amin'])}'" if fn == "scatter_reduce" else ""
            if reduce and r.random() < 0.5:
                reduce += ", include_self=False"
            if r.random() < 0.25:  # in place, on a copy so leaves stay leaves
                name = self.define(shape, va.dtype, va.grad, f"{a}.clone()")
                self.lines.append(f"{name}.{fn}_({d}, {index}, {src}{reduce})")
            else:
                self.define(shape, va.dtype, va.grad, f"{a}.{fn}({d}, {index}, {src}{reduce})")
        elif c < 0.5:
            n = r.randint(1, 3)
            index = self.index_tensor((n,), shape[k])
            if r.random() < 0.5:
                out = tuple(n if i == k else s for i, s in enumerate(shape))
                self.define(
                    out,
                    va.dtype,
                    va.grad,
                    r.choice([f"{a}.index_select({d}, {index})", f"torch.index_select({a}, {d}, {index})"]),
                )
            else:
                fn = r.choice(["index_add", "index_copy", "index_fill"])
                source = f"{a}.index_select({d}, {index}) * 2" if fn != "index_fill" else self.number("float")
                alpha = f", alpha={self.number('int')}" if fn == "index_add" and r.random() < 0.3 else ""
                self.define(shape, va.dtype, va.grad, f"{a}.{fn}({d}, {index}, {source}{alpha})")
        elif c < 0.62:
            mask = r.choice([f"{a} > 0", f"{a} < {self.number('float')}", f"{a}.abs() > 1"])
            if r.random() < 0.5:
                self.define(shape, va.dtype, va.grad, f"{a}.masked_fill({mask}, {self.number()})")
            else:
                self.define(
                    (2,),
                    va.dtype,
                    va.grad,
                    r.choice([f"{a}.masked_select({mask})", f"torch.masked_select({a}, {mask})"]),
                )
        elif c < 0.75:
            other = r.choice([self.number("float"), f"{a} * -1", f"torch.zeros_like({a})", f"{a}.flip(0)"])
            self.define(shape, va.dtype, va.grad, f"torch.where({a} > {self.number('int')}, {a}, {other})")
        elif c < 0.87:
            n = r.randint(1, 4)
            index = self.index_tensor((n,), math.prod(shape))
            self.define((n,), va.dtype, va.grad, r.choice([f"{a}.take({index})", f"torch.take({a}, {index})"]))
        else:
            form = r.choice(
                [
                    f"{a}.nonzero()",
                    f"torch.nonzero({a} > 0)",
                    f"torch.nonzero({a}, as_tuple=True)",
                    f"torch.argwhere({a} > 0)",
                    f"({a} > 0).nonzero().squeeze(1)",
                ]
            )
            if "as_tuple" in form:
                self.lines.append(form)
            else:
                self.define((2, len(shape)), "torch.int64", False, form)

    def shape_op(self) -> None:
        r = self.rng
        a = self.pick(lambda v: v.shape and None not in v.shape) or self.float_tensor()
        va = self.vars[a]
        shape = va.shape
        n = len(shape)
        d = self.dim_of(shape)
        k = normal_dim(shape, d)
        c = r.random()
        if c < 0.12:
            order = list(range(n))
            r.shuffle(order)
            expr = r.choice(
                [
                    f"{a}.permute({', '.join(map(str, order))})",
                    f"{a}.permute({tuple(order)})",
                    f"torch.permute({a}, {tuple(order)})",
                ]
            )
            self.define(tuple(shape[i] for i in order), va.dtype, va.grad, expr)
        elif c < 0.22:
            d2 = self.dim(shape)
            out = list(shape)
            out[k], out[normal_dim(shape, d2)] = out[normal_dim(shape, d2)], out[k]
            expr = r.choice(
                [f"{a}.transpose({d}, {d2})", f"torch.transpose({a}, {d}, {d2})", f"{a}.swapaxes({d}, {d2})"]
            )
            self.define(tuple(out), va.dtype, va.grad, expr)
        elif c < 0.34:
            total = math.prod(shape)
            factors = [f for f in (1, 2, 3, 4, 5, 6) if total % f == 0]
            f = r.choice(factors)
            out = r.choice([(f, total // f), (total // f, f), (f, -1), (-1,)])
            fixed = tuple(total // f if s == -1 and len(out) == 2 else total if s == -1 else s for s in out)
            expr = r.choice(
                [
                    f"{a}.reshape({', '.join(map(str, out))})",
                    f"torch.reshape({a}, {out})",
                    f"{a}.view({', '.join(map(str, out))})",
                ]
            )
            if r.random() < 0.05:
                expr = f"{a}.reshape({total + 1})"
            self.define(fixed, va.dtype, va.grad, expr)
        elif c < 0.42:
            start = r.randint(0, max(n - 1, 0))
            end = r.choice([-1, start, n - 1])
            stop = end % n if n else 0
            out = shape[:start] + (math.prod(shape[start : stop + 1]),) + shape[stop + 1 :] if stop >= start else shape
            self.define(
                out,
                va.dtype,
                va.grad,
                (
                    r.choice([f"{a}.flatten({start}, {end})", f"torch.flatten({a}, start_dim={start})"])
                    if r.random() < 0.8
                    else f"{a}.flatten(1)"
                ),
            )
        elif c < 0.52:
            where = r.randint(-n - 1, n)
            out = list(shape)
            out.insert(where % (n + 1), 1)
            if r.random() < 0.5:
                self.define(
                    tuple(out),
                    va.dtype,
                    va.grad,
                    r.choice([f"{a}.unsqueeze({where})", f"torch.unsqueeze({a}, {where})"]),
                )
            else:
                ones = [i for i, s in enumerate(shape) if s == 1] or [k]
                i = r.choice(ones)
                out = tuple(s for j, s in enumerate(shape) if j != i or s != 1)
                self.define(
                    out,
                    va.dtype,
                    va.grad,
                    r.choice(
                        [
                            f"{a}.squeeze({i})",
                            f"{a}.squeeze(dim={i})",
                            f"torch.squeeze({a}, {i})",
                            f"{a}.squeeze({tuple(ones)})",
                        ]
                    ),
                )
        elif c < 0.62:
            target = tuple(r.choice([s, -1]) if s != 1 else r.choice([1, 3, -1]) for s in shape)
            lead = (2,) if r.random() < 0.4 else ()
            out = lead + tuple(s if t == -1 else t for s, t in zip(shape, target))
            self.define(out, va.dtype, va.grad, f"{a}.expand({', '.join(map(str, lead + target))})")
        elif c < 0.72:
            counts = tuple(r.randint(1, 2) for _ in range(n + r.randint(0, 1)))
            out = counts[: len(counts) - n] + tuple(s * t for s, t in zip(shape, counts[len(counts) - n :]))
            fn = r.choice(["repeat", "repeat", "tile"])
            if fn == "tile":
                out = tuple(out)
            self.define(
                out,
                va.dtype,
                va.grad,
                f"{a}.{fn}({', '.join(map(str, counts))})" if fn == "repeat" else f"torch.tile({a}, {counts})",
            )
        elif c < 0.8:
            dims = tuple(sorted({self.dim(shape) for _ in range(r.randint(1, 2))}))
            self.define(
                shape,
                va.dtype,
                va.grad,
                r.choice(
                    [
                        f"{a}.flip({', '.join(map(str, dims))})",
                        f"torch.flip({a}, {dims})",
                        f"{a}.fliplr()" if n >= 2 else f"{a}.flip(0)",
                    ]
                ),
            )
        elif c < 0.9:
            shift = r.randint(-3, 3)
            expr = r.choice(
                [
                    f"{a}.roll({shift})",
                    f"torch.roll({a}, {shift}, {d})",
                    f"{a}.roll(shifts={shift}, dims={d})",
                    f"{a}.roll(({shift}, 1), (0, -1))" if n >= 2 else f"{a}.roll({shift}, 0)",
                ]
            )
            self.define(shape, va.dtype, va.grad, expr)
        else:
            d2 = self.dim(shape)
            out = list(shape)
            out.insert(normal_dim(shape, d2), out.pop(k))
            expr = r.choice(
                [f"{a}.movedim({d}, {d2})", f"torch.movedim({a}, {d}, {d2})", f"torch.moveaxis({a}, {d}, {d2})"]
            )
            self.define(tuple(out), va.dtype, va.grad, expr)

    def linalg(self) -> None:
        r = self.rng
        c = r.random()
        m, k, n = r.randint(1, 4), r.randint(1, 4), r.randint(1, 4)
        if c < 0.2:
            left, right = r.choice(
                [
                    ((m, k), (k, n)),
                    ((k,), (k, n)),
                    ((m, k), (k,)),
                    ((k,), (k,)),
                    ((2, m, k), (k, n)),
                    ((2, m, k), (2, k, n)),
                    ((1, m, k), (3, k, n)),
                    ((m, k), (n, k)),
                ]
            )
            a, b = self.float_tensor(shape=left), self.float_tensor(shape=right)
            la, lb = self.vars[a].shape, self.vars[b].shape
            out = tuple(max(x, y) for x, y in zip(la[:-2], lb[:-2])) or la[:-2] or lb[:-2]
            out += (la[-2],) if len(la) > 1 else ()
            out += (lb[-1],) if len(lb) > 1 else ()
            expr = r.choice([f"{a} @ {b}", f"torch.matmul({a}, {b})", f"{a}.matmul({b})", f"matmul({a}, {b})"])
            self.define(out, self.vars[a].dtype, self.vars[a].grad or self.vars[b].grad, expr)
        elif c < 0.35:
            a = self.float_tensor(shape=(m, k))
            b = self.float_tensor(shape=(k, n)) if r.random() < 0.85 else self.float_tensor()
            if r.random() < 0.4:
                a = self.float_tensor(shape=(2, m, k))
                b = self.float_tensor(shape=(2, k, n))
                self.define((2, m, n), "torch.float32", True, r.choice([f"torch.bmm({a}, {b})", f"{a}.bmm({b})"]))
            else:
                self.define(
                    (m, n),
                    "torch.float32",
                    True,
                    r.choice([f"torch.mm({a}, {b})", f"{a}.mm({b})", f"{a}.mv({b}[:, 0])"]),
                )
        elif c < 0.55:
            spec, count = r.choice(EINSUMS)
            shapes = {
                "ij,jk->ik": [(m, k), (k, n)],
                "ij->ji": [(m, k)],
                "i,i->": [(k,), (k,)],
                "ij->": [(m, k)],
                "bij,bjk->bik": [(2, m, k), (2, k, n)],
                "i,j->ij": [(m,), (n,)],
                "ii->i": [(k, k)],
                "ij,ij->i": [(m, k), (m, k)],
                "ij->j": [(m, k)],
                "bi,bi->b": [(2, k), (2, k)],
            }[spec]
            names = [self.float_tensor(shape=s) for s in shapes[:count]]
            if count == 1 and spec == "i,i->":
                names.append(names[0])
            self.define(
                (2,),
                "torch.float32",
                True,
                (
                    f"torch.einsum('{spec}', {', '.join(names)})"
                    if r.random() < 0.8
                    else f"torch.einsum('{spec}', [{', '.join(names)}])"
                ),
            )
        elif c < 0.7:
            a, b = self.float_tensor(shape=(m,)), self.float_tensor(shape=(r.choice([m, m, n]),))
            fn = r.choice(["outer", "dot", "inner", "outer", "dot", "cross"])
            if fn == "cross":
                a, b = self.float_tensor(shape=(3,)), self.float_tensor(shape=(3,))
                fn = "linalg.cross"
            out = (self.vars[a].shape[0], self.vars[b].shape[0]) if fn == "outer" else ()
            self.define(
                out,
                "torch.float32",
                True,
                r.choice([f"torch.{fn}({a}, {b})", f"{a}.{fn}({b})"] if "." not in fn else [f"torch.{fn}({a}, {b})"]),
            )
        elif c < 0.85:
            a = self.float_tensor()
            shape = self.vars[a].shape
            opts = r.choice(
                ["", ", ord=1", ", ord=float('inf')", ", dim=-1", ", dim=0, keepdim=True", ", ord=2, dim=0"]
            )
            if len(shape) == 2 and r.random() < 0.4:
                opts = r.choice([", ord='fro'", ", ord='nuc'", ", ord=1", ", ord=-1", ", ord=float('inf')"])
            fn = r.choice(["torch.linalg.norm", "torch.linalg.vector_norm", "torch.linalg.norm"])
            if fn.endswith("vector_norm"):
                opts = opts.replace("'fro'", "2").replace("'nuc'", "1")
            self.define((), self.vars[a].dtype, self.vars[a].grad, f"{fn}({a}{opts})")
        else:
            size = r.randint(1, 3)
            a = self.float_tensor(lambda v: len(v.shape) >= 2 and v.shape[-1] == v.shape[-2], shape=(size, size))
            shape = self.vars[a].shape
            fn = r.choice(
                [
                    "torch.linalg.det",
                    "torch.det",
                    "torch.linalg.inv",
                    "torch.inverse",
                    "{}.det()",
                    "{}.inverse()",
                    "torch.linalg.slogdet",
                    "torch.logdet",
                ]
            )
            expr = fn.format(a) if "{}" in fn else f"{fn}({a})"
            if "inv" in fn:
                self.define(shape, self.vars[a].dtype, self.vars[a].grad, expr)
            elif "slogdet" in fn:
                self.lines.append(expr)
            else:
                self.define(shape[:-2], self.vars[a].dtype, self.vars[a].grad, expr)

    def sorting(self) -> None:
        r = self.rng
        a, va, d, k = self.float_along_dim()
        shape = va.shape
        c = r.random()
        part = r.choice([".values", ".indices", "[0]", "[1]", ""])
        if c < 0.25:
            opts = r.choice(
                [
                    "",
                    f"dim={d}",
                    "descending=True",
                    f"{d}, True",
                    f"dim={d}, stable=True",
                    "stable=True, descending=True",
                ]
            )
            expr = r.choice([f"{a}.sort({opts})", f"torch.sort({a}{', ' + opts if opts else ''})"]) + part
        elif c < 0.4:
            opts = r.choice(["", f"dim={d}", "descending=True", f"{d}, descending=True"])
            expr = r.choice([f"{a}.argsort({opts})", f"torch.argsort({a}{', ' + opts if opts else ''})"])
            part = ".indices"
        elif c < 0.6:
            top = r.randint(1, max(shape[k], 1) + (1 if r.random() < 0.05 else 0))
            opts = r.choice(["", f", dim={d}", ", largest=False", f", {d}, False, True", ", sorted=True"])
            expr = r.choice([f"{a}.topk({top}{opts})", f"torch.topk({a}, {top}{opts})"]) + part
            shape = tuple(
                top if i == (k if "dim" in opts or ", " + str(d) in opts else len(shape) - 1) else s
                for i, s in enumerate(shape)
            )
        elif c < 0.75:
            kth = r.randint(1, max(shape[k], 1))
            expr = r.choice([f"{a}.kthvalue({kth}, {d})", f"torch.kthvalue({a}, {kth}, dim={d}, keepdim=True)"]) + part
            shape = (
                tuple(s for i, s in enumerate(shape) if i != k)
                if "keepdim" not in expr
                else tuple(1 if i == k else s for i, s in enumerate(shape))
            )
        else:
            lo = (
                f"torch.full_like({a}, -0.5)"
                if r.random() < 0.5
                else self.float_tensor(lambda v: v.shape == shape[-1:])
            )
            hi = r.choice([f"{a}.detach().abs()", "None", f"torch.ones({shape[-1]})", self.number("float")])
            form = r.choice(
                [
                    f"{a}.clamp({lo}, {hi})",
                    f"torch.clamp({a}, min={lo})",
                    f"{a}.clamp(max={lo})",
                    f"torch.clamp({a}, {lo}, {hi})",
                    f"{a}.clip(min={lo}, max={hi})",
                    f"torch.maximum({a}, {lo})",
                    f"torch.minimum({a}, {lo})",
                ]
            )
            self.define(shape, va.dtype, va.grad, form)
            return
        if part in (".indices", "[1]"):
            self.define(shape, "torch.int64", False, expr)
        elif part:
            self.define(shape, va.dtype, va.grad, expr)
        else:
            self.lines.append(expr)

    def activation(self) -> None:
        r = self.rng
        a = self.float_tensor()
        va = self.vars[a]
        d = self.dim(va.shape)
        form = r.choice(
            [
                f"F.softmax({a}, dim={d})",
                f"F.log_softmax({a}, {d})",
                f"{a}.softmax({d})",
                f"torch.softmax({a}, dim={d})",
                f"{a}.log_softmax(dim={d})",
                f"F.gelu({a})",
                f"F.gelu({a}, approximate='tanh')",
                f"F.silu({a})",
                f"F.elu({a})",
                f"F.elu({a}, alpha={self.number('small')})",
                f"F.leaky_relu({a})",
                f"F.leaky_relu({a}, negative_slope={self.number('small')})",
                f"F.softplus({a}, beta=2)",
                f"F.hardtanh({a})",
                f"F.relu6({a})",
                f"F.selu({a})",
                f"F.celu({a})",
                f"F.mish({a})",
                f"F.hardswish({a})",
                f"F.logsigmoid({a})",
                f"F.softsign({a})",
                f"F.tanhshrink({a})",
                f"F.glu({a}, dim=-1)",
                f"F.normalize({a}, dim={d})",
                f"torch.nn.functional.silu({a})",
            ]
        )
        shape = va.shape
        if "glu" in form and shape:
            shape = shape[:-1] + (shape[-1] // 2,)
        self.define(shape, va.dtype, va.grad, form)

    def loss(self) -> None:
        r = self.rng
        reduction = r.choice(["", "", ", reduction='sum'", ", reduction='none'", ", reduction='mean'"])
        c = r.random()
        if c < 0.3:
            n, classes = r.randint(1, 4), r.randint(2, 5)
            # (N, C) scores, or (N, C, d1, ...) ones (per position, as segmentation and sequence models)
            wanted = (n, classes) + tuple(r.randint(1, 3) for _ in range(r.choice([0, 0, 1, 2])))
            if r.random() < 0.2:  # a time-major (d1, N, C) tensor permuted, as sequence code does
                logits = f"torch.randn({wanted[2:] + wanted[:2]}).permute(1, 2, 0)" if len(wanted) == 3 else None
            else:
                logits = None
            logits = logits or self.float_tensor(lambda v: len(v.shape) == len(wanted), shape=wanted)
            shape = self.vars[logits].shape if logits in self.vars else wanted
            n, classes = shape[:2]
            target = self.index_tensor((n, *shape[2:]), classes)
            extra = r.choice(["", "", ", label_smoothing=0.1", ", ignore_index=0", f", weight=torch.ones({classes})",
                              f", weight=torch.ones({classes}), label_smoothing=0.2"])
            if r.random() < 0.25:  # class probabilities as the target
                target = f"torch.softmax(torch.ones{tuple(shape)}, dim=1)"
            fn = r.choice(["F.cross_entropy", "F.cross_entropy", "F.nll_loss"])
            if fn == "F.nll_loss":
                logits = f"F.log_softmax({logits}, dim=1)"
                extra = extra.replace(", label_smoothing=0.1", "")
            expr = f"{fn}({logits}, {target}{reduction}{extra})"
            if r.random() < 0.3:
                expr = f"nn.CrossEntropyLoss({reduction[2:]})({logits}, {target})"
        else:
            a = self.float_tensor()
            shape = self.vars[a].shape
            target = r.choice(
                [
                    f"torch.zeros({', '.join(map(str, shape))})",
                    f"{a}.detach() * 0.5",
                    f"torch.full({shape}, 0.25)",
                    self.float_tensor(lambda v: v.shape == shape, shape=shape),
                ]
            )
            if c < 0.5:
                expr = r.choice(
                    [f"F.mse_loss({a}, {target}{reduction})", f"nn.MSELoss({reduction[2:]})({a}, {target})"]
                )
            elif c < 0.7:
                prob = f"torch.sigmoid({a})"
                expr = r.choice(
                    [
                        f"F.binary_cross_entropy({prob}, {target}.clamp(0, 1){reduction})",
                        f"F.binary_cross_entropy_with_logits({a}, {target}.clamp(0, 1){reduction})",
                        f"nn.BCELoss()({prob}, torch.ones_like({a}))",
                    ]
                )
            elif c < 0.85:
                expr = r.choice(
                    [
                        f"F.smooth_l1_loss({a}, {target}{reduction})",
                        f"F.smooth_l1_loss({a}, {target}, beta={self.number('small')})",
                        f"F.huber_loss({a}, {target}, delta=0.5{reduction})",
                    ]
                )
            else:
                expr = r.choice(
                    [
                        f"F.l1_loss({a}, {target}{reduction})",
                        f"F.kl_div(F.log_softmax({a}, -1), {target}, " "reduction='batchmean')",
                        f"F.soft_margin_loss({a}, {target}.sign())",
                    ]
                )
        grad = "requires_grad" in "".join(self.lines[-3:]) or r.random() < 0.5
        self.define((2,) if "'none'" in expr else (), "torch.float32", grad, expr)

    def cumulative(self) -> None:
        r = self.rng
        a = (
            self.float_tensor()
            if r.random() < 0.8
            else (self.pick(lambda v: v.shape and None not in v.shape) or self.float_tensor())
        )
        va = self.vars[a]
        d = self.dim_of(va.shape)
        fn = r.choice(["cumsum", "cumprod", "cummax", "cummin", "logcumsumexp", "cumsum", "diff"])
        expr = r.choice([f"{a}.{fn}({d})", f"torch.{fn}({a}, dim={d})"])
        if fn in ("cumsum", "cumprod") and r.random() < 0.3:
            expr = f"{a}.{fn}({d}, dtype=torch.float64)"
        if fn in ("cummax", "cummin"):
            part = r.choice([".values", ".indices", "[0]", ""])
            if not part:
                self.lines.append(expr)
                return
            expr += part
        shape = va.shape
        if fn == "diff":
            k = normal_dim(shape, d)
            shape = tuple(s - 1 if i == k else s for i, s in enumerate(shape))
        self.define(shape, "torch.int64" if expr.endswith("indices") else va.dtype, va.grad, expr)

    def random_op(self) -> None:
        r = self.rng
        if r.random() < 0.6:
            self.lines.append(r.choice([f"manual_seed({r.randint(0, 9)})", f"torch.manual_seed({r.randint(0, 9)})"]))
        shape = r.choice(SMALL_SHAPES)
        dims = ", ".join(map(str, shape))
        c = r.random()
        if c < 0.35:
            form, dtype = r.choice(
                [
                    (f"torch.rand({dims})", "torch.float32"),
                    (f"torch.randn({dims}, dtype=torch.float64)", "torch.float64"),
                    (f"torch.randint(0, 5, {shape})", "torch.int64"),
                    (f"torch.randint(3, {shape})", "torch.int64"),
                    (f"torch.randint(-2, 2, size={shape}, dtype=torch.int32)", "torch.int32"),
                    (f"torch.randperm({shape[0] + 2})", "torch.int64"),
                    (f"torch.rand(size={shape})", "torch.float32"),
                    (f"torch.normal(0.0, 1.0, size={shape})", "torch.float32"),
                    (f"torch.normal(torch.zeros({dims}), 2.0)", "torch.float32"),
                ]
            )
            if "randperm" in form:
                shape = (shape[0] + 2,)
            self.define(shape, dtype, False, form)
        elif c < 0.5:
            p = self.pick(lambda v: v.dtype in FLOAT and v.shape and None not in v.shape)
            probs = f"{p}.detach().sigmoid()" if p and r.random() < 0.6 else f"torch.full({shape}, 0.5)"
            self.define(
                self.vars[p].shape if p and probs.startswith(p) else shape,
                "torch.float32",
                False,
                r.choice([f"torch.bernoulli({probs})", f"{probs}.bernoulli()", f"torch.bernoulli({probs}, p=0.3)"]),
            )
        elif c < 0.65:
            rows = r.choice([(), (2,)])
            weights = nested(rows + (r.randint(2, 5),), lambda: str(r.choice([0.1, 0.5, 1.0, 2.0, 0.0])))
            count = r.randint(1, 4)
            replacement = r.choice(["", ", replacement=True", ", True"])
            self.define(
                rows + (count,), "torch.int64", False, f"torch.multinomial(tensor({weights}), {count}{replacement})"
            )
        elif c < 0.85:
            a = self.float_tensor()
            fn = r.choice(
                [
                    "normal_()",
                    "normal_(2.0, 0.5)",
                    "uniform_()",
                    "uniform_(-1, 1)",
                    "random_(0, 10)",
                    "exponential_()",
                    "bernoulli_(0.5)",
                    "geometric_(0.5)",
                    "cauchy_()",
                    "log_normal_()",
                ]
            )
            target = a if not self.vars[a].grad else f"{a}.detach()"
            self.lines.append(f"{target}.{fn}" if r.random() < 0.7 else f"with torch.no_grad():\n    {a}.{fn}")
        else:
            a = self.float_tensor()
            va = self.vars[a]
            p = r.choice(["0.5", "0.2", "0.0", "1.0", "0.9"])
            form = r.choice(
                [
                    f"F.dropout({a}, p={p})",
                    f"F.dropout({a}, {p}, training=False)",
                    f"F.dropout({a}, training=True)",
                    f"torch.nn.functional.dropout({a}, {p}, True)",
                    f"nn.Dropout({p})({a})",
                    f"torch.rand_like({a})",
                    f"torch.randn_like({a})",
                    f"torch.randint_like({a}, 10)",
                ]
            )
            self.define(va.shape, va.dtype, va.grad and "like" not in form, form)
