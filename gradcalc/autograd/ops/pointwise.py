"""Element-wise functions: exp, log, trigonometry, sigmoid, abs, sign, clamp, rounding, lerp, ..."""
from __future__ import annotations

import math
from typing import Any, Callable, Optional

import numpy as np

from .. import cpu, dtypes, kernels, simd
from ..dtypes import DType
from ..native import kernels as native
from ..tensor import Tensor
from .arithmetic import float_kernel, pow as power, unary, unary_float
from .common import (CLAMP_COMPLEX, arrays, as_tensor, check_broadcast, check_has_kernel, check_not_unsigned,
                     check_real_scalar, float_result, is_conj, kernel_scalar, not_implemented_for, opmath_array,
                     opmath_scalar, refuse_complex, refuse_complex_autograd, zeros_like)
from .generate import make_inplace
from .indexing import where
from .registry import ELEMENT_WISE, LINEAR, NodeDef, node, op, record


def _zero(grad: Tensor) -> Tensor:
    return zeros_like(grad)


EXP = node("ExpBackward0", ("self",), forward=np.exp, jvp=ELEMENT_WISE, self=lambda grad, result: grad * result.conj())
LOG = node("LogBackward0", ("self",), forward=np.log, jvp=ELEMENT_WISE, self=lambda grad, self: grad / self.conj())
LOG2 = node("Log2Backward0", ("self",), forward=np.log2, jvp=ELEMENT_WISE,
            self=lambda grad, self: grad / (self.conj() * math.log(2.0)))
LOG10 = node("Log10Backward0", ("self",), forward=np.log10, jvp=ELEMENT_WISE,
             self=lambda grad, self: grad / (self.conj() * math.log(10.0)))
LOG1P = node("Log1PBackward0", ("self",), forward=np.log1p, jvp=ELEMENT_WISE,
             self=lambda grad, self: grad / (self + 1).conj())
EXPM1 = node("Expm1Backward0", ("self",), forward=np.expm1, jvp=ELEMENT_WISE,
             self=lambda grad, result: grad * (result.conj() + 1))
SIN = node("SinBackward0", ("self",), forward=np.sin, jvp=ELEMENT_WISE,
           self=lambda grad, self: grad * self.cos().conj())
COS = node("CosBackward0", ("self",), forward=np.cos, jvp=ELEMENT_WISE,
           self=lambda grad, self: grad * -self.sin().conj())
TAN = node("TanBackward0", ("self",), forward=np.tan, jvp=ELEMENT_WISE,
           self=lambda grad, result: grad * (1 + result.pow(2)).conj())
TANH = node("TanhBackward0", ("self",), forward=np.tanh, jvp=ELEMENT_WISE,
            self=lambda grad, result: tanh_backward(grad, result))
SIGMOID = node("SigmoidBackward0", ("self",), jvp=ELEMENT_WISE, self=lambda grad, result: sigmoid_backward(grad, result))
# the backward functions PyTorch records as ops of their own (their grad_fn shows with create_graph)
TANH_BACKWARD = node("TanhBackwardBackward0", ("grad_output", "output"),
                     grad_output=lambda grad, output: tanh_backward(grad, output.conj()),
                     output=lambda grad, grad_output, output: grad.conj() * (-2 * output.conj() * grad_output).conj())
SIGMOID_BACKWARD = node("SigmoidBackwardBackward0", ("grad_output", "output"),
                        grad_output=lambda grad, output: sigmoid_backward(grad, output.conj()),
                        output=lambda grad, grad_output, output: grad.conj() * grad_output * (-2 * output.conj() + 1))
SQRT = node("SqrtBackward0", ("self",), forward=np.sqrt, jvp=ELEMENT_WISE,
            self=lambda grad, result: grad / (2 * result.conj()))
RSQRT = node("RsqrtBackward0", ("self",), forward=lambda x: 1 / np.sqrt(x), jvp=ELEMENT_WISE,
             self=lambda grad, result: -0.5 * grad * result.pow(3).conj())
