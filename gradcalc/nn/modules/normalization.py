"""LayerNorm, GroupNorm, RMSNorm and LocalResponseNorm."""
from __future__ import annotations

import numbers
from typing import Any, Optional


from ...autograd import dtypes
from ...autograd.ops.creation import allocated
from ...autograd.dtypes import DType
from ...autograd.tensor import Tensor
from .. import functional as F
from .. import init
from ..parameter import Parameter
from . import _functions
from .module import Module
from .utils import own_init


def _parameter(shape: Any, value: float, dtype: Optional[DType]) -> Parameter:
    dtype = dtypes.get_default_dtype() if dtype is None else dtype
    return Parameter(allocated(shape, dtype, value))


def _register_affine(module: Module, shape: Any, affine: bool, bias: bool, dtype: Optional[DType]) -> None:
    """A weight of ones and a bias of zeros, or None for either the module goes without."""
    module.register_parameter("weight", _parameter(shape, 1.0, dtype) if affine else None)
    module.register_parameter("bias", _parameter(shape, 0.0, dtype) if affine and bias else None)


class LayerNorm(Module):
    __module__ = "torch.nn.modules.normalization"

    def __init__(self, normalized_shape: Any, eps: float = 1e-5, elementwise_affine: bool = True, bias: bool = True,
                 device: Any = None, dtype: Optional[DType] = None) -> None:
        super().__init__()
        if isinstance(normalized_shape, numbers.Integral):
            normalized_shape = (normalized_shape,)
        self.normalized_shape = tuple(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        _register_affine(self, self.normalized_shape, elementwise_affine, bias, dtype)

    def reset_parameters(self) -> None:
        if self.elementwise_affine:
            init.ones_(self.weight)
            if self.bias is not None:
                init.zeros_(self.bias)

    def forward(self, input: Tensor) -> Tensor:
        return F.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        return (f"{self.normalized_shape}, eps={self.eps}, elementwise_affine={self.elementwise_affine}, "
                f"bias={self.bias is not None}")


class GroupNorm(Module):
    __module__ = "torch.nn.modules.normalization"

    def __init__(self, num_groups: int, num_channels: int, eps: float = 1e-5, affine: bool = True,
                 device: Any = None, dtype: Optional[DType] = None, *, bias: bool = True) -> None:
        super().__init__()
        try:
            indivisible = num_channels % num_groups != 0
        except (ZeroDivisionError, TypeError) as error:  # Python's own error, from torch's same line
            raise error.with_traceback(None)
        if indivisible:
            raise ValueError(f"num_channels ({num_channels}) must be divisible by num_groups ({num_groups})")
        self.num_groups = num_groups
        self.num_channels = num_channels
        self.eps = eps
        self.affine = affine
        _register_affine(self, num_channels, affine, bias, dtype)

    def forward(self, input: Tensor) -> Tensor:
        return F.group_norm(input, self.num_groups, self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        return (f"{self.num_groups}, {self.num_channels}, eps={self.eps}, affine={self.affine}, "
                f"bias={self.bias is not None}")


class RMSNorm(Module):
    __module__ = "torch.nn.modules.normalization"

    def __init__(self, normalized_shape: Any, eps: Optional[float] = None, elementwise_affine: bool = True,
                 device: Any = None, dtype: Optional[DType] = None) -> None:
        super().__init__()
        if isinstance(normalized_shape, numbers.Integral):
            normalized_shape = (normalized_shape,)
        self.normalized_shape = tuple(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        if elementwise_affine:
            self.weight = _parameter(self.normalized_shape, 1.0, dtype)
        else:
            self.register_parameter("weight", None)

    def forward(self, input: Tensor) -> Tensor:
        return F.rms_norm(input, self.normalized_shape, self.weight, self.eps)

    def extra_repr(self) -> str:
        return f"{self.normalized_shape}, eps={self.eps}, elementwise_affine={self.elementwise_affine}"


class _ChannelWindowNorm(Module):
    """A response normalised by the squares of `size` neighbouring channels (its two forms below)."""

    def __init__(self, size: int, alpha: float = 1e-4, beta: float = 0.75, k: float = 1.0) -> None:
        super().__init__()
        self.size, self.alpha, self.beta, self.k = size, alpha, beta, k

    def extra_repr(self) -> str:
        return f"{self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}"


@own_init
class LocalResponseNorm(_ChannelWindowNorm):
    __module__ = "torch.nn.modules.normalization"

    def forward(self, input: Tensor) -> Tensor:
        return F.local_response_norm(input, self.size, self.alpha, self.beta, self.k)


class CrossMapLRN2d(_ChannelWindowNorm):
    __module__ = "torch.nn.modules.normalization"

    def __init__(self, size: int, alpha: float = 1e-4, beta: float = 0.75, k: float = 1) -> None:
        super().__init__(size, alpha, beta, k)

    def forward(self, input: Tensor) -> Tensor:
        return _functions.CrossMapLRN2d.apply(input, self.size, self.alpha, self.beta, self.k)
