"""Numerical gradient checks of every differentiable operation, as torch.autograd.gradcheck and
gradgradcheck do them: float64 inputs, central finite differences (eps 1e-6) against the
Jacobian that gradcalc's autograd computes (atol 1e-5, rtol 1e-3).

Fixed cases cover each op (and each way of reaching it: functions, methods, operators, in-place
forms, views) on broadcast, non-contiguous and 0-dim inputs; hypothesis draws random shapes and
values for the element-wise, reduction and matmul families. A coverage test makes sure every
node declared in the op registry is reached by some check, so a new op cannot go unchecked.
"""
from __future__ import annotations

import re
import subprocess
import sys
import textwrap
import weakref
from types import SimpleNamespace
from typing import Callable

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from gradcheck import (LAYOUTS, Case, Input, away_from_zero, bool_tensor, constant, distinct, first_derivatives, gradcheck,
                       gradgradcheck, jvpcheck, long_tensor, make_leaf, nonleaf, outputs_of, rand, seeded)
from breadth_cases import BREADTH_CASES
from nn_cases_gradcheck import NN_CASES
from gradcalc.display.names import type_name
from gradcalc.autograd import api, dtypes, random
from gradcalc.autograd.ops import creation, registry, torch_namespaces
from gradcalc.autograd.tensor import Tensor
from gradcalc.nn import functional as NF

F = SimpleNamespace(**torch_namespaces()["torch"])  # torch's functions, as programs call them
HYPOTHESIS = settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])


# ------------------------------------------------------------------ the case table


def _setitem(target: Tensor, index: object, value: object) -> Tensor:
    target[index] = value
    return target


def _iadd(target: Tensor, value: Tensor) -> Tensor:
    target += value
    return target


def _imul(target: Tensor, value: Tensor) -> Tensor:
    target *= value
    return target


def _itruediv(target: Tensor, value: Tensor) -> Tensor:
    target /= value
    return target


def _isub_scalar(target: Tensor) -> Tensor:
    target -= 0.5
    return target


def _ipow(target: Tensor) -> Tensor:
    target **= 3
    return target


def _inplace_through_view(x: Tensor, w: Tensor) -> list:
    y = nonleaf(x)
    row = y[1]
    row.mul_(w)
    # row's history is now a strided view of y's CopySlices: both must differentiate
    return [y, row * 2]


def _inplace_through_view_of_view(x: Tensor, w: Tensor) -> Tensor:
    y = nonleaf(x)
    y[1:][0].add_(w, alpha=3)
    return y.exp()


def _inplace_through_transpose(x: Tensor, w: Tensor) -> Tensor:
    y = nonleaf(x)
    y.t().mul_(w)
    return y


def _inplace_after_use(x: Tensor) -> Tensor:
    # y feeds v before it changes in place; no op saved y, so the graph stays valid and v must
    # still differentiate through y's old value
    y = x.sin()
    v = y + 1
    y.mul_(3)
    return y * v


def _copy_then_setitem(x: Tensor, v: Tensor, w: Tensor) -> Tensor:
    y = nonleaf(x)
    y[0] = v
    y[:, 1] = 3.0
    y[[1, 2, 0], [0, 2, 1]] = w
    return y * x


def _fill_then_use(x: Tensor) -> Tensor:
    y = nonleaf(x)
    y[0].fill_(2.0)
    y[1].zero_()
    return y * x


def _fill_with_tensor(x: Tensor, v: Tensor) -> Tensor:
    y = nonleaf(x)
    y.fill_(v)
    return y * x


def _setitem_mask(x: Tensor, v: Tensor) -> Tensor:
    y = nonleaf(x)
    y[y > 0] = v.sum() * 0.5
    return y


def _setitem_long_index(x: Tensor, v: Tensor) -> Tensor:
    y = nonleaf(x)
    y[long_tensor([2, 0])] = v
    return y


def _reshape_uncopyable(x: Tensor) -> Tensor:
    out = x.t().reshape(-1)
    assert out.grad_fn.name() == "UnsafeViewBackward0"  # reshape of a transposed matrix copies
    return out


def _iterate_rows(x: Tensor) -> Tensor:
    return F.stack([row * (i + 1) for i, row in enumerate(x)])


def _unbind(x: Tensor) -> list:
    first, second = x.unbind(1)[:2]
    return [first, second.exp()]


def _max_dim(x: Tensor, dim: int, keepdim: bool) -> Tensor:
    return x.max(dim, keepdim=keepdim).values


def _min_dim(x: Tensor, dim: int, keepdim: bool) -> Tensor:
    return F.min(x, dim, keepdim).values


