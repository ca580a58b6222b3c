"""Separable resampling, as ATen's CPU kernels compute it for antialiased bilinear, bicubic and
Lanczos interpolation (float32 and float64) and for uint8 images (with or without antialias): one pass
per interpolated dim, the last dim first, each output a weighted sum over a run of inputs
(`start`, `size`) whose weights PIL's way of filtering gives. Float passes add in the input's
dtype, one fused multiply-add per tap; uint8 passes add in integers, with the weights quantised
to int16 at a precision chosen from the largest weight, then rounded and clamped to 0..255."""
from __future__ import annotations

import ctypes
from typing import Any, NamedTuple, Optional

import numpy as np

from ...language.limits import native_call
from ..kernels import fused_multiply_add

# the cubic filter's constant: Keys' -0.5 with antialias (as PIL), OpenCV's -0.75 without
_KEYS_CUBIC = -0.5
_OPENCV_CUBIC = -0.75
# each filter's taps at a scale of one: "linear" (PIL's triangle), "cubic", "lanczos" (Lanczos-3)
_TAPS = {"linear": 2, "cubic": 4, "lanczos": 6}
_MAX_PRECISION = 22  # the most fraction bits ATen gives an int16 weight


class Taps(NamedTuple):
    """For each output along one dim: its first input, how many inputs it mixes, and their
    weights (one row per output, zero past its size); integer weights carry their fraction bits."""
    start: np.ndarray
    size: np.ndarray
    weights: np.ndarray
    precision: int = 0


def area_pixel_scale(input_size: int, output_size: int, scale: Optional[float], align_corners: bool,
                     kind: Any) -> Any:
    """area_pixel_compute_scale: the source step of one output step, in the kernel's float type."""
    if align_corners:
        return kind(input_size - 1) / kind(output_size - 1) if output_size > 1 else kind(0)
    if scale is not None and scale > 0:
        return kind(1.0 / scale)
    return kind(kind(input_size) / kind(output_size))


_C_SINF: list = []  # the C library's sinf, found at the first need


def _c_sine(x: np.ndarray) -> np.ndarray:
    """std::sin in x's dtype, as the C library computes it: numpy's float64 sine is the C
    library's; its float32 one is numpy's own, so float32 calls sinf (whose last bit is not always
    the correctly rounded one), an element at a time: a filter's weights are few."""
    if x.dtype != np.float32:
        return np.sin(x)
    if not _C_SINF:
        function = native_call(lambda: ctypes.CDLL(None).sinf)
        function.restype, function.argtypes = ctypes.c_float, [ctypes.c_float]
        _C_SINF.append(function)
    return np.array([native_call(_C_SINF[0], value) for value in x.ravel().tolist()], np.float32).reshape(x.shape)


def _sinc(x: np.ndarray) -> np.ndarray:
    """sin(pi x) / (pi x) in x's dtype (1 at 0)."""
    kind = x.dtype.type
    turned = np.where(x == 0, kind(1), x * kind(np.pi))
    return np.where(x == 0, kind(1), _c_sine(turned) / turned)


def _filter(x: np.ndarray, name: str, a: float = _KEYS_CUBIC) -> np.ndarray:
    """PIL's triangle filter, the cubic convolution filter with constant `a`, or Lanczos-3
    (sinc(x) sinc(x / 3)), in x's dtype."""
    kind = x.dtype.type
    x = np.abs(x)
    if name == "linear":
        return np.where(x < 1, kind(1) - x, kind(0))
    if name == "lanczos":
        # sinc_filter(x) * sinc_filter(x / 3.0): the second call's template type is double, so
        # is the product, rounded to x's type at the end
        third = _sinc(x.astype(np.float64) / 3.0)
        return np.where(x < 3, (_sinc(x).astype(np.float64) * third).astype(kind), kind(0))
    a = kind(a)
    # the compiler fuses each multiply and the add or subtract after it
    near = fused_multiply_add(fused_multiply_add(a + kind(2), x, -(a + kind(3))) * x, x, kind(1))
    far = fused_multiply_add(fused_multiply_add(fused_multiply_add(a, x, -(kind(5) * a)), x, kind(8) * a), x,
                             -(kind(4) * a))
    return np.where(x < 1, near, np.where(x < 2, far, kind(0)))


