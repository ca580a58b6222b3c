"""3-d pooling over the last three dims: max (with the flat index of each maximum in its volume),
average and adaptive max, checked as ATen's CPU kernels check them (pool3d_shape_check), in
their order, and computed in the order those kernels add."""
from __future__ import annotations

from typing import Any, Optional, Sequence

import numpy as np

from .. import dtypes
from ..layout import in_suggested_format
from ..tensor import Tensor
from .common import int64_tensor, not_implemented_for, shape_text, zeros_like
from .pooling import (adaptive_windows, check_non_batch_dims, check_output_shape, divisors, output_length,
                      padded_windows, scatter_to_input, window_argmax)
from .registry import node, op, record

MAX_POOL3D = node("MaxPool3DWithIndicesBackward0", ("self",), saved_tensors=("result1",),
                  saved=("ceil_mode", "dilation", "kernel_size", "padding", "stride"),
                  self=lambda grad, self, result1: scatter_to_input(grad, self, result1, 3))
ADAPTIVE_MAX_POOL3D = node("AdaptiveMaxPool3DBackward0", ("self",), saved_tensors=("result1",),
                           self=lambda grad, self, result1: scatter_to_input(grad, self, result1, 3))
def _avg_pool3d_grad(grad: Tensor, self: Tensor, kernel_size: tuple, stride: tuple, padding: tuple, ceil_mode: bool,
                     count_include_pad: bool, divisor_override: Optional[int]) -> Tensor:
    data = _avg_pool3d_backward(grad._data, self.shape, kernel_size, stride, padding, count_include_pad,
                                divisor_override)
    return record(AVG_POOL3D_BACKWARD, (grad, self), data, grad._dtype, kernel_size=kernel_size, stride=stride,
                  padding=padding, ceil_mode=ceil_mode, count_include_pad=count_include_pad,
                  divisor_override=divisor_override)


# the pool and its backward are linear: each one's derivative is the other
AVG_POOL3D = node("AvgPool3DBackward0", ("self",),
                  jvp={"self": lambda tangent, kernel_size, stride, padding, ceil_mode, count_include_pad,
                       divisor_override: avg_pool3d(tangent, kernel_size, stride, padding, ceil_mode,
                                                    count_include_pad, divisor_override)},
                  self=_avg_pool3d_grad)
AVG_POOL3D_BACKWARD = node(
    "AvgPool3DBackwardBackward0", ("grad_output", "self"),
    grad_output=lambda grad, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override: avg_pool3d(
        grad, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override),
    self=lambda grad: zeros_like(grad))

# what each size must be, in the words of max_pool3d's and avg_pool3d's own checks
_MAX_SIZES = {"kernel_size": "must either be a single int, or a tuple of three ints",
              "stride": "must either be omitted, a single int, or a tuple of three ints",
              "padding": "must either be a single int, or a tuple of three ints",
              "dilation": "must be either a single int, or a tuple of three ints"}
_AVG_SIZES = {"kernel_size": "must be a single int, or a tuple of three ints",
              "stride": "must be omitted, a single int, or a tuple of three ints",
              "padding": "must be a single int, or a tuple of three ints"}


def _triple(value: Any, name: str, op_name: str, rules: dict) -> tuple:
    values = tuple(value) if isinstance(value, (tuple, list)) else (value,)
    if name == "stride" and not values:  # omitted: the kernel's size
        return ()
    if len(values) not in (1, 3):
        raise RuntimeError(f"{op_name}: {name} {rules[name]}")
    if any(not -2 ** 31 <= v < 2 ** 31 for v in values):  # ATen's safe_downcast<int>
        raise RuntimeError("value cannot be converted to type int without overflow")
    return values * 3 if len(values) == 1 else values


def _check_dims(input: Tensor) -> None:
    if input.ndim not in (4, 5):
        raise RuntimeError("non-empty 4D or 5D (batch mode) tensor expected for input")


