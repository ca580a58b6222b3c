"""torch.nn.functional's activations, softmax and dropout.

Softmax reproduces the order of PyTorch's CPU kernel arithmetic, since a softmax gradient is
often a difference of nearly equal numbers."""
from __future__ import annotations

import math
from typing import Any, Optional

import numpy as np

from ...display.names import type_name
from ...autograd import meta, random
from ...autograd.dtypes import DType
from ...autograd.ops import activation
from ...autograd.ops.generate import namespace_members
from ...autograd.ops.inplace import check_inplace, commit_inplace
from ...autograd.ops.parser import parser
from ...autograd.tensor import Tensor
from ...warnings import warn


def _require_tensor(value: Any, function: str, argument: str, position: int) -> None:
    if not isinstance(value, Tensor):
        raise TypeError(f"{function}(): argument '{argument}' (position {position}) must be Tensor, not "
                        f"{type_name(value)}")


# the functions torch.nn.functional calls in torch and torch._C._nn, with their argument parsing
_TORCH = namespace_members("torch")
_NN = namespace_members("nn")


def _nn_arguments(name: str, *args: Any) -> dict:
    """The arguments of torch._C._nn's `name` (an in-place variant F calls), refused in its words."""
    return parser("nn", name).parse(args, {})[1]


# ------------------------------------------------------------------ activations

def relu(input: Tensor, inplace: bool = False) -> Tensor:
    _require_tensor(input, "relu", "input", 1)
    return input.relu_() if inplace else activation.relu(input)


def relu_(input: Tensor) -> Tensor:
    _require_tensor(input, "relu_", "input", 1)
    return input.relu_()


def leaky_relu(input: Tensor, negative_slope: float = 0.01, inplace: bool = False) -> Tensor:
    if not inplace:
        return _NN["leaky_relu"](input, negative_slope)
    negative_slope = _nn_arguments("leaky_relu_", input, negative_slope)["negative_slope"]
    check_inplace(input)
    return commit_inplace(input, activation.leaky_relu_in_place_result(input, negative_slope))


def sigmoid(input: Tensor) -> Tensor:
    _require_tensor(input, "sigmoid", "input", 1)
    return input.sigmoid()


def tanh(input: Tensor) -> Tensor:
    _require_tensor(input, "tanh", "input", 1)
    return input.tanh()


# ------------------------------------------------------------------ softmax

# `_stacklevel` only keeps torch's positional order: a third positional argument lands there.
def softmax(input: Tensor, dim: Optional[int] = None, _stacklevel: int = 3, dtype: Optional[DType] = None) -> Tensor:
    return _softmax(input, dim, dtype, log=False)


def log_softmax(input: Tensor, dim: Optional[int] = None, _stacklevel: int = 3,
                dtype: Optional[DType] = None) -> Tensor:
    return _softmax(input, dim, dtype, log=True)


def _softmax(input: Tensor, dim: Optional[int], dtype: Optional[DType], log: bool) -> Tensor:
    name = "log_softmax" if log else "softmax"
    _require_tensor(input, name, "input", 1)
    if dim is None:
        dim = activation.implicit_softmax_dim(name, input.ndim)
    method = input.log_softmax if log else input.softmax  # as torch's: the method, which checks dim and dtype
    return method(dim) if dtype is None else method(dim, dtype=dtype)


# ------------------------------------------------------------------ more activations and dropout

def _in_place(input: Tensor, result: Tensor) -> Tensor:
    """`result` written back into input, for the activations' inplace=True."""
    check_inplace(input)
    return commit_inplace(input, result)


# torch.nn.functional's gelu and softplus are torch._C._nn's own
gelu = _NN["gelu"]
softplus = _NN["softplus"]


def silu(input: Tensor, inplace: bool = False) -> Tensor:
    if not inplace:
        return _NN["silu"](input)
    _nn_arguments("silu_", input)
    return _in_place(input, activation.silu_result(input))


