"""Pooling: max (with the flat indices of the maxima) and average over sliding windows, and
their adaptive forms, over the last two dims (adaptive average also over the last three); the
1-d forms are the 2-d ones on an unsqueezed input, as in PyTorch (their grad_fn is
SqueezeBackward1)."""
from __future__ import annotations

import functools
from typing import Any, Optional, Sequence

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from .. import dtypes, grad_mode, meta
from ..layout import in_format, in_suggested_format, suggested_format
from ..tensor import Tensor
from .common import int64_tensor, not_implemented_for, shape_text, zeros, zeros_like
from .registry import NOT_IMPLEMENTED, node, op, record


def scatter_to_input(grad: Tensor, self: Tensor, indices: Tensor, dims: int = 2) -> Tensor:
    """The gradient of a max pool over the last `dims` dims: each output's gradient added at its
    maximum's place."""
    planes = self.shape[:-dims]
    # sizes given, not -1: an empty batch leaves nothing to infer them from
    positions = int(np.prod(grad.shape[-dims:]))
    flat_grad = grad.reshape(planes + (positions,))
    flat_indices = indices.reshape(planes + (positions,))
    out = zeros(planes + (int(np.prod(self.shape[-dims:])),), dtype=grad.dtype)
    return out.scatter_add(-1, flat_indices, flat_grad).reshape(self.shape)


MAX_POOL2D = node("MaxPool2DWithIndicesBackward0", ("self",), saved_tensors=("result1",),
                  saved=("ceil_mode", "dilation", "kernel_size", "padding", "stride"),
                  self=lambda grad, self, result1: scatter_to_input(grad, self, result1))
ADAPTIVE_MAX_POOL2D = node("AdaptiveMaxPool2DBackward0", ("self",), saved_tensors=("result1",),
                           self=lambda grad, self, result1: scatter_to_input(grad, self, result1))


MAX_UNPOOL2D = node("MaxUnpool2DBackward0", ("self",), saved_tensors=("indices",),
                    self=lambda grad, indices: grad.flatten(-2).gather(-1, indices.flatten(-2)).view(indices.shape))


def _linear_grad(grad: Tensor, self: Tensor, data: np.ndarray, aten: str) -> Tensor:
    if grad_mode.is_grad_enabled() and grad.requires_grad:
        return record(NOT_IMPLEMENTED, (grad, self), data, grad._dtype, _aten=aten)
    return Tensor._make(data, grad._dtype)


AVG_POOL2D = node(
    "AvgPool2DBackward0", ("self",),
    jvp={"self": lambda tangent, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override:
         avg_pool2d(tangent, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override)},
    self=lambda grad, self, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override: _linear_grad(
        grad, self, _avg_pool_backward(grad._data, self.shape, kernel_size, stride, padding, ceil_mode,
                                       count_include_pad, divisor_override), "avg_pool2d_backward"))
ADAPTIVE_AVG_POOL2D = node(
    "AdaptiveAvgPool2DBackward0", ("self",),
    jvp={"self": lambda tangent, result: adaptive_avg_pool2d(tangent, result.shape[-2:])},
    self=lambda grad, self: _linear_grad(grad, self, _adaptive_average_backward(grad._data, self.shape, 2,
                                                                                _in_own_type(grad._dtype)),
                                         "_adaptive_avg_pool2d_backward"))


# ------------------------------------------------------------------ sizes

# what each size of a 2-d pool must be, in ATen's words (dilation's differ from the others')
_SIZE_RULES = {"kernel_size": "must either be a single int, or a tuple of two ints",
               "stride": "must either be omitted, a single int, or a tuple of two ints",
               "padding": "must either be a single int, or a tuple of two ints",
               "dilation": "must be either a single int, or a tuple of two ints"}


def _pair(value: Any, name: str, op: str, c_ints: bool = True) -> tuple:
    values = tuple(value) if isinstance(value, (tuple, list)) else (value,)
    if name == "stride" and not values:  # omitted: the kernel's size
        return ()
    if len(values) not in (1, 2):
        raise RuntimeError(f"{op}: {name} {_SIZE_RULES[name]}")
    if c_ints and any(not -2 ** 31 <= value < 2 ** 31 for value in values):  # ATen's safe_downcast<int>
        raise RuntimeError("value cannot be converted to type int without overflow")
    return values * 2 if len(values) == 1 else values


