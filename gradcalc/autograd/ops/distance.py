"""pdist: the p-norm distances between the rows of a matrix, as ATen's CPU kernel computes them
(each distance reduced over SIMD lanes, and the gradient gathered row after row)."""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from .. import dtypes, grad_mode, simd
from . import statistics
from ..forward_mode import unsupported
from ..tensor import Tensor
from .common import broadcast_shapes
from .joining import cat
from .parser import parser
from .registry import node, op, record


def _vector_pow(x: np.ndarray, exponent: Any) -> np.ndarray:
    """Vectorized<scalar_t>::pow: SLEEF's powf for float32."""
    if x.dtype == np.float32:
        return simd.vector_pow(x, np.float32(exponent))
    return np.power(x, exponent)


def _pair_indices(n: int) -> tuple:
    """The (i, j) of each pdist entry, i < j, in row-major order of the upper triangle."""
    return np.triu_indices(n, 1)


def _lane_reduced(values: np.ndarray, p: float) -> np.ndarray:
    """ATen's map2_reduce_all over each pair's differences: a lane sum, or a lane max for p = inf."""
    if math.isinf(p):
        return values.max(axis=-1) if values.shape[-1] else np.zeros(values.shape[:-1], values.dtype)
    return simd.lane_sum(values)


def _distances(x: np.ndarray, p: float) -> np.ndarray:
    i, j = _pair_indices(x.shape[0])
    diff = np.abs(x[i] - x[j])
    kind = x.dtype.type
    if p == 0:
        return _lane_reduced((diff != 0).astype(x.dtype), p)
    if p == 1:
        return _lane_reduced(diff, p)
    if p == 2:
        return np.sqrt(_lane_reduced(diff * diff, p))
    if math.isinf(p):
        return _lane_reduced(diff, p)
    # the powers are the SIMD kernel's; the root is std::pow(agg, 1.0 / p), in double
    total = _lane_reduced(_vector_pow(diff, kind(p)), p)
    return np.power(total.astype(np.float64), 1.0 / float(kind(p))).astype(x.dtype)


def _pair_gradients(diff: np.ndarray, grad: np.ndarray, dist: np.ndarray, p: float) -> np.ndarray:
    """ATen's per-pair backward of each p: grad * diff / dist for p = 2, grad * sign(diff) for p = 1, ..."""
    kind = diff.dtype.type
    grad, dist = grad[:, None], dist[:, None]
    with np.errstate(divide="ignore", invalid="ignore"):
        if p == 0:
            return np.zeros_like(diff)
        if p == 1:
            return grad * np.sign(diff)
        if p == 2:
            return np.where(dist == 0, kind(0), grad * diff / dist)
        if math.isinf(p):
            return grad * np.sign(diff) * (np.abs(diff) == dist)
        # the exponents are the kernel's, p - 1 and p - 2 taken in the tensor's dtype
        below, below_two = kind(p) - kind(1), kind(p) - kind(2)
        if p < 2:
            return np.where((dist == 0) | (diff == 0), kind(0),
                            np.sign(diff) * _vector_pow(np.abs(diff), below) * grad / _vector_pow(dist, below))
        return np.where(dist == 0, kind(0),
                        diff * _vector_pow(np.abs(diff), below_two) * grad / _vector_pow(dist, below))


def _pdist_grad(grad: Tensor, self: Tensor, p: float, result: Tensor) -> Tensor:
    """Each row gathers, in order, minus its pairs with the rows before it, then its pairs with the rows after."""
    x = self._data
    n = x.shape[0]
    out = np.zeros_like(x)
    if n > 1 and x.shape[1]:
        i, j = _pair_indices(n)
        pairs = _pair_gradients(x[i] - x[j], grad._data.reshape(-1), result._data.reshape(-1), p)
        for k, (row, other) in enumerate(zip(i, j)):
            out[row] += pairs[k]
            out[other] -= pairs[k]
    return Tensor._make(out, self._dtype)


