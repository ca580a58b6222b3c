"""The Transformer and its encoder and decoder stacks and layers, following
torch/nn/modules/transformer.py statement for statement: the same submodules made in the same
order (so a seed draws the same weights), the same masks, warnings and errors.

PyTorch's inference fast path (`torch._transformer_encoder_layer_fwd`, taken in eval mode with
gradients off, batch_first and an even number of heads) is computed here by the layers' own
composition; what it changes that shows is kept: an encoder running its layers on a nested
tensor gives zeros at padded positions."""
from __future__ import annotations

import copy
from typing import Any, Callable, Optional, Union

from ...autograd import grad_mode
from ...autograd.autocast import is_autocast_enabled
from ...autograd.dtypes import DType
from ...autograd.ops.generate import builtin
from ...autograd.ops.common import shape_text
from ...autograd.tensor import Tensor
from ...warnings import warn, warn_once
from .. import functional as F
from ..init import xavier_uniform_
from .activation import GELU, MultiheadAttention, ReLU
from .container import ModuleList
from .dropout import Dropout
from .linear import Linear
from .module import Module
from .normalization import LayerNorm


def _generate_square_subsequent_mask(sz: int, device: Any = None, dtype: Optional[DType] = None) -> Tensor:
    """A float mask of -inf above the diagonal: each position sees itself and those before it."""
    return builtin("torch", "full")((sz, sz), float("-inf"), dtype=dtype, device=device).triu(diagonal=1)


def _get_seq_len(src: Tensor, batch_first: bool) -> Optional[int]:
    size = src.size()
    if len(size) == 2:
        return size[0]
    return size[1 if batch_first else 0]


def _get_clones(module: Module, n: int) -> ModuleList:
    return ModuleList([copy.deepcopy(module) for _ in range(n)])


def _get_activation_fn(activation: str) -> Callable:
    if activation == "relu":
        return F.relu
    if activation == "gelu":
        return F.gelu
    raise RuntimeError(f"activation should be relu/gelu, not {activation}")


def _detect_is_causal_mask(mask: Optional[Tensor], is_causal: Optional[bool] = None,
                           size: Optional[int] = None) -> bool:
    """Whether a mask is the causal one, when the caller does not say."""
    make_causal = is_causal is True
    if is_causal is None and mask is not None:
        sz = size if size is not None else mask.size(-2)
        causal = _generate_square_subsequent_mask(sz, dtype=mask.dtype)
        make_causal = bool((mask == causal).all()) if mask.size() == causal.size() else False
    return make_causal


class Transformer(Module):
    __module__ = "torch.nn.modules.transformer"

    def __init__(self, d_model: int = 512, nhead: int = 8, num_encoder_layers: int = 6, num_decoder_layers: int = 6,
                 dim_feedforward: int = 2048, dropout: float = 0.1, activation: Union[str, Callable] = F.relu,
                 custom_encoder: Any = None, custom_decoder: Any = None, layer_norm_eps: float = 1e-5,
                 batch_first: bool = False, norm_first: bool = False, bias: bool = True, device: Any = None,
                 dtype: Optional[DType] = None) -> None:
        super().__init__()
        if custom_encoder is not None:
            self.encoder = custom_encoder
        else:
            encoder_layer = TransformerEncoderLayer(d_model, nhead, dim_feedforward, dropout, activation,
                                                    layer_norm_eps, batch_first, norm_first, bias, dtype=dtype)
            encoder_norm = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, dtype=dtype)
            self.encoder = TransformerEncoder(encoder_layer, num_encoder_layers, encoder_norm)
        if custom_decoder is not None:
            self.decoder = custom_decoder
        else:
            decoder_layer = TransformerDecoderLayer(d_model, nhead, dim_feedforward, dropout, activation,
                                                    layer_norm_eps, batch_first, norm_first, bias, dtype=dtype)
            decoder_norm = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, dtype=dtype)
            self.decoder = TransformerDecoder(decoder_layer, num_decoder_layers, decoder_norm)
        self._reset_parameters()
        self.d_model = d_model
        self.nhead = nhead
        self.batch_first = batch_first

    def forward(self, src: Tensor, tgt: Tensor, src_mask: Optional[Tensor] = None, tgt_mask: Optional[Tensor] = None,
                memory_mask: Optional[Tensor] = None, src_key_padding_mask: Optional[Tensor] = None,
                tgt_key_padding_mask: Optional[Tensor] = None, memory_key_padding_mask: Optional[Tensor] = None,
                src_is_causal: Optional[bool] = None, tgt_is_causal: Optional[bool] = None,
                memory_is_causal: bool = False) -> Tensor:
        is_batched = src.dim() == 3
        if is_batched and src.size(0 if self.batch_first else 1) != tgt.size(0 if self.batch_first else 1):
            raise RuntimeError("the batch number of src and tgt must be equal")
        if src.size(-1) != self.d_model or tgt.size(-1) != self.d_model:
            raise RuntimeError("the feature number of src and tgt must be equal to d_model")
        memory = self.encoder(src, mask=src_mask, src_key_padding_mask=src_key_padding_mask, is_causal=src_is_causal)
        return self.decoder(tgt, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                            tgt_key_padding_mask=tgt_key_padding_mask,
                            memory_key_padding_mask=memory_key_padding_mask, tgt_is_causal=tgt_is_causal,
                            memory_is_causal=memory_is_causal)

    @staticmethod
    def generate_square_subsequent_mask(sz: int, device: Any = None, dtype: Optional[DType] = None) -> Tensor:
        return _generate_square_subsequent_mask(sz, dtype=dtype, device=device)

    def _reset_parameters(self) -> None:
        for p in self.parameters():
            if p.dim() > 1:
                xavier_uniform_(p)