def antialias_taps(input_size: int, output_size: int, scale: Optional[float], align_corners: bool, name: str,
                   kind: Any) -> Taps:
    """_compute_indices_min_size_weights_aa for every output: the filter widened by the scale
    when downsampling, its weights normalised to sum to one. `kind` is the type ATen computes
    in (the input's float type, double for uint8); where C mixes a double constant into a float
    expression, the same widening and rounding happen here."""
    step = area_pixel_scale(input_size, output_size, scale, align_corners, kind)
    half_width = _TAPS[name] * 0.5
    support = kind(half_width * float(step)) if step >= 1.0 else kind(half_width)
    width = int(np.ceil(support)) * 2 + 1
    invscale = kind(1.0 / float(step)) if step >= 1.0 else kind(1.0)
    index = np.arange(output_size, dtype=np.float64)
    center = (float(step) * (index + 0.5)).astype(kind)
    start = np.maximum(((center - support).astype(np.float64) + 0.5).astype(np.int64), 0)
    stop = np.minimum(((center + support).astype(np.float64) + 0.5).astype(np.int64), input_size)
    size = np.clip(stop - start, 0, width)
    offsets = np.arange(width)
    # (j + xmin - center + 0.5) * invscale: the int difference in the float type, the rest in double
    distance = ((offsets + start[:, None]).astype(kind) - center[:, None]).astype(np.float64)
    weights = _filter(((distance + 0.5) * float(invscale)).astype(kind), name)
    weights = np.where(offsets < size[:, None], weights, kind(0))
    total = np.zeros(output_size, kind)
    for j in range(width):  # added one tap after another
        total = total + weights[:, j]
    safe = np.where(total != 0, total, kind(1))
    weights = np.where((total != 0)[:, None], weights / safe[:, None], weights)
    return Taps(start, size, weights.astype(kind))


def _interpolation_taps(input_size: int, output_size: int, scale: Optional[float], align_corners: bool,
                        cubic: bool) -> tuple:
    """_compute_indices_min_size_weights for every output (uint8 without antialias, in double):
    the two or four taps around the source position, those past an edge added into the edge's
    weight; also the largest weight each output reached while its weights were added up."""
    width = 4 if cubic else 2
    step = area_pixel_scale(input_size, output_size, scale, align_corners, float)
    index = np.arange(output_size, dtype=np.float64)
    if align_corners:
        position = step * index
    else:
        position = step * (index + 0.5) - 0.5
        if not cubic:
            position = np.maximum(position, 0.0)
    nearest = np.minimum(np.floor(position.astype(np.float32)).astype(np.int64), input_size - 1)  # floorf
    fraction = np.minimum(np.maximum(position - nearest, 0.0), 1.0)
    support = width // 2
    first = nearest - support + 1
    start = np.maximum(first, 0)
    size = np.clip(np.minimum(nearest + support + 1, input_size) - start, 0, width)
    weights = np.zeros((output_size, width))
    largest = np.zeros(output_size)
    slot = np.zeros(output_size, np.int64)
    rows = np.arange(output_size)
    for j in range(width):
        value = _filter(np.float64(j + 1 - support) - fraction, "cubic" if cubic else "linear", _OPENCV_CUBIC)
        slot = np.where(first + j <= 0, 0, np.where(first + j >= input_size - 1, size - 1, slot))
        weights[rows, slot] += value
        largest = np.maximum(largest, weights[rows, slot])
        slot = slot + 1
    return Taps(start, size, weights), largest