def _sizes(op: str, kernel_size: Any, stride: Any, padding: Any, dilation: Any, c_ints: bool = True) -> tuple:
    """(kernel, stride, padding, dilation) as pairs, each checked in ATen's order."""
    kernel = _pair(kernel_size, "kernel_size", op, c_ints)
    stride = _pair(stride, "stride", op, c_ints) or kernel
    return kernel, stride, _pair(padding, "padding", op, c_ints), _pair(dilation, "dilation", op, c_ints)


def output_length(size: int, kernel: int, stride: int, padding: int, dilation: int, ceil_mode: bool) -> int:
    span = size + 2 * padding - dilation * (kernel - 1) - 1 + (stride - 1 if ceil_mode else 0)
    out = span // stride + 1
    if ceil_mode and (out - 1) * stride >= size + padding:
        out -= 1
    return out


def check_output_shape(kernel: tuple, stride: tuple, padding: tuple, dilation: tuple, on_meta: bool = False) -> None:
    """pooling_output_shape's checks, per dim."""
    for k, s, p, d in zip(kernel, stride, padding, dilation):
        if s == 0:
            raise RuntimeError("stride should not be zero")
        if p < 0:
            raise RuntimeError(f"pad must be non-negative, but got pad: {p}")
        span = d * (k - 1) + 1
        if p > (span // 2 if span >= 0 or on_meta else -(-span // 2)):  # (C's division, Python's on meta)
            raise RuntimeError(f"pad should be at most half of effective kernel size, but got pad={p}, kernel_size="
                               f"{k} and dilation={d}")


def _geometry(input: Tensor, kernel: tuple, stride: tuple, padding: tuple, dilation: tuple, ceil_mode: bool) -> tuple:
    """The output's size, the input and the sizes (of _sizes) checked as ATen's 2-d pools check them
    (a meta tensor's, as torch's Python meta kernels do: some words differ)."""
    if input.ndim not in (3, 4):
        raise RuntimeError("non-empty 3D or 4D (batch mode) tensor expected for input")
    on_meta = meta.is_meta(input)
    check_output_shape(kernel, stride, padding, dilation, on_meta)
    comma = "," if on_meta else ""
    # pool2d_shape_check's, before the output size's
    if min(kernel) <= 0:
        raise RuntimeError(f"kernel size should be greater than zero, but got kH: {kernel[0]}{comma} kW: {kernel[1]}")
    if min(stride) <= 0:
        raise RuntimeError(f"stride should be greater than zero, but got dH: {stride[0]}{comma} dW: {stride[1]}")
    if min(dilation) <= 0:
        raise RuntimeError(f"dilation should be greater than zero, but got dilationH: {dilation[0]}{comma} "
                           f"dilationW: {dilation[1]}")
    if 0 in input.shape[-3:]:  # a batch may be empty, a plane not
        shown = f" {input.shape!r}" if on_meta else f"[{', '.join(map(str, input.shape))}]"
        raise RuntimeError(f"Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for input, but got:"
                           f"{shown}")
    if on_meta and (kernel[1] // 2 < padding[1] or kernel[0] // 2 < padding[0]):
        raise RuntimeError(f"pad should be smaller than or equal to half of kernel size, but got padW = {padding[1]}, "
                           f"padH = {padding[0]}, kW = {kernel[1]}, kH = {kernel[0]}")
    out = tuple(output_length(size, k, s, p, d, ceil_mode) for size, k, s, p, d in zip(
        input.shape[-2:], kernel, stride, padding, dilation))
    if any(o <= 0 for o in out):
        channels = input.shape[-3]
        raise RuntimeError(f"Given input size: ({channels}x{input.shape[-2]}x{input.shape[-1]}). Calculated output "
                           f"size: ({channels}x{out[0]}x{out[1]}). Output size is too small")
    return out


def padded_windows(x: np.ndarray, kernel: tuple, stride: tuple, padding: tuple, dilation: tuple, out: tuple,
                   fill: Any) -> np.ndarray:
    """(..., out_h, out_w, k_h, k_w) for a 2-d pool (and so on for n dims, n = len(kernel)): the
    windows over the input padded with `fill` (far enough on the right for ceil_mode's last window)."""
    n = len(kernel)
    widths = []
    for size, k, s, p, d, o in zip(x.shape[-n:], kernel, stride, padding, dilation, out):
        needed = (o - 1) * s + d * (k - 1) + 1
        widths.append((p, max(needed - size - p, 0)))
    padded = np.pad(x, [(0, 0)] * (x.ndim - n) + widths, constant_values=fill) if any(map(any, widths)) else x
    extent = tuple(d * (k - 1) + 1 for k, d in zip(kernel, dilation))
    view = sliding_window_view(padded, extent, axis=tuple(range(-n, 0)))
    return view[(Ellipsis,) + tuple(slice(None, (o - 1) * s + 1, s) for o, s in zip(out, stride))
                + tuple(slice(None, None, d) for d in dilation)]


# ------------------------------------------------------------------ max

def window_argmax(flat: np.ndarray) -> np.ndarray:
    """The place of each window's maximum (windows along the last axis) as ATen's max pools pick
    it, `val > max || isnan(val)`: the first of equal maxima, but the last NaN."""
    best = flat.argmax(axis=-1)
    if flat.dtype.kind == "f" and flat.size:
        nan = np.isnan(flat)
        if nan.any():
            best = np.where(nan.any(axis=-1), flat.shape[-1] - 1 - nan[..., ::-1].argmax(axis=-1), best)
    return best


def max_pool2d_with_indices(input: Tensor, kernel_size: Any, stride: Any = (), padding: Any = 0,
                            dilation: Any = 1, ceil_mode: bool = False, *, c_ints: bool = True) -> tuple:
    """(values, indices) of the max pool; `c_ints` False for max_pool1d's own kernel, which reads its
    sizes as int64."""
    # (a meta tensor's Python meta kernel reads them as Python ints)
    c_ints = c_ints and not meta.is_meta(input)
    kernel, stride, padding, dilation = _sizes("max_pool2d", kernel_size, stride, padding, dilation, c_ints)
    out = _geometry(input, kernel, stride, padding, dilation, ceil_mode)
    if input._dtype.is_complex or input._dtype is dtypes.bool_:
        raise not_implemented_for("max_pool2d", input._dtype)
    x = input._data
    low = -np.inf if x.dtype.kind == "f" else np.iinfo(x.dtype).min
    windows = padded_windows(x, kernel, stride, padding, dilation, out, low)
    flat = windows.reshape(windows.shape[:-2] + (kernel[0] * kernel[1],))  # not -1: the batch may be empty
    best = window_argmax(flat)
    values = np.take_along_axis(flat, best[..., None], axis=-1)[..., 0]
    # the flat index (row * width + column) of each maximum in its input plane
    rows = np.arange(out[0])[:, None] * stride[0] - padding[0] + (best // kernel[1]) * dilation[0]
    cols = np.arange(out[1])[None, :] * stride[1] - padding[1] + (best % kernel[1]) * dilation[1]
    indices = int64_tensor(in_suggested_format(np.ascontiguousarray(rows * x.shape[-1] + cols), x))
    output = record(MAX_POOL2D, (input,), in_suggested_format(np.ascontiguousarray(values), x), input._dtype,
                    result1=indices,
                    kernel_size=kernel, stride=stride, padding=padding, dilation=dilation, ceil_mode=ceil_mode)
    return output, indices


@op(nodes=(MAX_POOL2D,), method=False)
def max_pool2d(input: Tensor, kernel_size: Sequence[int], stride: Sequence[int] = (), padding: Any = 0,
               dilation: Any = 1, ceil_mode: bool = False) -> Tensor:
    return max_pool2d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)[0]


# ------------------------------------------------------------------ average

def divisors(shape: tuple, kernel: tuple, stride: tuple, padding: tuple, out: tuple, count_include_pad: bool,
             divisor_override: Optional[int]) -> np.ndarray:
    """PyTorch's divisor of each window (over the last len(kernel) dims): its size within the
    padded input (or within the input)."""
    if divisor_override:
        return np.full(out, divisor_override)
    sizes = []
    for size, k, s, p, o in zip(shape[-len(kernel):], kernel, stride, padding, out):
        start = np.arange(o) * s - p
        end = np.minimum(start + k, size + p)
        pool = end - start
        inner = np.minimum(end, size) - np.maximum(start, 0)
        sizes.append(pool if count_include_pad else inner)
    return functools.reduce(np.multiply.outer, sizes)


def _window_sums(windows: np.ndarray) -> np.ndarray:
    """Each window's sum as ATen's avg_pool kernels add it: from zero, its elements in row-major
    order (padding adds zeros, which change nothing), in the accumulate type (float for the half
    precisions)."""
    values = windows.astype(np.float32, copy=False) if windows.dtype == np.float16 else windows
    flat = values.reshape(values.shape[:-2] + (values.shape[-2] * values.shape[-1],))  # (the batch may be empty)
    total = np.zeros(flat.shape[:-1], flat.dtype)
    for position in range(flat.shape[-1]):
        total = total + flat[..., position]
    return total


@op(nodes=(AVG_POOL2D,), method=False)
def avg_pool2d(input: Tensor, kernel_size: Sequence[int], stride: Sequence[int] = (), padding: Any = 0,
               ceil_mode: bool = False, count_include_pad: bool = True,
               divisor_override: Optional[int] = None) -> Tensor:
    kernel, stride, padding, _ = _sizes("avg_pool2d", kernel_size, stride, padding, 1, not meta.is_meta(input))
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    out = _geometry(input, kernel, stride, padding, (1, 1), ceil_mode)
    if input._dtype.is_complex or input._dtype is dtypes.bool_:
        raise not_implemented_for("avg_pool2d", input._dtype)
    if input._dtype in (dtypes.uint8, dtypes.int8, dtypes.int16, dtypes.int32, dtypes.bool_):
        # the kernel's dispatch takes floating types and Long only (an image read as uint8 meets this)
        raise NotImplementedError(f"\"avg_pool2d\" not implemented for '{input._dtype._scalar_name}'")
    x = input._data
    windows = padded_windows(x, kernel, stride, padding, (1, 1), out, 0)
    divisor = divisors(x.shape, kernel, stride, padding, out, count_include_pad, divisor_override)
    if x.dtype.kind == "f":
        # in the input's suggested memory format (channels-last stays so), as the kernel writes it
        data = in_suggested_format((_window_sums(windows) / divisor.astype(windows.dtype)).astype(x.dtype), x)
    else:
        data = windows.sum(axis=(-2, -1), dtype=x.dtype) // divisor
    return record(AVG_POOL2D, (input,), np.asarray(data, dtype=x.dtype), input._dtype, kernel_size=kernel,
                  stride=stride, padding=padding, ceil_mode=ceil_mode, count_include_pad=count_include_pad,
                  divisor_override=divisor_override)


def _avg_pool_backward(g: np.ndarray, shape: tuple, kernel: tuple, stride: tuple, padding: tuple, ceil_mode: bool,
                       count_include_pad: bool, divisor_override: Optional[int]) -> np.ndarray:
    out = g.shape[-2:]
    divisor = divisors(shape, kernel, stride, padding, out, count_include_pad, divisor_override)
    share = g / divisor.astype(g.dtype)
    rows = max((out[0] - 1) * stride[0] + kernel[0], shape[-2] + padding[0])
    cols = max((out[1] - 1) * stride[1] + kernel[1], shape[-1] + padding[1])
    padded = np.zeros(shape[:-2] + (rows + padding[0], cols + padding[1]), dtype=g.dtype)
    # each output's share added to its window, the outputs in order: for each input element, the
    # kernel's offsets backwards
    for i in reversed(range(kernel[0])):
        for j in reversed(range(kernel[1])):
            padded[..., i:i + (out[0] - 1) * stride[0] + 1:stride[0], j:j + (out[1] - 1) * stride[1] + 1:stride[1]] \
                += share
    return np.ascontiguousarray(padded[..., padding[0]:padding[0] + shape[-2], padding[1]:padding[1] + shape[-1]])


# ------------------------------------------------------------------ adaptive

def _adaptive_bounds(size: int, out: int) -> list:
    return [(i * size // out, -(-(i + 1) * size // out)) for i in range(out)]


def _adaptive_size(input: Tensor, output_size: Any, count_message: str) -> tuple:
    sizes = tuple(output_size) if isinstance(output_size, (tuple, list)) else (output_size, output_size)
    if len(sizes) != 2:
        raise RuntimeError(count_message)
    return tuple(input.shape[-2 + i] if s is None else s for i, s in enumerate(sizes))


def _in_float(x: np.ndarray, output_size: tuple) -> np.ndarray:
    """The 2-d adaptive average as ATen computes it: half and bfloat16 values widened to float,
    the result rounded once."""
    computed = x.astype(np.float64 if x.dtype == np.float64 else np.float32, copy=False)
    return _adaptive_average(computed, output_size, lambda values: values).astype(x.dtype)


@op(nodes=(ADAPTIVE_AVG_POOL2D,), method=False)
def adaptive_avg_pool2d(input: Tensor, output_size: Sequence[int]) -> Tensor:
    out = _adaptive_size(input, output_size, "adaptive_avg_pool2d: output_size must be 2")
    if out[0] < 0 or out[1] < 0:
        raise RuntimeError(f"adaptive_avg_pool2d: elements of output_size must be greater than or equal to 0 but "
                           f"received {{{out[0]}, {out[1]}}}")
    if out == (1, 1):
        # PyTorch takes the mean over the last two dims, before any check of the input's (a [1, 192]
        # input gives [1, 1])
        out = input.mean((-1, -2), keepdim=True)
        if input.ndim == 4 and suggested_format(input._data) == "channels_last":  # ATen restrides it so
            out._data = in_format(out._data, "channels_last")
        return out
    if input.ndim not in (3, 4):
        raise RuntimeError(f"adaptive_avg_pool2d(): Expected 3D or 4D tensor, but got {shape_text(input.shape)}")
    for dim in (-2, -1):
        if input.shape[dim] <= 0:
            raise RuntimeError(f"adaptive_avg_pool2d(): Expected input to have non-zero size for non-batch dimensions, "
                               f"but input has sizes {shape_text(input.shape)} with dimension {dim + input.ndim} being "
                               "empty")
    empty = 0 in input.shape[:-2] or 0 in out  # an empty output: the kernel (and its dtype's dispatch) never runs
    if input._dtype.category != dtypes.FLOATING and not empty:
        raise NotImplementedError(f"\"adaptive_avg_pool2d\" not implemented for '{input._dtype._scalar_name}'")
    data = np.zeros(input.shape[:-2] + out, input._data.dtype) if empty else _in_float(input._data, out)
    return record(ADAPTIVE_AVG_POOL2D, (input,), in_suggested_format(data, input._data), input._dtype)


def adaptive_windows(input_shape: tuple, output_size: tuple) -> Any:
    """Each output position of an adaptive pool over the last len(output_size) dims, with its
    window's slices and sizes."""
    dims = len(output_size)
    for corner in np.ndindex(*output_size):
        bounds = [_adaptive_bounds(size, out)[i] for size, out, i in zip(input_shape[-dims:], output_size, corner)]
        yield corner, tuple(slice(a, b) for a, b in bounds), [b - a for a, b in bounds]


def _adaptive_average(x: np.ndarray, output_size: tuple, rounded: Any) -> np.ndarray:
    """ATen's adaptive average pools: each window summed in order, then divided by each of its
    sizes in turn, `rounded` after each step (to the dtype the kernel adds in)."""
    dims = len(output_size)
    out = np.empty(x.shape[:-dims] + tuple(output_size), x.dtype)
    for corner, window, sizes in adaptive_windows(x.shape, output_size):
        values = x[(Ellipsis,) + window].reshape(x.shape[:-dims] + (int(np.prod(sizes)),))
        total = values[..., 0]
        for k in range(1, values.shape[-1]):
            total = rounded(total + values[..., k])
        for size in sizes:
            total = rounded(total / x.dtype.type(size))
        out[(Ellipsis,) + corner] = total
    return out


def _adaptive_average_backward(grad: np.ndarray, input_shape: tuple, dims: int, rounded: Any) -> np.ndarray:
    """Each output's gradient divided by each of its window's sizes in turn and added to the
    window (over the last `dims` dims), in the order of the outputs, `rounded` after each step."""
    result = np.zeros(input_shape, grad.dtype)
    for corner, window, sizes in adaptive_windows(input_shape, grad.shape[-dims:]):
        delta = grad[(Ellipsis,) + corner]
        for size in sizes:
            delta = rounded(delta / grad.dtype.type(size))
        index = (Ellipsis,) + window
        result[index] = rounded(result[index] + delta[(Ellipsis,) + (None,) * dims])
    return result


def _in_own_type(storage: Any) -> Any:
    """Rounding after each step of a kernel that computes in the dtype itself (numpy's float16
    arithmetic rounds already; bfloat16 is held in float32)."""
    return dtypes.round_to_bfloat16 if storage is dtypes.bfloat16 else (lambda values: values)


def _adaptive_avg_3d_grad(grad: Tensor, self: Tensor) -> Tensor:
    data = _adaptive_average_backward(grad._data, self.shape, 3, _in_own_type(grad._dtype))
    if grad_mode.is_grad_enabled() and grad.requires_grad:
        sizes = {f"grad_output_sym_argsize_minus_{i}": grad.shape[-i] for i in (1, 2, 3)}
        return record(ADAPTIVE_AVG_POOL3D_BACKWARD, (grad, self), data, grad._dtype, **sizes)
    return Tensor._make(data, grad._dtype)


ADAPTIVE_AVG_POOL3D = node("AdaptiveAvgPool3DBackward0", ("self",),
                           jvp={"self": lambda tangent, result: adaptive_avg_pool3d(tangent, result.shape[-3:])},
                           self=_adaptive_avg_3d_grad)
# the backward is linear in the gradient: its own gradient is the pool of the incoming one
ADAPTIVE_AVG_POOL3D_BACKWARD = node(
    "AdaptiveAvgPool3DBackwardBackward0", ("grad_output", "self"),
    grad_output=lambda grad, grad_output_sym_argsize_minus_3, grad_output_sym_argsize_minus_2,
    grad_output_sym_argsize_minus_1: adaptive_avg_pool3d(grad, (grad_output_sym_argsize_minus_3,
                                                                grad_output_sym_argsize_minus_2,
                                                                grad_output_sym_argsize_minus_1)),
    self=lambda grad: zeros_like(grad))


@op(module="nn", nodes=(ADAPTIVE_AVG_POOL3D,))
def adaptive_avg_pool3d(input: Tensor, output_size: Sequence[int]) -> Tensor:
    sizes = tuple(output_size)
    if len(sizes) != 3:
        raise RuntimeError("adaptive_avg_pool3d: output_size must be 3")
    if sizes == (1, 1, 1):
        # PyTorch takes the mean over the volume
        return input.mean((-1, -2, -3), keepdim=True)
    if any(size < 0 for size in sizes):
        raise RuntimeError("adaptive_avg_pool3d: elements of output_size must be greater than or equal to 0 but "
                           f"received {{{sizes[0]}, {sizes[1]},{sizes[2]}}}")
    if input.ndim not in (4, 5):
        raise RuntimeError(f"adaptive_avg_pool3d(): Expected 4D or 5D tensor, but got {shape_text(input.shape)}")
    check_non_batch_dims("adaptive_avg_pool3d", input)
    if input._dtype.category != dtypes.FLOATING:
        raise not_implemented_for("adaptive_avg_pool3d_cpu", input._dtype)
    return record(ADAPTIVE_AVG_POOL3D, (input,), _adaptive_average(input._data, sizes, _in_own_type(input._dtype)),
                  input._dtype)


def check_non_batch_dims(name: str, input: Tensor) -> None:
    """An adaptive pool's check that every dimension but the batch's is non-empty."""
    for dim in range(1, input.ndim):
        if input.shape[dim] == 0:
            raise RuntimeError(f"{name}(): Expected input to have non-zero size for non-batch dimensions, but input "
                               f"has sizes {shape_text(input.shape)} with dimension {dim} being empty")


def adaptive_max_pool2d_with_indices(input: Tensor, output_size: Any) -> tuple:
    # its own checks, before those it shares with the average: every dimension but the batch's non-empty
    if input.ndim not in (3, 4):
        raise RuntimeError(f"adaptive_max_pool2d(): Expected 3D or 4D tensor, but got: {shape_text(input.shape)}")
    check_non_batch_dims("adaptive_max_pool2d", input)
    out = _adaptive_size(input, output_size, "adaptive_max_pool2d(): internal error: output_size.size() must be 2")
    if input._dtype.category != dtypes.FLOATING:
        raise not_implemented_for("adaptive_max_pool2d", input._dtype)
    x = input._data
    values = np.empty(x.shape[:-2] + out, dtype=x.dtype)
    indices = np.empty(x.shape[:-2] + out, dtype=np.int64)
    for i, (r0, r1) in enumerate(_adaptive_bounds(x.shape[-2], out[0])):
        for j, (c0, c1) in enumerate(_adaptive_bounds(x.shape[-1], out[1])):
            window = x[..., r0:r1, c0:c1].reshape(x.shape[:-2] + ((r1 - r0) * (c1 - c0),))
            best = window_argmax(window)
            values[..., i, j] = np.take_along_axis(window, best[..., None], axis=-1)[..., 0]
            indices[..., i, j] = (r0 + best // (c1 - c0)) * x.shape[-1] + c0 + best % (c1 - c0)
    index_tensor = int64_tensor(indices)
    return record(ADAPTIVE_MAX_POOL2D, (input,), values, input._dtype, result1=index_tensor), index_tensor


@op(nodes=(ADAPTIVE_MAX_POOL2D,), method=False, function=False)
def adaptive_max_pool2d(input: Tensor, output_size: Sequence[int]) -> Tensor:
    return adaptive_max_pool2d_with_indices(input, output_size)[0]


# ------------------------------------------------------------------ unpooling

@op(module="nn", nodes=(MAX_UNPOOL2D,))
def max_unpool2d(input: Tensor, indices: Tensor, output_size: Sequence[int]) -> Tensor:
    """Each value put back at the flat index (in its plane) its max pool took it from; zeros elsewhere."""
    if indices._dtype is not dtypes.int64:
        raise RuntimeError(f"elements in indices should be type int64 but got: {indices._dtype._scalar_name}")
    if len(output_size) != 2:
        raise RuntimeError(f"There should be exactly two elements (height, width) in output_size, but got "
                           f"{len(output_size)} elements.")
    if input.ndim not in (3, 4):
        raise RuntimeError(f"Input to max_unpooling2d should be a 3d or 4d Tensor, but got a tensor with {input.ndim} "
                           "dimensions.")
    if input.shape != indices.shape:
        raise RuntimeError(f"Expected shape of indices to be same as that of the input tensor ({shape_text(input.shape)}) "
                           f"but got indices tensor with shape: {shape_text(indices.shape)}")
    if not input.is_floating_point():
        raise not_implemented_for("max_unpool2d", input._dtype)
    height, width = output_size
    planes = input.shape[:-2]
    values = input._data.reshape(planes + (-1,))
    flat = indices._data.reshape(planes + (-1,))
    invalid = (flat < 0) | (flat >= height * width)
    if invalid.any():
        # the kernel keeps the last bad index it meets
        raise RuntimeError(f"Found an invalid max index: {flat[invalid][-1]} (output volumes are of size "
                           f"{height}x{width})")
    out = np.zeros(planes + (height * width,), dtype=values.dtype)
    np.put_along_axis(out, flat, values, axis=-1)
    return record(MAX_UNPOOL2D, (input,), out.reshape(planes + (height, width)), input._dtype, indices=indices)


def pooled_1d(pool: Any, input: Tensor, *args: Any, **kwargs: Any) -> Any:
    """A 1-d pool as PyTorch computes it: the 2-d pool of the input with a dim of 1 before the
    last, squeezed away again (SqueezeBackward1)."""
    result = pool(input.unsqueeze(-2), *args, **kwargs)
    if isinstance(result, tuple):
        return tuple(t.squeeze(-2) for t in result)
    return result.squeeze(-2)


# ------------------------------------------------------------------ 1-d, as the 2-d pools

def _check_1d_pool(function: str, input: Tensor, **sizes: tuple) -> None:
    """ATen's checkDimRange and check1d of a 1-d pool made of the 2-d one."""
    if input.ndim not in (2, 3):
        raise RuntimeError(f"Expected 2 to 3 dimensions, but got {input.ndim}-dimensional tensor for argument #1 "
                           f"'self' (while checking arguments for {function})")
    for name, values in sizes.items():
        if len(values) != 1:
            raise RuntimeError(f"{function}() argument '{name}' should contain one int (got {len(values)})")


def _check_max_pool1d(input: Tensor, kernel: tuple, stride: tuple, padding: tuple, dilation: tuple,
                      ceil_mode: bool) -> None:
    """ATen's check_max_pool1d."""
    if input.ndim not in (2, 3):
        raise RuntimeError("max_pool1d: Expected 2D or 3D (batch mode) tensor with optional 0 dim batch size for "
                           f"input, but got:{shape_text(input.shape)}")
    if len(kernel) != 1:
        raise RuntimeError(f"max_pool1d() kernel_size must be an int, list of ints or tuple of ints of size 1 but "
                           f"got size {len(kernel)}")
    if len(stride) > 1:
        raise RuntimeError(f"max_pool1d() stride must be None, an int, list of ints, or tuple of ints of size 1 but "
                           f"got size {len(stride)}")
    for name, values in (("padding", padding), ("dilation", dilation)):
        if len(values) != 1:
            article = ", or" if name == "padding" else " or"
            raise RuntimeError(f"max_pool1d() {name} must be an int, list of ints{article} tuple of ints of size 1 "
                               f"but got size {len(values)}")
    kernel, stride, padding, dilation = kernel[0], (stride or kernel)[0], padding[0], dilation[0]
    for name, value in (("kernel_size", kernel), ("stride", stride)):
        if value <= 0:
            raise RuntimeError(f"max_pool1d() {name} must be greater than zero, but got {value}")
    if padding < 0:
        raise RuntimeError(f"max_pool1d() padding must be non-negative, but got {padding}")
    if padding > kernel // 2:
        raise RuntimeError(f"max_pool1d() padding should be at most half of kernel size, but got padding={padding} "
                           f"and kernel_size={kernel}")
    if dilation <= 0:
        raise RuntimeError(f"max_pool1d() dilation must be greater than zero, but got {dilation}")
    width = output_length(input.shape[-1], kernel, stride, padding, dilation, ceil_mode)
    if width <= 0:
        raise RuntimeError(f"max_pool1d() Invalid computed output size: {width}")


def _pooled_max_1d(input: Tensor, kernel: tuple, stride: tuple, padding: tuple, dilation: tuple,
                   ceil_mode: bool) -> tuple:
    """ATen's max_pool1d_with_indices: the 2-d pool's, on the input with a dim of 1 before the last."""
    stride = stride or kernel
    _check_1d_pool("max_pool1d", input, kernel_size=kernel, stride=stride, padding=padding, dilation=dilation)
    return pooled_1d(max_pool2d_with_indices, input, (1, kernel[0]), (1, stride[0]), (0, padding[0]),
                     (1, dilation[0]), ceil_mode)


@op(method=False)
def max_pool1d(input: Tensor, kernel_size: Sequence[int], stride: Sequence[int] = (), padding: Any = (0,),
               dilation: Any = (1,), ceil_mode: bool = False) -> Tensor:
    _check_max_pool1d(input, kernel_size, stride, padding, dilation, ceil_mode)
    if input._dtype.category != dtypes.FLOATING:  # (its own kernel's dispatch)
        raise not_implemented_for("max_pool1d_impl", input._dtype)
    if input.requires_grad and grad_mode.is_grad_enabled():  # ATen's gradient needs the pool with indices
        return _pooled_max_1d(input, kernel_size, stride, padding, dilation, ceil_mode)[0]
    stride = stride or kernel_size  # ATen's own kernel, which reads its sizes as int64
    return pooled_1d(max_pool2d_with_indices, input, (1, kernel_size[0]), (1, stride[0]), (0, padding[0]),
                     (1, dilation[0]), ceil_mode, c_ints=False)[0]


@op(method=False)
def max_pool1d_with_indices(input: Tensor, kernel_size: Sequence[int], stride: Sequence[int] = (), padding: Any = (0,),
                            dilation: Any = (1,), ceil_mode: bool = False) -> tuple:
    return _pooled_max_1d(input, kernel_size, stride, padding, dilation, ceil_mode)


@op(method=False)
def avg_pool1d(input: Tensor, kernel_size: Sequence[int], stride: Sequence[int] = (), padding: Any = (0,),
               ceil_mode: bool = False, count_include_pad: bool = True) -> Tensor:
    stride = stride or kernel_size
    _check_1d_pool("avg_pool1d", input, kernel_size=kernel_size, stride=stride, padding=padding)
    return pooled_1d(avg_pool2d, input, (1, kernel_size[0]), (1, stride[0]), (0, padding[0]), ceil_mode,
                     count_include_pad)


@op(method=False)
def adaptive_avg_pool1d(input: Tensor, output_size: Sequence[int]) -> Tensor:
    _check_1d_pool("adaptive_avg_pool1d", input, output_size=output_size)
    return pooled_1d(adaptive_avg_pool2d, input, (1,) + tuple(output_size))


@op(method=False)
def adaptive_max_pool1d(input: Tensor, output_size: Sequence[int]) -> tuple:
    _check_1d_pool("adaptive_max_pool1d", input, output_size=output_size)
    return pooled_1d(adaptive_max_pool2d_with_indices, input, (1,) + tuple(output_size))