CASES = [
    # arithmetic: operators, methods and functions, broadcasting, scalars, 0-dim tensors
    Case("add broadcast", lambda x, y: x + y, [rand(2, 3), rand(3, seed=1)], True),
    Case("add alpha", lambda x, y: F.add(x, y, alpha=-1.5), [rand(2, 1), rand(1, 3, seed=1)], True),
    Case("add scalar", lambda x: 2.5 + x, [rand(3)], True),
    Case("add 0-dim", lambda x, y: x + y, [rand(), rand(2, 2, seed=1)], True),
    Case("sub broadcast", lambda x, y: x - y, [rand(3, 1), rand(4, seed=1)], True),
    Case("sub alpha", lambda x, y: x.sub(y, alpha=2), [rand(2, 3), rand(2, 3, seed=1)], True),
    Case("rsub scalar", lambda x: 1.5 - x, [rand(2, 2)], True),
    Case("rsub alpha", lambda x: F.rsub(x, 2.0, alpha=3), [rand(3)], True),
    Case("rsub tensor", lambda x, y: F.rsub(x, y), [rand(3), rand(2, 3, seed=1)], True),
    Case("mul broadcast", lambda x, y: x * y, [rand(2, 1, 3), rand(4, 1, seed=1)], True),
    Case("mul self", lambda x: x * x, [rand(2, 2)], True),
    Case("mul scalar", lambda x: x.mul(-3.0), [rand(3)], True),
    Case("mul 0-dim", lambda x, y: F.mul(x, y), [rand(), rand(seed=1)], True),
    Case("div broadcast", lambda x, y: x / y, [rand(2, 3), away_from_zero(2, 1, seed=1)], True),
    Case("div scalar", lambda x: x.div(4.0), [rand(3)], True),
    Case("rdiv scalar", lambda x: 2.0 / x, [away_from_zero(2, 2)], True),
    Case("neg", lambda x: -x, [rand(2, 3)], True),
    Case("neg method", lambda x: x.negative(), [rand()], True),
    Case("reciprocal", lambda x: x.reciprocal(), [away_from_zero(2, 3)], True),
    Case("pow int", lambda x: x ** 3, [rand(2, 3)], True),
    Case("pow negative int", lambda x: x.pow(-2), [away_from_zero(3)], True),
    Case("pow fraction", lambda x: x ** 1.5, [rand(2, 2, low=0.3)], True),
    Case("pow zero", lambda x: x ** 0, [rand(3)], True),
    Case("pow tensor", lambda x, y: x ** y, [rand(2, 3, low=0.3), rand(3, seed=1)], True),
    Case("pow tensor 0-dim exponent", lambda x, y: F.pow(x, y), [rand(4, low=0.3), rand(seed=1)], True),
    Case("pow tensor zero base", lambda x, y: x ** y, [np.array([0.0, 1.5, 0.0]), np.array([2.0, 1.3, 3.0])]),
    Case("pow scalar base", lambda x: 2.0 ** x, [rand(2, 3)], True),
    Case("pow scalar base function", lambda x: F.pow(0.5, x), [rand(3)], True),
    # first order only: PyTorch's second derivative at base 0 is NaN (0 * log 0), as gradcalc's
    Case("pow zero base", lambda x: 0.0 ** x, [rand(3, low=0.5)]),
    Case("remainder", lambda x, y: x % y, [np.array([[2.3, -1.7, 0.4], [5.2, -3.1, 1.1]]),
                                         np.array([1.5, 0.7, -0.9])], True),
    Case("remainder scalar", lambda x: x.remainder(0.8), [np.array([2.3, -1.7, 0.5])], True),
    # element-wise functions (random shapes and values in test_unary below)
    Case("exp", lambda x: F.exp(x), [rand(2, 3)], True),
    Case("log", lambda x: x.log(), [rand(2, 3, low=0.3)], True),
    Case("log2", lambda x: x.log2(), [rand(3, low=0.3)], True),
    Case("log10", lambda x: F.log10(x), [rand(3, low=0.3)], True),
    Case("log1p", lambda x: x.log1p(), [rand(3, low=-0.5)], True),
    Case("expm1", lambda x: x.expm1(), [rand(3)], True),
    Case("sin", lambda x: x.sin(), [rand(2, 3)], True),
    Case("cos", lambda x: x.cos(), [rand(2, 3)], True),
    Case("tan", lambda x: x.tan(), [rand(3, low=-1.2, high=1.2)], True),
    Case("tanh", lambda x: x.tanh(), [rand(3)], True),
    Case("sigmoid", lambda x: x.sigmoid(), [rand(3)], True),
    Case("sqrt", lambda x: x.sqrt(), [rand(3, low=0.3)], True),
    Case("rsqrt", lambda x: x.rsqrt(), [rand(3, low=0.3)], True),
    Case("abs", lambda x: x.abs(), [away_from_zero(2, 3)], True),
    Case("abs at zero", lambda x: abs(x), [np.array([0.0, -1.0, 2.0])]),
    Case("relu", lambda x: x.relu(), [away_from_zero(2, 3)], True),
    Case("asin", lambda x: x.asin(), [rand(3, low=-0.9, high=0.9)], True),
    Case("acos", lambda x: x.acos(), [rand(3, low=-0.9, high=0.9)], True),
    Case("atan", lambda x: x.atan(), [rand(3)], True),
    Case("sinh", lambda x: x.sinh(), [rand(3)], True),
    Case("cosh", lambda x: x.cosh(), [rand(3)], True),
    Case("clamp", lambda x: x.clamp(-0.5, 0.7), [np.array([-1.2, -0.3, 0.1, 0.6, 1.5])], True),
    Case("clamp min", lambda x: x.clamp_min(0.2), [np.array([-1.2, 0.1, 0.6])], True),
    Case("clamp max", lambda x: F.clamp(x, max=0.2), [np.array([-1.2, 0.1, 0.6])], True),
    Case("clamp tensors", lambda x, low, high: F.clamp(x, low, high),
         [np.array([[-1.0, 0.1, 2.0], [0.5, 1.7, -0.2]]), np.array([-0.5, 0.3, 1.5]), np.array([[0.8], [1.0]])], True),
    Case("clamp tensor min", lambda x, low: x.clamp(min=low), [np.array([-1.0, 0.1, 2.0]), np.array([0.5])], True),
    Case("clamp_max tensor", lambda x, high: x.clamp_max(high), [np.array([-1.0, 0.1, 2.0]), np.array([0.5])], True),
    Case("clamp_ tensors", lambda x, low, high: nonleaf(x).clamp_(low, high),
         [np.array([-1.0, 0.1, 2.0]), np.array([-0.5, 0.3, 1.5]), np.array([0.8, 1.0, 1.0])], True),
    Case("where", lambda x, y: F.where(bool_tensor([[True, False, True]]), x, y),
         [rand(2, 3), rand(2, 1, seed=1)], True),
    Case("where scalar", lambda x: F.where(x > 0, x, 0.0), [away_from_zero(2, 3)], True),
    Case("masked_fill", lambda x: x.masked_fill(bool_tensor([[True, False, True]]), 2.0), [rand(2, 3)], True),
    Case("masked_fill tensor", lambda x, v: x.masked_fill(bool_tensor([[False, True, True]]), v), [rand(2, 3), rand()],
         True),
    Case("maximum", lambda x, y: F.maximum(x, y), [distinct(2, 3), distinct(3, seed=1) + 0.05], True),
    Case("minimum", lambda x, y: x.minimum(y), [distinct(2, 3), distinct(2, 1, seed=1) + 0.05], True),
    # reductions
    Case("sum", lambda x: x.sum(), [rand(2, 3)], True),
    Case("sum 0-dim", lambda x: F.sum(x), [rand()], True),
    Case("sum dim", lambda x: x.sum(1), [rand(2, 3, 2)], True),
    Case("sum negative dim keepdim", lambda x: x.sum(-1, keepdim=True), [rand(2, 3)], True),
    Case("sum dims", lambda x: x.sum((0, 2)), [rand(2, 3, 2)], True),
    Case("sum dims keepdim", lambda x: x.sum(dim=[0, -1], keepdim=True), [rand(2, 3, 2)], True),
    Case("sum dim 0-dim", lambda x: x.sum(0), [rand()], True),
    Case("sum dtype", lambda x: x.float().sum(1, dtype=dtypes.float64), [rand(2, 3)], options=dict(eps=1e-3)),
    Case("mean", lambda x: x.mean(), [rand(2, 3)], True),
    Case("mean dim 0-dim", lambda x: x.mean(-1, keepdim=True), [rand()], True),
    Case("prod dim 0-dim", lambda x: x.prod(0), [rand()], True),
    Case("amax dim 0-dim", lambda x: x.amax(0), [rand()], True),
    Case("mean dim", lambda x: x.mean(0), [rand(2, 3)], True),
    Case("mean dims keepdim", lambda x: F.mean(x, (1, 2), True), [rand(2, 3, 2)], True),
    Case("prod", lambda x: x.prod(), [rand(2, 3, low=0.5)], True),
    Case("prod negative", lambda x: x.prod(), [away_from_zero(4)], True),
    Case("prod one zero", lambda x: x.prod(), [np.array([[1.5, 0.0], [-2.0, 0.7]])], True),
    Case("prod two zeros", lambda x: x.prod(), [np.array([1.5, 0.0, -2.0, 0.0])], True),
    Case("prod dim", lambda x: x.prod(1), [rand(2, 3)], True),
    Case("prod dim keepdim with zero", lambda x: F.prod(x, 0, True), [np.array([[0.0, 2.0], [1.5, -1.0]])], True),
    Case("max", lambda x: x.max(), [distinct(2, 3)], True),
    Case("min", lambda x: F.min(x), [distinct(2, 3)], True),
    Case("max 0-dim", lambda x: x.max(), [rand()], True),
    Case("max dim", lambda x: _max_dim(x, 1, False), [distinct(2, 3)], True),
    Case("max dim keepdim", lambda x: _max_dim(x, 0, True), [distinct(2, 3)], True),
    Case("max dim 0-dim", lambda x: _max_dim(x, 0, False), [rand()], True),
    Case("min dim", lambda x: _min_dim(x, -1, False), [distinct(3, 2)], True),
    Case("min dim keepdim", lambda x: _min_dim(x, 1, True), [distinct(2, 2, 3)], True),
    Case("amax", lambda x: x.amax(), [distinct(2, 3)], True),
    Case("amax dims", lambda x: x.amax((0, 2)), [distinct(2, 3, 2)], True),
    Case("amin dim keepdim", lambda x: F.amin(x, 1, keepdim=True), [distinct(2, 3)], True),
    # linear algebra
    Case("dot", lambda x, y: F.dot(x, y), [rand(4), rand(4, seed=1)], True),
    Case("mv", lambda x, y: x.mv(y), [rand(2, 3), rand(3, seed=1)], True),
    Case("mm", lambda x, y: F.mm(x, y), [rand(2, 3), rand(3, 4, seed=1)], True),
    Case("mm transposed", lambda x, y: x.t().mm(y), [rand(3, 2), rand(3, 2, seed=1)], True),
    Case("bmm", lambda x, y: x.bmm(y), [rand(2, 2, 3), rand(2, 3, 2, seed=1)], True),
    Case("addmm", lambda b, x, y: F.addmm(b, x, y), [rand(2, 4), rand(2, 3, seed=1), rand(3, 4, seed=2)], True),
    Case("addmm broadcast bias", lambda b, x, y: F.addmm(b, x, y),
         [rand(4), rand(2, 3, seed=1), rand(3, 4, seed=2)], True),
    Case("matmul 1d 1d", lambda x, y: x @ y, [rand(3), rand(3, seed=1)], True),
    Case("matmul 2d 1d", lambda x, y: x @ y, [rand(2, 3), rand(3, seed=1)], True),
    Case("matmul 1d 2d", lambda x, y: x @ y, [rand(3), rand(3, 2, seed=1)], True),
    Case("matmul 2d 2d", lambda x, y: x.matmul(y), [rand(2, 3), rand(3, 2, seed=1)], True),
    Case("matmul 3d 1d", lambda x, y: x @ y, [rand(2, 2, 3), rand(3, seed=1)], True),
    Case("matmul 3d 2d", lambda x, y: x @ y, [rand(2, 2, 3), rand(3, 2, seed=1)], True),
    Case("matmul 1d 3d", lambda x, y: x @ y, [rand(3), rand(2, 3, 2, seed=1)], True),
    Case("matmul 2d 3d", lambda x, y: F.matmul(x, y), [rand(2, 3), rand(2, 3, 2, seed=1)], True),
    Case("matmul batched", lambda x, y: x @ y, [rand(2, 2, 3), rand(2, 3, 2, seed=1)], True),
    Case("matmul broadcast batch", lambda x, y: x @ y, [rand(2, 1, 2, 3), rand(3, 3, 2, seed=1)], True),
    Case("matmul non-contiguous", lambda x, y: x @ y,
         [Input(rand(2, 3, 3), "transposed"), Input(rand(3, 2, seed=1), "strided")], True),
    # copies and dtype changes
    Case("clone", lambda x: x.clone(), [rand(2, 3)], True),
    Case("to copy", lambda x: x.to(dtypes.float64, copy=True), [rand(3)], True),
    Case("to float32", lambda x: x.to(dtypes.float32) * 3, [rand(3)], options=dict(eps=1e-3)),
    Case("float then double", lambda x: (x.float() * x.float()).double(), [rand(3)], options=dict(eps=1e-3)),
    # views and shapes
    Case("view", lambda x: x.view(3, 2), [rand(2, 3)], True),
    Case("view inferred", lambda x: x.view(-1), [rand(2, 3)], True),
    Case("view 0-dim", lambda x: x.view(1, 1), [rand()], True),
    Case("reshape", lambda x: x.reshape(3, 2), [rand(2, 3)], True),
    Case("reshape non-viewable", _reshape_uncopyable, [rand(2, 3)], True),
    Case("view_as reshape_as", lambda x, y: x.view_as(y) * y.reshape_as(x).t(), [rand(2, 3), rand(3, 2, seed=1)]),
    Case("flatten", lambda x: x.flatten(), [rand(2, 3, 2)], True),
    Case("flatten range", lambda x: F.flatten(x, 1, 2), [rand(2, 3, 2)], True),
    Case("flatten 0-dim", lambda x: x.flatten(), [rand()], True),
    Case("t", lambda x: x.t(), [rand(2, 3)], True),
    Case("t 1d", lambda x: F.t(x), [rand(3)], True),
    Case("transpose", lambda x: x.transpose(0, -1), [rand(2, 3, 2)], True),
    Case("permute", lambda x: x.permute(2, 0, 1), [rand(2, 3, 4)], True),
    Case("permute tuple", lambda x: F.permute(x, (1, 2, 0)), [rand(2, 3, 2)], True),
    Case("T", lambda x: x.T, [rand(2, 3)], True),
    Case("unsqueeze", lambda x: x.unsqueeze(1), [rand(2, 3)], True),
    Case("unsqueeze negative", lambda x: F.unsqueeze(x, -1), [rand(2)], True),
    Case("squeeze", lambda x: x.squeeze(), [rand(2, 1, 3, 1)], True),
    Case("squeeze dim", lambda x: x.squeeze(1), [rand(2, 1, 3)], True),
    Case("squeeze non-unit dim", lambda x: x.squeeze(0), [rand(2, 1)], True),
    Case("squeeze dims", lambda x: x.squeeze((1, 3)), [rand(2, 1, 3, 1)], True),
    Case("expand", lambda x: x.expand(2, 3, 4), [rand(3, 1)], True),
    Case("expand -1", lambda x: x.expand(-1, 3), [rand(2, 1)], True),
    Case("expand same", lambda x: x.expand(2, 3), [rand(2, 3)], True),
    Case("expand 0-dim", lambda x: x.expand(2, 3), [rand()], True),
    Case("expand_as", lambda x, y: x.expand_as(y) * y, [rand(1, 3), rand(2, 3, seed=1)], True),
    Case("expanded input", lambda x, y: x.expand(2, 3).mm(y), [rand(3), rand(3, 2, seed=1)], True),
    Case("sum_to_size", lambda x: x.sum_to_size(1, 3), [rand(2, 3)], True),
    Case("narrow", lambda x: x.narrow(1, 1, 2), [rand(2, 4)], True),
    Case("narrow function", lambda x: F.narrow(x, 0, 0, 1), [rand(2, 4)], True),
    Case("select", lambda x: x.select(1, -1), [rand(2, 3)], True),
    Case("index int", lambda x: x[1], [rand(3, 2)], True),
    Case("index ints", lambda x: x[1, -1], [rand(3, 2)], True),
    Case("slice", lambda x: x[1:], [rand(3, 2)], True),
    Case("slice step", lambda x: x[:, ::2], [rand(2, 5)], True),
    Case("slice negative", lambda x: x[-2:, 1:-1], [rand(3, 4)], True),
    Case("slice ellipsis", lambda x: x[..., 1], [rand(2, 2, 3)], True),
    Case("slice alias", lambda x: x[...], [rand(2, 2)], True),
    Case("index none", lambda x: x[None, :, None], [rand(3)], True),
    Case("index list", lambda x: x[[2, 0]], [rand(3, 2)], True),
    Case("index repeated", lambda x: x[[0, 2, 0, 0]], [rand(3, 2)], True),
    Case("index negative", lambda x: x[[-1, 0, -1]], [rand(3, 2)], True),
    Case("index split by slice", lambda x: x[[0, 1, 1], :, [1, 0, 2]], [rand(2, 2, 3)], True),
    Case("index long tensor", lambda x: x[:, long_tensor([[1, 0], [1, 1]])], [rand(2, 3)], True),
    Case("index two lists", lambda x: x[[0, 1, 1], [2, 0, 2]], [rand(2, 3)], True),
    Case("index bool mask", lambda x: x[bool_tensor([[True, False, True], [False, False, True]])], [rand(2, 3)], True),
    Case("index bool rows", lambda x: x[bool_tensor([False, True, True])], [rand(3, 2)], True),
    Case("index computed mask", lambda x: x[x > 0], [away_from_zero(2, 3)], True),
    Case("index 0-dim long", lambda x: x[long_tensor(1)], [rand(3)], True),
    Case("iterate rows", _iterate_rows, [rand(3, 2)], True),
    Case("unbind", _unbind, [rand(2, 3)], True),
    Case("split", lambda x: x.split(2, dim=1), [rand(2, 5)], True),
    Case("split one used", lambda x: x.split(1)[1], [rand(3, 2)], True),
    Case("split sizes", lambda x: F.split(x, [1, 3], -1), [rand(2, 4)], True),
    # joining and gathering
    Case("stack", lambda x, y: F.stack([x, y, x]), [rand(2, 3), rand(2, 3, seed=1)], True),
    Case("stack dim", lambda x, y: F.stack((x, y), dim=-1), [rand(2, 3), rand(2, 3, seed=1)], True),
    Case("stack 0-dim", lambda x, y: F.stack([x, y]), [rand(), rand(seed=1)], True),
    Case("cat", lambda x, y: F.cat([x, y]), [rand(2, 3), rand(1, 3, seed=1)], True),
    Case("cat dim", lambda x, y: F.cat([x, y, x], dim=1), [rand(2, 3), rand(2, 1, seed=1)], True),
    Case("cat empty", lambda x, y: F.cat([x, y]), [rand(0), rand(3, seed=1)], True),
    Case("cat constant first", lambda x: F.cat([constant(rand(2, 2, seed=1)), x, x]), [rand(1, 2)], True),
    Case("stack constant first", lambda x: F.stack([constant(rand(3, seed=1)), x]), [rand(3)], True),
    Case("gather", lambda x: x.gather(1, long_tensor([[0, 0, 2], [1, 2, 1]])), [rand(2, 3)], True),
    Case("gather dim 0", lambda x: F.gather(x, 0, long_tensor([[1, 0], [1, 1], [0, 1]])), [rand(2, 2)], True),
    # losses
    Case("mse_loss", lambda x, y: NF.mse_loss(x, y), [rand(2, 3), rand(2, 3, seed=1)], True),
    Case("mse_loss sum", lambda x, y: NF.mse_loss(x, y, reduction="sum"), [rand(3), rand(3, seed=1)], True),
    Case("mse_loss none", lambda x, y: NF.mse_loss(x, y, reduction="none"), [rand(3), rand(3, seed=1)], True),
    Case("mse_loss 0-dim", lambda x, y: NF.mse_loss(x, y), [rand(), rand(seed=1)], True),
    Case("l1_loss", lambda x, y: NF.l1_loss(x, y), [rand(2, 3), rand(2, 3, seed=1) + 4.5], True),
    Case("l1_loss sum", lambda x, y: NF.l1_loss(x, y, reduction="sum"), [rand(3), rand(3, seed=1) - 4.5], True),
    Case("l1_loss none", lambda x, y: NF.l1_loss(x, y, reduction="none"), [rand(3), rand(3, seed=1) + 4.5], True),
    # torch.nn.functional
    Case("softmax", lambda x: NF.softmax(x, dim=-1), [rand(2, 3)], True),
    Case("softmax dim 0", lambda x: NF.softmax(x, 0), [rand(3, 2)], True),
    Case("softmax 0-dim", lambda x: NF.softmax(x, 0), [rand()], True),
    Case("log_softmax", lambda x: NF.log_softmax(x, dim=1), [rand(2, 3)], True),
    Case("log_softmax dim 0", lambda x: NF.log_softmax(x, 0), [rand(3, 2, 2)], True),
    Case("leaky_relu", lambda x: NF.leaky_relu(x, 0.1), [away_from_zero(2, 3)], True),
    Case("leaky_relu inplace", lambda x: NF.leaky_relu(nonleaf(x), 0.2, inplace=True), [away_from_zero(3)], True),
    Case("relu functional", lambda x: NF.relu(nonleaf(x), inplace=True), [away_from_zero(3)], True),
    Case("linear 1d", lambda x, w: NF.linear(x, w), [rand(3), rand(2, 3, seed=1)], True),
    Case("linear 1d bias", lambda x, w, b: NF.linear(x, w, b), [rand(3), rand(2, 3, seed=1), rand(2, seed=2)], True),
    Case("linear 2d bias", lambda x, w, b: NF.linear(x, w, b), [rand(4, 3), rand(2, 3, seed=1), rand(2, seed=2)],
         True),
    Case("linear 3d bias", lambda x, w, b: NF.linear(x, w, b),
         [rand(2, 2, 3), rand(2, 3, seed=1), rand(2, seed=2)], True),
    Case("linear 3d non-contiguous", lambda x, w, b: NF.linear(x, w, b),
         [Input(rand(2, 3, 3), "transposed"), rand(2, 3, seed=1), rand(2, seed=2)], True),
    Case("mse_loss functional", lambda x, y: NF.mse_loss(x, y), [rand(2, 3), rand(2, 3, seed=1)], True),
    Case("mse_loss functional none", lambda x, y: NF.mse_loss(x, y, reduction="none"), [rand(3), rand(3, seed=1)],
         True),
    Case("l1_loss functional", lambda x, y: NF.l1_loss(x, y, reduction="sum"), [rand(3), rand(3, seed=1) + 4.5],
         True),
    # the ops that backward formulas record, called directly
    Case("scatter", lambda x, y: F.scatter(x, 1, long_tensor([[0, 2], [1, 0]]), y), [rand(2, 3), rand(2, 2, seed=1)],
         True),
    Case("scatter value", lambda x: F.scatter(x, 1, long_tensor([[0], [2]]), 1.5) * x, [rand(2, 3)], True),
    Case("scatter_add", lambda x, y: F.scatter_add(x, 0, long_tensor([[1, 0, 1], [1, 1, 0]]), y),
         [rand(2, 3), rand(2, 3, seed=1)], True),
    Case("index_put", lambda x, y: F.index_put(x, (long_tensor([2, 0]),), y, False), [rand(3, 2), rand(2, 2, seed=1)],
         True),
    Case("index_put accumulate", lambda x, y: F.index_put(x, (long_tensor([2, 0, 2]), long_tensor([1, 1, 1])), y, True),
         [rand(3, 2), rand(3, seed=1)], True),
    # assignment and in-place operations on non-leaves, directly and through views
    Case("setitem", lambda x, v: _setitem(nonleaf(x), 1, v), [rand(3, 2), rand(2, seed=1)], True),
    Case("setitem broadcast", lambda x, v: _setitem(nonleaf(x), (slice(None), 0), v), [rand(3, 2), rand(1, seed=1)],
         True),
    Case("setitem scalar", lambda x: _setitem(nonleaf(x), (slice(0, 2), 1), 5.0) * x, [rand(3, 2)], True),
    Case("setitem sequence", _copy_then_setitem, [rand(3, 3), rand(3, seed=1), rand(3, seed=2)], True),
    Case("setitem mask", _setitem_mask, [away_from_zero(2, 3), rand(2, seed=1)], True),
    Case("setitem long tensor", _setitem_long_index, [rand(3, 2), rand(2, 2, seed=1)], True),
    Case("copy_", lambda x, v: nonleaf(x).copy_(v) * x, [rand(2, 3), rand(3, seed=1)], True),
    Case("fill_", _fill_then_use, [rand(3, 2)], True),
    Case("fill_ tensor", _fill_with_tensor, [rand(3), rand(seed=1)], True),
    Case("add_", lambda x, w: nonleaf(x).add_(w, alpha=2) * x, [rand(2, 3), rand(3, seed=1)], True),
    Case("sub_", lambda x, w: nonleaf(x).sub_(w), [rand(2, 3), rand(2, 3, seed=1)], True),
    Case("mul_", lambda x, w: nonleaf(x).mul_(w), [rand(2, 3), rand(2, 1, seed=1)], True),
    Case("div_", lambda x, w: nonleaf(x).div_(w), [rand(2, 3), away_from_zero(3, seed=1)], True),
    Case("pow_", lambda x: nonleaf(x).pow_(2), [rand(2, 3)], True),
    Case("exp_", lambda x: nonleaf(x).exp_(), [rand(3)], True),
    Case("sigmoid_", lambda x: nonleaf(x).sigmoid_(), [rand(3)], True),
    Case("tanh_", lambda x: nonleaf(x).tanh_(), [rand(3)], True),
    Case("relu_", lambda x: nonleaf(x).relu_(), [away_from_zero(3)], True),
    Case("clamp_", lambda x: nonleaf(x).clamp_(min=-0.5), [np.array([-1.0, 0.0, 1.0])], True),
    Case("neg_ mul_ add_ log_", lambda x: nonleaf(x).neg_().mul_(2).add_(7).log_(), [rand(3)], True),
    Case("iadd", lambda x, w: _iadd(nonleaf(x), w), [rand(2, 3), rand(3, seed=1)], True),
    Case("imul", lambda x, w: _imul(nonleaf(x), w), [rand(2, 3), rand(3, seed=1)], True),
    Case("itruediv", lambda x, w: _itruediv(nonleaf(x), w), [rand(3), away_from_zero(3, seed=1)], True),
    Case("isub scalar", lambda x: _isub_scalar(nonleaf(x)), [rand(3)], True),
    Case("ipow", lambda x: _ipow(nonleaf(x)), [rand(3)], True),
    Case("in-place through view", _inplace_through_view, [rand(3, 2), rand(2, seed=1)], True),
    Case("in-place through view of view", _inplace_through_view_of_view, [rand(3, 2), rand(2, seed=1)], True),
    Case("in-place through transpose", _inplace_through_transpose, [rand(2, 3), rand(2, seed=1)], True),
    Case("in-place after use", _inplace_after_use, [rand(3)], True),
]

