"""Comparisons, logic and bits: eq, lt, ..., isclose, logical_*, bitwise_*, maximum, minimum."""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from .. import dtypes, layout, meta
from ..dtypes import DType
from ..forward_mode import follow
from ..grad_mode import FORWARD_LEVELS
from ..tensor import Tensor
from .common import arrays, as_tensor, check_broadcast, check_not_unsigned, not_implemented_for
from .registry import ELEMENT_WISE, OPS, node, op, record


def _compare(a: Any, b: Any, function: Callable, ordering: str = "") -> Tensor:
    if not isinstance(b, (Tensor, bool, int, float, complex)):
        return NotImplemented
    dtype = dtypes.result_type([a, b])
    if ordering and (dtype.is_complex or dtype in dtypes.BAREBONES_UNSIGNED):  # complex numbers have no order
        raise not_implemented_for(f"{ordering}_cpu", dtype)
    ta, tb = as_tensor(a), as_tensor(b)
    check_broadcast(ta, tb)
    x, y = arrays((ta, tb), dtype)
    out = Tensor._make(layout.element_wise_result(np.asarray(function(x, y)), (ta._data, tb._data)), dtypes.bool_)
    return follow(out, (ta, tb)) if FORWARD_LEVELS else out


def _comparison(name: str, function: Callable, aliases: tuple = ()) -> None:
    ordering = name if name not in ("eq", "ne") else ""

    def compare(input: Tensor, other: Any) -> Tensor:
        return _compare(input, other, function, ordering)

    compare.__name__ = compare.__qualname__ = name
    op(name, aliases=aliases)(compare)


for _name, _function, _aliases in (("eq", np.equal, ()), ("ne", np.not_equal, ("not_equal",)), ("lt", np.less, ("less",)),
                                   ("le", np.less_equal, ("less_equal",)), ("gt", np.greater, ("greater",)),
                                   ("ge", np.greater_equal, ("greater_equal",))):
    _comparison(_name, _function, _aliases)
del _name, _function, _aliases


def _by_name(name: str) -> Callable:
    return OPS[("torch", name)].impl


eq, ne, lt, le, gt, ge = map(_by_name, ("eq", "ne", "lt", "le", "gt", "ge"))


@op()
def equal(input: Tensor, other: Tensor) -> bool:
    if meta.any_meta((input, other)):
        raise meta.no_meta_kernel("equal")
    return input.shape == other.shape and bool(np.array_equal(input._data, other._data))


@op()
def isclose(input: Tensor, other: Tensor, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False) -> Tensor:
    # ATen's checks, in its order
    if input._dtype is not other._dtype:
        raise RuntimeError(f"{input._dtype._scalar_name} did not match {other._dtype._scalar_name}")
    for name, tolerance in (("rtol", rtol), ("atol", atol)):
        if not tolerance >= 0:
            raise RuntimeError(f"{name} must be greater than or equal to zero, but got {dtypes.cpp_double(tolerance)}")
    return _compare(input, other, lambda x, y: _close(x, y, input._dtype, rtol, atol, equal_nan))


def _computed_in(dtype: DType) -> type:
    """The type a kernel computes `dtype`'s values and scalars in (at::opmath_type)."""
    return np.float32 if dtype in (dtypes.float16, dtypes.bfloat16) else dtype._numpy.type


def _in_dtype(values: np.ndarray, dtype: DType) -> np.ndarray:
    """An op's result rounded to `dtype` (bfloat16's values live in float32)."""
    return dtypes.round_to_bfloat16(values) if dtype is dtypes.bfloat16 else values.astype(dtype._numpy)


def _close(x: np.ndarray, y: np.ndarray, dtype: DType, rtol: float, atol: float, equal_nan: bool) -> np.ndarray:
    """ATen's isclose, op by op: equal, or both NaN with equal_nan, or |x - y| <= atol + |rtol * y|
    and finite, each op in the tensors' dtype (integers and bools in the default dtype; the scalars
    in float32 for the half precisions)."""
    close = x == y
    inexact = dtype.is_floating_point or dtype.is_complex
    if equal_nan and inexact:
        close |= np.isnan(x) & np.isnan(y)
    if rtol == 0 and atol == 0:
        return close
    if not inexact:
        dtype = dtypes.get_default_dtype()
        x, y = _in_dtype(x.astype(np.float64), dtype), _in_dtype(y.astype(np.float64), dtype)
    wide = _computed_in(dtype)
    real = dtype.to_real() if dtype.is_complex else dtype
    scaled = np.abs(_in_dtype(wide(rtol) * y.astype(wide), dtype))
    allowed = _in_dtype(_computed_in(real)(atol) + scaled.astype(_computed_in(real)), real)
    actual = np.abs(_in_dtype(x.astype(wide) - y.astype(wide), dtype))
    with np.errstate(invalid="ignore"):
        return close | (np.isfinite(actual) & (actual <= allowed))


@op()
def allclose(input: Tensor, other: Tensor, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False) -> bool:
    if meta.any_meta((input, other)):  # PyTorch's allclose reads the result with .item()
        raise RuntimeError("Tensor.item() cannot be called on meta tensors")
    return bool(isclose(input, other, rtol, atol, equal_nan)._data.all())


@op()
def logical_and(input: Tensor, other: Tensor) -> Tensor:
    return _compare(input, other, np.logical_and)


@op()
def logical_or(input: Tensor, other: Tensor) -> Tensor:
    return _compare(input, other, np.logical_or)


@op()
def logical_xor(input: Tensor, other: Tensor) -> Tensor:
    return _compare(input, other, np.logical_xor)


