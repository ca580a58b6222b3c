"""Losses: mse_loss, binary cross-entropy (with logits), nll_loss and nll_loss2d, summed in PyTorch's order.

Their `reduction` is PyTorch's enum (0 none, 1 mean, 2 sum), as their grad_fns show it."""
from __future__ import annotations

import math
from typing import Any, Optional

import numpy as np

from .. import dtypes, grad_mode, layout, sum_kernel
from ..forward_mode import unsupported
from ..native import kernels as native
from ..tensor import Tensor
from ...warnings import warn
from .activation import log_sigmoid
from .common import arrays, check_no_requires_grad, not_implemented_for, ones_like, shape_text, zeros_like
from .indexing import where
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
                self=lambda grad, self, target, weight, reduction, ignore_index, total_weight: nll_loss_backward(
                    grad, self, target, weight, reduction, ignore_index, total_weight))
NLL_LOSS2D = node("NllLoss2DBackward0", ("self",), saved_tensors=("target", "weight", "total_weight"),
                  self=lambda grad, self, target, weight, reduction, ignore_index, total_weight: nll_loss2d_backward(
                      grad, self, target, weight, reduction, ignore_index, total_weight))
# the gradients of those gradients (create_graph=True): linear in grad_output, constant in self
NLL_LOSS_BACKWARD = node(
    "NllLossBackwardBackward0", ("grad_output", "self"), saved_tensors=("target", "weight"),
    grad_output=lambda grad, target, weight, reduction, ignore_index: nll_loss(grad, target, weight, reduction,
                                                                               ignore_index),
    self=lambda grad: zeros_like(grad))
NLL_LOSS2D_BACKWARD = node(
    "NllLoss2DBackwardBackward0", ("grad_output", "self"), saved_tensors=("target", "weight"),
    grad_output=lambda grad, target, weight, reduction, ignore_index: nll_loss2d(grad, target, weight, reduction,
                                                                                 ignore_index),
    self=lambda grad: zeros_like(grad))


def _per_element(value: float, like: Tensor) -> float:
    """`value / numel` as ATen's kernels divide doubles: an empty input's norm is inf (no error)."""
    return value / like.numel() if like.numel() else math.inf


def _mse_grad(grad: Tensor, self: Tensor, target: Tensor, reduction: int) -> Tensor:
    scale = _per_element(2.0, self) if reduction == MEAN else 2.0
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


def nll_loss_backward(grad: Tensor, self: Tensor, target: Tensor, weight: Optional[Tensor], reduction: int,
                      ignore_index: int, total_weight: Tensor) -> Tensor:
    """NllLossBackward0's formula, an op of its own as in PyTorch (a second derivative shows
    NllLossBackwardBackward0)."""
    x, t = self._data, target._data
    if not (x.ndim == 1 and t.ndim == 0) and x.shape[0] != t.shape[0]:
        # its meta function's check, which the forward's lets pass for a 1-d input's target of one
        raise RuntimeError(f"size mismatch (got input: {shape_text(self.shape)}, target: {shape_text(target.shape)})")
    data = _nll_input_grad(grad, self, target, weight, reduction, ignore_index, total_weight)
    return record(NLL_LOSS_BACKWARD, (grad, self), data.reshape(x.shape), self._dtype, target=target, weight=weight,
                  reduction=reduction, ignore_index=ignore_index)


def nll_loss2d_backward(grad: Tensor, self: Tensor, target: Tensor, weight: Optional[Tensor], reduction: int,
                        ignore_index: int, total_weight: Tensor) -> Tensor:
    """NllLoss2DBackward0's formula: nll_loss_backward's values, laid out as the (N, C, H, W) input."""
    if not layout.preserved(self._data).flags.c_contiguous:
        # the kernel's gradient is zeros_like(input), which keeps a permuted input's strides
        raise RuntimeError("grad_input must be contiguous")
    rows = _nll_input_grad(grad, self, target, weight, reduction, ignore_index, total_weight)
    batch, classes, *spatial = self.shape
    data = np.ascontiguousarray(np.moveaxis(rows.reshape(batch, *spatial, classes), -1, 1))
    return record(NLL_LOSS2D_BACKWARD, (grad, self), data, self._dtype, target=target, weight=weight,
                  reduction=reduction, ignore_index=ignore_index)


