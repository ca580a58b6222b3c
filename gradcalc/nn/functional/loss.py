"""torch.nn.functional's losses, each recording the grad_fn PyTorch records."""
from __future__ import annotations

import math
from typing import Any, Callable, Optional

import numpy as np

from ...display.names import type_name
from ...autograd.ops import loss
from ...autograd.tensor import Tensor
from ...warnings import warn
from ...autograd import grad_mode, meta
from ...autograd.ops import elementwise as special_ops
from ...autograd.ops.common import shape_text
from ...autograd.ops.indexing import where
from ...autograd.ops.parser import parser
from .activation import _NN, _TORCH


# the epsilon ATen's cosine_embedding_loss adds to each squared magnitude
_COSINE_EPSILON = 1e-12


# ------------------------------------------------------------------ losses

def mse_loss(input: Tensor, target: Tensor, size_average: Any = None, reduce: Any = None,
             reduction: str = "mean") -> Tensor:
    reduction = _loss_preamble(input, target, size_average, reduce, reduction)
    input, target = _broadcast_pair(input, target)
    return loss.mse_loss(input, target, loss.reduction_enum(reduction))


def l1_loss(input: Tensor, target: Tensor, size_average: Any = None, reduce: Any = None,
            reduction: str = "mean") -> Tensor:
    # composite in PyTorch: the graph is (input - target).abs() and then mean or sum
    reduction = _loss_preamble(input, target, size_average, reduce, reduction)
    input, target = _broadcast_pair(input, target)
    _reduction_enum(reduction)
    difference = (input - target).abs()
    if reduction == "mean":
        return difference.mean()
    if reduction == "sum":
        return difference.sum()
    return difference


def _require_sizes(*values: Any) -> None:
    """PyTorch's losses start with `target.size()` and `input.size()`: what a non-tensor gives there."""
    for value in values:
        if not isinstance(value, Tensor):
            raise AttributeError(f"'{type_name(value)}' object has no attribute 'size'")


def _loss_preamble(input: Any, target: Any, size_average: Any, reduce: Any, reduction: str) -> str:
    """The steps F.mse_loss and F.l1_loss share before computing: the size warning and the
    legacy size_average/reduce arguments."""
    _require_sizes(target, input)
    if target.shape != input.shape:
        warn("UserWarning", f"Using a target size ({target.shape}) that is different to the input size "
                            f"({input.shape}). This will likely lead to incorrect results due to broadcasting. "
                            "Please ensure they have the same size.")
    if size_average is not None or reduce is not None:
        return legacy_reduction(size_average, reduce)
    return reduction


def legacy_reduction(size_average: Any, reduce: Any) -> str:
    """The reduction that the deprecated size_average/reduce pair stands for; their truth values
    are taken as Python takes them, so a tensor passed there by mistake fails as it does in torch."""
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    if size_average and reduce:
        reduction = "mean"
    elif reduce:
        reduction = "sum"
    else:
        reduction = "none"
    warn("UserWarning", f"size_average and reduce args will be deprecated, please use reduction='{reduction}' "
                        "instead.")
    return reduction


def _reduction_enum(reduction: Any) -> None:
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"{reduction} is not a valid value for reduction")


def _broadcast_pair(a: Tensor, b: Tensor) -> tuple:
    """torch.broadcast_tensors for two tensors: only a tensor whose shape changes is expanded."""
    for i, (x, y) in enumerate(zip(reversed(a.shape), reversed(b.shape))):
        if x != y and x != 1 and y != 1:
            dim = max(a.ndim, b.ndim) - 1 - i
            raise RuntimeError(f"The size of tensor a ({x}) must match the size of tensor b ({y}) at "
                               f"non-singleton dimension {dim}")
    if meta.state["made"] and meta.any_meta((a, b)):  # the loss's meta kernel: the devices after the shapes
        meta.check_same_device((a, b), scalars_exempt=False)
    shape = tuple(np.broadcast_shapes(a.shape, b.shape))
    return tuple(t if t.shape == shape else t.expand(shape) for t in (a, b))


# ------------------------------------------------------------------ classification losses

logsigmoid = _NN["log_sigmoid"]  # torch._C._nn's own, as in torch


