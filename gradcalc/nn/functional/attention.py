"""Attention as torch.nn.functional writes it: scaled_dot_product_attention with the backend
PyTorch's CPU dispatcher picks (its math composition, whose graph shows the same nodes, or the
fused flash kernel), and multi_head_attention_forward with its mask handling, in PyTorch's order
of operations so that dropout masks and last bits agree."""
from __future__ import annotations

import math
from typing import Optional

from ...autograd import dtypes
from ...autograd.dtypes import DType
from ...autograd.ops import attention, common, joining, linalg, products
from ...autograd.tensor import Tensor
from ...warnings import warn
from .activation import dropout
from .layers import linear, pad


def _none_or_dtype(input: Optional[Tensor]) -> Optional[DType]:
    if input is None:
        return None
    if isinstance(input, Tensor):
        return input.dtype
    raise RuntimeError("input to _none_or_dtype() must be None or torch.Tensor")


def _canonical_mask(mask: Optional[Tensor], mask_name: str, other_type: Optional[DType], other_name: str,
                    target_type: DType, check_other: bool = True) -> Optional[Tensor]:
    """A boolean mask as the additive float mask attention uses (-inf where True)."""
    if mask is None:
        return None
    is_float = mask.dtype.is_floating_point
    if mask.dtype is not dtypes.bool_ and not is_float:
        raise AssertionError(f"only bool and floating types of {mask_name} are supported")
    if check_other and other_type is not None and mask.dtype is not other_type:
        warn("UserWarning", f"Support for mismatched {mask_name} and {other_name} is deprecated. Use same type "
                            "for both instead.")
    if not is_float:
        mask = common.zeros_like(mask, dtype=target_type).masked_fill_(mask, float("-inf"))
    return mask


def scaled_dot_product_attention(query: Tensor, key: Tensor, value: Tensor, attn_mask: Optional[Tensor] = None,
                                 dropout_p: float = 0.0, is_causal: bool = False, scale: Optional[float] = None,
                                 enable_gqa: bool = False) -> Tensor:
    """softmax(q k^T * scale + mask) v: the fused CPU flash kernel when PyTorch takes it (no
    dropout, 4-d inputs), else PyTorch's math composition with its dropout."""
    if attention.flash_eligible(query, key, value, attn_mask, dropout_p):
        return attention.flash_attention(query, key, value, attn_mask, is_causal, scale)
    return _math_attention(query, key, value, attn_mask, dropout_p, is_causal, scale)


def _math_attention(query: Tensor, key: Tensor, value: Tensor, attn_mask: Optional[Tensor], dropout_p: float,
                    is_causal: bool, scale: Optional[float]) -> Tensor:
    """ATen's _scaled_dot_product_attention_math: q and k each scaled by the square root of the
    scale, the mask added, a safe softmax, dropout, and a product with v."""
    factor = math.sqrt(attention.softmax_scale(query, scale))
    query = query * factor
    if is_causal:
        if attn_mask is not None:
            raise RuntimeError("_scaled_dot_product_attention: Explicit attn_mask should not be set when "
                               "is_causal=True")
        attn_mask = attention.causal_mask(query.shape[-2], key.shape[-2], query.dtype)
    elif attn_mask is not None and attn_mask.dtype is dtypes.bool_:
        attn_mask = attention.boolean_to_additive(attn_mask, query.dtype)
    scores = linalg.matmul(query, key.transpose(-2, -1) * factor)
    if attn_mask is not None:
        scores.add_(attn_mask)
    weights = attention.safe_softmax(scores, -1)
    if dropout_p > 0.0:
        weights = dropout(weights, dropout_p, True)
    return linalg.matmul(weights, value)


def _mha_shape_check(query: Tensor, key: Tensor, value: Tensor, key_padding_mask: Optional[Tensor],
                     attn_mask: Optional[Tensor], num_heads: int) -> bool:
    if query.dim() == 3:
        if key.dim() != 3 or value.dim() != 3:
            raise AssertionError("For batched (3-D) `query`, expected `key` and `value` to be 3-D but found "
                                 f"{key.dim()}-D and {value.dim()}-D tensors respectively")
        if key_padding_mask is not None and key_padding_mask.dim() != 2:
            raise AssertionError("For batched (3-D) `query`, expected `key_padding_mask` to be `None` or 2-D but "
                                 f"found {key_padding_mask.dim()}-D tensor instead")
        if attn_mask is not None and attn_mask.dim() not in (2, 3):
            raise AssertionError("For batched (3-D) `query`, expected `attn_mask` to be `None`, 2-D or 3-D but "
                                 f"found {attn_mask.dim()}-D tensor instead")
        return True
    if query.dim() == 2:
        if key.dim() != 2 or value.dim() != 2:
            raise AssertionError("For unbatched (2-D) `query`, expected `key` and `value` to be 2-D but found "
                                 f"{key.dim()}-D and {value.dim()}-D tensors respectively")
        if key_padding_mask is not None and key_padding_mask.dim() != 1:
            raise AssertionError("For unbatched (2-D) `query`, expected `key_padding_mask` to be `None` or 1-D but "
                                 f"found {key_padding_mask.dim()}-D tensor instead")
        if attn_mask is not None:
            if attn_mask.dim() not in (2, 3):
                raise AssertionError("For unbatched (2-D) `query`, expected `attn_mask` to be `None`, 2-D or 3-D "
                                     f"but found {attn_mask.dim()}-D tensor instead")
            expected = (num_heads, query.shape[0], key.shape[0])
            if attn_mask.dim() == 3 and tuple(attn_mask.shape) != expected:
                raise AssertionError(f"Expected `attn_mask` shape to be {expected} but got {attn_mask.shape}")
        return False
    raise AssertionError(f"query should be unbatched 2D or batched 3D tensor but received {query.dim()}-D query "
                         "tensor")