ABS = node("AbsBackward0", ("self",), forward=np.abs, jvp=ELEMENT_WISE, self=lambda grad, self: grad * sgn(self))
ASIN = node("AsinBackward0", ("self",), forward=np.arcsin, jvp=ELEMENT_WISE,
            self=lambda grad, self: grad * (-self * self + 1).rsqrt().conj())
ACOS = node("AcosBackward0", ("self",), forward=np.arccos, jvp=ELEMENT_WISE,
            self=lambda grad, self: grad * -(-self * self + 1).rsqrt().conj())
ATAN = node("AtanBackward0", ("self",), forward=np.arctan, jvp=ELEMENT_WISE,
            self=lambda grad, self: grad / (self * self + 1).conj())
SINH = node("SinhBackward0", ("self",), forward=np.sinh, jvp=ELEMENT_WISE,
            self=lambda grad, self: grad * self.cosh().conj())
COSH = node("CoshBackward0", ("self",), forward=np.cosh, jvp=ELEMENT_WISE,
            self=lambda grad, self: grad * self.sinh().conj())
CONJ = node("ConjBackward0", ("self",), forward=np.conj, jvp=LINEAR, self=lambda grad: grad.conj())
CONJ_PHYSICAL = node("ConjPhysicalBackward0", ("self",), element_wise=True, forward=np.conj, jvp=LINEAR,
                     self=lambda grad: grad.conj_physical())
EXP2 = node("Exp2Backward0", ("self",), forward=np.exp2, jvp=ELEMENT_WISE,
            self=lambda grad, result: grad * result.conj() * math.log(2.0))
ERF = node("ErfBackward0", ("self",), forward=simd.erf, jvp=ELEMENT_WISE,
           self=lambda grad, self: grad * (-self * self).exp() * (2.0 / math.sqrt(math.pi)))
ATAN2 = node("Atan2Backward0", ("self", "other"), jvp=ELEMENT_WISE,
             self=lambda grad, self, other: grad * other * (self * self + other * other).reciprocal(),
             other=lambda grad, self, other: grad * -self * (self * self + other * other).reciprocal())


def _unary_float_op(name: str, node_def: NodeDef, aliases: tuple = ()) -> None:
    def function(input: Tensor) -> Tensor:
        dtype = input._dtype
        if dtype is dtypes.float32 or dtype is dtypes.float64:  # unary_float's commonest call, without its frame
            return record(node_def, (input,), float_kernel(node_def, input._data), dtype)
        return unary_float(node_def, input)

    function.__name__ = function.__qualname__ = name
    op(name, nodes=(node_def,), aliases=aliases)(function)


for _name, _node, _aliases in (
        ("exp", EXP, ()), ("log", LOG, ()), ("log2", LOG2, ()), ("log10", LOG10, ()), ("log1p", LOG1P, ()),
        ("expm1", EXPM1, ()), ("sin", SIN, ()), ("cos", COS, ()), ("tan", TAN, ()), ("tanh", TANH, ()),
        ("sqrt", SQRT, ()), ("asin", ASIN, ("arcsin",)), ("acos", ACOS, ("arccos",)), ("atan", ATAN, ("arctan",)),
        ("sinh", SINH, ()), ("cosh", COSH, ()), ("exp2", EXP2, ()), ("erf", ERF, ())):
    _unary_float_op(_name, _node, _aliases)
del _name, _node, _aliases


def tanh_backward(grad_output: Tensor, output: Tensor) -> Tensor:
    y = output._data
    if output._dtype in (dtypes.float16, dtypes.bfloat16):  # in float32 (b * b exact), rounded once
        wide = opmath_array(y)
        data = (opmath_array(grad_output._data) * (np.float32(1) - wide * wide)).astype(grad_output._dtype._numpy)
    elif y.dtype == np.float32 and native is not None and grad_output._data.dtype == np.float32 and \
            grad_output._data.shape == y.shape and y.flags.c_contiguous and grad_output._data.flags.c_contiguous:
        data = np.empty(y.shape, np.float32)  # (the steps below, in one pass: csrc/arithmetic.c)
        native.tanh_grad_float32(grad_output._data, y, data)
    elif y.dtype == np.float32:
        # PyTorch's AVX2 and AVX-512 kernels fuse 1 - y * y into one multiply-add (with cancellation
        # near saturation, that decides many bits): simd.fused_multiply_add's float64 steps (the
        # square exact, the difference rounded once, then to float32), in one widened array
        wide = y.astype(np.float64)
        np.multiply(wide, wide, out=wide)
        np.subtract(1.0, wide, out=wide)
        data = grad_output._data * wide.astype(np.float32)
    elif y.dtype == np.float64:  # the same fused 1 - y * y, in double
        data = grad_output._data * kernels.fused_multiply_add(-y, y, np.float64(1))
    else:
        data = grad_output._data * (1 - y * y).conj()
    return record(TANH_BACKWARD, (grad_output, output), data, grad_output._dtype)


