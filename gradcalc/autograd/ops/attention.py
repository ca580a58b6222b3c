"""The kernels of scaled dot-product attention on the CPU: the safe softmax of its math
composition (rows masked entirely give zeros, not NaN) and the fused flash kernel PyTorch's
dispatcher picks when no dropout is asked for, with their grad_fns."""
from __future__ import annotations

import math
from typing import Optional

import numpy as np

from .. import dtypes
from ..dtypes import DType
from ..tensor import Tensor, wrap_dim
from .activation import _softmax_kernel, softmax_backward_data
from .registry import node, record


def _safe_softmax_grad(grad: Tensor, result: Tensor, dim: int) -> Tensor:
    return softmax_backward_data(grad, result, dim, log=False)


SAFE_SOFTMAX = node("SafeSoftmaxBackward0", ("self",), self=_safe_softmax_grad)


def safe_softmax(input: Tensor, dim: int) -> Tensor:
    """ATen's _safe_softmax: softmax, with zeros for a row whose every score is -inf."""
    d = wrap_dim(dim, input.ndim)
    x = input._data
    data = _softmax_kernel(x, d, d == input.ndim - 1, log=False)
    masked_rows = np.all(x == -np.inf, axis=d, keepdims=True)
    if masked_rows.any():
        data = np.where(masked_rows, np.zeros((), x.dtype), data)
    return record(SAFE_SOFTMAX, (input,), data, input._dtype, dim=dim)


def softmax_scale(query: Tensor, scale: Optional[float]) -> float:
    return 1.0 / math.sqrt(query.shape[-1]) if scale is None else scale


def boolean_to_additive(mask: Tensor, dtype: DType) -> Tensor:
    """A boolean mask (True: attend) as an additive one: 0 where True, -inf where False."""
    return Tensor._make(np.where(mask._data, np.zeros((), dtype._numpy), np.array(-np.inf, dtype._numpy)), dtype)


def causal_mask(length: int, source: int, dtype: DType) -> Tensor:
    return boolean_to_additive(Tensor._make(np.tril(np.ones((length, source), dtype=bool)), dtypes.bool_), dtype)


# ------------------------------------------------------------------ the flash kernel

def flash_eligible(query: Tensor, key: Tensor, value: Tensor, attn_mask: Optional[Tensor], dropout_p: float) -> bool:
    """Whether PyTorch's CPU dispatcher takes the flash kernel (sdp_utils_cpp's checks)."""
    if dropout_p > 0.0 or query.ndim != 4 or key.ndim != 4 or value.ndim != 4:
        return False
    if query._dtype not in (dtypes.float32, dtypes.float64):
        return False
    if query.shape[-1] != key.shape[-1] or query.shape[-1] != value.shape[-1]:
        return False
    if not (query.shape[-2] and key.shape[-2]):
        return False
    return attn_mask is None or attn_mask.dtype is not dtypes.bool_ or attn_mask.ndim <= 4


def _probabilities(query: Tensor, key: Tensor, attn_mask: Optional[Tensor], is_causal: bool,
                   scale: float) -> Tensor:
    scores = query.matmul(key.transpose(-2, -1)) * scale
    if is_causal:
        scores = scores + causal_mask(query.shape[-2], key.shape[-2], query._dtype)
    if attn_mask is not None:
        scores = scores + attn_mask
    return scores.softmax(-1)


def _flash_grads(grad: Tensor, query: Tensor, key: Tensor, value: Tensor, attn_mask: Optional[Tensor],
                 is_causal: bool, scale: float) -> tuple:
    weights = _probabilities(query, key, attn_mask, is_causal, scale)
    grad_value = weights.transpose(-2, -1).matmul(grad)
    grad_weights = grad.matmul(value.transpose(-2, -1))
    grad_scores = weights * (grad_weights - (grad_weights * weights).sum(-1, keepdim=True)) * scale
    return grad_scores.matmul(key), grad_scores.transpose(-2, -1).matmul(query), grad_value