PDIST = node("PdistBackward0", ("self",), jvp=unsupported("_pdist_forward"), self=lambda grad, self, p, result: _pdist_grad(grad, self, p, result))


def _in_kernel_type(p: Any, dtype: dtypes.DType) -> float:
    """A distance's p as its kernel holds it, in the tensors' float type: past float's range,
    infinite (the infinity norm then)."""
    if dtype is dtypes.float64:
        return p
    with np.errstate(over="ignore"):
        return float(np.float32(p))


@op(method=False, nodes=(PDIST,))
def pdist(input: Tensor, p: Any = 2) -> Tensor:
    if input.ndim != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {input.ndim}D")
    if input.dtype.category != dtypes.FLOATING:
        raise RuntimeError("pdist only supports floating-point dtypes")
    if not p >= 0:  # (TORCH_CHECK(p >= 0): NaN fails it)
        raise RuntimeError("pdist only supports non-negative p values")
    if input._dtype not in (dtypes.float32, dtypes.float64):  # (the kernel's dispatch)
        raise NotImplementedError(f"\"pdist\" not implemented for '{input._dtype._scalar_name}'")
    p = _in_kernel_type(p, input._dtype)
    x = input._data
    n, m = x.shape
    if n <= 1:
        data = np.zeros(0, x.dtype)
    elif m == 0:
        data = np.zeros(n * (n - 1) // 2, x.dtype)
    else:
        data = _distances(np.ascontiguousarray(x), float(p))
    return record(PDIST, (input,), np.asarray(data, x.dtype), input._dtype, p=float(p))




# ---------------------------------------------------------------- cdist

def _cdist_values(x1: np.ndarray, x2: np.ndarray, p: float) -> np.ndarray:
    """ATen's run_parallel_cdist: each distance a scalar loop over the columns, in the inputs' dtype."""
    diff = np.abs(x1[..., :, None, :] - x2[..., None, :, :])
    kind = x1.dtype.type
    agg = np.zeros(diff.shape[:-1], x1.dtype)
    for column in range(diff.shape[-1]):
        d = diff[..., column]
        if p == 0:
            agg = agg + (d != 0).astype(x1.dtype)
        elif p == 1:
            agg = agg + d
        elif p == 2:
            agg = agg + d * d
        elif math.isinf(p):
            agg = np.maximum(agg, d)
        else:  # std::pow of the dtype, correctly rounded as glibc's powf nearly always is
            agg = agg + np.power(d.astype(np.float64), float(kind(p))).astype(x1.dtype)
    if p == 2:
        return np.sqrt(agg)
    if p in (0, 1) or math.isinf(p):
        return agg
    return np.power(agg.astype(np.float64), 1.0 / float(kind(p))).astype(x1.dtype)


def _cdist_grad(grad: np.ndarray, x1: np.ndarray, x2: np.ndarray, dist: np.ndarray, p: float) -> np.ndarray:
    """_cdist_backward for x1 (broadcast to the batch): each row gathers its pairs' gradients in order."""
    out = np.zeros(x1.shape, x1.dtype)
    if x1.shape[-1] == 0:
        return out
    for j in range(x2.shape[-2]):
        diff = x1 - x2[..., j:j + 1, :]
        pairs = _pair_gradients(diff.reshape(-1, diff.shape[-1]), grad[..., j].reshape(-1),
                                dist[..., j].reshape(-1), p)
        out = out + pairs.reshape(x1.shape)
    return out


def _summed_to(values: np.ndarray, shape: tuple) -> np.ndarray:
    """A gradient of a broadcast input, summed back to its shape (the engine's sum_to)."""
    lead = values.ndim - len(shape)
    values = values.sum(axis=tuple(range(lead))) if lead else values
    axes = tuple(i for i, size in enumerate(shape) if size == 1 and values.shape[i] != 1)
    return values.sum(axis=axes, keepdims=True) if axes else values


def _batched(x1: Tensor, x2: Tensor) -> tuple:
    batch = broadcast_shapes(tuple(x1.shape[:-2]), tuple(x2.shape[:-2]))
    return (np.broadcast_to(x1._data, batch + tuple(x1.shape[-2:])),
            np.broadcast_to(x2._data, batch + tuple(x2.shape[-2:])))


def _cdist_x1(grad: Tensor, x1: Tensor, x2: Tensor, p: float, result: Tensor) -> Tensor:
    a, b = _batched(x1, x2)
    values = _cdist_grad(grad._data, a, b, result._data, p)
    return Tensor._make(_summed_to(values, tuple(x1.shape)).astype(x1._data.dtype), x1._dtype)


def _cdist_x2(grad: Tensor, x1: Tensor, x2: Tensor, p: float, result: Tensor) -> Tensor:
    a, b = _batched(x1, x2)
    values = _cdist_grad(np.swapaxes(grad._data, -1, -2), b, a, np.swapaxes(result._data, -1, -2), p)
    return Tensor._make(_summed_to(values, tuple(x2.shape)).astype(x2._data.dtype), x2._dtype)


CDIST = node("CdistBackward0", ("x1", "x2"), jvp=unsupported("_cdist_forward"), x1=_cdist_x1, x2=_cdist_x2)


def _euclidean_grads(grad: Tensor, x1: Tensor, x2: Tensor, result: Tensor) -> tuple:
    """_euclidean_dist_backward, op for op."""
    ratio = grad / result
    ratio = ratio.masked_fill(result == 0, 0)
    return (x1 * ratio.sum(-1, True) - ratio.matmul(x2),
            x2 * ratio.sum(-2, False).unsqueeze(-1) - ratio.mT.matmul(x1))


EUCLIDEAN_DIST = node("EuclideanDistBackward0", ("x1", "x2"), jvp=unsupported("_euclidean_dist"),
                      x1=lambda grad, x1, x2, result: _euclidean_grads(grad, x1, x2, result)[0],
                      x2=lambda grad, x1, x2, result: _euclidean_grads(grad, x1, x2, result)[1])


def _euclidean_dist(x1: Tensor, x2: Tensor) -> Tensor:
    """ATen's _euclidean_dist: |a|^2 - 2ab + |b|^2 as one matrix product of padded operands."""
    with grad_mode.no_grad():
        a, b = x1.detach(), x2.detach()
        a_norm = a.pow(2).sum(-1, True)
        b_norm = b.pow(2).sum(-1, True)
        a_ = cat([a.mul(-2), a_norm, a_norm.new_ones(a_norm.shape)], -1)
        b_ = cat([b, b_norm.new_ones(b_norm.shape), b_norm], -1)
        data = a_.matmul(b_.mT).clamp_min_(0).sqrt_()._data
    return record(EUCLIDEAN_DIST, (x1, x2), data, x1._dtype)


_COMPUTE_MODES = {"use_mm_for_euclid_dist_if_necessary": None, "use_mm_for_euclid_dist": 1,
                  "donot_use_mm_for_euclid_dist": 2}


@op(method=False, nodes=(CDIST, EUCLIDEAN_DIST), python="torch.functional")
def cdist(x1: Tensor, x2: Tensor, p: float = 2.0, compute_mode: str = "use_mm_for_euclid_dist_if_necessary") -> Tensor:
    if compute_mode not in _COMPUTE_MODES:
        raise ValueError(f"{compute_mode} is not a valid value for compute_mode")
    mode = _COMPUTE_MODES[compute_mode] or 0
    x1, x2, p = list(parser("torch", "cdist").parse((x1, x2, p, _COMPUTE_MODES[compute_mode]), {})[1].values())[:3]
    for name, t in (("X1", x1), ("X2", x2)):
        if t.ndim < 2:
            raise RuntimeError(f"cdist only supports at least 2D tensors, {name} got: {t.ndim}D")
    if x1.shape[-1] != x2.shape[-1]:
        raise RuntimeError(f"X1 and X2 must have the same number of columns. X1: {x1.shape[-1]} X2: {x2.shape[-1]}")
    for name, t in (("X1", x1), ("X2", x2)):
        if t.dtype.category != dtypes.FLOATING:
            raise RuntimeError(f"cdist only supports floating-point dtypes, {name} got: {t._dtype._scalar_name}")
    if not p >= 0:  # (TORCH_CHECK(p >= 0): NaN fails it)
        raise RuntimeError("cdist only supports non-negative p values")
    p = _in_kernel_type(p, x1._dtype)
    batch = broadcast_shapes(tuple(x1.shape[:-2]), tuple(x2.shape[:-2]))
    r1, r2, columns = x1.shape[-2], x2.shape[-2], x1.shape[-1]
    empty = x1.numel() == 0 or x2.numel() == 0
    if p == 2 and not empty and (mode == 1 or (mode == 0 and (r1 > 25 or r2 > 25))):
        if x1.dtype is not x2.dtype:
            raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: {x1.dtype._cpp_name} != "
                               f"{x2.dtype._cpp_name}")
        if x1.ndim == 2 and x2.ndim == 2:
            return _euclidean_dist(x1, x2).view(r1, r2)
        size = math.prod(batch)
        a = x1.expand(*batch, r1, columns).reshape(size, r1, columns)
        b = x2.expand(*batch, r2, columns).reshape(size, r2, columns)
        return _euclidean_dist(a, b).view(*batch, r1, r2)
    # the kernel's dispatch: float and double only, both the same
    if x1.dtype in (dtypes.float16, dtypes.bfloat16):
        raise NotImplementedError(f"\"cdist\" not implemented for '{x1.dtype._scalar_name}'")
    if x1.dtype is not x2.dtype:
        raise RuntimeError(f"expected scalar type {x1.dtype._scalar_name} but found {x2.dtype._scalar_name}")
    a, b = _batched(x1, x2)
    return record(CDIST, (x1, x2), _cdist_values(a, b, float(p)), x1._dtype, p=float(p))


