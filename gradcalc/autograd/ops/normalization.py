"""Normalization: batch norm (with its running statistics updated in place), layer norm and
group norm, each one node as in PyTorch (NativeBatchNormBackward0 and its kin), whose
backward formulas are written with Tensor operations so that they differentiate again."""
from __future__ import annotations

from typing import Optional, Sequence

import numpy as np

from .. import (batch_norm_kernel, dtypes, forward_mode, grad_mode, group_norm_kernel, kernels, layer_norm_kernel, mkl,
               simd, sum_kernel)
from ..tensor import Tensor, wrap_dim
from .common import ABSENT, not_implemented_for, shape_text
from .matrix_functions import aten_norm
from .registry import node, op, record


def _standardized(x: Tensor, dims: tuple, eps: float) -> tuple:
    """(x - mean) * rstd and rstd over `dims`, recomputed with Tensor operations: with
    create_graph=True the statistics' own dependence on x is differentiated too."""
    centered = x - x.mean(dims, keepdim=True)
    rstd = ((centered * centered).mean(dims, keepdim=True) + eps).rsqrt()
    return centered * rstd, rstd


def _normalized_grads(grad: Tensor, x: Tensor, weight: Optional[Tensor], dims: tuple, eps: float) -> tuple:
    """The input's gradient when the statistics were taken over `dims` of the input itself, and x_hat."""
    x_hat, rstd = _standardized(x, dims, eps)
    g = grad if weight is None else grad * weight
    return rstd * (g - g.mean(dims, keepdim=True) - x_hat * (g * x_hat).mean(dims, keepdim=True)), x_hat


def _channel_shape(x: Tensor) -> tuple:
    return (1, -1) + (1,) * (x.ndim - 2)


def _batch_norm_grads(grad: Tensor, input: Tensor, weight: Optional[Tensor], running_mean: Optional[Tensor],
                      running_var: Optional[Tensor], training: bool, eps: float, which: str,
                      saved: tuple = ()) -> Tensor:
    if input._dtype in (dtypes.float32, dtypes.float64) and input.numel() and not (
            grad_mode.is_grad_enabled() and (grad.requires_grad or input.requires_grad)):
        # no graph to record: ATen's kernels where the layout is one of theirs
        mean, rstd = saved if training else (running_mean, None)
        grads = batch_norm_kernel.backward(
            grad._data, input._data, None if weight is None else weight._data, mean._data,
            rstd._data if training else running_var._data, training, eps)
        if grads is not None:
            return Tensor._make(grads[("input", "weight", "bias").index(which)], grad._dtype)
    shape = _channel_shape(input)
    dims = (0,) + tuple(range(2, input.ndim))
    if which == "bias":
        return grad.sum(dims)
    if training:
        w = None if weight is None or which == "weight" else weight.reshape(shape)
        dx, x_hat = _normalized_grads(grad, input, w, dims, eps)
        return dx if which == "input" else (grad * x_hat).sum(dims)
    rstd = (running_var + eps).rsqrt().reshape(shape)
    if which == "weight":
        return (grad * ((input - running_mean.reshape(shape)) * rstd)).sum(dims)
    return grad * rstd if weight is None else grad * (weight.reshape(shape) * rstd)


BATCH_NORM = node(
    "NativeBatchNormBackward0", ("input", "weight", "bias"), saved=("result1", "result2"),
    saved_tensors=("running_mean", "running_var", "result1", "result2", "weight"),
    input=lambda grad, input, weight, running_mean, running_var, training, eps, result1, result2: _batch_norm_grads(
        grad, input, weight, running_mean, running_var, training, eps, "input", (result1, result2)),
    weight=lambda grad, input, running_mean, running_var, training, eps, result1, result2: _batch_norm_grads(
        grad, input, None, running_mean, running_var, training, eps, "weight", (result1, result2)),
    bias=lambda grad, input, running_mean, running_var, training, eps, result1, result2: _batch_norm_grads(
        grad, input, None, running_mean, running_var, training, eps, "bias", (result1, result2)))


