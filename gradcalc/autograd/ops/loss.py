"""Losses: mse_loss, binary cross-entropy (with logits) and nll_loss, summed in PyTorch's order.

Their `reduction` is PyTorch's enum (0 none, 1 mean, 2 sum), as their grad_fns show it."""
from __future__ import annotations

from typing import Any, Optional

import numpy as np

from .. import dtypes, grad_mode, kernels
from ..tensor import Tensor
from .activation import log_sigmoid
from .common import arrays, not_implemented_for, ones_like, zeros
from .indexing import scatter, where
from .reduction import sum_data
from .registry import node, op, record

NONE, MEAN, SUM = 0, 1, 2
REDUCTIONS = {"none": NONE, "mean": MEAN, "sum": SUM}
# PyTorch's lower bound on x (1 - x) in the gradient of binary cross-entropy
_BCE_EPSILON = 1e-12

MSE_LOSS = node("MseLossBackward0", ("self", "target"),
                self=lambda grad, self, target, reduction: _mse_grad(grad, self, target, reduction),
                target=lambda grad, self, target, reduction: -_mse_grad(grad, self, target, reduction))
BCE = node("BinaryCrossEntropyBackward0", ("self", "target"), saved_tensors=("weight",),
           self=lambda grad, self, target, weight, reduction: _loss_scale(
               grad * (self - target) / ((1 - self) * self).clamp_min(_BCE_EPSILON), weight, reduction, self),
           target=lambda grad, self, target, weight, reduction: _loss_scale(
               (self / (1 - self)).log().neg() * grad, weight, reduction, target))
BCE_WITH_LOGITS = node(
    "BinaryCrossEntropyWithLogitsBackward0", ("self", "target"), saved_tensors=("weight", "pos_weight"),
    self=lambda grad, self, target, weight, pos_weight, reduction: _loss_scale(
        _bce_logits_slope(self, target, pos_weight) * grad, weight, reduction, self),
    target=lambda grad, self, target, weight, pos_weight, reduction: _loss_scale(
        -self * grad if pos_weight is None else (log_sigmoid(-self) - log_sigmoid(self) * pos_weight) * grad,
        weight, reduction, target))
SOFT_MARGIN_LOSS = node("SoftMarginLossBackward0", ("self",), saved_tensors=("target",),
                        self=lambda grad, self, target, reduction: _soft_margin_grad(grad, self, target, reduction))
NLL_LOSS = node("NllLossBackward0", ("self",), saved_tensors=("target", "weight", "total_weight"),
                self=lambda grad, self, target, weight, reduction, ignore_index, total_weight: _nll_grad(
                    grad, self, target, weight, reduction, ignore_index, total_weight))


def _mse_grad(grad: Tensor, self: Tensor, target: Tensor, reduction: int) -> Tensor:
    scale = 2.0 / self.numel() if reduction == MEAN else 2.0
    return scale * (self - target) * grad


def _bce_logits_slope(x: Tensor, target: Tensor, pos_weight: Optional[Tensor]) -> Tensor:
    if pos_weight is None:
        return x.sigmoid() - target
    weighted = pos_weight * target
    return (weighted + 1 - target) * x.sigmoid() - weighted


def _loss_scale(grad: Tensor, weight: Optional[Tensor], reduction: int, like: Tensor) -> Tensor:
    """The steps every elementwise loss gradient ends with: the weight, then the mean's division."""
    if weight is not None:
        grad = grad * weight
    return grad / like.numel() if reduction == MEAN else grad


