"""pdist: the p-norm distances between the rows of a matrix, as ATen's CPU kernel computes them
(each distance reduced over SIMD lanes, and the gradient gathered row after row)."""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from .. import dtypes, simd
from ..forward_mode import unsupported
from ..tensor import Tensor
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


@op(method=False, nodes=(PDIST,))
def pdist(input: Tensor, p: Any = 2) -> Tensor:
    if input.ndim != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {input.ndim}D")
    if input.dtype.category != dtypes.FLOATING:
        raise RuntimeError("pdist only supports floating-point dtypes")
    if p < 0:
        raise RuntimeError("pdist only supports non-negative p values")
    x = input._data
    n, m = x.shape
    if n <= 1:
        data = np.zeros(0, x.dtype)
    elif m == 0:
        data = np.zeros(n * (n - 1) // 2, x.dtype)
    else:
        data = _distances(np.ascontiguousarray(x), float(p))
    return record(PDIST, (input,), np.asarray(data, x.dtype), input._dtype, p=float(p))


__all__ = ["pdist"]
