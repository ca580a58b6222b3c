"""torch.nn.init: fill a tensor in place without recording it, from PyTorch's random stream."""
from __future__ import annotations

import math
from typing import Any, Optional

import numpy as np

from ..autograd import grad_mode
from ..autograd.ops.creation import randperm
from ..autograd.ops.decompositions import linalg_qr
from ..autograd.ops.indexing import where
from ..autograd.tensor import Tensor
from ..display.names import type_name
from ..torch_code import copied_from_torch
from ..warnings import warn

__all__ = ["calculate_gain", "uniform_", "normal_", "trunc_normal_", "constant_", "ones_", "zeros_", "eye_", "dirac_",
           "xavier_uniform_", "xavier_normal_", "kaiming_uniform_", "kaiming_normal_", "orthogonal_", "sparse_",
           "uniform", "normal", "constant", "eye", "dirac", "xavier_uniform", "xavier_normal", "kaiming_uniform",
           "kaiming_normal", "orthogonal", "sparse"]

ZERO_ELEMENT_WARNING = "Initializing zero-element tensors is a no-op"
_LINEAR_FUNCTIONS = ("linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
                     "conv_transpose3d")


def _write(tensor: Tensor, values: np.ndarray) -> Tensor:
    """Copy `values` into `tensor` under no_grad: its version moves on, its history does not."""
    with grad_mode.no_grad():
        tensor.copy_(Tensor._make(values, tensor.dtype))
    return tensor


