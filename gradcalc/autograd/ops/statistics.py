"""Norms, standard deviation and variance, in the order of PyTorch's CPU kernels."""
from __future__ import annotations

import math
from typing import Any, Optional

import numpy as np

from .. import dtypes, kernels
from ..native import kernels as native
from ..dtypes import DType
from ..tensor import Tensor, wrap_dim
from ...warnings import warn
from .common import check_broadcast, normalize_dims, reduction_dims, unsqueeze_reduced, zeros_like
from .indexing import where
from .pointwise import sgn
from .reduction import MISSING, mean
from .registry import node, op, record

NORM = node("LinalgVectorNormBackward0", ("self",),
            self=lambda grad, self, result, ord, dim, keepdim: _norm_grad(grad, self, result, ord,
                                                                          reduction_dims(dim, self.ndim), keepdim))
# (PyTorch's std and var backward read an empty list of dims as no dims, unlike their forward)
STD = node("StdBackward0", ("self",),
           self=lambda grad, self, result, dim, correction, keepdim: _var_grad(
               (grad / (result * 2)).masked_fill(result == 0, 0), self, normalize_dims(dim, self.ndim), correction,
               keepdim))
VAR = node("VarBackward0", ("self",),
           self=lambda grad, self, dim, correction, keepdim: _var_grad(grad, self, normalize_dims(dim, self.ndim),
                                                                       correction, keepdim))


def _norm_grad(grad: Tensor, self: Tensor, result: Tensor, ord: float, dims: Optional[tuple],
               keepdim: bool) -> Tensor:
    # PyTorch's norm_backward, one branch per order
    grad, result = (unsqueeze_reduced(t, dims, self.ndim, keepdim) for t in (grad, result))
    if ord == 0:
        return zeros_like(self)
    if ord == 1:
        return sgn(self) * grad
    if ord == 2:
        return grad * (self / result).masked_fill(result == 0, 0)
    if math.isinf(ord):
        self_abs = self.abs()
        mask = (self_abs == result) | (self_abs != self_abs)
        counts = mask.sum(dims, keepdim=True) if dims is not None else mask.sum()
        return sgn(self) * ((grad / counts) * mask)
    if ord < 1:
        scaled = sgn(self) * self.abs().pow(ord - 1).masked_fill(self == 0, 0)
        return scaled * grad * result.pow(1 - ord)
    scaled = sgn(self) * self.abs().pow(ord - 1) if ord < 2 else self * self.abs().pow(ord - 2)
    return scaled * (grad / result.pow(ord - 1)).masked_fill(result == 0, 0)


def _var_grad(grad: Tensor, self: Tensor, dims: Optional[tuple], correction: float, keepdim: bool) -> Tensor:
    # PyTorch's var_backward: (2 / (n - correction)) * grad * (self - mean)
    if self.ndim == 0 or dims is None:
        dof = self.numel() - correction
        if dof <= 0:
            return grad * where(self == self.mean(), math.nan, math.inf)
        return (2.0 / dof) * grad * (self - self.mean())
    if self.ndim > 1:
        grad = unsqueeze_reduced(grad, dims, self.ndim, keepdim)
    count = int(np.prod([self.shape[d] for d in dims]))
    dof = count - correction
    scale = 2.0 / dof if dof else math.inf  # a C++ double division: no degrees of freedom give inf
    return scale * grad * (self - self.mean(dims, keepdim=True))


def check_norm_dtype(dtype: DType, input_dtype: DType, name: str) -> None:
    """ATen's check_linalg_norm_dtype: a floating dtype, complex for complex inputs only, and no narrowing."""
    if dtype.category < dtypes.FLOATING:
        raise RuntimeError(f"{name}: dtype should be floating point or complex, but got {dtype._scalar_name}")
    if input_dtype.is_complex != dtype.is_complex:
        kind = "complex" if input_dtype.is_complex else "real"
        raise RuntimeError(f"{name}: dtype should be {kind} for {kind} inputs, but got {dtype._scalar_name}")
    if dtypes.promote_types(input_dtype, dtype) is not dtype:
        raise RuntimeError(f"{name}: the dtype of the input ({input_dtype._scalar_name}) should be convertible "
                           f"without narrowing to the specified dtype ({dtype._scalar_name})")


