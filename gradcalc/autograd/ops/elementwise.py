"""More element-wise functions: inverse hyperbolics, degrees, logit, frexp and ldexp, the special
functions of torch (erfc, erfinv, lgamma, digamma, polygamma, i0, sinc), the tests (isfinite,
isinf, signbit, ...), and binary ones (copysign, fmod, fmax, hypot, logaddexp, xlogy, addcmul, ...)."""
from __future__ import annotations

import math
from typing import Any, Callable, Optional

import numpy as np

from .. import dtypes, kernels, simd, special_functions as special
from ..tensor import Tensor
from .arithmetic import binary, unary_float
from .comparison import check_ordered
from .common import (ReturnTypes, arrays, as_tensor, check_broadcast, check_not_unsigned, float_result, is_conj,
                     not_implemented_for, opmath_scalar, refuse_complex, zeros_like)
from .generate import make_inplace
from .registry import ELEMENT_WISE, LINEAR, NOT_IMPLEMENTED, NodeDef, node, op, record


def _not_differentiable(name: str) -> Callable:
    def formula(grad: Tensor) -> Tensor:
        raise RuntimeError(f"the derivative for '{name}' is not implemented.")

    return formula


ACOSH = node("AcoshBackward0", ("self",), forward=np.arccosh, jvp=ELEMENT_WISE,
             self=lambda grad, self: _acosh_grad(grad, self))
ASINH = node("AsinhBackward0", ("self",), forward=np.arcsinh, jvp=ELEMENT_WISE,
             self=lambda grad, self: grad * (self.pow(2) + 1).rsqrt().conj())
ATANH = node("AtanhBackward0", ("self",), forward=np.arctanh, jvp=ELEMENT_WISE,
             self=lambda grad, self: grad * (1 - self.pow(2)).reciprocal().conj())
DEG2RAD = node("Deg2RadBackward0", ("self",), element_wise=True,
               forward=np.deg2rad, jvp=LINEAR, self=lambda grad: grad * (math.pi / 180))
RAD2DEG = node("Rad2DegBackward0", ("self",), element_wise=True,
               forward=np.rad2deg, jvp=LINEAR, self=lambda grad: grad * (180 / math.pi))
ERFC = node("ErfcBackward0", ("self",), forward=special.erfc, jvp=ELEMENT_WISE,
            self=lambda grad, self: -2.0 / math.sqrt(math.pi) * (-self.pow(2)).exp() * grad)
ERFINV = node("ErfinvBackward0", ("self",), forward=special.erfinv, jvp=ELEMENT_WISE,
              self=lambda grad, self: 0.5 * math.sqrt(math.pi) * self.erfinv().pow(2).exp() * grad)
LGAMMA = node("LgammaBackward0", ("self",), forward=special.lgamma, jvp=ELEMENT_WISE,
              self=lambda grad, self: grad * self.digamma())
DIGAMMA = node("DigammaBackward0", ("self",), forward=special.digamma, jvp=ELEMENT_WISE,
               self=lambda grad, self: grad * self.polygamma(1))
POLYGAMMA = node("PolygammaBackward0", ("self",), jvp=ELEMENT_WISE,
                 self=lambda grad, n, self: grad * self.polygamma(n + 1))
MVLGAMMA = node("MvlgammaBackward0", ("self",), jvp=ELEMENT_WISE,
                self=lambda grad, self, p: grad * sum(((self - i / 2).digamma() for i in range(p)), zeros_like(self)))
I0 = node("I0Backward0", ("self",), forward=special.i0, jvp=ELEMENT_WISE,
          self=lambda grad, self: grad * special_i1(self))
# torch.special.i1, here for i0's derivative
I1 = node("SpecialI1Backward0", ("self",), forward=special.i1, jvp=ELEMENT_WISE,
          self=lambda grad, self, result: grad * (self.i0() - result / self).masked_fill(self == 0, 0.5))
SINC = node("SincBackward0", ("self",), jvp=ELEMENT_WISE,
            self=lambda grad, self: grad * ((math.pi * self * (math.pi * self).cos() - (math.pi * self).sin())
                                            / (math.pi * self * self)).masked_fill(self == 0, 0))