# norms, spread, classification losses and rounding (the ops tutorials reach for)
CASES += [
    Case("norm", lambda x: x.norm(), [rand(2, 3)], True),
    Case("norm dim", lambda x: F.norm(x, dim=1), [rand(2, 3)], True),
    Case("norm dim keepdim", lambda x: x.norm(2, 0, True), [rand(3, 2)], True),
    Case("norm 1", lambda x: x.norm(1), [away_from_zero(2, 3)], True),
    Case("norm inf", lambda x: x.norm(float("inf"), dim=1), [distinct(2, 3)]),
    Case("norm 3", lambda x: x.norm(3), [away_from_zero(4)], True),
    Case("norm 1.5 dim", lambda x: x.norm(1.5, dim=0), [away_from_zero(3, 2)], True),
    Case("norm 0.5", lambda x: x.norm(0.5), [away_from_zero(3)], True),
    Case("std", lambda x: x.std(), [rand(2, 3)], True),
    Case("std dim keepdim", lambda x: x.std(1, keepdim=True), [rand(2, 3)], True),
    Case("std 1-d dim", lambda x: F.std(x, 0), [rand(4)], True),
    Case("var dim", lambda x: x.var(0), [rand(3, 2)], True),
    Case("var biased", lambda x: x.var(unbiased=False), [rand(2, 2)], True),
    Case("var correction dims", lambda x: F.var(x, (0, 2), correction=0), [rand(2, 3, 2)], True),
    Case("logsigmoid", lambda x: NF.logsigmoid(x), [rand(2, 3)], True),
    Case("binary_cross_entropy", lambda x, t: NF.binary_cross_entropy(x, t), [rand(2, 3, low=0.2, high=0.8),
                                                                           rand(2, 3, low=0.1, high=0.9, seed=1)], True),
    Case("binary_cross_entropy weight sum", lambda x: NF.binary_cross_entropy(
        x.sigmoid(), constant(rand(3, low=0.0, high=1.0, seed=1)), weight=constant(rand(3, low=0.5, seed=2)),
        reduction="sum"), [rand(3)], True),
    Case("binary_cross_entropy none", lambda x: NF.binary_cross_entropy(
        x, constant(np.array([0.0, 1.0, 0.3])), reduction="none"), [rand(3, low=0.2, high=0.8)], True),
    Case("binary_cross_entropy_with_logits", lambda x, t: NF.binary_cross_entropy_with_logits(x, t),
         [rand(2, 3), rand(2, 3, low=0.0, high=1.0, seed=1)], True),
    Case("binary_cross_entropy_with_logits pos_weight", lambda x, t: NF.binary_cross_entropy_with_logits(
        x, t, pos_weight=constant(np.array([2.0, 0.5, 1.5])), reduction="sum"),
         [rand(2, 3), rand(2, 3, low=0.0, high=1.0, seed=1)], True),
    Case("binary_cross_entropy_with_logits weight none", lambda x: NF.binary_cross_entropy_with_logits(
        x, constant(np.array([1.0, 0.0, 1.0])), weight=constant(np.array([0.5, 2.0, 1.0])), reduction="none"),
         [rand(3)], True),
    Case("nll_loss", lambda x: NF.nll_loss(x, long_tensor([2, 0])), [rand(2, 3)], True),
    Case("nll_loss weight ignore", lambda x: NF.nll_loss(x, long_tensor([2, 0, 1]), weight=constant(
        np.array([0.5, 2.0, 1.5])), ignore_index=0), [rand(3, 3)], True),
    Case("nll_loss none", lambda x: NF.nll_loss(x, long_tensor([1, 1]), reduction="none"), [rand(2, 3)], True),
    Case("nll_loss sum 1-d", lambda x: NF.nll_loss(x, long_tensor(2), reduction="sum"), [rand(3)], True),
    Case("cross_entropy", lambda x: NF.cross_entropy(x, long_tensor([0, 2, 1])), [rand(3, 3)], True),
    Case("cross_entropy probabilities", lambda x, t: NF.cross_entropy(x, t), [rand(2, 3), rand(2, 3, low=0.0,
                                                                                            high=1.0, seed=1)], True),
    Case("cross_entropy label smoothing", lambda x: NF.cross_entropy(x, long_tensor([1, 0]), label_smoothing=0.2),
         [rand(2, 3)], True),
    Case("cross_entropy label smoothing weight", lambda x: NF.cross_entropy(
        x, long_tensor([1, 0, 2]), weight=constant(np.array([0.5, 2.0, 1.5])), ignore_index=0, label_smoothing=0.3),
         [rand(3, 3)], True),
    # inputs of shape (N, C, d1, ...): nll_loss2d, directly (four dims) or through views
    Case("nll_loss 4-d", lambda x: NF.nll_loss(x, long_tensor([[[2, 0], [1, 1]], [[0, 2], [2, 1]]])),
         [rand(2, 3, 2, 2)], True),
    Case("nll_loss 4-d weight ignore sum", lambda x: NF.nll_loss(
        x, long_tensor([[[2, 0, 1]], [[1, 1, 0]]]), weight=constant(np.array([0.5, 2.0, 1.5])), ignore_index=0,
        reduction="sum"), [rand(2, 3, 1, 3)], True),
    Case("nll_loss 3-d none", lambda x: NF.nll_loss(x, long_tensor([[2, 0, 1, 1], [0, 2, 2, 1]]), reduction="none"),
         [Input(rand(2, 3, 4), "transposed")], True),
    Case("nll_loss 5-d mean", lambda x: NF.nll_loss(x, long_tensor([[[[1, 0]], [[0, 1]]]])), [rand(1, 2, 2, 1, 2)],
         True),
    Case("cross_entropy 4-d label smoothing weight none", lambda x: NF.cross_entropy(
        x, long_tensor([[[2, 0], [1, 1]]]), weight=constant(np.array([0.5, 2.0, 1.5])), label_smoothing=0.2,
        reduction="none"), [rand(1, 3, 2, 2)], True),
    Case("cross_entropy 3-d probabilities", lambda x, t: NF.cross_entropy(x, t),
         [rand(2, 3, 2), rand(2, 3, 2, low=0.0, high=1.0, seed=1)], True),
    Case("round floor ceil", lambda x: x.round() * x + x.floor() + F.ceil(x) * x, [np.array([0.2, 1.3, -0.7])], True),
    Case("round decimals", lambda x: F.round(x, decimals=1) * x, [np.array([0.123, 1.31, -0.77])], True),
    Case("sign sgn", lambda x: x.sign() * x + x.sgn() * x, [np.array([0.2, 1.3, -0.7])], True),
    Case("trunc frac", lambda x: x.trunc() * x + x.frac() * x, [np.array([0.2, 1.3, -1.7])], True),
    Case("cumsum", lambda x: x.cumsum(1) * x, [rand(2, 3)], True),
    Case("cumsum 0-dim", lambda x: F.cumsum(x, 0) * x, [rand()], True),
    Case("flip", lambda x: x.flip(0, -1) * x, [rand(2, 3)], True),
    Case("exp2 erf", lambda x: x.exp2() + F.erf(x) * x, [rand(2, 3)], True),
    Case("atan2", lambda x, y: F.atan2(x, y), [rand(2, 3), rand(3, seed=1)], True),
    Case("tril triu", lambda x: x.tril() * x + F.triu(x, 1), [rand(3, 3)], True),
    Case("roll", lambda x: x.roll((1, -1), (0, 1)) * x + x.roll(2), [rand(2, 3)], True),
    Case("repeat", lambda x: x.repeat(2, 1, 2) * 1.5, [rand(2, 3)], True),
    Case("logsumexp", lambda x: x.logsumexp(1) + F.logsumexp(x, (0, 1), keepdim=True), [rand(2, 3)], True),
    Case("sort", lambda x: x.sort(0, descending=True).values * x, [rand(3, 2)], True),
    Case("sort stable", lambda x: x.sort(stable=True)[0] * x, [rand(2, 3)], True),
    Case("topk", lambda x: x.topk(2).values.exp(), [rand(2, 3)], True),
    Case("median", lambda x: x.median() * x + x.median(1, keepdim=True).values * x, [rand(2, 3)], True),
    Case("nansum", lambda x: x.nansum() + F.nansum(x, 1, keepdim=True) * x, [rand(2, 3)], True),
    Case("div rounding modes", lambda x, y: x.div(y, rounding_mode="floor") * x + x.div(0.7, rounding_mode="trunc") * y,
         [np.array([0.2, 1.3, -0.6]), np.array([0.45, -0.8, 1.1])], True),
    # random fills draw from a stream seeded afresh at each evaluation: their values are constants
    Case("random fills", lambda x: seeded(lambda: nonleaf(x).uniform_(-1, 1) + nonleaf(x).normal_(0.5, 2.0)
                                           + nonleaf(x).bernoulli_(0.3) + x * 2), [rand(2, 3)]),
    Case("bernoulli_ tensor p", lambda x, p: seeded(lambda: nonleaf(x).bernoulli_(p) * x),
         [rand(2, 3), rand(3, low=0.2, high=0.8, seed=1)]),
    Case("bernoulli", lambda p: seeded(lambda: F.bernoulli(p) + p), [rand(4, low=0.2, high=0.8)]),
    # PyTorch gives torch.normal's mean and std zero gradients (not the reparameterised ones): the
    # draws are scaled by 0 so that finite differences agree with that choice
    Case("normal tensors", lambda m, s: seeded(lambda: (F.normal(m, 1.0) + F.normal(2.0, s) + F.normal(m, s)) * 0
                                                + m * s),
         [rand(3), rand(3, low=0.5, seed=1)]),
    Case("cumprod", lambda x: x.cumprod(1) + F.cumprod(x, 0), [away_from_zero(2, 3)], True),
    Case("cumprod with zeros", lambda x: F.cumprod(x, 0), [np.array([2.0, 0.0, 3.0, 0.5, 0.0])], True),
    Case("diag", lambda v, m: (F.diag(v, 1) ** 2).sum() + F.diag(m, -1) * v + m.diag(2).sum(),
         [rand(3), rand(4, 4, seed=1)], True),
    Case("lerp", lambda s, e, w: F.lerp(s, e, 0.3) + s.lerp(e, w) + F.lerp(s, e, 0.8) * w,
         [rand(2, 3), rand(3, seed=1), rand(2, 3, low=0.0, high=1.0, seed=2)], True),
    Case("nan_to_num", lambda x: F.nan_to_num(x) * x, [rand(2, 3)], True),
    Case("clamp_min clamp_max", lambda x, b: x.clamp_min(0.1) * x + F.clamp_max(x, 0.4) + x.clamp_min(b) + x.clamp_max(b)
         + nonleaf(x).clamp_min_(-0.2), [np.array([-1.2, 0.3, 0.6]), np.array([0.0, 0.5, 0.9])], True),
    Case("outer", lambda u, v: F.outer(u, v) * F.ger(u, u).sum(), [rand(3), rand(2, seed=1)], True),
    Case("gelu", lambda x: NF.gelu(x) + NF.gelu(x, approximate="tanh"), [rand(2, 3, low=-3.0, high=3.0)], True),
    Case("silu", lambda x: NF.silu(x) + NF.silu(nonleaf(x), inplace=True), [rand(2, 3)], True),
    Case("softplus", lambda x: NF.softplus(x) + NF.softplus(x, beta=2, threshold=1.0),
         [np.array([-1.5, 0.1, 0.3, 0.8, 1.4])], True),
    Case("elu", lambda x: NF.elu(x) + NF.elu(nonleaf(x), 0.5, inplace=True), [away_from_zero(2, 3)], True),
    Case("selu celu", lambda x: NF.selu(x) + NF.celu(x, 0.5), [away_from_zero(2, 3)], True),
    Case("selu_ celu_", lambda x: F.selu_(nonleaf(x)) + F.celu_(nonleaf(x), 0.5), [away_from_zero(2, 3)], True),
    Case("mish", lambda x: NF.mish(x) + NF.mish(nonleaf(x), inplace=True), [rand(2, 3, low=-3.0, high=3.0)], True),
    Case("hardswish", lambda x: NF.hardswish(x) + NF.hardswish(nonleaf(x), inplace=True),
         [np.array([-4.0, -2.5, -0.7, 0.4, 2.2, 3.5])], True),
    # (no second derivative: PyTorch's hardsigmoid_backward has none)
    Case("hardsigmoid", lambda x: NF.hardsigmoid(x) + NF.hardsigmoid(nonleaf(x), inplace=True),
         [np.array([-4.0, -2.5, -0.7, 0.4, 2.2, 3.5])], False),
    Case("prelu", lambda x, w: NF.prelu(x, w) + NF.prelu(x, w[:1]),
         [np.array([[[-1.5, 0.3], [0.7, -0.2], [2.0, -3.0]]]), np.array([0.1, 0.25, -0.4])], True),
    Case("shrinks and threshold", lambda x: NF.softshrink(x, 0.3) + NF.hardshrink(x, 0.3) + NF.threshold(x, 0.1, -2.0)
         + NF.threshold(nonleaf(x), 0.1, -2.0, inplace=True), [np.array([-1.2, -0.5, -0.1, 0.2, 0.6, 1.4])], True),
    Case("glu", lambda x: NF.glu(x) * NF.glu(x, 0).sum(), [rand(2, 4)], True),
    Case("soft_margin_loss", lambda x: NF.soft_margin_loss(x, constant(np.array([1.0, -1.0, 0.5])))
         + NF.soft_margin_loss(x, constant(np.array([[-1.0, 1.0, 2.0]])), reduction="sum"), [rand(2, 3)], True),
    Case("hardtanh", lambda x: NF.hardtanh(x) + NF.relu6(x * 4) + NF.hardtanh_(nonleaf(x), -0.5, 0.5),
         [np.array([-1.5, -0.7, -0.2, 0.3, 0.8, 1.9])], True),
    Case("dropout", lambda x: seeded(lambda: NF.dropout(x, 0.4) + NF.dropout(x, 1.0) + NF.dropout(x, 0.3, False)),
         [rand(3, 4)], True),
]

