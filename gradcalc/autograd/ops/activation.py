"""Activations: relu, softmax and log_softmax (in the order of PyTorch's SIMD kernels, since a
softmax gradient is often a difference of nearly equal numbers), leaky_relu, gelu, silu,
softplus, elu, hardtanh, log_sigmoid. Their backward functions are ops of their own, as in
PyTorch, so a second derivative shows GeluBackwardBackward0 and its kin."""
from __future__ import annotations

import math
from typing import Any, Optional

import numpy as np

from .. import cpu, dtypes, grad_mode, kernels, onednn, random, simd
from ..dtypes import DType
from ..tensor import Tensor, wrap_dim
from ...warnings import warn
from .common import (CLAMP_COMPLEX, kernel_scalar, not_implemented_for, opmath_array, opmath_scalar,
                     reduced_kernel, refuse_complex, refuse_complex_autograd, zeros_like)
from .indexing import where
from . import joining
from .generate import make_inplace
from .registry import ELEMENT_WISE, NOT_IMPLEMENTED, node, op, record

RELU = node("ReluBackward0", ("self",), jvp=ELEMENT_WISE, self=lambda grad, result: threshold_backward(grad, result, 0))
THRESHOLD_BACKWARD = node("ThresholdBackwardBackward0", ("grad_output", "self"),
                          grad_output=lambda grad, self, threshold: threshold_backward(grad, self, threshold),
                          self=lambda grad: zeros_like(grad))
LEAKY_RELU = node("LeakyReluBackward0", ("self",), jvp=ELEMENT_WISE,
                  self=lambda grad, self, negative_slope: where(self > 0, grad, grad * negative_slope))
LEAKY_RELU_INPLACE = node("LeakyReluBackward1", ("self",), jvp=ELEMENT_WISE,
                          self=lambda grad, result, negative_slope: where(result > 0, grad, grad * negative_slope))
# forward mode as PyTorch's formulas: the tangent less logsumexp's, exactly 0 for a constant tangent
SOFTMAX = node("SoftmaxBackward0", ("self",), self=lambda grad, result, dim: softmax_backward_data(grad, result, dim,
                                                                                                   log=False),
               jvp={"self": lambda self_t, self, result, dim: result * (self_t - _logsumexp_jvp(self, self_t, dim))})
LOG_SOFTMAX = node("LogSoftmaxBackward0", ("self",),
                   self=lambda grad, result, dim: softmax_backward_data(grad, result, dim, log=True),
                   jvp={"self": lambda self_t, self, dim: self_t - _logsumexp_jvp(self, self_t, dim)})
# the gradients of those gradients, for create_graph=True
SOFTMAX_BACKWARD_DATA = node(
    "SoftmaxBackwardDataBackward0", ("grad_output", "output"),
    grad_output=lambda grad, output, dim: softmax_backward_data(grad, output, dim, log=False),
    output=lambda grad, grad_output, output, dim: (grad_output * grad - (output * grad_output).sum(dim, keepdim=True)
                                                   * grad - grad_output * (output * grad).sum(dim, keepdim=True)))
LOG_SOFTMAX_BACKWARD_DATA = node(
    "LogSoftmaxBackwardDataBackward0", ("grad_output", "output"),
    grad_output=lambda grad, output, dim: grad - (grad * output.exp()).sum(dim, keepdim=True),
    output=lambda grad, grad_output, output, dim: -grad_output.sum(dim, keepdim=True) * output.exp() * grad)
GELU = node("GeluBackward0", ("self",), jvp=ELEMENT_WISE,
            self=lambda grad, self, approximate: gelu_backward(grad, self, approximate))
SILU = node("SiluBackward0", ("self",), jvp=ELEMENT_WISE, self=reduced_kernel(
    lambda dy, x, _: dy * (sigmoid := 1 / (1 + _exp_negated(x, _HALF_LANES))) * (1 + x * (1 - sigmoid)),
    lambda grad, self: grad * self.sigmoid() * (1 + self * (1 - self.sigmoid()))))
SOFTPLUS = node("SoftplusBackward0", ("self",), jvp=ELEMENT_WISE,
                self=lambda grad, self, beta, threshold: softplus_backward(grad, self, beta, threshold))
ELU = node("EluBackward0", ("self",), jvp=ELEMENT_WISE, saved=("scale", "input_scale"),
           self=lambda grad, self, alpha, scale, input_scale: elu_backward(grad, self, alpha, False, scale, input_scale))
ELU_INPLACE = node("EluBackward1", ("self",), jvp=ELEMENT_WISE, saved=("scale", "input_scale"),
                   self=lambda grad, result, alpha, scale, input_scale: elu_backward(grad, result, alpha, True, scale,
                                                                                     input_scale))
CELU = node("CeluBackward0", ("self",), jvp=ELEMENT_WISE,
            self=lambda grad, self, alpha: elu_backward(grad, self, alpha, False, 1, 1 / alpha))
CELU_INPLACE = node("CeluBackward1", ("self",), jvp=ELEMENT_WISE,
                    self=lambda grad, result, alpha: elu_backward(grad, result, alpha, True, 1, 1 / alpha))
HARDSIGMOID = node("HardsigmoidBackward0", ("self",), jvp=ELEMENT_WISE,
                   self=lambda grad, self: hardsigmoid_backward(grad, self))
# hardswish's and log_sigmoid's gradients are kernels of their own, recorded as ops with create_graph too
HARDSWISH = node("HardswishBackward0", ("self",), jvp=ELEMENT_WISE,
                 self=lambda grad, self: hardswish_backward(grad, self))
HARDSWISH_BACKWARD = node("HardswishBackwardBackward0", ("grad_output", "self"),
                          grad_output=lambda grad, self: hardswish_backward(grad, self),
                          self=lambda grad, grad_output, self: where((self > -3) & (self < 3), grad * grad_output / 3,
                                                                     zeros_like(grad)))
HARDSHRINK = node("HardshrinkBackward0", ("self",), jvp=ELEMENT_WISE,
                  self=lambda grad, self, lambd: where((self >= -lambd) & (self <= lambd), zeros_like(grad), grad))
