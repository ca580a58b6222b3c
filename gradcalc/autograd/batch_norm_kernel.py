"""ATen's batch-norm kernels on the CPU (aten/src/ATen/native/cpu/batch_norm_kernel.cpp), float32
and float64, in their order of operations: the statistics of training, and the backward. Their
stubs have no AVX-512 build, so they run with 256-bit registers on AVX2 and AVX-512 machines
alike; ATen's compiler contracts some of their multiply-adds into FMAs, as recorded below. Each
path is checked against PyTorch (one thread) element for element, on many shapes.

Two layouts take these kernels: "rows of channels" (an (N, C) matrix, which ATen treats as
channels-last, and a channels-last 4-d input), walked a row at a time with a buffer per channel;
and a contiguous (N, C, *) input, walked a channel's image at a time. Other layouts take
Normalization.cpp's strided path (ops/normalization.py)."""
from __future__ import annotations

from typing import Optional

import numpy as np

from .kernels import fused_multiply_add
from .simd import reduce_all

_REGISTER_BYTES = 32


def _lanes(kind: type) -> int:
    return _REGISTER_BYTES // np.dtype(kind).itemsize


def channel_rows(x: np.ndarray) -> Optional[np.ndarray]:
    """x as rows of channels when ATen walks it so ((N, C) or channels-last, C-contiguous rows);
    None otherwise."""
    if x.ndim < 2 or not x.size:
        return None
    if x.flags.c_contiguous and x.size == x.shape[0] * x.shape[1]:  # image size 1: "NC11 is also channels last"
        return x.reshape(x.shape[0], x.shape[1])
    if x.ndim == 4 and x.transpose(0, 2, 3, 1).flags.c_contiguous:
        return x.transpose(0, 2, 3, 1).reshape(-1, x.shape[1])
    return None


def channel_images(x: np.ndarray) -> Optional[np.ndarray]:
    """A contiguous (N, C, *) input as (N, C, image); None for another layout."""
    if x.ndim < 2 or not x.size or not x.flags.c_contiguous:
        return None
    return x.reshape(x.shape[0], x.shape[1], -1)


def takes_kernels(x: np.ndarray) -> bool:
    """Whether ATen's kernels (rather than Normalization.cpp's strided path) normalize x."""
    return x.dtype.type in (np.float32, np.float64) and (channel_rows(x) is not None or channel_images(x) is not None)


def statistics(x: np.ndarray, eps: float) -> Optional[tuple]:
    """(mean, variance sum, 1 / sqrt(variance + eps)) per channel, or None for a layout the
    kernels do not take. Rows of channels (batch_norm_cpu_collect_stats_channels_last_impl): a
    buffer in the dtype adds row after row; the variance's (x - mean)^2 are added one fused
    multiply-add each. Contiguous (the contiguous impl): each channel's values in memory order,
    summed in double. Then the mean and the variance sum in the dtype; 1 / sqrt(var_sum / n + eps)
    in double (Normalization.cpp)."""
    rows = channel_rows(x)
    kind = x.dtype.type
    if rows is not None:
        count = rows.shape[0]
        total = (np.cumsum(rows, axis=0, dtype=kind)[-1] + kind(0)).astype(np.float64)  # (a buffer from +0)
        mean = (total / count).astype(kind)
        variance_sum = np.zeros(rows.shape[1], kind)
        for row in rows:
            centered = row - mean
            variance_sum = fused_multiply_add(centered, centered, variance_sum)
    else:
        images = channel_images(x)
        if images is None:
            return None
        values = np.moveaxis(images, 1, 0).reshape(x.shape[1], -1)  # each channel's values in memory order
        count = values.shape[1]
        mean = ((np.cumsum(values, axis=1, dtype=np.float64)[:, -1] + 0.0) / count).astype(kind)
        centered = values - mean[:, None]
        variance_sum = (np.cumsum(centered * centered, axis=1, dtype=np.float64)[:, -1] + 0.0).astype(kind)
    rstd = (1 / np.sqrt((variance_sum / kind(count)).astype(np.float64) + eps)).astype(kind)
    return mean, variance_sum, rstd


def backward(dy: np.ndarray, x: np.ndarray, weight: Optional[np.ndarray], mean: np.ndarray, rstd_or_var: np.ndarray,
             training: bool, eps: float) -> Optional[tuple]:
    """(grad_input, grad_weight, grad_bias) as batch_norm_cpu_backward's kernels compute them, or
    None where the input's and the gradient's layout is none of theirs. `mean` and `rstd_or_var`
    are the saved mean and 1 / sqrt(var + eps) in training, the running mean and variance else."""
    kind = x.dtype.type
    channels = x.shape[1]
    count = x.size // channels
    w = np.ones(channels, kind) if weight is None else weight
    rows, grad_rows = channel_rows(x), channel_rows(dy)
    if rows is not None and grad_rows is not None and dy.strides == x.strides:
        if not training:
            rstd = (1 / np.sqrt(rstd_or_var.astype(np.float64) + eps)).astype(kind)
        else:
            rstd = rstd_or_var
        total = np.cumsum(grad_rows, axis=0, dtype=kind)[-1] + kind(0)
        dot = np.zeros(channels, kind)
        for row, grad_row in zip(rows, grad_rows):
            dot = fused_multiply_add(row - mean, grad_row, dot)
        if training:
            k = dot * rstd * rstd / kind(count)
            centered = rows - mean
            shifted = grad_rows - total / kind(count)
            # (dy - grad_mean - (x - mean) * k): fused in the whole registers of channels, not the tail's
            dx = shifted - centered * k
            whole = channels - channels % _lanes(kind)
            dx[:, :whole] = fused_multiply_add(-centered[:, :whole], k[:whole], shifted[:, :whole])
            dx = dx * rstd * w
        else:
            dx = grad_rows * rstd * w
        dx = _restored(dx, x)
        return dx, dot * rstd, total
    images, grad_images = channel_images(x), channel_images(dy)
    if images is None or grad_images is None:
        return None
    total = np.zeros(channels)  # accumulated in double over the batch
    dot = np.zeros(channels)
    centered = images - mean[:, None]
    for image, grad_image in zip(centered, grad_images):
        total = total + reduce_all(grad_image, None, _lanes(kind))
        dot = dot + reduce_all(image, grad_image, _lanes(kind))
    if training:
        rstd = rstd_or_var
        k = dot.astype(kind) * rstd * rstd / kind(count)
        grad_mean = (total / count).astype(kind)
        dx = fused_multiply_add(-centered, k[:, None], grad_images - grad_mean[:, None])
        dx = dx * rstd[:, None] * w[:, None]
    else:
        rstd = (1 / np.sqrt(rstd_or_var.astype(np.float64) + eps)).astype(kind)
        dx = grad_images * rstd[:, None] * w[:, None]
    return dx.reshape(x.shape), (dot * rstd.astype(np.float64)).astype(kind), total.astype(kind)


def _restored(rows: np.ndarray, x: np.ndarray) -> np.ndarray:
    """Rows of channels back in x's shape and layout."""
    if x.ndim == 4 and not x.flags.c_contiguous:
        n, c, h, w = x.shape
        return rows.reshape(n, h, w, c).transpose(0, 3, 1, 2)
    return rows.reshape(x.shape)
