"""Reductions: sum, mean, prod, max, min, amax, amin, argmax, argmin, any, all, nansum,
count_nonzero, logsumexp, and the cumulative cumsum and cumprod."""
from __future__ import annotations

from typing import Any, Optional, Sequence

import numpy as np

from .. import dtypes, sum_kernel
from ..dtypes import DType
from ..tensor import Tensor, wrap_dim
from .arithmetic import div_scalar, float_kernel
from .common import (ReturnTypes, arrays, castable_data, check_not_complex, check_not_unsigned, expand_reduced,
                     float_result, int64_tensor, normalize_dims, not_implemented_for, reduction_dims, shape_text,
                     unsqueeze_reduced, zeros, zeros_like)
from .comparison import maximum, minimum
from .indexing import masked_fill, scatter, where
from .pointwise import EXP, LOG
from .joining import cat
from .generate import make_inplace
from .registry import LINEAR, node, op, record, recording_not_needed
from .shape import VIEW, expand, reshape

# a parameter left out, where leaving it out and passing None choose different overloads
MISSING: Any = type("Missing", (), {"__repr__": lambda self: "MISSING"})()


def _dims(dim: Any, shape: tuple) -> Optional[tuple]:
    return reduction_dims(dim, len(shape))


SUM = node("SumBackward0", ("self",), jvp=LINEAR, self=lambda grad, self_sym_sizes: expand(grad, self_sym_sizes))
SUM_DIM = node("SumBackward1", ("self",), jvp=LINEAR,
               self=lambda grad, self_sym_sizes, dim, keepdim: expand_reduced(grad, self_sym_sizes,
                                                                              _dims(dim, self_sym_sizes), keepdim))
MEAN = node("MeanBackward0", ("self",), jvp=LINEAR,
            self=lambda grad, self_sym_sizes, self_sym_numel: div_scalar(grad.expand(self_sym_sizes), self_sym_numel))
MEAN_DIM = node("MeanBackward1", ("self",), jvp=LINEAR, saved=("self_sym_numel",),
                self=lambda grad, self_sym_sizes, dim, keepdim, _count: div_scalar(
                    expand_reduced(grad, self_sym_sizes, _dims(dim, self_sym_sizes), keepdim), _count))
PROD = node("ProdBackward0", ("self",), self=lambda grad, self, result: _prod_grad(grad, self, result))
PROD_DIM = node("ProdBackward1", ("self",),
                self=lambda grad, self, result, dim, keepdim: _prod_grad(
                    expand_reduced(grad, self.shape, _dims(dim, self.shape), keepdim), self,
                    expand_reduced(result, self.shape, _dims(dim, self.shape), keepdim), _dims(dim, self.shape)))
MAX_ALL = node("MaxBackward1", ("self",), self=lambda grad, self, result: evenly(grad, self, result))
MIN_ALL = node("MinBackward1", ("self",), self=lambda grad, self, result: evenly(grad, self, result))
AMAX = node("AmaxBackward0", ("self",), self=lambda grad, self, result, dim, keepdim: _amax_grad(
    grad, self, result, dim, keepdim))
AMIN = node("AminBackward0", ("self",), self=lambda grad, self, result, dim, keepdim: _amax_grad(
    grad, self, result, dim, keepdim))
MAX_DIM = node("MaxBackward0", ("self",), saved_tensors=("indices",), jvp=LINEAR,
               self=lambda grad, self_sym_sizes, dim, keepdim, indices: scatter_back(
                   grad, self_sym_sizes, dim, keepdim, indices))
MIN_DIM = node("MinBackward0", ("self",), saved_tensors=("indices",), jvp=LINEAR,
               self=lambda grad, self_sym_sizes, dim, keepdim, indices: scatter_back(
                   grad, self_sym_sizes, dim, keepdim, indices))
NANSUM = node("NansumBackward0", ("self",), jvp=LINEAR,
              self=lambda grad, self, dim, keepdim: unsqueeze_reduced(grad, _dims(dim, self.shape), self.ndim, keepdim)
              * self.isnan().logical_not())