def vector_norm(a: Tensor, ord: Any = 2, dim: Any = None, keepdim: bool = False,
                dtype: Optional[DType] = None) -> Tensor:
    if a._dtype.category < dtypes.FLOATING:
        raise RuntimeError("linalg.vector_norm: Expected a floating point or complex tensor as input. Got "
                           f"{a._dtype._scalar_name}")
    out_dtype = (dtype.to_real() if dtype is not None else None) or (dtypes.float32 if a._dtype is dtypes.complex64 else
                          dtypes.float64 if a._dtype is dtypes.complex128 else a._dtype)
    dims = reduction_dims(dim, a.ndim)
    if a.numel() == 0 and (ord < 0 or ord == math.inf):  # no identity to start a min or max from
        shown = ord if isinstance(ord, int) else format(ord, "g")
        if not dims:
            raise RuntimeError(f"linalg.vector_norm cannot compute the {shown} norm on an empty tensor because the "
                               "operation does not have an identity")
        for given in (dim,) if isinstance(dim, int) else dim:
            if a.shape[wrap_dim(given, a.ndim)] == 0:
                raise RuntimeError(f"linalg.vector_norm cannot compute the {shown} norm on the dimension {given}"
                                   "because this dimension is empty and the operation does not have an identity")
    if dtype is not None:
        check_norm_dtype(dtype, a._dtype, "linalg.vector_norm")
    axes = tuple(range(a.ndim)) if dims is None else dims
    magnitude = np.abs(a._data)
    ord = float(ord)
    reduced_shape = np.sum(magnitude, axis=axes, keepdims=keepdim).shape
    # the reduced elements of each output along the last axis, in the order the kernel visits them
    moved = np.moveaxis(magnitude, axes, range(-len(axes), 0)) if axes else magnitude[..., None]
    kept = moved.shape[:moved.ndim - len(axes)]
    rows = moved.reshape(kept + (int(np.prod(moved.shape[len(kept):], dtype=np.int64)),)) if axes else moved
    if ord == 1 or (ord == 2 and magnitude.dtype.type is np.float32 and rows.shape[-1]):
        last = axes == (a.ndim - 1,) or len(axes) == a.ndim
        data = _norm2_rows(rows, contiguous=last and a.is_contiguous()) if ord == 2 else (
            np.cumsum(rows, axis=-1)[..., -1] if rows.shape[-1] else np.zeros(rows.shape[:-1], rows.dtype))
        data = data.reshape(reduced_shape)
    elif math.isinf(ord):
        reduce = np.max if ord > 0 else np.min
        data = reduce(magnitude, axis=axes, keepdims=keepdim) if magnitude.size else np.full(
            np.sum(magnitude, axis=axes, keepdims=keepdim).shape, 0.0 if ord > 0 else math.inf)
    elif ord == 0:
        data = np.sum(magnitude != 0, axis=axes, keepdims=keepdim)
    else:
        wide = magnitude.astype(np.float64)
        data = np.power(np.sum(np.power(wide, ord), axis=axes, keepdims=keepdim), 1.0 / ord)
    data = np.asarray(data, dtype=out_dtype._numpy)
    source = a if dtype is None or a._dtype is dtype else a.to(dtype)
    return record(NORM, (source,), data, out_dtype, ord=ord, dim=dim, keepdim=keepdim)


