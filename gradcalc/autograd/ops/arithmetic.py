"""Arithmetic: add, sub, mul, div, pow, remainder, floor_divide, neg, reciprocal."""
from __future__ import annotations

import cmath
import math
from typing import Any, Callable, Optional

import numpy as np

from .. import dtypes, forward_mode, grad_mode, kernels, meta, mkl, simd
from ..dtypes import DType
from ..tensor import Tensor
from .common import (arrays, as_tensor, check_broadcast, check_has_kernel, check_not_unsigned, check_number,
                     conjugate, float_result, kernel_scalar, not_implemented_for, zeros_like)
from .registry import ELEMENT_WISE, LINEAR, NOT_IMPLEMENTED, NodeDef, node, op, record, save_before_kernel, untracked


def _scaled(grad: Tensor, alpha: Any) -> Tensor:
    return grad if alpha == 1 else grad * alpha


def _pow_grad_self(grad: Tensor, self: Tensor, exponent: Any) -> Tensor:
    if type(exponent) is bool:  # Scalar::equal(0.0) is false for a bool: the formula, with its double
        exponent = float(exponent)
    elif isinstance(exponent, (int, float)) and exponent == 0:
        return zeros_like(self)
    return grad * conjugate(exponent * self.pow(exponent - 1))


def _pow_scalar_base_grad(grad: Tensor, result: Tensor, base: Any) -> Tensor:
    # PyTorch's pow_backward_exponent: grad * conj(b^e log b), with the logarithm of a C++ scalar: complex
    # when the base or the exponent is, NaN for a negative real base; at base 0 the powers e >= 0
    # (the finite ones) take 0
    if isinstance(base, bool):  # PyTorch 2.13 fails to read back a saved bool Scalar (its own assertion)
        raise RuntimeError('false INTERNAL ASSERT FAILED at "/__w/pytorch/pytorch/c10/core/Scalar.cpp":42, please '
                           'report a bug to PyTorch. unknown ivalue tag 4')
    if isinstance(base, complex) or result._dtype.is_complex:
        log: Any = cmath.log(base) if base != 0 else complex(-math.inf, 0.0)
    else:
        log = math.log(base) if base > 0 else (-math.inf if base == 0 else math.nan)
    slope = conjugate(result * log)
    return grad * (slope.masked_fill(result.isfinite(), 0) if base == 0 else slope)


def _pow_tensor_grad_self(grad: Tensor, self: Tensor, exponent: Tensor) -> Tensor:
    # PyTorch's pow_backward_self: 0 where the exponent is 0 (not 0 * b^-1, NaN at b == 0)
    slope = conjugate(exponent * self.pow(exponent - 1))
    return zeros_like(slope).where(exponent == 0, grad * slope)


def _pow_tensor_grad_exponent(grad: Tensor, self: Tensor, exponent: Tensor, result: Tensor) -> Tensor:
    # PyTorch's pow_backward_exponent: d(b^e)/de = b^e log b, taken as 0 where b == 0 and e >= 0
    # (a complex e: real and >= 0)
    real_nonnegative = ((exponent.imag == 0) & (exponent.real >= 0)) if exponent.is_complex() else exponent >= 0
    slope = conjugate(result * self.to(result.dtype).log())
    return grad * zeros_like(slope).where((self == 0) & real_nonnegative, slope)


# with an alpha, PyTorch's add kernel is one fused multiply-add: x + alpha * y rounded once
ADD = node("AddBackward0", ("self", "other"), element_wise=True, jvp=LINEAR, forward=kernels.add_scaled,
           self=lambda grad: grad, other=lambda grad, alpha: _scaled(grad, alpha))
SUB = node("SubBackward0", ("self", "other"), element_wise=True, jvp=LINEAR,
           forward=lambda x, y, alpha=1: kernels.add_scaled(x, y, -alpha) if alpha != 1 else x - y,
           self=lambda grad: grad, other=lambda grad, alpha: -_scaled(grad, alpha))
