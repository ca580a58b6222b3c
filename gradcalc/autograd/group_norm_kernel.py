"""The backward of ATen's float32 GroupNorm kernel on the CPU (aten/src/ATen/native/cpu/
group_norm_kernel.cpp, its AVX2 build, which AVX-512 machines run too), in its order of
operations: each channel's sums of dy * x and dy (at::vec's map2_reduce_all and reduce_all), each
group's sums of those times the weight (8-lane registers, then the rest four at a time and one by
one, as the compiler unrolls that loop), the input's gradient from them, and the weight's and
bias's gradients summed over the batch in order. ATen's compiler fuses some of the multiply-adds;
which ones was read from PyTorch's results, element for element, on many shapes."""
from __future__ import annotations

from typing import Optional

import numpy as np

from .kernels import fused_multiply_add
from .simd import in_order, reduce_all

_LANES = 8
_F32 = np.float32


def _weighted_sum(values: np.ndarray, gamma: np.ndarray) -> np.ndarray:
    """Each group's sum of values * gamma over its channels (the last axis): registers of 8 lanes
    with fused steps, the lanes added in order from zero, then the rest of the channels four at a
    time (products rounded, added in order) and the last ones fused."""
    count = values.shape[-1]
    whole = count - count % _LANES
    total = np.zeros(values.shape[:-1], _F32)
    if whole:
        lanes = np.zeros(values.shape[:-1] + (_LANES,), _F32)
        for start in range(0, whole, _LANES):
            lanes = fused_multiply_add(values[..., start:start + _LANES],
                                       np.broadcast_to(gamma[..., start:start + _LANES], lanes.shape), lanes)
        for lane in range(_LANES):
            total = total + lanes[..., lane]
    unrolled = whole + (count - whole) // 4 * 4
    for j in range(whole, count):
        factor = np.broadcast_to(gamma[..., j], total.shape)
        total = total + values[..., j] * factor if j < unrolled else fused_multiply_add(values[..., j], factor, total)
    return total


def backward(dy: np.ndarray, x: np.ndarray, mean: np.ndarray, rstd: np.ndarray, weight: Optional[np.ndarray],
             groups: int, which: str) -> np.ndarray:
    """The gradient of `which` (input, weight or bias) of float32 group_norm on a contiguous input
    of shape (N, C, *), from the forward's mean and rstd (N, groups)."""
    n, channels = x.shape[:2]
    per_group = channels // groups
    size = x.size // max(n * channels, 1)
    rows, dy_rows = x.reshape(n * channels, size), np.ascontiguousarray(dy, dtype=_F32).reshape(n * channels, size)
    db = reduce_all(dy_rows, None, _LANES).reshape(n, groups, per_group)
    if which == "bias":
        return in_order(np.moveaxis(db.reshape(n, channels), 0, -1)) + _F32(0)
    # map2_reduce_all of dy * x as this kernel's build adds it: every product rounded, the tail's too
    ds = reduce_all(dy_rows, rows, _LANES, fused_tail=False).reshape(n, groups, per_group)
    m, r = mean.reshape(n, groups, 1), rstd.reshape(n, groups, 1)
    if which == "weight":
        total = np.zeros((groups, per_group), _F32)
        for i in range(n):
            centred = fused_multiply_add(-db[i], np.broadcast_to(m[i], db[i].shape), ds[i])
            total = fused_multiply_add(centred, np.broadcast_to(r[i], centred.shape), total)
        return total.reshape(channels)
    gamma = np.ones((groups, per_group), _F32) if weight is None else weight.reshape(groups, per_group)
    ds_sum, db_sum = _weighted_sum(ds, gamma), _weighted_sum(db, gamma)
    m, r = m[..., 0], r[..., 0]
    scale = _F32(1) / _F32(per_group * size)
    c2 = fused_multiply_add(db_sum, m, -ds_sum) * r * r * r * scale
    c3 = fused_multiply_add(-(db_sum * r), np.broadcast_to(scale, c2.shape), -c2 * m)
    shape = (n, groups, per_group, size)
    c1 = np.broadcast_to((r[:, :, None] * gamma)[..., None], shape)
    x4, dy4 = rows.reshape(shape), dy_rows.reshape(shape)
    dx = fused_multiply_add(c1, dy4, c2[:, :, None, None] * x4) + c3[:, :, None, None]
    return dx.reshape(x.shape)