def elu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    if inplace:
        alpha = _nn_arguments("elu_", input, alpha)["alpha"]
        # in place, the input is gone: the gradient is found from the result (EluBackward1)
        return _in_place(input, activation.elu_in_place_result(input, alpha))
    return _NN["elu"](input, alpha)


def elu_(input: Tensor, alpha: float = 1.0) -> Tensor:
    return elu(input, alpha, inplace=True)


def hardtanh(input: Tensor, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False) -> Tensor:
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    if not inplace:
        return _NN["hardtanh"](input, min_val, max_val)
    bound = _nn_arguments("hardtanh_", input, min_val, max_val)
    return _in_place(input, activation.hardtanh(input, bound["min_val"], bound["max_val"]))


def hardtanh_(input: Tensor, min_val: float = -1.0, max_val: float = 1.0) -> Tensor:
    return hardtanh(input, min_val, max_val, inplace=True)


def relu6(input: Tensor, inplace: bool = False) -> Tensor:
    return hardtanh(input, 0.0, 6.0, inplace)


def _check_probability(p: float) -> None:
    """ATen's own check of a dropout's p, which torch's Python check (p < 0 or p > 1) lets NaN past."""
    if p != p:
        raise RuntimeError("dropout probability has to be between 0 and 1, but got nan")