def calculate_gain(nonlinearity: str, param: Optional[float] = None) -> float:
    if nonlinearity in _LINEAR_FUNCTIONS or nonlinearity == "sigmoid":
        return 1
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        if param is None:
            negative_slope = 0.01
        elif not isinstance(param, bool) and isinstance(param, int) or isinstance(param, float):
            negative_slope = param
        else:
            raise ValueError(f"negative_slope {param} not a valid number")
        return math.sqrt(2.0 / (1 + negative_slope ** 2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ValueError(f"Unsupported nonlinearity {nonlinearity}")


def _first_method(tensor: Any, name: str) -> None:
    """torch's init functions start by calling a method of the tensor: anything else fails there."""
    if not isinstance(tensor, Tensor):
        raise AttributeError(f"'{type_name(tensor)}' object has no attribute '{name}'")


def uniform_(tensor: Tensor, a: float = 0.0, b: float = 1.0, generator: Any = None) -> Tensor:
    # torch's: the tensor's own method under no_grad (its argument parser's and kernel's checks)
    _first_method(tensor, "uniform_")
    if tensor.is_meta:  # PyTorch's meta kernels draw nothing
        return tensor
    with grad_mode.no_grad():
        return tensor.uniform_(a, b, generator=generator)


def normal_(tensor: Tensor, mean: float = 0.0, std: float = 1.0, generator: Any = None) -> Tensor:
    _first_method(tensor, "normal_")
    if tensor.is_meta:
        return tensor
    with grad_mode.no_grad():
        return tensor.normal_(mean, std, generator=generator)


@copied_from_torch  # (std=0: torch's own ZeroDivisionError)
def trunc_normal_(tensor: Tensor, mean: float = 0.0, std: float = 1.0, a: float = -2.0, b: float = 2.0,
                  generator: Any = None) -> Tensor:
    """Normal values inside [a, b], drawn as PyTorch draws them: redrawn where they fall outside when
    [a, b] holds much of the distribution, else uniform proposals accepted by rejection."""
    if mean < a - 2 * std or mean > b + 2 * std:
        warn("UserWarning", "mean is more than 2 std from [a, b] in nn.init.trunc_normal_. The distribution of "
                            "values may be incorrect.")
    with grad_mode.no_grad():
        mass = _normal_cdf((b - mean) / std) - _normal_cdf((a - mean) / std)
        if mass > 0.3:
            return _redrawn_outside(tensor, mean, std, a, b, generator)
        return _accepted_uniform(tensor, mean, std, a, b, generator)


@copied_from_torch
def _normal_cdf(x: float) -> float:
    return (1.0 + math.erf(x / math.sqrt(2.0))) / 2.0


def _redrawn_outside(tensor: Tensor, mean: float, std: float, a: float, b: float, generator: Any) -> Tensor:
    lo, hi = tensor.new_tensor(a).item(), tensor.new_tensor(b).item()
    result = tensor.normal_(mean, std, generator=generator)
    while True:
        outside = (result < lo) | (result > hi)
        if not outside.any():
            return tensor
        result = where(outside, tensor.new_empty(tensor.shape).normal_(mean, std, generator=generator), result)
        tensor.copy_(result)


def _accepted_uniform(tensor: Tensor, mean: float, std: float, a: float, b: float, generator: Any) -> Tensor:
    mode = max(a, min(mean, b))
    log_peak = -0.5 * ((mode - mean) / std) ** 2
    accept_buf = tensor.new_empty(tensor.shape)
    tensor.uniform_(a, b, generator=generator)
    candidates = tensor.clone()
    candidates.sub_(mean).div_(std).pow_(2).mul_(-0.5).sub_(log_peak)
    pending = accept_buf.uniform_(generator=generator).log_().gt(candidates)
    result = tensor
    while pending.any():
        candidates.uniform_(a, b, generator=generator)
        result = where(pending, candidates, result)
        candidates.sub_(mean).div_(std).pow_(2).mul_(-0.5).sub_(log_peak)
        pending = where(pending, accept_buf.uniform_(generator=generator).log_().gt(candidates), pending)
    return tensor.copy_(result)


def constant_(tensor: Tensor, val: float) -> Tensor:
    _first_method(tensor, "fill_")
    with grad_mode.no_grad():
        return tensor.fill_(val)


def ones_(tensor: Tensor) -> Tensor:
    return constant_(tensor, 1.0)


def zeros_(tensor: Tensor) -> Tensor:
    _first_method(tensor, "zero_")
    with grad_mode.no_grad():
        return tensor.zero_()


def eye_(tensor: Tensor) -> Tensor:
    if tensor.ndimension() != 2:  # (torch's own reads: a number given fails on them in Python's words)
        raise ValueError("Only tensors with 2 dimensions are supported")
    return _write(tensor, np.eye(*tensor.shape, dtype=tensor.dtype._numpy))


def dirac_(tensor: Tensor, groups: int = 1) -> Tensor:
    """The identity of a convolution: a one at the centre of each kept channel's kernel."""
    dimensions = tensor.ndimension()
    if dimensions not in (3, 4, 5):
        raise ValueError("Only tensors with 3, 4, or 5 dimensions are supported")
    sizes = tensor.size()
    if sizes[0] % groups != 0:
        raise ValueError("dim 0 must be divisible by groups")
    out_chans_per_grp = sizes[0] // groups
    centre = tuple(size // 2 for size in sizes[2:])
    with grad_mode.no_grad():
        tensor.zero_()
        for g in range(groups):
            for d in range(min(out_chans_per_grp, sizes[1])):
                tensor[(g * out_chans_per_grp + d, d) + centre] = 1
    return tensor


def _fans(tensor: Tensor) -> tuple:
    if tensor.dim() < 2:
        raise ValueError("Fan in and fan out can not be computed for tensor with fewer than 2 dimensions")
    receptive_field = math.prod(tensor.shape[2:])
    return tensor.shape[1] * receptive_field, tensor.shape[0] * receptive_field


def _fan(tensor: Tensor, mode: str) -> int:
    mode = mode.lower()
    if mode not in ("fan_in", "fan_out"):
        raise ValueError(f"Mode {mode} not supported, please use one of ['fan_in', 'fan_out']")
    fan_in, fan_out = _fans(tensor)
    return fan_in if mode == "fan_in" else fan_out


def xavier_uniform_(tensor: Tensor, gain: float = 1.0, generator: Any = None) -> Tensor:
    fan_in, fan_out = _fans(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    bound = math.sqrt(3.0) * std
    return uniform_(tensor, -bound, bound, generator)


def xavier_normal_(tensor: Tensor, gain: float = 1.0, generator: Any = None) -> Tensor:
    fan_in, fan_out = _fans(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    return normal_(tensor, 0.0, std, generator)


def _kaiming_std(tensor: Tensor, a: float, mode: str, nonlinearity: str) -> Optional[float]:
    """He et al.'s standard deviation; None (with PyTorch's warning) for a tensor with no elements."""
    if 0 in tensor.shape:
        warn("UserWarning", ZERO_ELEMENT_WARNING)
        return None
    return calculate_gain(nonlinearity, a) / math.sqrt(_fan(tensor, mode))


def kaiming_uniform_(tensor: Tensor, a: float = 0, mode: str = "fan_in", nonlinearity: str = "leaky_relu",
                     generator: Any = None) -> Tensor:
    std = _kaiming_std(tensor, a, mode, nonlinearity)
    if std is None:
        return tensor
    bound = math.sqrt(3.0) * std
    return uniform_(tensor, -bound, bound, generator)


def kaiming_normal_(tensor: Tensor, a: float = 0, mode: str = "fan_in", nonlinearity: str = "leaky_relu",
                    generator: Any = None) -> Tensor:
    std = _kaiming_std(tensor, a, mode, nonlinearity)
    return tensor if std is None else normal_(tensor, 0, std, generator)


def orthogonal_(tensor: Tensor, gain: float = 1, generator: Any = None) -> Tensor:
    """A (semi-)orthogonal matrix from the QR decomposition of normal values, R's diagonal made positive."""
    if tensor.ndimension() < 2:
        raise ValueError("Only tensors with 2 or more dimensions are supported")
    if tensor.numel() == 0:
        return tensor
    rows = tensor.size(0)
    cols = tensor.numel() // rows
    flattened = tensor.new_empty((rows, cols)).normal_(0, 1, generator=generator)
    if rows < cols:
        flattened.t_()
    q, r = linalg_qr(flattened)
    q *= r.diag(0).sign()
    if rows < cols:
        q.t_()
    with grad_mode.no_grad():
        tensor.view_as(q).copy_(q)
        tensor.mul_(gain)
    return tensor


def sparse_(tensor: Tensor, sparsity: float, std: float = 0.01, generator: Any = None) -> Tensor:
    """Normal values with the fraction `sparsity` of each column's entries set to zero."""
    if tensor.ndimension() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    rows, cols = tensor.shape
    num_zeros = math.ceil(sparsity * rows)
    with grad_mode.no_grad():
        tensor.normal_(0, std, generator=generator)
        for col_idx in range(cols):
            tensor[randperm(rows)[:num_zeros], col_idx] = 0
    return tensor


def _deprecated(method: Any) -> Any:
    """The old name without the underscore: the same, with PyTorch's FutureWarning."""
    new_name = method.__name__
    old_name = new_name[:-1]

    def deprecated_init(*args: Any, **kwargs: Any) -> Any:
        warn("FutureWarning", f"`nn.init.{old_name}` is now deprecated in favor of `nn.init.{new_name}`.")
        return method(*args, **kwargs)

    deprecated_init.__name__ = deprecated_init.__qualname__ = old_name
    return deprecated_init


uniform = _deprecated(uniform_)
normal = _deprecated(normal_)
constant = _deprecated(constant_)
eye = _deprecated(eye_)
dirac = _deprecated(dirac_)
xavier_uniform = _deprecated(xavier_uniform_)
xavier_normal = _deprecated(xavier_normal_)
kaiming_uniform = _deprecated(kaiming_uniform_)
kaiming_normal = _deprecated(kaiming_normal_)
orthogonal = _deprecated(orthogonal_)
sparse = _deprecated(sparse_)
