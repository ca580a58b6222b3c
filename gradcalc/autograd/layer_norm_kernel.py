"""The backward of ATen's float32 LayerNorm kernel on the CPU (AVX2), in its order of operations:
the statistics of the forward (RowwiseMoments), the lane reductions of dy * x and dy (the tail's
products fused into the first lanes), the fused steps of the input's gradient, and the weight's
and bias's gradients summed over the rows in order. Checked against PyTorch element for element."""
from __future__ import annotations

from typing import Optional

import numpy as np

from .kernels import rowwise_moments
from .simd import fused_multiply_add, lanes, reduce_all

# the lanes of ATen's vectorised loops
_LANES = lanes(np.float32)
_F32 = np.float32


def _statistics(rows: np.ndarray, eps: float) -> tuple:
    mean, variance = rowwise_moments(rows, _LANES)
    return mean, _F32(1) / np.sqrt(np.maximum(variance, _F32(0)) + _F32(eps))


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
    ds = reduce_all(dy, rows, _LANES) if gamma is None else reduce_all(dy * rows, gamma, _LANES)
    db = reduce_all(dy, gamma, _LANES)
    scale = _F32(1) / _F32(size)
    b = fused_multiply_add(db, mean, -ds) * rstd * rstd * rstd * scale
    c = fused_multiply_add(-b, mean, -(db * rstd * scale))
    a_dy = rstd[:, None] * dy if gamma is None else rstd[:, None] * dy * gamma
    return (fused_multiply_add(b[:, None], rows, a_dy) + c[:, None]).reshape(x.shape)