def _geometry(input: Tensor, kernel: tuple, stride: tuple, padding: tuple, dilation: tuple, ceil_mode: bool,
              function: str, check_input_size: bool) -> tuple:
    """The output's (T, H, W), after pooling_output_shape's and pool3d_shape_check's checks."""
    check_output_shape(kernel, stride, padding, dilation)
    time, height, width = input.shape[-3:]
    out = tuple(output_length(size, k, s, p, d, ceil_mode)
                for size, k, s, p, d in zip((time, height, width), kernel, stride, padding, dilation))
    for what, prefix, values in (("kernel size", "k", kernel), ("stride", "d", stride),
                                 ("dilation", "dilation", dilation)):
        if min(values) <= 0:
            raise RuntimeError(f"{what} should be greater than zero, but got {prefix}T: {values[0]} {prefix}H: "
                               f"{values[1]} {prefix}W: {values[2]}")
    for dim, size in enumerate(input.shape):
        if size <= 0 and not (input.ndim == 5 and dim == 0):  # (the message gives the size, not the dim)
            raise RuntimeError(f"{function}: Expected input's non-batch dimensions to have positive length, but input "
                               f"has a shape of {shape_text(input.shape)} and non-batch dimension {size} has length "
                               "zero!")
    (kt, kh, kw), (pt, ph, pw) = kernel, padding
    if check_input_size and (time < kt or height < kh or width < kw):
        raise RuntimeError(f"input image (T: {time} H: {height} W: {width}) smaller than kernel size (kT: {kt} kH: "
                           f"{kh} kW: {kw})")
    if kt // 2 < pt or kw // 2 < pw or kh // 2 < ph:
        raise RuntimeError(f"pad should be smaller than or equal to half of kernel size, but got kT: {kt} kW: {kw} "
                           f"kH: {kh} padT: {pt} padW: {pw} padH: {ph}")
    if min(out) < 1:
        planes = input.shape[-4]
        raise RuntimeError(f"Given input size: ({planes}x{time}x{height}x{width}). Calculated output size: "
                           f"({planes}x{out[0]}x{out[1]}x{out[2]}). Output size is too small")
    return out


def _flat_index(corner_t: Any, corner_h: Any, corner_w: Any, shape: tuple) -> np.ndarray:
    """The flat (t * H + h) * W + w index of a place in a volume of `shape` (T, H, W)."""
    return (corner_t * shape[1] + corner_h) * shape[2] + corner_w


# ------------------------------------------------------------------ max

def max_pool3d_with_indices(input: Tensor, kernel_size: Any, stride: Any = (), padding: Any = 0, dilation: Any = 1,
                            ceil_mode: bool = False) -> tuple:
    kernel = _triple(kernel_size, "kernel_size", "max_pool3d", _MAX_SIZES)
    stride = _triple(stride, "stride", "max_pool3d", _MAX_SIZES) or kernel
    padding = _triple(padding, "padding", "max_pool3d", _MAX_SIZES)
    dilation = _triple(dilation, "dilation", "max_pool3d", _MAX_SIZES)
    _check_dims(input)
    out = _geometry(input, kernel, stride, padding, dilation, ceil_mode,
                    "max_pool3d_with_indices_out_cpu_template()", False)
    if input._dtype.is_complex or input._dtype is dtypes.bool_:
        raise not_implemented_for("max_pool3d", input._dtype)
    x = input._data
    low = -np.inf if x.dtype.kind == "f" else np.iinfo(x.dtype).min
    windows = padded_windows(x, kernel, stride, padding, dilation, out, low)
    flat = windows.reshape(windows.shape[:-3] + (kernel[0] * kernel[1] * kernel[2],))  # (the batch may be empty)
    best = window_argmax(flat)
    values = np.take_along_axis(flat, best[..., None], axis=-1)[..., 0]
    offsets = np.unravel_index(best, kernel)
    starts = [np.arange(o) * s - p for o, s, p in zip(out, stride, padding)]
    places = [start.reshape([-1 if i == dim else 1 for i in range(3)]) + offset * d
              for dim, (start, offset, d) in enumerate(zip(starts, offsets, dilation))]
    indices = int64_tensor(in_suggested_format(np.ascontiguousarray(_flat_index(*places, x.shape[-3:])), x))
    output = record(MAX_POOL3D, (input,), in_suggested_format(np.ascontiguousarray(values), x), input._dtype,
                    result1=indices, kernel_size=kernel, stride=stride, padding=padding, dilation=dilation,
                    ceil_mode=ceil_mode)
    return output, indices


@op(nodes=(MAX_POOL3D,), method=False)
def max_pool3d(input: Tensor, kernel_size: Sequence[int], stride: Sequence[int] = (), padding: Any = 0,
               dilation: Any = 1, ceil_mode: bool = False) -> Tensor:
    return max_pool3d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)[0]


# ------------------------------------------------------------------ average