# non-contiguous leaves: the same ops again on transposed and strided storage
CASES += [
    Case(f"{name} ({layout})", fn, [Input(array, layout) if i == 0 else array for i, array in enumerate(inputs)])
    for name, fn, inputs in [
        ("add", lambda x, y: x + y, [rand(2, 3), rand(3, seed=1)]),
        ("exp", lambda x: x.exp(), [rand(3, 2)]),
        ("sum dim", lambda x: x.sum(0), [rand(3, 2)]),
        ("prod dim", lambda x: x.prod(1), [rand(3, 2)]),
        ("view", lambda x: x.reshape(-1), [rand(2, 3)]),
        ("index list", lambda x: x[[1, 0, 1]], [rand(2, 3)]),
        ("mv", lambda x, y: x.mv(y), [rand(2, 3), rand(3, seed=1)]),
        ("gather", lambda x: x.gather(0, long_tensor([[1, 0]])), [rand(2, 2)]),
    ]
    for layout in ("transposed", "strided")
]
CASES += BREADTH_CASES
CASES += NN_CASES


@pytest.mark.parametrize("layout", ["transposed", "strided"])
def test_layouts_give_non_contiguous_leaves(layout: str) -> None:
    values = rand(2, 3)
    leaf = make_leaf(values, layout)
    assert not leaf.is_contiguous() and leaf.is_leaf and leaf.requires_grad
    assert np.array_equal(np.asarray(leaf.tolist()), values)