def _layer_norm_grads(grad: Tensor, input: Tensor, weight: Optional[Tensor], normalized_shape: tuple, eps: float,
                      which: str) -> Tensor:
    axis = input.ndim - len(normalized_shape)
    if input._dtype is dtypes.float32 and input.numel() and not (
            grad_mode.is_grad_enabled() and (grad.requires_grad or input.requires_grad)):
        # no graph to record: ATen's kernel (the same with AVX2 and AVX-512), in its order of operations
        data = layer_norm_kernel.backward(grad._data, input._data, len(normalized_shape),
                                          None if weight is None else weight._data, eps, which)
        return Tensor._make(data, grad._dtype)
    if which == "bias":
        return grad.sum(tuple(range(axis)))
    dx, x_hat = _normalized_grads(grad, input, weight if which == "input" else None,
                                  tuple(range(axis, input.ndim)), eps)
    return dx if which == "input" else (grad * x_hat).sum(tuple(range(axis)))


LAYER_NORM = node(
    "NativeLayerNormBackward0", ("input", "weight", "bias"), saved=("result1", "result2", "bias"),
    saved_tensors=("result1", "result2", "weight", "bias"),
    input=lambda grad, input, weight, normalized_shape, _eps: _layer_norm_grads(
        grad, input, weight, normalized_shape, _eps, "input"),
    weight=lambda grad, input, normalized_shape, _eps: _layer_norm_grads(grad, input, None, normalized_shape, _eps,
                                                                         "weight"),
    bias=lambda grad, input, normalized_shape, _eps: _layer_norm_grads(grad, input, None, normalized_shape, _eps,
                                                                       "bias"))


def _group_norm_grads(grad: Tensor, input: Tensor, weight: Optional[Tensor], N: int, C: int, group: int, eps: float,
                      which: str, statistics: tuple) -> Tensor:
    if input._dtype is dtypes.float32 and input.numel() and input._data.flags.c_contiguous and not (
            grad_mode.is_grad_enabled() and (grad.requires_grad or input.requires_grad)):
        # no graph to record: ATen's kernel (the same with AVX2 and AVX-512), in its order of operations
        mean, rstd = (t._data for t in statistics)
        data = group_norm_kernel.backward(grad._data, input._data, mean, rstd,
                                          None if weight is None else weight._data, group, which)
        return Tensor._make(data, grad._dtype)
    if which == "bias":
        return grad.reshape(N, C, -1).sum((0, 2))
    grouped = (N, group, -1)
    g = grad if weight is None or which == "weight" else grad * weight.reshape(_channel_shape(input))
    dx, x_hat = _normalized_grads(g.reshape(grouped), input.reshape(grouped), None, (2,), eps)
    if which == "weight":
        return (grad * x_hat.reshape(input.shape)).reshape(N, C, -1).sum((0, 2))
    return dx.reshape(input.shape)


GROUP_NORM = node(
    "NativeGroupNormBackward0", ("input", "weight", "bias"), saved_tensors=("result1", "result2", "weight"),
    saved=("C", "HxW", "N", "eps", "group", "result1", "result2"),
    input=lambda grad, input, weight, N, C, group, eps, result1, result2: _group_norm_grads(
        grad, input, weight, N, C, group, eps, "input", (result1, result2)),
    weight=lambda grad, input, N, C, group, eps, result1, result2: _group_norm_grads(
        grad, input, None, N, C, group, eps, "weight", (result1, result2)),
    bias=lambda grad, input, N, C, group, eps, result1, result2: _group_norm_grads(
        grad, input, None, N, C, group, eps, "bias", (result1, result2)))


def _statistics(x: np.ndarray, axes: tuple, eps: float) -> tuple:
    """Mean and 1/sqrt(biased variance + eps) over `axes`, kept as size-1 dims."""
    mean = x.mean(axis=axes, keepdims=True, dtype=x.dtype)
    centered = x - mean
    variance = (centered * centered).mean(axis=axes, keepdims=True, dtype=x.dtype)
    return mean, 1 / np.sqrt(variance + x.dtype.type(eps)), variance


def _check_floating(kernel: str, input: Tensor) -> None:
    if input._dtype.category < dtypes.FLOATING:
        raise not_implemented_for(kernel, input._dtype)