def sigmoid_backward(grad_output: Tensor, output: Tensor) -> Tensor:
    # grad * (1 - y) * y, multiplied from the left as PyTorch's kernel does (float16 rounded at each step)
    data = grad_output._data * (1 - output._data).conj() * output._data.conj()
    return record(SIGMOID_BACKWARD, (grad_output, output), data, grad_output._dtype)


@op(nodes=(SIGMOID,))
def sigmoid(input: Tensor) -> Tensor:
    # as PyTorch: exp rounded to the tensor's dtype, then 1 / (1 + e) in that dtype
    dtype = float_result(input._dtype)
    if dtype in (dtypes.float32, dtypes.float16, dtypes.bfloat16):
        # whole pairs of SIMD registers take SLEEF's exp; the elements left over, the C library's
        # (the half precisions in float32, their registers holding twice as many), of each row
        # the kernel's inner loop runs over (an LSTM's gate chunks)
        negated = np.float32(0) - input._data.astype(np.float32)
        lanes = simd.lanes(np.float32 if dtype is dtypes.float32 else np.float16)
        e = kernels.split_loops(negated, simd.vector_exp, simd.glibc_expf, lanes=lanes,
                                row=kernels.contiguous_run(input._data))
    elif dtype is dtypes.float64:  # SLEEF's double exp in the SIMD loop, the C library's after it
        return record(SIGMOID, (input,), simd.sigmoid64(input._data, kernels.contiguous_run(input._data)), dtype)
    else:
        e = np.exp(-input._data.astype(np.complex128 if dtype.is_complex else np.float64)).astype(dtype._numpy)
    return record(SIGMOID, (input,), np.asarray(1 / (1 + e), dtype=dtype._numpy), dtype)


@op(nodes=(RSQRT,))
def rsqrt(input: Tensor) -> Tensor:
    # one divided by the square root, rounded after each, in the result's dtype as PyTorch's kernel does;
    # float16's SIMD loop computes in float32 (32 halves a register), its scalar loop in float16
    dtype = float_result(input._dtype)
    (x,) = arrays((input,), dtype)
    data = np.asarray(RSQRT.forward(x), dtype=dtype._numpy)
    if dtype is dtypes.float16:
        data = kernels.simd_split(RSQRT.forward(x.astype(np.float32)).astype(np.float16), data, lanes=16)
    return record(RSQRT, (input,), data, dtype)


def _abs_in_place(input: Tensor) -> Tensor:
    if input._dtype.is_complex:
        raise RuntimeError("In-place abs is not supported for complex tensors.")
    return abs(input)


@op(nodes=(ABS,), aliases=("absolute",), inplace=make_inplace(lambda input: _abs_in_place(input)))
def abs(input: Tensor) -> Tensor:
    check_has_kernel("abs_cpu", input)
    if input._dtype.is_complex:
        return record(ABS, (input,), np.abs(input._data), input._dtype.to_real())
    return unary(ABS, input)


@op(nodes=(CONJ,))
def conj(input: Tensor) -> Tensor:
    if not input._dtype.is_complex:
        return input
    out = unary(CONJ, input)
    # PyTorch's conj() is a lazy view with the conjugate bit set; gradcalc conjugates at once and
    # keeps the bit for what shows it (is_conj, numpy(), view_as_real)
    out._conj = not is_conj(input)
    return out


@op(nodes=(CONJ_PHYSICAL,))
def conj_physical(input: Tensor) -> Tensor:
    return unary(CONJ_PHYSICAL, input) if input._dtype.is_complex else input


