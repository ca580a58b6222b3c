"""torch.special: its own functions (entr, erfcx, ndtr, log_ndtr, i0e, i1, i1e, xlog1py, the
incomplete gamma functions, Bessel and Airy functions, orthogonal polynomials) and the names it
shares with torch (special.expit is torch.sigmoid, special.gammaln torch.lgamma, ...), which
record the grad_fn of the torch op as in PyTorch."""
from __future__ import annotations

import math
from typing import Any, Callable

import numpy as np

from .. import bessel, dtypes, special_functions as special
from ..tensor import Tensor
from .arithmetic import add_scalar, binary, mul_scalar, unary_float
from .common import as_tensor, check_broadcast, float_result, refuse_complex
from .elementwise import I1
from .registry import ELEMENT_WISE, OPS, node, op, record


def _not_implemented(what: str) -> Callable:
    """A formula PyTorch declares not implemented: backward through it raises NotImplementedError."""
    def formula(grad: Tensor, self: Any, other: Any) -> Tensor:
        raise NotImplementedError(f"the derivative for '{what}' is not implemented.")

    return formula


def _i1e_grad(grad: Tensor, self: Tensor, result: Tensor) -> Tensor:
    return grad * (special_i0e(self) - result * (self.sgn() + self.reciprocal())).masked_fill(self == 0, 0.5)


def _xlog1py_scalar_grad(grad: Tensor, self: Tensor, other: float) -> Tensor:
    slope = grad * (math.log1p(other) if other > -1 else -math.inf if other == -1 else math.nan)
    return slope.masked_fill(self == 0, 0) if other <= -1 else slope


def _igamma_grad(grad: Tensor, self: Tensor, other: Tensor) -> Tensor:
    return grad * ((self - 1) * other.log() - other - self.lgamma()).exp()


ENTR = node("SpecialEntrBackward0", ("self",), forward=special.entr, jvp=ELEMENT_WISE,
            self=lambda grad, self: grad * -(1 + self.log()))
ERFCX = node("SpecialErfcxBackward0", ("self",), forward=special.erfcx, jvp=ELEMENT_WISE,
             self=lambda grad, self, result: (2 * self * result - 2 / math.sqrt(math.pi)) * grad)
I0E = node("SpecialI0EBackward0", ("self",), forward=lambda x: bessel.bessel_i_scaled(0, x), jvp=ELEMENT_WISE,
           self=lambda grad, self, result: grad * (special_i1e(self) - self.sgn() * result))
I1E = node("SpecialI1EBackward0", ("self",), forward=lambda x: bessel.bessel_i_scaled(1, x), jvp=ELEMENT_WISE,
           self=_i1e_grad)
LOG_NDTR = node("SpecialLogNdtrBackward0", ("self",), forward=special.log_ndtr, jvp=ELEMENT_WISE,
                self=lambda grad, self, result: grad / math.sqrt(2 * math.pi) * (result + self.pow(2) / 2).neg().exp())
NDTRI = node("SpecialNdtriBackward0", ("self",), forward=special.ndtri, jvp=ELEMENT_WISE,
             self=lambda grad, result: grad * math.sqrt(2 * math.pi) * (result.pow(2) / 2).exp())
XLOG1PY = node("SpecialXlog1PyBackward0", ("self", "other"), jvp=ELEMENT_WISE,
               self=lambda grad, self, other: grad * other.log1p().masked_fill((self == 0) & (other <= -1), 0),
               other=lambda grad, self, other: grad * self / (other + 1))
XLOG1PY_SCALAR_SELF = node("SpecialXlog1PyBackward1", ("other",), saved=("self",), jvp=ELEMENT_WISE,
                           other=lambda grad, self, other: grad * self / (other + 1))
XLOG1PY_SCALAR_OTHER = node("SpecialXlog1PyBackward2", ("self",), jvp=ELEMENT_WISE,
                            self=lambda grad, self, other: _xlog1py_scalar_grad(grad, self, other))