def byte_taps(input_size: int, output_size: int, scale: Optional[float], align_corners: bool, name: str,
              antialias: bool) -> Taps:
    """_compute_index_ranges_int16_weights: the taps of a uint8 image's pass, their weights
    scaled by 2**precision and rounded half away from zero, the precision the most bits (up to
    22) that keep twice the largest weight below 2**15."""
    if antialias:
        taps = antialias_taps(input_size, output_size, scale, align_corners, name, np.float64)
        largest = taps.weights.max(initial=0.0)
    else:
        taps, running = _interpolation_taps(input_size, output_size, scale, align_corners, name == "cubic")
        largest = running.max(initial=0.0)
    precision = 0
    while precision < _MAX_PRECISION and int(0.5 + largest * (1 << (precision + 1))) < 1 << 15:
        precision += 1
    scaled = taps.weights * (1 << precision)
    quantised = np.trunc(np.where(scaled < 0, scaled - 0.5, scaled + 0.5)).astype(np.int64)
    return Taps(taps.start, taps.size, quantised, precision)


def resample_dim_bytes(x: np.ndarray, axis: int, taps: Taps) -> np.ndarray:
    """One uint8 pass along `axis`, in integers: half of the last place to round, the taps'
    products added, the fraction bits shifted off and the result clamped to 0..255."""
    last = x.shape[axis] - 1
    shape = [1] * x.ndim
    shape[axis] = -1
    total = np.full(1, 1 << (taps.precision - 1), np.int64)
    for j in range(taps.weights.shape[1]):
        values = np.take(x, np.minimum(taps.start + j, last), axis=axis).astype(np.int64)
        used = np.where(j < taps.size, taps.weights[:, j], 0).reshape(shape)
        total = total + values * used
    return np.clip(total >> taps.precision, 0, 255).astype(np.uint8)


