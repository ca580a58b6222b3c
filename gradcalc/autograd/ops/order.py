"""Order statistics and searches: kthvalue, mode, nanmedian, cummax, cummin, msort, quantile,
searchsorted, bucketize, unique, and the counts histc, histogram and bincount."""
from __future__ import annotations

import math
from typing import Any, Callable, Optional

import numpy as np

from .. import dtypes, meta
from ...boolean_dispatch import boolean_dispatch, renamed
from ..tensor import Tensor, wrap_dim
from .common import (ReturnTypes, check_not_complex, check_not_unsigned, check_reduction_size, int64_tensor,
                     kernel_scalar, not_implemented_for)
from .parser import parser
from .reduction import MISSING, evenly, scatter_back
from . import partition
from .registry import LINEAR, node, op, record
from .shape import squeeze_inplace
from .sorting import sort_order

KTHVALUE = node("KthvalueBackward0", ("self",), saved_tensors=("indices",), jvp=LINEAR,
                self=lambda grad, self_sym_sizes, dim, keepdim, indices: scatter_back(grad, self_sym_sizes, dim,
                                                                                      keepdim, indices))
MODE = node("ModeBackward0", ("self",), saved_tensors=("indices",), jvp=LINEAR,
            self=lambda grad, self_sym_sizes, dim, keepdim, indices: scatter_back(grad, self_sym_sizes, dim, keepdim,
                                                                                  indices))
NANMEDIAN = node("NanmedianBackward0", ("self",), self=lambda grad, self, result: evenly(grad, self, result))
NANMEDIAN_DIM = node("NanmedianBackward1", ("self",), saved_tensors=("indices",), jvp=LINEAR,
                     self=lambda grad, self_sym_sizes, dim, keepdim, indices: scatter_back(grad, self_sym_sizes, dim,
                                                                                           keepdim, indices))
CUMMAX = node("CummaxBackward0", ("self",), saved_tensors=("indices",), jvp=LINEAR,
              self=lambda grad, self, dim, indices: _cumulative_extreme_grad(grad, self, dim, indices))
CUMMIN = node("CumminBackward0", ("self",), saved_tensors=("indices",), jvp=LINEAR,
              self=lambda grad, self, dim, indices: _cumulative_extreme_grad(grad, self, dim, indices))


def _cumulative_extreme_grad(grad: Tensor, self: Tensor, dim: int, indices: Tensor) -> Tensor:
    if self.numel() == 0:
        return self
    return self.new_zeros(self.shape, dtype=grad.dtype).scatter_add(dim, indices, grad)


def _picked(kind: str, node_def: Any, a: Tensor, dim: int, keepdim: bool, values: np.ndarray, indices: np.ndarray,
            **params: Any) -> Any:
    if not keepdim:
        values, indices = np.squeeze(values, dim), np.squeeze(indices, dim)
    if a.ndim == 0:
        values, indices = values.reshape(()), indices.reshape(())
    out = record(node_def, (a,), np.array(values), a._dtype, self_sym_sizes=a.shape, dim=dim, keepdim=keepdim,
                 indices=np.asarray(indices), **params)
    return ReturnTypes(kind, out, int64_tensor(indices))


@op(nodes=(KTHVALUE,))
def kthvalue(input: Tensor, k: int, dim: int = -1, keepdim: bool = False) -> Any:
    d = wrap_dim(dim, input.ndim)
    if input._dtype is dtypes.bool_:
        raise not_implemented_for("kthvalue_cpu", input._dtype)
    x = input._data if input.ndim else input._data.reshape(1)
    size = x.shape[d]
    check_reduction_size("kthvalue", x, d)
    if not 1 <= k <= size:
        raise RuntimeError(f"kthvalue(): selected number k out of range for dimension {d}")
    check_not_complex("kthvalue_cpu", input._dtype)
    order = partition.by_rows(x, d, 1, lambda row: [partition.kth_index(row, k - 1)],
                              np.take(sort_order(x, d, descending=False), [k - 1], axis=d))
    return _picked("kthvalue", KTHVALUE, input, d, keepdim, np.take_along_axis(x, order, axis=d), order)