LOGSUMEXP = node("LogsumexpBackward0", ("self",),
                 self=lambda grad, self, result, dim, keepdim: unsqueeze_reduced(
                     grad, _dims(dim, self.shape), self.ndim, keepdim)
                 * (self - unsqueeze_reduced(result, _dims(dim, self.shape), self.ndim, keepdim)).exp())
# cumsum's gradient is the reversed cumulative sum of the gradient, as PyTorch's cumsum_backward
CUMSUM = node("CumsumBackward0", ("self",), jvp=LINEAR,
              self=lambda grad, dim: grad if grad.numel() <= 1 or grad.ndim == 0 or grad.shape[dim] == 1
              else grad.flip(dim).cumsum(dim).flip(dim))
# with a dtype=, the node holds the input as it came (its in-place changes are caught) and the
# gradient is first cast to its dtype, as PyTorch's formula does
CUMPROD = node("CumprodBackward0", ("self",),
               self=lambda grad, self, result, dim: _cumprod_grad(grad.to(self.dtype), self, result,
                                                                  wrap_dim(dim, self.ndim)))


def evenly(grad: Tensor, self: Tensor, result: Tensor) -> Tensor:
    """The gradient of a full max or min over ties: shared evenly among the tied elements (the NaNs,
    when the result is NaN)."""
    mask = self.isnan() if result._data.dtype.kind in "fc" and bool(np.isnan(result._data)) else self == result
    return masked_fill(zeros_like(self, dtype=grad.dtype), mask, grad / mask.sum())


def _amax_grad(grad: Tensor, self: Tensor, result: Tensor, dim: Any, keepdim: bool) -> Tensor:
    """amax/amin over ties: the gradient scaled over a mask of the tied elements."""
    dims = _dims(dim, self.shape) or tuple(range(self.ndim))
    grad = expand_reduced(grad, self.shape, dims, keepdim)
    mask = (self == expand_reduced(result, self.shape, dims, keepdim)).to(grad.dtype)
    return grad / mask.sum(dim=dims, keepdim=True) * mask


def _prod_grad(grad: Tensor, self: Tensor, result: Tensor, dims: Optional[tuple] = None) -> Tensor:
    if not np.any(self._data == 0):
        return grad * (result / self).conj()
    # with zeros, the gradient of each element is the product of all the others: the product of
    # row i of an (n, n) matrix of the reduced values whose diagonal is set to one. Built from
    # tensor ops (not a division) so that create_graph gives the second derivative.
    reduced = tuple(range(self.ndim)) if dims is None else dims
    order = tuple(d for d in range(self.ndim) if d not in reduced) + reduced
    moved = self.permute(order)
    lead = moved.shape[:moved.ndim - len(reduced)]
    n = int(np.prod([self.shape[d] for d in reduced], dtype=np.int64))
    rows = moved.reshape(lead + (1, n)).expand(lead + (n, n))
    diagonal = Tensor._make(np.eye(n, dtype=bool), dtypes.bool_)
    others = where(diagonal, 1.0, rows).prod(-1).reshape(moved.shape).permute(tuple(np.argsort(order)))
    return grad * others.conj()


def scatter_back(grad: Tensor, self_shape: tuple, dim: int, keepdim: bool, indices: np.ndarray) -> Tensor:
    """The gradient of values picked along `dim` (max, sort, topk): back where each came from."""
    if not self_shape:
        return grad  # picking along the dim of a 0-dim tensor gives the tensor itself
    dim = wrap_dim(dim, len(self_shape))
    if not keepdim:
        grad = grad.unsqueeze(dim)
    index = np.expand_dims(indices, dim) if not keepdim else indices
    return scatter(zeros(self_shape, dtype=grad.dtype), dim, index, grad)


def sum_dtype(a: Tensor, dtype: Optional[DType]) -> DType:
    if dtype is not None:
        return dtype
    return dtypes.int64 if a._dtype.category <= dtypes.INTEGRAL else a._dtype