@op(module="nn", nodes=(AVG_POOL3D,))
def avg_pool3d(input: Tensor, kernel_size: Sequence[int], stride: Sequence[int] = (), padding: Any = 0,
               ceil_mode: bool = False, count_include_pad: bool = True,
               divisor_override: Optional[int] = None) -> Tensor:
    kernel = _triple(kernel_size, "kernel_size", "avg_pool3d", _AVG_SIZES)
    stride = _triple(stride, "stride", "avg_pool3d", _AVG_SIZES) or kernel
    padding = _triple(padding, "padding", "avg_pool3d", _AVG_SIZES)
    _check_dims(input)
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    out = _geometry(input, kernel, stride, padding, (1, 1, 1), ceil_mode, "avg_pool3d()", True)
    if input._dtype not in (dtypes.float32, dtypes.float64, dtypes.int64):
        raise not_implemented_for("avg_pool3d_out_frame", input._dtype)
    x = input._data
    windows = padded_windows(x, kernel, stride, padding, (1, 1, 1), out, 0)
    total = np.zeros(windows.shape[:-3], dtype=x.dtype)
    for offset in np.ndindex(*kernel):  # one element of each window at a time: ATen's order of adding
        total = total + windows[(Ellipsis,) + offset]
    divisor = divisors(x.shape, kernel, stride, padding, out, count_include_pad, divisor_override)
    if x.dtype.kind == "f":
        data = total / divisor.astype(x.dtype)
    else:  # C's integer division, toward zero
        data = np.abs(total) // np.abs(divisor) * np.sign(total) * np.sign(divisor)
    return record(AVG_POOL3D, (input,), np.asarray(data, dtype=x.dtype), input._dtype, kernel_size=kernel,
                  stride=stride, padding=padding, ceil_mode=ceil_mode, count_include_pad=count_include_pad,
                  divisor_override=divisor_override)


def _avg_pool3d_backward(grad: np.ndarray, shape: tuple, kernel: tuple, stride: tuple, padding: tuple,
                         count_include_pad: bool, divisor_override: Optional[int]) -> np.ndarray:
    """Each output's share of its gradient added to its window, the outputs in order (for each
    input element, the kernel's offsets backwards)."""
    out = grad.shape[-3:]
    share = grad / divisors(shape, kernel, stride, padding, out, count_include_pad, divisor_override).astype(grad.dtype)
    extents = tuple(max((o - 1) * s + k, size + p) + p for o, s, k, size, p in zip(out, stride, kernel, shape[-3:],
                                                                                      padding))
    padded = np.zeros(shape[:-3] + extents, dtype=grad.dtype)
    for offset in reversed(list(np.ndindex(*kernel))):
        padded[(Ellipsis,) + tuple(slice(i, i + (o - 1) * s + 1, s) for i, o, s in zip(offset, out, stride))] += share
    return np.ascontiguousarray(padded[(Ellipsis,) + tuple(slice(p, p + size) for p, size in zip(padding, shape[-3:]))])


# ------------------------------------------------------------------ adaptive max

def adaptive_max_pool3d_with_indices(input: Tensor, output_size: Any) -> tuple:
    if input.ndim not in (4, 5):
        raise RuntimeError(f"adaptive_max_pool3d(): Expected 4D or 5D tensor, but got: {shape_text(input.shape)}")
    check_non_batch_dims("adaptive_max_pool3d", input)
    sizes = tuple(output_size)
    if len(sizes) != 3:
        raise RuntimeError("adaptive_max_pool3d(): internal error: output_size.size() must be 3")
    if min(sizes) < 0:
        raise RuntimeError(f"Trying to create tensor with negative dimension {min(sizes)}: "
                           f"{shape_text(input.shape[:-3] + sizes)}")
    if input._dtype.category != dtypes.FLOATING:
        raise not_implemented_for("adaptive_max_pool3d_cpu", input._dtype)
    x = input._data
    values = np.empty(x.shape[:-3] + sizes, dtype=x.dtype)
    indices = np.empty(x.shape[:-3] + sizes, dtype=np.int64)
    for corner, window, extent in adaptive_windows(x.shape, sizes):
        flat = x[(Ellipsis,) + window].reshape(x.shape[:-3] + (int(np.prod(extent)),))
        best = window_argmax(flat)
        values[(Ellipsis,) + corner] = np.take_along_axis(flat, best[..., None], axis=-1)[..., 0]
        places = [part.start + offset for part, offset in zip(window, np.unravel_index(best, extent))]
        indices[(Ellipsis,) + corner] = _flat_index(*places, x.shape[-3:])
    index_tensor = int64_tensor(indices)
    return record(ADAPTIVE_MAX_POOL3D, (input,), values, input._dtype, result1=index_tensor), index_tensor


@op(nodes=(ADAPTIVE_MAX_POOL3D,), method=False, function=False)
def adaptive_max_pool3d(input: Tensor, output_size: Sequence[int]) -> Tensor:
    return adaptive_max_pool3d_with_indices(input, output_size)[0]