def _check_parameter_dtypes(input: Tensor, *parameters: Optional[Tensor]) -> None:
    """ATen's mixed_dtype checks of a CPU norm: parameters of another dtype than the input are
    allowed only as float32 under a half-precision input; otherwise all share the input's."""
    given = [p for p in parameters if p is not None]
    if not given:
        return
    if given[0]._dtype is not input._dtype:  # mixed: every parameter float32, the input half precision
        if any(p._dtype is not dtypes.float32 for p in given):
            raise RuntimeError("mixed dtype (CPU): expect parameter to have scalar type of Float")
        if input._dtype not in (dtypes.float16, dtypes.bfloat16):
            raise RuntimeError("mixed dtype (CPU): all inputs must share same datatype.")
        return
    for parameter in given:
        if parameter._dtype is not input._dtype:
            raise RuntimeError(f"expected scalar type {input._dtype._scalar_name} but found "
                               f"{parameter._dtype._scalar_name}")


def check_batch_norm_sizes(input: Tensor, weight: Optional[Tensor], bias: Optional[Tensor],
                           running_mean: Optional[Tensor], running_var: Optional[Tensor]) -> None:
    """One value per channel in each given tensor, checked in ATen's order (the running statistics
    first), as torch.batch_norm checks before its kernel (or vmap's rule) runs."""
    channels = input.shape[1] if input.ndim > 1 else 1
    for name, tensor in (("running_mean", running_mean), ("running_var", running_var), ("weight", weight),
                         ("bias", bias)):
        if tensor is not None and tensor.numel() != channels:
            raise RuntimeError(f"{name} should contain {channels} elements not {tensor.numel()}")