@pytest.mark.parametrize("case", CASES, ids=str)
def test_gradcheck(case: Case) -> None:
    gradcheck(case.fn, *case.inputs, **case.options)


# Cases PyTorch refuses in forward mode, with its error.
NO_FORWARD_AD = {
    "module backward hook": "You must implement the jvp function for custom autograd.Function to use it with "
                            "forward mode AD.",
    **{case: f"Trying to use forward AD with {aten} that does not support it"
       for case, aten in (("multi_margin_loss", "multi_margin_loss"),
                          ("multilabel_margin_loss", "multilabel_margin_loss_forward"), ("pdist", "_pdist_forward"),
                          ("cdist", "_cdist_forward"), ("cdist matrix product", "_euclidean_dist"),
                          ("ctc_loss", "_ctc_loss"))},
    "mkldnn_rnn_layer": "Trying to use forward AD with mkldnn_rnn_layer that does not support it",
    **{name: "Trying to use forward AD with grid_sampler_2d that does not support it" for name in (
        "grid_sample bilinear zeros", "grid_sample bilinear border aligned", "grid_sample bilinear reflection",
        "grid_sample nearest", "grid_sample bicubic")},
    **{name: "Trying to use forward AD with _embedding_bag that does not support it" for name in (
        "embedding_bag sum with per-sample weights", "embedding_bag mean and max")},
}