def _in_projection_packed(q: Tensor, k: Tensor, v: Tensor, w: Tensor, b: Optional[Tensor] = None) -> list:
    """The q, k and v projections from one packed weight, in as few products as PyTorch makes."""
    embed = q.size(-1)
    if k is v:
        if q is k:
            proj = linear(q, w, b).unflatten(-1, (3, embed)).unsqueeze(0).transpose(0, -2).squeeze(-2).contiguous()
            return [proj[0], proj[1], proj[2]]
        w_q, w_kv = w.split([embed, embed * 2])
        b_q, b_kv = (None, None) if b is None else b.split([embed, embed * 2])
        kv_proj = linear(k, w_kv, b_kv).unflatten(-1, (2, embed)).unsqueeze(0).transpose(0, -2).squeeze(-2) \
            .contiguous()
        return [linear(q, w_q, b_q), kv_proj[0], kv_proj[1]]
    w_q, w_k, w_v = w.chunk(3)
    b_q, b_k, b_v = (None, None, None) if b is None else b.chunk(3)
    return [linear(q, w_q, b_q), linear(k, w_k, b_k), linear(v, w_v, b_v)]


def _check_key_padding_mask(key_padding_mask: Tensor, src_len: int, bsz: int) -> None:
    if key_padding_mask.shape[0] != bsz:
        raise AssertionError(f"Expected key_padded_mask.shape[0] to be {bsz}, but got {key_padding_mask.shape[0]}")
    if key_padding_mask.shape[1] != src_len:
        raise AssertionError(f"Expected key_padded_mask.shape[1] to be {src_len}, but got "
                             f"{key_padding_mask.shape[1]}")