def _why_no_nested_tensor(encoder_layer: Module) -> str:
    """Why the encoder cannot run its layers on nested tensors, in PyTorch's words ('' if it can)."""
    name = "encoder_layer"
    if not isinstance(encoder_layer, TransformerEncoderLayer):
        return f"{name} was not TransformerEncoderLayer"
    if encoder_layer.norm_first:
        return f"{name}.norm_first was True"
    if not encoder_layer.self_attn.batch_first:
        return f"{name}.self_attn.batch_first was not True(use batch_first for better inference performance)"
    if not encoder_layer.self_attn._qkv_same_embed_dim:
        return f"{name}.self_attn._qkv_same_embed_dim was not True"
    if encoder_layer.self_attn.in_proj_bias is None:
        return f"{name}.self_attn was passed bias=False"
    if not encoder_layer.activation_relu_or_gelu:
        return f"{name}.activation_relu_or_gelu was not True"
    if encoder_layer.norm1.eps != encoder_layer.norm2.eps:
        return f"{name}.norm1.eps was not equal to {name}.norm2.eps"
    if encoder_layer.self_attn.num_heads % 2 == 1:
        return f"{name}.self_attn.num_heads is odd"
    return ""


def _layer_tensors(layer: "TransformerEncoderLayer", src: Tensor) -> tuple:
    return (src, layer.self_attn.in_proj_weight, layer.self_attn.in_proj_bias, layer.self_attn.out_proj.weight,
            layer.self_attn.out_proj.bias, layer.norm1.weight, layer.norm1.bias, layer.norm2.weight,
            layer.norm2.bias, layer.linear1.weight, layer.linear1.bias, layer.linear2.weight, layer.linear2.bias)


def _grad_blocks_fast_path(tensors: tuple) -> bool:
    return grad_mode.is_grad_enabled() and any(t is not None and t.requires_grad for t in tensors)


def _check_nested_mask(src: Tensor, keep: Tensor) -> None:
    """The checks of a mask that makes a nested tensor of `src` (torch._nested_tensor_from_mask)."""
    if keep.dim() != 2:
        raise RuntimeError("Padding mask should be 2D")
    if tuple(src.shape[:2]) != tuple(keep.shape):
        raise RuntimeError("Mask size should match input size")
    if keep.shape[0] == 0:  # no sequences, or no positions to read the last one of
        raise RuntimeError("stack expects a non-empty TensorList")
    if keep.shape[1] == 0:
        raise IndexError(f"select(): index -1 out of range for tensor of size {shape_text(keep.shape)} at dimension 1")


def _left_aligned(src: Tensor, keep: Tensor) -> bool:
    """torch._nested_tensor_from_mask_left_aligned: whether each sequence's tokens (True) all come
    before its padding."""
    _check_nested_mask(src, keep)
    data = keep._data
    return bool((data[:, 1:] <= data[:, :-1]).all())