@pytest.mark.parametrize("case", CASES, ids=str)
def test_jvpcheck(case: Case) -> None:
    """Forward mode on every case: every op's forward formula is checked, as its backward is."""
    if case.name in NO_FORWARD_AD:
        with pytest.raises(NotImplementedError, match=re.escape(NO_FORWARD_AD[case.name])):
            jvpcheck(case.fn, *case.inputs, **case.options)
        return
    jvpcheck(case.fn, *case.inputs, **case.options)


@pytest.mark.parametrize("case", [case for case in CASES if case.second_order], ids=str)
def test_gradgradcheck(case: Case) -> None:
    gradgradcheck(case.fn, *case.inputs, **case.options)


# ------------------------------------------------------------------ every op is checked

# Ops that no check above reaches, each with the reason.
UNCHECKED = {
    "NotImplemented": "an op without a derivative (floor_divide): its backward only raises PyTorch's error",
    **{name: "PyTorch declares no derivative for zeta: its backward raises NotImplementedError"
       for name in ("SpecialZetaBackward0", "SpecialZetaBackward1", "SpecialZetaBackward2")},
    "GeqrfBackward0": "PyTorch declares no derivative for geqrf: its backward raises NotImplementedError",
    "StandardGammaBackward0": "the implicit reparameterisation gradient of a gamma draw, not the derivative of the "
                              "sampler's path: checked against the gamma CDF in tests/test_distributions.py",
}