@op()
def square(input: Tensor) -> Tensor:
    return power(input, 2)


def _sign(x: np.ndarray) -> np.ndarray:
    """PyTorch's sign, (0 < x) - (x < 0): 0 for nan and for -0."""
    return ((x > 0).astype(x.dtype) - (x < 0).astype(x.dtype)).astype(x.dtype)


SIGN = node("SignBackward0", ("self",), forward=_sign, jvp=ELEMENT_WISE, self=_zero)
def _sgn_grad(grad: Tensor, self: Tensor, result: Tensor) -> Tensor:
    """sgn(z) = z / |z|: zero for real tensors; for complex ones the part of the gradient across
    the unit direction, over |z| (zero at 0)."""
    if not self._dtype.is_complex:
        return zeros_like(grad)
    magnitude = self.abs()
    across = (grad - (grad * result.conj()).real * result) / magnitude
    return across.masked_fill(magnitude == 0, 0)


# sgn of a real tensor is sign's values under a node of its own name
SGN = node("SgnBackward0", ("self",), forward=_sign, jvp=ELEMENT_WISE, self=_sgn_grad)


@op(nodes=(SIGN,))
def sign(input: Tensor) -> Tensor:
    if input._dtype is dtypes.bool_:
        return Tensor._make(input._data.copy(), input._dtype)
    if input._dtype.is_complex:
        raise NotImplementedError("Unlike NumPy, torch.sign is not intended to support complex numbers. Please use "
                                  "torch.sgn instead.")
    return unary(SIGN, input)


@op(nodes=(SGN,))
def sgn(input: Tensor) -> Tensor:
    if input._dtype is dtypes.bool_:
        return sign(input)
    if not input._dtype.is_complex:
        return unary(SGN, input)
    magnitude = np.abs(input._data)
    data = np.where(magnitude == 0, 0, input._data / np.where(magnitude == 0, 1, magnitude))
    return record(SGN, (input,), data.astype(input._dtype._numpy), input._dtype)


def _in_range(t: Tensor, low: Any, high: Any) -> Tensor:
    inside = Tensor._make(np.ones(t.shape, dtype=bool), dtypes.bool_)
    if low is not None:
        inside = inside & (t >= low)
    if high is not None:
        inside = inside & (t <= high)
    return inside


CLAMP = node("ClampBackward1", ("self",), jvp=ELEMENT_WISE,
             self=lambda grad, self, min, max: where(_in_range(self, min, max), grad, zeros_like(grad)))
# clamp with tensor bounds: min wins where the bounds cross (max < min), as in PyTorch
CLAMP_TENSOR = node("ClampBackward0", ("self", "min", "max"), jvp=ELEMENT_WISE,
                    self=lambda grad, self, min, max: where((self >= min) & (self <= max), grad, zeros_like(grad)),
                    min=lambda grad, self, min, max: where((self < min) & (min < max), grad, zeros_like(grad)),
                    max=lambda grad, self, min, max: where((self > max) | (max < min), grad, zeros_like(grad)))


def _unbounded(dtype: DType, low: bool) -> Tensor:
    """The stand-in for an absent tensor bound: it clamps nothing and, needing no gradient, shows
    as (None, 0) in next_functions as PyTorch's undefined bound does."""
    if dtype.category >= dtypes.FLOATING:
        value = -np.inf if low else np.inf
    else:
        info = np.iinfo(dtype._numpy)
        value = info.min if low else info.max
    return Tensor._make(np.array(value, dtype=dtype._numpy), dtype)


def _clamp_inplace(impl: Callable, name: str) -> Callable:
    """clamp_, clamp_min_, clamp_max_: with a number for a bound, PyTorch's cast check names the
    tensor's type as C++ does (`bool`, `long int`)."""
    general = make_inplace(impl, name=name)

    def inplace(input: Tensor, **bound: Any) -> Tensor:
        bounds = [value for value in bound.values() if value is not None]
        if any(not isinstance(value, Tensor) for value in bounds):
            dtype = dtypes.result_type([input] + bounds)
            if dtype.category > input._dtype.category:
                raise RuntimeError(f"result type {dtype._scalar_name} can't be cast to the desired output type "
                                   f"{input._dtype._cpp_name}")
        return general(input, **bound)

    return inplace