def native_batch_norm(input: Tensor, weight: Optional[Tensor], bias: Optional[Tensor],
                      running_mean: Optional[Tensor], running_var: Optional[Tensor], training: bool, momentum: float,
                      eps: float) -> Tensor:
    _check_floating("batch_norm", input)
    _check_parameter_dtypes(input, weight, bias, running_mean, running_var)
    check_batch_norm_sizes(input, weight, bias, running_mean, running_var)
    channels = input.shape[1] if input.ndim > 1 else 1
    x = input._data
    axes = (0,) + tuple(range(2, x.ndim))
    shape = (1, channels) + (1,) * (x.ndim - 2)
    kind = x.dtype.type
    kernel = batch_norm_kernel.takes_kernels(x)
    if training:
        if kernel:  # ATen's statistics kernels, for its contiguous layouts
            mean, variance_sum, rstd = batch_norm_kernel.statistics(x, eps)
            mean, rstd = mean.reshape(shape), rstd.reshape(shape)
            if running_mean is not None:
                _update_running_statistics(running_mean, running_var, mean.reshape(-1), variance_sum,
                                           x.size // channels, momentum)
        elif kind in (np.float32, np.float64):
            mean, rstd = _strided_batch_norm_statistics(x, axes, eps, running_mean, running_var, momentum)
        else:
            mean, rstd, variance = _statistics(x, axes, eps)
            if running_mean is not None:
                _update_running_statistics(running_mean, running_var, mean.reshape(-1),
                                           variance.reshape(-1) * kind(x.size // channels), x.size // channels,
                                           momentum)
        save_mean, save_rstd = mean.reshape(-1), rstd.reshape(-1)
    else:
        mean = running_mean._data.reshape(shape)
        spread = running_var._data.reshape(shape) + kind(eps)
        # the strided path takes torch.sqrt, MKL's vector math where the backend is in use
        root = mkl.vml("SqrtBackward0", spread) if not kernel and kind in (np.float32, np.float64) else None
        rstd = 1 / (np.sqrt(spread) if root is None else root)
        save_mean = save_rstd = np.zeros((0,), dtype=x.dtype)
    scale = rstd if weight is None else rstd * weight._data.reshape(shape)
    if kernel:
        # ATen's kernels for its contiguous layouts: beta = bias - mean * alpha and input * alpha + beta,
        # each one fused multiply-add
        shift = kernels.fused_multiply_add(-mean, scale,
                                           np.zeros((), kind) if bias is None else bias._data.reshape(shape))
        data = np.empty_like(x)  # in the input's layout (channels-last stays so)
        data[...] = kernels.fused_multiply_add(x, scale, shift)
    elif kind in (np.float32, np.float64):  # Normalization.cpp's strided path, each step rounded
        data = (x - mean) * rstd * (kind(1) if weight is None else weight._data.reshape(shape)) + (
            kind(0) if bias is None else bias._data.reshape(shape))
    else:
        shift = -mean * scale if bias is None else bias._data.reshape(shape) - mean * scale
        data = x * scale + shift
    result1 = Tensor._make(np.ascontiguousarray(save_mean), input._dtype)
    result2 = Tensor._make(np.ascontiguousarray(save_rstd), input._dtype)
    inputs = (input, weight if weight is not None else ABSENT, bias if bias is not None else ABSENT)
    return record(BATCH_NORM, inputs, np.asarray(data, dtype=x.dtype), input._dtype, result1=result1,
                  result2=result2, running_mean=running_mean, running_var=running_var, training=training, eps=eps,
                  weight=weight)


def _strided_batch_norm_statistics(x: np.ndarray, axes: tuple, eps: float, running_mean: Optional[Tensor],
                                   running_var: Optional[Tensor], momentum: float) -> tuple:
    """batch_norm_cpu_update_stats_template's path for an input of no contiguous layout: the mean
    as torch.mean (the sum in ATen's order, divided in the dtype); each channel's (x - mean)^2
    added in double in the order TensorIterator visits it (largest stride outermost); 1 / sqrt and
    the running statistics in double."""
    kind = x.dtype.type
    count = x.size // x.shape[1]
    mean = (sum_kernel.cascade_sum(x, axes) / kind(count)).astype(kind)
    channels = np.moveaxis(x, 1, 0)
    order = sorted(range(1, x.ndim), key=lambda d: -abs(channels.strides[d]))
    values = channels.transpose([0] + order).reshape(x.shape[1], -1).astype(np.float64)
    centered = values - mean.reshape(-1, 1).astype(np.float64)
    variance_sum = np.cumsum(centered * centered, axis=1)[:, -1] + 0.0
    rstd = (1 / np.sqrt(variance_sum / count + eps)).astype(kind)
    if running_mean is not None:
        with grad_mode.no_grad():
            running_mean._data[...] = (momentum * mean.reshape(-1).astype(np.float64)
                                       + (1 - momentum) * running_mean._data.astype(np.float64))
            running_mean._vc.value += 1
            if running_var is not None:
                unbiased = variance_sum / max(count - 1, 1)
                running_var._data[...] = momentum * unbiased + (1 - momentum) * running_var._data.astype(np.float64)
                running_var._vc.value += 1
    return mean, rstd.reshape(mean.shape)


def _update_running_statistics(running_mean: Tensor, running_var: Tensor, mean: np.ndarray,
                               variance_sum: np.ndarray, count: int, momentum: float) -> None:
    """batch_norm_cpu_update_stats_template's updates (plain arithmetic: no FMA there): the mean's
    in the dtype, the unbiased variance's product with momentum in double."""
    kind = mean.dtype.type
    keep = kind(1) - kind(momentum)
    unbiased = (variance_sum / kind(max(count - 1, 1))).astype(np.float64)
    with grad_mode.no_grad():
        running_mean._data[...] = kind(momentum) * mean + keep * running_mean._data
        if running_var is not None:
            running_var._data[...] = (np.float64(kind(momentum)) * unbiased + keep * running_var._data).astype(kind)
            running_var._vc.value += 1
        running_mean._vc.value += 1


def _aten_layer_norm(x: np.ndarray, count: int, weight: Optional[Tensor], bias: Optional[Tensor],
                     eps: float) -> tuple:
    """float32 or float64 layer_norm as ATen's kernel computes it: RowwiseMoments' statistics (AVX2's
    registers, with AVX2 and AVX-512 alike, as recorded), then (x - mean) * rstd times the weight
    plus the bias in one multiply-add."""
    shape = x.shape[:x.ndim - count] + (1,) * count
    rows = np.ascontiguousarray(x).reshape(int(np.prod(shape, dtype=np.int64)), -1)
    kind = rows.dtype.type
    mean, variance = kernels.rowwise_moments(rows, 32 // rows.itemsize, fused_merge=kind is np.float32)
    rstd = kind(1) / np.sqrt(np.maximum(variance, kind(0)) + kind(eps))
    normalized = (rows - mean[:, None]) * rstd[:, None]
    scale = kind(1) if weight is None else weight._data.reshape(-1)
    shift = kind(0) if bias is None else bias._data.reshape(-1)
    data = kernels.fused_multiply_add(normalized, scale, shift).reshape(x.shape)
    return mean.reshape(shape), rstd.reshape(shape), data


def native_layer_norm(input: Tensor, normalized_shape: Sequence[int], weight: Optional[Tensor],
                      bias: Optional[Tensor], eps: float) -> Tensor:
    normalized_shape = tuple(normalized_shape)
    if not normalized_shape:  # _check_layer_norm_inputs' first check
        raise RuntimeError("Expected normalized_shape to be at least 1-dimensional, i.e., containing at least one "
                           "element, but got normalized_shape = []")
    _check_parameter_dtypes(input, weight, bias)
    if input._dtype.is_complex:
        raise not_implemented_for("LayerNormKernelImpl", input._dtype)
    _check_floating("LayerNormKernelImpl", input)
    count = len(normalized_shape)
    if input.ndim < count or tuple(input.shape[input.ndim - count:]) != normalized_shape:
        raise RuntimeError(f"Given normalized_shape={shape_text(normalized_shape)}, expected input with shape "
                           f"[*{''.join(', ' + str(s) for s in normalized_shape)}], but got input of size"
                           f"{shape_text(input.shape)}")
    for name, tensor in (("weight", weight), ("bias", bias)):
        if tensor is not None and tuple(tensor.shape) != normalized_shape:
            raise RuntimeError(f"Expected {name} to be of same shape as normalized_shape, but got {name} of shape "
                               f"{shape_text(tensor.shape)} and normalized_shape = {shape_text(normalized_shape)}")
    x = input._data
    axes = tuple(range(x.ndim - count, x.ndim))
    if x.dtype.type in (np.float32, np.float64) and x.size:
        mean, rstd, data = _aten_layer_norm(x, count, weight, bias, eps)
    else:
        mean, rstd, _ = _statistics(x, axes, eps)
        data = (x - mean) * rstd
        if weight is not None:
            data = data * weight._data
        if bias is not None:
            data = data + bias._data
    inputs = (input, weight if weight is not None else ABSENT, bias if bias is not None else ABSENT)
    return record(LAYER_NORM, inputs, np.asarray(data, dtype=x.dtype), input._dtype,
                  result1=Tensor._make(mean, input._dtype), result2=Tensor._make(rstd, input._dtype),
                  normalized_shape=normalized_shape, weight=weight, bias=bias, _eps=eps)


def _aten_group_norm(grouped: np.ndarray, per_group: int, weight: Optional[Tensor], bias: Optional[Tensor],
                     eps: float) -> tuple:
    """float32 or float64 group_norm of a contiguous (N, G, D * HxW) input as ATen's kernel computes it:
    RowwiseMoments' statistics of each group (as its file compiles them), rstd = 1 / sqrt(variance +
    eps) in double; then
    (x - mean) * rstd without weight and bias, else each channel's scale = rstd * weight and
    shift = -scale * mean + bias, and scale * x + shift, both fused."""
    n, groups, size = grouped.shape
    rows = grouped.reshape(n * groups, size)
    kind = rows.dtype.type
    mean, variance = kernels.rowwise_moments(rows, 32 // rows.itemsize, fused_merge=False)  # (AVX2's registers)
    rstd = (1.0 / np.sqrt(np.maximum(variance, kind(0)).astype(np.float64) + eps)).astype(kind)
    if weight is None and bias is None:
        data = (rows - mean[:, None]) * rstd[:, None]
        return mean.reshape(n, groups, 1), rstd.reshape(n, groups, 1), data
    channels = (groups, per_group)
    gamma = np.ones(channels, kind) if weight is None else weight._data.reshape(channels)
    beta = np.zeros(channels, kind) if bias is None else bias._data.reshape(channels)
    scale = rstd.reshape(n, groups, 1) * gamma
    shift = kernels.fused_multiply_add(-scale, np.broadcast_to(mean.reshape(n, groups, 1), scale.shape),
                                       np.broadcast_to(beta, scale.shape))
    x = rows.reshape(n, groups, per_group, -1)
    data = kernels.fused_multiply_add(np.broadcast_to(scale[..., None], x.shape), x,
                                      np.broadcast_to(shift[..., None], x.shape))
    return mean.reshape(n, groups, 1), rstd.reshape(n, groups, 1), data


def native_group_norm(input: Tensor, weight: Optional[Tensor], bias: Optional[Tensor], num_groups: int,
                      eps: float) -> Tensor:
    _check_parameter_dtypes(input, weight, bias)
    _check_floating("GroupNormKernelImpl", input)
    n, channels = input.shape[:2]
    if channels % num_groups:
        raise RuntimeError(f"Expected number of channels in input to be divisible by num_groups, but got input of "
                           f"shape {shape_text(input.shape)} and num_groups={num_groups}")
    x = input._data
    grouped = x.reshape(n, num_groups, -1)
    if x.dtype.type in (np.float32, np.float64) and x.size and x.flags.c_contiguous:
        mean, rstd, data = _aten_group_norm(grouped, channels // num_groups, weight, bias, eps)
        data = data.reshape(x.shape)
    else:
        mean, rstd, _ = _statistics(grouped, (2,), eps)
        data = ((grouped - mean) * rstd).reshape(x.shape)
        shape = (1, channels) + (1,) * (x.ndim - 2)
        if weight is not None:
            data = data * weight._data.reshape(shape)
        if bias is not None:
            data = data + bias._data.reshape(shape)
    inputs = (input, weight if weight is not None else ABSENT, bias if bias is not None else ABSENT)
    return record(GROUP_NORM, inputs, np.asarray(data, dtype=x.dtype), input._dtype,
                  result1=Tensor._make(mean.reshape(n, num_groups), input._dtype),
                  result2=Tensor._make(rstd.reshape(n, num_groups), input._dtype), weight=weight,
                  N=n, C=channels, HxW=x.size // max(n * channels, 1), group=num_groups, eps=eps)



def _weight_norm_grads(grad: Tensor, v: Tensor, g: Tensor, dim: int, which: str) -> Tensor:
    """w = v * g / |v| with the norm over every dim but `dim`: the gradient of v or of g."""
    dims = tuple(d for d in range(v.ndim) if d != dim)
    norm = (v * v).sum(dims, keepdim=True).sqrt()
    projection = (grad * v).sum(dims, keepdim=True)
    if which == "g":
        return (projection / norm).reshape(g.shape)
    return (g.reshape(norm.shape) / norm) * (grad - v * (projection / (norm * norm)))


WEIGHT_NORM = node(
    "WeightNormInterfaceBackward0", ("v", "g"), saved=("dim", "result1"), saved_tensors=("result1",),
    v=lambda grad, v, g, dim: _weight_norm_grads(grad, v, g, dim, "v"),
    g=lambda grad, v, g, dim: _weight_norm_grads(grad, v, g, dim, "g"))


# ATen's composites over the native kernels, which torch.nn.functional calls after its own checks

_VMAP_RUNNING_STATS = (
    "Batch norm got a batched tensor as input while the running_mean or running_var, which will be updated in "
    "place, were not batched.\nIf you are using a module and do not need eval mode, please set "
    "`track_running_stats` to be False.If you are using a prebuilt module and do not need eval mode, please see "
    "the functorch website for resources on how to patch your module to work with vmap")


@op(method=False)
def batch_norm(input: Tensor, weight: Optional[Tensor], bias: Optional[Tensor], running_mean: Optional[Tensor],
               running_var: Optional[Tensor], training: bool, momentum: float, eps: float,
               cudnn_enabled: bool) -> Tensor:
    wrap_dim(1, input.ndim)  # ATen reads the number of channels first
    if input._dtype.is_complex:
        raise not_implemented_for("batch_norm", input._dtype)
    if input.numel() == 0:
        # ATen's _batch_norm_impl_index: no statistics, a result that keeps the graph going
        out = input.clone()
        if weight is not None:
            out = out * weight[0]
        return out if bias is None else out + bias[0]
    if not training:
        for name, stat in (("running_mean", running_mean), ("running_var", running_var)):
            if stat is None:
                raise RuntimeError(f"{name} must be defined in evaluation mode")
    check_batch_norm_sizes(input, weight, bias, running_mean, running_var)
    if training and running_mean is not None and forward_mode.batched(input) and not forward_mode.batched(running_mean):
        raise RuntimeError(_VMAP_RUNNING_STATS)
    return native_batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps)


@op(method=False)
def instance_norm(input: Tensor, weight: Optional[Tensor], bias: Optional[Tensor], running_mean: Optional[Tensor],
                  running_var: Optional[Tensor], use_input_stats: bool, momentum: float, eps: float,
                  cudnn_enabled: bool) -> Tensor:
    """Batch norm of the input seen as one sample of N * C channels (ViewBackward0 at the end)."""
    if input._dtype.is_complex:
        raise not_implemented_for("batch_norm", input._dtype)
    n, channels = input.shape[:2]
    folded = input.reshape((1, n * channels) + tuple(input.shape[2:]))
    mean, var, weight, bias = (None if t is None else t.repeat(n) for t in (running_mean, running_var, weight, bias))
    out = native_batch_norm(folded, weight, bias, mean, var, use_input_stats, momentum, eps)
    if running_mean is not None and use_input_stats:
        with grad_mode.no_grad():
            running_mean.copy_(mean.view(n, channels).mean(0))
            running_var.copy_(var.view(n, channels).mean(0))
    return out.view(input.shape)


@op(method=False)
def layer_norm(input: Tensor, normalized_shape: Sequence[int], weight: Optional[Tensor] = None,
               bias: Optional[Tensor] = None, eps: float = 1e-5, cudnn_enable: bool = True) -> Tensor:
    return native_layer_norm(input, tuple(normalized_shape), weight, bias, eps)


@op(method=False)
def group_norm(input: Tensor, num_groups: int, weight: Optional[Tensor] = None, bias: Optional[Tensor] = None,
               eps: float = 1e-5, cudnn_enabled: bool = True) -> Tensor:
    # ATen's check_group_norm_inputs
    if input._dtype.is_complex:
        raise not_implemented_for("GroupNormKernelImpl", input._dtype)
    channels = input.shape[1]
    if num_groups <= 0:
        raise RuntimeError(f"Expected num groups to be greater than 0, got {num_groups}")
    if channels % num_groups:
        raise RuntimeError(f"Expected number of channels in input to be divisible by num_groups, but got input of "
                           f"shape {shape_text(input.shape)} and num_groups={num_groups}")
    for name, parameter in (("weight", weight), ("bias", bias)):
        if parameter is not None and (parameter.ndim != 1 or parameter.numel() != channels):
            shown = weight.shape if weight is not None else ()  # (ATen names the weight's shape for the bias too)
            raise RuntimeError(f"Expected {name} to be a vector of size equal to the number of channels in input, "
                               f"but got {name} of shape {shape_text(shown)} and input of shape "
                               f"{shape_text(input.shape)}")
    return native_group_norm(input, weight, bias, num_groups, eps)


@op(method=False)
def norm_except_dim(v: Tensor, pow: int = 2, dim: int = 0) -> Tensor:
    """The `pow`-norm of each slice along `dim` (of all of v for dim -1), shaped to broadcast
    against v: ATen's composite, whose transpose judges any other dim."""
    if dim == -1:
        return aten_norm(v, pow)
    if dim == 0:
        return aten_norm(v.contiguous().view(v.size(0), -1), pow, [1]).view([v.size(0)] + [1] * (v.ndim - 1))
    if dim == v.ndim - 1:
        return aten_norm(v.contiguous().view(-1, v.size(-1)), pow, [0]).view([1] * (v.ndim - 1) + [v.size(-1)])
    return norm_except_dim(v.transpose(0, dim), pow, 0).transpose(0, dim)


def weight_norm_interface(v: Tensor, g: Tensor, dim: int) -> Tensor:
    """torch._weight_norm's fused CPU kernel (dim first or last): each slice's norm summed in
    ATen's SIMD lanes along the first dim, in one running sum per position along the last."""
    data = np.ascontiguousarray(v._data)
    if dim == 0:
        rows = data.reshape(data.shape[0], -1)
        norm = np.sqrt(simd.lane_sum(rows * rows)).reshape((-1,) + (1,) * (v.ndim - 1))
    else:
        columns = data.reshape(-1, data.shape[-1])
        total = np.zeros(columns.shape[-1], data.dtype)
        for row in columns:
            total = total + row * row
        norm = np.sqrt(total)
    scale = g._data.reshape(norm.shape) / norm
    return record(WEIGHT_NORM, (v, g), (data * scale).astype(data.dtype, copy=False), v._dtype, dim=dim,
                  result1=Tensor._make(norm, v._dtype))
