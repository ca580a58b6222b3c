"""The connectionist temporal classification loss as ATen's CPU kernel computes it: the
forward (alpha) recursion of Graves et al. in log space, each step log(exp(a - m) + exp(b - m)
+ exp(c - m)) + m in the input's dtype, and the gradient from the backward (beta) recursion."""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from .. import dtypes
from ..forward_mode import unsupported
from ..tensor import Tensor
from .common import not_implemented_for, zeros
from .indexing import where
from .loss import MEAN, SUM
from .registry import node, op, record


def _exp(x: np.ndarray) -> np.ndarray:
    """std::exp on the kernel's dtype: computed in double and rounded once, as glibc's expf."""
    with np.errstate(all="ignore"):
        return np.exp(np.asarray(x).astype(np.float64)).astype(np.asarray(x).dtype)


def _log(x: np.ndarray) -> np.ndarray:
    with np.errstate(all="ignore"):
        return np.log(np.asarray(x).astype(np.float64)).astype(np.asarray(x).dtype)


def _lengths(values: Any, name: str) -> list:
    if isinstance(values, Tensor):
        if values.dtype.category > dtypes.INTEGRAL or values.dtype is dtypes.bool_:
            raise RuntimeError(f"{name} must be integral")
        return [int(v) for v in values._data.reshape(-1)]
    return [int(v) for v in values]


def _checked(message: str) -> RuntimeError:
    return RuntimeError(f"{message} (while checking arguments for ctc_loss_allocate_outputs)")


def _label_rows(log_probs: Tensor, targets: Tensor, input_lengths: list, target_lengths: list, blank: int) -> list:
    """ATen's argument checks, then each sample's extended target l' (blanks around and between
    the labels) as an index array."""
    if log_probs.ndim != 3:
        raise _checked(f"Expected 3-dimensional tensor, but got {log_probs.ndim}-dimensional tensor for argument #1 "
                       "'log_probs'")
    if not 1 <= targets.ndim <= 2:
        raise _checked(f"Expected 1 to 2 dimensions, but got {targets.ndim}-dimensional tensor for argument #2 "
                       "'targets'")
    steps, batch, classes = log_probs.shape
    if not 0 <= blank < classes:
        raise RuntimeError("blank must be in label range")
    if len(input_lengths) != batch:
        raise RuntimeError("input_lengths must be of size batch_size")
    if len(target_lengths) != batch:
        raise RuntimeError("target_lengths must be of size batch_size")
    labels = targets._data.astype(np.int64)
    if targets.ndim == 1:
        offsets = np.concatenate(([0], np.cumsum(target_lengths[:-1], dtype=np.int64))) if batch else []
        expected = int(sum(target_lengths))
        if targets.shape[0] != expected:
            raise _checked(f"Expected tensor to have size {expected} at dimension 0, but got size {targets.shape[0]} "
                           "for argument #2 'targets'")
    else:
        if targets.shape[0] != batch:
            raise _checked(f"Expected tensor to have size {batch} at dimension 0, but got size {targets.shape[0]} for "
                           "argument #2 'targets'")
    for name, lengths in (("input_lengths", input_lengths), ("target_lengths", target_lengths)):
        for value in lengths:
            if value < 0:
                raise _checked(f"Expected {name} to have value at least 0, but got value {value}")
    for b in range(batch):
        if targets.ndim == 2 and target_lengths[b] > targets.shape[1]:
            raise _checked(f"Expected tensor to have size at least {target_lengths[b]} at dimension 1, but got size "
                           f"{targets.shape[1]} for argument #2 'targets'")
        if input_lengths[b] > steps:
            raise _checked(f"Expected input_lengths to have value at most {steps}, but got value {input_lengths[b]}")
    rows = []
    for b in range(batch):
        own = labels[offsets[b]:offsets[b] + target_lengths[b]] if targets.ndim == 1 else labels[b, :target_lengths[b]]
        extended = np.full(2 * target_lengths[b] + 1, blank, np.int64)
        extended[1::2] = own
        rows.append(extended)
    return rows