def sum_data(x: np.ndarray, dims: Optional[tuple], keepdim: bool) -> np.ndarray:
    """The values of torch.sum over `dims` (None: all): float32 and float64 add in the order of
    PyTorch's kernel, whose last bits differ from numpy's pairwise sum."""
    if dims is None and (x.dtype.type is np.float32 or x.dtype.type is np.float64):  # everything, the commonest
        total = sum_kernel.cascade_sum(x, ())
        return total if keepdim else total.reshape(())
    axes = tuple(range(x.ndim)) if dims is None else dims
    if x.dtype.type is np.float16 and not (x.ndim and not axes):  # summed in float32, rounded once
        return sum_data(x.astype(np.float32), dims, keepdim).astype(np.float16)
    if x.dtype.type not in (np.float32, np.float64) or (x.ndim and not axes):
        return np.asarray(x.sum(axis=axes, keepdims=keepdim))
    total = sum_kernel.cascade_sum(x, axes)
    return total if keepdim else total.reshape([n for d, n in enumerate(x.shape) if d not in axes])


@op(nodes=(SUM, SUM_DIM))
def sum(input: Tensor, dim: Any = MISSING, keepdim: bool = False, *, dtype: Optional[DType] = None) -> Tensor:
    own = input._dtype
    if dim is MISSING and dtype is None and (own is dtypes.float32 or own is dtypes.float64):  # `loss.sum()`
        return record(SUM, (input,), sum_data(input._data, None, False), own, self_sym_sizes=input.shape)
    check_not_unsigned("sum_cpu", dtype)
    out_dtype = sum_dtype(input, dtype)
    dims = None if dim is MISSING else reduction_dims(dim, input.ndim)
    (x,) = arrays((input,), out_dtype)
    data = np.asarray(sum_data(x, dims, keepdim), dtype=out_dtype._numpy)
    if dim is MISSING:
        return record(SUM, (input,), data, out_dtype, self_sym_sizes=input.shape)
    return record(SUM_DIM, (input,), data, out_dtype, self_sym_sizes=input.shape, dim=dim, keepdim=keepdim)


@op(function=False)
def sum_to_size(input: Tensor, size: Sequence[int]) -> Tensor:
    shape, own = tuple(size), input._data.shape
    if own == shape:
        return input
    lead = len(own) - len(shape)
    if lead < 0 or [s for s, n in zip(shape, own[lead:]) if s != n and s != 1]:  # (any and all are ops here)
        raise RuntimeError(f"size {{{shape_text(shape)}}} is not expandable to size {{{shape_text(own)}}}.")
    if not shape:
        return sum(input)  # as PyTorch's sum_to: everything, into no dims
    dims = tuple(range(lead)) + tuple(lead + i for i, s in enumerate(shape) if s == 1 and own[lead + i] != 1)
    if dims and recording_not_needed():  # a backward pass's gradient: sum's values, without its op path
        out_dtype = sum_dtype(input, None)
        (x,) = arrays((input,), out_dtype)
        return Tensor._make(np.asarray(sum_data(x, dims, True), dtype=out_dtype._numpy).reshape(shape), out_dtype)
    out = sum(input, dims, keepdim=True) if dims else input
    if not lead:
        return out
    # the sum (a new, contiguous tensor) viewed without its leading dims, as PyTorch's sum_to does
    return record(VIEW, (out,), out._data.reshape(shape), out._dtype, view_of=out, self_sym_sizes=out.shape)


@op(nodes=(MEAN, MEAN_DIM))
def mean(input: Tensor, dim: Any = MISSING, keepdim: bool = False, *, dtype: Optional[DType] = None) -> Tensor:
    out_dtype = dtype or input._dtype
    if out_dtype.category < dtypes.FLOATING:
        raise RuntimeError(
            f"mean(): could not infer output dtype. {'Input' if dtype is None else 'Optional'} dtype must be either a "
            f"floating point or complex dtype. Got: {out_dtype._scalar_name}")
    dims = None if dim is MISSING else reduction_dims(dim, input.ndim)
    (x,) = arrays((input,), out_dtype)
    count = input.numel() if dims is None else int(np.prod([input.shape[d] for d in dims]))
    # on the CPU, PyTorch's mean is its sum divided by the count (float16's in float32, rounded once)
    total = sum_data(x.astype(np.float32) if x.dtype == np.float16 else x, dims, keepdim)
    data = np.asarray(total / np.asarray(count, dtype=total.dtype), dtype=out_dtype._numpy)
    if dim is MISSING:
        return record(MEAN, (input,), data, out_dtype, self_sym_sizes=input.shape, self_sym_numel=input.numel())
    return record(MEAN_DIM, (input,), data, out_dtype, self_sym_sizes=input.shape, dim=dim, keepdim=keepdim,
                  self_sym_numel=input.numel(), _count=count)