def resample_dim(x: np.ndarray, axis: int, taps: Taps) -> np.ndarray:
    """One float pass along `axis`: the first tap's product, then the other taps as the compiled
    loop adds them: in blocks of a 128-bit vector (four float32 or two float64 taps), each product
    rounded and added in order, and the taps left over fused in one by one."""
    width = taps.weights.shape[1]
    last = x.shape[axis] - 1
    shape = [1] * x.ndim
    shape[axis] = -1
    lanes = 16 // x.dtype.itemsize
    blocked = ((taps.size - 1) // lanes * lanes).reshape(shape)
    size = taps.size.reshape(shape)
    out = None
    for j in range(width):
        values = np.take(x, np.minimum(taps.start + j, last), axis=axis)
        weight = taps.weights[:, j].reshape(shape)
        if out is None:
            out = values * weight
            continue
        added = np.where(j <= blocked, out + values * weight, fused_multiply_add(values, weight, out))
        out = np.where(j < size, added, out)
    return out


def _first_for_all(taps: Taps) -> Taps:
    return taps._replace(**{name: np.repeat(getattr(taps, name)[:1], len(taps.start), axis=0)
                            for name in ("start", "size", "weights")})


def runs_down_columns(shape: tuple, output_size: tuple, channels_last: bool) -> bool:
    """Whether ATen's loop over a pass along an outer dim runs down that dim: where the output has
    one column and no channels innermost to run along instead."""
    return output_size[-1] == 1 and not (channels_last and shape[1] > 1)


def separable(x: np.ndarray, output_size: tuple, taps_of: Any, resample: Any, down_columns: bool) -> np.ndarray:
    """The passes of separable_upsample_generic_Nd_kernel_impl: the last dim first, then the
    others outwards, each dim whose size changes (an unchanged one is not computed at all).

    ATen's loop for a pass along an outer dim reads each run's taps once, from its first output,
    as if the run went along a dim the taps do not vary on. Where the run goes `down_columns`
    instead, every output of the run takes the first output's taps, and so does PyTorch's result."""
    dims = len(output_size)
    if tuple(x.shape[-dims:]) == tuple(output_size):
        return x.copy()  # ATen copies the input into the result
    for d in [dims - 1] + list(range(dims - 2, -1, -1)):
        axis = x.ndim - dims + d
        if x.shape[axis] != output_size[d]:
            taps = taps_of(d, x.shape[axis])
            if d < dims - 1 and down_columns:
                taps = _first_for_all(taps)
            x = resample(x, axis, taps)
    return x


def channels_last(x: np.ndarray) -> bool:
    """is_channels_last_strides_2d (or _3d for 5-d arrays) on an array's strides: channels
    innermost, then the spatial dims from the last one out, then images; ambiguous layouts (size-1
    dims) read as contiguous, as PyTorch reads them (suggest_memory_format)."""
    if x.ndim not in (4, 5) or x.strides[1] == 0:
        return False
    smallest = 0
    for d in (1,) + tuple(range(x.ndim - 1, -1, -1))[:-2] + (0,):
        stride = x.strides[d] // x.itemsize
        if x.shape[d] == 0 or stride < smallest or (d == 0 and smallest == x.strides[1] // x.itemsize):
            return False
        smallest = stride * (x.shape[d] if x.shape[d] > 1 else 1)
    return True


def laid_out_like(data: np.ndarray, like: np.ndarray) -> np.ndarray:
    """`data` in the memory format PyTorch gives an upsampling's result: channels last where
    `like` (the input) suggests it, else contiguous."""
    if channels_last(like):
        order = (0,) + tuple(range(2, data.ndim)) + (1,)
        return np.ascontiguousarray(data.transpose(order)).transpose(np.argsort(order))
    return np.ascontiguousarray(data)


def resample_antialiased(x: np.ndarray, output_size: tuple, scales: tuple, align_corners: bool,
                         name: str) -> np.ndarray:
    """_upsample_bilinear2d_aa, _upsample_bicubic2d_aa or _upsample_lanczos2d_aa (the filter
    `name`) of a float32 or float64 array."""
    kind = x.dtype.type
    return separable(x, output_size,
                     lambda d, size: antialias_taps(size, output_size[d], scales[d], align_corners, name, kind),
                     resample_dim, runs_down_columns(x.shape, output_size, channels_last(x)))


def resample_bytes(x: np.ndarray, output_size: tuple, scales: tuple, align_corners: bool, name: str,
                   antialias: bool) -> np.ndarray:
    """Bilinear, bicubic or Lanczos (the filter `name`) interpolation of a uint8 image, with or
    without antialias. ATen runs images of up to four channels through its vectorised kernel
    (PIL-SIMD's), whose loops have their own taps for each output; the same integer sums, so the
    same bytes, but not the generic kernel's reading of the first output's taps down a column."""
    down_columns = x.shape[1] > 4 and runs_down_columns(x.shape, output_size, channels_last(x))
    return separable(x, output_size,
                     lambda d, size: byte_taps(size, output_size[d], scales[d], align_corners, name, antialias),
                     resample_dim_bytes, down_columns)


def antialias_backward(grad: np.ndarray, input_shape: tuple, rows: Taps, columns: Taps) -> np.ndarray:
    """cpu_upsample_genNd_backward_aa: each output's gradient, in the order of the outputs,
    spread over its window of inputs, each weight the column's times the row's weight, fused in."""
    planes = int(np.prod(input_shape[:-2], dtype=np.int64))
    result = np.zeros((planes,) + tuple(input_shape[-2:]), grad.dtype)
    g = grad.reshape((planes,) + grad.shape[-2:])
    for oh in range(g.shape[1]):
        top, height = rows.start[oh], rows.size[oh]
        for ow in range(g.shape[2]):
            left, width = columns.start[ow], columns.size[ow]
            weight = columns.weights[ow, None, :width] * rows.weights[oh, :height, None]
            window = result[:, top:top + height, left:left + width]
            window[...] = fused_multiply_add(weight, g[:, oh, ow, None, None], window)
    return result.reshape(input_shape)


def antialias_gradient(grad: np.ndarray, input_shape: tuple, output_size: tuple, scales: tuple,
                       align_corners: bool, name: str) -> np.ndarray:
    """The backward of resample_antialiased, with the forward's taps."""
    kind = grad.dtype.type
    rows, columns = (antialias_taps(input_shape[-2 + d], output_size[d], scales[d], align_corners, name, kind)
                     for d in range(2))
    return antialias_backward(grad, input_shape, rows, columns)