SOFTSHRINK = node("SoftshrinkBackward0", ("self",), jvp=ELEMENT_WISE,
                  self=lambda grad, self, lambd: where((self >= -lambd) & (self <= lambd), zeros_like(grad), grad))
THRESHOLD = node("ThresholdBackward0", ("self",), jvp=ELEMENT_WISE,
                 self=lambda grad, self, threshold: threshold_backward(grad, self, threshold))
THRESHOLD_INPLACE = node("ThresholdBackward1", ("self",), jvp=ELEMENT_WISE,
                         self=lambda grad, result, threshold: threshold_backward(grad, result, threshold))
MISH = node("MishBackward0", ("self",), jvp=ELEMENT_WISE, self=reduced_kernel(
    lambda dy, x, _: dy * _mish_slope_kernel(x), lambda grad, self: grad * _mish_slope(self)))
GLU = node("GluBackward0", ("self",), self=lambda grad, self, dim: _glu_backward(grad, self, dim))
GLU_BACKWARD = node(
    "GluBackwardBackward0", ("grad_output", "self"),
    grad_output=lambda grad, self, dim: _glu_double_backward(grad, None, self, dim, "grad_output"),
    self=lambda grad, grad_output, self, dim: _glu_double_backward(grad, grad_output, self, dim, "self"))
PRELU = node("PreluKernelBackward0", ("self", "weight"),
             jvp={"self": lambda tangent, self, weight: where(self >= 0, tangent, weight * tangent),
                  "weight": lambda tangent, self: where(self >= 0, zeros_like(self), tangent * self)},
             self=lambda grad, self, weight: _prelu_kernel_backward(grad, self, weight, 0),
             weight=lambda grad, self, weight: _prelu_kernel_backward(grad, self, weight, 1))
# each of _prelu_kernel_backward's two outputs (`output`: 0 the input's gradient, 1 the weight's)
PRELU_BACKWARD = node(
    "PreluKernelBackwardBackward0", ("grad_output", "self", "weight"),
    grad_output=lambda grad, self, weight, output: (where(self >= 0, grad, grad * weight) if output == 0
                                                    else where(self >= 0, zeros_like(self), grad * self)),
    self=lambda grad, grad_output, self, output: (zeros_like(self) if output == 0
                                                  else where(self >= 0, zeros_like(self), grad_output * grad)),
    weight=lambda grad, grad_output, self, output: (where(self >= 0, zeros_like(self), grad_output * grad)
                                                    if output == 0 else zeros_like(self)))
HARDTANH = node("HardtanhBackward0", ("self",), jvp=ELEMENT_WISE,
                self=lambda grad, self, min_val, max_val: hardtanh_backward(grad, self, min_val, max_val))
GELU_BACKWARD = node("GeluBackwardBackward0", ("grad_output", "self"),
                     grad_output=lambda grad, self, approximate: gelu_backward(grad, self, approximate),
                     self=lambda grad, grad_output, self, approximate: grad * grad_output
                     * _gelu_curvature(self, approximate))
SOFTPLUS_BACKWARD = node(
    "SoftplusBackwardBackward0", ("grad_output", "self"),
    grad_output=lambda grad, self, beta, threshold: softplus_backward(grad, self, beta, threshold),
    self=lambda grad, grad_output, self, beta, threshold: where(
        self * beta > threshold, zeros_like(grad), grad * grad_output * beta * (self * beta).sigmoid()
        * (1 - (self * beta).sigmoid())))
ELU_BACKWARD = node(
    "EluBackwardBackward0", ("grad_output", "self_or_result"), saved=("scale", "input_scale"),
    grad_output=lambda grad, self_or_result, alpha, is_result, scale, input_scale: elu_backward(
        grad, self_or_result, alpha, is_result, scale, input_scale),
    # PyTorch's elu_double_backward: nothing where self_or_result >= 0
    self_or_result=lambda grad, grad_output, self_or_result, alpha, is_result, scale, input_scale: where(
        self_or_result < 0, grad * grad_output * input_scale if is_result
        else grad * grad_output * input_scale * input_scale * alpha * scale * (self_or_result * input_scale).exp(),
        zeros_like(grad)))
HARDTANH_BACKWARD = node("HardtanhBackwardBackward0", ("grad_output", "self"),
                         grad_output=lambda grad, self, min_val, max_val: hardtanh_backward(grad, self, min_val,
                                                                                            max_val),
                         self=lambda grad: zeros_like(grad))
# contiguous: log_sigmoid's forward makes its result and buffer so
LOG_SIGMOID = node("LogSigmoidBackward0", ("self",), element_wise=False, jvp=ELEMENT_WISE, saved=("buffer",),
                   self=lambda grad, self: log_sigmoid_backward(grad, self))
LOG_SIGMOID_BACKWARD = node("LogSigmoidBackwardBackward0", ("grad_output", "self"),
                            grad_output=lambda grad, self: log_sigmoid_backward(grad, self),
                            self=lambda grad, grad_output, self: grad * grad_output * (self.sigmoid() - 1)
                            * self.sigmoid())
# PyTorch's constants, in the opmath type of the kernel
_GELU_BETA = math.sqrt(2.0) * (2.0 / math.sqrt(math.pi)) * 0.5  # M_SQRT2 * M_2_SQRTPI * 0.5
_GELU_KAPPA = 0.044715


def _logsumexp_jvp(self: Tensor, tangent: Tensor, dim: int) -> Tensor:
    """ATen's logsumexp_jvp: the tangent averaged with the weights exp(self - max), over `dim`."""
    weights = (self - self.amax(dim, keepdim=True)).exp() if self.numel() else self.exp()
    return (weights * tangent).sum(dim, keepdim=True) / weights.sum(dim, keepdim=True)


def threshold_backward(grad_output: Tensor, self: Tensor, threshold: Any) -> Tensor:
    data = np.where(self._data <= threshold, np.zeros((), grad_output._data.dtype), grad_output._data)
    return record(THRESHOLD_BACKWARD, (grad_output, self), data, grad_output._dtype, threshold=threshold)