ANGLE = node("AngleBackward0", ("self",), jvp=ELEMENT_WISE, self=lambda grad, self: _angle_grad(grad, self))
LOGIT = node("LogitBackward0", ("self",), jvp=ELEMENT_WISE, self=lambda grad, self, eps: _logit_grad(grad, self, eps))
FREXP = node("FrexpBackward0", ("self",), saved_tensors=("exponent",), jvp=ELEMENT_WISE,
             self=lambda grad, exponent: grad / exponent.exp2())


def special_i1(x: Tensor) -> Tensor:
    return unary_float(I1, x)


def _acosh_grad(grad: Tensor, self: Tensor) -> Tensor:
    # sqrt(x*x - 1) = sqrt(x + 1) * sqrt(x - 1) holds for real x >= 1 only: complex inputs take the product
    if self._dtype.is_complex:
        return grad * ((self + 1).rsqrt() * (self - 1).rsqrt()).conj()
    return grad * (self * self - 1).rsqrt()


def _angle_grad(grad: Tensor, self: Tensor) -> Tensor:
    # a real number's angle is piecewise constant; a complex one's turns with i * self / |self|^2
    # (the conjugate Wirtinger derivative), taken as 0 at 0
    if not self._dtype.is_complex:
        return zeros_like(grad)
    return (grad * self / self.abs().pow(2) * 1j).masked_fill(self == 0, 0)


def _logit_grad(grad: Tensor, self: Tensor, eps: Optional[float]) -> Tensor:
    slope = grad / (self * (1 - self))
    if eps is None:
        return slope.masked_fill((self < 0) | (self > 1), math.nan)
    return slope.masked_fill((self < eps) | (self > 1 - eps), 0)


for _name, _node, _aliases in ((("acosh", ACOSH, ("arccosh",)), ("asinh", ASINH, ("arcsinh",)),
                                ("atanh", ATANH, ("arctanh",)), ("erfc", ERFC, ()), ("erfinv", ERFINV, ()),
                                ("lgamma", LGAMMA, ()), ("i0", I0, ()))):
    def _function(input: Tensor, _node: NodeDef = _node) -> Tensor:
        return unary_float(_node, input)

    _function.__name__ = _function.__qualname__ = _name
    op(_name, nodes=(_node,), aliases=_aliases)(_function)
del _name, _node, _aliases, _function


def _degrees(name: str, node_def: NodeDef) -> Callable:
    def function(input: Tensor) -> Tensor:
        if input._dtype.is_complex:
            raise RuntimeError(f"{name} is not supported for complex tensors.")
        if input._dtype is dtypes.bool_ or input._dtype.category < dtypes.FLOATING:
            return unary_float(node_def, input)
        return record(node_def, (input,), node_def.forward(input._data).astype(input._dtype._numpy), input._dtype)

    return function


op("deg2rad", nodes=(DEG2RAD,))(_degrees("deg2rad", DEG2RAD))
op("rad2deg", nodes=(RAD2DEG,))(_degrees("rad2deg", RAD2DEG))


@op(nodes=(DIGAMMA,))
def digamma(input: Tensor) -> Tensor:
    """ATen's calc_digamma in the result's dtype (float for the half precisions, rounded after)."""
    dtype = float_result(input._dtype)
    refuse_complex("digamma", dtype)
    computed = np.float64 if dtype is dtypes.float64 else np.float32
    return record(DIGAMMA, (input,), special.digamma(input._data.astype(computed)).astype(dtype._numpy), dtype)


# (the order n, x is the function's: the in-place method takes x as self)
@op(nodes=(POLYGAMMA,), inplace=make_inplace(lambda input, n: polygamma(n, input), name="polygamma_"))
def polygamma(n: int, input: Tensor) -> Tensor:
    if n < 0:
        raise RuntimeError("polygamma(n, x) does not support negative n.")
    dtype = float_result(input._dtype)
    refuse_complex("digamma" if n == 0 else "trigamma" if n == 1 else "polygamma", dtype)
    # digamma and trigamma in float for float32 (and the half precisions), as ATen's; the rest in double
    computed = np.float32 if n <= 1 and dtype is not dtypes.float64 else np.float64
    data = special.polygamma(n, input._data.astype(computed)).astype(dtype._numpy)
    return record(POLYGAMMA, (input,), data, dtype, n=n)