RSUB = node("RsubBackward1", ("self",), element_wise=True, jvp=LINEAR, self=lambda grad, alpha: -_scaled(grad, alpha))
RSUB_TENSOR = node("RsubBackward0", ("self", "other"), element_wise=True, jvp=LINEAR,
                   self=lambda grad, alpha: -_scaled(grad, alpha), other=lambda grad: grad)
MUL = node("MulBackward0", ("self", "other"), element_wise=True, forward=np.multiply,
           jvp={"self": lambda tangent, other: tangent * other, "other": lambda tangent, self: tangent * self},
           self=lambda grad, other: grad * conjugate(other), other=lambda grad, self: grad * conjugate(self))
DIV = node("DivBackward0", ("self", "other"), element_wise=True, forward=np.true_divide,
           jvp={"self": lambda tangent, other: tangent / other,
                "other": lambda tangent, self, other: -tangent * self / (other * other)},
           self=lambda grad, other: grad / conjugate(other),
           other=lambda grad, self, other: -grad * conjugate((self / other) / other))
NEG = node("NegBackward0", ("self",), element_wise=True, forward=np.negative, jvp=LINEAR, self=lambda grad: -grad)
# multiplication, division and addition by a C++ Scalar, as PyTorch's composite ops and backward
# formulas do them (MulBackward1, DivBackward1, AddBackward1)
MUL_SCALAR = node("MulBackward1", ("self",), element_wise=True,
                  jvp=LINEAR, self=lambda grad, other: mul_scalar(grad, other))
DIV_SCALAR = node("DivBackward1", ("self",), element_wise=True,
                  jvp=LINEAR, self=lambda grad, other: div_scalar(grad, other))
ADD_SCALAR = node("AddBackward1", ("self",), element_wise=True, jvp=LINEAR, self=lambda grad: grad)
RECIPROCAL = node("ReciprocalBackward0", ("self",), forward=np.reciprocal, jvp=ELEMENT_WISE,
                  self=lambda grad, result: -grad * conjugate(result * result))
# div with a rounding mode: piecewise constant, so zero gradients
DIV_ROUNDED = node("DivBackward2", ("self", "other"), saved=("rounding_mode",), jvp=ELEMENT_WISE,
                   self=lambda grad, self: zeros_like(grad), other=lambda grad, other: zeros_like(grad))