@op(nodes=(RELU,))
def relu(input: Tensor) -> Tensor:
    if input._dtype is dtypes.bool_:
        raise RuntimeError("Boolean inputs not supported for relu")
    if input._dtype.is_complex:  # (relu is clamp_min)
        raise NotImplementedError(CLAMP_COMPLEX)
    # PyTorch's clamp_min keeps what is not below 0: -0. and nan stay as they are
    data = np.where(input._data < 0, 0, input._data).astype(input._dtype._numpy)
    return record(RELU, (input,), data, input._dtype)


def _check_floating(input: Tensor, kernel: str) -> None:
    if input._dtype.category != dtypes.FLOATING:
        raise not_implemented_for(kernel, input._dtype)


def _softmax(input: Tensor, dim: Optional[int], dtype: Optional[DType], log: bool) -> Tensor:
    x = input._data
    if log and dtype is None and input._dtype is dtypes.float32 and x.ndim and (dim == -1 or dim == x.ndim - 1):
        data = simd.log_softmax_rows(x)  # (a classifier's log_softmax over its last dim: one native pass)
        if data is not None:
            return record(LOG_SOFTMAX, (input,), data, input._dtype, dim=dim)
    name = "log_softmax" if log else "softmax"
    if dtype is not None:
        input = input.to(dtype)
        x = input._data
    d = wrap_dim(dim, x.ndim)
    last = d == max(x.ndim - 1, 0)
    if input._dtype.category != dtypes.FLOATING:
        raise not_implemented_for(f"{name}_lastdim_kernel_impl" if last else f"{name}_kernel_impl", input._dtype)
    data = _softmax_kernel(x if x.ndim else x.reshape(1), d, last, log)
    return record(LOG_SOFTMAX if log else SOFTMAX, (input,), data.reshape(x.shape), input._dtype, dim=dim)


def implicit_softmax_dim(name: str, ndim: int) -> int:
    """The dim torch.nn.functional picks when none is given, with its warning."""
    warn("UserWarning", f"Implicit dimension choice for {name} has been deprecated. Change the call to "
                        "include dim=X as an argument.")
    return 0 if ndim in (0, 1, 3) else 1


@op(nodes=(SOFTMAX,))
def softmax(input: Tensor, dim: int, dtype: Optional[DType] = None) -> Tensor:
    return _softmax(input, dim, dtype, log=False)


@op(nodes=(LOG_SOFTMAX,))
def log_softmax(input: Tensor, dim: int, dtype: Optional[DType] = None) -> Tensor:
    return _softmax(input, dim, dtype, log=True)


def _softmax_kernel(x: np.ndarray, dim: int, last: bool, log: bool) -> np.ndarray:
    """PyTorch's CPU softmax: along the last dim, a SIMD lane reduction and a multiply by the
    reciprocal of the sum; along another dim, a running sum and a division."""
    if x.size == 0:
        return x.copy()
    if log and last:
        out = simd.log_softmax_rows(x)  # (float32, in one native pass)
        if out is not None:
            return out
    moved = x if last else np.moveaxis(x, dim, -1)
    shifted = moved - np.maximum.reduce(moved, axis=-1, keepdims=True)  # (ndarray.max's ufunc, without its layer)
    exps = simd.vector_exp(shifted) if last else simd.kernel_exp(shifted, x.shape[dim + 1:])
    total = (simd.lane_sum(exps) if last else np.add.accumulate(exps, axis=-1)[..., -1])[..., None]
    if log:
        # ATen takes the sums' log with SLEEF's vectorised logf, along any dim; other dtypes: the
        # correctly rounded log (numpy's float32 log often is not)
        out = shifted - (simd.vector_log(total) if total.dtype == np.float32
                         else np.log(total.astype(np.float64)).astype(total.dtype))
    elif last:
        out = exps * (np.ones((), dtype=x.dtype) / total)
    else:
        out = exps / total
    return np.ascontiguousarray(out if last else np.moveaxis(out, -1, dim))


def softmax_backward_data(grad: Tensor, output: Tensor, dim: int, log: bool) -> Tensor:
    """The gradient of (log_)softmax from its output: (g - sum(g * y)) * y, or g - exp(y) * sum(g),
    computed in the order of PyTorch's kernel, since it often is a difference of nearly equal numbers."""
    shape = output.shape
    node_def = LOG_SOFTMAX_BACKWARD_DATA if log else SOFTMAX_BACKWARD_DATA
    if output._data.size == 0:
        return record(node_def, (grad, output), np.zeros(shape, dtype=output._dtype._numpy), output._dtype, dim=dim)
    d = wrap_dim(dim, output.ndim)
    last = d == max(output.ndim - 1, 0)
    y = output._data.reshape(shape or (1,))
    g = grad._data.astype(output._dtype._numpy, copy=False).reshape(shape or (1,))
    if log and last:
        out = simd.log_softmax_grad_rows(g, y)  # (float32, in one native pass)
        if out is not None:
            return record(node_def, (grad, output), out.reshape(shape), output._dtype, dim=dim)
    if not last:
        y, g = np.moveaxis(y, d, -1), np.moveaxis(g, d, -1)
    if last:
        total = simd.lane_sum(g if log else g * y)[..., None]
    elif log:
        total = np.add.accumulate(g, axis=-1)[..., -1:]
    else:
        # a running sum of fused products along the softmax dim
        total = np.zeros(y.shape[:-1], dtype=y.dtype)
        for i in range(y.shape[-1]):
            total = simd.fused_multiply_add(g[..., i], y[..., i], total)
        total = total[..., None]
    if log:
        exp_y = simd.vector_exp(y) if last else simd.kernel_exp(y, shape[d + 1:])
        out = simd.fused_multiply_add(-exp_y, total, g)
    else:
        out = (g - total) * y
    data = np.ascontiguousarray(out if last else np.moveaxis(out, -1, d)).reshape(shape)
    return record(node_def, (grad, output), data, output._dtype, dim=dim)


def activation(input: Tensor, node_def: Any, data: np.ndarray, **params: Any) -> Tensor:
    return record(node_def, (input,), np.asarray(data, dtype=input._dtype._numpy), input._dtype, **params)


