"""Convolution layers: Conv1d/2d/3d, ConvTranspose1d/2d/3d and their lazy forms, initialised
as PyTorch initialises them (kaiming_uniform_ on the weight, then the bias), draw for draw."""
from __future__ import annotations

import math
from typing import Any, Optional


from ...autograd import dtypes
from ...autograd.dtypes import DType
from ...autograd.ops.creation import parameter_data
from ...autograd.tensor import Tensor
from .. import functional as F
from .. import init
from ..parameter import Parameter, UninitializedParameter
from .lazy import LazyModuleMixin
from .module import Module
from .utils import _ntuple, defined_in

_PADDING_MODES = {"zeros", "reflect", "replicate", "circular"}


class _ConvNd(Module):
    __module__ = "torch.nn.modules.conv"
    _spatial = 2
    _transposed = False

    def __init__(self, in_channels: int, out_channels: int, kernel_size: Any, stride: Any = 1, padding: Any = 0,
                 dilation: Any = 1, groups: int = 1, bias: bool = True, padding_mode: str = "zeros",
                 device: Any = None, dtype: Optional[DType] = None, output_padding: Any = 0) -> None:
        super().__init__()
        n = self._spatial
        if groups <= 0:
            raise ValueError("groups must be a positive integer")
        if in_channels % groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        if out_channels % groups != 0:
            raise ValueError("out_channels must be divisible by groups")
        if isinstance(padding, str):
            if padding not in ("same", "valid"):
                raise ValueError(f"Invalid padding string {padding!r}, should be one of {{'same', 'valid'}}")
            if padding == "same" and any(s != 1 for s in _ntuple(stride, n)):
                raise ValueError("padding='same' is not supported for strided convolutions")
        if padding_mode not in _PADDING_MODES:
            raise ValueError(f"padding_mode must be one of {_PADDING_MODES}, but got padding_mode='{padding_mode}'")
        self.in_channels = in_channels
        self.out_channels = out_channels
        self.kernel_size = _ntuple(kernel_size, n)
        self.stride = _ntuple(stride, n)
        self.padding = padding if isinstance(padding, str) else _ntuple(padding, n)
        self.dilation = _ntuple(dilation, n)
        self.transposed = self._transposed
        self.output_padding = _ntuple(output_padding, n)
        self.groups = groups
        self.padding_mode = padding_mode
        if isinstance(self.padding, str):
            self._reversed_padding_repeated_twice = [0, 0] * n
            if padding == "same":
                for d, k, i in zip(self.dilation, self.kernel_size, range(n - 1, -1, -1)):
                    total = d * (k - 1)
                    left = total // 2
                    self._reversed_padding_repeated_twice[2 * i] = left
                    self._reversed_padding_repeated_twice[2 * i + 1] = total - left
        else:
            self._reversed_padding_repeated_twice = [p for p in reversed(self.padding) for _ in range(2)]
        dtype = dtypes.get_default_dtype() if dtype is None else dtype
        if self.transposed:
            shape = (in_channels, out_channels // groups) + self.kernel_size
        else:
            shape = (out_channels, in_channels // groups) + self.kernel_size
        self.weight = Parameter(parameter_data(shape, dtype, device))
        if bias:
            self.bias = Parameter(parameter_data(out_channels, dtype, device))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in = self.weight.shape[1] * math.prod(self.weight.shape[2:])
            if fan_in != 0:
                bound = 1 / math.sqrt(fan_in)
                init.uniform_(self.bias, -bound, bound)

    def extra_repr(self) -> str:
        text = f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, stride={self.stride}"
        # (each compared with as many defaults as it has entries, as torch compares them)
        if self.padding != (0,) * len(self.padding):
            text += f", padding={self.padding}"
        if self.dilation != (1,) * len(self.dilation):
            text += f", dilation={self.dilation}"
        if self.output_padding != (0,) * len(self.output_padding):
            text += f", output_padding={self.output_padding}"
        if self.groups != 1:
            text += f", groups={self.groups}"
        if self.bias is None:
            text += ", bias=False"
        if self.padding_mode != "zeros":
            text += f", padding_mode={self.padding_mode}"
        return text


class _Conv(_ConvNd):
    _function: Any = None
    _methods_of_its_own = ("__init__", "forward")

    def __init__(self, in_channels: int, out_channels: int, kernel_size: Any, stride: Any = 1, padding: Any = 0,
                 dilation: Any = 1, groups: int = 1, bias: bool = True, padding_mode: str = "zeros",
                 device: Any = None, dtype: Optional[DType] = None) -> None:
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation, groups, bias,
                         padding_mode, device, dtype)

    def _conv_forward(self, input: Tensor, weight: Tensor, bias: Optional[Tensor]) -> Tensor:
        function = type(self)._function
        if self.padding_mode != "zeros":
            padded = F.pad(input, self._reversed_padding_repeated_twice, mode=self.padding_mode)
            return function(padded, weight, bias, self.stride, (0,) * self._spatial, self.dilation, self.groups)
        return function(input, weight, bias, self.stride, self.padding, self.dilation, self.groups)

    def forward(self, input: Tensor) -> Tensor:
        return self._conv_forward(input, self.weight, self.bias)


class Conv1d(_Conv):
    __module__ = "torch.nn.modules.conv"
    _spatial = 1
    _function = staticmethod(F.conv1d)


class Conv2d(_Conv):
    __module__ = "torch.nn.modules.conv"
    _spatial = 2
    _function = staticmethod(F.conv2d)


class Conv3d(_Conv):
    __module__ = "torch.nn.modules.conv"
    _spatial = 3
    _function = staticmethod(F.conv3d)


class _ConvTranspose(_ConvNd):
    _transposed = True
    _function: Any = None
    _methods_of_its_own = ("__init__", "forward")

    def __init__(self, in_channels: int, out_channels: int, kernel_size: Any, stride: Any = 1, padding: Any = 0,
                 output_padding: Any = 0, groups: int = 1, bias: bool = True, dilation: Any = 1,
                 padding_mode: str = "zeros", device: Any = None, dtype: Optional[DType] = None) -> None:
        if padding_mode != "zeros":
            raise ValueError(f"Only \"zeros\" padding mode is supported for {type(self).__name__}")
        # torch's transposed convolutions take a tuple of the padding at once: a string's characters
        padding = _ntuple(padding, self._spatial)
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation, groups, bias,
                         padding_mode, device, dtype, output_padding)

    def _output_padding(self, input: Tensor, output_size: Any) -> Any:
        # PyTorch's order: the length, then every dim's range, then each comparison
        if output_size is None:
            return self.output_padding
        n = self._spatial
        non_spatial = 2 if input.dim() == n + 2 else 1
        if len(output_size) == non_spatial + n:
            output_size = output_size[non_spatial:]
        if len(output_size) != n:
            raise ValueError(f"ConvTranspose{n}D: for {input.dim()}D input, output_size must have {n} "
                             f"or {non_spatial + n} elements (got {len(output_size)})")
        minimums = [(input.size(d + non_spatial) - 1) * self.stride[d] - 2 * self.padding[d]
                    + self.dilation[d] * (self.kernel_size[d] - 1) + 1 for d in range(n)]
        maximums = [minimum + stride - 1 for minimum, stride in zip(minimums, self.stride)]
        for size, minimum, maximum in zip(output_size, minimums, maximums):
            if size < minimum or size > maximum:
                raise ValueError(f"requested an output size of {output_size}, but valid sizes range from "
                                 f"{minimums} to {maximums} (for an input of {input.size()[2:]})")
        return [output_size[d] - minimums[d] for d in range(n)]

    def forward(self, input: Tensor, output_size: Any = None) -> Tensor:
        output_padding = self._output_padding(input, output_size)
        return type(self)._function(input, self.weight, self.bias, self.stride, self.padding, output_padding,
                                    self.groups, self.dilation)