ZETA = node("SpecialZetaBackward0", ("self", "other"), jvp=ELEMENT_WISE, self=_not_implemented("zeta"),
            other=_not_implemented("zeta"))
ZETA_SCALAR_SELF = node("SpecialZetaBackward1", ("other",), jvp=ELEMENT_WISE, other=_not_implemented("zeta"))
ZETA_SCALAR_OTHER = node("SpecialZetaBackward2", ("self",), jvp=ELEMENT_WISE,
                         self=lambda grad: _not_implemented("zeta")(grad, None, None))
IGAMMA = node("IgammaBackward0", ("self", "other"), jvp=ELEMENT_WISE, self=_not_implemented("igamma: input"),
              other=_igamma_grad)
IGAMMAC = node("IgammacBackward0", ("self", "other"), jvp=ELEMENT_WISE, self=_not_implemented("igammac: input"),
               other=lambda grad, self, other: -_igamma_grad(grad, self, other))


def _unary(name: str, node_def: Any) -> None:
    def function(input: Tensor) -> Tensor:
        return unary_float(node_def, input)

    function.__name__ = function.__qualname__ = name
    op(name, nodes=(node_def,), module="special")(function)


for _name, _node in (("entr", ENTR), ("erfcx", ERFCX), ("i0e", I0E), ("i1", I1), ("i1e", I1E),
                     ("log_ndtr", LOG_NDTR), ("ndtri", NDTRI)):
    _unary(_name, _node)
del _name, _node


def special_i0e(x: Tensor) -> Tensor:
    return unary_float(I0E, x)


def special_i1e(x: Tensor) -> Tensor:
    return unary_float(I1E, x)


@op(module="special")
def ndtr(input: Tensor) -> Tensor:
    # PyTorch's composite: (1 + erf(x / sqrt 2)) * 0.5, recording each step
    x = input if input._dtype.category >= dtypes.FLOATING else input.to(float_result(input._dtype))
    return mul_scalar(add_scalar(mul_scalar(x, math.sqrt(0.5)).erf(), 1), 0.5)


def _binary_float(name: str, node_def: Any, scalar_self: Any, scalar_other: Any, forward: Callable) -> Callable:
    """A binary special function with PyTorch's three overloads (Tensor-Tensor, Scalar-Tensor,
    Tensor-Scalar), each with its own node."""
    def function(input: Any = None, other: Any = None, self: Any = None) -> Tensor:
        first = self if input is None else input
        dtype = float_result(dtypes.result_type([first, other]))
        a, b = as_tensor(first, dtype), as_tensor(other, dtype)
        check_broadcast(a, b)
        refuse_complex(f"{name}_cpu", dtype)
        compute = dtypes.float64 if dtype in (dtypes.float32, dtypes.float16) else dtype
        data = np.asarray(forward(a._data.astype(compute._numpy), b._data.astype(compute._numpy)), dtype=dtype._numpy)
        if not isinstance(first, Tensor):
            return record(scalar_self, (b,), data, dtype, self=first)
        if not isinstance(other, Tensor):
            return record(scalar_other, (a,), data, dtype, other=other)
        return record(node_def, (a, b), data, dtype)

    return function


