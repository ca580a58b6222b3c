"""The backward of ATen's float32 LayerNorm kernel on the CPU (AVX2), in its order of operations:
the statistics of the forward (RowwiseMoments), the lane reductions of dy * x and dy (the tail's
products fused into the first lanes), the fused steps of the input's gradient, and the weight's
and bias's gradients summed over the rows in order. Checked against PyTorch element for element."""
from __future__ import annotations

from typing import Optional

import numpy as np

from .kernels import rowwise_moments
from .simd import fused_multiply_add, lanes

# the lanes of ATen's vectorised loops
_LANES = lanes(np.float32)
_F32 = np.float32


def _statistics(rows: np.ndarray, eps: float) -> tuple:
    mean, variance = rowwise_moments(rows, _LANES)
    return mean, _F32(1) / np.sqrt(np.maximum(variance, _F32(0)) + _F32(eps))


def _reduce_all(factor: np.ndarray, other: Optional[np.ndarray]) -> np.ndarray:
    """at::vec's map-reduce sum of factor * other along each row (of factor alone without
    other): a running sum for a row shorter than a vector, else one running sum per lane, the
    tail's products fused into the first lanes, and a pairwise fold of the lanes."""
    values = factor if other is None else factor * other
    size = values.shape[-1]
    if size < _LANES:
        return np.add.accumulate(values, axis=-1)[..., -1]
    acc = values[:, :_LANES].copy()
    full = size - size % _LANES
    for start in range(_LANES, full, _LANES):
        acc += values[:, start:start + _LANES]
    if full < size:
        tail = slice(0, size - full)
        acc[:, tail] = values[:, full:] + acc[:, tail] if other is None else fused_multiply_add(
            factor[:, full:], np.broadcast_to(other, factor.shape)[:, full:], acc[:, tail])
    lanes = _LANES
    while lanes > 1:
        lanes //= 2
        acc = acc[:, :lanes] + acc[:, lanes:2 * lanes]
    return acc[:, 0]


def backward(grad: np.ndarray, x: np.ndarray, count: int, weight: Optional[np.ndarray], eps: float,
             which: str) -> np.ndarray:
    """The gradient of a float32 LayerNorm for `which` of input, weight and bias, from the
    statistics the forward kernel computes."""
    size = x.size // max(int(np.prod(x.shape[:x.ndim - count], dtype=np.int64)), 1)
    rows, dy = x.reshape(-1, size), np.ascontiguousarray(grad, dtype=_F32).reshape(-1, size)
    if which == "bias":
        return np.add.accumulate(dy, axis=0)[-1].reshape(x.shape[x.ndim - count:])
    mean, rstd = _statistics(rows, eps)
    if which == "weight":
        total = np.zeros(size, _F32)
        for i in range(rows.shape[0]):
            shift = -rstd[i] * mean[i]
            total = fused_multiply_add(dy[i], fused_multiply_add(rstd[i], rows[i], shift), total)
        return total.reshape(x.shape[x.ndim - count:])
    gamma = None if weight is None else weight.reshape(-1)
    ds = _reduce_all(dy, rows) if gamma is None else _reduce_all(dy * rows, gamma)
    db = _reduce_all(dy, gamma)
    scale = _F32(1) / _F32(size)
    b = fused_multiply_add(db, mean, -ds) * rstd * rstd * rstd * scale
    c = fused_multiply_add(-b, mean, -(db * rstd * scale))
    a_dy = rstd[:, None] * dy if gamma is None else rstd[:, None] * dy * gamma
    return (fused_multiply_add(b[:, None], rows, a_dy) + c[:, None]).reshape(x.shape)