@op(module="nn", method=False, nodes=(LEAKY_RELU,), inplace=False)
def leaky_relu(input: Tensor, negative_slope: Any = 0.01) -> Tensor:
    _check_floating(input, "leaky_relu_cpu")
    data = _leaky_relu_data(input._data, negative_slope)
    return activation(input, LEAKY_RELU, data, negative_slope=negative_slope)


def leaky_relu_in_place_result(input: Tensor, negative_slope: Any) -> Tensor:
    """What `leaky_relu_` writes back: its node keeps the result, since the input is overwritten."""
    _check_floating(input, "leaky_relu_cpu")
    data = _leaky_relu_data(input._data, negative_slope)
    return activation(input, LEAKY_RELU_INPLACE, data, negative_slope=negative_slope)


def _leaky_relu_data(x: np.ndarray, negative_slope: Any) -> np.ndarray:
    # half precision is computed in float32, as PyTorch's CPU kernel does, then rounded once
    compute = np.float32 if x.dtype == np.float16 else x.dtype
    kernel_scalar(negative_slope, dtypes.from_numpy(compute))
    return np.where(x > 0, x, x.astype(compute) * np.asarray(negative_slope, dtype=compute)).astype(x.dtype)


def gelu_forward(x: np.ndarray, approximate: str) -> np.ndarray:
    """PyTorch's scalar GELU kernel, step by step in the input's dtype."""
    kind = x.dtype.type
    if approximate == "tanh":
        inner = kind(_GELU_BETA) * (x + kind(_GELU_KAPPA) * (x * x * x))
        return kind(0.5) * x * (kind(1) + simd.libm(np.tanh, inner))
    return x * kind(0.5) * (kind(1) + simd.libm(simd.erf, x * kind(math.sqrt(0.5))))


@op(module="nn", method=False, nodes=(GELU,))
def gelu(input: Tensor, *, approximate: str = "none") -> Tensor:
    if approximate not in ("none", "tanh"):
        raise RuntimeError("approximate argument must be either none or tanh.")
    _check_floating(input, "GeluKernelImpl")
    if _onednn_gelu(input, approximate):
        data = (onednn.gelu_erf_minimax if cpu.ATEN_AVX512 else onednn.gelu_erf)(input._data)
    else:  # (the half precisions in float32)
        data = gelu_forward(opmath_array(input._data), approximate)
    return activation(input, GELU, data, approximate=approximate)


def _onednn_gelu(input: Tensor, approximate: str, backward: bool = False) -> bool:
    """Whether PyTorch hands gelu (and its gradient) to oneDNN: with erf, for a contiguous float32
    tensor of two elements or more (oneDNN's erf is its own approximation, which depends on the
    instruction set: see onednn.py)."""
    return (approximate == "none" and input._dtype is dtypes.float32 and input.numel() > 1
            and input.is_contiguous())


def gelu_backward(grad_output: Tensor, self: Tensor, approximate: str) -> Tensor:
    x, dy = opmath_array(self._data), opmath_array(grad_output._data)
    kind = x.dtype.type
    if approximate == "tanh":
        beta, kappa = kind(_GELU_BETA), kind(_GELU_KAPPA)
        inner = beta * (x + kappa * (x * x * x))
        t = simd.libm(np.tanh, inner)
        left = kind(0.5) * x
        right = kind(1) + t
        left_derivative = kind(0.5) * right
        right_derivative = left * (kind(1) - t * t) * (beta * (kind(1) + kind(3) * kappa * (x * x)))
        data = dy * (left_derivative + right_derivative)
    elif _onednn_gelu(self, approximate, backward=True):
        data = dy * onednn.gelu_erf_slope(x)
    else:
        cdf = kind(0.5) * (kind(1) + simd.libm(simd.erf, x * kind(math.sqrt(0.5))))
        pdf = kind(2.0 / math.sqrt(math.pi) * math.sqrt(0.5) * 0.5) * simd.libm(np.exp, x * x * kind(-0.5))
        data = dy * (cdf + x * pdf)
    return record(GELU_BACKWARD, (grad_output, self), np.asarray(data, dtype=self._data.dtype), grad_output._dtype,
                  approximate=approximate)


def _gelu_curvature(x: Tensor, approximate: str) -> Tensor:
    """The second derivative of gelu."""
    if approximate == "tanh":
        c = _GELU_BETA
        slope = c * (1 + 3 * _GELU_KAPPA * x * x)
        t = (c * (x + _GELU_KAPPA * x * x * x)).tanh()
        return (1 - t * t) * (slope - x * t * slope * slope + 3 * c * _GELU_KAPPA * x * x)
    return (-0.5 * x * x).exp() / math.sqrt(2 * math.pi) * (2 - x * x)


def silu_result(input: Tensor) -> Tensor:
    if input._dtype.is_complex:  # x / (1 + exp(-x)) in complex arithmetic
        x = input._data
        return activation(input, SILU, x / (1 + np.exp(-x)))
    _check_floating(input, "silu_cpu")
    x = opmath_array(input._data)  # (the half precisions in float32, twice as many to a register)
    lanes = simd.lanes(np.float16 if input._dtype in (dtypes.float16, dtypes.bfloat16) else x.dtype)
    return activation(input, SILU, x / (1 + _exp_negated(x, lanes)))


@op(module="nn", method=False, nodes=(SILU,), inplace=make_inplace(silu_result))
def silu(input: Tensor) -> Tensor:
    return refuse_complex_autograd("silu", silu_result(input))  # (silu_ has no such check)


@op(module="nn", method=False, nodes=(SOFTPLUS,))
def softplus(input: Tensor, beta: Any = 1, threshold: Any = 20) -> Tensor:
    _check_floating(input, "softplus_cpu")
    kernel_scalar(beta, input._dtype), kernel_scalar(threshold, input._dtype)
    x = opmath_array(input._data)  # (the half precisions in float32)
    kind = x.dtype.type
    scaled = x * kind(beta)
    data = np.where(scaled > kind(threshold), x, simd.libm(np.log1p, simd.libm(np.exp, scaled)) / kind(beta))
    return activation(input, SOFTPLUS, data, beta=beta, threshold=threshold)