@op(nodes=(MVLGAMMA,), inplace=make_inplace(lambda input, p: _mvlgamma_in_place(input, p)))
def mvlgamma(input: Tensor, p: int) -> Tensor:
    if input._dtype is dtypes.bool_:
        raise RuntimeError("The input tensor may not be a boolean tensor.")
    if p < 1:
        raise RuntimeError("p has to be greater than or equal to 1")
    # ATen's composite: lgamma of x + arange(-p/2 + 1/2, 1/2, 1/2) in the dtype, summed, then the constant
    dtype = float_result(input._dtype)
    refuse_complex("arange_cpu", dtype)
    kind = dtype._numpy
    shifts = np.arange(-p * 0.5 + 0.5, 0.5, 0.5).astype(kind)
    args = (input._data.astype(kind)[..., None] + shifts).astype(kind)
    terms = np.asarray(special.lgamma(args.astype(np.float64)), dtype=kind)
    total = np.add.accumulate(terms, axis=-1)[..., -1] + np.asarray(p * (p - 1) * math.log(math.pi) * 0.25, kind)
    return record(MVLGAMMA, (input,), np.asarray(total, dtype=kind), dtype, p=p)


def _mvlgamma_in_place(input: Tensor, p: int) -> Tensor:
    if input._dtype.category == dtypes.INTEGRAL:  # (mvlgamma_'s own check of its result's type)
        raise RuntimeError(f"mvlgamma: result type {input._dtype._scalar_name} can't be cast to the desired output "
                           f"type {dtypes.get_default_dtype()._scalar_name}")
    return mvlgamma(input, p)


@op(nodes=(SINC,))
def sinc(input: Tensor) -> Tensor:
    # as PyTorch's kernel: pi * x and its sine rounded in the dtype, then their quotient
    dtype = float_result(input._dtype)
    (x,) = arrays((input,), dtype)
    if dtype.is_complex:
        product = x * x.dtype.type(math.pi)
        safe = np.where(x == 0, x.dtype.type(1), product)
        data = np.where(x == 0, x.dtype.type(1), np.sin(safe) / safe)
        return record(SINC, (input,), data.astype(dtype._numpy), dtype)
    product = (x.dtype.type(math.pi) * x).astype(x.dtype)
    safe = np.where(x == 0, x.dtype.type(1), product)
    data = np.where(x == 0, x.dtype.type(1), simd.libm(np.sin, safe) / safe)
    return record(SINC, (input,), np.asarray(data, dtype=dtype._numpy), dtype)


@op(nodes=(ANGLE,))
def angle(input: Tensor) -> Tensor:
    dtype = float_result(input._dtype.to_real())
    data = np.angle(input._data) if input._dtype.is_complex else np.where(input._data < 0, np.pi, 0.0)
    data = np.where(np.isnan(input._data), np.nan, data) if input._dtype.category >= dtypes.FLOATING else data
    return record(ANGLE, (input,), np.asarray(data, dtype=dtype._numpy), dtype)


@op(nodes=(LOGIT,))
def logit(input: Tensor, eps: Optional[float] = None) -> Tensor:
    dtype = float_result(input._dtype)
    refuse_complex("logit_cpu", dtype)
    # the ratio in the result's dtype, as PyTorch's kernel divides, then its log
    (x,) = arrays((input,), dtype)
    one = np.ones((), dtype=x.dtype)
    if eps is not None:
        low = np.asarray(eps, dtype=x.dtype)
        x = np.clip(x, low, one - low)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = x / (one - x)
        data = np.log(ratio.astype(np.float64)) if x.dtype in (np.float32, np.float16) else np.log(ratio)
    return record(LOGIT, (input,), np.asarray(data, dtype=dtype._numpy), dtype, eps=eps)


