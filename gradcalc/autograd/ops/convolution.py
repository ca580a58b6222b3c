"""Convolutions, 1-d to 3-d, plain and transposed, with strides, padding, dilation and groups:
one node (ConvolutionBackward0) as in PyTorch. The kernels are im2col: the input's windows
(numpy's sliding_window_view) against the weight in one matrix product per group; the input's
gradient scatters the windows' gradients back, one strided add per kernel offset. A float32 2-d
convolution that ATen hands to oneDNN's direct kernel (one group, no dilation, an NCHW input) is
that kernel's order of fused multiply-adds instead (`_onednn_direct`)."""
from __future__ import annotations

import itertools
import math
from typing import Any, Optional, Sequence

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from .. import cpu, dtypes, grad_mode, meta
from ..kernels import fused_multiply_add
from ..layout import in_suggested_format, suggested_format
from ..native import kernels as native
from ..tensor import Tensor
from ...warnings import warn_once
from .arrangement import constant_pad_nd
from .common import ABSENT, not_implemented_for, opmath_array, shape_text
from .registry import NOT_IMPLEMENTED, node, op, record


def _conv_grads(grad: Tensor, input: Tensor, weight: Tensor, stride: tuple, padding: tuple, dilation: tuple,
                transposed: bool, output_padding: tuple, groups: int, which: str) -> Optional[Tensor]:
    g = grad._data
    x, w = input._data, weight._data
    if x.shape[1] == 0 and not transposed:  # no channels: both gradients are as empty as their tensors
        data = np.zeros(w.shape if which == "weight" else x.shape)
    elif not transposed and which == "input" and g.dtype == np.float32 and all(s == 1 for s in stride) \
            and w.shape[2:] != (1, 1) and all(2 * p < k for p, k in zip(padding, w.shape[2:])) \
            and _onednn_direct_takes(input, x, w, stride, dilation, output_padding, groups):
        # (the cases read from PyTorch: stride 1, at most "same" padding; AVX2's kernel sums a wider
        # padding otherwise)
        data = _onednn_direct_grad_input(g, w, x.shape, padding)
    elif not transposed:
        data = (_grad_input(g, w, x.shape, stride, padding, dilation, groups) if which == "input"
                else _grad_weight(x, g, w.shape, stride, padding, dilation, groups))
    elif which == "input":
        data = _forward(g, w, stride, padding, dilation, groups)
    else:
        data = _grad_weight(g, x, w.shape, stride, padding, dilation, groups)
    like = weight if which == "weight" else input
    result = Tensor._make(np.asarray(data, dtype=like._dtype._numpy), like._dtype)
    if grad_mode.is_grad_enabled() and (grad.requires_grad or input.requires_grad or weight.requires_grad):
        # a second derivative of a convolution is not computed: backward through it says so
        return record(NOT_IMPLEMENTED, (grad, input, weight), result._data, result._dtype,
                      _aten="convolution_backward")
    return result


CONVOLUTION = node(
    "ConvolutionBackward0", ("input", "weight", "bias"), saved=("bias_sym_sizes_opt",),
    # bilinear in input and weight, linear in bias
    jvp={"input": lambda tangent, weight, stride, padding, dilation, transposed, output_padding, groups: convolution(
             tangent, weight, None, stride, padding, dilation, transposed, output_padding, groups),
         "weight": lambda tangent, input, stride, padding, dilation, transposed, output_padding, groups: convolution(
             input, tangent, None, stride, padding, dilation, transposed, output_padding, groups),
         "bias": lambda tangent, result: tangent.reshape((1, -1) + (1,) * (result.ndim - 2)).expand(result.shape)},
    input=lambda grad, input, weight, stride, padding, dilation, transposed, output_padding, groups: _conv_grads(
        grad, input, weight, stride, padding, dilation, transposed, output_padding, groups, "input"),
    weight=lambda grad, input, weight, stride, padding, dilation, transposed, output_padding, groups: _conv_grads(
        grad, input, weight, stride, padding, dilation, transposed, output_padding, groups, "weight"),
    bias=lambda grad, bias_sym_sizes_opt: _bias_grad(grad, bias_sym_sizes_opt))


def _bias_grad(grad: Tensor, bias_size: tuple) -> Tensor:
    if grad.shape[1] != bias_size[0]:  # an input of no channels gave an output of none: the bias had no part
        return grad.new_zeros(bias_size)
    return grad.sum((0,) + tuple(range(2, grad.ndim)))


# ------------------------------------------------------------------ kernels