def softplus_backward(grad_output: Tensor, self: Tensor, beta: float, threshold: float) -> Tensor:
    x, dy = opmath_array(self._data), opmath_array(grad_output._data)
    kind = x.dtype.type
    z = simd.libm(np.exp, x * kind(beta))
    data = np.where(x * kind(beta) > kind(threshold), dy, dy * z / (z + kind(1)))
    return record(SOFTPLUS_BACKWARD, (grad_output, self), np.asarray(data, dtype=self._data.dtype),
                  grad_output._dtype, beta=beta, threshold=threshold)


def elu_values(input: Tensor, alpha: Any, scale: Any = 1, input_scale: Any = 1) -> np.ndarray:
    # PyTorch's kernels: expm1(x * input_scale) * (alpha * scale) below 0, x * scale from 0 on
    # (so -0.0 stays -0.0)
    _check_floating(input, "elu_cpu")
    for scalar in (alpha, scale, input_scale):
        opmath_scalar(scalar, input._dtype)
    x = input._data
    kind = x.dtype.type
    negative = simd.libm(np.expm1, x * kind(input_scale)) * (kind(alpha) * kind(scale))
    return np.where(x < 0, negative, x * kind(scale))


@op(module="nn", method=False, nodes=(ELU,))
def elu(input: Tensor, alpha: Any = 1, scale: Any = 1, input_scale: Any = 1) -> Tensor:
    return activation(input, ELU, elu_values(input, alpha, scale, input_scale), alpha=alpha, scale=scale,
                      input_scale=input_scale)


def _celu(input: Tensor, alpha: Any, node_def: Any) -> Tensor:
    # its own nodes in PyTorch, with elu's kernel: scale 1, input_scale 1 / alpha
    if alpha == 0:
        raise RuntimeError("ZeroDivisionError: alpha cannot be 0 for CELU")
    return activation(input, node_def, elu_values(input, alpha, 1, 1 / alpha), alpha=alpha)


def celu_in_place_result(input: Tensor, alpha: Any = 1.0) -> Tensor:
    """What `celu_` writes back: its node (CeluBackward1) finds the gradient from the result."""
    return _celu(input, alpha, CELU_INPLACE)


# torch.selu is elu with these two constants, recording elu's nodes
_SELU_SCALE, _SELU_ALPHA = 1.0507009873554804934193349852946, 1.6732632423543772848170429916717


@op(method=False, nodes=(ELU, ELU_INPLACE), inplace=make_inplace(lambda input: elu_in_place_result(
    input, _SELU_ALPHA, _SELU_SCALE)))
def selu(input: Tensor) -> Tensor:
    return elu(input, _SELU_ALPHA, _SELU_SCALE)


@op(method=False, nodes=(CELU, CELU_INPLACE), inplace=make_inplace(celu_in_place_result))
def celu(input: Tensor, alpha: Any = 1.0) -> Tensor:
    return _celu(input, alpha, CELU)


def elu_in_place_result(input: Tensor, alpha: Any, scale: Any = 1) -> Tensor:
    """What `elu_` writes back: in place the input is gone, so the gradient is found from the result."""
    return activation(input, ELU_INPLACE, elu_values(input, alpha, scale), alpha=alpha, scale=scale, input_scale=1)


def elu_backward(grad_output: Tensor, self_or_result: Tensor, alpha: float, is_result: bool, scale: Any = 1,
                 input_scale: Any = 1) -> Tensor:
    x, dy = self_or_result._data, grad_output._data
    kind = x.dtype.type
    if scale == 1 and input_scale == 1:
        negative = dy * (x + kind(alpha)) if is_result else dy * simd.libm(np.exp, x) * kind(alpha)
        data = np.where(x <= 0, negative, dy)
    else:  # PyTorch's elu_backward kernel with its three coefficients
        coefficient = kind(alpha) * kind(scale)
        negative = (dy * kind(input_scale) * (x + coefficient) if is_result
                    else dy * kind(input_scale) * coefficient * simd.libm(np.exp, x * kind(input_scale)))
        data = np.where(x <= 0, negative, dy * kind(scale))
    return record(ELU_BACKWARD, (grad_output, self_or_result), np.asarray(data, dtype=x.dtype),
                  grad_output._dtype, alpha=alpha, is_result=is_result, scale=scale, input_scale=input_scale)


@op(module="nn", method=False, nodes=(HARDTANH,))
def hardtanh(input: Tensor, min_val: Any = -1, max_val: Any = 1) -> Tensor:
    # clamp's kernel: the input kept unless beyond a bound (so -0.0 and nan stay), its bounds in the
    # input's type; a NaN bound makes every element NaN before either bound is converted
    x = input._data
    if input._dtype is dtypes.bool_:
        raise RuntimeError("Bool inputs not supported for hardtanh")
    if input._dtype is dtypes.uint8 and (min_val < 0 or max_val < 0):
        raise RuntimeError("cannot do hardtanh on an unsigned type with negative limits")
    if input._dtype.is_complex:  # (hardtanh is clamp)
        raise NotImplementedError(CLAMP_COMPLEX)
    if min_val != min_val or max_val != max_val:
        return activation(input, HARDTANH, np.full(x.shape, np.nan, x.dtype), min_val=min_val, max_val=max_val)
    min_val, max_val = kernel_scalar(min_val, input._dtype), kernel_scalar(max_val, input._dtype)
    low, high = np.asarray(min_val).astype(x.dtype), np.asarray(max_val).astype(x.dtype)
    data = np.where(x < low, low, np.where(x > high, high, x))
    return activation(input, HARDTANH, data, min_val=min_val, max_val=max_val)


def hardtanh_backward(grad_output: Tensor, self: Tensor, min_val: float, max_val: float) -> Tensor:
    x = self._data
    data = np.where((x <= min_val) | (x >= max_val), np.zeros((), grad_output._data.dtype), grad_output._data)
    return record(HARDTANH_BACKWARD, (grad_output, self), data, grad_output._dtype, min_val=min_val,
                  max_val=max_val)