@op(nodes=(FREXP,))
def frexp(input: Tensor) -> Any:
    if input._dtype.category != dtypes.FLOATING:
        raise RuntimeError("torch.frexp() only supports floating-point dtypes")
    mantissa, exponent = np.frexp(input._data)
    exponents = Tensor._make(exponent.astype(np.int32), dtypes.int32)
    out = record(FREXP, (input,), mantissa.astype(input._dtype._numpy), input._dtype, exponent=exponents)
    return ReturnTypes("frexp", out, exponents, fields=("mantissa", "exponent"))


# the tests PyTorch refuses complex tensors, in their words
_REAL_TESTS = {"isposinf": (RuntimeError, "isposinf does not support complex inputs."),
               "isneginf": (RuntimeError, "isneginf does not support complex inputs."),
               "signbit": (NotImplementedError, "signbit is not implemented for complex tensors.")}


def _test(name: str, function: Callable) -> None:
    def test(input: Tensor) -> Tensor:
        if name in _REAL_TESTS and input._dtype.is_complex:
            kind, message = _REAL_TESTS[name]
            raise kind(message)
        return Tensor._make(np.asarray(function(input._data)), dtypes.bool_)

    test.__name__ = test.__qualname__ = name
    op(name)(test)


_test("isfinite", np.isfinite)
_test("isinf", np.isinf)
_test("isposinf", np.isposinf)
_test("isneginf", np.isneginf)
_test("signbit", np.signbit)
_test("isreal", lambda x: np.imag(x) == 0 if np.iscomplexobj(x) else np.ones(x.shape, bool))


@op(inplace=False)
def positive(input: Tensor) -> Tensor:
    if input._dtype is dtypes.bool_:
        raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
    return input


@op(inplace=False)
def resolve_conj(input: Tensor) -> Tensor:
    return input.clone() if is_conj(input) else input  # its values are conjugated already


@op(inplace=False)
def resolve_neg(input: Tensor) -> Tensor:
    return input


# ------------------------------------------------------------------ binary functions

COPYSIGN = node("CopysignBackward0", ("self", "other"), jvp=ELEMENT_WISE, forward=np.copysign,
                self=lambda grad, self, result: _copysign_grad(grad, self, result), other=lambda grad: zeros_like(grad))
COPYSIGN_SCALAR = node("CopysignBackward1", ("self",), jvp=ELEMENT_WISE, forward=np.copysign,
                       self=lambda grad, self, result: _copysign_grad(grad, self, result))
FMOD_SCALAR = node("FmodBackward0", ("self",), jvp=ELEMENT_WISE, forward=np.fmod, self=lambda grad: grad)
FMOD = node("FmodBackward1", ("self", "other"), jvp=ELEMENT_WISE, forward=np.fmod, self=lambda grad: grad,
            other=lambda grad, self, other: -grad * self.div(other, rounding_mode="trunc"))
FMAX = node("FmaxBackward0", ("self", "other"), jvp=ELEMENT_WISE, forward=np.fmax,
            self=lambda grad, self, other: grad.masked_fill(((self >= other) | other.isnan()).logical_not(), 0),
            other=lambda grad, self, other: grad.masked_fill(((self >= other) | other.isnan()), 0))
FMIN = node("FminBackward0", ("self", "other"), jvp=ELEMENT_WISE, forward=np.fmin,
            self=lambda grad, self, other: grad.masked_fill(((self <= other) | other.isnan()).logical_not(), 0),
            other=lambda grad, self, other: grad.masked_fill(((self <= other) | other.isnan()), 0))
HYPOT = node("HypotBackward0", ("self", "other"), jvp=ELEMENT_WISE, forward=np.hypot,
             self=lambda grad, self, result: grad * self / result, other=lambda grad, other, result: grad * other / result)
LOGADDEXP = node("LogaddexpBackward0", ("self", "other"), jvp=ELEMENT_WISE, forward=np.logaddexp,
                 self=lambda grad, self, other: grad / (1 + (other - self).exp()),
                 other=lambda grad, self, other: grad / (1 + (self - other).exp()))
LOGADDEXP2 = node("Logaddexp2Backward0", ("self", "other"), jvp=ELEMENT_WISE, forward=np.logaddexp2,
                  self=lambda grad, self, other: grad / (1 + (other - self).exp2()),
                  other=lambda grad, self, other: grad / (1 + (self - other).exp2()))