def _nll_grad(grad: Tensor, self: Tensor, target: Tensor, weight: Optional[Tensor], reduction: int,
              ignore_index: int, total_weight: Tensor) -> Tensor:
    """-weight[t] * grad at each row's target class (divided by the total weight for a mean), zero elsewhere."""
    rows = target._data.reshape(-1)
    kept = rows != ignore_index
    classes = np.where(kept, rows, 0)
    scale = (np.ones(rows.shape, self._dtype._numpy) if weight is None else weight._data[classes]) * kept
    scale = Tensor._make(np.asarray(scale, dtype=self._dtype._numpy), self._dtype)
    if reduction == NONE and self.ndim == 2:
        coefficient = -scale * grad
    else:
        coefficient = scale * -(grad / float(total_weight.item()) if reduction == MEAN else grad)
    if self.ndim == 1:
        return scatter(zeros(self.shape, dtype=grad.dtype), 0, classes, coefficient.reshape(1))
    return scatter(zeros(self.shape, dtype=grad.dtype), 1, classes[:, None], coefficient.reshape((-1, 1)))


def _soft_margin_grad(grad: Tensor, self: Tensor, target: Tensor, reduction: int) -> Tensor:
    # PyTorch's order: target * z * -norm / (1 + z) * grad, z = exp(-target * x)
    z = (-target * self).exp()
    norm = 1.0 / self.numel() if reduction == MEAN else 1.0
    return (target * z * -norm / (z + 1) * grad).to(self.dtype)


@op(module="nn", nodes=(SOFT_MARGIN_LOSS,))
def soft_margin_loss(input: Tensor, target: Tensor, reduction: int = MEAN) -> Tensor:
    """log1p(exp(-input * target)), computed as PyTorch does in the input's dtype: neg, then
    mul_, exp_ and log1p_ in place (whose checks decide the errors), then the reduction."""
    if target.requires_grad:
        raise RuntimeError("The function 'soft_margin_loss' is not differentiable with respect to argument 'target'. "
                           "This input cannot have requires_grad True.")
    with grad_mode.no_grad():
        loss = input.detach().neg().mul_(target).exp_().log1p_()
        if reduction != NONE:
            loss = loss.mean() if reduction == MEAN else loss.sum()
    return record(SOFT_MARGIN_LOSS, (input,), loss._data, input._dtype, target=target, reduction=reduction)


def _reduce_loss(loss: np.ndarray, reduction: int) -> np.ndarray:
    if reduction == NONE:
        return loss
    total = sum_data(loss, None, False)
    return total / np.asarray(loss.size, dtype=loss.dtype) if reduction == MEAN else total


@op(function=False, method=False, nodes=(MSE_LOSS,))
def mse_loss(input: Tensor, target: Tensor, reduction: int = MEAN) -> Tensor:
    dtype = dtypes.result_type([input, target])
    if dtype.category != dtypes.FLOATING:
        raise not_implemented_for("mse_cpu", dtype)
    x, y = arrays((input, target), dtype)
    squared = np.asarray((x - y) * (x - y), dtype=dtype._numpy)
    if reduction != NONE:
        # the same reduction code as torch.mean / torch.sum
        total = sum_data(squared, None, False)
        squared = total / np.asarray(squared.size, dtype=total.dtype) if reduction == MEAN else total
    return record(MSE_LOSS, (input, target), np.asarray(squared, dtype=dtype._numpy), dtype, reduction=reduction)


@op(function=False, method=False, nodes=(BCE,))
def binary_cross_entropy(input: Tensor, target: Tensor, weight: Optional[Tensor] = None,
                         reduction: int = MEAN) -> Tensor:
    x, t = input._data, target._data
    bad_input = ~((x >= 0) & (x <= 1))
    bad_target = ~((t >= 0) & (t <= 1))
    bad = np.flatnonzero((bad_input | bad_target).reshape(-1))
    if bad.size:
        which = "input" if bad_input.reshape(-1)[bad[0]] else "target"
        raise RuntimeError(f"all elements of {which} should be between 0 and 1")
    one, floor = x.dtype.type(1), x.dtype.type(-100)
    wide = x.astype(np.float64)
    log_x = np.maximum(np.log(wide).astype(x.dtype), floor)
    log_rest = np.maximum(np.log1p(-wide).astype(x.dtype), floor)
    loss = (t - one) * log_rest - t * log_x
    if weight is not None:
        loss = loss * weight._data
    data = np.asarray(_reduce_loss(loss, reduction), dtype=x.dtype)
    return record(BCE, (input, target), data, input._dtype, weight=weight, reduction=reduction)