def log_sigmoid_backward(grad_output: Tensor, self: Tensor) -> Tensor:
    """d/dx log(sigmoid(x)) from z = exp(-|x|), as PyTorch's kernel writes it; the half precisions
    keep z in their own dtype (the kernel's scalar_t) and compute the rest in float32."""
    x, dy = opmath_array(self._data), opmath_array(grad_output._data)
    with grad_mode.no_grad():  # (exp's kernel, in the tensor's dtype)
        z = opmath_array((-self.detach().abs()).exp()._data)
    ratio = z / (1 + z)
    data = np.where(x < 0, 1 - ratio, ratio) * dy
    return record(LOG_SIGMOID_BACKWARD, (grad_output, self), np.asarray(data, dtype=self._data.dtype),
                  grad_output._dtype)


@op(module="nn", method=False, nodes=(LOG_SIGMOID,))
def log_sigmoid(input: Tensor) -> Tensor:
    """log(sigmoid(x)) = min(x, 0) - log1p(exp(-|x|)), with SLEEF's exp as PyTorch's kernel."""
    _check_floating(input, "log_sigmoid_cpu")
    x = input._data
    exp = simd.vector_exp(-np.abs(x)) if x.dtype == np.float32 else np.exp(-np.abs(x))
    log1p = np.log1p(exp.astype(np.float64)).astype(x.dtype)
    buffer = Tensor._make(np.empty((0,), dtype=x.dtype), input._dtype)
    return record(LOG_SIGMOID, (input,), np.asarray(np.minimum(x, 0) - log1p, dtype=x.dtype), input._dtype,
                  buffer=buffer)


def _softplus_tanh(x: np.ndarray) -> np.ndarray:
    return simd.libm(np.tanh, simd.libm(np.log1p, simd.libm(np.exp, x)))


def _mish_slope(x: Tensor) -> Tensor:
    """d mish / dx from Tensor operations (PyTorch's infinitely differentiable form)."""
    tanh_softplus = softplus(x).tanh()
    return tanh_softplus + x.sigmoid() * x * (1 - tanh_softplus * tanh_softplus)


def _mish_slope_kernel(x: np.ndarray) -> np.ndarray:
    """d mish / dx as PyTorch's mish_backward kernel computes it."""
    tanh_softplus = _softplus_tanh(x)
    return tanh_softplus + x * (1 / (1 + simd.libm(np.exp, -x))) * (1 - tanh_softplus * tanh_softplus)


@op(module="nn", nodes=(MISH,))
def mish(input: Tensor) -> Tensor:
    """x * tanh(softplus(x)), as PyTorch's kernel: x * tanh(log1p(exp(x))) (the half precisions in float32)."""
    _check_floating(input, "mish_cpu")
    x = opmath_array(input._data)
    return activation(input, MISH, x * _softplus_tanh(x))


def _glu_halves(self: Tensor, dim: int) -> tuple:
    if self.ndim == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    d = wrap_dim(dim, self.ndim)
    size = self.shape[d]
    if size % 2:
        raise RuntimeError(f"Halving dimension must be even, but dimension {d} is size {size}")
    return np.split(self._data, 2, axis=d)


_HALF_LANES = simd.lanes(np.float16)


def _exp_negated(x: np.ndarray, lanes: int, row: int = 0) -> np.ndarray:
    """exp(-x) as an element-wise kernel computes it: in float32, whole pairs of `lanes`-wide
    registers with SLEEF's exp and the elements left over with the C library's (of each `row`)."""
    if x.dtype != np.float32:
        return simd.libm(np.exp, -x)
    return kernels.split_loops(-x, simd.vector_exp, lambda part: simd.libm(np.exp, part), lanes=lanes, row=row)


def _sigmoid(x: np.ndarray) -> np.ndarray:
    one = x.dtype.type(1)
    return one / (one + simd.libm(np.exp, -x))


def _glu_lanes(dtype: DType, half: tuple, d: int) -> tuple:
    """The register width and the inner loop's length of GLU's kernels on a half along dim `d`
    (a strided view: its dims from `d` on coalesce, the ones before do not)."""
    lanes = simd.lanes(np.float16 if dtype in (dtypes.float16, dtypes.bfloat16) else np.float32)
    return lanes, int(np.prod(half[d:], dtype=np.int64))


@op(module="nn", nodes=(GLU,))
def glu(input: Tensor, dim: int = -1) -> Tensor:
    """first half * sigmoid(second half) along `dim`; float32 and the half precisions as ATen's
    kernel computes them (in float32, SLEEF's exp on whole pairs of registers, rounded once)."""
    first, second = _glu_halves(input, dim)
    _check_floating(input, "glu_cpu")
    if input._dtype is dtypes.float64:
        return activation(input, GLU, first * _sigmoid(second), dim=dim)
    lanes, row = _glu_lanes(input._dtype, first.shape, wrap_dim(dim, input.ndim))
    one = np.float32(1)
    return activation(input, GLU, opmath_array(first) * (one / (one + _exp_negated(opmath_array(second), lanes, row))),
                      dim=dim)


def _glu_backward(grad: Tensor, self: Tensor, dim: int) -> Tensor:
    """PyTorch's glu_backward: grad * sigmoid(b) for the first half, (1 - s) * s * a * grad for the second."""
    d = wrap_dim(dim, self.ndim)
    return record(GLU_BACKWARD, (grad, self), _glu_backward_kernel(grad._data, self._data, d, self._dtype),
                  grad._dtype, dim=d)


def _glu_double_backward(grad: Tensor, grad_output: Tensor, self: Tensor, dim: int, which: str) -> Tensor:
    """glu_backward's derivatives: for [u, v] coming back to the gradient [s * g, s' * a * g]
    (s = sigmoid(b), s' = s * (1 - s)), u * s + v * s' * a for g; for the input,
    [v * s' * g, u * s' * g + v * s' * (1 - 2 * s) * a * g]."""
    first, second = self.chunk(2, dim)
    u, v = grad.chunk(2, dim)
    gate = second.sigmoid()
    slope = gate * (1 - gate)
    if which == "grad_output":
        return u * gate + v * slope * first
    return joining.cat([v * slope * grad_output, (u + v * (1 - 2 * gate) * first) * slope * grad_output], dim)