@op(nodes=(PROD, PROD_DIM))
def prod(input: Tensor, dim: Any = MISSING, keepdim: bool = False, *, dtype: Optional[DType] = None) -> Tensor:
    out_dtype = sum_dtype(input, dtype)
    (x,) = arrays((input,), out_dtype)
    if dim is MISSING:
        return record(PROD, (input,), np.asarray(x.prod(), dtype=out_dtype._numpy), out_dtype)
    dims = normalize_dims(dim, input.ndim)
    data = np.asarray(x.prod(axis=dims, keepdims=keepdim), dtype=out_dtype._numpy)
    return record(PROD_DIM, (input,), data, out_dtype, dim=dim, keepdim=keepdim)


def _extreme(a: Tensor, dim: Any, keepdim: bool, kind: str) -> Any:
    numpy_reduce, arg_reduce = (np.max, np.argmax) if kind == "max" else (np.min, np.argmin)
    check_not_unsigned(f"{kind}_all" if dim is MISSING else f"{kind}_cpu", a._dtype)
    if dim is MISSING:
        if a.numel() == 0:
            raise RuntimeError(f"{kind}(): Expected reduction dim to be specified for input.numel() == 0. "
                               "Specify the reduction dim with the 'dim' argument.")
        check_not_complex(f"{kind}_all", a._dtype)
        return record(MAX_ALL if kind == "max" else MIN_ALL, (a,), np.asarray(numpy_reduce(a._data)), a._dtype)
    d = wrap_dim(dim, a.ndim)
    if a._dtype.is_complex:
        raise RuntimeError(f"{kind}(): does not support complex input")
    check_reduced_size(a, d, kind)
    data = a._data if a.ndim else a._data.reshape(1)
    indices = arg_reduce(data, axis=d)
    values = np.take_along_axis(data, np.expand_dims(indices, d), axis=d)
    if not keepdim:
        values = np.squeeze(values, axis=d)
    else:
        indices = np.expand_dims(indices, d)
    if a.ndim == 0:
        values, indices = values.reshape(()), np.asarray(indices).reshape(())
    # np.array, not np.ascontiguousarray, which would make a 0-dim result 1-dim
    out = record(MAX_DIM if kind == "max" else MIN_DIM, (a,), np.array(values), a._dtype, self_sym_sizes=a.shape,
                 dim=dim, keepdim=keepdim, indices=np.asarray(indices))
    return ReturnTypes(kind, out, int64_tensor(indices))


@op(nodes=(MAX_ALL, MAX_DIM))
def max(input: Tensor, dim: Any = MISSING, keepdim: bool = False, *, other: Optional[Tensor] = None) -> Any:
    if other is not None:
        return maximum(input, other)
    return _extreme(input, dim, keepdim, "max")


@op(nodes=(MIN_ALL, MIN_DIM))
def min(input: Tensor, dim: Any = MISSING, keepdim: bool = False, *, other: Optional[Tensor] = None) -> Any:
    if other is not None:
        return minimum(input, other)
    return _extreme(input, dim, keepdim, "min")


def check_reduced_size(a: Tensor, dim: Optional[int], name: str) -> None:
    """max, min, amax, amin, argmax and argmin have no value for an empty reduction (amax and
    amin name the dim as it was given, the others wrapped)."""
    if a.numel() != 0:
        return
    if dim is None:
        more = "" if name.startswith("arg") else " Specify the reduction dim with the 'dim' argument."
        error = IndexError if name.startswith("arg") else RuntimeError
        raise error(f"{name}(): Expected reduction dim to be specified for input.numel() == 0.{more}")
    if a.ndim and a.shape[wrap_dim(dim, a.ndim)] == 0:
        raise IndexError(f"{name}(): Expected reduction dim {dim} to have non-zero size.")


