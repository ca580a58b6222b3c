"""Tangents, the machinery of forward-mode AD: dual tensors carry a tangent per level, and
every op the registry records computes its outputs' tangents from its inputs'.

A tangent is computed by the op's declared forward formula: explicit formulas per input, an
element-wise op's backward formula applied to the tangent, or, for a linear op (and any op
declaring none), the transpose of its backward formula: J t is the gradient with respect to g
of <B(g), t>, B being the backward formula, itself recorded with Tensor operations.

Levels nest (torch.func.jvp inside jvp): the tangent at one level is computed with only the
levels outside it active, so it carries their tangents and nothing of its own. The public API
(torch.autograd.forward_ad) and torch.func enter levels through here."""
from __future__ import annotations

import itertools
from typing import Any, Callable, Optional, Sequence

import numpy as np

from . import dtypes, grad_mode
from .engine import run_backward
from .grad_mode import FORWARD_LEVELS as LEVELS
from .tensor import Tensor
from ..warnings import first_time, warn

# forward-mode formulas PyTorch derives itself: an element-wise op's jvp is its backward formula
# applied to the tangent; a linear op's jvp is the op applied to the tangents
ELEMENT_WISE = "element_wise"
LINEAR = "linear"

# forward mode through a custom Function without a jvp (PyTorch's module hook identity is one)
NO_JVP = "You must implement the jvp function for custom autograd.Function to use it with forward mode AD."


def unsupported(aten_name: str) -> Callable:
    """The jvp of an op PyTorch gives no forward-mode formula: it raises PyTorch's error."""
    def refuse(tangents: list) -> list:
        raise NotImplementedError(
            f"Trying to use forward AD with {aten_name} that does not support it because it has not been "
            "implemented yet.\nPlease file an issue to PyTorch at "
            "https://github.com/pytorch/pytorch/issues/new?template=feature-request.yml so that we can prioritize "
            "its implementation or submit a PR adding the implementation to derivatives.yaml")
    return refuse

# level ids are never reused: a tensor keeps no stale tangent from a level that ended
_ids = itertools.count()



class BatchLevel:
    """A vmap running now: the tensors computed from its examples carry it (as a tangent of
    True), so that what vmap refuses (`.item()`, control flow on them) can be refused."""

    __slots__ = ("size", "index")

    def __init__(self, size: int) -> None:
        self.size = size
        self.index = 0  # the example running now


def first_example() -> bool:
    """Whether the running vmaps are at their first example: PyTorch calls an op once for all of
    them, and what it says once (a warning) is said then."""
    return all(level.index == 0 for level in LEVELS if type(level) is BatchLevel)


def enter_level() -> int:
    """A new innermost level, for function transforms (which may nest)."""
    level = next(_ids)
    LEVELS.append(level)
    return level


def exit_level(level: int) -> None:
    LEVELS.remove(level)


# PyTorch's first dual tensor of a process imports its jvp decompositions, whose 18 scripted
# functions each warn
JIT_SCRIPT_DEPRECATED = "`torch.jit.script` is deprecated. Please switch to `torch.compile` or `torch.export`."
_DECOMPOSITIONS_WARNING = "forward AD decompositions"


def _first_dual() -> None:
    if first_time(_DECOMPOSITIONS_WARNING):
        for _ in range(18):
            warn("DeprecationWarning", JIT_SCRIPT_DEPRECATED)


def dual(tensor: Tensor, tangent: Tensor, level: int) -> Tensor:
    _first_dual()
    if tensor._dtype.category < dtypes.FLOATING:
        raise ValueError(f"Expected primal to be floating point or complex, but got: {tensor.dtype}")
    if tangent._dtype.category < dtypes.FLOATING:
        raise ValueError(f"Expected tangent to be floating point or complex, but got: {tangent.dtype}")
    if tangent.shape != tensor.shape:
        raise RuntimeError("Trying to set a forward gradient that has a different size than that of the original "
                           f"Tensor, this is not supported. Tensor is of size {list(tensor.shape)} while the given "
                           f"forward gradient is of size {list(tangent.shape)}.")
    # a view, as in PyTorch; without history to follow, an alias, so that the views of the dual
    # tensor write their tangents through to it rather than to a primal that has none
    result = tensor.view_as(tensor) if tensor.requires_grad else tensor._alias()
    if tangent._dtype is not tensor._dtype:
        tangent = tangent.to(tensor._dtype)
    result._fw = {**(result._fw or {}), level: tangent}
    return result


def tangent_of(tensor: Tensor, level: Optional[int]) -> Optional[Tensor]:
    return tensor._fw.get(level) if tensor._fw else None


def has_tangent(*tensors: Any) -> bool:
    """Whether any of `tensors` carries a tangent now: an in-place change of it must then go
    through the op path even where nothing requires grad."""
    return bool(LEVELS) and any(isinstance(t, Tensor) and t._fw for t in tensors)