def _glu_backward_kernel(dy: np.ndarray, x: np.ndarray, d: int, dtype: DType) -> np.ndarray:
    """ATen's glu_backward: the second half's sigmoid written, in the dtype, into the gradient's
    first half; then (1 - s) * s * a * dy into its second half and s * dy into the first, each in
    float32 and rounded once."""
    first, second = np.split(x, 2, axis=d)
    if dtype is dtypes.float64:
        gate = 1 / (1 + np.exp(-second))
    else:
        lanes, row = _glu_lanes(dtype, first.shape, d)
        negated = np.float32(0) - opmath_array(second)
        e = kernels.split_loops(negated, simd.vector_exp, simd.glibc_expf, lanes=lanes, row=row)
        gate = dtypes.rounded_in_float32(1 / (1 + e), dtype)
    dy = opmath_array(dy)
    return np.asarray(np.concatenate([gate * dy, (1 - gate) * gate * opmath_array(first) * dy], axis=d),
                      dtype=dtype._numpy)


@op(nodes=(PRELU,))
def prelu(input: Tensor, weight: Tensor) -> Tensor:
    """input where it is above 0, else weight * input: torch.prelu's checks, the weight viewed
    along the channels (dim 1) as ATen's prelu does before its kernel (_prelu_kernel)."""
    if input._dtype is not weight._dtype:
        raise RuntimeError(f"prelu: Type promoting not supported. Got {input._dtype._scalar_name} and "
                           f"{weight._dtype._scalar_name}")
    if weight.numel() != 1:
        if input.ndim == 0:
            raise RuntimeError("Not allow zero-dim input tensor.")
        channels = input.shape[1] if input.ndim > 1 else 1
        if channels != weight.numel():
            raise RuntimeError(f"Mismatch of parameter numbers and input channel size. Found parameter numbers = "
                               f"{weight.numel()} and channel size = {channels}.")
    if weight.ndim > 1:
        raise RuntimeError(f"prelu: Expected `weight` to be a scalar or 1D tensor, but got: ndim = {weight.ndim}")
    _check_floating(input, "prelu_cpu")
    if input.ndim != weight.ndim:
        weight = weight.reshape((1, weight.numel()) + (1,) * (input.ndim - 2) if input.ndim > 1 else (1,) * input.ndim)
    x, w = input._data, weight._data
    data = np.where(x > 0, x, w * x)
    return record(PRELU, (input, weight), np.asarray(data, dtype=input._dtype._numpy), input._dtype)


def _prelu_kernel_backward(grad: Tensor, self: Tensor, weight: Tensor, output: int) -> Tensor:
    """One output of ATen's _prelu_kernel_backward, of the input's shape: the input's gradient
    (grad where the input is above 0, weight * grad elsewhere) or the weight's (input * grad where
    it is not; the engine sums it to the weight's shape). PreluKernelBackwardBackward0 when a
    graph is recorded."""
    x, w, g = self._data, weight._data, grad._data
    data = np.where(x > 0, g, w * g) if output == 0 else np.where(x > 0, x.dtype.type(0), x * g)
    return record(PRELU_BACKWARD, (grad, self, weight), np.asarray(data, dtype=self._data.dtype), self._dtype,
                  output=output)


def _hard_gate(x: np.ndarray) -> np.ndarray:
    """min(max(x + 3, 0), 6) / 6, as the kernels of hardsigmoid and hardswish compute it."""
    kind = x.dtype.type
    return np.minimum(np.maximum(x + kind(3), kind(0)), kind(6)) / kind(6)


@op(module="nn", nodes=(HARDSIGMOID,))
def hardsigmoid(input: Tensor) -> Tensor:
    _check_floating(input, "hardsigmoid_cpu")
    return activation(input, HARDSIGMOID, _hard_gate(opmath_array(input._data)))  # (the half precisions in float32)


def hardsigmoid_backward(grad: Tensor, self: Tensor) -> Tensor:
    """ATen's kernel: grad * (1 / 6) inside (-3, 3), else 0, the sixth a float's (`1.0f / 6.0f`, in
    float64 too; the half precisions computed in float32, rounded once). PyTorch gives it no
    derivative of its own."""
    x, dy = opmath_array(self._data), opmath_array(grad._data)
    kind = x.dtype.type
    data = np.where((x > kind(-3)) & (x < kind(3)), dy * kind(np.float32(1) / np.float32(6)), kind(0))
    return record(NOT_IMPLEMENTED, (grad, self), np.asarray(data, dtype=grad._dtype._numpy), grad._dtype,
                  _aten="hardsigmoid_backward")


@op(module="nn", nodes=(HARDSWISH,))
def hardswish(input: Tensor) -> Tensor:
    _check_floating(input, "hardswish_cpu")
    x = opmath_array(input._data)  # (the half precisions in float32)
    return activation(input, HARDSWISH, x * np.minimum(np.maximum(x + x.dtype.type(3), 0), 6) / x.dtype.type(6))


def hardswish_backward(grad_output: Tensor, self: Tensor) -> Tensor:
    x, dy = opmath_array(self._data), opmath_array(grad_output._data)  # (the half precisions in float32)
    kind = x.dtype.type
    data = np.where(x <= kind(-3), kind(0), np.where(x < kind(3), dy * (x / kind(3) + kind(0.5)), dy))
    return record(HARDSWISH_BACKWARD, (grad_output, self), np.asarray(data, dtype=self._data.dtype), grad_output._dtype)


def _check_lambd(input: Tensor, lambd: Any) -> None:
    """softshrink's check, made in the kernel of the input's dtype."""
    _check_floating(input, "softshrink_check")
    largest = np.finfo(input._dtype._numpy).max
    if not 0 <= lambd <= largest:
        raise RuntimeError(f"lambda must be in range [0, {largest:g}] for input dtype {input._dtype._scalar_name}, "
                           f"but found {lambd if isinstance(lambd, int) else format(lambd, 'g')}")