@op(method=False, nodes=(BCE_WITH_LOGITS,))
def binary_cross_entropy_with_logits(input: Tensor, target: Tensor, weight: Optional[Tensor] = None,
                                     pos_weight: Optional[Tensor] = None, reduction: int = MEAN) -> Tensor:
    """ATen's steps, whose dtypes and checks it keeps: log_sigmoid(input) in the input's dtype,
    then (1 - target).mul_(input).sub_(...) in the target's (C++'s 1 - target being
    empty_like(target).fill_(1).sub_(target))."""
    with grad_mode.no_grad():
        log_sig = log_sigmoid(input)
        if pos_weight is not None:
            log_sig.mul_((pos_weight - 1).mul(target).add_(1))
        loss = ones_like(target).sub_(target).mul_(input).sub_(log_sig)
        if weight is not None:
            loss.mul_(weight)
    data = np.asarray(_reduce_loss(loss._data, reduction), dtype=loss._dtype._numpy)
    return record(BCE_WITH_LOGITS, (input, target), data, loss._dtype, weight=weight, pos_weight=pos_weight,
                  reduction=reduction)


@op(function=False, method=False, nodes=(NLL_LOSS,))
def nll_loss(input: Tensor, target: Tensor, weight: Optional[Tensor] = None, reduction: int = MEAN,
             ignore_index: int = -100) -> Tensor:
    """PyTorch's CPU nll_loss: -input[i, target[i]], summed by its eight-level cascade."""
    x = input._data if input.ndim == 2 else input._data.reshape(1, -1)
    rows = target._data.reshape(-1)
    classes = x.shape[1]
    kind = x.dtype.type
    for row in rows:
        if row != ignore_index and not 0 <= row < classes:
            raise IndexError(f"Target {row} is out of bounds.")
    kept = rows != ignore_index
    picked = x[np.arange(rows.size), np.where(kept, rows, 0)]
    weights = np.ones(rows.size, x.dtype) if weight is None else weight._data[np.where(kept, rows, 0)]
    params = dict(target=target, weight=weight, reduction=reduction, ignore_index=ignore_index)
    if reduction == NONE and input.ndim == 2:
        data = np.where(kept, -picked * weights if weight is not None else -picked, kind(0))
        return record(NLL_LOSS, (input,), np.asarray(data, dtype=x.dtype), input._dtype,
                      total_weight=Tensor._make(np.zeros((), x.dtype), input._dtype), **params)
    levels, power = 8, max(4, kernels.ceil_log2(rows.size) // 8)
    mask = (1 << power) - 1
    loss_sums, weight_sums = [kind(0)] * levels, [kind(0)] * levels
    for b in range(rows.size):
        if not kept[b]:
            continue
        if weight is None:
            loss_sums[0] = kind(loss_sums[0] - picked[b])
        else:
            loss_sums[0] = kind(loss_sums[0] - kind(picked[b] * weights[b]))
            weight_sums[0] = kind(weight_sums[0] + weights[b])
        for j in range(levels - 1):
            if b & (mask << (j * power)):
                break
            loss_sums[j + 1], loss_sums[j] = kind(loss_sums[j + 1] + loss_sums[j]), kind(0)
            weight_sums[j + 1], weight_sums[j] = kind(weight_sums[j + 1] + weight_sums[j]), kind(0)
    total = kind(0)
    total_weight = kind(int(kept.sum())) if weight is None else kind(0)
    for j in range(levels):
        total = kind(total + loss_sums[j])
        if weight is not None:
            total_weight = kind(total_weight + weight_sums[j])
    if reduction == MEAN:
        total = kind(total / total_weight)
    return record(NLL_LOSS, (input,), np.asarray(total, dtype=x.dtype), input._dtype,
                  total_weight=Tensor._make(np.asarray(total_weight, dtype=x.dtype), input._dtype), **params)


def reduction_enum(reduction: Any) -> int:
    """The enum of a reduction named as torch.nn.functional names it."""
    if reduction not in REDUCTIONS:
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return REDUCTIONS[reduction]


def _smooth_l1_grad(grad: Tensor, self: Tensor, target: Tensor, reduction: int, beta: float, huber: bool) -> Tensor:
    """PyTorch's kernel, in its order: norm * grad (times delta for huber) outside the quadratic
    zone, norm * x * grad (divided by beta for smooth_l1) inside it."""
    x = self - target
    norm = 1.0 / self.numel() if reduction == MEAN else 1.0
    scaled = grad * norm if norm != 1.0 else grad
    outside = scaled * beta if huber else scaled
    inside = x * norm * grad if huber else x * norm * grad / beta
    return where(x <= -beta, -outside, where(x >= beta, outside, inside))


SMOOTH_L1 = node("SmoothL1LossBackward0", ("self", "target"),
                 self=lambda grad, self, target, reduction, beta: _smooth_l1_grad(grad, self, target, reduction, beta,
                                                                                  False),
                 target=lambda grad, self, target, reduction, beta: -_smooth_l1_grad(grad, self, target, reduction,
                                                                                     beta, False))
HUBER = node("HuberLossBackward0", ("self", "target"),
             self=lambda grad, self, target, reduction, delta: _smooth_l1_grad(grad, self, target, reduction, delta,
                                                                               True),
             target=lambda grad, self, target, reduction, delta: -_smooth_l1_grad(grad, self, target, reduction, delta,
                                                                                  True))


def _piecewise_loss(input: Tensor, target: Tensor, beta: float, huber: bool) -> tuple:
    """The loss of each element, in the common dtype; huber_loss writes it into a tensor of the
    input's dtype (PyTorch allocates its output like the input), smooth_l1_loss into the common one."""
    dtype = dtypes.result_type([input, target])
    out_dtype = input._dtype if huber else dtype
    if dtype.category > out_dtype.category:
        raise RuntimeError(f"result type {dtype._scalar_name} can't be cast to the desired output type "
                           f"{out_dtype._scalar_name}")
    if huber and dtype.category != dtypes.FLOATING:
        raise not_implemented_for("huber_cpu", dtype)
    x, y = arrays((input, target), dtype)
    kind = dtype._numpy.type
    absolute = np.abs(x - y)
    if huber:
        loss = np.where(absolute < kind(beta), kind(0.5) * (x - y) * (x - y),
                        kind(beta) * (absolute - kind(0.5 * beta)))
    else:
        loss = np.where(absolute < kind(beta), kind(0.5) * (x - y) * (x - y) / kind(beta), absolute - kind(0.5 * beta))
    return np.asarray(loss, dtype=out_dtype._numpy), out_dtype


@op(function=False, method=False, nodes=(SMOOTH_L1,))
def smooth_l1_loss(input: Tensor, target: Tensor, reduction: int = MEAN, beta: float = 1.0) -> Tensor:
    loss, dtype = _piecewise_loss(input, target, beta, huber=False)
    return record(SMOOTH_L1, (input, target), np.asarray(_reduce_loss(loss, reduction), dtype=dtype._numpy), dtype,
                  reduction=reduction, beta=beta)


@op(function=False, method=False, nodes=(HUBER,))
def huber_loss(input: Tensor, target: Tensor, reduction: int = MEAN, delta: float = 1.0) -> Tensor:
    if delta <= 0:
        raise RuntimeError("huber_loss does not support non-positive values for delta.")
    loss, dtype = _piecewise_loss(input, target, delta, huber=True)
    return record(HUBER, (input, target), np.asarray(_reduce_loss(loss, reduction), dtype=dtype._numpy), dtype,
                  reduction=reduction, delta=delta)