FLASH_ATTENTION = node(
    "ScaledDotProductFlashAttentionForCpuBackward0", ("query", "key", "value"),
    saved=("dropout_p", "is_causal", "scale"),
    query=lambda grad, query, key, value, _attn_mask, is_causal, _factor:
        _flash_grads(grad, query, key, value, _attn_mask, is_causal, _factor)[0],
    key=lambda grad, query, key, value, _attn_mask, is_causal, _factor:
        _flash_grads(grad, query, key, value, _attn_mask, is_causal, _factor)[1],
    value=lambda grad, query, key, value, _attn_mask, is_causal, _factor:
        _flash_grads(grad, query, key, value, _attn_mask, is_causal, _factor)[2])

_KV_SPLIT = 512


def _flash_forward(q: np.ndarray, k: np.ndarray, v: np.ndarray, mask: Optional[np.ndarray], is_causal: bool,
                   scale: float) -> np.ndarray:
    """The CPU flash kernel's float arithmetic: for each block of keys, scores scaled (and the
    mask added), a running maximum and sum of exponentials rescaled as blocks arrive, and the
    weighted values accumulated; the sum divides at the end."""
    dtype = q.dtype.type
    length, source = q.shape[-2], k.shape[-2]
    out = np.zeros(q.shape[:-1] + (v.shape[-1],), dtype=q.dtype)
    running_max = np.full(q.shape[:-1], -np.inf, dtype=q.dtype)
    running_sum = np.zeros(q.shape[:-1], dtype=q.dtype)
    rows = np.arange(length)[:, None]
    for start in range(0, source, _KV_SPLIT):
        stop = min(start + _KV_SPLIT, source)
        scores = np.matmul(q, np.swapaxes(k[..., start:stop, :], -1, -2))
        scores = scores * dtype(scale)
        if mask is not None:
            scores = scores + np.broadcast_to(mask[..., start:stop], scores.shape).astype(q.dtype, copy=False)
        if is_causal:
            scores = np.where(np.arange(start, stop)[None, :] > rows, dtype(-np.inf), scores)
        block_max = np.maximum(scores.max(axis=-1), running_max)
        finite = block_max != -np.inf
        safe_max = np.where(finite, block_max, dtype(0))
        exps = np.where(finite[..., None], _row_exps(scores - safe_max[..., None]), dtype(0))
        block_sum = _row_sums(exps)
        correction = np.where(finite, np.exp(np.where(finite, running_max - safe_max, dtype(0))), dtype(0))
        running_sum = np.where(finite, block_sum + correction * running_sum, running_sum)
        running_max = np.where(finite, block_max, running_max)
        if start:
            out = out * correction[..., None]
        out = out + np.matmul(exps, v[..., start:stop, :])
    with np.errstate(divide="ignore", invalid="ignore"):
        return out * (dtype(1) / running_sum)[..., None]


def _row_exps(shifted: np.ndarray) -> np.ndarray:
    return np.exp(shifted)


def _row_sums(exps: np.ndarray) -> np.ndarray:
    return np.add.accumulate(exps, axis=-1)[..., -1]


def flash_attention(query: Tensor, key: Tensor, value: Tensor, attn_mask: Optional[Tensor], is_causal: bool,
                    scale: Optional[float]) -> Tensor:
    if is_causal and attn_mask is not None:
        raise RuntimeError("_scaled_dot_product_attention: Explicit attn_mask should not be set when is_causal=True")
    factor = softmax_scale(query, scale)
    mask = attn_mask
    if mask is not None and mask.dtype is dtypes.bool_:
        mask = boolean_to_additive(mask, query._dtype)
    data = _flash_forward(query._data, key._data, value._data, None if mask is None else mask._data, is_causal,
                          factor)
    return record(FLASH_ATTENTION, (query, key, value), data, query._dtype, _attn_mask=mask, is_causal=is_causal,
                  scale=scale, dropout_p=0.0, _factor=factor)
