"""Linear layers: Linear, Bilinear, Identity and LazyLinear."""
from __future__ import annotations

import math
from typing import Any, Optional

import numpy as np

from ...autograd import dtypes, grad_mode, random
from ...autograd.ops.creation import allocated
from ...autograd.dtypes import DType
from ...autograd.ops.creation import parameter_data
from ...autograd.tensor import ONLY_FLOAT_GRAD_MESSAGE, Tensor, check_device
from ...warnings import warn
from .. import functional as F
from .. import init
from ..init import ZERO_ELEMENT_WARNING
from ..parameter import Parameter, UninitializedParameter
from .lazy import LazyModuleMixin
from .module import Module


def _fill(param: Tensor, values: np.ndarray) -> None:
    """`param.copy_(values)` under no_grad, or its version count alone when the values were drawn
    into its storage."""
    if values is param._data:
        param._vc.value += 1
    else:
        param.copy_(Tensor._make(values, param.dtype))


class Linear(Module):
    """y = x W^T + b, initialised as PyTorch initialises it, draw for draw."""

    __module__ = "torch.nn.modules.linear"

    def __init__(self, in_features: int, out_features: int, bias: bool = True, device: Any = None,
                 dtype: Optional[DType] = None) -> None:
        super().__init__()
        check_device(device)
        dtype = dtypes.get_default_dtype() if dtype is None else dtype
        # as torch: uninitialised parameters, then reset_parameters draws into them in place
        weight = parameter_data((out_features, in_features), dtype, device)
        if dtype.category < dtypes.FLOATING:
            raise RuntimeError(ONLY_FLOAT_GRAD_MESSAGE)
        self.in_features = in_features
        self.out_features = out_features
        self.weight = Parameter(weight)
        if bias:
            self.bias = Parameter(parameter_data(out_features, dtype, device))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """kaiming_uniform_ on the weight (skipped, with a warning, when it has no elements),
        then uniform_ on the bias, from PyTorch's random stream (a meta module's draw nothing)."""
        if self.weight.is_meta:
            if not self.weight.numel():  # kaiming_uniform_'s check comes before its meta kernel
                warn("UserWarning", ZERO_ELEMENT_WARNING)
            return
        out_features, in_features = self.weight.shape  # as torch, the weight's fan-in (a size given as a bool too)
        # drawn where the values go when they can be (a contiguous parameter of its own storage)
        targets = [p._data if p is not None and p._data.flags.c_contiguous and p._base is None else None
                   for p in (self.weight, self.bias)]
        weight, bias = random.linear_init(in_features, out_features, self.bias is not None, self.weight.dtype.name,
                                          weight_out=targets[0], bias_out=targets[1])
        with grad_mode.no_grad():
            if self.weight.numel():
                _fill(self.weight, weight)
            else:
                warn("UserWarning", ZERO_ELEMENT_WARNING)
            if bias is not None:
                _fill(self.bias, bias)

    def forward(self, input: Tensor) -> Tensor:
        return F.linear(input, self.weight, self.bias)

    def extra_repr(self) -> str:
        return f"in_features={self.in_features}, out_features={self.out_features}, bias={self.bias is not None}"


class Identity(Module):
    __module__ = "torch.nn.modules.linear"

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__()

    def forward(self, input: Any) -> Any:
        return input


class Bilinear(Module):
    __module__ = "torch.nn.modules.linear"

    def __init__(self, in1_features: int, in2_features: int, out_features: int, bias: bool = True,
                 device: Any = None, dtype: Optional[DType] = None) -> None:
        super().__init__()
        dtype = dtypes.get_default_dtype() if dtype is None else dtype
        self.in1_features, self.in2_features, self.out_features = in1_features, in2_features, out_features
        self.weight = Parameter(allocated((out_features, in1_features, in2_features), dtype))
        if bias:
            self.bias = Parameter(allocated(out_features, dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        if self.in1_features <= 0:
            raise ValueError(f"in1_features must be > 0, but got (in1_features={self.in1_features})")
        bound = 1 / math.sqrt(self.weight.shape[1])
        init.uniform_(self.weight, -bound, bound)
        if self.bias is not None:
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input1: Tensor, input2: Tensor) -> Tensor:
        return F.bilinear(input1, input2, self.weight, self.bias)

    def extra_repr(self) -> str:
        return (f"in1_features={self.in1_features}, in2_features={self.in2_features}, "
                f"out_features={self.out_features}, bias={self.bias is not None}")


class LazyLinear(LazyModuleMixin, Linear):
    """A Linear whose in_features comes from its first input."""

    __module__ = "torch.nn.modules.linear"
    cls_to_become = Linear

    def __init__(self, out_features: int, bias: bool = True, device: Any = None,
                 dtype: Optional[DType] = None) -> None:
        Module.__init__(self)
        dtype = dtypes.get_default_dtype() if dtype is None else dtype
        self.in_features = 0
        self.out_features = out_features
        self.weight = UninitializedParameter(dtype=dtype)
        if bias:
            self.bias = UninitializedParameter(dtype=dtype)
        else:
            self.register_parameter("bias", None)

    def reset_parameters(self) -> None:
        if not self.has_uninitialized_params() and self.in_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input: Tensor, *args: Any) -> None:
        self.in_features = input.shape[-1]
        with grad_mode.no_grad():
            self.weight = self.weight.materialize((self.out_features, self.in_features))
            if self.bias is not None:
                self.bias = self.bias.materialize((self.out_features,))
        self.reset_parameters()


class NonDynamicallyQuantizableLinear(Linear):
    """The Linear of MultiheadAttention's out_proj, as PyTorch names it."""

    __module__ = "torch.nn.modules.linear"