def _nll_input_grad(grad: Tensor, self: Tensor, target: Tensor, weight: Optional[Tensor], reduction: int,
                    ignore_index: int, total_weight: Tensor) -> np.ndarray:
    """One row of classes per target: -weight[t] * grad at the target's class (the grad divided by
    the total weight first for a mean), zero elsewhere and for an ignored target."""
    rows = target._data.reshape(-1)
    classes = self._data.shape[0] if self._data.ndim == 1 else self._data.shape[1]
    kind = self._dtype._numpy
    g = np.asarray(grad._data, dtype=kind).reshape(-1)
    if reduction == NONE:
        coefficient = -g
    else:
        coefficient = -(g / kind.type(total_weight._data.item())) if reduction == MEAN else -g
        if self._dtype is dtypes.bfloat16:  # the kernel's grad is a c10::BFloat16 before the weights multiply it
            coefficient = dtypes.round_to_bfloat16(coefficient)
    out = np.zeros((rows.size, classes), kind)
    if native is not None and kind.type in (np.float32, np.float64) and self._dtype is not dtypes.bfloat16 and \
            rows.dtype == np.int64 and (weight is None or weight._data.dtype == kind):
        # one value written at each target's class in C, what follows does in numpy
        weights = None if weight is None else np.ascontiguousarray(weight._data.reshape(-1))
        if native.nll_loss_grad(out, np.ascontiguousarray(rows), ignore_index, weights, coefficient) is None:
            return out
        out[...] = 0  # a target out of bounds: numpy's indexing says so below
    if weight is None and _every_row_counts(rows, classes, ignore_index):
        out[np.arange(rows.size), rows] = coefficient  # the common case, without the masks below
        return out
    kept = np.flatnonzero(rows != ignore_index)  # an ignored target's row stays zero
    coefficient = np.broadcast_to(coefficient, rows.shape)[kept]
    if weight is not None:
        coefficient = weight._data.reshape(-1)[rows[kept]] * coefficient
    out[kept, rows[kept]] = coefficient
    return out


def _soft_margin_grad(grad: Tensor, self: Tensor, target: Tensor, reduction: int) -> Tensor:
    # PyTorch's order: target * z * -norm / (1 + z) * grad, z = exp(-target * x)
    z = (-target * self).exp()
    norm = _per_element(1.0, self) if reduction == MEAN else 1.0
    return (target * z * -norm / (z + 1) * grad).to(self.dtype)


@op(module="nn", nodes=(SOFT_MARGIN_LOSS,))
def soft_margin_loss(input: Tensor, target: Tensor, reduction: int = MEAN) -> Tensor:
    """log1p(exp(-input * target)), computed as PyTorch does in the input's dtype: neg, then
    mul_, exp_ and log1p_ in place (whose checks decide the errors), then the reduction."""
    check_no_requires_grad(target, "target", "soft_margin_loss")
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
    check_no_requires_grad(weight, "weight", "binary_cross_entropy")
    if input._dtype.category != dtypes.FLOATING:  # (the kernel's dispatch, before its range check)
        raise not_implemented_for("binary_cross_entropy", input._dtype)
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
    check_no_requires_grad(weight, "weight", "binary_cross_entropy_with_logits")
    check_no_requires_grad(pos_weight, "pos_weight", "binary_cross_entropy_with_logits")
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
    """PyTorch's CPU nll_loss on an input of shape (N, C) or (C): -input[i, target[i]], summed by
    its eight-level cascade (a 1-d input's 'none' is one target's sum)."""
    if input._dtype.category != dtypes.FLOATING:
        raise not_implemented_for("nll_loss_out_frame", input._dtype)
    x = input._data if input._data.ndim == 2 else input._data.reshape(1, -1)
    data, total_weight = _nll_values(x, target._data.reshape(-1), weight, reduction, ignore_index,
                                     per_target=reduction == NONE and input._data.ndim == 2,
                                     bfloat16=input._dtype is dtypes.bfloat16)
    return record(NLL_LOSS, (input,), data, input._dtype, target=target, weight=weight, reduction=reduction,
                  ignore_index=ignore_index, total_weight=Tensor._make(total_weight, input._dtype))


