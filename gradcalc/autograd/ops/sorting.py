"""Sorting and order statistics: sort, argsort, topk, median."""
from __future__ import annotations

from typing import Any, Optional

import numpy as np

from .. import dtypes
from ..tensor import Tensor, wrap_dim
from .common import (ReturnTypes, check_has_kernel, check_reduction_size, check_not_complex, check_not_unsigned,
                     int64_tensor)
from .reduction import MISSING, evenly, scatter_back
from . import partition
from .registry import LINEAR, node, op, record

# sort and topk pick values: their gradient goes back to where each value came from
SORT = node("SortBackward0", ("self",), saved_tensors=("indices",), jvp=LINEAR,
            self=lambda grad, self_sym_sizes, dim, indices: scatter_back(grad, self_sym_sizes, dim, True, indices))
SORT_STABLE = node("SortBackward1", ("self",), saved_tensors=("indices",), jvp=LINEAR,
                   self=lambda grad, self_sym_sizes, dim, indices: scatter_back(grad, self_sym_sizes, dim, True,
                                                                                indices))
TOPK = node("TopkBackward0", ("self",), saved_tensors=("indices",), jvp=LINEAR,
            self=lambda grad, self_sym_sizes, dim, indices: scatter_back(grad, self_sym_sizes, dim, True, indices))
MEDIAN = node("MedianBackward0", ("self",), self=lambda grad, self, result: evenly(grad, self, result))
MEDIAN_DIM = node("MedianBackward1", ("self",), saved_tensors=("indices",), jvp=LINEAR,
                  self=lambda grad, self_sym_sizes, dim, keepdim, indices: scatter_back(grad, self_sym_sizes, dim,
                                                                                        keepdim, indices))


def sort_order(x: np.ndarray, dim: int, descending: bool) -> np.ndarray:
    """Stable order along dim, nan counted as the largest value (as PyTorch's sort)."""
    if not x.ndim:
        return np.zeros((), np.int64)
    moved = np.moveaxis(x, dim, -1)
    nan = np.isnan(moved) if moved.dtype.kind in "fc" else np.zeros(moved.shape, bool)
    value = np.where(nan, 0, moved) if moved.dtype.kind != "b" else moved.astype(np.int8)
    order = np.lexsort((-value, ~nan) if descending else (value, nan), axis=-1)
    return np.moveaxis(order, -1, dim)


@op(nodes=(SORT, SORT_STABLE))
def sort(input: Tensor, dim: int = -1, descending: bool = False, *, stable: Optional[bool] = MISSING) -> Any:
    d = wrap_dim(dim, input.ndim)
    _check_sortable("Sort", input)
    order = sort_order(input._data, d, descending)
    values = np.take_along_axis(input._data, order, axis=d) if input.ndim else input._data.copy()
    node_def = SORT if stable is MISSING else SORT_STABLE
    out = record(node_def, (input,), values, input._dtype, self_sym_sizes=input.shape, dim=dim, indices=order)
    return ReturnTypes("sort", out, int64_tensor(order))


@op()
def argsort(input: Tensor, dim: int = -1, descending: bool = False, *, stable: bool = False) -> Tensor:
    d = wrap_dim(dim, input.ndim)
    _check_sortable("Sort", input)
    return int64_tensor(sort_order(input._data, d, descending))


def _check_sortable(name: str, input: Tensor) -> None:
    if input._dtype.is_complex:  # (the message begins with a space in PyTorch)
        raise RuntimeError(f" {name} does not support complex dtypes on CPU")


@op(nodes=(TOPK,))
def topk(input: Tensor, k: int, dim: int = -1, largest: bool = True, sorted: bool = True) -> Any:
    check_not_unsigned("topk_cpu", input._dtype)
    d = wrap_dim(dim, input.ndim)
    size = input.shape[d] if input.ndim else 1
    if not 0 <= k <= size:
        raise RuntimeError("selected index k out of range")
    _check_sortable("topk", input)
    # the shape checks come first: the dtype is refused only by the CPU kernel
    if input._dtype is dtypes.bool_:
        raise RuntimeError("topk does not support bool dtypes on CPU")
    order = sort_order(input._data, d, descending=largest)
    if input.ndim:
        order = order[(slice(None),) * d + (slice(0, k),)]
        # among equal values, the index PyTorch's selection algorithm leaves in place
        order = partition.by_rows(input._data, d, k, lambda row: partition.topk_order(row, k, largest, sorted),
                                  order, always=not sorted)
    values = np.take_along_axis(input._data, order, axis=d) if input.ndim else input._data.copy()
    out = record(TOPK, (input,), values, input._dtype, self_sym_sizes=input.shape, dim=dim, indices=order)
    return ReturnTypes("topk", out, int64_tensor(order))


@op(nodes=(MEDIAN, MEDIAN_DIM))
def median(input: Tensor, dim: Any = MISSING, keepdim: bool = False) -> Any:
    """The lower median; with a dim, its position in a stable sort (a nan, the first nan, wins)."""
    a = input
    if dim is MISSING:
        check_has_kernel("median_cpu", a)
        if a.numel():
            check_not_complex("median_cpu", a._dtype)
        flat = np.sort(a._data.reshape(-1))  # nan sorts last
        # nothing to choose from: nan, or for integers the smallest value, as PyTorch's kernel leaves it
        empty = np.nan if a._dtype.category >= dtypes.FLOATING else np.iinfo(a._dtype._numpy).min
        value = flat[(flat.size - 1) // 2] if flat.size else empty
        if flat.size and flat.dtype.kind == "f" and np.isnan(flat[-1]):
            value = np.nan
        return record(MEDIAN, (a,), np.asarray(value, dtype=a._dtype._numpy), a._dtype)
    check_has_kernel("median_out", a)
    check_not_complex("median_out", a._dtype)
    d = wrap_dim(dim, a.ndim)
    x = a._data if a.ndim else a._data.reshape(1)
    check_reduction_size("median", x, d)
    order = sort_order(x, d, descending=False)
    size = x.shape[d]
    position = np.full(x.shape[:d] + (1,) + x.shape[d + 1:], (size - 1) // 2)
    if x.dtype.kind == "f":  # a row with nan: the first nan in the sorted order
        nans = np.isnan(x).sum(axis=d, keepdims=True)
        position = np.where(nans > 0, size - nans, position)
    indices = np.take_along_axis(order, position, axis=d)
    values = np.take_along_axis(x, indices, axis=d)
    if not keepdim or not a.ndim:
        indices, values = np.squeeze(indices, d), np.squeeze(values, d)
    if not a.ndim:
        indices, values = indices.reshape(()), values.reshape(())
    out = record(MEDIAN_DIM, (a,), np.array(values), a._dtype, self_sym_sizes=a.shape, dim=dim, keepdim=keepdim,
                 indices=np.asarray(indices))
    return ReturnTypes("median", out, int64_tensor(indices))