def _windows(x: np.ndarray, kernel: tuple, stride: tuple, padding: tuple, dilation: tuple) -> np.ndarray:
    """The input's windows: (N, C, *output positions, *kernel offsets), a strided view."""
    spatial = len(kernel)
    if any(padding):
        x = np.pad(x, [(0, 0), (0, 0)] + [(p, p) for p in padding])
    extent = tuple(d * (k - 1) + 1 for k, d in zip(kernel, dilation))
    view = sliding_window_view(x, extent, axis=tuple(range(2, 2 + spatial)))
    return view[(slice(None), slice(None)) + tuple(slice(None, None, s) for s in stride)
                + tuple(slice(None, None, d) for d in dilation)]


def _columns(x: np.ndarray, kernel: tuple, stride: tuple, padding: tuple, dilation: tuple, groups: int) -> tuple:
    """im2col per group: (groups, N * positions, C/groups * kernel size), and the output positions' shape."""
    windows = _windows(x, kernel, stride, padding, dilation)
    n, c = x.shape[:2]
    spatial = len(kernel)
    out_shape = windows.shape[2:2 + spatial]
    grouped = windows.reshape((n, groups, c // groups) + windows.shape[2:])
    # (groups, N, *positions, C/groups, *kernel)
    order = (1, 0) + tuple(range(3, 3 + spatial)) + (2,) + tuple(range(3 + spatial, 3 + 2 * spatial))
    # the last size given, not -1: an empty batch leaves numpy nothing to infer it from
    columns = grouped.transpose(order).reshape(groups, n * math.prod(out_shape), c // groups * math.prod(kernel))
    return columns, out_shape


def _forward(x: np.ndarray, w: np.ndarray, stride: tuple, padding: tuple, dilation: tuple,
             groups: int) -> np.ndarray:
    kernel = w.shape[2:]
    columns, out_shape = _columns(x, kernel, stride, padding, dilation, groups)
    out_channels = w.shape[0]
    weights = w.reshape(groups, out_channels // groups, -1)
    product = np.matmul(columns, weights.transpose(0, 2, 1))  # (groups, N * positions, O/groups)
    n = x.shape[0]
    product = product.reshape((groups, n) + out_shape + (out_channels // groups,))
    spatial = len(kernel)
    order = (1, 0, 2 + spatial) + tuple(range(2, 2 + spatial))
    return np.ascontiguousarray(product.transpose(order)).reshape((n, out_channels) + out_shape)


# oneDNN's direct kernels take the input channels in blocks of a register's floats
_ONEDNN_BLOCK = {True: 16, False: 8}


def _onednn_direct(x: np.ndarray, w: np.ndarray, bias: Optional[np.ndarray], stride: tuple,
                   padding: tuple, one_by_one: bool = True) -> np.ndarray:
    """A float32 (N, C, H, W) convolution as oneDNN's jit:avx512_core (AVX-512) or jit:avx2 kernel
    computes it, the bias included: each output element a chain of fused multiply-adds over the
    input channels in blocks, within a block the kernel's rows, columns, then channels. AVX-512
    sums each block from zero and adds the bias to the first block's sum, then each later block's
    sum; AVX2, and the 1x1 kernels (jit_1x1) of both, run one chain from the bias (checked against
    PyTorch, with oneDNN capped at each instruction set, on LeNet's and ResNet's layers). The
    native kernel (csrc/convolution.c) or its numpy emulation here."""
    block = _ONEDNN_BLOCK[cpu.ATEN_AVX512]
    # (each block summed apart; `one_by_one`: a 1x1 kernel is oneDNN's jit_1x1, which does not)
    avx512 = cpu.ATEN_AVX512 and not (one_by_one and w.shape[2:] == (1, 1) and not any(padding))
    if any(padding):
        x = np.pad(x, [(0, 0), (0, 0)] + [(p, p) for p in padding])
    x = np.ascontiguousarray(x, np.float32)
    (n, channels, height, width), (outs, _, kh, kw) = x.shape, w.shape
    out_h, out_w = (height - kh) // stride[0] + 1, (width - kw) // stride[1] + 1
    out = np.empty((n, outs, out_h, out_w), np.float32)
    if native is not None:
        native.conv2d_direct_float32(x, np.ascontiguousarray(w, np.float32), None if bias is None else
                                     np.ascontiguousarray(bias, np.float32), out, stride[0], stride[1], block, avx512)
        return out
    zero = np.zeros(out.shape, np.float32)
    biases = zero if bias is None else np.broadcast_to(bias.astype(np.float32)[:, None, None], out.shape)
    total = None if avx512 else biases.copy()
    for start in range(0, channels, block):
        acc = zero if avx512 else total
        for i, j, c in itertools.product(range(kh), range(kw), range(start, min(start + block, channels))):
            window = x[:, c, i:i + stride[0] * (out_h - 1) + 1:stride[0],
                       j:j + stride[1] * (out_w - 1) + 1:stride[1]]
            acc = fused_multiply_add(window[:, None], w[:, c, i, j][None, :, None, None], acc)
        if not avx512:
            total = acc
        elif total is None:
            total = acc if bias is None else acc + biases
        else:
            total = total + acc
    return total


def _onednn_direct_grad_input(g: np.ndarray, w: np.ndarray, input_shape: tuple, padding: tuple) -> np.ndarray:
    """The input's gradient of a stride-1 convolution as oneDNN's backward-data kernels compute it:
    for each input element, fused multiply-adds over the output channels in blocks, within a block
    the kernel's rows, columns (in the weight's order), then channels; AVX-512 sums each block from
    zero and adds the sums, AVX2 runs one chain (read from PyTorch's results as the forward's). That
    is _onednn_direct's order on the gradient padded to full windows and turned around in both
    spatial dimensions, against the weight with its channels swapped; its result turned back."""
    (kh, kw), (height, width) = w.shape[2:], input_shape[2:]
    full = []
    for size, out, k, p in zip((height, width), g.shape[2:], (kh, kw), padding):
        before = k - 1 - p  # (negative: more padding than the kernel reaches, cut off)
        full.append((before, size + k - 1 - before - out))
    padded = np.pad(g, [(0, 0), (0, 0)] + [(max(b, 0), max(a, 0)) for b, a in full])
    padded = padded[:, :, max(-full[0][0], 0):padded.shape[2] - max(-full[0][1], 0),
                    max(-full[1][0], 0):padded.shape[3] - max(-full[1][1], 0)]
    turned = _onednn_direct(padded[:, :, ::-1, ::-1], np.ascontiguousarray(w.transpose(1, 0, 2, 3)), None, (1, 1),
                            (0, 0), one_by_one=False)
    return np.ascontiguousarray(turned[:, :, ::-1, ::-1])


def _output_columns(g: np.ndarray, groups: int) -> np.ndarray:
    """A gradient (N, O, *positions) as (groups, N * positions, O/groups)."""
    n, out_channels = g.shape[:2]
    spatial = g.ndim - 2
    grouped = g.reshape((n, groups, out_channels // groups) + g.shape[2:])
    order = (1, 0) + tuple(range(3, 3 + spatial)) + (2,)
    return grouped.transpose(order).reshape(groups, -1, out_channels // groups)


def _grad_input(g: np.ndarray, w: np.ndarray, input_shape: tuple, stride: tuple, padding: tuple,
                dilation: tuple, groups: int) -> np.ndarray:
    """The gradient of the input from the output's: each window's share, added back in place."""
    kernel = w.shape[2:]
    spatial = len(kernel)
    n, channels = input_shape[:2]
    out_shape = g.shape[2:]
    weights = w.reshape(groups, w.shape[0] // groups, -1)
    columns = np.matmul(_output_columns(g, groups), weights)  # (groups, N * positions, C/groups * kernel)
    columns = columns.reshape((groups, n) + out_shape + (channels // groups,) + kernel)
    # (N, C, *positions, *kernel)
    order = (1, 0, 2 + spatial) + tuple(range(2, 2 + spatial)) + tuple(range(3 + spatial, 3 + 2 * spatial))
    columns = columns.transpose(order).reshape((n, channels) + out_shape + kernel)
    padded = np.zeros((n, channels) + tuple(size + 2 * p for size, p in zip(input_shape[2:], padding)),
                      dtype=g.dtype)
    for offsets in itertools.product(*(range(k) for k in kernel)):
        target = tuple(slice(o * d, o * d + s * (size - 1) + 1, s)
                       for o, d, s, size in zip(offsets, dilation, stride, out_shape))
        padded[(slice(None), slice(None)) + target] += columns[(Ellipsis,) + offsets]
    return padded[(slice(None), slice(None)) + tuple(slice(p, p + size) for p, size in zip(padding,
                                                                                          input_shape[2:]))]


def _grad_weight(x: np.ndarray, g: np.ndarray, weight_shape: tuple, stride: tuple, padding: tuple,
                 dilation: tuple, groups: int) -> np.ndarray:
    kernel = weight_shape[2:]
    columns, out_shape = _columns(x, kernel, stride, padding, dilation, groups)
    # the positions past the last full window of the gradient's extent take no part
    grads = _output_columns(g[(slice(None), slice(None)) + tuple(slice(0, size) for size in out_shape)], groups)
    if x.dtype == np.float16:
        return _half_grad_weight(grads.transpose(0, 2, 1), columns, x.shape[0]).reshape(weight_shape)
    # contiguous operands: numpy hands those to BLAS, strided ones to a slow loop of its own
    return np.matmul(np.ascontiguousarray(grads.transpose(0, 2, 1)), np.ascontiguousarray(columns)).reshape(
        weight_shape)


def _half_grad_weight(grads: np.ndarray, columns: np.ndarray, batch: int) -> np.ndarray:
    """float16's weight gradient as ATen's slow convolution takes it: one product per sample, each
    summed in float32 and added to the float16 gradient so far (gemm with beta 1), rounded once."""
    groups, outputs, positions = grads.shape
    per_sample = positions // batch if batch else 0
    total = np.zeros((groups, outputs, columns.shape[-1]), np.float16)
    for i in range(batch):
        rows = slice(i * per_sample, (i + 1) * per_sample)
        part = np.matmul(grads[:, :, rows].astype(np.float32), columns[:, rows].astype(np.float32))
        total = (total.astype(np.float32) + part).astype(np.float16)
    return total


# ------------------------------------------------------------------ checks

def _expand(value: Any, spatial: int, name: str) -> tuple:
    """ATen's expand_param_if_needed: one value for every spatial dim, or one per dim."""
    values = tuple(value) if isinstance(value, (tuple, list)) else (value,)
    if len(values) == 1:
        return values * spatial
    if len(values) != spatial:
        raise RuntimeError(f"expected {name} to be a single integer value or a list of {spatial} values to match "
                           f"the convolution dimensions, but got {name}={list(values)}")
    return values


def _check(input: Tensor, weight: Tensor, bias: Optional[Tensor], stride: tuple, padding: tuple, dilation: tuple,
           transposed: bool, output_padding: tuple, groups: int) -> None:
    # in ATen's order (the groups in _convolution, the rest in check_shape_forward); a dilation of 0
    # is left to the kernel
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")
    if any(p < 0 for p in padding):
        raise RuntimeError("negative padding is not supported")
    if transposed and any(p < 0 for p in output_padding):
        raise RuntimeError("negative output_padding is not supported")
    if any(s <= 0 for s in stride):
        raise RuntimeError("non-positive stride is not supported")
    if any(d < 0 for d in dilation):
        raise RuntimeError("dilation should be greater than zero")
    if input.ndim != weight.ndim:
        raise RuntimeError(f"Expected {weight.ndim}-dimensional input for {weight.ndim}-dimensional weight "
                           f"{shape_text(weight.shape)}, but got {input.ndim}-dimensional input of size "
                           f"{shape_text(input.shape)} instead")
    if weight.shape[0] < groups:
        raise RuntimeError(f"Given groups={groups}, expected weight to be at least {groups} at dimension 0, but got "
                           f"weight of size {shape_text(weight.shape)} instead")
    if weight.shape[0] % groups:  # (ATen's message puts the sizes in brackets twice)
        raise RuntimeError(f"Given groups={groups}, expected weight to be divisible by {groups} at dimension 0, "
                           f"but got weight of size [{shape_text(weight.shape)}] instead")
    channels = input.shape[1]
    if not transposed:
        if channels != weight.shape[1] * groups:
            raise RuntimeError(f"Given groups={groups}, weight of size {shape_text(weight.shape)}, expected "
                               f"input{shape_text(input.shape)} to have {weight.shape[1] * groups} channels, but got "
                               f"{channels} channels instead")
        if bias is not None and (bias.ndim != 1 or bias.shape[0] != weight.shape[0]):
            raise RuntimeError(f"Given weight of size {shape_text(weight.shape)}, expected bias to be 1-dimensional "
                               f"with {weight.shape[0]} elements, but got bias of size {shape_text(bias.shape)} "
                               "instead")
        padded = tuple(size + 2 * p for size, p in zip(input.shape[2:], padding))
        extent = tuple(d * (k - 1) + 1 for k, d in zip(weight.shape[2:], dilation))
        if any(e > p for e, p in zip(extent, padded)):
            raise RuntimeError(f"Calculated padded input size per channel: ({' x '.join(map(str, padded))}). Kernel "
                               f"size: ({' x '.join(map(str, extent))}). Kernel size can't be greater than actual "
                               "input size")
    else:
        if channels != weight.shape[0]:
            raise RuntimeError(f"Given transposed={int(transposed)}, weight of size {shape_text(weight.shape)}, "
                               f"expected input{shape_text(input.shape)} to have {weight.shape[0]} channels, but got "
                               f"{channels} channels instead")
        if bias is not None and (bias.ndim != 1 or bias.shape[0] != weight.shape[1] * groups):
            raise RuntimeError(f"Given transposed={int(transposed)}, weight of size {shape_text(weight.shape)}, "
                               f"expected bias to be 1-dimensional with {weight.shape[1] * groups} elements, but got "
                               f"bias of size {shape_text(bias.shape)} instead")
        for op_, s, d in zip(output_padding, stride, dilation):
            if op_ >= s and op_ >= d:
                raise RuntimeError("output padding must be smaller than either stride or dilation, but got "
                                   f"output_padding_height: {output_padding[0]} output_padding_width: "
                                   f"{output_padding[-1]} stride_height: {stride[0]} stride_width: {stride[-1]} "
                                   f"dilation_height: {dilation[0]} dilation_width: {dilation[-1]}")
    _check_dtypes(input, weight, bias, transposed)


def _check_dtypes(input: Tensor, weight: Tensor, bias: Optional[Tensor], transposed: bool) -> None:
    """After the shapes, as ATen checks: the transposed kernel's dispatch, the bias, then the weight (the
    error a uint8 image meets)."""
    if transposed and input._dtype in (dtypes.uint8, dtypes.int8, dtypes.int16, dtypes.int32, dtypes.bool_):
        kernel = "slow_conv_transpose3d_out_cpu" if input.ndim == 5 else "slow_conv_transpose2d_out_cpu"
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{input._dtype._scalar_name}'")
    # a bfloat16 input takes oneDNN's path where oneDNN has AVX-512 (PyTorch's avx512 capability), with
    # checks of its own
    onednn = _onednn_bfloat16(input)
    if onednn and transposed:
        _check_onednn_dtype(input, weight, "weight")
        _check_onednn_dtype(input, bias, "bias")
    if bias is not None and bias._dtype is not input._dtype:
        raise RuntimeError(f"Input type ({input._dtype._cpp_name}) and bias type ({bias._dtype._cpp_name}) should be "
                           "the same")
    if onednn:
        _check_onednn_dtype(input, weight, "weight")
    if input._dtype is not weight._dtype:
        raise RuntimeError(f"expected scalar type {input._dtype._scalar_name} but found {weight._dtype._scalar_name}")


def _onednn_bfloat16(input: Tensor) -> bool:
    return input._dtype is dtypes.bfloat16 and cpu.ATEN_AVX512


def _takes_onednn(x_shape: tuple, w_shape: tuple, stride: tuple, dilation: tuple, output_padding: tuple,
                  groups: int, input: Tensor) -> bool:
    """ATen's use_mkldnn for a transposed convolution on one thread: float32 where it judges oneDNN
    the faster (bfloat16 with AVX-512), a 1-d convolution seen as a 2-d one of height 1."""
    if any(extra >= s for extra, s in zip(output_padding, stride)):
        return False
    if _onednn_bfloat16(input):
        return True
    if input._dtype is not dtypes.float32:
        return False
    if len(x_shape) == 3:
        x_shape, w_shape = x_shape[:2] + (1,) + x_shape[2:], w_shape[:2] + (1,) + w_shape[2:]
    batch = x_shape[0]
    worth = (any(s != 1 for s in stride) or any(d != 1 for d in dilation) or batch >= 16 or w_shape[-1] != 1
             or w_shape[-2] != 1)
    return worth and (groups > 1 or (w_shape[-1] > 3 and w_shape[-2] > 3) or batch > 1
                      or math.prod(x_shape[:4]) > 20480)


def _onednn_direct_takes(input: Tensor, x: np.ndarray, w: np.ndarray, stride: tuple, dilation: tuple,
                         output_padding: tuple, groups: int) -> bool:
    """Whether ATen hands this convolution to oneDNN's direct kernel as _onednn_direct computes it:
    float32, 2-d, an NCHW input, one group, no dilation, oneDNN judged the faster (use_mkldnn)."""
    return (input._dtype is dtypes.float32 and x.ndim == 4 and groups == 1 and all(d == 1 for d in dilation)
            and suggested_format(x) == "contiguous_format" and x.size > 0 and w.size > 0
            and _takes_onednn(x.shape, w.shape, stride, dilation, output_padding, groups, input))


def _check_kernel_size(input: Tensor, weight: Tensor, stride: tuple, dilation: tuple, output_padding: tuple,
                       groups: int, transposed: bool) -> None:
    """A kernel of size 0, refused by the backend ATen takes: oneDNN cannot make its primitive; the slow
    kernels name the sizes (a 1-d kernel seen as 2-d, of height 1)."""
    kernel = weight.shape[2:]
    if all(kernel):
        return
    if _takes_onednn(input.shape, weight.shape, stride, dilation, output_padding, groups, input):
        raise RuntimeError(f"could not create a primitive descriptor for the {'de' if transposed else ''}convolution "
                           "forward propagation primitive. Run workload with environment variable ONEDNN_VERBOSE=all "
                           "to get additional diagnostic information.")
    if len(kernel) == 3:
        raise RuntimeError(f"kernel size should be greater than zero, but got: {' x '.join(map(str, kernel))} (TxHxW)")
    height, width = ((1,) + kernel)[-2:]
    raise RuntimeError(f"kernel size should be greater than zero, but got kernel_height: {height} kernel_width: "
                       f"{width}")


def _refuse_zero_dilation(input: Tensor, weight: Tensor, stride: tuple, dilation: tuple, output_padding: tuple,
                          groups: int, transposed: bool) -> None:
    """A dilation of 0, which ATen's shared checks let through, refused by the backend it takes
    (a 1-d convolution seen as 2-d, of height 1)."""
    if _takes_onednn(input.shape, weight.shape, stride, dilation, output_padding, groups, input):
        raise RuntimeError("non-positive dilation is not supported")
    shown = (1,) + dilation if len(dilation) == 1 else dilation
    if not transposed:
        raise RuntimeError(f"dilation should be greater than zero, but got {list(shown)}")
    names = ("dilation_depth", "dilation_height", "dilation_width")[-len(shown):]
    raise RuntimeError("dilation should be greater than zero, but got "
                       + ", ".join(f"{name}: {value}" for name, value in zip(names, shown)))


def _check_transposed_size(input: Tensor, weight: Tensor, sizes: tuple, stride: tuple, dilation: tuple,
                           output_padding: tuple, groups: int) -> None:
    """A transposed convolution's output size, checked by the backend ATen takes: oneDNN cannot describe
    a negative size (an empty output passes); the slow kernels refuse any size below 1."""
    if all(size >= 1 for size in sizes):
        return
    if _takes_onednn(input.shape, weight.shape, stride, dilation, output_padding, groups, input):
        if any(size < 0 for size in sizes):
            raise RuntimeError("could not construct a memory descriptor using a format tag")
        return
    given = (1,) * (len(sizes) == 1) + input.shape[2:]
    sizes = (1,) * (len(sizes) == 1) + sizes
    raise RuntimeError(f"Given input size per channel: ({' x '.join(map(str, given))}). Calculated output size per "
                       f"channel: ({' x '.join(map(str, sizes))}). Output size is too small")


def _check_onednn_dtype(input: Tensor, other: Optional[Tensor], name: str) -> None:
    if other is not None and other._dtype is not input._dtype:
        raise RuntimeError(f"Input type (CPUBFloat16Type) and {name} type ({dtypes.legacy_type_name(other._dtype)}) "
                           f"should be the same or input should be a MKLDNN tensor and {name} is a dense tensor")


def _meta_output(x_shape: tuple, w_shape: tuple, stride: tuple, padding: tuple, dilation: tuple, transposed: bool,
                 output_padding: tuple, groups: int, kind: np.dtype) -> np.ndarray:
    """A meta convolution's output: its shape only (its input may be far larger than any memory)."""
    if transposed:
        channels = w_shape[1] * groups
        sizes = tuple((size - 1) * s - 2 * p + d * (k - 1) + o + 1 for size, s, p, d, k, o in zip(
            x_shape[2:], stride, padding, dilation, w_shape[2:], output_padding))
    else:
        channels = w_shape[0]
        sizes = tuple((size + 2 * p - d * (k - 1) - 1) // s + 1 for size, s, p, d, k in zip(
            x_shape[2:], stride, padding, dilation, w_shape[2:]))
    return meta.storage((x_shape[0], channels) + sizes, kind)


@op(nodes=(CONVOLUTION,), method=False)
def convolution(input: Tensor, weight: Tensor, bias: Optional[Tensor], stride: Sequence[int],
                padding: Sequence[int], dilation: Sequence[int], transposed: bool, output_padding: Sequence[int],
                groups: int) -> Tensor:
    spatial = weight.ndim - 2
    if spatial <= 0:
        raise RuntimeError("weight should have at least three dimensions")
    stride, padding = _expand(stride, spatial, "stride"), _expand(padding, spatial, "padding")
    dilation, output_padding = _expand(dilation, spatial, "dilation"), _expand(output_padding, spatial, "output_padding")
    _check(input, weight, bias, stride, padding, dilation, transposed, output_padding, groups)
    if input._dtype is dtypes.bool_:
        raise not_implemented_for("slow_conv_transpose2d_out_cpu" if transposed else "slow_conv2d_cpu", input._dtype)
    x, w = input._data, weight._data
    bias_added = False  # (by the kernel itself, where oneDNN's adds it among its sums)
    if not transposed:  # (float16 products summed in float32, the bias added there, rounded once)
        x, w = opmath_array(x), opmath_array(w)
    _check_kernel_size(input, weight, stride, dilation, output_padding, groups, transposed)
    if 0 in dilation and x.shape[0] and x.shape[1]:
        _refuse_zero_dilation(input, weight, stride, dilation, output_padding, groups, transposed)
    if x.size == 0 and x.shape[0] and x.shape[1]:  # ATen's choice of backend: empty only by batch or channels
        shown = x.shape[:2] + (1,) + x.shape[2:] if spatial == 1 else x.shape  # (a 1-d one seen as 2-d)
        raise RuntimeError(f"Only zero batch or zero channel inputs are supported, but got input shape: "
                           f"{shape_text(shown)}")
    if x.shape[1] == 0 and not transposed:
        # ATen's empty backend: an input of no channels gives an output of none, of the convolution's plane
        data = _meta_output(x.shape, (0,) + w.shape[1:], stride, padding, dilation, transposed, output_padding, groups,
                            x.dtype)
    elif (meta.state["made"] and meta.any_meta((input, weight, bias))) or (x.shape[0] == 0 and 0 in dilation):
        # (an empty batch's output has the plane of a dilation of 0 too, which no window can take)
        data = _meta_output(x.shape, w.shape, stride, padding, dilation, transposed, output_padding, groups, x.dtype)
    elif not transposed and _onednn_direct_takes(input, x, w, stride, dilation, output_padding, groups):
        data = _onednn_direct(x, w, None if bias is None else bias._data, stride, padding)
        bias_added = True
    elif not transposed:
        data = _forward(x, w, stride, padding, dilation, groups)
    else:
        out_channels = w.shape[1] * groups
        sizes = tuple((size - 1) * s - 2 * p + d * (k - 1) + o + 1 for size, s, p, d, k, o in zip(
            x.shape[2:], stride, padding, dilation, w.shape[2:], output_padding))
        _check_transposed_size(input, weight, sizes, stride, dilation, output_padding, groups)
        data = _grad_input(x, w, (x.shape[0], out_channels) + sizes, stride, padding, dilation, groups)
    if bias is not None and data.size and not bias_added and not meta.any_meta((input, weight, bias)):
        # (a meta output: no values)
        added = bias._data if transposed else opmath_array(bias._data)
        data = data + added.reshape((data.shape[1],) + (1,) * spatial)
    inputs = (input, weight, bias if bias is not None else ABSENT)
    data = in_suggested_format(np.asarray(data, dtype=input._dtype._numpy), x, w)
    return record(CONVOLUTION, inputs, data, input._dtype,
                  stride=stride, padding=padding, dilation=dilation, transposed=transposed,
                  output_padding=output_padding, groups=groups,
                  bias_sym_sizes_opt=tuple(bias.shape) if bias is not None else None)


def _batched(input: Tensor, weight_dims: int, name: str) -> tuple:
    """An unbatched input gets a batch dim of 1 (taken away again after)."""
    if input.ndim == weight_dims:
        return input, False
    if input.ndim == weight_dims - 1:
        return input.unsqueeze(0), True
    raise RuntimeError(f"Expected {weight_dims - 1}D (unbatched) or {weight_dims}D (batched) input to {name}, but got "
                       f"input of size: {shape_text(input.shape)}")


def _same_padding(input: Tensor, weight: Tensor, stride: tuple, dilation: tuple) -> tuple:
    """'same' padding as ATen's convolution_same: the total d (k - 1) per dim split in two (C++'s
    division, toward zero); where the halves differ, the input's end is padded (or, for a kernel of
    size 0, cut) by the difference first."""
    if any(s != 1 for s in stride):
        raise RuntimeError("padding='same' is not supported for strided convolutions")
    left, right = [], []
    for k, d in zip(weight.shape[2:], dilation):
        total = d * (k - 1)
        half = total // 2 if total >= 0 else -(-total // 2)
        left.append(half)
        right.append(total - half)
    if left == right:
        return input, tuple(left)
    warn_once("UserWarning", "Using padding='same' with even kernel lengths and odd dilation may require a "
                             "zero-padded copy of the input be created", at="aten/src/ATen/native/Convolution.cpp:1101")
    pad = [0] * (2 * len(left))
    for i, (low, high) in enumerate(zip(left, right)):
        pad[2 * (len(left) - 1 - i) + 1] = high - low  # F.pad's order: the last dim first
    return constant_pad_nd(input, pad), tuple(left)


def _sized(value: Any, spatial: int) -> Any:
    """A number for a SymIntArrayRef[spatial] parameter (its default too) is that many of it, as
    PyTorch's parser gives them: a weight of other dims then meets the length check."""
    return (value,) * spatial if isinstance(value, int) else value


def conv_nd(name: str, spatial: int, input: Tensor, weight: Tensor, bias: Optional[Tensor], stride: Any,
            padding: Any, dilation: Any, groups: int) -> Tensor:
    input, unbatched = _batched(input, spatial + 2, name)
    stride, padding, dilation = _sized(stride, spatial), _sized(padding, spatial), _sized(dilation, spatial)
    if isinstance(padding, str):
        if padding == "valid":
            padding = 0
        elif padding == "same":
            stride, dilation = _expand(stride, spatial, "stride"), _expand(dilation, spatial, "dilation")
            input, padding = _same_padding(input, weight, stride, dilation)
        else:
            raise RuntimeError(f"Invalid padding string: '{padding}'")
    out = convolution(input, weight, bias, stride, padding, dilation, False, (0,) * spatial, groups)
    return out.squeeze(0) if unbatched else out


def conv_transpose_nd(name: str, spatial: int, input: Tensor, weight: Tensor, bias: Optional[Tensor], stride: Any,
                      padding: Any, output_padding: Any, groups: int, dilation: Any) -> Tensor:
    input, unbatched = _batched(input, spatial + 2, name)
    out = convolution(input, weight, bias, _sized(stride, spatial), _sized(padding, spatial),
                      _sized(dilation, spatial), True, _sized(output_padding, spatial), groups)
    return out.squeeze(0) if unbatched else out


@op(method=False)
def conv1d(input: Tensor, weight: Tensor, bias: Optional[Tensor] = None, stride: Any = 1, padding: Any = 0,
           dilation: Any = 1, groups: int = 1) -> Tensor:
    return conv_nd("conv1d", 1, input, weight, bias, stride, padding, dilation, groups)


@op(method=False)
def conv2d(input: Tensor, weight: Tensor, bias: Optional[Tensor] = None, stride: Any = 1, padding: Any = 0,
           dilation: Any = 1, groups: int = 1) -> Tensor:
    return conv_nd("conv2d", 2, input, weight, bias, stride, padding, dilation, groups)


@op(method=False)
def conv3d(input: Tensor, weight: Tensor, bias: Optional[Tensor] = None, stride: Any = 1, padding: Any = 0,
           dilation: Any = 1, groups: int = 1) -> Tensor:
    return conv_nd("conv3d", 3, input, weight, bias, stride, padding, dilation, groups)


@op(method=False)
def conv_transpose1d(input: Tensor, weight: Tensor, bias: Optional[Tensor] = None, stride: Any = 1,
                     padding: Any = 0, output_padding: Any = 0, groups: int = 1, dilation: Any = 1) -> Tensor:
    return conv_transpose_nd("conv_transpose1d", 1, input, weight, bias, stride, padding, output_padding, groups,
                             dilation)


@op(method=False)
def conv_transpose2d(input: Tensor, weight: Tensor, bias: Optional[Tensor] = None, stride: Any = 1,
                     padding: Any = 0, output_padding: Any = 0, groups: int = 1, dilation: Any = 1) -> Tensor:
    return conv_transpose_nd("conv_transpose2d", 2, input, weight, bias, stride, padding, output_padding, groups,
                             dilation)


@op(method=False)
def conv_transpose3d(input: Tensor, weight: Tensor, bias: Optional[Tensor] = None, stride: Any = 1,
                     padding: Any = 0, output_padding: Any = 0, groups: int = 1, dilation: Any = 1) -> Tensor:
    return conv_transpose_nd("conv_transpose3d", 3, input, weight, bias, stride, padding, output_padding, groups,
                             dilation)