def _node_names(tensors: list) -> set:
    names = set()
    stack = [t.grad_fn for t in tensors if t is not None and t.grad_fn is not None]
    seen = set()
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        names.add(type_name(node))  # a node class's full name, as the registry keys it
        stack.extend(child for child, _ in node.next_functions)
        # CopySlices runs the grad_fn of the in-place change it wraps
        wrapped = getattr(node, "_fn", None)
        if wrapped is not None:
            stack.append(wrapped)
    return names


def _recorded_ops(case: Case) -> set:
    """Every node in the graph of the case's outputs and, for second-order cases, in the graph
    that the backward pass records with create_graph=True."""
    specs = [value if isinstance(value, Input) else Input(np.asarray(value, dtype=np.float64)) for value in case.inputs]
    leaves = [make_leaf(spec.array, spec.layout) for spec in specs]
    outs = outputs_of(case.fn(*leaves))
    names = _node_names(outs)
    if case.second_order:
        grad_outputs = [make_leaf(np.ones(out.shape)) for out in outs]
        names |= _node_names(first_derivatives(case.fn, len(leaves))(*leaves, *grad_outputs))
    return names


def test_every_op_is_checked() -> None:
    recorded = set().union(*(_recorded_ops(case) for case in CASES))
    missing = set(registry.NODES) - recorded - set(UNCHECKED)
    assert not missing, f"ops without a gradient check: {sorted(missing)}"
    assert not (recorded & set(UNCHECKED)), "an op listed as unchecked is checked: update UNCHECKED"


# ------------------------------------------------------------------ random shapes and values

def _values(shape: tuple, low: float, high: float, avoid_zero: bool = False) -> st.SearchStrategy:
    if avoid_zero:
        elements = st.one_of(st.floats(-high, -low), st.floats(low, high))
    else:
        elements = st.floats(low, high)
    return hnp.arrays(np.float64, shape, elements=elements)


SHAPES = hnp.array_shapes(min_dims=0, max_dims=3, min_side=1, max_side=3)

# name -> (function, low, high, avoid_zero): the values stay inside each function's domain and
# away from its kinks
UNARY = {
    "exp": (lambda x: x.exp(), -2.0, 2.0, False),
    "log": (lambda x: x.log(), 0.2, 3.0, False),
    "log2": (lambda x: x.log2(), 0.2, 3.0, False),
    "log10": (lambda x: x.log10(), 0.2, 3.0, False),
    "log1p": (lambda x: x.log1p(), -0.6, 3.0, False),
    "expm1": (lambda x: x.expm1(), -2.0, 2.0, False),
    "sin": (lambda x: x.sin(), -3.0, 3.0, False),
    "cos": (lambda x: x.cos(), -3.0, 3.0, False),
    "tan": (lambda x: x.tan(), -1.2, 1.2, False),
    "tanh": (lambda x: x.tanh(), -2.0, 2.0, False),
    "sigmoid": (lambda x: x.sigmoid(), -3.0, 3.0, False),
    "sqrt": (lambda x: x.sqrt(), 0.2, 3.0, False),
    "rsqrt": (lambda x: x.rsqrt(), 0.2, 3.0, False),
    "abs": (lambda x: x.abs(), 0.05, 2.0, True),
    "relu": (lambda x: x.relu(), 0.05, 2.0, True),
    "asin": (lambda x: x.asin(), -0.9, 0.9, False),
    "acos": (lambda x: x.acos(), -0.9, 0.9, False),
    "atan": (lambda x: x.atan(), -3.0, 3.0, False),
    "sinh": (lambda x: x.sinh(), -2.0, 2.0, False),
    "cosh": (lambda x: x.cosh(), -2.0, 2.0, False),
    "neg": (lambda x: -x, -2.0, 2.0, False),
    "reciprocal": (lambda x: x.reciprocal(), 0.3, 2.0, True),
    "square": (lambda x: x ** 2, -2.0, 2.0, False),
    "cube root": (lambda x: x ** (1 / 3), 0.2, 2.0, False),
    "inverse square": (lambda x: x ** -2, 0.3, 2.0, True),
    "exp2": (lambda x: 2 ** x, -2.0, 2.0, False),
}


@pytest.mark.parametrize("name", sorted(UNARY))
@HYPOTHESIS
@given(data=st.data(), shape=SHAPES, layout=st.sampled_from(LAYOUTS))
def test_unary(name: str, data: st.DataObject, shape: tuple, layout: str) -> None:
    fn, low, high, avoid_zero = UNARY[name]
    x = data.draw(_values(shape, low, high, avoid_zero))
    gradcheck(fn, Input(x, layout))
    gradgradcheck(fn, Input(x, layout))


def _remainder_ok(x: np.ndarray, y: np.ndarray) -> bool:
    """x % y is smooth away from the points where x / y is a whole number."""
    fraction = np.mod(x / y, 1.0)
    return bool(np.all((fraction > 0.01) & (fraction < 0.99)))


# name -> (function, (low, high, avoid_zero) of each input, a condition the values must meet)
BINARY = {
    "add": (lambda x, y: x + y, (-2.0, 2.0, False), (-2.0, 2.0, False), None),
    "sub": (lambda x, y: x - y, (-2.0, 2.0, False), (-2.0, 2.0, False), None),
    "mul": (lambda x, y: x * y, (-2.0, 2.0, False), (-2.0, 2.0, False), None),
    "div": (lambda x, y: x / y, (-2.0, 2.0, False), (0.3, 2.0, True), None),
    # an exponent of exactly 0 takes a gradient of 0 by PyTorch's convention (pow_backward_self), where
    # the second derivative is not the finite differences' limit (torch's own gradgradcheck fails there)
    "pow": (lambda x, y: x ** y, (0.3, 2.0, False), (-2.0, 2.0, False), lambda x, y: bool(np.all(np.abs(y) > 1e-3))),
    "maximum": (lambda x, y: F.maximum(x, y), (-2.0, 2.0, False), (-2.0, 2.0, False),
                lambda x, y: bool(np.all(np.abs(x - y) > 1e-3))),
    "minimum": (lambda x, y: F.minimum(x, y), (-2.0, 2.0, False), (-2.0, 2.0, False),
                lambda x, y: bool(np.all(np.abs(x - y) > 1e-3))),
    "remainder": (lambda x, y: x % y, (-3.0, 3.0, False), (0.5, 2.0, True), _remainder_ok),
    "where": (lambda x, y: F.where(x > y, x * 2, y), (-2.0, 2.0, False), (-2.0, 2.0, False),
              lambda x, y: bool(np.all(np.abs(x - y) > 1e-3))),
    "mse_loss none": (lambda x, y: NF.mse_loss(x, y, reduction="none"), (-2.0, 2.0, False), (-2.0, 2.0, False), None),
}


@pytest.mark.parametrize("name", sorted(BINARY))
@HYPOTHESIS
@given(data=st.data(), shapes=hnp.mutually_broadcastable_shapes(num_shapes=2, max_dims=3, max_side=3),
       layouts=st.tuples(st.sampled_from(LAYOUTS), st.sampled_from(LAYOUTS)))
def test_binary_broadcast(name: str, data: st.DataObject, shapes: object, layouts: tuple) -> None:
    fn, first, second, condition = BINARY[name]
    x = data.draw(_values(shapes.input_shapes[0], *first))
    y = data.draw(_values(shapes.input_shapes[1], *second))
    if condition is not None:
        assume(condition(*np.broadcast_arrays(x, y)))
    gradcheck(fn, Input(x, layouts[0]), Input(y, layouts[1]))
    gradgradcheck(fn, Input(x, layouts[0]), Input(y, layouts[1]))


