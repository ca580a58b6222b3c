"""The activation modules, each calling its torch.nn.functional function."""
from __future__ import annotations

from typing import Any, Optional

import numpy as np

from ...autograd import dtypes
from ...autograd.ops.creation import allocated
from ...autograd.tensor import Tensor
from .. import functional as F
from .. import init
from ..parameter import Parameter
from .linear import NonDynamicallyQuantizableLinear
from .module import Module
from ...torch_code import copied_from_torch
from .utils import own_init


class _InplaceActivation(Module):
    __module__ = "torch.nn.modules.activation"
    _function: Any = None
    _methods_of_its_own = ("__init__", "forward")

    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return type(self)._function(input, inplace=self.inplace)

    def extra_repr(self) -> str:
        return "inplace=True" if self.inplace else ""


class ReLU(_InplaceActivation):
    __module__ = "torch.nn.modules.activation"
    _function = staticmethod(F.relu)


class _SlopeActivation(Module):
    """An activation with one number besides inplace (LeakyReLU's negative_slope, ELU's alpha)."""

    __module__ = "torch.nn.modules.activation"
    _function: Any = None
    _methods_of_its_own = ("__init__", "forward")
    _parameter = "alpha"

    def __init__(self, value: float, inplace: bool = False) -> None:
        super().__init__()
        setattr(self, self._parameter, value)
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return type(self)._function(input, getattr(self, self._parameter), self.inplace)

    def extra_repr(self) -> str:
        return f"{self._parameter}={getattr(self, self._parameter)}" + (", inplace=True" if self.inplace else "")


class LeakyReLU(_SlopeActivation):
    __module__ = "torch.nn.modules.activation"
    _function = staticmethod(F.leaky_relu)
    _parameter = "negative_slope"

    def __init__(self, negative_slope: float = 0.01, inplace: bool = False) -> None:
        super().__init__(negative_slope, inplace)


class RReLU(Module):
    """Randomized leaky ReLU: slopes drawn from U(lower, upper) in training, their mean in evaluation."""

    __module__ = "torch.nn.modules.activation"

    def __init__(self, lower: float = 1.0 / 8, upper: float = 1.0 / 3, inplace: bool = False) -> None:
        super().__init__()
        self.lower, self.upper, self.inplace = lower, upper, inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.rrelu(input, self.lower, self.upper, self.training, self.inplace)

    def extra_repr(self) -> str:
        return f"lower={self.lower}, upper={self.upper}" + (", inplace=True" if self.inplace else "")


class ELU(_SlopeActivation):
    __module__ = "torch.nn.modules.activation"
    _function = staticmethod(F.elu)

    def __init__(self, alpha: float = 1.0, inplace: bool = False) -> None:
        super().__init__(alpha, inplace)


class CELU(_SlopeActivation):
    __module__ = "torch.nn.modules.activation"
    _function = staticmethod(F.celu)

    def __init__(self, alpha: float = 1.0, inplace: bool = False) -> None:
        super().__init__(alpha, inplace)


class Sigmoid(Module):
    __module__ = "torch.nn.modules.activation"

    def forward(self, input: Tensor) -> Tensor:
        return F.sigmoid(input)


class Tanh(Module):
    __module__ = "torch.nn.modules.activation"

    def forward(self, input: Tensor) -> Tensor:
        return F.tanh(input)


class _DimActivation(Module):
    """An activation along one dim (softmax and its kin): `dim` is all it holds."""

    __module__ = "torch.nn.modules.activation"
    _function: Any = None
    _methods_of_its_own = ("__init__", "forward")

    def __init__(self, dim: Optional[int] = None) -> None:
        super().__init__()
        self.dim = dim

    def forward(self, input: Tensor) -> Tensor:
        return type(self)._function(input, self.dim)

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


class Softmax(_DimActivation):
    __module__ = "torch.nn.modules.activation"
    _function = staticmethod(F.softmax)


class LogSoftmax(_DimActivation):
    __module__ = "torch.nn.modules.activation"
    _function = staticmethod(F.log_softmax)


class Softmin(_DimActivation):
    __module__ = "torch.nn.modules.activation"
    _function = staticmethod(F.softmin)


class GLU(_DimActivation):
    __module__ = "torch.nn.modules.activation"
    _function = staticmethod(F.glu)

    def __init__(self, dim: int = -1) -> None:
        super().__init__(dim)


class GELU(Module):
    __module__ = "torch.nn.modules.activation"

    def __init__(self, approximate: str = "none") -> None:
        super().__init__()
        self.approximate = approximate

    def forward(self, input: Tensor) -> Tensor:
        return F.gelu(input, approximate=self.approximate)

    def extra_repr(self) -> str:
        return f"approximate={self.approximate!r}"


class SiLU(_InplaceActivation):
    __module__ = "torch.nn.modules.activation"
    _function = staticmethod(F.silu)