@op(function=False, method=False, nodes=(NLL_LOSS2D,))
def nll_loss2d(input: Tensor, target: Tensor, weight: Optional[Tensor] = None, reduction: int = MEAN,
               ignore_index: int = -100) -> Tensor:
    """PyTorch's CPU nll_loss2d on an input of shape (N, C, H, W) and a target (N, H, W), with
    its checks in order: nll_loss's loop over the targets in (n, h, w) order."""
    check_no_requires_grad(weight, "weight", "nll_loss2d_forward")
    if target.ndim != 3:
        raise RuntimeError(f"only batches of spatial targets supported (3D tensors) but got targets of dimension: "
                           f"{target.ndim}")
    if input.ndim != 4:
        raise RuntimeError(f"only batches of spatial inputs supported (4D tensors), but got input of dimension: "
                           f"{input.ndim}")
    if target.dtype not in (dtypes.int64, dtypes.uint8):
        raise RuntimeError(f"expected target dtype to be Long or Byte, but got {target.dtype._scalar_name}")
    batch, classes, *spatial = input.shape
    if weight is not None and weight.numel() != classes:
        raise RuntimeError("weight tensor should be defined either for all or no classes")
    if (batch, *spatial) != tuple(target.shape):
        raise RuntimeError(f"size mismatch (got input: {shape_text(input.shape)} , target: "
                           f"{shape_text(target.shape)}")
    if input.dtype.category != dtypes.FLOATING:
        raise not_implemented_for("nll_loss2d_forward_out_frame", input.dtype)
    if weight is not None and weight.dtype is not input.dtype:  # the kernel reads the weights as the input's type
        raise RuntimeError(f"expected scalar type {input.dtype._scalar_name} but found {weight.dtype._scalar_name}")
    if target.dtype is dtypes.uint8 and (reduction == NONE or target.numel()):
        # the kernel reads the targets as int64 (an empty target is not read for a reduction)
        raise RuntimeError("expected scalar type Long but found Byte")
    x = np.moveaxis(input._data, 1, -1).reshape(target.numel(), classes)
    data, total_weight = _nll_values(x, target._data.reshape(-1), weight, reduction, ignore_index,
                                     per_target=reduction == NONE, bfloat16=input._dtype is dtypes.bfloat16)
    return record(NLL_LOSS2D, (input,), data.reshape(target.shape) if reduction == NONE else data, input._dtype,
                  target=target, weight=weight, reduction=reduction, ignore_index=ignore_index,
                  total_weight=Tensor._make(total_weight, input._dtype))