def _xlog1py(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where((x == 0) & ~np.isnan(y), 0.0, x * np.log1p(y))


op("xlog1py", module="special")(_binary_float("xlog1py", XLOG1PY, XLOG1PY_SCALAR_SELF, XLOG1PY_SCALAR_OTHER, _xlog1py))
op("zeta", module="special")(_binary_float("zeta", ZETA, ZETA_SCALAR_SELF, ZETA_SCALAR_OTHER, special.zeta))


def _incomplete_gamma(name: str, node_def: Any, forward: Callable) -> None:
    def function(input: Tensor, other: Tensor) -> Tensor:
        dtype = float_result(dtypes.result_type([input, other]))
        check_broadcast(input, other)
        refuse_complex(f"{name}_cpu", dtype)
        a, x = np.broadcast_arrays(input._data.astype(np.float64), other._data.astype(np.float64))
        return record(node_def, (input, other), np.asarray(forward(a, x), dtype=dtype._numpy), dtype)

    function.__name__ = function.__qualname__ = name
    op(name, nodes=(node_def,))(function)
    op("gammainc" if name == "igamma" else "gammaincc", module="special")(function)


_incomplete_gamma("igamma", IGAMMA, special.gammainc)
_incomplete_gamma("igammac", IGAMMAC, special.gammaincc)


# ------------------------------------------------------------------ without derivatives

def _constant(name: str, forward: Callable) -> None:
    """A function PyTorch gives no derivative: its result never requires grad."""
    def function(input: Any = None, x: Any = None) -> Tensor:  # some signatures name the tensor x
        tensor = x if input is None else input
        dtype = float_result(tensor._dtype)
        refuse_complex(f"{name}_cpu", dtype)
        return Tensor._make(np.asarray(forward(tensor._data.astype(np.float64)), dtype=dtype._numpy), dtype)

    function.__name__ = function.__qualname__ = name
    op(name, module="special")(function)


for _name, _forward in (
        ("airy_ai", bessel.airy_ai), ("bessel_j0", lambda v: bessel.bessel_j(0, v)),
        ("bessel_j1", lambda v: bessel.bessel_j(1, v)), ("bessel_y0", lambda v: bessel.bessel_y(0, v)),
        ("bessel_y1", lambda v: bessel.bessel_y(1, v)), ("modified_bessel_i0", lambda v: bessel.bessel_i(0, v)),
        ("modified_bessel_i1", lambda v: bessel.bessel_i(1, v)), ("modified_bessel_k0", lambda v: bessel.bessel_k(0, v)),
        ("modified_bessel_k1", lambda v: bessel.bessel_k(1, v)),
        ("scaled_modified_bessel_k0", lambda v: bessel.bessel_k_scaled(0, v)),
        ("scaled_modified_bessel_k1", lambda v: bessel.bessel_k_scaled(1, v)),
        ("spherical_bessel_j0", bessel.spherical_bessel_j0)):
    _constant(_name, _forward)
del _name, _forward


def _polynomial(name: str) -> None:
    kind = name.replace("_polynomial", "")

    def function(x: Any, n: Any) -> Tensor:
        dtype = float_result(dtypes.result_type([x, n]))
        refuse_complex(f"{name}_cpu", dtype)
        values = special.orthogonal_polynomial(kind, as_tensor(x)._data, as_tensor(n)._data)
        return Tensor._make(np.asarray(values, dtype=dtype._numpy), dtype)

    function.__name__ = function.__qualname__ = name
    op(name, module="special")(function)


for _name in ("chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v", "chebyshev_polynomial_w",
              "shifted_chebyshev_polynomial_t", "shifted_chebyshev_polynomial_u", "shifted_chebyshev_polynomial_v",
              "shifted_chebyshev_polynomial_w", "hermite_polynomial_h", "hermite_polynomial_he",
              "laguerre_polynomial_l", "legendre_polynomial_p"):
    _polynomial(_name)
del _name


# ------------------------------------------------------------------ torch's own, under special's names

for _special_name, _torch_name in (("digamma", "digamma"), ("psi", "digamma"), ("erf", "erf"), ("erfc", "erfc"),
                                   ("erfinv", "erfinv"), ("exp2", "exp2"), ("expit", "sigmoid"), ("expm1", "expm1"),
                                   ("gammaln", "lgamma"), ("i0", "i0"), ("log1p", "log1p"), ("logit", "logit"),
                                   ("logsumexp", "logsumexp"), ("multigammaln", "mvlgamma"),
                                   ("polygamma", "polygamma"), ("sinc", "sinc"),
                                   ("softmax", "softmax"), ("log_softmax", "log_softmax"), ("xlogy", "xlogy")):
    op(_special_name, module="special")(OPS[("torch", _torch_name)].impl)
del _special_name, _torch_name


@op("round", module="special")
def special_round(input: Tensor, *, decimals: int = 0) -> Tensor:
    return OPS[("torch", "round")].impl(input, decimals=decimals)  # always the decimals overload