def has_dual_tangent(*values: Any) -> bool:
    """Whether any of `values` is a tensor with a forward-mode tangent (not a vmap level's mark)."""
    return bool(LEVELS) and any(isinstance(v, Tensor) and v._fw and any(isinstance(g, Tensor) for g in v._fw.values())
                                for v in values)


def batched(tensor: Tensor) -> bool:
    """Whether a running vmap's examples reach `tensor`."""
    return any(type(level) is BatchLevel and tangent_of(tensor, level) for level in LEVELS)


def batch_size(tensor: Tensor) -> int:
    """How many examples the running vmaps fold into `tensor` (1 outside them): the size of the
    physical tensor PyTorch's batching rules compute on."""
    size = 1
    for level in LEVELS:
        if type(level) is BatchLevel and tangent_of(tensor, level):
            size *= level.size
    return size


def batch_dims(*tensors: Any) -> tuple:
    """The sizes of the running vmaps whose examples reach any of `tensors`, outermost first: the
    dims PyTorch's batching rules put in front of the shapes its messages print."""
    return tuple(level.size for level in LEVELS if type(level) is BatchLevel
                 and any(isinstance(t, Tensor) and tangent_of(t, level) for t in tensors))


def follow(out: Tensor, inputs: Sequence[Any]) -> Tensor:
    """Mark the output of an op without a derivative (a comparison) as batched like its inputs."""
    for level in LEVELS:
        if type(level) is BatchLevel and any(isinstance(t, Tensor) and tangent_of(t, level) for t in inputs):
            set_tangent(out, level, True)
    return out


def check_inplace(target: Tensor, out: Tensor) -> None:
    """vmap refuses to write a batched result into a tensor that is not batched."""
    for level in LEVELS:
        if type(level) is BatchLevel and tangent_of(out, level) and not tangent_of(target, level):
            raise RuntimeError(f"output with shape {list(target.shape)} doesn't match the broadcast shape "
                               f"{[level.size] + list(out.shape)}")


def set_tangent(tensor: Tensor, level: int, tangent: Tensor) -> None:
    if tensor._fw is None:
        tensor._fw = {}
    tensor._fw[level] = tangent


# ------------------------------------------------------------------ propagation through ops

def propagate(op: Any, inputs: Sequence[Tensor], outs: Sequence[Optional[Tensor]], params: dict,
              named: Optional[dict] = None) -> None:
    """Give `outs` (None for a non-differentiable output) their tangents at each active level
    from `inputs`' tangents by `op`'s forward formula (a NodeDef of the registry)."""
    active = tuple(LEVELS)
    for position, level in enumerate(active):
        tangents = [tangent_of(t, level) if isinstance(t, Tensor) else None for t in inputs]
        if all(t is None for t in tangents):
            continue
        if type(level) is BatchLevel:
            for out in outs:
                if out is not None:
                    set_tangent(out, level, True)
            continue
        LEVELS[:] = active[:position]
        try:
            results = _output_tangents(op, inputs, tangents, outs, params, named or {})
        finally:
            LEVELS[:] = active
        for out, tangent in zip(outs, results):
            if out is not None and tangent is not None:
                set_tangent(out, level, _fitted(tangent, out))


def _fitted(tangent: Tensor, out: Tensor) -> Tensor:
    """A tangent of the output's shape and dtype (a formula may leave it broadcastable)."""
    if tangent._dtype is not out._dtype:
        tangent = tangent.to(out._dtype)
    if tangent.shape != out.shape:
        tangent = tangent.expand(out.shape)
    return tangent


def _output_tangents(op: Any, inputs: Sequence[Tensor], tangents: list, outs: Sequence[Optional[Tensor]],
                     params: dict, named: dict) -> list:
    if op.shown_name == "torch::autograd::NotImplemented":
        raise NotImplementedError(f"Trying to use forward AD with aten::{params.get('_aten')} that does not "
                                  "support it.")

    def values(names: Sequence[str]) -> list:
        found = []
        for name in names:
            if name in params:
                found.append(params[name])
            elif name == "result":
                found.append(outs[0])
            elif name in named:
                found.append(named[name])
            else:
                found.append(inputs[op.inputs.index(name)])
        return found

    jvp = op.jvp
    if callable(jvp):  # the op's own rule, over all its inputs' tangents at once
        return jvp(tangents)
    if isinstance(jvp, dict):
        def part(name: str, tangent: Tensor) -> Tensor:
            formula = jvp[name]
            return formula(tangent, *values(formula.__code__.co_varnames[1:formula.__code__.co_argcount]))

        parts = {i: part(name, tangent) for i, (name, tangent) in enumerate(zip(op.inputs, tangents))
                 if tangent is not None}
        exact = _sum(parts.values())
        if not (grad_mode.is_grad_enabled() and any(isinstance(t, Tensor) and t.requires_grad for t in inputs)):
            return [exact]
        # PyTorch's formulas take a zero tensor (_efficientzerotensor) for an input without a
        # tangent: its part adds nothing to the values but records the graph of the primals it
        # multiplies (an absent optional input is an empty placeholder, and takes none)
        total = _sum(parts[i] if i in parts
                     else part(name, _zeros_like(t)) if isinstance(t, Tensor) and t._data.size else None
                     for i, (name, t) in enumerate(zip(op.inputs, inputs)))
        if total is not exact and total._dtype is exact._dtype and total.shape == exact.shape:
            total._data = exact._data
        return [total]
    if jvp == ELEMENT_WISE and not (op.multi_output or op.variadic):
        # PyTorch's auto_element_wise: the backward formula, conjugated around the tangent
        return [_sum(_conjugated(formula, tangent, values(names)) for formula, names, tangent
                     in zip(op.formulas, op.formula_args, tangents) if tangent is not None and formula is not None)]
    return _transposed(op, tangents, outs, values)