@op(module="nn", nodes=(SOFTSHRINK,))
def softshrink(input: Tensor, lambd: Any = 0.5) -> Tensor:
    """x - lambd above lambd, x + lambd below -lambd, x * 0 between (so -0.0 stays)."""
    _check_lambd(input, lambd)
    x = input._data
    kind = x.dtype.type
    data = np.where(x > kind(lambd), x - kind(lambd), np.where(x < -kind(lambd), x + kind(lambd), x * kind(0)))
    return activation(input, SOFTSHRINK, data, lambd=lambd)


def _threshold_values(input: Tensor, threshold: Any, value: Any) -> np.ndarray:
    if input._dtype.is_complex or input._dtype is dtypes.bool_:
        raise not_implemented_for("threshold_cpu", input._dtype)
    opmath_scalar(threshold, input._dtype), opmath_scalar(value, input._dtype)
    x = input._data
    return np.where(x <= threshold, np.asarray(value).astype(x.dtype), x)


def threshold_in_place_result(input: Tensor, threshold: Any, value: Any) -> Tensor:
    """What `threshold_` writes back: its node (ThresholdBackward1) reads the result."""
    return activation(input, THRESHOLD_INPLACE, _threshold_values(input, threshold, value), threshold=threshold)


@op(method=False, nodes=(THRESHOLD, THRESHOLD_INPLACE), inplace=make_inplace(threshold_in_place_result))
def threshold(input: Tensor, threshold: Any, value: Any) -> Tensor:
    return activation(input, THRESHOLD, _threshold_values(input, threshold, value), threshold=threshold)


@op(nodes=(HARDSHRINK,))
def hardshrink(input: Tensor, lambd: Any = 0.5) -> Tensor:
    """0 within [-lambd, lambd], the input elsewhere."""
    _check_floating(input, "hardshrink_cpu")
    kernel_scalar(lambd, input._dtype)
    x = input._data
    kind = x.dtype.type
    return activation(input, HARDSHRINK, np.where((x >= kind(-lambd)) & (x <= kind(lambd)), kind(0), x), lambd=lambd)


def _rrelu_backward(grad: Tensor, self_or_result: Tensor, noise: Tensor, lower: float, upper: float,
                    training: bool) -> Tensor:
    """PyTorch's rrelu_with_noise_backward: the drawn slopes in training, leaky_relu's gradient otherwise."""
    if training and upper - lower > 1e-6:
        return grad * noise
    slope = (lower + upper) / 2
    return where(self_or_result > 0, grad, grad * slope)


RRELU = node("RreluWithNoiseBackward0", ("self",), saved_tensors=("noise",),
             self=lambda grad, self, noise, lower, upper, training: _rrelu_backward(grad, self, noise, lower, upper,
                                                                                    training))
RRELU_INPLACE = node("RreluWithNoiseBackward1", ("self",), saved_tensors=("noise",),
                     self=lambda grad, result, noise, lower, upper, training: _rrelu_backward(
                         grad, result, noise, lower, upper, training))


def _rrelu(input: Tensor, lower: Any, upper: Any, training: bool, generator: Any, node_def: Any) -> Tensor:
    """ATen's rrelu_with_noise: in training each element <= 0 takes a slope drawn from
    uniform_real_distribution<double>(lower, upper) in element order (one 64-bit draw each),
    rounded to the opmath type; in evaluation leaky_relu with slope (lower + upper) / 2."""
    if not float(lower) <= float(upper):  # (a NaN bound fails it too)
        raise RuntimeError("Lower bound should be less than or equal to the upper bound")
    # training draws in a kernel for float, double and bfloat16; evaluation is leaky_relu's
    _check_floating(input, "rrelu_with_noise_out_cpu" if training else "leaky_relu_cpu")
    if training and input._dtype is dtypes.float16:
        raise not_implemented_for("rrelu_with_noise_out_cpu", input._dtype)
    x = input._data
    if not training:
        noise = Tensor._make(np.empty(x.shape, x.dtype), input._dtype)
        slope = (float(lower) + float(upper)) / 2
        opmath_scalar(slope, input._dtype)
        data = _leaky_relu_data(x, slope)
    else:
        opmath_scalar(lower, input._dtype), opmath_scalar(upper, input._dtype)
        opmath = np.float32 if x.dtype in (np.float16, np.float32) or input._dtype is dtypes.bfloat16 else np.float64
        low, high = float(opmath(lower)), float(opmath(upper))
        flat = x.reshape(-1)
        picked = np.flatnonzero(~(flat > 0))
        if picked.size and not high - low <= np.finfo(np.float64).max:  # uniform_real_distribution's check
            raise RuntimeError("Expected to - from <= std::numeric_limits<T>::max() to be true, but got false.  "
                               "(Could this error message be improved?  If so, please report an enhancement "
                               "request to PyTorch.)")
        slopes = np.ones(flat.size, opmath)
        slopes[picked] = (random.uniform_doubles(picked.size, generator) * (high - low) + low).astype(opmath)
        data = np.where(flat > 0, flat, (flat.astype(opmath) * slopes).astype(x.dtype)).reshape(x.shape)
        noise = Tensor._make(slopes.astype(x.dtype).reshape(x.shape), input._dtype)
    return record(node_def, (input,), np.asarray(data, x.dtype), input._dtype, noise=noise, lower=float(lower),
                  upper=float(upper), training=bool(training))


def rrelu_in_place_result(input: Tensor, lower: Any = 0.125, upper: Any = 1.0 / 3, training: bool = False,
                          generator: Any = None) -> Tensor:
    """What `rrelu_` writes back: its node (RreluWithNoiseBackward1) finds the gradient from the result."""
    return _rrelu(input, lower, upper, training, generator, RRELU_INPLACE)


@op(method=False, nodes=(RRELU, RRELU_INPLACE), inplace=make_inplace(rrelu_in_place_result))
def rrelu(input: Tensor, lower: Any = 0.125, upper: Any = 1.0 / 3, training: bool = False,
          generator: Any = None) -> Tensor:
    for name, bound in (("lower", lower), ("upper", upper)):  # the out-of-place form's own checks
        if not math.isfinite(float(bound)):
            raise RuntimeError(f"rrelu: {name} bound must be finite, got {float(bound):g}")
    return _rrelu(input, lower, upper, training, generator, RRELU)
