"""ATen's float32 LayerNorm kernels on the CPU, in their order of operations: the rowwise
moments (Welford over SIMD lanes, chunks merged in a binary cascade), the normalization with one
fused multiply-add, and the backward's lane reductions and fused steps. Checked against
PyTorch element for element."""
from __future__ import annotations

from typing import Optional

import numpy as np

from .simd import fused_multiply_add, lanes

# the lanes of ATen's vectorised loops, and the vectors a Welford chunk takes
_LANES = lanes(np.float32)
_CHUNK = 16
_F32 = np.float32


def _add_moments(count_add: int, mean_add: np.ndarray, m2_add: np.ndarray, count: int, mean: np.ndarray,
                 m2: np.ndarray, fused: bool) -> tuple:
    """Chan's merge of two Welford states; the scalar merge's multiply-adds are fused, the vector one's not."""
    total = count + count_add
    c = _F32(0) if total == 0 else _F32(_F32(count_add) / _F32(total))
    delta = mean_add - mean
    spread = delta * delta * c
    if fused:
        return total, fused_multiply_add(c, delta, mean), m2 + fused_multiply_add(spread, _F32(count), m2_add)
    return total, mean + c * delta, m2 + (m2_add + spread * _F32(count))


def rowwise_moments(x: np.ndarray) -> tuple:
    """Mean and biased variance of each row of a float32 (rows, N) array as RowwiseMoments
    computes them: per-lane Welford with fused updates over the whole vectors, chunks of sixteen
    vectors merged in a binary cascade, then a scalar Welford over the tail into which the lanes
    merge one by one."""
    rows, size = x.shape
    vectors = size // _LANES
    chunks = -(-vectors // _CHUNK)
    depth = max(chunks - 1, 0).bit_length()
    zero = np.zeros((rows, _LANES), _F32)
    stack = [[0, zero, zero] for _ in range(max(depth, 1))]
    for i in range(chunks):
        count = min(_CHUNK, vectors - i * _CHUNK)
        mean, m2 = zero, zero
        for j in range(count):
            start = (i * _CHUNK + j) * _LANES
            lane = x[:, start:start + _LANES]
            delta = lane - mean
            mean = fused_multiply_add(delta, _F32(1) / _F32(j + 1), mean)
            m2 = fused_multiply_add(delta, lane - mean, m2)
        stack[0] = list(_add_moments(count, mean, m2, *stack[0], fused=False))
        mask, level = i + 1, 1
        while level < depth and mask & 1 == 0:
            stack[level] = list(_add_moments(*stack[level - 1], *stack[level], fused=False))
            stack[level - 1] = [0, zero, zero]
            mask >>= 1
            level += 1
    for level in range(1, depth):
        stack[0] = list(_add_moments(*stack[level], *stack[0], fused=False))
    count, mean, m2 = 0, np.zeros(rows, _F32), np.zeros(rows, _F32)
    for i in range(vectors * _LANES, size):
        delta = x[:, i] - mean
        count += 1
        mean = mean + delta / _F32(count)
        m2 = m2 + delta * (x[:, i] - mean)
    for lane in range(_LANES):
        count, mean, m2 = _add_moments(vectors, stack[0][1][:, lane], stack[0][2][:, lane], count, mean, m2,
                                       fused=True)
    return mean, m2 / _F32(size)


def _statistics(rows: np.ndarray, eps: float) -> tuple:
    mean, variance = rowwise_moments(rows)
    return mean, _F32(1) / np.sqrt(variance + _F32(eps))


def forward(x: np.ndarray, count: int, weight: Optional[np.ndarray], bias: Optional[np.ndarray],
            eps: float) -> tuple:
    """(y, mean, rstd) of a LayerNorm over the last `count` dims: (x - mean) * rstd, times the
    weight plus the bias in one fused step; mean and rstd keep the normalized dims as 1s."""
    size = x.size // max(int(np.prod(x.shape[:x.ndim - count], dtype=np.int64)), 1)
    rows = x.reshape(-1, size)
    mean, rstd = _statistics(rows, eps)
    normalized = (rows - mean[:, None]) * rstd[:, None]
    if weight is not None and bias is not None:
        data = fused_multiply_add(normalized, weight.reshape(-1), bias.reshape(-1))
    else:
        data = normalized if weight is None else normalized * weight.reshape(-1)
        data = data if bias is None else data + bias.reshape(-1)
    shape = x.shape[:x.ndim - count] + (1,) * count
    return data.reshape(x.shape), mean.reshape(shape), rstd.reshape(shape)


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
