"""ATen's composite classification losses (LossNLL.cpp), as torch._C._nn declares them:
nll_loss_nd, which takes inputs of any rank to nll_loss or nll_loss2d, and cross_entropy_loss
(log_softmax, then nll_loss_nd; or class probabilities; label smoothing). torch.nn.functional
calls them after its own argument handling, so their argument errors are the parser's."""
from __future__ import annotations

import math
from typing import Optional

from .. import dtypes
from ..tensor import Tensor
from . import activation
from .arithmetic import div_scalar, mul_scalar
from .common import check_no_requires_grad, shape_text
from .loss import MEAN, NONE, SUM, nll_loss, nll_loss2d
from .registry import op


@op(module="nn")
def nll_loss_nd(input: Tensor, target: Tensor, weight: Optional[Tensor] = None, reduction: int = MEAN,
                ignore_index: int = -100) -> Tensor:
    """nll_loss for inputs of shape (C) or (N, C), nll_loss2d for (N, C, H, W); other ranks
    (N, C, d1, ...) viewed as (N, C, 1, d1 * d2 * ...) and a target (N, 1, ...) (after
    contiguous(): a CloneBackward0 for a transposed input), a 'none' result viewed back."""
    x, t = input._data, target._data  # (their shapes without torch.Size's)
    if x.ndim < 1:
        raise ValueError(f"Expected 1 or more dimensions (got {x.ndim})")
    if x.ndim == 1 and t.ndim == 1 and t.shape[0] != 1:
        raise ValueError(f"For 1D input, 1D target must have size 1, but got target size: {t.shape[0]}")
    # ATen reads a 0-d target's batch size past its (empty) sizes, where it finds 0
    target_batch = t.shape[0] if t.ndim else 0
    if x.ndim != 1 and x.shape[0] != target_batch:
        raise ValueError(f"Expected input batch_size ({x.shape[0]}) to match target batch_size "
                         f"({target_batch}).")
    if x.ndim <= 2:
        return _checked_nll_loss(input, target, weight, reduction, ignore_index)
    if input.ndim == 4:
        return nll_loss2d(input, target, weight, reduction, ignore_index)
    batch, classes, *spatial = input.shape
    if not target.ndim:
        raise RuntimeError("ArrayRef: invalid slice, N = 1; size = 0")
    if tuple(target.shape[1:]) != tuple(spatial):
        raise RuntimeError(f"Expected target size {shape_text((batch, *spatial))}, got {shape_text(target.shape)}")
    input = input.contiguous().view((batch, classes, 1, -1) if input.numel() else (batch, classes, 0, 0))
    target = target.contiguous().view((batch, 1, -1) if target.numel() else (batch, 0, 0))
    result = nll_loss2d(input, target, weight, reduction, ignore_index)
    return result.view((batch, *spatial)) if reduction == NONE else result


def _checked_nll_loss(input: Tensor, target: Tensor, weight: Optional[Tensor], reduction: int,
                      ignore_index: int) -> Tensor:
    """nll_loss with the checks of its autograd wrapper and meta function, in their order."""
    check_no_requires_grad(weight, "weight", "nll_loss_forward")
    if target._data.ndim > 1:
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    if input._data.ndim == 2 and target._data.ndim == 0:
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    classes = input._data.shape[-1]
    if weight is not None and (weight.ndim != 1 or weight.numel() != classes):
        raise RuntimeError(f"weight tensor should be defined either for all {classes} classes or no classes but "
                           f"got weight tensor of shape: {shape_text(weight.shape)}")
    if target._dtype is not dtypes.int64 and target._dtype is not dtypes.uint8:
        raise RuntimeError(f"expected target dtype to be Long or Byte, but got {target.dtype._scalar_name}")
    if weight is not None and weight.dtype is not input.dtype:  # the kernel reads the weights as the input's type
        raise RuntimeError(f"expected scalar type {input.dtype._scalar_name} but found {weight.dtype._scalar_name}")
    return nll_loss(input, target, weight, reduction, ignore_index)