def binary_cross_entropy(input: Tensor, target: Tensor, weight: Optional[Tensor] = None, size_average: Any = None,
                         reduce: Any = None, reduction: str = "mean") -> Tensor:
    reduction = _legacy_or(size_average, reduce, reduction)
    if target.shape != input.shape:
        raise ValueError(f"Using a target size ({target.shape}) that is different to the input size ({input.shape}) "
                         "is deprecated. Please ensure they have the same size.")
    if weight is not None:
        weight = weight.expand(np.broadcast_shapes(target.shape, weight.shape))
    if target.dtype is not input.dtype:
        raise RuntimeError(f"Found dtype {target.dtype._scalar_name} but expected {input.dtype._scalar_name}")
    return loss.binary_cross_entropy(input, target, weight, loss.reduction_enum(reduction))


def binary_cross_entropy_with_logits(input: Tensor, target: Tensor, weight: Optional[Tensor] = None,
                                     size_average: Any = None, reduce: Any = None, reduction: str = "mean",
                                     pos_weight: Optional[Tensor] = None) -> Tensor:
    reduction = _legacy_or(size_average, reduce, reduction)
    _require_sizes(target, input)
    if target.shape != input.shape:
        raise ValueError(f"Target size ({target.shape}) must be the same as input size ({input.shape})")
    return loss.binary_cross_entropy_with_logits(input, target, weight, pos_weight, loss.reduction_enum(reduction))


def nll_loss(input: Tensor, target: Tensor, weight: Optional[Tensor] = None, size_average: Any = None,
             ignore_index: int = -100, reduce: Any = None, reduction: str = "mean") -> Tensor:
    if size_average is not None or reduce is not None:
        reduction = legacy_reduction(size_average, reduce)
    return _NN["nll_loss_nd"](input, target, weight, loss.reduction_enum(reduction), ignore_index)


def cross_entropy(input: Tensor, target: Tensor, weight: Optional[Tensor] = None, size_average: Any = None,
                  ignore_index: int = -100, reduce: Any = None, reduction: str = "mean",
                  label_smoothing: float = 0.0) -> Tensor:
    if size_average is not None or reduce is not None:
        reduction = legacy_reduction(size_average, reduce)
    return _NN["cross_entropy_loss"](input, target, weight, loss.reduction_enum(reduction), ignore_index,
                                     label_smoothing)


def _legacy_or(size_average: Any, reduce: Any, reduction: str) -> str:
    if size_average is not None or reduce is not None:
        return legacy_reduction(size_average, reduce)
    _reduction_enum(reduction)
    return reduction



# ------------------------------------------------------------------ regression and margin losses

def smooth_l1_loss(input: Tensor, target: Tensor, size_average: Any = None, reduce: Any = None,
                   reduction: str = "mean", beta: float = 1.0) -> Tensor:
    reduction = _loss_preamble(input, target, size_average, reduce, reduction)
    input, target = _broadcast_pair(input, target)
    if beta == 0:  # PyTorch takes l1_loss then, whose graph is (input - target).abs() and its reduction
        return l1_loss(input, target, reduction=reduction)
    beta = _double("smooth_l1_loss", input, target, loss.reduction_enum(reduction), beta)
    if not beta >= 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    return loss.smooth_l1_loss(input, target, loss.reduction_enum(reduction), beta)


def _double(name: str, *arguments: Any) -> float:
    """The last of `arguments` (a double) as torch's C function `name` reads it: a number that is
    not one is refused in the parser's words."""
    return list(parser("nn", name).parse(arguments, {})[1].values())[len(arguments) - 1]


def huber_loss(input: Tensor, target: Tensor, reduction: str = "mean", delta: float = 1.0,
               weight: Optional[Tensor] = None) -> Tensor:
    reduction = _loss_preamble(input, target, None, None, reduction)
    input, target = _broadcast_pair(input, target)
    delta = _double("huber_loss", input, target, loss.reduction_enum(reduction), delta)
    if weight is None:
        return loss.huber_loss(input, target, loss.reduction_enum(reduction), delta)
    return _reduced(loss.huber_loss(input, target, 0, delta) * weight, reduction)


def _reduced(values: Tensor, reduction: str) -> Tensor:
    _reduction_enum(reduction)
    if reduction == "mean":
        return values.mean()
    if reduction == "sum":
        return values.sum()
    return values