def _nll_values(x: np.ndarray, rows: np.ndarray, weight: Optional[Tensor], reduction: int, ignore_index: int,
                per_target: bool, bfloat16: bool = False) -> tuple:
    """nll_loss's loop over the targets `rows`, each picking from its row of class scores in `x`:
    -x[i, t] * weight[t] per target (0 where ignored) when `per_target`, else those summed by the
    cascade, and the total weight (the mean's divisor). Returns (values, total weight) as arrays.
    `bfloat16`: x holds bfloat16 values, whose loop rounds every step."""
    classes = x.shape[1]
    kind = x.dtype.type
    if native is not None and not per_target and not bfloat16 and kind in (np.float32, np.float64) and \
            rows.dtype == np.int64 and (weight is None or weight._data.dtype == x.dtype):
        # the loop itself (csrc/cascade.c), of which what follows is the numpy emulation
        total, total_weight, bad = native.nll_loss_sum(x, rows, ignore_index,
                                                       None if weight is None else weight._data.reshape(-1))
        if bad is not None:
            raise IndexError(f"Target {rows[bad]} is out of bounds.")
        if reduction == MEAN:  # (float32's quotient is the double one rounded: 53 bits >= 2 * 24 + 2)
            total = total / total_weight if total_weight else kind(total) / kind(total_weight)
        return np.array(total, dtype=x.dtype), np.array(total_weight, dtype=x.dtype)
    power = max(4, sum_kernel.ceil_log2(rows.size) // _NLL_LEVELS)
    if weight is None and not per_target and not bfloat16 and _every_row_counts(rows, classes, ignore_index):
        # the common case, without the masks below: the cascade's rows are then 0, 1, 2, ...
        total = _regular_cascade(-x[np.arange(rows.size), rows], 1 << power)
        total_weight = kind(rows.size)
    else:
        kept = rows != ignore_index
        outside = kept & ((rows < 0) | (rows >= classes))
        if outside.any():
            raise IndexError(f"Target {rows[int(np.argmax(outside))]} is out of bounds.")
        safe = np.where(kept, rows, 0)
        # with no classes every target is ignored (else out of bounds above): nothing to pick
        picked = x[np.arange(rows.size), safe] if classes else np.zeros(rows.size, x.dtype)
        weights = (np.ones(rows.size, x.dtype) if weight is None or not classes
                   else weight._data.reshape(-1)[safe])
        if per_target:
            data = np.where(kept, -picked * weights if weight is not None else -picked, kind(0))
            return np.asarray(data, dtype=x.dtype), np.zeros((), x.dtype)
        kept_rows = np.flatnonzero(kept)
        if bfloat16:
            total, total_weight = _bfloat16_cascades(picked[kept_rows], None if weight is None else weights[kept_rows],
                                                     kept_rows, power)
        elif weight is None:
            total = _cascade(-picked[kept_rows], kept_rows, power)
            total_weight = kind(kept_rows.size)
        else:
            total = _cascade(-(picked[kept_rows] * weights[kept_rows]), kept_rows, power)
            total_weight = _cascade(weights[kept_rows], kept_rows, power)
    if reduction == MEAN:
        total = kind(total / total_weight)
    return np.asarray(total, dtype=x.dtype), np.asarray(total_weight, dtype=x.dtype)


def _bfloat16_cascades(picked: np.ndarray, weights: Optional[np.ndarray], rows: np.ndarray, power: int) -> tuple:
    """The loss's and the weights' cascades (_cascade) as the loop runs them in c10::BFloat16:
    each product and sum computed in float and rounded to bfloat16, element after element. The
    total weight without class weights is the count, rounded to bfloat16 too."""
    def rounded(value: float) -> float:
        return float(dtypes.round_to_bfloat16(np.float32(value)))

    losses, totals = [0.0] * _NLL_LEVELS, [0.0] * _NLL_LEVELS
    mask = (1 << power) - 1
    for i, (value, row) in enumerate(zip(picked.tolist(), rows.tolist())):
        if weights is None:
            losses[0] = rounded(losses[0] - value)
        else:
            losses[0] = rounded(losses[0] - rounded(value * float(weights[i])))
            totals[0] = rounded(totals[0] + float(weights[i]))
        for level in range(_NLL_LEVELS - 1):
            if row & (mask << (level * power)):
                break
            losses[level + 1], losses[level] = rounded(losses[level + 1] + losses[level]), 0.0
            totals[level + 1], totals[level] = rounded(totals[level + 1] + totals[level]), 0.0
    total, total_weight = 0.0, 0.0
    for loss, weight in zip(losses, totals):
        total, total_weight = rounded(total + loss), rounded(total_weight + weight)
    if weights is None:
        total_weight = rounded(rows.size)
    return np.float32(total), np.float32(total_weight)


def _every_row_counts(rows: np.ndarray, classes: int, ignore_index: int) -> bool:
    """Whether every target is a class (none out of bounds) and none is ignore_index: two
    reductions instead of the general path's masks."""
    if not rows.size:
        return False
    # (the ufuncs' reductions: ndarray.min and max go through a Python layer of numpy's)
    lowest, highest = int(np.minimum.reduce(rows, axis=None)), int(np.maximum.reduce(rows, axis=None))
    return 0 <= lowest and highest < classes and not lowest <= ignore_index <= highest


# nll_loss's cascade: levels of running sums, each carried into the next every 2**power rows
_NLL_LEVELS = 8


def _cascade(values: np.ndarray, rows: np.ndarray, power: int) -> np.generic:
    """The sum of `values` (one for each of the ascending row numbers `rows`) as nll_loss's loop
    adds them: each level is a running sum from zero of what it receives, carried into the next
    level (and started again) after a row whose number is a multiple of 2**(power * (level + 1));
    at the end the levels are added from the first. A level's running sums are computed for all
    its pieces at once: each piece a row of zeros holding its values, summed in order by cumsum."""
    kind = values.dtype.type
    if rows.size and rows[-1] == rows.size - 1:
        return _regular_cascade(values, 1 << power)
    total = kind(0)
    received, at = values, rows
    for level in range(_NLL_LEVELS):
        if not received.size:
            break  # the levels above hold zeros
        if received.size == 1 and level:
            # one running sum (never -0): carried up unchanged to the level that keeps it
            while level < _NLL_LEVELS - 1 and int(at[0]) % (1 << (power * (level + 1))) == 0:
                level += 1
            return kind(total + received[0])
        ends = (np.flatnonzero(at % (1 << (power * (level + 1))) == 0) if level < _NLL_LEVELS - 1
                else np.zeros(0, np.int64))
        index = np.arange(received.size)
        piece = np.searchsorted(ends, index)  # piece p holds the values after ends[p - 1], up to ends[p]
        column = index - np.concatenate(([0], ends + 1))[piece] + 1  # column 0: the zero a sum starts from
        pieces = np.zeros((ends.size + 1, int(column.max(initial=0)) + 1), values.dtype)
        pieces[piece, column] = received
        sums = pieces.cumsum(axis=1)[:, -1]
        total = kind(total + sums[-1])  # what the level holds at the end
        received, at = sums[:-1], at[ends]
    return total


def _regular_cascade(values: np.ndarray, step: int) -> np.generic:
    """_cascade when every row counts: each level then receives a sum at its first row, which it
    carries up at once, then one every `step` rows of the level below, which it carries up by
    blocks of `step`; the last block, if not full, is what the level holds at the end."""
    kind = values.dtype.type
    rest = values[1:]
    full, left = divmod(rest.size, step)
    if full < step:
        # the second level carries nothing up (a batch of up to step * step rows): the first level's
        # last block, then the second level's running sum of the full blocks, then the first row.
        # Sums here start from their first value, not from zero: only a zero sum's sign can differ,
        # and the total, from zero, takes +0 for it as the levels' sums from zero give
        total = kind(0)
        if left:
            total = kind(total + rest[full * step:].cumsum()[-1])
        if full:
            total = kind(total + rest[:full * step].reshape(full, step).cumsum(axis=1)[:, -1].cumsum()[-1])
        return kind(total + values[0])
    total, received = kind(0), values
    for level in range(_NLL_LEVELS - 1):
        if received.size == 1 and level:
            break  # one running sum (never -0), carried up unchanged to the last level
        rest = received[1:]
        full, left = divmod(rest.size, step)
        padded = np.zeros((full + (left > 0)) * step, values.dtype)
        padded[:rest.size] = rest
        # each block's running sum in order (cumsum; + 0 gives the sign a sum from zero has)
        sums = padded.reshape(-1, step).cumsum(axis=1)[:, -1] + kind(0)
        if left:
            total = kind(total + sums[-1])
        received = np.concatenate((received[:1] + kind(0), sums[:full]))
    return kind(total + (received.cumsum()[-1] + kind(0)))  # the last level keeps all it receives


def reduction_enum(reduction: Any) -> int:
    """The enum of a reduction named as torch.nn.functional names it (_Reduction.get_enum, which
    still takes the old name of 'mean')."""
    if reduction == "elementwise_mean":
        warn("UserWarning", "reduction='elementwise_mean' is deprecated. Please use reduction='mean' instead.")
        return MEAN
    if reduction not in REDUCTIONS:
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return REDUCTIONS[reduction]


def _smooth_l1_grad(grad: Tensor, self: Tensor, target: Tensor, reduction: int, beta: float, huber: bool) -> Tensor:
    """PyTorch's kernel, in its order: norm * grad (times delta for huber) outside the quadratic
    zone, norm * x * grad (divided by beta for smooth_l1) inside it."""
    x = self - target
    norm = _per_element(1.0, self) if reduction == MEAN else 1.0
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
    common = dtypes.result_type([input, target])
    if common.category != dtypes.FLOATING:
        raise not_implemented_for("smooth_l1_cpu", common)
    loss, dtype = _piecewise_loss(input, target, beta, huber=False)
    return record(SMOOTH_L1, (input, target), np.asarray(_reduce_loss(loss, reduction), dtype=dtype._numpy), dtype,
                  reduction=reduction, beta=beta)


@op(function=False, method=False, nodes=(HUBER,))
def huber_loss(input: Tensor, target: Tensor, reduction: int = MEAN, delta: float = 1.0) -> Tensor:
    if not delta > 0:
        raise RuntimeError("huber_loss does not support non-positive values for delta.")
    loss, dtype = _piecewise_loss(input, target, delta, huber=True)
    return record(HUBER, (input, target), np.asarray(_reduce_loss(loss, reduction), dtype=dtype._numpy), dtype,
                  reduction=reduction, delta=delta)


# ------------------------------------------------------------------ margin losses of class scores

def _margin_frames(input: Tensor) -> tuple:
    """(frames, classes) of a margin loss's input: a vector or matrix, the class dim last."""
    if not (input.ndim == 2 and input.shape[1] or input.ndim == 1 and input.shape[0] or input.ndim == 0):
        raise RuntimeError("Expected non-empty vector or matrix with optional 0-dim batch size, but got: "
                           f"{shape_text(input.shape)}")
    frames = 1 if input.ndim <= 1 else input.shape[0]
    return frames, 1 if input.ndim == 0 else input.shape[-1]


def _check_long(target: Tensor) -> None:
    if target.dtype is not dtypes.int64:
        raise RuntimeError(f"expected scalar type Long but found {target.dtype._scalar_name}")


def _multi_margin_terms(x: np.ndarray, rows: np.ndarray, p: int, margin: float,
                        weight: Optional[np.ndarray]) -> np.ndarray:
    """Each (frame, class) term of ATen's multi_margin_loss: max(0, margin - x[y] + x[d]) (squared for
    p = 2, times weight[y]), zero at the target class, in the input's dtype."""
    kind = x.dtype.type
    z = kind(margin) - x[np.arange(rows.size), rows][:, None] + x
    terms = np.where(z > 0, z if p == 1 else z * z, kind(0))
    if weight is not None:
        terms = terms * weight[rows][:, None]
    terms[np.arange(rows.size), rows] = 0
    return terms


def _multi_margin_grad(grad: Tensor, self: Tensor, target: Tensor, p: int, margin: float,
                       weight: Optional[Tensor], reduction: int) -> Tensor:
    """ATen's multi_margin_loss_backward: g (or 2 g z for p = 2, times weight[y]) at each class
    within the margin, minus their sum at the target, times the output's gradient."""
    frames, classes = _margin_frames(self)
    x = self._data.reshape(frames, classes)
    kind = x.dtype.type
    rows = target._data.reshape(-1)
    g = kind(1.0 / (frames * classes)) if reduction == MEAN else kind(1.0 / classes)
    z = kind(margin) - x[np.arange(frames), rows][:, None] + x
    slopes = np.where(z > 0, g if p == 1 else kind(2) * g * z, kind(0))
    if weight is not None:
        slopes = slopes * weight._data[rows][:, None]
    slopes[np.arange(frames), rows] = 0
    target_slopes = np.zeros(frames, x.dtype)
    for d in range(classes):  # ATen subtracts them one class after another
        target_slopes -= slopes[:, d]
    slopes[np.arange(frames), rows] = target_slopes
    scale = grad._data.reshape(-1, 1) if reduction == NONE and grad.ndim else grad._data.reshape(1, 1)
    return Tensor._make(np.asarray(slopes * scale, x.dtype).reshape(self.shape), self._dtype)


MULTI_MARGIN_LOSS = node("MultiMarginLossBackward0", ("self",), saved=("p", "margin"),
                         jvp=unsupported("multi_margin_loss"),
                         saved_tensors=("target", "weight"),
                         self=lambda grad, self, target, p, margin, weight, reduction: _multi_margin_grad(
                             grad, self, target, p, margin, weight, reduction))


@op(module="nn", nodes=(MULTI_MARGIN_LOSS,))
def multi_margin_loss(input: Tensor, target: Tensor, p: Any = 1, margin: Any = 1, weight: Optional[Tensor] = None,
                      reduction: int = MEAN) -> Tensor:
    """ATen's CPU kernel: each frame's terms added in class order in the input's dtype, divided by
    the classes; a reduction adds the frames in double."""
    check_no_requires_grad(weight, "weight", "multi_margin_loss")
    frames, classes = _margin_frames(input)
    if target.ndim > 1 or target.numel() != frames:
        raise RuntimeError("multi_margin_loss: target tensor should be 1-D with size equal to the number of input "
                           f"samples (batch size). Expected target size [{frames}], but got "
                           f"{shape_text(target.shape)}. Input has shape {shape_text(input.shape)}.")
    if weight is not None and (weight.ndim > 1 or weight.numel() != classes):
        raise RuntimeError(f"inconsistent weight size, expected {classes} but got {shape_text(weight.shape)}")
    if p not in (1, 2):
        raise RuntimeError("only p == 1 and p == 2 supported")
    _check_long(target)
    if input._dtype not in (dtypes.float32, dtypes.float64):  # (the kernel's dispatch)
        raise not_implemented_for("multi_margin_loss_cpu_kernel", input._dtype)
    rows = target._data.reshape(-1)
    if ((rows < 0) | (rows >= classes)).any():
        raise RuntimeError("target out of range")
    x = input._data.reshape(frames, classes)
    kind = x.dtype.type
    terms = _multi_margin_terms(x, rows, p, margin, None if weight is None else weight._data)
    sums = np.zeros(frames, x.dtype)
    for d in range(classes):
        sums += terms[:, d]
    per_frame = sums / kind(classes)
    if reduction == NONE and target.ndim:
        data = per_frame
    else:
        total = 0.0
        for value in per_frame:
            total += float(value)
        data = np.asarray(total / frames if reduction == MEAN else total, x.dtype)
    return record(MULTI_MARGIN_LOSS, (input,), np.asarray(data, x.dtype), input._dtype, target=target, p=p,
                  margin=margin, weight=weight, reduction=reduction)


def _label_sets(target: np.ndarray) -> np.ndarray:
    """is_target of ATen's multilabel_margin_loss: each frame's labels up to its first -1."""
    is_target = np.zeros(target.shape, np.float64)
    for frame, labels in enumerate(target):
        for label in labels:
            if label < 0:
                break
            is_target[frame, label] = 1
    return is_target


def _multilabel_pairs(x: np.ndarray, target: np.ndarray, is_target: np.ndarray) -> list:
    """Per frame, its (label, z) pairs in ATen's order: each label against each class that is
    not a label, z = 1 - x[label] + x[class]."""
    kind = x.dtype.type
    frames = []
    for row, labels, chosen in zip(x, target, is_target):
        pairs = []
        for label in labels:
            if label < 0:
                break
            pairs.append((label, kind(1) - row[label] + row, chosen == 0))
        frames.append(pairs)
    return frames


def _multilabel_grad(grad: Tensor, self: Tensor, target: Tensor, is_target: Tensor, reduction: int) -> Tensor:
    frames, classes = _margin_frames(self)
    x = self._data.reshape(frames, classes)
    kind = x.dtype.type
    g = kind(1.0 / (frames * classes)) if reduction == MEAN else kind(1.0 / classes)
    out = np.zeros((frames, classes), x.dtype)
    for frame, pairs in enumerate(_multilabel_pairs(x, target._data.reshape(frames, classes),
                                                   is_target._data.reshape(frames, classes))):
        for label, z, free in pairs:
            for d in np.flatnonzero(free & (z > 0)):
                out[frame, label] -= g
                out[frame, d] += g
    scale = grad._data.reshape(-1, 1) if reduction == NONE and grad.ndim else grad._data.reshape(1, 1)
    return Tensor._make(np.asarray(out * scale, x.dtype).reshape(self.shape), self._dtype)


MULTILABEL_MARGIN_LOSS = node("MultilabelMarginLossBackward0", ("self",), saved_tensors=("target", "is_target"),
                              jvp=unsupported("multilabel_margin_loss_forward"),
                              self=lambda grad, self, target, reduction, is_target: _multilabel_grad(
                                  grad, self, target, is_target, reduction))


@op(module="nn", nodes=(MULTILABEL_MARGIN_LOSS,))
def multilabel_margin_loss(input: Tensor, target: Tensor, reduction: int = MEAN) -> Tensor:
    """ATen's CPU kernel: a frame's hinge terms added in double, rounded to the input's dtype; a
    reduction adds the frames in double, then divides by the classes (and the frames)."""
    frames, classes = _margin_frames(input)
    if input.ndim <= 1:
        consistent = target.ndim <= 1 and target.numel() == classes
    else:
        consistent = target.ndim == 2 and target.shape == input.shape
    if not consistent:
        raise RuntimeError(f"inconsistent target size: {shape_text(target.shape)} for input of size: "
                           f"{shape_text(input.shape)}")
    _check_long(target)
    if input._dtype not in (dtypes.float32, dtypes.float64):  # (the kernel's dispatch)
        raise not_implemented_for("multilabel_margin_loss_forward_out_frame", input._dtype)
    labels = target._data.reshape(frames, classes)
    if labels.size and (labels.min() < -1 or labels.max() >= classes):
        raise RuntimeError("argument #2 'target' is out of range")
    x = input._data.reshape(frames, classes)
    kind = x.dtype.type
    is_target = _label_sets(labels).astype(x.dtype)
    sums = []
    for pairs in _multilabel_pairs(x, labels, is_target):
        total = 0.0
        for _label, z, free in pairs:
            for d in np.flatnonzero(free & (z > 0)):
                total += float(z[d])
        sums.append(kind(total))
    if reduction == NONE and target.ndim > 1:
        data = np.asarray(sums, x.dtype) / kind(classes)
    else:
        total = 0.0
        for value in sums:
            total += float(value)
        total /= classes
        data = np.asarray(total / frames if reduction == MEAN else total, x.dtype)
    return record(MULTILABEL_MARGIN_LOSS, (input,), np.asarray(data, x.dtype), input._dtype, target=target,
                  reduction=reduction, is_target=Tensor._make(is_target.reshape(target.shape), input._dtype))