@op(module="nn")
def cross_entropy_loss(input: Tensor, target: Tensor, weight: Optional[Tensor] = None, reduction: int = MEAN,
                       ignore_index: int = -100, label_smoothing: float = 0.0) -> Tensor:
    """log_softmax over the classes, then nll_loss_nd; a target of the input's shape holds class
    probabilities instead of class indices."""
    class_dim = 0 if input._data.ndim == 1 else 1
    if target._data.shape == input._data.shape:
        if target.dtype.category != dtypes.FLOATING:
            raise RuntimeError(f"Expected floating point type for target with class probabilities, got "
                               f"{target.dtype._scalar_name}")
        if ignore_index >= 0:
            raise RuntimeError("ignore_index is not supported for floating point target")
        return _cross_entropy_probabilities(input, target, weight, reduction, label_smoothing)
    if label_smoothing > 1.0:
        raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: {dtypes.cpp_double(label_smoothing)}")
    log_probs = activation.log_softmax(input, class_dim)
    if weight is None and class_dim and input._data.ndim == 2 and target._dtype is dtypes.int64 and \
            target._data.shape == input._data.shape[:1]:
        loss = nll_loss(log_probs, target, None, reduction, ignore_index)  # (a batch's call, which passes every check)
    else:
        loss = nll_loss_nd(log_probs, target, weight, reduction, ignore_index)
    if not label_smoothing > 0.0:  # (ATen smooths only when it is > 0: not for a NaN)
        return loss
    # C++'s `double * Tensor`: Tensor-by-number products (MulBackward1)
    smooth = _smoothing_term(log_probs, target, weight, ignore_index, reduction)
    share = _smoothing_share(label_smoothing, input.shape[class_dim])
    return mul_scalar(loss, 1 - label_smoothing) + mul_scalar(smooth, share)


def _smoothing_share(label_smoothing: float, classes: int) -> float:
    """label_smoothing / classes as C++ divides a double by an integer: inf for no classes."""
    return label_smoothing / classes if classes else math.inf


def _smoothing_term(log_probs: Tensor, target: Tensor, weight: Optional[Tensor], ignore_index: int,
                    reduction: int) -> Tensor:
    """ATen's cross_entropy_loss_label_smoothing's smooth loss: -log_probs (times the weights)
    summed over the classes, zero at ignored targets; a mean divides by the targets' total weight."""
    class_dim = 0 if log_probs.ndim == 1 else 1
    if weight is None:
        smooth = -log_probs.sum(class_dim)
    else:
        shape = [1] * log_probs.ndim
        shape[class_dim] = weight.size(0)
        smooth = -(log_probs * weight.view(shape)).sum(class_dim)
    ignored = target == ignore_index
    smooth.masked_fill_(ignored, 0.0)
    if reduction == MEAN:
        if weight is None:
            return smooth.sum() / (~ignored).sum()
        return smooth.sum() / weight.gather(0, target.masked_select(~ignored).flatten()).sum()
    if reduction == SUM:
        return smooth.sum()
    return smooth


def _cross_entropy_probabilities(input: Tensor, target: Tensor, weight: Optional[Tensor], reduction: int,
                                 label_smoothing: float) -> Tensor:
    """ATen's cross_entropy_loss_prob_target: -(log_softmax * target * weight) summed, a mean
    dividing by the number of samples (a Tensor-by-number division: DivBackward1), nan when there are none."""
    class_dim = 0 if input.ndim == 1 else 1
    classes = input.shape[class_dim]
    if weight is not None and (weight.ndim != 1 or weight.numel() != classes):
        raise RuntimeError(f"cross_entropy: weight tensor should be defined either for all {classes} classes or no "
                           f"classes but got weight tensor of shape: {shape_text(weight.shape)}")
    log_probs = activation.log_softmax(input, class_dim)
    if label_smoothing > 0.0:
        if label_smoothing > 1.0:
            raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: "
                               f"{dtypes.cpp_double(label_smoothing)}")
        target = target * (1 - label_smoothing) + _smoothing_share(label_smoothing, classes)
    product = log_probs * target
    if weight is not None:
        product = product * (weight.view((1, classes) + (1,) * (input.ndim - 2)) if input.ndim > 1 else weight)
    if reduction == NONE:
        return -product.sum(class_dim)
    if reduction == MEAN and input.numel() == 0:
        return -product.sum().fill_(math.nan)  # ATen's graph: NegBackward0 of FillBackward2
    total = -product.sum()
    if reduction == SUM:
        return total
    return div_scalar(total, input.numel() // classes)