def dropout(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    """ATen's CPU dropout: a keep mask from bernoulli_(1 - p), divided by 1 - p in place, times
    the input (MulBackward0); the input itself when nothing is dropped."""
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    # _VF.dropout(input, p, training) (dropout_ in place): its argument parser's checks
    parser("torch", "dropout_" if inplace else "dropout").parse((input, p, training), {})
    _check_probability(p)
    if p == 0 or not training or input.numel() == 0:
        return input
    if p == 1:
        noise = Tensor._make(np.zeros((), dtype=input.dtype._numpy), input.dtype)
    elif input.is_meta:  # a meta tensor's mask: its shape, nothing drawn
        noise = meta.make_meta(input.shape, input.dtype)
    else:
        noise = Tensor._make(_draw_in_memory_order(input._data, 1 - p, input.dtype.name), input.dtype)
        noise.div_(1 - p)
    return input.mul_(noise) if inplace else input * noise



def _draw_in_memory_order(like: np.ndarray, p: float, dtype_name: str) -> np.ndarray:
    """bernoulli_ draws into empty_like(input), which keeps the input's layout: the draws fill
    memory in order, so a transposed input gets its mask transposed."""
    order = sorted(range(like.ndim), key=lambda d: -abs(like.strides[d]) if like.shape[d] > 1 else 0)
    if order == sorted(order) or like.ndim < 2:
        return random.bernoulli_(like.shape, p, dtype_name)
    drawn = random.bernoulli_(tuple(like.shape[d] for d in order), p, dtype_name)
    return np.transpose(drawn, np.argsort(order))


def _channel_dropout(input: Tensor, p: float, training: bool, inplace: bool, alpha: bool, feature: bool) -> Tensor:
    """ATen's _dropout_impl behind _VF.feature_dropout, alpha_dropout and feature_alpha_dropout
    (their argument parsers first): a keep mask from bernoulli_(1 - p), one draw per (sample,
    channel) for the feature variants; plain, input * mask / (1 - p); alpha,
    b = (mask - 1) * alpha * a + alpha * a * p, then input * (mask * a) + b."""
    name = ("feature_" if feature else "") + ("alpha_dropout" if alpha else "dropout") + ("_" if inplace else "")
    parser("torch", name).parse((input, p, training), {})
    _check_probability(p)
    if p == 0 or not training or input.numel() == 0:
        return input
    if p == 1:
        zero = Tensor._make(np.zeros((), dtype=input.dtype._numpy), input.dtype)
        return input.mul_(zero) if inplace else input * zero
    if feature and input.ndim < 2:
        raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
    shape = tuple(input.shape[:2]) + (1,) * (input.ndim - 2) if feature else input.shape
    noise = Tensor._make(random.bernoulli_(shape, 1 - p, input.dtype.name), input.dtype)
    if not alpha:
        noise.div_(1 - p)
        return input.mul_(noise) if inplace else input * noise
    alpha_value = 1.7580993408473766
    a = 1.0 / math.sqrt((alpha_value * alpha_value * p + 1) * (1 - p))
    b = noise.add(-1).mul_(alpha_value * a).add_(alpha_value * a * p)
    noise.mul_(a)
    return (input.mul_(noise) if inplace else input * noise).add_(b)


def _checked_p(p: float) -> None:
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def _deprecated_rank(name: str, rank: int, spatial: int) -> None:
    warn("UserWarning", f"{name}: Received a {rank}-D input to {name}, which is deprecated and will result in an "
                        "error in a future release. To retain the behavior and silence this warning, please use "
                        f"dropout instead. Note that {name} exists to provide channel-wise dropout on inputs with "
                        f"{spatial} spatial dimensions, a channel dimension, and an optional batch dimension (i.e. "
                        f"{spatial + 1}D or {spatial + 2}D inputs).")


def _unbatched_feature_dropout(input: Tensor, p: float, training: bool, inplace: bool) -> Tensor:
    """An input without a batch dim, given one for the feature dropout and rid of it after."""
    batched = input.unsqueeze_(0) if inplace else input.unsqueeze(0)
    result = _channel_dropout(batched, p, training, inplace, alpha=False, feature=True)
    return result.squeeze_(0) if inplace else result.squeeze(0)


def dropout1d(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    _checked_p(p)
    if input.ndim not in (2, 3):
        raise RuntimeError(f"dropout1d: Expected 2D or 3D input, but received a {input.ndim}D input. Note that "
                           "dropout1d exists to provide channel-wise dropout on inputs with 1 spatial dimension, a "
                           "channel dimension, and an optional batch dimension (i.e. 2D or 3D inputs).")
    if input.ndim == 2:
        return _unbatched_feature_dropout(input, p, training, inplace)
    return _channel_dropout(input, p, training, inplace, alpha=False, feature=True)


def dropout2d(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    _checked_p(p)
    if input.ndim not in (3, 4):
        _deprecated_rank("dropout2d", input.ndim, 2)
    if input.ndim == 3:  # read as (N, C, L), as torch has done so far
        warn("UserWarning", "dropout2d: Received a 3D input to dropout2d and assuming that channel-wise 1D dropout "
                            "behavior is desired - input is interpreted as shape (N, C, L), where C is the channel "
                            "dim. This behavior will change in a future release to interpret the input as one without "
                            "a batch dimension, i.e. shape (C, H, W). To maintain the 1D channel-wise dropout "
                            "behavior, please switch to using dropout1d instead.")
    return _channel_dropout(input, p, training, inplace, alpha=False, feature=True)


def dropout3d(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    _checked_p(p)
    if input.ndim not in (4, 5):
        _deprecated_rank("dropout3d", input.ndim, 3)
    if input.ndim != 5:
        return _unbatched_feature_dropout(input, p, training, inplace)
    return _channel_dropout(input, p, training, inplace, alpha=False, feature=True)


def alpha_dropout(input: Tensor, p: float = 0.5, training: bool = False, inplace: bool = False) -> Tensor:
    _checked_p(p)
    return _channel_dropout(input, p, training, inplace, alpha=True, feature=False)


def feature_alpha_dropout(input: Tensor, p: float = 0.5, training: bool = False, inplace: bool = False) -> Tensor:
    _checked_p(p)
    return _channel_dropout(input, p, training, inplace, alpha=True, feature=True)


# ------------------------------------------------------------------ more activations

def selu(input: Tensor, inplace: bool = False) -> Tensor:
    return _TORCH["selu_"](input) if inplace else _TORCH["selu"](input)


def celu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    return _TORCH["celu_"](input, alpha) if inplace else _TORCH["celu"](input, alpha)


celu_ = _TORCH["celu_"]
selu_ = _TORCH["selu_"]


def leaky_relu_(input: Tensor, negative_slope: float = 0.01) -> Tensor:
    return leaky_relu(input, negative_slope, inplace=True)


prelu = _TORCH["prelu"]  # torch's F.prelu is the C function torch.prelu


def rrelu(input: Tensor, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training: bool = False,
          inplace: bool = False) -> Tensor:
    return _TORCH["rrelu_"](input, lower, upper, training) if inplace else _TORCH["rrelu"](input, lower, upper,
                                                                                            training)


rrelu_ = _TORCH["rrelu_"]


def hardsigmoid(input: Tensor, inplace: bool = False) -> Tensor:
    return _in_place(input, _NN["hardsigmoid"](input)) if inplace else _NN["hardsigmoid"](input)


def hardswish(input: Tensor, inplace: bool = False) -> Tensor:
    return _in_place(input, _NN["hardswish"](input)) if inplace else _NN["hardswish"](input)


def mish(input: Tensor, inplace: bool = False) -> Tensor:
    return _in_place(input, _NN["mish"](input)) if inplace else _NN["mish"](input)


def softsign(input: Tensor) -> Tensor:
    return input / (input.abs() + 1)


def tanhshrink(input: Tensor) -> Tensor:
    return input - input.tanh()


def hardshrink(input: Tensor, lambd: float = 0.5) -> Tensor:
    return _TORCH["hardshrink"](input, lambd)


def softshrink(input: Tensor, lambd: float = 0.5) -> Tensor:
    return _NN["softshrink"](input, lambd)


def threshold(input: Tensor, threshold: float, value: float, inplace: bool = False) -> Tensor:
    return _TORCH["threshold_" if inplace else "threshold"](input, threshold, value)


threshold_ = _TORCH["threshold_"]  # torch's own function, as torch.nn.functional has it


def glu(input: Tensor, dim: int = -1) -> Tensor:
    if not isinstance(input, Tensor):  # torch's first step, input.dim(), on anything else
        raise AttributeError(f"'{type_name(input)}' object has no attribute 'dim'")
    if input.dim() == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    return _NN["glu"](input, dim)


def softmin(input: Tensor, dim: Optional[int] = None, _stacklevel: int = 3, dtype: Optional[DType] = None) -> Tensor:
    return _softmax(-input, dim, dtype, log=False)


def gumbel_softmax(logits: Tensor, tau: float = 1, hard: bool = False, eps: float = 1e-10, dim: int = -1) -> Tensor:
    gumbels = -Tensor._make(np.empty(logits.shape, dtype=logits.dtype._numpy), logits.dtype).exponential_().log()
    soft = ((logits + gumbels) / tau).softmax(dim)
    if not hard:
        return soft
    index = soft.max(dim, keepdim=True)[1]
    hard_values = soft.new_zeros(soft.shape).scatter_(dim, index, 1.0)
    return hard_values - soft.detach() + soft


__all__ = ["relu", "relu_", "leaky_relu", "sigmoid", "tanh", "softmax", "log_softmax", "gelu", "silu", "softplus",
           "elu", "elu_", "hardtanh", "hardtanh_", "relu6", "dropout", "dropout1d", "dropout2d",
           "dropout3d", "alpha_dropout", "feature_alpha_dropout", "selu", "selu_", "celu",
           "celu_", "leaky_relu_", "prelu", "rrelu", "rrelu_", "hardsigmoid", "hardswish",
           "mish", "softsign", "tanhshrink", "hardshrink", "softshrink", "threshold", "threshold_", "glu", "softmin",
           "gumbel_softmax"]