@op(nodes=(CLAMP, CLAMP_TENSOR), aliases=("clip",),
    inplace=_clamp_inplace(lambda input, **bound: clamp(input, **bound), "clamp_"))
def clamp(input: Tensor, min: Any = None, max: Any = None) -> Tensor:
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    _check_clampable(input)
    check_not_unsigned("clamp_scalar_cpu" if min is not None and max is not None else
                       "clamp_min_scalar_cpu" if max is None else "clamp_max_scalar_cpu", input._dtype)
    for bound in (min, max):
        check_real_scalar(bound, input._dtype)
    dtype = dtypes.result_type([input] + [v for v in (min, max) if v is not None])
    # a number bound is read in the result's type (Scalar::to<T>(): checked, an unsigned type's negatives
    # wrapped), unless a NaN of the two number bounds fills the result with NaN first (clamp_out)
    nan_bound = not isinstance(min, Tensor) and not isinstance(max, Tensor) and min is not None and \
        max is not None and (min != min or max != max)
    if not nan_bound:
        min, max = (bound if isinstance(bound, Tensor) else kernel_scalar(bound, dtype) for bound in (min, max))
    if isinstance(min, Tensor) or isinstance(max, Tensor):
        bounds = [as_tensor(v) if v is not None else _unbounded(dtype, low=i == 0) for i, v in enumerate((min, max))]
        for bound in bounds:
            check_broadcast(input, bound)
        x, low, high = arrays([input] + bounds, dtype)
        data = np.minimum(np.maximum(x, low), high)
        return record(CLAMP_TENSOR, [input] + bounds, np.asarray(data, dtype=dtype._numpy), dtype)
    (x,) = arrays((input,), dtype)
    if nan_bound:
        data = np.full(x.shape, np.nan, x.dtype)
    else:
        data = x if min is None else _at_least(x, min)
        data = data if max is None else _at_most(data, max)
    return record(CLAMP, (input,), np.asarray(data, dtype=dtype._numpy), dtype, min=min, max=max)


# clamp_min and clamp_max have grad_fns of their own in PyTorch (ClampMin/ClampMax, 0 for a number)
CLAMP_MIN = node("ClampMinBackward0", ("self",), jvp=ELEMENT_WISE,
                 self=lambda grad, self, min: where(self >= min, grad, zeros_like(grad)))
CLAMP_MAX = node("ClampMaxBackward0", ("self",), jvp=ELEMENT_WISE,
                 self=lambda grad, self, max: where(self <= max, grad, zeros_like(grad)))
CLAMP_MIN_TENSOR = node("ClampMinBackward1", ("self", "min"), jvp=ELEMENT_WISE,
                        self=lambda grad, self, min: where(self >= min, grad, zeros_like(grad)),
                        min=lambda grad, self, min: where(self < min, grad, zeros_like(grad)))
CLAMP_MAX_TENSOR = node("ClampMaxBackward1", ("self", "max"), jvp=ELEMENT_WISE,
                        self=lambda grad, self, max: where(self <= max, grad, zeros_like(grad)),
                        max=lambda grad, self, max: where(self > max, grad, zeros_like(grad)))


@op(nodes=(CLAMP_MIN, CLAMP_MIN_TENSOR),
    inplace=_clamp_inplace(lambda input, **bound: clamp_min(input, **bound), "clamp_min_"))
def clamp_min(input: Tensor, min: Any) -> Tensor:
    return _clamp_one(input, min, CLAMP_MIN, CLAMP_MIN_TENSOR, np.maximum, _at_least, "min")


@op(nodes=(CLAMP_MAX, CLAMP_MAX_TENSOR),
    inplace=_clamp_inplace(lambda input, **bound: clamp_max(input, **bound), "clamp_max_"))
def clamp_max(input: Tensor, max: Any) -> Tensor:
    return _clamp_one(input, max, CLAMP_MAX, CLAMP_MAX_TENSOR, np.minimum, _at_most, "max")