class Softplus(Module):
    __module__ = "torch.nn.modules.activation"

    def __init__(self, beta: float = 1.0, threshold: float = 20.0) -> None:
        super().__init__()
        self.beta = beta
        self.threshold = threshold

    def forward(self, input: Tensor) -> Tensor:
        return F.softplus(input, self.beta, self.threshold)

    def extra_repr(self) -> str:
        return f"beta={self.beta}, threshold={self.threshold}"


class Hardtanh(Module):
    __module__ = "torch.nn.modules.activation"

    def __init__(self, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False) -> None:
        super().__init__()
        self.min_val = min_val
        self.max_val = max_val
        self.inplace = inplace
        if self.max_val <= self.min_val:
            raise AssertionError(f"max_val ({self.max_val}) must be greater than min_val ({self.min_val})")

    def forward(self, input: Tensor) -> Tensor:
        return F.hardtanh(input, self.min_val, self.max_val, self.inplace)

    def extra_repr(self) -> str:
        return f"min_val={self.min_val}, max_val={self.max_val}" + (", inplace=True" if self.inplace else "")


class ReLU6(Hardtanh):
    __module__ = "torch.nn.modules.activation"

    def __init__(self, inplace: bool = False) -> None:
        super().__init__(0.0, 6.0, inplace)

    def extra_repr(self) -> str:
        return "inplace=True" if self.inplace else ""


def _simple_activation(name: str, function: Any, doc: str) -> type:
    """An activation module without arguments: forward is the function."""
    return type(name, (Module,), {"__module__": "torch.nn.modules.activation", "__doc__": doc,
                                  "forward": lambda self, input: function(input)})


Softsign = _simple_activation("Softsign", F.softsign, "x / (1 + |x|).")
Tanhshrink = _simple_activation("Tanhshrink", F.tanhshrink, "x - tanh(x).")
LogSigmoid = _simple_activation("LogSigmoid", F.logsigmoid, "log(sigmoid(x)).")


class SELU(_InplaceActivation):
    __module__ = "torch.nn.modules.activation"
    _function = staticmethod(F.selu)


class Hardsigmoid(_InplaceActivation):
    __module__ = "torch.nn.modules.activation"
    _function = staticmethod(F.hardsigmoid)


class Hardswish(_InplaceActivation):
    __module__ = "torch.nn.modules.activation"
    _function = staticmethod(F.hardswish)


class Mish(_InplaceActivation):
    __module__ = "torch.nn.modules.activation"
    _function = staticmethod(F.mish)


class Threshold(Module):
    __module__ = "torch.nn.modules.activation"

    def __init__(self, threshold: float, value: float, inplace: bool = False) -> None:
        super().__init__()
        self.threshold, self.value, self.inplace = threshold, value, inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.threshold(input, self.threshold, self.value, self.inplace)

    def extra_repr(self) -> str:
        return f"threshold={self.threshold}, value={self.value}" + (", inplace=True" if self.inplace else "")


class _Shrink(Module):
    __module__ = "torch.nn.modules.activation"
    _function: Any = None

    def __init__(self, lambd: float = 0.5) -> None:
        super().__init__()
        self.lambd = lambd

    def forward(self, input: Tensor) -> Tensor:
        return type(self)._function(input, self.lambd)

    def extra_repr(self) -> str:
        return str(self.lambd)


@own_init
class Hardshrink(_Shrink):
    __module__ = "torch.nn.modules.activation"
    _function = staticmethod(F.hardshrink)


@own_init
class Softshrink(_Shrink):
    __module__ = "torch.nn.modules.activation"
    _function = staticmethod(F.softshrink)


class Softmax2d(Module):
    __module__ = "torch.nn.modules.activation"

    def forward(self, input: Tensor) -> Tensor:
        if input.ndim not in (3, 4):
            raise ValueError(f"Softmax2d: expected input to be 3D or 4D, got {input.ndim}D instead")
        return F.softmax(input, -3)


class PReLU(Module):
    __module__ = "torch.nn.modules.activation"

    def __init__(self, num_parameters: int = 1, init: float = 0.25, device: Any = None, dtype: Any = None) -> None:
        super().__init__()
        self.num_parameters = num_parameters
        self.init = init
        dtype = dtypes.get_default_dtype() if dtype is None else dtype
        self.weight = Parameter(allocated(num_parameters, dtype, init))

    def forward(self, input: Tensor) -> Tensor:
        return F.prelu(input, self.weight)

    def extra_repr(self) -> str:
        return f"num_parameters={self.num_parameters}"