@op(nodes=(MODE,))
def mode(input: Tensor, dim: int = -1, keepdim: bool = False) -> Any:
    """The most frequent value along dim (the smallest among equally frequent ones) and the index
    of its last occurrence."""
    d = wrap_dim(dim, input.ndim)
    x = input._data if input.ndim else input._data.reshape(1)
    check_reduction_size("mode", x, d)
    check_not_complex("mode_cpu", input._dtype)
    moved = np.moveaxis(x, d, -1)
    values = np.empty(moved.shape[:-1], dtype=x.dtype)
    indices = np.empty(moved.shape[:-1], dtype=np.int64)
    for position in np.ndindex(moved.shape[:-1]):
        row = moved[position]
        candidates, counts = np.unique(row, return_counts=True)
        best = candidates[np.argmax(counts)]
        values[position] = best
        indices[position] = np.flatnonzero(row == best)[-1]
    values, indices = np.expand_dims(values, d), np.expand_dims(indices, d)
    return _picked("mode", MODE, input, d, keepdim, values, indices)


@op(nodes=(NANMEDIAN, NANMEDIAN_DIM))
def nanmedian(input: Tensor, dim: Any = MISSING, keepdim: bool = False) -> Any:
    """The lower median of the values that are not nan."""
    if dim is not MISSING or input.numel():
        check_not_complex("median_cpu" if dim is MISSING else "median_out", input._dtype)
        if input._dtype is dtypes.bool_:
            raise not_implemented_for("median_cpu" if dim is MISSING else "median_out", input._dtype)
    if dim is MISSING:
        flat = input._data.reshape(-1)
        kept = np.sort(flat[~np.isnan(flat)]) if flat.dtype.kind == "f" else np.sort(flat)
        value = kept[(kept.size - 1) // 2] if kept.size else np.nan
        return record(NANMEDIAN, (input,), np.asarray(value, dtype=input._dtype._numpy), input._dtype)
    d = wrap_dim(dim, input.ndim)
    x = input._data if input.ndim else input._data.reshape(1)
    check_reduction_size("nanmedian", x, d)
    order = sort_order(x, d, descending=False)
    nans = np.isnan(x).sum(axis=d, keepdims=True) if x.dtype.kind == "f" else np.zeros_like(order[:1])
    counted = x.shape[d] - nans
    position = np.where(counted > 0, (counted - 1) // 2, 0)
    indices = np.take_along_axis(order, position, axis=d)
    return _picked("nanmedian", NANMEDIAN_DIM, input, d, keepdim, np.take_along_axis(x, indices, axis=d), indices)


def _cumulative_extreme(input: Tensor, dim: int, largest: bool) -> Any:
    d = wrap_dim(dim, input.ndim)
    if input.numel():
        check_not_complex("cummax_cpu" if largest else "cummin_cpu", input._dtype)
    x = input._data if input.ndim else input._data.reshape(1)
    moved = np.moveaxis(x, d, -1)
    values = np.empty_like(moved)
    indices = np.empty(moved.shape, dtype=np.int64)
    best = moved[..., 0].copy() if moved.shape[-1] else None
    at = np.zeros(moved.shape[:-1], dtype=np.int64)
    for k in range(moved.shape[-1]):
        current = moved[..., k]
        better = (current >= best) if largest else (current <= best)
        if moved.dtype.kind == "f":  # a nan takes over, and then only a later nan does
            better = np.isnan(current) | (~np.isnan(best) & better)
        best = np.where(better, current, best)
        at = np.where(better, k, at)
        values[..., k], indices[..., k] = best, at
    values, indices = np.moveaxis(values, -1, d).reshape(input.shape), np.moveaxis(indices, -1, d).reshape(input.shape)
    node_def = CUMMAX if largest else CUMMIN
    indices_tensor = int64_tensor(indices)
    out = record(node_def, (input,), np.ascontiguousarray(values), input._dtype, dim=dim, indices=indices_tensor)
    return ReturnTypes("cummax" if largest else "cummin", out, indices_tensor)


@op(nodes=(CUMMAX,))
def cummax(input: Tensor, dim: int) -> Any:
    check_not_unsigned("cummax_cpu", input._dtype)
    return _cumulative_extreme(input, dim, largest=True)


@op(nodes=(CUMMIN,))
def cummin(input: Tensor, dim: int) -> Any:
    return _cumulative_extreme(input, dim, largest=False)


@op()
def msort(input: Tensor) -> Tensor:
    return input.sort(0).values


def _quantile(input: Tensor, q: Any, dim: Optional[int], keepdim: bool, interpolation: str, ignore_nan: bool) -> Tensor:
    name = "nanquantile" if ignore_nan else "quantile"
    if input._dtype.category != dtypes.FLOATING:
        raise RuntimeError(f"{name}() input tensor must be either float or double dtype")
    if interpolation not in ("linear", "lower", "higher", "midpoint", "nearest"):
        raise RuntimeError(f"{name}() interpolation must be one of linear, lower, higher, midpoint or nearest. Got "
                           f"{interpolation}")
    scalar_q = not isinstance(q, Tensor)
    qs = np.atleast_1d(np.asarray(q.detach().tolist() if isinstance(q, Tensor) else q, dtype=np.float64))
    if not np.all((qs >= 0) & (qs <= 1)):  # (a NaN fails it too)
        if scalar_q:
            raise RuntimeError(f"{name}() q must be in the range [0, 1] but got {dtypes.cpp_double(float(q))}")
        raise RuntimeError(f"{name}() q values must be in the range [0, 1]")
    values = input.flatten() if dim is None else input.movedim(dim, -1)
    ordered = values.sort(-1).values
    size = ordered.shape[-1]
    valid = (ordered.isnan().logical_not().sum(-1, keepdim=True) if ignore_nan
             else Tensor._make(np.full(ordered.shape[:-1] + (1,), size), dtypes.int64))
    ranks = qs * (valid._data - 1).astype(np.float64)[..., None]  # (..., 1, len(q))
    if interpolation == "lower":
        ranks = np.floor(ranks)
    elif interpolation == "higher":
        ranks = np.ceil(ranks)
    elif interpolation == "nearest":
        ranks = np.round(ranks)
    has_nan = np.isnan(ordered._data).any(axis=-1, keepdims=True)[..., None] if not ignore_nan else None
    below = np.floor(ranks).astype(np.int64)
    above = np.ceil(ranks).astype(np.int64)
    if has_nan is not None:
        below, above = np.where(has_nan, size - 1, below), np.where(has_nan, size - 1, above)
    below, above = below.reshape(ordered.shape[:-1] + (-1,)), above.reshape(ordered.shape[:-1] + (-1,))
    low = ordered.gather(-1, int64_tensor(np.maximum(below, 0)))
    high = ordered.gather(-1, int64_tensor(np.maximum(above, 0)))
    weights = (ranks - np.floor(ranks)).reshape(below.shape)
    if interpolation == "midpoint":
        weights = np.where(below != above, 0.5, 0.0)
    result = low.lerp(high, Tensor._make(np.asarray(weights, dtype=input._dtype._numpy), input._dtype))
    result = result.movedim(-1, 0)  # the quantiles lead the shape
    if dim is not None and keepdim:
        result = result.unsqueeze(wrap_dim(dim, input.ndim) + 1)
    elif dim is None and keepdim:
        result = result.reshape((len(qs),) + (1,) * input.ndim)
    return squeeze_inplace(result, 0) if scalar_q else result


@op()
def quantile(input: Tensor, q: Any, dim: Optional[int] = None, keepdim: bool = False, *,
             interpolation: str = "linear") -> Tensor:
    return _quantile(input, q, dim, keepdim, interpolation, ignore_nan=False)


@op()
def nanquantile(input: Tensor, q: Any, dim: Optional[int] = None, keepdim: bool = False, *,
                interpolation: str = "linear") -> Tensor:
    return _quantile(input, q, dim, keepdim, interpolation, ignore_nan=True)


@op()
def searchsorted(sorted_sequence: Tensor, input: Any = None, *, out_int32: bool = False, right: bool = False,
                 side: Optional[str] = None, sorter: Optional[Tensor] = None, self: Any = None) -> Tensor:
    values = self if input is None else input
    if side is not None:
        if side not in ("left", "right"):
            raise RuntimeError(f"torch.searchsorted(): side can only be 'left' or 'right' but got {side}")
        if right and side == "left":
            raise RuntimeError("torch.searchsorted(): side and right can't be set to opposites, got side of left "
                               "while right was True")
        right = side == "right"
    check_not_complex("searchsorted_out_cpu", sorted_sequence._dtype)
    if isinstance(values, Tensor):
        check_not_complex("searchsorted_out_cpu", values._dtype)
    if sorted_sequence._dtype is dtypes.bool_ and dtypes.result_type([sorted_sequence, values]) is dtypes.bool_:
        raise not_implemented_for("searchsorted_out_cpu", dtypes.bool_)  # (the kernel's, in the common dtype)
    boundaries = sorted_sequence._data
    if sorter is not None:
        boundaries = np.take_along_axis(boundaries, sorter._data, axis=-1)
    queries = values._data if isinstance(values, Tensor) else np.asarray(values)
    how = "right" if right else "left"
    if boundaries.ndim == 1:
        data = np.searchsorted(boundaries, queries, side=how)
    else:
        rows = boundaries.reshape(-1, boundaries.shape[-1])
        flat = queries.reshape(rows.shape[0], -1)
        data = np.stack([np.searchsorted(row, query, side=how) for row, query in zip(rows, flat)]).reshape(
            queries.shape)
    dtype = dtypes.int32 if out_int32 else dtypes.int64
    return Tensor._make(np.asarray(data, dtype=dtype._numpy), dtype)


@op()
def bucketize(input: Any = None, boundaries: Tensor = None, *, out_int32: bool = False, right: bool = False,
              self: Any = None) -> Tensor:
    if boundaries.ndim != 1:
        raise RuntimeError(f"boundaries tensor must be 1 dimension, but got dim({boundaries.ndim})")
    return searchsorted(boundaries, self if input is None else input, out_int32=out_int32, right=right)


def _unique(input: Tensor, sorted: bool, return_inverse: bool, return_counts: bool, dim: Optional[int],
            consecutive: bool) -> Any:
    # torch's Python calls one of three C functions, whose parsers refuse a flag that is no bool
    flags = {"return_inverse": return_inverse, "return_counts": return_counts}
    if consecutive:
        operator = "unique_consecutive"
        parser("torch", operator).parse((input,), {**flags, "dim": dim})
    elif dim is not None:
        operator = "unique_dim"
        parser("torch", operator).parse((input, dim), {"sorted": sorted, **flags})
    else:
        operator = "_unique2"
        parser("_C", operator).parse((input,), {"sorted": sorted, **flags})
    if meta.state["made"] and meta.is_meta(input):
        raise meta.no_meta_kernel(operator)
    check_not_complex("unique_dim" if operator == "unique_dim" else "unique", input._dtype)
    x = input._data
    if dim is not None:
        d = wrap_dim(dim, input.ndim)
        moved = np.moveaxis(x, d, 0).reshape(x.shape[d], -1)
        if consecutive:
            keep = np.ones(len(moved), bool)
            keep[1:] = np.any(moved[1:] != moved[:-1], axis=1)
            starts = np.flatnonzero(keep)
            inverse = np.cumsum(keep) - 1
            counts = np.diff(np.append(starts, len(moved)))
            picked = moved[starts]
        else:
            picked, inverse, counts = np.unique(moved, axis=0, return_inverse=True, return_counts=True)
        shape = (len(picked),) + tuple(np.delete(np.array(x.shape), d))
        values = np.moveaxis(picked.reshape(shape), 0, d)
        inverse_shape = (x.shape[d],)
    else:
        flat = x.reshape(-1)
        if consecutive:
            keep = np.ones(flat.size, bool)
            keep[1:] = flat[1:] != flat[:-1]
            values = flat[keep]
            inverse = np.cumsum(keep) - 1
            counts = np.diff(np.append(np.flatnonzero(keep), flat.size))
        else:
            values, inverse, counts = np.unique(flat, return_inverse=True, return_counts=True)
        inverse_shape = input.shape
    out = Tensor._make(np.ascontiguousarray(values), input._dtype)
    results = [out]
    if return_inverse:
        results.append(int64_tensor(inverse.reshape(inverse_shape)))
    if return_counts:
        results.append(int64_tensor(counts))
    return results[0] if len(results) == 1 else tuple(results)


def _unique_method(self: Tensor, sorted: bool = True, return_inverse: bool = False, return_counts: bool = False,
                   dim: Optional[int] = None) -> Any:
    return _unique(self, sorted, return_inverse, return_counts, dim, consecutive=False)


def _unique_function(input: Tensor, sorted: bool = True, return_inverse: bool = False, return_counts: bool = False,
                     dim: Optional[int] = None) -> Any:
    return _unique(input, sorted, return_inverse, return_counts, dim, consecutive=False)


def _unique_dispatch(function: Callable, name: str, names: tuple, counts_index: int) -> Callable:
    """torch.functional's `name`: boolean_dispatch over return_inverse (argument 2), then return_counts
    (argument `counts_index`, torch's own), to four copies of `function` named as torch's (`names`:
    neither, inverse, counts, both)."""
    module = "torch.functional"
    output, inverse, counts, both = (renamed(function, target, module) for target in names)
    return boolean_dispatch("return_inverse", 2, False,
                            boolean_dispatch("return_counts", counts_index, False, both, inverse, module, name),
                            boolean_dispatch("return_counts", counts_index, False, counts, output, module, name),
                            module, name)


_UNIQUE = _unique_dispatch(_unique_function, "unique",
                           ("_return_output", "_return_inverse", "_return_counts", "_return_inverse_and_counts"), 3)
op("unique", python="torch.functional", method=_unique_method)(_UNIQUE)


def _unique_consecutive_method(self: Tensor, return_inverse: bool = False, return_counts: bool = False,
                               dim: Optional[int] = None) -> Any:
    return _unique(self, True, return_inverse, return_counts, dim, consecutive=True)


def _unique_consecutive_function(input: Tensor, return_inverse: bool = False, return_counts: bool = False,
                                 dim: Optional[int] = None) -> Any:
    return _unique(input, True, return_inverse, return_counts, dim, consecutive=True)


_UNIQUE_CONSECUTIVE = _unique_dispatch(
    _unique_consecutive_function, "unique_consecutive",
    ("_consecutive_return_output", "_consecutive_return_inverse", "_consecutive_return_counts",
     "_consecutive_return_inverse_and_counts"), 1)
op("unique_consecutive", python="torch.functional", method=_unique_consecutive_method)(_UNIQUE_CONSECUTIVE)


@op()
def histc(input: Tensor, bins: int = 100, min: Any = 0, max: Any = 0) -> Tensor:
    if input._dtype.is_complex and min == max:  # the range is the input's own, found first
        raise not_implemented_for("aminmax_cpu", input._dtype)
    if input._dtype is dtypes.bool_:  # the bins' edges come first, in the input's dtype
        raise not_implemented_for("linspace_cpu", input._dtype)
    if input._dtype.category != dtypes.FLOATING:
        raise not_implemented_for("histogram_cpu", input._dtype)
    if bins <= 0:
        raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {bins} for dimension 0")
    x = input._data.astype(np.float64).reshape(-1)
    low, high = float(min), float(max)
    kernel_scalar(min, input._dtype), kernel_scalar(max, input._dtype)  # (read in the input's type)
    if low == high and x.size:
        low, high = float(x.min()), float(x.max())
        if math.isnan(low) and x.size > 1:  # aminmax's vectorised NaN has every bit set: negative
            low = high = -math.nan
    elif low > high:
        raise RuntimeError("torch.histc: max must be larger than min")
    if not (math.isfinite(low) and math.isfinite(high)):  # C++'s stream shows doubles as %g does
        raise RuntimeError(f"torch.histc: range of [{dtypes.cpp_double(low)}, {dtypes.cpp_double(high)}] is not finite")
    if low == high:
        low, high = low - 1, high + 1
    counts, _ = np.histogram(x, bins=bins, range=(low, high))
    return Tensor._make(counts.astype(input._dtype._numpy), input._dtype)


@op()
def histogram(input: Tensor, bins: Any = 100, *, range: Any = None, weight: Optional[Tensor] = None,
              density: bool = False) -> Any:
    if input._dtype not in (dtypes.float32, dtypes.float64):  # (the kernel's dispatch)
        raise not_implemented_for("histogramdd", input._dtype)
    x = input._data.reshape(-1)
    edges = bins._data if isinstance(bins, Tensor) else bins
    counts, bin_edges = np.histogram(x, bins=edges, range=range, weights=None if weight is None else
                                     weight._data.reshape(-1), density=density)
    return ReturnTypes("histogram", Tensor._make(counts.astype(input._dtype._numpy), input._dtype),
                       Tensor._make(bin_edges.astype(input._dtype._numpy), input._dtype), fields=("hist", "bin_edges"))


@op()
def bincount(input: Tensor, weights: Optional[Tensor] = None, minlength: int = 0) -> Tensor:
    check_not_unsigned("bincount_cpu", input._dtype)
    if input._dtype.category != dtypes.INTEGRAL:  # (the kernel's dispatch on integral types, bool not one)
        raise not_implemented_for("bincount_cpu", input._dtype)
    if input.ndim != 1:
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if input.numel() and input._data.min() < 0:
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if weights is None:
        return int64_tensor(np.bincount(input._data, minlength=minlength))
    dtype = weights._dtype if weights._dtype.category == dtypes.FLOATING else dtypes.float64
    counts = np.bincount(input._data, weights=weights._data.astype(np.float64), minlength=minlength)
    return Tensor._make(counts.astype(dtype._numpy), dtype)



@op()
def histogramdd(input: Tensor, bins: Any, range: Any = None, weight: Optional[Tensor] = None,
                density: bool = False) -> Any:
    """Counts of the rows of input (points with input.shape[-1] coordinates) in a grid of bins."""
    dims = input.shape[-1]
    points = input._data.reshape(-1, dims).astype(np.float64)
    if isinstance(bins, int):
        edges: Any = [bins] * dims
    else:
        edges = [b._data.astype(np.float64) if isinstance(b, Tensor) else b for b in bins]
    ranges = None if range is None else list(zip(range[0::2], range[1::2]))
    counts, bin_edges = np.histogramdd(points, bins=edges, range=ranges, density=density,
                                       weights=None if weight is None else weight._data.reshape(-1))
    dtype = input._dtype
    return ReturnTypes("histogramdd", Tensor._make(counts.astype(dtype._numpy), dtype),
                       tuple(Tensor._make(e.astype(dtype._numpy), dtype) for e in bin_edges),
                       fields=("hist", "bin_edges"))