def _check_nested_sizes(src: Tensor, padding: Tensor, embed_dim: int) -> None:
    """The errors the layers meet on the nested tensor: padding it back fails when no element is left
    (no token unpadded, or embeddings of size 0), which PyTorch meets after the layers, where nothing
    else can fail first; else its first product checks the embedding's size."""
    if src.shape[-1] == 0 or bool(padding.all()):
        raise RuntimeError("to_padded_tensor: at least one constituent tensor should have non-zero numel")
    if src.shape[-1] != embed_dim:
        raise RuntimeError("Shape mismatch for NestedTensor Matmul: Expected input's (a nested tensor) 'last_dim' to "
                           f"equal 'weight.size(0), but got: last_dim = {src.shape[-1]}, and weight.size(0) = "
                           f"{embed_dim}")


class TransformerEncoder(Module):
    __module__ = "torch.nn.modules.transformer"
    __constants__ = ["norm"]

    def __init__(self, encoder_layer: Module, num_layers: int, norm: Optional[Module] = None,
                 enable_nested_tensor: bool = True, mask_check: bool = True) -> None:
        super().__init__()
        self.layers = _get_clones(encoder_layer, num_layers)
        self.num_layers = num_layers
        self.norm = norm
        self.enable_nested_tensor = enable_nested_tensor
        self.use_nested_tensor = enable_nested_tensor
        self.mask_check = mask_check
        why_not = _why_no_nested_tensor(encoder_layer)
        if enable_nested_tensor and why_not:
            warn("UserWarning", f"enable_nested_tensor is True, but self.use_nested_tensor is False because {why_not}")
            self.use_nested_tensor = False

    def forward(self, src: Tensor, mask: Optional[Tensor] = None, src_key_padding_mask: Optional[Tensor] = None,
                is_causal: Optional[bool] = None) -> Tensor:
        src_key_padding_mask = F._canonical_mask(src_key_padding_mask, "src_key_padding_mask",
                                                 F._none_or_dtype(mask), "mask", src.dtype)
        mask = F._canonical_mask(mask, "mask", None, "", src.dtype, check_other=False)
        first_layer = self.layers[0]
        padded = self._nested_padding(src, mask, src_key_padding_mask)
        seq_len = _get_seq_len(src, first_layer.self_attn.batch_first)
        is_causal = _detect_is_causal_mask(mask, is_causal, seq_len)
        output = src
        # a nested tensor holds each sequence's tokens only: its layers see no mask values, just the padding
        layer_padding_mask = src_key_padding_mask if padded is None else padded
        for mod in self.layers:
            output = mod(output, src_mask=mask, is_causal=is_causal, src_key_padding_mask=layer_padding_mask)
        if padded is not None:
            # the nested tensor's padded positions come back as zeros
            output = output.masked_fill(padded.unsqueeze(-1), 0.0)
        if self.norm is not None:
            output = self.norm(output)
        return output

    def _nested_padding(self, src: Tensor, mask: Optional[Tensor], padding_mask: Optional[Tensor]) -> Optional[Tensor]:
        """The padding (True where padded) when PyTorch runs the layers on a nested tensor, else None."""
        first_layer = self.layers[0]
        if not getattr(self, "use_nested_tensor", False) or first_layer.training or src.dim() != 3:
            return None
        if padding_mask is None:
            return None
        # PyTorch's order: the mask's check, then the other reasons to keep off the nested tensor
        if getattr(self, "mask_check", True) and not _left_aligned(src, padding_mask.logical_not()):
            return None
        if mask is not None:
            return None
        padding = padding_mask != 0
        if _grad_blocks_fast_path(_layer_tensors(first_layer, src)):
            return None
        _check_nested_mask(src, padding.logical_not())
        warn_once("UserWarning", "The PyTorch API of nested tensors is in prototype stage and will change in the "
                                 "near future. We recommend specifying layout=torch.jagged when constructing a nested "
                                 "tensor, as this layout receives active development, has better operator coverage, "
                                 "and works with torch.compile.")
        _check_nested_sizes(src, padding, first_layer.self_attn.embed_dim)
        return padding