class ConvTranspose1d(_ConvTranspose):
    __module__ = "torch.nn.modules.conv"
    _spatial = 1
    _function = staticmethod(F.conv_transpose1d)


class ConvTranspose2d(_ConvTranspose):
    __module__ = "torch.nn.modules.conv"
    _spatial = 2
    _function = staticmethod(F.conv_transpose2d)


class ConvTranspose3d(_ConvTranspose):
    __module__ = "torch.nn.modules.conv"
    _spatial = 3
    _function = staticmethod(F.conv_transpose3d)


class _LazyConv(LazyModuleMixin):
    """A convolution whose in_channels comes from its first input."""

    def _lazy_init(self, out_channels: int, bias: bool, dtype: Optional[DType], **options: Any) -> None:
        # the plain class's init with in_channels 0 ... then uninitialised parameters
        type(self).cls_to_become.__init__(self, 0, 0, bias=bias, **options)
        self.out_channels = out_channels
        dtype = dtypes.get_default_dtype() if dtype is None else dtype
        self.weight = UninitializedParameter(dtype=dtype)
        if bias:
            self.bias = UninitializedParameter(dtype=dtype)
        else:
            self.register_parameter("bias", None)

    def reset_parameters(self) -> None:
        if not self.has_uninitialized_params() and self.in_channels != 0:
            super().reset_parameters()

    def initialize_parameters(self, input: Tensor, *args: Any) -> None:
        unbatched = input.ndim == self._spatial + 1
        self.in_channels = input.shape[0 if unbatched else 1]
        if self.in_channels % self.groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        if self.transposed:
            shape = (self.in_channels, self.out_channels // self.groups) + self.kernel_size
        else:
            shape = (self.out_channels, self.in_channels // self.groups) + self.kernel_size
        self.weight = self.weight.materialize(shape)
        if self.bias is not None:
            self.bias = self.bias.materialize((self.out_channels,))
        self.reset_parameters()


def _lazy_conv_class(name: str, plain: type) -> type:
    def __init__(self: Any, out_channels: int, kernel_size: Any, stride: Any = 1, padding: Any = 0,
                 dilation: Any = 1, groups: int = 1, bias: bool = True, padding_mode: str = "zeros",
                 device: Any = None, dtype: Optional[DType] = None) -> None:
        self._lazy_init(out_channels, bias, dtype, kernel_size=kernel_size, stride=stride, padding=padding,
                        dilation=dilation, groups=1, padding_mode=padding_mode)
        self.groups = groups

    def __init_transposed__(self: Any, out_channels: int, kernel_size: Any, stride: Any = 1, padding: Any = 0,
                            output_padding: Any = 0, groups: int = 1, bias: bool = True, dilation: Any = 1,
                            padding_mode: str = "zeros", device: Any = None, dtype: Optional[DType] = None) -> None:
        self._lazy_init(out_channels, bias, dtype, kernel_size=kernel_size, stride=stride, padding=padding,
                        output_padding=output_padding, groups=1, dilation=dilation, padding_mode=padding_mode)
        self.groups = groups

    members = {"__module__": "torch.nn.modules.conv", "cls_to_become": plain,
               "__init__": defined_in(name, __init_transposed__ if plain._transposed else __init__, "__init__")}
    return type(name, (_LazyConv, plain), members)


LazyConv1d = _lazy_conv_class("LazyConv1d", Conv1d)
LazyConv2d = _lazy_conv_class("LazyConv2d", Conv2d)
LazyConv3d = _lazy_conv_class("LazyConv3d", Conv3d)
LazyConvTranspose1d = _lazy_conv_class("LazyConvTranspose1d", ConvTranspose1d)
LazyConvTranspose2d = _lazy_conv_class("LazyConvTranspose2d", ConvTranspose2d)
LazyConvTranspose3d = _lazy_conv_class("LazyConvTranspose3d", ConvTranspose3d)