# PyTorch passes the gradient through nextafter's first argument (a step of one ulp)
NEXTAFTER = node("NextafterBackward0", ("self", "other"), forward=np.nextafter, saved=("self", "other"),
                 jvp=ELEMENT_WISE, self=lambda grad: grad, other=lambda grad: zeros_like(grad))
LDEXP = node("LdexpBackward0", ("self", "other"), jvp=ELEMENT_WISE,
             self=lambda grad, other: grad * other.exp2(), other=lambda grad, result: grad * result * math.log(2))
XLOGY = node("XlogyBackward0", ("self", "other"), jvp=ELEMENT_WISE,
             self=lambda grad, self, other: grad * other.log().masked_fill((self == 0) & (other <= 0), 0),
             other=lambda grad, self, other: grad * self / other)
XLOGY_SCALAR_SELF = node("XlogyBackward1", ("other",), jvp=ELEMENT_WISE,
                         other=lambda grad, self, other: grad * self / other)
XLOGY_SCALAR_OTHER = node("XlogyBackward2", ("self",), jvp=ELEMENT_WISE,
                          self=lambda grad, self, other: _xlogy_scalar_grad(grad, self, other))
# PyTorch's formulas, in its order of operations (which decides the last bits)
ADDCMUL = node("AddcmulBackward0", ("self", "tensor1", "tensor2"), jvp=ELEMENT_WISE,
               self=lambda grad: grad, tensor1=lambda grad, tensor2, value: grad * (tensor2 * value).conj(),
               tensor2=lambda grad, tensor1, value: grad * (tensor1 * value).conj())
ADDCDIV = node("AddcdivBackward0", ("self", "tensor1", "tensor2"), jvp=ELEMENT_WISE,
               self=lambda grad: grad, tensor1=lambda grad, tensor2, value: grad * (value / tensor2).conj(),
               tensor2=lambda grad, tensor1, tensor2, value: -grad * (value * tensor1 / (tensor2 * tensor2)).conj())


def _xlogy_scalar_grad(grad: Tensor, self: Tensor, other: float) -> Tensor:
    slope = math.log(other) if other > 0 else (-math.inf if other == 0 else math.nan)
    return (grad * slope).masked_fill(self == 0, 0) if other <= 0 else grad * slope


def _copysign_grad(grad: Tensor, self: Tensor, result: Tensor) -> Tensor:
    return grad * (result / self).masked_fill(self == 0, 0)


def _floating_binary(node_def: NodeDef, a: Any, b: Any) -> Tensor:
    """A binary function giving floats for integer input."""
    dtype = float_result(dtypes.result_type([a, b]))
    return binary(node_def, a, b, compute=dtype)


@op(nodes=(COPYSIGN, COPYSIGN_SCALAR))
def copysign(input: Tensor, other: Any) -> Tensor:
    if isinstance(other, Tensor):
        check_broadcast(input, other)
    refuse_complex("copysign_cpu", dtypes.result_type([input, other]))
    if not isinstance(other, Tensor):
        dtype = float_result(dtypes.result_type([input, other]))
        (x,) = arrays((input,), dtype)
        return record(COPYSIGN_SCALAR, (input,), np.copysign(x, np.asarray(other, dtype=x.dtype)), dtype)
    return _floating_binary(COPYSIGN, input, other)


@op(nodes=(FMOD, FMOD_SCALAR))
def fmod(input: Tensor, other: Any) -> Tensor:
    check_not_unsigned("fmod_cpu", input._dtype)
    dtype = dtypes.result_type([input, other])
    if dtype is dtypes.bool_:
        raise not_implemented_for("fmod_cpu", dtype)
    if isinstance(other, Tensor):
        check_broadcast(input, other)
    refuse_complex("fmod_cpu", dtype)
    if dtype.category <= dtypes.INTEGRAL and np.any(np.asarray(other._data if isinstance(other, Tensor) else other) == 0):
        raise RuntimeError("ZeroDivisionError")
    if not isinstance(other, Tensor):
        (x,) = arrays((input,), dtype)
        return record(FMOD_SCALAR, (input,), np.asarray(np.fmod(x, other), dtype=dtype._numpy), dtype)
    return binary(FMOD, input, other)