@st.composite
def _reduction_args(draw: st.DrawFn) -> tuple:
    shape = draw(SHAPES)
    span = max(len(shape), 1)  # a 0-dim tensor takes dim 0 or -1
    dims = draw(st.lists(st.integers(-span, span - 1), min_size=1, max_size=span, unique_by=lambda d: d % span))
    return shape, tuple(dims), draw(st.booleans())


REDUCTIONS = {
    "sum": lambda x, dims, keepdim: x.sum(dims, keepdim=keepdim),
    "mean": lambda x, dims, keepdim: x.mean(dims, keepdim=keepdim),
    "amax": lambda x, dims, keepdim: x.amax(dims, keepdim=keepdim),
    "amin": lambda x, dims, keepdim: x.amin(dims, keepdim=keepdim),
    "prod": lambda x, dims, keepdim: x.prod(dims[0], keepdim=keepdim),
    "max": lambda x, dims, keepdim: x.max(dims[0], keepdim=keepdim).values,
    "min": lambda x, dims, keepdim: x.min(dims[0], keepdim=keepdim).values,
}


@pytest.mark.parametrize("name", sorted(REDUCTIONS))
@HYPOTHESIS
@given(args=_reduction_args(), layout=st.sampled_from(LAYOUTS), seed=st.integers(0, 2 ** 16))
def test_reductions(name: str, args: tuple, layout: str, seed: int) -> None:
    shape, dims, keepdim = args
    x = distinct(*shape, seed=seed)  # no ties: max, min, amax and amin are differentiable
    fn = REDUCTIONS[name]
    gradcheck(lambda t: fn(t, dims, keepdim), Input(x, layout))
    gradgradcheck(lambda t: fn(t, dims, keepdim), Input(x, layout))


@st.composite
def _matmul_shapes(draw: st.DrawFn) -> tuple:
    n, k, m = (draw(st.integers(1, 3)) for _ in range(3))
    batch = draw(hnp.mutually_broadcastable_shapes(num_shapes=2, max_dims=2, max_side=2))
    left = batch.input_shapes[0] + (n, k) if draw(st.booleans()) else (k,)
    right = batch.input_shapes[1] + (k, m) if draw(st.booleans()) else (k,)
    return left, right


@HYPOTHESIS
@given(shapes=_matmul_shapes(), layouts=st.tuples(st.sampled_from(LAYOUTS), st.sampled_from(LAYOUTS)),
       seed=st.integers(0, 2 ** 16))
def test_matmul(shapes: tuple, layouts: tuple, seed: int) -> None:
    x, y = rand(*shapes[0], seed=seed), rand(*shapes[1], seed=seed + 1)
    gradcheck(lambda a, b: a @ b, Input(x, layouts[0]), Input(y, layouts[1]))
    gradgradcheck(lambda a, b: a @ b, Input(x, layouts[0]), Input(y, layouts[1]))


# ------------------------------------------------------------------ ties

TWO_WAY_TIES = [
    ("max", lambda x: x.max(), np.array([[1.0, 3.0], [3.0, -2.0]])),
    ("min", lambda x: x.min(), np.array([0.5, -1.0, 2.0, -1.0])),
    ("amax dim", lambda x: x.amax(1), np.array([[1.0, 3.0, 3.0], [2.0, 0.0, 2.0]])),
    ("amin dims", lambda x: x.amin((0, 1)), np.array([[-1.0, 3.0], [2.0, -1.0]])),
    ("maximum", lambda x: F.maximum(x[0], x[1]), np.array([[1.0, 2.0, -1.0], [1.0, 0.5, -1.0]])),
    ("minimum", lambda x: F.minimum(x[0], x[1]), np.array([[1.0, 2.0, -1.0], [1.0, 0.5, -1.0]])),
]


@pytest.mark.parametrize("name, fn, x", TWO_WAY_TIES, ids=[name for name, _, _ in TWO_WAY_TIES])
def test_two_way_ties_split_the_gradient(name: str, fn: Callable, x: np.ndarray) -> None:
    # with two tied elements a central difference moves each to half the slope, which is what
    # sharing the gradient evenly between the ties gives
    gradcheck(fn, x)


@pytest.mark.parametrize("name, fn", [("max", lambda x: x.max()), ("amax", lambda x: x.amax(0)),
                                      ("min", lambda x: -(-x).min())])
def test_many_way_ties_along_tie_preserving_directions(name: str, fn: Callable) -> None:
    x = np.array([0.5, 2.0, -1.0, 2.0, 2.0])
    tied = x == x.max()
    analytical = _grad_array(fn, x)
    rng = np.random.default_rng(0)
    for _ in range(3):
        # a direction that moves the tied elements together keeps them tied: f is smooth along it
        direction = rng.uniform(-1, 1, size=x.shape)
        direction[tied] = rng.uniform(-1, 1)
        numerical = (_value(fn, x + 1e-6 * direction) - _value(fn, x - 1e-6 * direction)) / 2e-6
        assert np.isclose(analytical @ direction, numerical, rtol=1e-3, atol=1e-5)
    # and the gradient is shared evenly among the ties
    assert np.all(analytical[tied] == analytical[tied][0])


@pytest.mark.parametrize("kind", ["max", "min"])
def test_ties_along_a_dim_send_the_gradient_to_the_returned_index(kind: str) -> None:
    x = np.array([[2.0, 0.5, 2.0], [-1.0, -1.0, -1.0]]) * (1 if kind == "max" else -1)
    leaf = make_leaf(x)
    values, indices = getattr(leaf, kind)(1)
    (grad,) = api.grad([values.sum()], [leaf])
    expected = np.zeros_like(x)
    expected[np.arange(2), indices.tolist()] = 1.0
    assert np.array_equal(np.asarray(grad.tolist()), expected)


def _value(fn: Callable, x: np.ndarray) -> float:
    return fn(make_leaf(x)).item()


def _grad_array(fn: Callable, x: np.ndarray) -> np.ndarray:
    leaf = make_leaf(x)
    (grad,) = api.grad([fn(leaf)], [leaf])
    return np.asarray(grad.tolist())


# ------------------------------------------------------------------ graph shapes


def test_diamond_graph() -> None:
    def diamond(a: Tensor, b: Tensor) -> Tensor:
        x = a + b
        return x * a

    gradcheck(diamond, rand(2, 3), rand(2, 3, seed=1))
    gradgradcheck(diamond, rand(2, 3), rand(2, 3, seed=1))


def test_reused_nonleaf() -> None:
    def doubled_twice(a: Tensor) -> Tensor:
        b = a + a
        c = b + b
        return c * b

    gradcheck(doubled_twice, rand(3))
    gradgradcheck(doubled_twice, rand(3))


def test_backward_accumulates_like_grad() -> None:
    # .backward() must put into .grad what autograd.grad returns, for a graph with shared nodes
    a, b = make_leaf(rand(2, 3)), make_leaf(rand(3, seed=1))
    x = a * b
    y = (x + a).exp() * x.sin()
    expected = api.grad([y.sum()], [a, b], retain_graph=True)
    y.sum().backward()
    assert np.array_equal(np.asarray(a.grad.tolist()), np.asarray(expected[0].tolist()))
    assert np.array_equal(np.asarray(b.grad.tolist()), np.asarray(expected[1].tolist()))


@pytest.mark.slow
def test_million_node_chain_backward() -> None:
    # the engine walks the graph with its own stack: a chain deeper than any recursion limit
    # backwards, and dropping it afterwards frees it without recursing either
    x = creation.tensor(1.0, dtype=dtypes.float64, requires_grad=True)
    y = x
    for _ in range(1_000_000):
        y = y * 1.00001
    head = weakref.ref(y.grad_fn)
    y.backward()
    # d y / d x multiplies the same factors in the same order as the forward pass
    assert x.grad.item() == y.item()
    del y
    assert head() is None


def test_dropping_a_deep_graph_does_not_recurse() -> None:
    # in a separate process: a recursive teardown of 100,000 nodes would overflow the C stack and
    # kill the process running it
    program = textwrap.dedent("""
        import weakref
        from gradcalc.autograd import dtypes
        from gradcalc.autograd.ops import creation
        x = creation.tensor([1.0, 2.0], dtype=dtypes.float64, requires_grad=True)
        y = x
        for _ in range(100_000):
            y = y * 1.0
        first = weakref.ref(y.grad_fn)
        del y
        assert first() is None
        print("freed")
    """)
    result = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.strip() == "freed"