__all__ = ["pdist", "cdist"]


@op(method=False)
def cosine_similarity(x1: Tensor, x2: Tensor, dim: int = 1, eps: float = 1e-8) -> Tensor:
    """ATen's composite: each operand divided by its norm (clamped at eps where nothing records
    it), then the sum of their product along dim."""
    common = dtypes.result_type([x1, x2])
    if common.category != dtypes.FLOATING:
        raise RuntimeError(f"expected common dtype to be floating point, yet common dtype is {common._scalar_name}")
    if not eps >= 0:
        raise RuntimeError(f"eps must be non-negative, got: {eps:g}")
    x1 = x1.to(common) if x1._dtype.category < dtypes.FLOATING else x1
    x2 = x2.to(common) if x2._dtype.category < dtypes.FLOATING else x2
    if x1.shape != x2.shape:  # (expand_outplace)
        shape = broadcast_shapes(tuple(x1.shape), tuple(x2.shape))
        x1, x2 = x1.expand(shape), x2.expand(shape)
    norm1 = statistics.vector_norm(x1, 2, dim, True).clone()
    norm2 = statistics.vector_norm(x2, 2, dim, True).clone()
    floor_dtype = dtypes.float32 if common in (dtypes.float16, dtypes.bfloat16) else common
    floor = Tensor._make(np.asarray(eps, dtype=floor_dtype._numpy), floor_dtype)
    with grad_mode.no_grad():
        norm1.clamp_min_(floor)
        norm2.clamp_min_(floor)
    return ((x1 / norm1) * (x2 / norm2)).sum(dim)


@op(method=False)
def pairwise_distance(x1: Tensor, x2: Tensor, p: float = 2.0, eps: float = 1e-6, keepdim: bool = False) -> Tensor:
    """ATen's composite: the p-norm of x1 - x2 + eps along the last dim of the broadcast."""
    return (x1 - x2 + eps).norm(p, max(x1.ndim, x2.ndim) - 1, keepdim=keepdim)
