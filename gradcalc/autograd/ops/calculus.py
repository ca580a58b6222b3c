"""Numerical integration and differentiation of sampled values: trapezoid (and trapz),
cumulative_trapezoid and gradient, composed of tensor ops as PyTorch composes them."""
from __future__ import annotations

from typing import Any, Optional, Sequence

from .. import dtypes
from ..tensor import Tensor, wrap_dim
from .arithmetic import div_scalar, mul_scalar
from .common import zeros
from .joining import cat
from .registry import op
from .shape import slice_dim


def _sides(y: Tensor, dim: int) -> tuple:
    return slice_dim(y, dim, 0, -1, 1), slice_dim(y, dim, 1, None, 1)


def _spacing(y: Tensor, x: Tensor, dim: int, name: str) -> Tensor:
    """The differences of the sample points, shaped to broadcast against y's pairs along dim."""
    if x.ndim == 1:
        if x.shape[0] != y.shape[dim]:
            raise RuntimeError(f"{name}: There must be one `x` value for each sample point")
        shape = [1] * y.ndim
        shape[dim] = x.shape[0]
        x = x.view(tuple(shape))
    elif x.ndim < y.ndim:
        x = x.view((1,) * (y.ndim - x.ndim) + tuple(x.shape))
    left, right = _sides(x, dim)
    return right - left


def _empty_along(y: Tensor, dim: int) -> Tensor:
    return zeros(tuple(size for d, size in enumerate(y.shape) if d != dim), dtype=y.dtype)


def _check_dx(y: Tensor, dx: Any, name: str) -> None:
    if y._dtype is dtypes.bool_:
        raise RuntimeError(f"{name}: received a bool input for `y`, but bool is not supported")
    if isinstance(dx, (bool, complex)):
        raise RuntimeError(f"{name}: Currently, we only support dx as a real number.")


@op()
def trapezoid(y: Tensor, x: Optional[Tensor] = None, *, dx: Any = 1, dim: int = -1) -> Tensor:
    d = wrap_dim(dim, y.ndim)
    if y.shape[d] == 0:
        return _empty_along(y, d)
    if x is not None:
        left, right = _sides(y, d)
        return div_scalar(((left + right) * _spacing(y, x, d, "trapezoid")).sum(d), 2.0)
    _check_dx(y, dx, "trapezoid")
    if y._dtype.category < dtypes.FLOATING:  # (an integer sum times 0.5 is a float)
        return (y.sum(d) - (y.select(d, 0) + y.select(d, -1)) * 0.5) * float(dx)
    return mul_scalar(y.sum(d) - mul_scalar(y.select(d, 0) + y.select(d, -1), 0.5), float(dx))


@op()
def trapz(y: Tensor, x: Optional[Tensor] = None, *, dx: float = 1, dim: int = -1) -> Tensor:
    return trapezoid(y, x, dx=dx, dim=dim)


@op()
def cumulative_trapezoid(y: Tensor, x: Optional[Tensor] = None, *, dx: Any = 1, dim: int = -1) -> Tensor:
    d = wrap_dim(dim, y.ndim)
    if y.shape[d] == 0:
        return zeros(y.shape, dtype=y.dtype)
    left, right = _sides(y, d)
    if x is not None:
        return div_scalar(((left + right) * _spacing(y, x, d, "cumulative_trapezoid")).cumsum(d), 2.0)
    _check_dx(y, dx, "cumulative_trapezoid")
    return mul_scalar(left + right, float(dx) / 2.0).cumsum(d)


def _uniform_gradient(f: Tensor, d: int, h: float, edge_order: int) -> Tensor:
    """numpy.gradient's second-order central differences inside, first- or second-order
    one-sided differences at the ends, for evenly spaced samples h apart."""
    n = f.shape[d]
    inner = (f.narrow(d, 2, n - 2) - f.narrow(d, 0, n - 2)) / (2 * h)
    if edge_order == 1:
        first = (f.narrow(d, 1, 1) - f.narrow(d, 0, 1)) / h
        last = (f.narrow(d, n - 1, 1) - f.narrow(d, n - 2, 1)) / h
    else:
        first = (f.narrow(d, 0, 1) * -1.5 + f.narrow(d, 1, 1) * 2 - f.narrow(d, 2, 1) * 0.5) / h
        last = (f.narrow(d, n - 3, 1) * 0.5 - f.narrow(d, n - 2, 1) * 2 + f.narrow(d, n - 1, 1) * 1.5) / h
    return cat([first, inner, last], d)


def _coordinate_gradient(f: Tensor, d: int, x: Tensor, edge_order: int) -> Tensor:
    """The same over unevenly spaced coordinates x (numpy.gradient's weights)."""
    n = f.shape[d]
    shape = [1] * f.ndim
    h = x.diff()
    hl, hr = h.narrow(0, 0, n - 2), h.narrow(0, 1, n - 2)
    shape[d] = n - 2
    a = (-hr / (hl * (hl + hr))).view(tuple(shape))
    b = ((hr - hl) / (hl * hr)).view(tuple(shape))
    c = (hl / (hr * (hl + hr))).view(tuple(shape))
    inner = a * f.narrow(d, 0, n - 2) + b * f.narrow(d, 1, n - 2) + c * f.narrow(d, 2, n - 2)
    first = (f.narrow(d, 1, 1) - f.narrow(d, 0, 1)) / h[0]
    last = (f.narrow(d, n - 1, 1) - f.narrow(d, n - 2, 1)) / h[-1]
    if edge_order == 2:
        h0, h1 = h[0], h[1]
        first = (-(2 * h0 + h1) / (h0 * (h0 + h1)) * f.narrow(d, 0, 1) + (h0 + h1) / (h0 * h1) * f.narrow(d, 1, 1)
                 - h0 / (h1 * (h0 + h1)) * f.narrow(d, 2, 1))
        h0, h1 = h[-2], h[-1]
        last = (h1 / (h0 * (h0 + h1)) * f.narrow(d, n - 3, 1) - (h0 + h1) / (h0 * h1) * f.narrow(d, n - 2, 1)
                + (2 * h1 + h0) / (h1 * (h0 + h1)) * f.narrow(d, n - 1, 1))
    return cat([first, inner, last], d)


@op()
def gradient(input: Tensor, *, spacing: Any = None, dim: Any = None, edge_order: int = 1) -> tuple:
    if edge_order not in (1, 2):
        raise RuntimeError("torch.gradient only supports edge_order=1 and edge_order=2.")
    dims = list(range(input.ndim)) if dim is None else [dim] if isinstance(dim, int) else list(dim)
    dims = [wrap_dim(d, input.ndim) for d in dims]
    spacings: Sequence = [1.0] * len(dims) if spacing is None else (
        list(spacing) if isinstance(spacing, (list, tuple)) else [spacing] * len(dims))
    if len(spacings) != len(dims):
        raise RuntimeError(f"torch.gradient expected spacing to be unspecified, a scalar or it's spacing and dim "
                           f"arguments to have the same length, but got a spacing argument of length "
                           f"{len(spacings)} and a dim argument of length {len(dims)}.")
    f = input if input._dtype.category >= dtypes.FLOATING else input.to(dtypes.get_default_dtype())
    results = []
    for d, h in zip(dims, spacings):
        if f.shape[d] < edge_order + 1:
            raise RuntimeError("torch.gradient expected each dimension size to be at least edge_order+1")
        if isinstance(h, Tensor) and h.ndim:
            results.append(_coordinate_gradient(f, d, h, edge_order))
        else:
            results.append(_uniform_gradient(f, d, float(h.item() if isinstance(h, Tensor) else h), edge_order))
    return tuple(results)