def _zeros_like(tensor: Tensor) -> Tensor:
    # of the tensor's dtype, as PyTorch's _efficientzerotensor (a wrapped int scalar's is int64)
    return Tensor._make(np.zeros(tensor.shape, dtype=tensor._dtype._numpy), tensor._dtype)


def _conjugated(formula: Any, tangent: Tensor, values: list) -> Tensor:
    if not tangent._dtype.is_complex:
        return formula(tangent, *values)
    return formula(tangent.conj(), *values).conj()


def _inner(part: Tensor, tangent: Tensor) -> Tensor:
    """Re <part, tangent>, the real inner product PyTorch's backward formulas are adjoints for."""
    if part._dtype.is_complex or tangent._dtype.is_complex:
        return (part.conj() * tangent).real.sum()
    return (part * tangent).sum()


def _sum(parts: Any) -> Optional[Tensor]:
    total = None
    for part in parts:
        if part is not None:
            total = part if total is None else total + part
    return total


def _transposed(op: Any, tangents: list, outs: Sequence[Optional[Tensor]], values: Any) -> list:
    """J t through the backward formula B: the gradient of <B(g), t> with respect to g."""
    # one cotangent per differentiable output; a multi-output formula takes None for the others
    grads = [Tensor._make(np.zeros(out.shape, dtype=out._dtype._numpy), out._dtype, requires_grad=True)
             if out is not None and out._dtype.category >= dtypes.FLOATING else None for out in outs]
    cotangents = [g for g in grads if g is not None]
    if not cotangents:
        return [None] * len(outs)
    grad = grads if op.multi_output else grads[0]
    previous = grad_mode.is_grad_enabled()
    grad_mode._set_enabled(True)
    try:
        if op.variadic:
            pairs = zip(op.formulas[0](grad, *values(op.formula_args[0])), tangents)
        else:
            pairs = ((formula(grad, *values(names)), tangent) for formula, names, tangent
                     in zip(op.formulas, op.formula_args, tangents) if formula is not None and tangent is not None)
        total = _sum(_inner(part, tangent) for part, tangent in pairs
                     if part is not None and tangent is not None and part.requires_grad)
    finally:
        grad_mode._set_enabled(previous)
    if total is None:
        results = [None] * len(cotangents)
    else:
        nested = any(t is not None and t.requires_grad for t in tangents)
        results = run_backward([total], [Tensor._make(np.ones((), dtype=total._dtype._numpy), total._dtype)],
                               retain_graph=nested, create_graph=nested, inputs=cotangents, accumulate=False)
    found = iter(result if result is not None else g.detach() for result, g in zip(results, cotangents))
    return [next(found) if g is not None else None for g in grads]


def inplace(target: Tensor, out: Tensor, positions: Optional[np.ndarray]) -> None:
    """After `target` took `out`'s values in place: its tangents become out's; a view's base
    takes them at the view's `positions` (flat, in the base)."""
    from_out = out._fw or {}
    levels = set(from_out) | set(target._fw or ())
    base = target._base
    if base is not None:
        levels |= set(base._fw or ())
    for level in levels:
        if type(level) is BatchLevel:
            continue
        tangent = from_out.get(level)
        if tangent is None:
            tangent = _zeros_like(target)
        set_tangent(target, level, tangent)
        if base is not None:
            _write_through(base, Tensor._make(positions.reshape(-1), dtypes.int64), level, tangent)


def _write_through(base: Tensor, positions: Tensor, level: int, tangent: Tensor) -> None:
    current = tangent_of(base, level)
    if current is None:
        current = _zeros_like(base)
    flat = current.reshape(-1).index_put((positions,), tangent.reshape(-1))
    set_tangent(base, level, flat.reshape(base.shape))