def _amax(a: Tensor, dim: Any, keepdim: bool, kind: str) -> Tensor:
    dim = () if dim is None else dim
    check_not_unsigned(f"{kind[1:]}_values_cpu", a._dtype)
    # each dim's size is checked before the list of dims is checked for repeats
    for d in dim if dim else (None,):
        check_reduced_size(a, d, kind)  # no dim given: the whole tensor
    if a.numel():
        check_not_complex(f"{kind[1:]}_values_cpu", a._dtype)
    dims = normalize_dims(dim, a.ndim) or tuple(range(a.ndim))
    reduce = np.max if kind == "amax" else np.min
    data = np.asarray(reduce(a._data, axis=dims, keepdims=keepdim))
    return record(AMAX if kind == "amax" else AMIN, (a,), data, a._dtype, dim=tuple(dim), keepdim=keepdim)


@op(nodes=(AMAX,))
def amax(input: Tensor, dim: Any = (), keepdim: bool = False) -> Tensor:
    return _amax(input, dim, keepdim, "amax")


@op(nodes=(AMIN,))
def amin(input: Tensor, dim: Any = (), keepdim: bool = False) -> Tensor:
    return _amax(input, dim, keepdim, "amin")


def _arg_extreme(a: Tensor, dim: Optional[int], keepdim: bool, kind: str) -> Tensor:
    name = "arg" + kind
    if a._dtype.is_complex:
        raise RuntimeError(f"{name}(): does not support complex input")
    if a._dtype is dtypes.bool_:
        raise RuntimeError(f"{name}(): does not support bool input")
    check_not_unsigned(f"{name}_cpu", a._dtype)
    check_reduced_size(a, None if dim is None else wrap_dim(dim, a.ndim), name)
    if dim is None:
        index = np.argmax(a._data) if kind == "max" else np.argmin(a._data)
        return int64_tensor(np.asarray(index).reshape((1,) * a.ndim if keepdim else ()))
    return _extreme(a, dim, keepdim, kind)[1]


@op()
def argmax(input: Tensor, dim: Optional[int] = None, keepdim: bool = False) -> Tensor:
    return _arg_extreme(input, dim, keepdim, "max")


@op()
def argmin(input: Tensor, dim: Optional[int] = None, keepdim: bool = False) -> Tensor:
    return _arg_extreme(input, dim, keepdim, "min")


def _logical_reduction(a: Tensor, dim: Any, keepdim: bool, function: Any) -> Tensor:
    axis = None if dim is MISSING or dim is None else normalize_dims(dim, a.ndim)
    # (dim=None keeps them all; uint8 gives uint8, as ATen keeps that legacy)
    dtype = dtypes.uint8 if a._dtype is dtypes.uint8 else dtypes.bool_
    return Tensor._make(np.asarray(function(a._data, axis=axis, keepdims=keepdim), dtype=dtype._numpy), dtype)


@op()
def any(input: Tensor, dim: Any = MISSING, keepdim: bool = False) -> Tensor:
    return _logical_reduction(input, dim, keepdim, np.any)


@op()
def all(input: Tensor, dim: Any = MISSING, keepdim: bool = False) -> Tensor:
    return _logical_reduction(input, dim, keepdim, np.all)


@op(nodes=(NANSUM,))
def nansum(input: Tensor, dim: Any = None, keepdim: bool = False, *, dtype: Optional[DType] = None) -> Tensor:
    if input._dtype.is_complex:
        raise RuntimeError("nansum on CPU does not support complex inputs")
    out_dtype = sum_dtype(input, dtype)
    dims = reduction_dims(dim, input.ndim)
    (x,) = arrays((input,), out_dtype)
    x = np.where(np.isnan(x), 0, x).astype(x.dtype) if x.dtype.kind == "f" else x
    data = np.asarray(sum_data(x, dims, keepdim), dtype=out_dtype._numpy)
    return record(NANSUM, (input,), data, out_dtype, dim=dim, keepdim=keepdim)


@op()
def count_nonzero(input: Tensor, dim: Any = None) -> Tensor:
    check_not_unsigned("nonzero_count_cpu", input._dtype)
    dims = reduction_dims(dim, input.ndim)
    return int64_tensor(np.count_nonzero(input._data, axis=dims))