def _log_add3(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    """log(exp(a - m) + exp(b - m) + exp(c - m)) + m, m the largest (0 if all are -inf)."""
    m = np.maximum(np.maximum(a, b), c)
    m = np.where(m == -np.inf, m.dtype.type(0), m)
    return _log(_exp(a - m) + _exp(b - m) + _exp(c - m)) + m


def _skips(extended: np.ndarray) -> np.ndarray:
    """Whether state s may come from s - 2: its label differs from the one two before."""
    allowed = np.zeros(extended.size, bool)
    allowed[2:] = extended[2:] != extended[:-2]
    return allowed


def _alphas(lp: np.ndarray, extended: np.ndarray, length: int, width: int) -> np.ndarray:
    """log_alpha of one sample, (time, width), -inf beyond its states."""
    kind = lp.dtype.type
    alpha = np.full((lp.shape[0], width), -np.inf, lp.dtype)
    if length == 0:
        return alpha
    states = extended.size
    alpha[0, 0] = lp[0, extended[0]]
    if states > 1:
        alpha[0, 1] = lp[0, extended[1]]
    skips = _skips(extended)
    neg = np.full(states, -np.inf, lp.dtype)
    for t in range(1, length):
        previous = alpha[t - 1, :states]
        one_back = np.concatenate(([kind(-np.inf)], previous[:-1]))
        two_back = np.where(skips, np.concatenate(([kind(-np.inf)] * 2, previous[:-2]))[:states], neg)
        alpha[t, :states] = _log_add3(previous, one_back, two_back) + lp[t, extended]
    return alpha


def _neg_log_likelihood(alpha: np.ndarray, length: int, target_length: int) -> Any:
    kind = alpha.dtype.type
    if length == 0:
        return kind(-0.0) if target_length == 0 else kind(np.inf)
    if target_length == 0:
        return -alpha[length - 1, 0]
    l1, l2 = alpha[length - 1, 2 * target_length], alpha[length - 1, 2 * target_length - 1]
    m = max(l1, l2)
    m = kind(0) if m == -np.inf else m
    return -(_log(_exp(l1 - m) + _exp(l2 - m)) + m)


def _ctc_grad(grad: Tensor, log_probs: Tensor, targets: Tensor, input_lengths: list, target_lengths: list,
              result: Tensor, log_alpha: Tensor, blank: int, zero_infinity: bool) -> Tensor:
    """ATen's ctc_loss_backward_cpu: log(alpha * beta) collected per class in descending state
    order, then (exp(lp) - exp(collected + nll - lp)) * grad for each step of the input."""
    rows = _label_rows(log_probs, targets, input_lengths, target_lengths, blank)
    x = log_probs._data
    kind = x.dtype.type
    out = np.zeros(x.shape, x.dtype)
    for b, extended in enumerate(rows):
        length, target_length = input_lengths[b], target_lengths[b]
        nll = result._data.reshape(-1)[b]
        if zero_infinity and nll == np.inf:
            continue
        lp, alpha = x[:, b, :], log_alpha._data[b]
        states = extended.size
        collected = np.full(lp.shape, -np.inf, x.dtype)
        beta = np.full((lp.shape[0], states), -np.inf, x.dtype)
        if length > 0:
            last = length - 1
            beta[last, states - 1] = lp[last, blank]
            collected[last, blank] = alpha[last, states - 1] + beta[last, states - 1]
            if target_length > 0:
                label = extended[states - 2]
                beta[last, states - 2] = lp[last, label]
                collected[last, label] = alpha[last, states - 2] + beta[last, states - 2]
        skips = np.concatenate((_skips(extended)[2:], [False, False]))  # whether s + 2 may come from s
        for t in range(length - 2, -1, -1):
            following = beta[t + 1]
            one_on = np.concatenate((following[1:], [kind(-np.inf)]))
            two_on = np.where(skips, np.concatenate((following[2:], [kind(-np.inf)] * 2)), kind(-np.inf))
            beta[t] = _log_add3(following, one_on, two_on) + lp[t, extended]
            for s in range(states - 1, -1, -1):
                both = alpha[t, s] + beta[t, s]
                label = extended[s]
                current = collected[t, label]
                if current == -np.inf:
                    collected[t, label] = both
                else:
                    m = max(current, both)
                    collected[t, label] = _log(_exp(current - m) + _exp(both - m)) + m
        g = grad._data.reshape(-1)[b] if grad.ndim else grad._data
        out[:length, b, :] = (_exp(lp[:length]) - _exp(collected[:length] + nll - lp[:length])) * g
    return Tensor._make(out, log_probs._dtype)


CTC_LOSS = node("CtcLossBackward0", ("log_probs",), jvp=unsupported("_ctc_loss"), saved=("blank", "zero_infinity"),
                saved_tensors=("targets", "log_alpha"),
                log_probs=lambda grad, log_probs, targets, input_lengths, target_lengths, result, log_alpha, blank,
                zero_infinity: _ctc_grad(grad, log_probs, targets, input_lengths, target_lengths, result, log_alpha,
                                         blank, zero_infinity))


def _ctc_loss(log_probs: Tensor, targets: Tensor, input_lengths: list, target_lengths: list, blank: int,
              zero_infinity: bool) -> Tensor:
    """The negative log likelihood of each sample (ATen's _ctc_loss), log_probs of (time, batch, classes)."""
    rows = _label_rows(log_probs, targets, input_lengths, target_lengths, blank)
    x = log_probs._data
    width = 2 * (int(max(target_lengths, default=0)) if targets.ndim == 1 else targets.shape[1]) + 1
    alphas = np.full((len(rows), x.shape[0], width), -np.inf, x.dtype)
    losses = np.zeros(len(rows), x.dtype)
    for b, extended in enumerate(rows):
        alphas[b] = _alphas(x[:, b, :], extended, input_lengths[b], width)
        losses[b] = _neg_log_likelihood(alphas[b], input_lengths[b], target_lengths[b])
    return record(CTC_LOSS, (log_probs,), losses, log_probs._dtype, targets=targets, input_lengths=input_lengths,
                  target_lengths=target_lengths, blank=blank, zero_infinity=zero_infinity,
                  log_alpha=Tensor._make(alphas, log_probs._dtype))


@op(method=False, nodes=(CTC_LOSS,))
def ctc_loss(log_probs: Tensor, targets: Tensor, input_lengths: Any, target_lengths: Any, blank: int = 0,
             reduction: int = MEAN, zero_infinity: bool = False) -> Tensor:
    """ATen's ctc_loss: _ctc_loss per sample (log_probs of (time, batch, classes), or (time,
    classes) unbatched), infinities zeroed if asked, then the mean of the losses divided by the
    target lengths (at least 1), or their sum."""
    if log_probs.dtype.category != dtypes.FLOATING:
        raise not_implemented_for("ctc_loss_cpu", log_probs.dtype)
    input_lengths = _lengths(input_lengths, "input_lengths")
    target_lengths = _lengths(target_lengths, "target_lengths")
    batched = log_probs.ndim == 3
    loss = _ctc_loss(log_probs if batched else log_probs.unsqueeze(1), targets.long(), input_lengths, target_lengths,
                     blank, zero_infinity)
    if zero_infinity:
        loss = where(loss == math.inf, zeros((), dtype=loss.dtype), loss)
    if reduction == MEAN:
        lengths = Tensor._make(np.maximum(np.asarray(target_lengths, np.int64), 1).astype(loss._dtype._numpy),
                               loss._dtype)
        return (loss / lengths).mean()
    if reduction == SUM:
        return loss.sum()
    return loss if batched else loss.squeeze(0)


__all__ = ["ctc_loss"]