def _norm2_rows(rows: np.ndarray, contiguous: bool) -> np.ndarray:
    """The float32 2-norm of each row (last axis). Along contiguous memory PyTorch's kernel squares
    eight at a time into eight running sums, adds those in order, then fuses in the leftover
    squares; otherwise it keeps one running sum per output."""
    if not contiguous:
        total = np.zeros(rows.shape[:-1], rows.dtype)
        for k in range(rows.shape[-1]):
            total = total + rows[..., k] * rows[..., k]
        return np.sqrt(total)
    lanes, size = 8, rows.shape[-1]
    full = size - size % lanes
    acc = np.zeros(rows.shape[:-1] + (lanes,), rows.dtype)
    for start in range(0, full, lanes):
        block = rows[..., start:start + lanes]
        acc = acc + block * block
    total = acc[..., 0]
    for k in range(1, lanes):
        total = total + acc[..., k]
    for k in range(full, size):
        total = kernels.fused_multiply_add(rows[..., k], rows[..., k], total)
    return np.sqrt(total)


def _std_var(a: Tensor, dim: Any, unbiased: Any, keepdim: bool, correction: Any, take_sqrt: bool) -> Tensor:
    name = "std" if take_sqrt else "var"
    if dim is MISSING:
        dim = None
    if correction is None:
        correction = 0 if unbiased is False else 1
    if a._dtype.category < dtypes.FLOATING:
        raise RuntimeError("std and var only support floating point and complex dtypes")
    dims = reduction_dims(dim, a.ndim)
    axes = tuple(range(a.ndim)) if dims is None else dims
    count = int(np.prod([a.shape[d] for d in axes])) if axes else 1
    # a complex tensor's spread is two real ones in PyTorch, each warning
    for _ in range(2 if a._dtype.is_complex and count - correction <= 0 else int(count - correction <= 0)):
        warn("UserWarning", f"{name}(): degrees of freedom is <= 0. Correction should be strictly less than the "
                            "reduction factor (input numel divided by output numel).",
                            at="aten/src/ATen/native/ReduceOps.cpp:1861")
    if a._dtype.is_complex:
        # as PyTorch: the variances of the real and imaginary parts, each in the real dtype, added
        real = a._dtype.to_real()
        parts = [_spread(Tensor._make(np.ascontiguousarray(part), real), axes, keepdim, count, correction)
                 .astype(real._numpy) for part in (a._data.real, a._data.imag)]
        total = parts[0] + parts[1]
        data = np.asarray(np.sqrt(total) if take_sqrt else total, dtype=real._numpy)
        return record(STD if take_sqrt else VAR, (a,), data, real, dim=dim, correction=correction, keepdim=keepdim)
    result = _spread(a.detach(), axes, keepdim, count, correction)
    data = np.asarray(np.sqrt(result) if take_sqrt else result, dtype=a._dtype._numpy)
    return record(STD if take_sqrt else VAR, (a,), data, a._dtype, dim=dim, correction=correction, keepdim=keepdim)


_FEW_ROWS = 16


def _welford_squares(row: list) -> float:
    """The sum of squared deviations of one row by Welford's updates, in the same double
    arithmetic as the whole-array loop of _spread."""
    running = total = 0.0
    for k, value in enumerate(row, 1):
        delta = value - running
        running = running + delta / k
        total = total + delta * (value - running)
    return total