def _at_least(x: np.ndarray, low: Any) -> np.ndarray:
    """max(x, low) keeping x where equal (-0.0 against 0) and where nan, as PyTorch's kernels do;
    a NaN bound makes every element NaN."""
    return np.where((x < low) | (low != low), np.asarray(low, dtype=x.dtype), x)


def _at_most(x: np.ndarray, high: Any) -> np.ndarray:
    return np.where((x > high) | (high != high), np.asarray(high, dtype=x.dtype), x)


def _check_clampable(input: Tensor) -> None:
    if input._dtype.is_complex:
        raise NotImplementedError(CLAMP_COMPLEX)


def _clamp_one(a: Tensor, bound: Any, node_def: NodeDef, tensor_node: NodeDef, pick: Callable,
               pick_number: Callable, name: str) -> Tensor:
    _check_clampable(a)
    dtype = dtypes.result_type([a, bound])
    if isinstance(bound, Tensor):
        check_broadcast(a, bound)
        x, b = arrays((a, bound), dtype)
        return record(tensor_node, (a, bound), np.asarray(pick(x, b), dtype=dtype._numpy), dtype)
    (x,) = arrays((a,), dtype)
    kernel_scalar(bound, dtype)  # (the kernel reads the bound in its type)
    return record(node_def, (a,), np.asarray(pick_number(x, bound), dtype=dtype._numpy), dtype, **{name: bound})


# rounding is piecewise constant: a zero gradient
ROUND = node("RoundBackward0", ("self",), jvp=ELEMENT_WISE, self=_zero)
ROUND_DECIMALS = node("RoundBackward1", ("self",), jvp=ELEMENT_WISE, saved=("decimals",), self=_zero)
FLOOR = node("FloorBackward0", ("self",), jvp=ELEMENT_WISE, self=_zero)
CEIL = node("CeilBackward0", ("self",), jvp=ELEMENT_WISE, self=_zero)
TRUNC = node("TruncBackward0", ("self",), jvp=ELEMENT_WISE, self=_zero)
FRAC = node("FracBackward0", ("self",), jvp=ELEMENT_WISE, self=lambda grad: grad)


@op(nodes=(ROUND, ROUND_DECIMALS))
def round(input: Tensor, *, decimals: Optional[int] = None) -> Tensor:
    # halves to even, as nearbyint; with decimals (PyTorch's other overload, even when 0), scaled
    # by 10 ** decimals in the tensor's dtype and back
    x = input._data
    exact = input._dtype.category < dtypes.FLOATING
    if decimals is None and exact and input._dtype is not dtypes.bool_:
        return record(ROUND, (input,), x.copy(), input._dtype)
    if exact or input._dtype.is_complex:  # decimals=0 takes the kernel without decimals, which has no integers
        raise not_implemented_for("round_cpu" if decimals else "round_vml_cpu", input._dtype)
    if decimals is None:
        return record(ROUND, (input,), np.rint(x), input._dtype)
    with np.errstate(all="ignore"):  # (std::pow(10, decimals): infinite past a double's range)
        scale = np.asarray(np.float64(10.0) ** (decimals if decimals > 0 else -decimals), dtype=x.dtype)
        data = np.rint(x * scale) / scale if decimals > 0 else np.rint(x / scale) * scale
    return record(ROUND_DECIMALS, (input,), np.asarray(data, dtype=x.dtype), input._dtype, decimals=decimals)


def _integral_copy(node_def: NodeDef, kernel: str, function: Callable) -> Callable:
    def rounding(input: Tensor) -> Tensor:
        check_has_kernel(kernel, input)
        if input._dtype.is_complex:
            raise NotImplementedError(f"{kernel.split('_')[0]} is not supported for complex inputs")
        data = function(input._data) if input._dtype.category >= dtypes.FLOATING else input._data.copy()
        return record(node_def, (input,), data, input._dtype)

    return rounding


op("floor", nodes=(FLOOR,))(_integral_copy(FLOOR, "floor_vml_cpu", np.floor))
op("ceil", nodes=(CEIL,))(_integral_copy(CEIL, "ceil_vml_cpu", np.ceil))
op("trunc", nodes=(TRUNC,), aliases=("fix",))(_integral_copy(TRUNC, "trunc_vml_cpu", np.trunc))