def kl_div(input: Tensor, target: Tensor, size_average: Any = None, reduce: Any = None, reduction: str = "mean",
           log_target: bool = False) -> Tensor:
    if size_average is not None or reduce is not None:
        reduction = legacy_reduction(size_average, reduce)
    elif reduction == "mean":
        warn("UserWarning", "reduction: 'mean' divides the total loss by both the batch size and the support size."
                            "'batchmean' divides only by the batch size, and aligns with the KL div math definition."
                            "'mean' will be changed to behave the same as 'batchmean' in the next major release.")
    # ATen's kl_div checks its operands' dtypes first
    if input.is_complex() or target.is_complex():
        raise RuntimeError("kl_div: Complex inputs not supported.")
    if not input.is_floating_point() or not target.is_floating_point():
        raise RuntimeError("kl_div: Integral inputs not supported.")
    if log_target:
        pointwise = target.exp() * (target - input)
    else:
        pointwise = special_ops.xlogy(target, target) - target * input
    if reduction == "batchmean":
        return pointwise.sum() / input.shape[0] if input.ndim else pointwise.sum()
    return _reduced(pointwise, reduction)


def poisson_nll_loss(input: Tensor, target: Tensor, log_input: bool = True, full: bool = False,
                     size_average: Any = None, eps: float = 1e-8, reduce: Any = None,
                     reduction: str = "mean") -> Tensor:
    if size_average is not None or reduce is not None:
        reduction = legacy_reduction(size_average, reduce)
    values = input.exp() - target * input if log_input else input - target * (input + eps).log()
    if full:
        stirling = target * target.log() - target + 0.5 * (2 * math.pi * target).log()
        values = values + stirling.masked_fill(target <= 1, 0)
    return _reduced(values, reduction)


def gaussian_nll_loss(input: Tensor, target: Tensor, var: Any, full: bool = False, eps: float = 1e-6,
                      reduction: str = "mean") -> Tensor:
    if not isinstance(var, Tensor):
        var = input.new_full((), float(var))
    if var.shape != input.shape and var.ndim == input.ndim - 1:
        var = var.unsqueeze(-1)
    var = var.clone()
    with grad_mode.no_grad():
        var.clamp_(min=eps)
    values = 0.5 * (var.log() + (input - target) ** 2 / var)
    if full:
        values = values + 0.5 * math.log(2 * math.pi)
    return _reduced(values, reduction)


def soft_margin_loss(input: Tensor, target: Tensor, size_average: Any = None, reduce: Any = None,
                     reduction: str = "mean") -> Tensor:
    reduction = _legacy_or(size_average, reduce, reduction)
    return _NN["soft_margin_loss"](input, target, loss.reduction_enum(reduction))


def margin_ranking_loss(input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0, size_average: Any = None,
                        reduce: Any = None, reduction: str = "mean") -> Tensor:
    reduction = _legacy_or(size_average, reduce, reduction)
    margin = list(parser("torch", "margin_ranking_loss").parse((input1, input2, target, margin), {})[1].values())[3]
    difference = input1 - input2  # (ATen's composite: the difference first, the margin a double)
    return _reduced((-target * difference + margin).clamp_min_(0), reduction)


def hinge_embedding_loss(input: Tensor, target: Tensor, margin: float = 1.0, size_average: Any = None,
                         reduce: Any = None, reduction: str = "mean") -> Tensor:
    """ATen's composite: the margin term where the target is not 1, the input where it is not -1."""
    reduction = _legacy_or(size_average, reduce, reduction)
    zeros = input.new_zeros(input.shape)
    # C++'s `margin - self`: empty_like(self).fill_(margin).sub_(self), in self's dtype
    margin_clamp = input.new_zeros(input.shape).fill_(float(margin)).sub_(input).clamp_min_(0)
    values = where(target != 1, margin_clamp, zeros) + where(target != -1, input, zeros)
    return _reduced(values, reduction)


cosine_similarity = _TORCH["cosine_similarity"]


pairwise_distance = _TORCH["pairwise_distance"]


def cosine_embedding_loss(input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0,
                          size_average: Any = None, reduce: Any = None, reduction: str = "mean") -> Tensor:
    """ATen's composite, in its order of operations."""
    reduction = _legacy_or(size_average, reduce, reduction)
    target_dim = target.ndim
    if target_dim > 1:
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    if input1.ndim != target_dim + 1 or input2.ndim != target_dim + 1:
        raise RuntimeError(f"{target_dim}D target tensor expects {target_dim + 1}D input tensors, but found inputs "
                           f"with sizes {shape_text(input1.shape)} and {shape_text(input2.shape)}.")
    product_sum = (input1 * input2).sum(target_dim)
    magnitude1 = (input1 * input1).sum(target_dim) + _COSINE_EPSILON
    magnitude2 = (input2 * input2).sum(target_dim) + _COSINE_EPSILON
    cosine = product_sum / (magnitude1 * magnitude2).sqrt_()
    zeros = cosine.new_zeros(cosine.shape)
    positive = where(target == 1, 1 - cosine, zeros)
    negative = where(target == -1, (cosine - margin).clamp_min_(0), zeros)
    return _reduced(positive + negative, reduction)