class TransformerDecoder(Module):
    __module__ = "torch.nn.modules.transformer"
    __constants__ = ["norm"]

    def __init__(self, decoder_layer: Module, num_layers: int, norm: Optional[Module] = None) -> None:
        super().__init__()
        self.layers = _get_clones(decoder_layer, num_layers)
        self.num_layers = num_layers
        self.norm = norm

    def forward(self, tgt: Tensor, memory: Tensor, tgt_mask: Optional[Tensor] = None,
                memory_mask: Optional[Tensor] = None, tgt_key_padding_mask: Optional[Tensor] = None,
                memory_key_padding_mask: Optional[Tensor] = None, tgt_is_causal: Optional[bool] = None,
                memory_is_causal: bool = False) -> Tensor:
        output = tgt
        seq_len = _get_seq_len(tgt, self.layers[0].self_attn.batch_first)
        tgt_is_causal = _detect_is_causal_mask(tgt_mask, tgt_is_causal, seq_len)
        for mod in self.layers:
            output = mod(output, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                         tgt_key_padding_mask=tgt_key_padding_mask, memory_key_padding_mask=memory_key_padding_mask,
                         tgt_is_causal=tgt_is_causal, memory_is_causal=memory_is_causal)
        if self.norm is not None:
            output = self.norm(output)
        return output


class TransformerEncoderLayer(Module):
    __module__ = "torch.nn.modules.transformer"
    __constants__ = ["norm_first"]

    def __init__(self, d_model: int, nhead: int, dim_feedforward: int = 2048, dropout: float = 0.1,
                 activation: Union[str, Callable] = F.relu, layer_norm_eps: float = 1e-5, batch_first: bool = False,
                 norm_first: bool = False, bias: bool = True, device: Any = None,
                 dtype: Optional[DType] = None) -> None:
        super().__init__()
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout, bias=bias, batch_first=batch_first,
                                            dtype=dtype)
        self.linear1 = Linear(d_model, dim_feedforward, bias=bias, dtype=dtype)
        self.dropout = Dropout(dropout)
        self.linear2 = Linear(dim_feedforward, d_model, bias=bias, dtype=dtype)
        self.norm_first = norm_first
        self.norm1 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, dtype=dtype)
        self.norm2 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, dtype=dtype)
        self.dropout1 = Dropout(dropout)
        self.dropout2 = Dropout(dropout)
        if isinstance(activation, str):
            activation = _get_activation_fn(activation)
        # which fused activation the inference fast path could use: 1 relu, 2 gelu, 0 none
        if activation is F.relu or isinstance(activation, ReLU):
            self.activation_relu_or_gelu = 1
        elif activation is F.gelu or isinstance(activation, GELU):
            self.activation_relu_or_gelu = 2
        else:
            self.activation_relu_or_gelu = 0
        self.activation = activation

    def forward(self, src: Tensor, src_mask: Optional[Tensor] = None, src_key_padding_mask: Optional[Tensor] = None,
                is_causal: bool = False) -> Tensor:
        src_key_padding_mask = F._canonical_mask(src_key_padding_mask, "src_key_padding_mask",
                                                 F._none_or_dtype(src_mask), "src_mask", src.dtype)
        src_mask = F._canonical_mask(src_mask, "src_mask", None, "", src.dtype, check_other=False)
        if self._takes_fast_path(src):
            if src_mask is not None or src_key_padding_mask is not None:
                # the fast path merges the masks (merge_masks) and its masked softmax reads the merged mask
                # as bool: any nonzero value masks a position
                merged, mask_type = self.self_attn.merge_masks(src_mask, src_key_padding_mask, src)
                if mask_type == 1:
                    src_key_padding_mask = merged != 0
                else:
                    src_mask, src_key_padding_mask = (merged != 0).reshape(-1, *merged.shape[-2:]), None
            if src.shape[2] != self.self_attn.embed_dim:  # the fused op's first check
                raise RuntimeError(f"passed-in embed_dim {self.self_attn.embed_dim} didn't match last dim of query "
                                   f"{src.shape[2]}")
        x = src
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), src_mask, src_key_padding_mask, is_causal=is_causal)
            x = x + self._ff_block(self.norm2(x))
        else:
            x = self.norm1(x + self._sa_block(x, src_mask, src_key_padding_mask, is_causal=is_causal))
            x = self.norm2(x + self._ff_block(x))
        return x

    def _takes_fast_path(self, src: Tensor) -> bool:
        """Whether PyTorch computes this layer by torch._transformer_encoder_layer_fwd (its forward's
        why_not_sparsity_fast_path left empty)."""
        attn = self.self_attn
        return (src.dim() == 3 and not self.training and attn.batch_first and attn.in_proj_bias is not None
                and attn._qkv_same_embed_dim and bool(self.activation_relu_or_gelu)
                and self.norm1.eps == self.norm2.eps and attn.num_heads % 2 == 0 and not is_autocast_enabled()
                and not any(len(m._forward_hooks) + len(m._forward_pre_hooks) for m in self.modules())
                and not _grad_blocks_fast_path(_layer_tensors(self, src)))

    def _sa_block(self, x: Tensor, attn_mask: Optional[Tensor], key_padding_mask: Optional[Tensor],
                  is_causal: bool = False) -> Tensor:
        x = self.self_attn(x, x, x, attn_mask=attn_mask, key_padding_mask=key_padding_mask, need_weights=False,
                           is_causal=is_causal)[0]
        return self.dropout1(x)

    def _ff_block(self, x: Tensor) -> Tensor:
        x = self.linear2(self.dropout(self.activation(self.linear1(x))))
        return self.dropout2(x)