@op(nodes=(FRAC,))
def frac(input: Tensor) -> Tensor:
    if input._dtype.category < dtypes.FLOATING or input._dtype.is_complex:
        raise not_implemented_for("frac_cpu", input._dtype)
    return record(FRAC, (input,), input._data - np.trunc(input._data), input._dtype)


@op(nodes=(ATAN2,), aliases=("arctan2",))
def atan2(input: Tensor, other: Tensor) -> Tensor:
    dtype = float_result(dtypes.result_type([input, other]))
    check_broadcast(input, other)
    refuse_complex("atan2_cpu", dtype)
    # float32 through float64 and one rounding, as the other element-wise functions
    x, y = arrays((input, other), dtypes.float64 if dtype in (dtypes.float32, dtypes.float16) else dtype)
    return record(ATAN2, (input, other), np.asarray(np.arctan2(x, y), dtype=dtype._numpy), dtype)


LERP = node("LerpBackward0", ("self", "end"), jvp=ELEMENT_WISE,
            self=lambda grad, weight: grad * (1 - weight), end=lambda grad, weight: grad * weight)
LERP_TENSOR = node("LerpBackward1", ("self", "end", "weight"), jvp=ELEMENT_WISE,
                   self=lambda grad, weight: grad * (1 - weight), end=lambda grad, weight: grad * weight,
                   weight=lambda grad, self, end: grad * (end - self))


@op(nodes=(LERP, LERP_TENSOR))
def lerp(input: Tensor, end: Tensor, weight: Any) -> Tensor:
    a = input
    for name, other in (("end", end), ("weight", weight)):
        if isinstance(other, Tensor) and other._dtype is not a._dtype and (name == "end" or other.ndim):
            raise RuntimeError(f"expected dtype {a._dtype._cpp_name} for `{name}` but got dtype "
                               f"{other._dtype._cpp_name}")
    check_broadcast(a, end)
    # a 0-dim weight tensor takes part in type promotion; a number weight does not
    tensor_weight = isinstance(weight, Tensor)
    dtype = dtypes.result_type([a, weight]) if tensor_weight else a._dtype
    if not (dtype.is_floating_point or dtype.is_complex):
        raise not_implemented_for("lerp_kernel_tensor" if tensor_weight else "lerp_kernel_scalar", dtype)
    start, stop = np.broadcast_arrays(a._data, end._data)
    if not tensor_weight:
        opmath_scalar(weight, dtype)
        return record(LERP, (a, end), kernels.lerp(start, stop, weight), dtype, weight=weight)
    check_broadcast(a, weight)
    start, stop, w = np.broadcast_arrays(start.astype(dtype._numpy), stop.astype(dtype._numpy),
                                         weight._data.astype(dtype._numpy))
    near = np.abs(w) < 0.5  # from the nearer end, as one fused multiply-add
    data = kernels._fused(np.where(near, w, w - 1), stop - start, np.where(near, start, stop))
    return record(LERP_TENSOR, (a, end, weight), np.asarray(data, dtype=dtype._numpy), dtype)


NAN_TO_NUM = node("NanToNumBackward0", ("self",), jvp=ELEMENT_WISE,
                  self=lambda grad, self: grad * Tensor._make(np.isfinite(self._data), dtypes.bool_))


@op(nodes=(NAN_TO_NUM,))
def nan_to_num(input: Tensor, nan: Optional[float] = None, posinf: Optional[float] = None,
               neginf: Optional[float] = None) -> Tensor:
    if input._dtype.category >= dtypes.FLOATING:
        info = np.finfo(input._dtype._numpy)
        data = np.nan_to_num(input._data, nan=0.0 if nan is None else nan,
                             posinf=info.max if posinf is None else posinf,
                             neginf=info.min if neginf is None else neginf)
    else:
        data = input._data.copy()
    result = record(NAN_TO_NUM, (input,), np.asarray(data, dtype=input._dtype._numpy), input._dtype)
    return refuse_complex_autograd("nan_to_num", result)