@op()
def logical_not(input: Tensor) -> Tensor:
    return Tensor._make(np.logical_not(input._data), dtypes.bool_)


def _bitwise(a: Any, b: Any, function: Callable, symbol: str) -> Tensor:
    dtype = dtypes.result_type([a, b])
    ta, tb = as_tensor(a), as_tensor(b)
    check_broadcast(ta, tb)  # the iterator's shapes before the kernel's dtype
    if dtype.category > dtypes.INTEGRAL:
        raise not_implemented_for(f"{symbol}_cpu", dtype)
    x, y = arrays((ta, tb), dtype)
    return Tensor._make(layout.element_wise_result(np.asarray(function(x, y), dtype=dtype._numpy),
                                                   (ta._data, tb._data)), dtype)


@op()
def bitwise_and(input: Any, other: Any = None, self: Any = None) -> Tensor:
    return _bitwise(self if input is None else input, other, np.bitwise_and, "bitwise_and")


@op()
def bitwise_or(input: Any, other: Any = None, self: Any = None) -> Tensor:
    return _bitwise(self if input is None else input, other, np.bitwise_or, "bitwise_or")


@op()
def bitwise_xor(input: Any, other: Any = None, self: Any = None) -> Tensor:
    return _bitwise(self if input is None else input, other, np.bitwise_xor, "bitwise_xor")


@op()
def bitwise_left_shift(input: Any, other: Any = None, self: Any = None) -> Tensor:
    input = self if input is None else input
    _check_shift(input, other, "lshift")
    return _bitwise(input, other, np.left_shift, "lshift")


@op()
def bitwise_right_shift(input: Any, other: Any = None, self: Any = None) -> Tensor:
    input = self if input is None else input
    _check_shift(input, other, "rshift")
    return _bitwise(input, other, np.right_shift, "rshift")


def _check_shift(a: Any, b: Any, symbol: str) -> None:
    # unlike the other bitwise ops, PyTorch's shifts refuse floats with NotImplementedError
    dtype = dtypes.result_type([a, b])
    check_broadcast(as_tensor(a), as_tensor(b))  # the iterator's shapes before the kernel's dtype
    if dtype.category > dtypes.INTEGRAL or dtype in dtypes.BAREBONES_UNSIGNED:
        raise not_implemented_for(f"{symbol}_cpu", dtype)


@op()
def bitwise_not(input: Tensor) -> Tensor:
    if input._dtype.category > dtypes.INTEGRAL or input._dtype in dtypes.BAREBONES_UNSIGNED:
        raise not_implemented_for("bitwise_not_cpu", input._dtype)
    return Tensor._make(np.invert(input._data), input._dtype)


@op()
def isnan(input: Tensor) -> Tensor:
    return Tensor._make(np.isnan(input._data) if input._dtype.category >= dtypes.FLOATING
                        else np.zeros(input.shape, bool), dtypes.bool_)


def _tie_mask(a: Tensor, b: Tensor, how: str) -> Tensor:
    wins = (a > b) if how == "gt" else (a < b)
    return wins.to(a.dtype) + (a == b).to(a.dtype) * 0.5


MAXIMUM = node("MaximumBackward0", ("self", "other"), forward=np.maximum, jvp=ELEMENT_WISE,
               self=lambda grad, self, other: grad * _tie_mask(self, other, "gt"),
               other=lambda grad, self, other: grad * _tie_mask(other, self, "gt"))
MINIMUM = node("MinimumBackward0", ("self", "other"), forward=np.minimum, jvp=ELEMENT_WISE,
               self=lambda grad, self, other: grad * _tie_mask(self, other, "lt"),
               other=lambda grad, self, other: grad * _tie_mask(other, self, "lt"))


def check_ordered(name: str, a: Any, b: Any) -> None:
    """maximum, minimum, fmax and fmin refuse complex tensors before anything else."""
    if any(isinstance(t, Tensor) and t._dtype.is_complex for t in (a, b)):
        raise RuntimeError(f"{name} not implemented for complex tensors.")


def _elementwise_extreme(node_def: Any, a: Tensor, b: Tensor) -> Tensor:
    dtype = dtypes.result_type([a, b])
    check_broadcast(a, b)
    x, y = arrays((a, b), dtype)
    return record(node_def, (a, b), np.asarray(node_def.forward(x, y), dtype=dtype._numpy), dtype)


@op()
def maximum(input: Tensor, other: Tensor) -> Tensor:
    check_ordered("maximum", input, other)
    check_not_unsigned("maximum_cpu", dtypes.result_type([input, other]))
    return _elementwise_extreme(MAXIMUM, input, other)


@op()
def minimum(input: Tensor, other: Tensor) -> Tensor:
    check_ordered("minimum", input, other)
    check_not_unsigned("minimum_cpu", dtypes.result_type([input, other]))
    return _elementwise_extreme(MINIMUM, input, other)


@op()
def isin(elements: Any = None, test_elements: Any = None, *, assume_unique: bool = False, invert: bool = False,
         element: Any = None, test_element: Any = None) -> Tensor:
    # the scalar overloads name their number `element` or `test_element`
    first = element if elements is None else elements
    second = test_element if test_elements is None else test_elements
    for operand in (first, second):
        if isinstance(operand, Tensor) and (operand._dtype is dtypes.bool_ or operand._dtype.is_complex):
            raise RuntimeError(f"Unsupported input type encountered for isin(): {operand._dtype._scalar_name}")
    a = first._data if isinstance(first, Tensor) else np.asarray(first)
    b = second._data if isinstance(second, Tensor) else np.asarray(second)
    return Tensor._make(np.isin(a, b, invert=invert), dtypes.bool_)