class MultiheadAttention(Module):
    """Attention over several heads: one projection of query, key and value (in_proj), then
    out_proj; initialised as PyTorch does (out_proj's Linear first, then xavier_uniform_)."""

    __module__ = "torch.nn.modules.activation"

    def __init__(self, embed_dim: int, num_heads: int, dropout: float = 0.0, bias: bool = True,
                 add_bias_kv: bool = False, add_zero_attn: bool = False, kdim: Optional[int] = None,
                 vdim: Optional[int] = None, batch_first: bool = False, device: Any = None, dtype: Any = None) -> None:
        super().__init__()
        if embed_dim <= 0 or num_heads <= 0:
            raise ValueError(f"embed_dim and num_heads must be greater than 0, got embed_dim={embed_dim} and "
                             f"num_heads={num_heads} instead")
        if add_bias_kv or add_zero_attn or (kdim not in (None, embed_dim)) or (vdim not in (None, embed_dim)):
            raise NotImplementedError("gradcalc's MultiheadAttention has no add_bias_kv, add_zero_attn, kdim or vdim")
        self.embed_dim = embed_dim
        self.kdim = self.vdim = embed_dim
        self._qkv_same_embed_dim = True
        self.num_heads = num_heads
        self.dropout = dropout
        self.batch_first = batch_first
        self.head_dim = embed_dim // num_heads
        if self.head_dim * num_heads != embed_dim:
            raise AssertionError("embed_dim must be divisible by num_heads")
        dtype = dtypes.get_default_dtype() if dtype is None else dtype
        self.in_proj_weight = Parameter(allocated((3 * embed_dim, embed_dim), dtype))
        self.register_parameter("q_proj_weight", None)
        self.register_parameter("k_proj_weight", None)
        self.register_parameter("v_proj_weight", None)
        if bias:
            self.in_proj_bias = Parameter(allocated(3 * embed_dim, dtype))
        else:
            self.register_parameter("in_proj_bias", None)
        self.out_proj = NonDynamicallyQuantizableLinear(embed_dim, embed_dim, bias=bias, dtype=dtype)
        self.bias_k = self.bias_v = None
        self.add_zero_attn = add_zero_attn
        self._reset_parameters()

    def _reset_parameters(self) -> None:
        init.xavier_uniform_(self.in_proj_weight)
        if self.in_proj_bias is not None:
            init.constant_(self.in_proj_bias, 0.0)
            init.constant_(self.out_proj.bias, 0.0)

    @copied_from_torch
    def merge_masks(self, attn_mask: Optional[Tensor], key_padding_mask: Optional[Tensor], query: Tensor) -> tuple:
        """The masks the inference fast path takes as one: (merged mask, mask type 1 or 2), or (None, None)."""
        mask_type: Optional[int] = None
        merged_mask: Optional[Tensor] = None
        if key_padding_mask is not None:
            mask_type = 1
            merged_mask = key_padding_mask
        if attn_mask is not None:
            batch_size, seq_len, _ = query.shape
            mask_type = 2
            if attn_mask.dim() == 3:
                attn_mask_expanded = attn_mask.view(batch_size, -1, seq_len, seq_len)
            else:
                attn_mask_expanded = attn_mask.view(1, 1, seq_len, seq_len).expand(batch_size, self.num_heads, -1, -1)
            merged_mask = attn_mask_expanded
            if key_padding_mask is not None:
                key_padding_mask_expanded = key_padding_mask.view(batch_size, 1, 1, seq_len).expand(
                    -1, self.num_heads, -1, -1)
                merged_mask = attn_mask_expanded + key_padding_mask_expanded
        return merged_mask, mask_type

    def forward(self, query: Tensor, key: Tensor, value: Tensor, key_padding_mask: Optional[Tensor] = None,
                need_weights: bool = True, attn_mask: Optional[Tensor] = None, average_attn_weights: bool = True,
                is_causal: bool = False) -> tuple:
        is_batched = query.dim() == 3
        key_padding_mask = F._canonical_mask(key_padding_mask, "key_padding_mask", F._none_or_dtype(attn_mask),
                                             "attn_mask", query.dtype)
        attn_mask = F._canonical_mask(attn_mask, "attn_mask", None, "", query.dtype, check_other=False)
        if self.batch_first and is_batched:
            # the same tensor stays the same tensor: the packed projection is one product then
            if key is value:
                if query is key:
                    query = key = value = query.transpose(1, 0)
                else:
                    query, key = (x.transpose(1, 0) for x in (query, key))
                    value = key
            else:
                query, key, value = (x.transpose(1, 0) for x in (query, key, value))
        output, weights = F.multi_head_attention_forward(
            query, key, value, self.embed_dim, self.num_heads, self.in_proj_weight, self.in_proj_bias, self.bias_k,
            self.bias_v, self.add_zero_attn, self.dropout, self.out_proj.weight, self.out_proj.bias,
            training=self.training, key_padding_mask=key_padding_mask, need_weights=need_weights,
            attn_mask=attn_mask, average_attn_weights=average_attn_weights, is_causal=is_causal)
        if self.batch_first and is_batched:
            return output.transpose(1, 0), weights
        return output, weights