@op(nodes=(LOGSUMEXP,))
def logsumexp(input: Tensor, dim: Any, keepdim: bool = False) -> Tensor:
    dims = reduction_dims(dim, input.ndim)
    if dims is None and not keepdim and input.ndim and not dim:
        # ATen adds the kept-dims max back in place into the result, squeezing the dims listed: none
        raise RuntimeError(f"output with shape [] doesn't match the broadcast shape {shape_text([1] * input.ndim)}")
    dtype = float_result(input._dtype)
    (x,) = arrays((input,), dtype)
    # PyTorch's steps, each rounded in the dtype: the max (0 where infinite), exp of the
    # difference, its sum, then log plus the max
    axes = dims if input.ndim else ()
    if dtype.is_complex and x.size:  # ATen's: the real parts' max, complex exp, sum and log
        peak = np.max(x.real, axis=axes, keepdims=True)
        total = np.sum(np.exp(x - peak), axis=axes, keepdims=True)
        data = (np.log(total) + np.where(np.isinf(peak), 0, peak)).astype(x.dtype)
        if not keepdim:
            data = data.reshape(tuple(n for d, n in enumerate(x.shape) if d not in axes))
        return record(LOGSUMEXP, (input,), np.asarray(data), dtype, dim=tuple(dim), keepdim=keepdim)
    peak = np.max(x, axis=axes, keepdims=True) if x.size else np.zeros((1,) * x.ndim, x.dtype)
    peak = np.where(np.isinf(peak), 0, peak).astype(x.dtype)
    shifted = float_kernel(EXP, np.asarray(x - peak, dtype=x.dtype))  # torch.exp's and torch.log's kernels
    total = sum_data(shifted, axes, keepdim=True)
    data = (float_kernel(LOG, np.asarray(total, dtype=x.dtype)) + peak).astype(x.dtype)
    if not keepdim:
        data = data.reshape(tuple(n for d, n in enumerate(x.shape) if d not in axes))
    return record(LOGSUMEXP, (input,), np.asarray(data), dtype, dim=tuple(dim), keepdim=keepdim)


def _cumulative(a: Tensor, dim: int, dtype: Optional[DType], function: Any) -> tuple:
    """(result dtype, values) of a cumulative op: PyTorch's CPU kernel accumulates floats in double,
    rounding each partial result to the result dtype."""
    d = wrap_dim(dim, a.ndim)
    result = dtype or (dtypes.int64 if a._dtype.category <= dtypes.INTEGRAL else a._dtype)
    accumulate = np.float64 if result.category == dtypes.FLOATING else result._numpy
    values = castable_data(a, result).astype(accumulate)
    return result, function(values, axis=d) if a.ndim else values


def _cumulative_in_place(function: Any, kernel: str, name: str) -> Any:
    """cumsum_ and cumprod_: the op's out= kernel in the tensor's own dtype (bool has none)."""
    def in_place(input: Tensor, dim: int, *, dtype: Optional[DType] = None) -> Tensor:
        if input._dtype is dtypes.bool_ and dtype is None:
            raise not_implemented_for(kernel, input._dtype)
        return function(input, dim, dtype=dtype)

    return make_inplace(in_place, name=name)


@op(nodes=(CUMSUM,), inplace=_cumulative_in_place(lambda input, dim, dtype: cumsum(input, dim, dtype=dtype),
                                                  "cumsum_out_cpu", "cumsum_"))
def cumsum(input: Tensor, dim: int, *, dtype: Optional[DType] = None) -> Tensor:
    result, data = _cumulative(input, dim, dtype, np.cumsum)
    data = data + 0  # the running sum starts at 0, so no partial sum is -0.
    return record(CUMSUM, (input,), np.asarray(data, dtype=result._numpy), result, dim=dim)


@op(nodes=(CUMPROD,), inplace=_cumulative_in_place(lambda input, dim, dtype: cumprod(input, dim, dtype=dtype),
                                                   "cumprod_out_cpu", "cumprod_"))