_FLOATING_BINARIES = frozenset({"hypot", "logaddexp2", "nextafter"})


def _complex_logaddexp(input: Tensor, other: Tensor) -> Tensor:
    """ATen's _log_add_exp_helper on complex numbers: log1p(exp(min - max)) + max, the two ordered
    by their real parts (a NaN part gives NaN)."""
    dtype = dtypes.result_type([input, other])
    check_broadcast(input, other)
    x, y = arrays((input, other), dtype)
    x, y = np.broadcast_arrays(x, y)
    smaller = x.real < y.real
    low, high = np.where(smaller, x, y), np.where(smaller, y, x)
    with np.errstate(all="ignore"):
        data = np.log1p(np.exp(low - high)) + high
    data = np.where(np.isnan(x.real) | np.isnan(x.imag) | np.isnan(y.real) | np.isnan(y.imag),
                    np.asarray(complex(math.nan, math.nan), dtype._numpy), data)
    return record(LOGADDEXP, (input, other), data.astype(dtype._numpy), dtype)


def _simple_binary(name: str, node_def: NodeDef, floating: bool = False) -> None:
    def function(input: Tensor, other: Tensor) -> Tensor:
        if name in ("fmax", "fmin"):
            check_ordered(name, input, other)
        if name in _FLOATING_BINARIES:  # (their kernels are built for floating types only: no promotion)
            check_broadcast(input, other)
            dtype = dtypes.result_type([input, other])
            if dtype.category != dtypes.FLOATING:
                raise not_implemented_for(f"{name}_cpu", dtype)
        if name == "logaddexp":
            check_broadcast(input, other)
            dtype = dtypes.result_type([input, other])
            if dtype.is_complex:
                return _complex_logaddexp(input, other)
            if dtype.category != dtypes.FLOATING:
                raise not_implemented_for("logaddexp_cpu", dtype)
        return _floating_binary(node_def, input, other) if floating else binary(node_def, input, other)

    function.__name__ = function.__qualname__ = name
    op(name, nodes=(node_def,))(function)


_simple_binary("fmax", FMAX)
_simple_binary("fmin", FMIN)
_simple_binary("hypot", HYPOT, floating=True)
_simple_binary("logaddexp", LOGADDEXP, floating=True)
_simple_binary("logaddexp2", LOGADDEXP2, floating=True)
_simple_binary("nextafter", NEXTAFTER)


@op(nodes=(LDEXP,))
def ldexp(input: Tensor, other: Tensor) -> Tensor:
    # PyTorch computes input * 2 ** other
    dtype = float_result(dtypes.result_type([input, other]))
    check_broadcast(input, other)
    x, e = arrays((input, other), dtype)
    return record(LDEXP, (input, other), np.asarray(x * np.exp2(e), dtype=dtype._numpy), dtype)


@op()
def heaviside(input: Tensor, values: Tensor) -> Tensor:
    if input._dtype.is_complex or values._dtype.is_complex:
        raise RuntimeError("heaviside is not yet implemented for complex tensors.")
    if input._dtype is not values._dtype:
        raise RuntimeError("heaviside is not yet implemented for tensors with different dtypes.")
    if input._dtype in dtypes.BAREBONES_UNSIGNED:
        raise not_implemented_for("heaviside_cpu", input._dtype)
    check_broadcast(input, values)
    data = np.where(input._data == 0, values._data, (input._data > 0).astype(input._dtype._numpy))
    return record(NOT_IMPLEMENTED, (input, values), np.asarray(data, dtype=input._dtype._numpy), input._dtype,
                  _aten="heaviside")


def _integer_binary(name: str, function: Callable) -> None:
    def integers(input: Tensor, other: Tensor) -> Tensor:
        dtype = dtypes.result_type([input, other])
        if dtype.category > dtypes.INTEGRAL or dtype is dtypes.bool_:
            raise not_implemented_for(f"{name}_cpu", dtype)
        x, y = arrays((as_tensor(input), as_tensor(other)), dtype)
        return Tensor._make(np.asarray(function(x, y), dtype=dtype._numpy), dtype)

    integers.__name__ = integers.__qualname__ = name
    op(name)(integers)