def _mod(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """PyTorch's remainder: for floats, fmod moved into the divisor's sign only when not zero,
    so a zero keeps the dividend's sign (-4. % 1. is -0.); integers as Python's %."""
    if x.dtype.kind != "f" and np.broadcast(x, y).size and np.any(y == 0):  # no elements: nothing divided
        raise RuntimeError("ZeroDivisionError")
    if x.dtype.kind != "f":
        return np.mod(x, y)
    result = np.fmod(x, y)
    return np.where((result != 0) & ((result < 0) != (y < 0)), result + y, result)


REMAINDER_SCALAR = node("RemainderBackward0", ("self",), jvp=ELEMENT_WISE, self=lambda grad: grad)
REMAINDER = node("RemainderBackward1", ("self", "other"), forward=_mod, jvp=ELEMENT_WISE, self=lambda grad: grad,
                 other=lambda grad, self, other: -grad * self.div(other, rounding_mode="floor"))


def _power(x: np.ndarray, exponent: Any) -> np.ndarray:
    """x ** exponent as PyTorch's kernel computes it for float32 and float64: the exponents 2, 3
    and -2 as products (rounded after each one), 0.5, -0.5 and -1 as sqrt (torch.sqrt's kernel:
    MKL's where the backend is in use), 1 / sqrt and 1 / x; any other through a correctly rounded
    power, as its pow nearly always is."""
    if x.dtype.type not in (np.float32, np.float64) or isinstance(exponent, complex):
        return np.power(x, exponent)
    product = _PRODUCTS.get(exponent)
    if product is not None:
        return product(x)
    # the kernel's SIMD loop raises to the exponent rounded to the tensor's dtype; its scalar
    # loop, std::pow(float, double), to the exponent as a double
    return power_tensor(x, np.asarray(exponent, dtype=x.dtype), scalar_exponent=np.float64(exponent))


def _sqrt_kernel(x: np.ndarray) -> np.ndarray:
    root = mkl.vml("SqrtBackward0", x)
    return np.sqrt(x) if root is None else root


# _power's exponents computed as products, sqrt or reciprocals (a number equal to one of them too: 2.0, True)
_PRODUCTS = {0: np.ones_like, 1: lambda x: x.copy(), 2: lambda x: x * x, 3: lambda x: x * x * x,
             -2: lambda x: 1 / (x * x), 0.5: _sqrt_kernel, -0.5: lambda x: 1 / np.sqrt(x), -1: lambda x: 1 / x}


def power_tensor(x: np.ndarray, exponent: np.ndarray, scalar_exponent: Optional[np.ndarray] = None) -> np.ndarray:
    if x.dtype.kind in "iu" and np.any(exponent < 0):
        # PyTorch's integer pow: a negative exponent gives 1 or -1 for a base of 1 or -1, else 0
        x, exponent = np.broadcast_arrays(x, exponent)
        safe = np.power(x, np.where(exponent < 0, 0, exponent))
        odd = (-exponent) % 2 == 1
        inverse = np.where(x == 1, 1, np.where(x == -1, np.where(odd, -1, 1), 0)).astype(x.dtype)
        return np.where(exponent < 0, inverse, safe)
    if x.dtype.type is np.float32:
        # the C library's powf (through float64 and one rounding, as it nearly always is) for the
        # elements the kernel's scalar loop takes; SLEEF's powf for those its SIMD loop takes
        wide = exponent.astype(np.float64) if scalar_exponent is None else scalar_exponent
        out = np.power(x.astype(np.float64), wide).astype(np.float32)
        step = 2 * simd.lanes(np.float32)  # pow's SIMD loop takes two registers at a time
        count = out.size - out.size % step
        if count and (exponent.ndim == 0 or exponent.shape == x.shape == out.shape):  # else a strided loop
            flat = out.reshape(-1)
            flat[:count] = simd.vector_pow(x.reshape(-1)[:count], exponent if exponent.ndim == 0
                                           else exponent.reshape(-1)[:count])
        return out
    return np.power(x, exponent)


POW_SCALAR = node("PowBackward0", ("self",), forward=_power, jvp=ELEMENT_WISE, self=_pow_grad_self)
POW_TENSOR = node("PowBackward1", ("self", "exponent"), forward=power_tensor, jvp=ELEMENT_WISE,
                  self=_pow_tensor_grad_self, exponent=_pow_tensor_grad_exponent)
# contiguous: pow(Scalar, Tensor)'s meta function asks for a contiguous result
POW_SCALAR_BASE = node("PowBackward2", ("exponent",), element_wise=False, jvp=ELEMENT_WISE,
                       exponent=lambda grad, result, self: _pow_scalar_base_grad(grad, result, self))


# the kernels of these ops that uint16, uint32 and uint64 lack
_UNSIGNED_MISSING = {"AddBackward0": "add_stub", "SubBackward0": "add_stub", "NegBackward0": "neg_cpu",
                     "SignBackward0": "sign_cpu"}


def binary(node_def: NodeDef, a: Any, b: Any, compute: Optional[DType] = None, **params: Any) -> Tensor:
    dtype = compute or dtypes.pair_result_type(a, b)
    if dtype in dtypes.BAREBONES_UNSIGNED and node_def.name in _UNSIGNED_MISSING:
        raise not_implemented_for(_UNSIGNED_MISSING[node_def.name], dtype)
    # a float, or one wrapped as PyTorch wraps it (a backward formula's saved number)
    number = b if type(b) is float else b._data if (
        b.__class__ is Tensor and b._wrapped and b._data.dtype.type is np.float64) else None
    if number is not None and a.__class__ is Tensor and a._data.flags.c_contiguous and untracked(a):
        # `x * 0.1` recording nothing (an optimizer's step, `grad * 0.1` in a backward pass): the
        # number is taken in the result's dtype as the wrapped number's cast would take it
        x = a._data if a._dtype is dtype else a._data.astype(dtype._numpy)
        data = node_def.forward(x, np.array(number, dtype._numpy), **params)
        if type(data) is not np.ndarray or data.dtype is not dtype._numpy:
            data = np.asarray(data, dtype=dtype._numpy)
        return Tensor._make(data, dtype)
    ta = a if isinstance(a, Tensor) else as_tensor(a)
    tb = b if isinstance(b, Tensor) else as_tensor(b)
    x, y = ta._data, tb._data
    if x.shape != y.shape or meta.state["made"]:
        try:
            check_broadcast(ta, tb)
        except RuntimeError:
            if grad_mode._enabled:
                save_before_kernel(node_def, (ta, tb), params)  # (autograd saves the inputs first)
            raise
    numpy_dtype = dtype._numpy
    if ta._dtype is not dtype:
        x = x.astype(numpy_dtype)
    if tb._dtype is not dtype:
        y = y.astype(numpy_dtype)
    data = node_def.forward(x, y, **params)
    if type(data) is not np.ndarray or data.dtype is not numpy_dtype:  # from 0-d arrays, a numpy scalar
        data = np.asarray(data, dtype=numpy_dtype)
    return record(node_def, (ta, tb), data, dtype, **params)


def unary(node_def: NodeDef, a: Tensor, **params: Any) -> Tensor:
    if a._dtype in dtypes.BAREBONES_UNSIGNED and node_def.name in _UNSIGNED_MISSING:
        raise not_implemented_for(_UNSIGNED_MISSING[node_def.name], a._dtype)
    data = node_def.forward(a._data, **params)
    return record(node_def, (a,), np.asarray(data, dtype=a._dtype._numpy), a._dtype, **params)


def _check_sub_bool(a: Any, b: Any) -> None:
    """PyTorch refuses `-` when either operand is bool (a Python bool included)."""
    a_bool, b_bool = (isinstance(v, bool) or (isinstance(v, Tensor) and v._dtype is dtypes.bool_) for v in (a, b))
    if a_bool and b_bool:
        raise RuntimeError("Subtraction, the `-` operator, with two bool tensors is not supported. "
                           "Use the `^` or `logical_xor()` operator instead.")
    if a_bool or b_bool:
        raise RuntimeError("Subtraction, the `-` operator, with a bool tensor is not supported. If you are trying "
                           "to invert a mask, use the `~` or `logical_not()` operator instead.")


def _check_alpha(operands: list, alpha: Any) -> None:
    """PyTorch's alpha_check: an alpha the result's dtype can hold."""
    if type(alpha) is int:
        return
    dtype = dtypes.result_type(operands)
    if isinstance(alpha, bool) and dtype is not dtypes.bool_:
        raise RuntimeError("Boolean alpha only supported for Boolean results.")
    if dtype.category <= dtypes.INTEGRAL and not isinstance(alpha, (bool, int)):
        raise RuntimeError("For integral input tensors, argument alpha must not be a floating point number.")
    if isinstance(alpha, complex) and not dtype.is_complex:
        raise RuntimeError("For non-complex input tensors, argument alpha must not be a complex number.")


def _alpha_read(input: Any, other: Any, alpha: Any) -> Any:
    """alpha as the kernel reads it in the result's type once the operands are broadcast: checked,
    an unsigned type's negatives wrapped."""
    if isinstance(input, Tensor) and isinstance(other, Tensor) and input.shape != other.shape:
        check_broadcast(input, other)
    return kernel_scalar(alpha, dtypes.pair_result_type(input, other))


@op()
def add(input: Any, other: Any, *, alpha: Any = 1) -> Tensor:
    check_number(other, "+")
    if type(alpha) is not int:  # any int is a valid alpha: no call for the common case
        _check_alpha([input, other], alpha)
    if alpha != 1:
        alpha = _alpha_read(input, other, alpha)
    return binary(ADD, input, other, alpha=alpha)


@op(aliases=("subtract",))
def sub(input: Any, other: Any, *, alpha: Any = 1) -> Tensor:
    check_number(other, "-")
    _check_sub_bool(input, other)
    _check_alpha([input, other], alpha)
    if alpha != 1:
        alpha = _alpha_read(input, other, alpha)
    return binary(SUB, input, other, alpha=alpha)


@op(method=False)
def rsub(input: Tensor, other: Any, alpha: Any = 1) -> Tensor:
    """`other - input`."""
    check_number(other, "-")
    _check_alpha([input, other], alpha)
    if isinstance(other, Tensor):
        _check_sub_bool(other, input)
        dtype = dtypes.result_type([input, other])
        check_broadcast(input, other)
        x, y = arrays((input, other), dtype)
        data = kernels.add_scaled(y, x, -alpha) if alpha != 1 else y - x
        return record(RSUB_TENSOR, (input, other), np.asarray(data, dtype=dtype._numpy), dtype, alpha=alpha)
    _check_sub_bool(other, input)
    dtype = dtypes.result_type([input, other])
    (x,) = arrays((input,), dtype)
    data = kernels.add_scaled(np.asarray(other, dtype=x.dtype), x, -alpha) if alpha != 1 else other - x
    return record(RSUB, (input,), np.asarray(data, dtype=dtype._numpy), dtype, alpha=alpha)


@op(aliases=("multiply",))
def mul(input: Any, other: Any) -> Tensor:
    check_number(other, "*")
    return binary(MUL, input, other)


@op(aliases=("divide", "true_divide"))
def div(input: Any, other: Any, *, rounding_mode: Optional[str] = None) -> Tensor:
    check_number(other, "/")
    if rounding_mode is not None:
        if rounding_mode not in ("trunc", "floor"):
            raise RuntimeError(f"div expected rounding_mode to be one of None, 'trunc', or 'floor' but found "
                               f"'{rounding_mode}'")
        function = np.floor_divide if rounding_mode == "floor" else _trunc_divide
        return _rounded_divide(DIV_ROUNDED, input, other, function, "/", f"div_{rounding_mode}_cpu",
                               rounding_mode=rounding_mode)
    dtype = float_result(dtypes.result_type([input, other]))
    return binary(DIV, input, other, compute=dtype)


def div_scalar(a: Tensor, other: Any) -> Tensor:
    return record(DIV_SCALAR, (a,), np.asarray(a._data / other, dtype=a._dtype._numpy), a._dtype, other=other)


def mul_scalar(a: Tensor, other: Any) -> Tensor:
    return record(MUL_SCALAR, (a,), np.asarray(a._data * other, dtype=a._dtype._numpy), a._dtype, other=other)


def add_scalar(a: Tensor, other: Any) -> Tensor:
    return record(ADD_SCALAR, (a,), np.asarray(a._data + other, dtype=a._dtype._numpy), a._dtype)


def rdiv(a: Tensor, other: Any) -> Tensor:
    """`other / a`: PyTorch computes `a.reciprocal() * other`."""
    return mul(reciprocal(a), other)


@op()
def reciprocal(input: Tensor) -> Tensor:
    return unary_float(RECIPROCAL, input)


# the element-wise functions whose ATen kernels are built for real types only, by node: the
# kernel a complex input meets
_REAL_KERNELS = {"ErfBackward0": "erf_vml_cpu", "ErfcBackward0": "erfc_vml_cpu", "ErfinvBackward0": "erfinv_vml_cpu",
                 "LgammaBackward0": "lgamma_vml_cpu", "DigammaBackward0": "digamma", "I0Backward0": "i0_vml_cpu",
                 "SpecialEntrBackward0": "entr_cpu", "SpecialErfcxBackward0": "erfcx_cpu",
                 "SpecialI0EBackward0": "i0e_cpu", "SpecialI1Backward0": "i1_cpu", "SpecialI1EBackward0": "i1e_cpu",
                 "SpecialLogNdtrBackward0": "log_ndtr_cpu", "SpecialNdtriBackward0": "ndtri_cpu"}


def float_kernel(node_def: NodeDef, x: np.ndarray) -> np.ndarray:
    """node_def's element-wise function of float32 or float64 x as its CPU kernel computes it:
    MKL's vector math where ATen calls it and MKL is in use, else in double rounded once
    (PyTorch's float32 exp, log, tanh, ... are correctly rounded far more often than numpy's)."""
    if node_def.name in mkl.VML_FUNCTIONS and mkl.library() is not None:
        data = mkl.vml(node_def.name, x)
        if data is not None:
            return data
    return np.asarray(node_def.forward(x.astype(np.float64)), dtype=x.dtype)


def unary_float(node_def: NodeDef, a: Tensor, **params: Any) -> Tensor:
    """An element-wise function that gives a floating result for integer input."""
    dtype = float_result(a._dtype)
    if dtype.is_complex and node_def.name in _REAL_KERNELS:
        raise not_implemented_for(_REAL_KERNELS[node_def.name], dtype)
    if a._dtype is dtype and dtype in (dtypes.float32, dtypes.float64) and not params:
        return record(node_def, (a,), float_kernel(node_def, a._data), dtype)
    if dtype in (dtypes.float32, dtypes.float64) and node_def.name in mkl.VML_FUNCTIONS and not params \
            and mkl.library() is not None:
        data = mkl.vml(node_def.name, arrays((a,), dtype)[0])  # where ATen calls MKL's VML, when it is installed
        if data is not None:
            return record(node_def, (a,), data, dtype)
    # (float_kernel's double for the rest, from the input's own values)
    compute = dtypes.float64 if dtype in (dtypes.float32, dtypes.float16) else dtype
    (x,) = arrays((a,), compute)
    data = node_def.forward(x, **params)
    return record(node_def, (a,), np.asarray(data, dtype=dtype._numpy), dtype, **params)


@op(aliases=("negative",))
def neg(input: Tensor) -> Tensor:
    if input._dtype is dtypes.bool_:
        raise RuntimeError("Negation, the `-` operator, on a bool tensor is not supported. If you are trying "
                           "to invert a mask, use the `~` or `logical_not()` operator instead.")
    return unary(NEG, input)


@op()
def pow(input: Any = None, exponent: Any = None, self: Any = None) -> Tensor:
    if input is None:
        return rpow(as_tensor(exponent), self)
    if not isinstance(input, Tensor):
        return rpow(as_tensor(exponent), input)
    a = input
    own = a._dtype
    if (own is dtypes.float32 or own is dtypes.float64) and not a._wrapped and type(exponent) in (int, float):
        # `x ** 2`: a floating tensor's own dtype, none of the checks below applying to it
        return record(POW_SCALAR, (a,), np.asarray(_power(a._data, exponent), dtype=own._numpy), own,
                      exponent=exponent)
    if isinstance(exponent, Tensor):
        check_has_kernel("pow", a, exponent)
        return binary(POW_TENSOR, a, exponent)
    check_number(exponent, "** or pow()")
    dtype = dtypes.result_type([a, exponent])
    check_not_unsigned("pow", dtype)
    if dtype.category == dtypes.INTEGRAL and isinstance(exponent, int) and exponent < 0:
        raise RuntimeError("Integers to negative integer powers are not allowed.")
    if dtype.category == dtypes.INTEGRAL and isinstance(exponent, int) and exponent >= 2 ** 63:
        raise RuntimeError("value cannot be converted to type int64_t without overflow")  # Scalar::to<int64_t>()
    (x,) = arrays((a,), dtype)
    data = POW_SCALAR.forward(x, exponent=exponent)
    return record(POW_SCALAR, (a,), np.asarray(data, dtype=dtype._numpy), dtype, exponent=exponent)


def rpow(a: Tensor, base: Any) -> Tensor:
    """`base ** a` for a Python number `base`."""
    check_has_kernel("pow", a, base)
    dtype = dtypes.result_type([a, base])
    (x,) = arrays((a,), dtype)
    if x.dtype.kind in "iu" or x.dtype == np.float32:
        # float32: the base rounded to float32 and broadcast, in pow's SIMD and scalar loops; an int
        # base is taken in the tensor's integer type, truncated to its bits as C++ converts it
        if x.dtype.kind in "iu" and type(base) is int:
            bits = 8 * x.dtype.itemsize
            base &= (1 << bits) - 1
            if x.dtype.kind == "i" and base >= 1 << (bits - 1):
                base -= 1 << bits
        data = power_tensor(np.broadcast_to(np.asarray(base, x.dtype), x.shape), x)
    else:
        data = np.power(base, x)
    return record(POW_SCALAR_BASE, (a,), np.asarray(data, dtype=dtype._numpy), dtype, self=base)


@op()
def floor_divide(input: Any, other: Any) -> Tensor:
    return _rounded_divide(NOT_IMPLEMENTED, input, other, np.floor_divide, "//", "div_floor_cpu",
                           _aten="floor_divide")


def _trunc_divide(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    return np.trunc(x / y).astype(x.dtype)


@op()
def remainder(input: Any = None, other: Any = None, self: Any = None) -> Tensor:
    a = self if input is None else input
    b = other
    check_number(b, "%")
    check_has_kernel("remainder_cpu", a, b)
    _check_not_complex("remainder_cpu", a, b)
    if isinstance(a, Tensor) and isinstance(b, Tensor):
        return binary(REMAINDER, a, b)
    dtype = dtypes.result_type([a, b])
    ta, tb = as_tensor(a), as_tensor(b)
    check_broadcast(ta, tb)
    x, y = arrays((ta, tb), dtype)
    data = np.asarray(_mod(x, y), dtype=dtype._numpy)
    if isinstance(a, Tensor):  # remainder(Tensor, Scalar): a gradient for self only
        return record(REMAINDER_SCALAR, (a,), data, dtype)
    return record(NOT_IMPLEMENTED, (b,), data, dtype, _aten="remainder")  # remainder(Scalar, Tensor): none


def _check_not_complex(kernel: str, *operands: Any) -> None:
    dtype = dtypes.result_type(list(operands))
    if dtype.is_complex:
        raise not_implemented_for(kernel, dtype)


def _rounded_divide(node_def: NodeDef, a: Any, b: Any, function: Callable, symbol: str, kernel: str,
                    **params: Any) -> Tensor:
    check_number(b, symbol)
    if node_def is NOT_IMPLEMENTED and forward_mode.has_dual_tangent(a, b):
        # autograd's refusal comes before the kernel's checks
        raise NotImplementedError(f"Trying to use forward AD with aten::{params['_aten']} that does not support it.")
    check_has_kernel(kernel, a, b)
    _check_not_complex(kernel, a, b)
    dtype = dtypes.result_type([a, b])
    ta, tb = as_tensor(a), as_tensor(b)
    check_broadcast(ta, tb)
    x, y = arrays((ta, tb), dtype)
    if dtype.category <= dtypes.INTEGRAL and np.broadcast(x, y).size and np.any(y == 0):
        raise RuntimeError("ZeroDivisionError")
    data = np.asarray(function(x, y), dtype=dtype._numpy)
    # a Python number is a wrapped operand of its own, with no edge: only tensors are inputs
    inputs = (ta, tb) if node_def is not NOT_IMPLEMENTED else tuple(t for t in (a, b) if isinstance(t, Tensor))
    return record(node_def, inputs, data, dtype, **params)