def multi_head_attention_forward(
        query: Tensor, key: Tensor, value: Tensor, embed_dim_to_check: int, num_heads: int,
        in_proj_weight: Optional[Tensor], in_proj_bias: Optional[Tensor], bias_k: Optional[Tensor],
        bias_v: Optional[Tensor], add_zero_attn: bool, dropout_p: float, out_proj_weight: Tensor,
        out_proj_bias: Optional[Tensor], training: bool = True, key_padding_mask: Optional[Tensor] = None,
        need_weights: bool = True, attn_mask: Optional[Tensor] = None, use_separate_proj_weight: bool = False,
        q_proj_weight: Optional[Tensor] = None, k_proj_weight: Optional[Tensor] = None,
        v_proj_weight: Optional[Tensor] = None, static_k: Optional[Tensor] = None, static_v: Optional[Tensor] = None,
        average_attn_weights: bool = True, is_causal: bool = False) -> tuple:
    is_batched = _mha_shape_check(query, key, value, key_padding_mask, attn_mask, num_heads)
    if not is_batched:
        query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)
    tgt_len, bsz, embed_dim = query.shape
    src_len = key.shape[0]
    key_padding_mask = _canonical_mask(key_padding_mask, "key_padding_mask", _none_or_dtype(attn_mask), "attn_mask",
                                       query.dtype)
    if is_causal and attn_mask is None:
        raise RuntimeError("Need attn_mask if specifying the is_causal hint. You may use the Transformer module "
                           "method `generate_square_subsequent_mask` to create this mask.")
    if is_causal and key_padding_mask is None and not need_weights:
        # the causal hint alone goes to scaled_dot_product_attention
        attn_mask = None
    else:
        attn_mask = _canonical_mask(attn_mask, "attn_mask", None, "", query.dtype, check_other=False)
        if key_padding_mask is not None:
            is_causal = False
    if embed_dim != embed_dim_to_check:
        raise AssertionError(f"was expecting embedding dimension of {embed_dim_to_check}, but got {embed_dim}")
    head_dim = embed_dim // num_heads
    if head_dim * num_heads != embed_dim:
        raise AssertionError(f"embed_dim {embed_dim} not divisible by num_heads {num_heads}")
    if use_separate_proj_weight:
        if key.shape[:2] != value.shape[:2]:
            raise AssertionError(f"key's sequence and batch dims {key.shape[:2]} do not match value's "
                                 f"{value.shape[:2]}")
        b_q, b_k, b_v = (None, None, None) if in_proj_bias is None else in_proj_bias.chunk(3)
        q, k, v = linear(query, q_proj_weight, b_q), linear(key, k_proj_weight, b_k), linear(value, v_proj_weight, b_v)
    else:
        if key.shape != value.shape:
            raise AssertionError(f"key shape {key.shape} does not match value shape {value.shape}")
        if in_proj_weight is None:
            raise AssertionError("use_separate_proj_weight is False but in_proj_weight is None")
        q, k, v = _in_projection_packed(query, key, value, in_proj_weight, in_proj_bias)
    if attn_mask is not None:
        if attn_mask.dim() == 2:
            if tuple(attn_mask.shape) != (tgt_len, src_len):
                raise RuntimeError(f"The shape of the 2D attn_mask is {attn_mask.shape}, but should be "
                                   f"{(tgt_len, src_len)}.")
            attn_mask = attn_mask.unsqueeze(0)
        elif attn_mask.dim() == 3:
            if tuple(attn_mask.shape) != (bsz * num_heads, tgt_len, src_len):
                raise RuntimeError(f"The shape of the 3D attn_mask is {attn_mask.shape}, but should be "
                                   f"{(bsz * num_heads, tgt_len, src_len)}.")
        else:
            raise RuntimeError(f"attn_mask's dimension {attn_mask.dim()} is not supported")
    if bias_k is not None and bias_v is not None:
        k = joining.cat([k, bias_k.repeat(1, bsz, 1)])
        v = joining.cat([v, bias_v.repeat(1, bsz, 1)])
        if attn_mask is not None:
            attn_mask = pad(attn_mask, (0, 1))
        if key_padding_mask is not None:
            key_padding_mask = pad(key_padding_mask, (0, 1))
    q = q.view(tgt_len, bsz * num_heads, head_dim).transpose(0, 1)
    k = (k.view(k.shape[0], bsz * num_heads, head_dim).transpose(0, 1)) if static_k is None else static_k
    v = (v.view(v.shape[0], bsz * num_heads, head_dim).transpose(0, 1)) if static_v is None else static_v
    if add_zero_attn:
        zeros = common.zeros((bsz * num_heads, 1, head_dim), k.dtype)
        k = joining.cat([k, zeros], dim=1)
        v = joining.cat([v, zeros], dim=1)
        if attn_mask is not None:
            attn_mask = pad(attn_mask, (0, 1))
        if key_padding_mask is not None:
            key_padding_mask = pad(key_padding_mask, (0, 1))
    src_len = k.size(1)
    if key_padding_mask is not None:
        _check_key_padding_mask(key_padding_mask, src_len, bsz)
        key_padding_mask = key_padding_mask.view(bsz, 1, 1, src_len).expand(-1, num_heads, -1, -1) \
            .reshape(bsz * num_heads, 1, src_len)
        attn_mask = key_padding_mask if attn_mask is None else attn_mask + key_padding_mask
    if not training:
        dropout_p = 0.0
    if need_weights:
        q_scaled = q * math.sqrt(1.0 / float(q.shape[-1]))
        if is_causal and attn_mask is None:
            raise AssertionError("FIXME: is_causal not implemented for need_weights")
        if attn_mask is not None:
            weights = products.baddbmm(attn_mask, q_scaled, k.transpose(-2, -1))
        else:
            weights = linalg.bmm(q_scaled, k.transpose(-2, -1))
        weights = weights.softmax(-1)
        if dropout_p > 0.0:
            weights = dropout(weights, p=dropout_p)
        output = linalg.bmm(weights, v).transpose(0, 1).reshape(tgt_len * bsz, embed_dim)
        output = linear(output, out_proj_weight, out_proj_bias)
        output = output.view(tgt_len, bsz, output.size(1))
        weights = weights.view(bsz, num_heads, tgt_len, src_len)
        if average_attn_weights:
            weights = weights.mean(dim=1)
        if not is_batched:
            output, weights = output.squeeze(1), weights.squeeze(0)
        return output, weights
    if attn_mask is not None:
        if attn_mask.size(0) == 1 and attn_mask.dim() == 3:
            attn_mask = attn_mask.unsqueeze(0)
        else:
            attn_mask = attn_mask.view(bsz, num_heads, -1, src_len)
    q = q.view(bsz, num_heads, tgt_len, head_dim)
    k = k.view(bsz, num_heads, src_len, head_dim)
    v = v.view(bsz, num_heads, src_len, head_dim)
    output = scaled_dot_product_attention(q, k, v, attn_mask, dropout_p, is_causal)
    output = output.permute(2, 0, 1, 3).reshape(bsz * tgt_len, embed_dim)
    output = linear(output, out_proj_weight, out_proj_bias)
    output = output.view(tgt_len, bsz, output.size(1))
    if not is_batched:
        output = output.squeeze(1)
    return output, None


__all__ = ["scaled_dot_product_attention", "multi_head_attention_forward"]