def cumprod(input: Tensor, dim: int, *, dtype: Optional[DType] = None) -> Tensor:
    result, data = _cumulative(input, dim, dtype, np.cumprod)
    return record(CUMPROD, (input,), np.asarray(data, dtype=result._numpy), result, dim=dim)


def _cumprod_grad(grad: Tensor, self: Tensor, result: Tensor, dim: int) -> Tensor:
    """d/dx_i of sum_k g_k prod_{j<=k} x_j, as PyTorch's cumprod_backward: without zeros a reversed
    cumsum divided by x; with a zero, for each i the products that leave x_i out, written in place."""
    if self.numel() <= 1 or self.shape[dim] == 1:
        return grad
    # complex inputs: the products are conjugated, as in PyTorch's (conjugate Wirtinger) formula
    self = self.conj()
    if bool(np.all(self._data != 0)):
        return (result.conj() * grad).flip(dim).cumsum(dim).flip(dim) / self
    n = self.shape[dim]
    grad_input = zeros(self.shape, grad._dtype)
    ones = Tensor._make(np.ones(self.shape[:dim] + (1,) + self.shape[dim + 1:], dtype=grad._dtype._numpy),
                        grad._dtype)
    for k in range(n):
        until_k = self.narrow(dim, 0, k).prod(dim, keepdim=True) if k else None
        from_k_plus_1 = self.narrow(dim, k + 1, n - k - 1).cumprod(dim) if k < n - 1 else None
        if until_k is None:
            omitted = cat([ones, from_k_plus_1], dim)
        elif from_k_plus_1 is None:
            omitted = until_k
        else:
            omitted = cat([until_k, until_k.expand_as(from_k_plus_1) * from_k_plus_1], dim)
        grad_input.select(dim, k).copy_((grad.narrow(dim, k, n - k) * omitted).sum(dim))
    return grad_input



AMINMAX = node("AminmaxBackward0", ("self",), saved=("min", "max"),
               self=lambda grad, self, dim, keepdim, _which: _amax_grad(grad, self, _which, dim, keepdim))
LOGCUMSUMEXP = node("LogcumsumexpBackward0", ("self",),
                    jvp={"self": lambda self_t, self, dim: _logcumsumexp_jvp(self, self_t, dim)},
                    self=lambda grad, self, result, dim: _logcumsumexp_grad(grad, self, result, dim))


def _logcumsumexp_jvp(self: Tensor, tangent: Tensor, dim: int) -> Tensor:
    """PyTorch's logcumsumexp_jvp: the tangents weighted by exp(x - max), cumulated, over the
    cumulated weights (0 where those are below 1e-13)."""
    weights = self.exp() if self._dtype.is_complex else (self - self.max(dim, keepdim=True)[0]).exp()
    total = weights.cumsum(dim)
    return where(total.abs() > 1e-13, (weights * tangent).cumsum(dim) / total, 0.0)


@op(nodes=(AMINMAX,))
def aminmax(input: Tensor, *, dim: Optional[int] = None, keepdim: bool = False) -> Any:
    if input.numel() == 0 and dim is None:
        raise RuntimeError("aminmax(): cannot compute aminmax over an empty dimension as the operation has no "
                           "identity.")
    if dim is not None and input.numel() == 0 and input.ndim and input.shape[wrap_dim(dim, input.ndim)] == 0:
        raise IndexError(f"aminmax: Expected reduction dim {dim} to have non-zero size.")
    if input.numel():
        check_not_complex("aminmax_cpu", input._dtype)
    low = _amax(input.detach(), () if dim is None else (dim,), keepdim, "amin")
    high = _amax(input.detach(), () if dim is None else (dim,), keepdim, "amax")
    saved = dict(dim=dim, keepdim=keepdim, min=low, max=high)
    outs = [record(AMINMAX, (input,), value._data, input._dtype, _which=value, **saved) for value in (low, high)]
    return ReturnTypes("aminmax", *outs, fields=("min", "max"))