class TransformerDecoderLayer(Module):
    __module__ = "torch.nn.modules.transformer"
    __constants__ = ["norm_first"]

    def __init__(self, d_model: int, nhead: int, dim_feedforward: int = 2048, dropout: float = 0.1,
                 activation: Union[str, Callable] = F.relu, layer_norm_eps: float = 1e-5, batch_first: bool = False,
                 norm_first: bool = False, bias: bool = True, device: Any = None,
                 dtype: Optional[DType] = None) -> None:
        super().__init__()
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout, batch_first=batch_first, bias=bias,
                                            dtype=dtype)
        self.multihead_attn = MultiheadAttention(d_model, nhead, dropout=dropout, batch_first=batch_first, bias=bias,
                                                 dtype=dtype)
        self.linear1 = Linear(d_model, dim_feedforward, bias=bias, dtype=dtype)
        self.dropout = Dropout(dropout)
        self.linear2 = Linear(dim_feedforward, d_model, bias=bias, dtype=dtype)
        self.norm_first = norm_first
        self.norm1 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, dtype=dtype)
        self.norm2 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, dtype=dtype)
        self.norm3 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, dtype=dtype)
        self.dropout1 = Dropout(dropout)
        self.dropout2 = Dropout(dropout)
        self.dropout3 = Dropout(dropout)
        self.activation = _get_activation_fn(activation) if isinstance(activation, str) else activation

    def forward(self, tgt: Tensor, memory: Tensor, tgt_mask: Optional[Tensor] = None,
                memory_mask: Optional[Tensor] = None, tgt_key_padding_mask: Optional[Tensor] = None,
                memory_key_padding_mask: Optional[Tensor] = None, tgt_is_causal: bool = False,
                memory_is_causal: bool = False) -> Tensor:
        x = tgt
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), tgt_mask, tgt_key_padding_mask, tgt_is_causal)
            x = x + self._mha_block(self.norm2(x), memory, memory_mask, memory_key_padding_mask, memory_is_causal)
            x = x + self._ff_block(self.norm3(x))
        else:
            x = self.norm1(x + self._sa_block(x, tgt_mask, tgt_key_padding_mask, tgt_is_causal))
            x = self.norm2(x + self._mha_block(x, memory, memory_mask, memory_key_padding_mask, memory_is_causal))
            x = self.norm3(x + self._ff_block(x))
        return x

    def _sa_block(self, x: Tensor, attn_mask: Optional[Tensor], key_padding_mask: Optional[Tensor],
                  is_causal: bool = False) -> Tensor:
        x = self.self_attn(x, x, x, attn_mask=attn_mask, key_padding_mask=key_padding_mask, is_causal=is_causal,
                           need_weights=False)[0]
        return self.dropout1(x)

    def _mha_block(self, x: Tensor, mem: Tensor, attn_mask: Optional[Tensor], key_padding_mask: Optional[Tensor],
                   is_causal: bool = False) -> Tensor:
        x = self.multihead_attn(x, mem, mem, attn_mask=attn_mask, key_padding_mask=key_padding_mask,
                                is_causal=is_causal, need_weights=False)[0]
        return self.dropout2(x)

    def _ff_block(self, x: Tensor) -> Tensor:
        x = self.linear2(self.dropout(self.activation(self.linear1(x))))
        return self.dropout3(x)


__all__ = ["Transformer", "TransformerEncoder", "TransformerDecoder", "TransformerEncoderLayer",
           "TransformerDecoderLayer"]