_integer_binary("gcd", np.gcd)
_integer_binary("lcm", np.lcm)


@op(nodes=(XLOGY, XLOGY_SCALAR_SELF, XLOGY_SCALAR_OTHER))
def xlogy(input: Any = None, other: Any = None, self: Any = None) -> Tensor:
    a = self if input is None else input
    dtype = float_result(dtypes.result_type([a, other]))
    ta, tb = as_tensor(a), as_tensor(other)
    check_broadcast(ta, tb)
    refuse_complex("xlogy_cpu", dtype)
    x, y = arrays((ta, tb), dtype)
    data = np.where(np.isnan(y), np.nan, np.where(x == 0, 0.0, x * np.log(np.where(x == 0, 1, y))))
    data = np.asarray(data, dtype=dtype._numpy)
    if isinstance(a, Tensor) and isinstance(other, Tensor):
        return record(XLOGY, (a, other), data, dtype)
    if isinstance(a, Tensor):
        return record(XLOGY_SCALAR_OTHER, (a,), data, dtype, other=other)
    return record(XLOGY_SCALAR_SELF, (other,), data, dtype, self=a)


def _float_power_in_place(input: Tensor, exponent: Any) -> Tensor:
    wide = dtypes.complex128 if dtypes.result_type([input, exponent]).is_complex else dtypes.float64
    if input._dtype is not wide:
        raise RuntimeError(f"the base given to float_power_ has dtype {input._dtype._scalar_name} but the operation's "
                           f"result requires dtype {wide._scalar_name}")
    return float_power(input, exponent)


@op(inplace=make_inplace(lambda input, exponent: _float_power_in_place(input, exponent), name="float_power_"))
def float_power(input: Any = None, exponent: Any = None, self: Any = None) -> Tensor:
    """pow computed in double (complex double for complex operands)."""
    base = self if input is None else input
    wide = dtypes.complex128 if dtypes.result_type([base, exponent]).is_complex else dtypes.float64
    base = base.to(wide) if isinstance(base, Tensor) else base
    exponent = exponent.to(wide) if isinstance(exponent, Tensor) else exponent
    return base.pow(exponent) if isinstance(base, Tensor) else exponent.__rpow__(base)


def _addc(node_def: NodeDef, input: Tensor, tensor1: Tensor, tensor2: Tensor, value: Any, divide: bool) -> Tensor:
    dtype = dtypes.result_type([input, tensor1, tensor2])
    if divide and dtype.category <= dtypes.INTEGRAL:
        raise RuntimeError("Integer division with addcdiv is no longer supported, and in a future  release addcdiv "
                           "will perform a true division of tensor1 and tensor2. The historic addcdiv behavior can be "
                           "implemented as (input + value * torch.trunc(tensor1 / tensor2)).to(input.dtype) for "
                           "integer inputs and as (input + value * tensor1 / tensor2) for float inputs. The future "
                           "addcdiv behavior is just the latter implementation: (input + value * tensor1 / tensor2), "
                           "for all dtypes.")
    for t in (tensor1, tensor2):
        check_broadcast(input, t)
    if dtype is dtypes.bool_:
        raise not_implemented_for("addcmul_cpu_out", dtype)
    opmath_scalar(value, dtype)
    x, t1, t2 = arrays((input, tensor1, tensor2), dtype)
    function = kernels.addcdiv if divide else kernels.addcmul
    data = function(*np.broadcast_arrays(x, t1, t2), value)
    return record(node_def, (input, tensor1, tensor2), np.asarray(data, dtype=dtype._numpy), dtype, value=value)


@op(nodes=(ADDCMUL,))
def addcmul(input: Tensor, tensor1: Tensor, tensor2: Tensor, *, value: Any = 1) -> Tensor:
    return _addc(ADDCMUL, input, tensor1, tensor2, value, divide=False)


@op(nodes=(ADDCDIV,))
def addcdiv(input: Tensor, tensor1: Tensor, tensor2: Tensor, *, value: Any = 1) -> Tensor:
    return _addc(ADDCDIV, input, tensor1, tensor2, value, divide=True)