def _logcumsumexp_grad(grad: Tensor, self: Tensor, result: Tensor, dim: int) -> Tensor:
    """PyTorch's logcumsumexp_backward (TensorFlow's): e^x_i * sum_{k>=i} grad_k / e^result_k taken
    in log space, the positive and the negative gradients apart, each op in the dtype; complex
    gradients by the plain sum."""
    if grad.ndim == 0 or grad.numel() == 0:
        return grad
    if grad._dtype.is_complex:
        weights = (grad * (-result).exp()).flip(dim).cumsum(dim).flip(dim)
        return weights * self.exp()
    # the dtype's lowest value (bfloat16's numpy float32 storage has another)
    lowest = grad.new_full((), -3.3895313892515355e38 if grad._dtype is dtypes.bfloat16
                           else float(np.finfo(grad._dtype._numpy).min))
    log_abs = grad.abs().log()
    positive = where(grad > 0, log_abs, lowest)
    negative = where(grad < 0, log_abs, lowest)

    def reverse(x: Tensor) -> Tensor:
        return logcumsumexp(x.flip(dim), dim).flip(dim)

    return (reverse(positive - result) + self).exp() - (reverse(negative - result) + self).exp()


@op(nodes=(LOGCUMSUMEXP,))
def logcumsumexp(input: Tensor, dim: int) -> Tensor:
    d = wrap_dim(dim, input.ndim)
    if input._dtype.category < dtypes.FLOATING:  # no integer kernel: PyTorch does not promote here
        raise not_implemented_for("logcumsumexp_out_cpu", input._dtype)
    dtype = input._dtype
    if dtype.is_complex:
        data = _complex_logcumsumexp(input._data.astype(np.complex128), d if input.ndim else None)
        return record(LOGCUMSUMEXP, (input,), np.asarray(data, dtype=dtype._numpy), dtype, dim=dim)
    x = input._data.astype(np.float64)
    # PyTorch adds each value to a running -inf as max + log1p(exp(min - max)): a -0.0 comes out +0.0
    data = (np.logaddexp.accumulate(x, axis=d) if input.ndim else x) + 0.0
    return record(LOGCUMSUMEXP, (input,), np.asarray(data, dtype=dtype._numpy), dtype, dim=dim)


def _complex_logcumsumexp(x: np.ndarray, d: Optional[int]) -> np.ndarray:
    """ATen's complex kernel: each value added to a running -inf, in complex double, by
    _log_add_exp_helper(running, value) (the operands ordered by real part, max + log1p(exp(min - max)), with
    c10's log1p; NaN in, NaN out; two infinities of one sign by their own rule)."""
    moved = np.moveaxis(x.reshape(1) if d is None else x, 0 if d is None else d, -1)
    out = np.empty_like(moved)
    running = np.full(moved.shape[:-1], complex(-np.inf, 0.0))
    with np.errstate(all="ignore"):
        for i in range(moved.shape[-1]):
            value = moved[..., i]
            low_real, high_real = np.minimum(value.real, running.real), np.maximum(value.real, running.real)
            # (the helper's first operand is the running value, its second the new one)
            value_nan = np.isnan(value.real) | np.isnan(value.imag)
            running_nan = np.isnan(running.real) | np.isnan(running.imag)
            first = running.real < value.real
            low = np.where(value_nan, value, np.where(running_nan, running, np.where(first, running, value)))
            high = np.where(value_nan, value, np.where(running_nan, running, np.where(first, value, running)))
            combined = _c10_log1p(np.exp(low - high)) + high
            infinite = ~np.isfinite(low_real) & (low_real == high_real)
            both = np.log(np.exp(running) + np.exp(value))
            running = np.where(np.isnan(low_real) | np.isnan(high_real), complex(np.nan, np.nan),
                               np.where(infinite, np.where(low_real < 0, running, both), combined))
            out[..., i] = running
    return np.moveaxis(out, -1, 0 if d is None else d).reshape(x.shape)


def _c10_log1p(z: np.ndarray) -> np.ndarray:
    """c10's complex log1p: log|1 + z| from log1p(x (x + 2) + y^2) near 0, else from hypot."""
    x, y = z.real, z.imag
    theta = np.arctan2(y, x + 1)
    near = np.abs(z) < 0.5
    r = x * (2 + x) + y * y
    real = np.where(near, np.where(r == 0, x, 0.5 * np.log1p(r)), np.log(np.hypot(x + 1, y)))
    return real + 1j * theta