def triplet_margin_loss(anchor: Tensor, positive: Tensor, negative: Tensor, margin: float = 1.0, p: float = 2,
                        eps: float = 1e-6, swap: bool = False, size_average: Any = None, reduce: Any = None,
                        reduction: str = "mean") -> Tensor:
    reduction = _legacy_or(size_average, reduce, reduction)
    positive_distance = pairwise_distance(anchor, positive, p, eps)
    negative_distance = pairwise_distance(anchor, negative, p, eps)
    if swap:
        negative_distance = negative_distance.minimum(pairwise_distance(positive, negative, p, eps))
    return _reduced((margin + positive_distance - negative_distance).clamp_min(0), reduction)


def multilabel_soft_margin_loss(input: Tensor, target: Tensor, weight: Optional[Tensor] = None,
                                size_average: Any = None, reduce: Any = None, reduction: str = "mean") -> Tensor:
    reduction = _legacy_or(size_average, reduce, reduction)
    values = -(target * logsigmoid(input) + (1 - target) * logsigmoid(-input))
    if weight is not None:
        values = values * weight
    return _reduced(values.sum(-1) / input.shape[-1], reduction)


def multi_margin_loss(input: Tensor, target: Tensor, p: int = 1, margin: float = 1.0, weight: Optional[Tensor] = None,
                      size_average: Any = None, reduce: Any = None, reduction: str = "mean") -> Tensor:
    reduction = _legacy_or(size_average, reduce, reduction)
    if p != 1 and p != 2:
        raise ValueError("only p == 1 and p == 2 supported")
    if weight is not None and weight.ndim != 1:
        raise ValueError("weight must be one-dimensional")
    return _NN["multi_margin_loss"](input, target, p, margin, weight, loss.reduction_enum(reduction))


def multilabel_margin_loss(input: Tensor, target: Tensor, size_average: Any = None, reduce: Any = None,
                           reduction: str = "mean") -> Tensor:
    reduction = _legacy_or(size_average, reduce, reduction)
    return _NN["multilabel_margin_loss"](input, target, loss.reduction_enum(reduction))


def triplet_margin_with_distance_loss(anchor: Tensor, positive: Tensor, negative: Tensor, *,
                                      distance_function: Optional[Callable] = None, margin: float = 1.0,
                                      swap: bool = False, reduction: str = "mean") -> Tensor:
    _reduction_enum(reduction)
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    if not anchor.ndim == positive.ndim == negative.ndim:
        raise RuntimeError("The anchor, positive, and negative tensors are expected to have the same number of "
                           f"dimensions, but got: anchor {anchor.ndim}D, positive {positive.ndim}D, and negative "
                           f"{negative.ndim}D inputs")
    if distance_function is None:
        distance_function = pairwise_distance
    positive_distance = distance_function(anchor, positive)
    negative_distance = distance_function(anchor, negative)
    if swap:
        negative_distance = negative_distance.minimum(distance_function(positive, negative))
    return _reduced((margin + positive_distance - negative_distance).clamp_min(0), reduction)


def ctc_loss(log_probs: Tensor, targets: Tensor, input_lengths: Any, target_lengths: Any, blank: int = 0,
             reduction: str = "mean", zero_infinity: bool = False) -> Tensor:
    return _TORCH["ctc_loss"](log_probs, targets, input_lengths, target_lengths, blank, loss.reduction_enum(reduction),
                              zero_infinity)


__all__ = ["mse_loss", "l1_loss", "legacy_reduction", "logsigmoid", "binary_cross_entropy",
           "binary_cross_entropy_with_logits", "nll_loss", "cross_entropy", "smooth_l1_loss", "huber_loss",
           "kl_div", "poisson_nll_loss", "gaussian_nll_loss", "soft_margin_loss", "margin_ranking_loss",
           "hinge_embedding_loss", "cosine_similarity", "pairwise_distance", "cosine_embedding_loss",
           "triplet_margin_loss", "multilabel_soft_margin_loss", "multi_margin_loss", "multilabel_margin_loss",
           "triplet_margin_with_distance_loss", "ctc_loss"]