def _spread(a: Tensor, axes: tuple, keepdim: bool, count: int, correction: float) -> np.ndarray:
    """The variance of a real tensor's values over `axes` in float64, as PyTorch's kernel sums it."""
    wide = a._data.astype(np.float64)
    if len(axes) == a.ndim:
        # all dimensions: the tensor's own mean, then squared deviations summed in double precision
        deviation = wide - float(mean(a)._data)  # (its values: a meta tensor holds zeros)
        squares = np.cumsum((deviation * deviation).reshape(-1))
        total = np.full(np.sum(wide, axis=axes, keepdims=keepdim).shape, squares[-1] if squares.size else 0.0)
    else:
        # Welford's running mean and sum of squared deviations, in double precision
        moved = np.moveaxis(wide, axes, range(-len(axes), 0))
        rows = moved.reshape(moved.shape[:moved.ndim - len(axes)] + (count,))  # not -1: sizes may be 0
        if 0 < count and native is not None:
            total = np.empty(rows.size // count)
            native.welford_squares(np.ascontiguousarray(rows.reshape(-1, count)), total)
        elif 0 < count and rows.size <= _FEW_ROWS * count:  # a few rows: a loop of floats costs less than numpy's calls
            total = np.array([_welford_squares(row) for row in rows.reshape(-1, count).tolist()])
        else:
            running, total = np.zeros(rows.shape[:-1]), np.zeros(rows.shape[:-1])
            for k in range(rows.shape[-1]):
                delta = rows[..., k] - running
                running = running + delta / (k + 1)
                total = total + delta * (rows[..., k] - running)
        total = total.reshape(np.sum(wide, axis=axes, keepdims=keepdim).shape)
    return total / max(0, count - correction)


@op(nodes=(STD,))
def std(input: Tensor, dim: Any = MISSING, unbiased: Any = None, keepdim: bool = False, *,
        correction: Any = None) -> Tensor:
    return _std_var(input, dim, unbiased, keepdim, correction, take_sqrt=True)


@op(nodes=(VAR,))
def var(input: Tensor, dim: Any = MISSING, unbiased: Any = None, keepdim: bool = False, *,
        correction: Any = None) -> Tensor:
    return _std_var(input, dim, unbiased, keepdim, correction, take_sqrt=False)


DIST = node("DistBackward0", ("self", "other"),
            self=lambda grad, self, other, p, result: _norm_grad(grad, self - other, result, float(p), None, False),
            other=lambda grad, self, other, p, result: -_norm_grad(grad, self - other, result, float(p), None, False))
RENORM = node("RenormBackward0", ("self",),
              self=lambda grad, self, p, dim, maxnorm: _renorm_grad(grad, self, p, dim, maxnorm))


@op()
def nanmean(input: Tensor, dim: Any = None, keepdim: bool = False, *, dtype: Optional[DType] = None) -> Tensor:
    if input._dtype.category < dtypes.FLOATING:
        raise RuntimeError(f"nanmean(): expected input to have floating point or complex dtype but got "
                           f"{input._dtype._scalar_name}")
    if dtype is not None and dtype.category < dtypes.FLOATING:
        raise RuntimeError("nanmean(): could not infer output dtype. Optional dtype must be either a floating point "
                           f"or complex dtype. Got: {dtype._scalar_name}")
    # as ATen: the same dims (all of them for None) and keepdim for both
    return input.nansum(dim, keepdim, dtype=dtype) / input.isnan().logical_not().sum(dim, keepdim)


def _std_var_mean(input: Tensor, dim: Any, unbiased: Any, keepdim: bool, correction: Any, take_sqrt: bool) -> Any:
    if input._dtype.category < dtypes.FLOATING:
        raise RuntimeError(f"{'std_mean' if take_sqrt else 'var_mean'} only support floating point and complex dtypes")
    spread = _std_var(input, dim, unbiased, keepdim, correction, take_sqrt)
    center = input.mean() if dim is MISSING or dim is None else input.mean(dim, keepdim)
    return spread, center


@op(method=False)
def std_mean(input: Tensor, dim: Any = MISSING, unbiased: Any = None, keepdim: bool = False, *,
             correction: Any = None) -> Any:
    return _std_var_mean(input, dim, unbiased, keepdim, correction, take_sqrt=True)


@op(method=False)
def var_mean(input: Tensor, dim: Any = MISSING, unbiased: Any = None, keepdim: bool = False, *,
             correction: Any = None) -> Any:
    return _std_var_mean(input, dim, unbiased, keepdim, correction, take_sqrt=False)


@op(nodes=(DIST,))
def dist(input: Tensor, other: Tensor, p: Any = 2) -> Tensor:
    check_broadcast(input, other)
    dtype = dtypes.result_type([input, other])
    if input._dtype is dtypes.bool_ and other._dtype is dtypes.bool_:  # (ATen's composite subtracts first)
        raise RuntimeError("Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` or "
                           "`logical_xor()` operator instead.")
    if dtype.category < dtypes.FLOATING:
        raise RuntimeError(f"norm(): input dtype should be either floating point or complex. Got {dtype._scalar_name} "
                           "instead.")
    difference = (input._data - other._data).astype(np.complex128 if dtype.is_complex else np.float64)
    norm = vector_norm(Tensor._make(np.asarray(difference, dtype=dtype._numpy), dtype), float(p))
    return record(DIST, (input, other), norm._data, norm._dtype, p=p)


def _renorm_grad(grad: Tensor, self: Tensor, p: Any, dim: int, maxnorm: Any) -> Tensor:
    d = dim % self.ndim
    reduced = tuple(i for i in range(self.ndim) if i != d)
    norms = self.norm(p, reduced, keepdim=True)
    scale = (maxnorm / (norms + 1e-7)).masked_fill(norms <= maxnorm, 1.0)
    # the scale is a function of self too, where it applies
    inner = (grad * self).sum(reduced, keepdim=True)
    correction = (inner * (-maxnorm / ((norms + 1e-7) ** 2))
                  * _norm_grad(Tensor._make(np.ones(norms.shape, dtype=norms._dtype._numpy), norms._dtype), self,
                               norms, float(p), reduced, True))
    return grad * scale + correction.masked_fill(norms <= maxnorm, 0)


@op(nodes=(RENORM,))
def renorm(input: Tensor, p: Any, dim: int, maxnorm: Any) -> Tensor:
    if p <= 0:
        raise RuntimeError("renorm: non-positive-norm not supported")
    if not maxnorm >= 0:
        raise RuntimeError(f"renorm: expected maxnorm to be >= 0 but got {maxnorm}")
    if input.ndim <= 1:
        raise RuntimeError(f"renorm: input needs at least 2 dimensions, got {input.ndim} dimensions")
    d = wrap_dim(dim, input.ndim)
    if input._dtype.category < dtypes.FLOATING:  # (the norms' linalg.vector_norm)
        raise RuntimeError(f"linalg.vector_norm: Expected a floating point or complex tensor as input. Got "
                           f"{input._dtype._scalar_name}")
    x = input._data.astype(np.complex128 if input._dtype.is_complex else np.float64)
    reduced = tuple(i for i in range(input.ndim) if i != d)
    norms = np.sum(np.abs(x) ** float(p), axis=reduced, keepdims=True) ** (1 / float(p))
    scale = np.where(norms > maxnorm, maxnorm / (norms + 1e-7), 1.0)
    data = np.asarray(x * scale, dtype=input._dtype._numpy)
    return record(RENORM, (input,), data, input._dtype, p=p, dim=dim, maxnorm=maxnorm)


@op()
def cov(input: Tensor, *, correction: int = 1, fweights: Optional[Tensor] = None,
        aweights: Optional[Tensor] = None) -> Tensor:
    if input.ndim > 2:
        raise RuntimeError(f"cov(): expected input to have two or fewer dimensions but got an input with "
                           f"{input.ndim} dimensions")
    if input._dtype is dtypes.bool_:
        raise RuntimeError("cov(): bool dtype is not supported for input")
    observations = input if input.ndim == 2 else input.reshape((1, -1))
    count = observations.shape[1]
    weights = None
    if fweights is not None:
        weights = fweights
    if aweights is not None:
        weights = aweights if weights is None else weights * aweights
    if weights is None:
        # ATen's: the sum of each row over the observations' count, a Long (a true division)
        average = (observations.sum(1) / Tensor._make(np.asarray(count, np.int64), dtypes.int64)).unsqueeze(1)
        total_weight = count
        correction_term = correction
    else:
        total_weight = weights.sum()
        average = (observations * weights).sum(1, keepdim=True) / total_weight
        correction_term = correction if aweights is None else correction * (weights * aweights).sum() / total_weight
    centered = observations - average
    weighted = centered if weights is None else centered * weights
    result = weighted.mm(centered.t().conj()) / (total_weight - correction_term)
    return result.squeeze()


@op()
def corrcoef(input: Tensor) -> Tensor:
    covariance = cov(input)
    if covariance.ndim == 0:
        return covariance / covariance
    deviations = covariance.diagonal().sqrt()
    result = covariance / deviations.unsqueeze(1) / deviations.unsqueeze(0)
    return result.clamp(-1, 1)
