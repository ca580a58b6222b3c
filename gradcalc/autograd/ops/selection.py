"""Selecting and placing by index along a dim or in the flattened tensor: index_select,
index_add / copy / fill / reduce / put, take, take_along_dim, put, masked_select, masked_scatter,
scatter_reduce, nonzero, argwhere and fill_diagonal_."""
from __future__ import annotations

from typing import Any, Optional

import numpy as np

from .. import dtypes, grad_mode, meta
from ..grad_mode import FORWARD_LEVELS
from ..tensor import Tensor, wrap_dim
from ...warnings import warn_once
from .common import as_tensor, broadcast_shapes, check_not_unsigned, int64_tensor, kernel_scalar, zeros, zeros_like
from .generate import make_inplace
from .inplace import (OVERLAP_MESSAGE, check_batched_operands, check_inplace, commit_inplace, expanded_put,
                      internal_overlap, overlap)
from .indexing import (INDEX_PUT, _check_index, _check_positions, _check_scatter, check_masked_fill, gather, index_put,
                       masked_fill, masked_fill_values, numpy_index, put_values, write_before)
from .geometry import strided
from .joining import cat
from .registry import LINEAR, node, op, record


def _along(index: np.ndarray, dim: int, ndim: int) -> tuple:
    return (slice(None),) * dim + (index,) + (slice(None),) * (ndim - dim - 1)


def _index_vector(index: Tensor) -> np.ndarray:
    """index_select's checks of its index."""
    if index.ndim > 1:
        raise IndexError("index_select(): Index is supposed to be a vector")
    if index._dtype not in (dtypes.int64, dtypes.int32):
        raise RuntimeError("index_select(): Expected dtype int32 or int64 for index")
    return index._data.reshape(-1).astype(np.int64)


def _check_bounds(index: np.ndarray, size: int, dim: int, error: type = IndexError, prefix: str = "",
                  negative: bool = True) -> None:
    """Each index in [-size, size), or in [0, size) without `negative`, in the kernel's words."""
    bad = index[(index >= size) | (index < (-size if negative else 0))]
    if bad.size:
        raise error(f"{prefix}index {int(bad[0])} is out of bounds for dimension {dim} with size {size}")


def _source_slices(grad: Tensor, dim: int, index: Tensor, source: Tensor) -> Tensor:
    """The gradient of a source placed at `index` along `dim`: grad's slices there, in source's shape."""
    if source.ndim == 0:
        return grad.index_select(0, index).reshape(())
    return grad.index_select(dim, index)


INDEX_SELECT = node("IndexSelectBackward0", ("self",), saved_tensors=("index",), jvp=LINEAR,
                    self=lambda grad, dim, index, self_sym_sizes: index_add(
                        zeros(self_sym_sizes, dtype=grad.dtype), dim, index, grad))
INDEX_ADD = node("IndexAddBackward0", ("self", "source"), saved_tensors=("index",), saved=("source_dim",), jvp=LINEAR,
                 self=lambda grad: grad,
                 source=lambda grad, alpha, dim, index, source: _source_slices(grad, dim, index, source) * alpha)
INDEX_COPY = node("IndexCopyBackward0", ("self", "source"), saved_tensors=("index",), saved=("source_dim",),
                  jvp=LINEAR, self=lambda grad, dim, index: grad.index_fill(dim, index, 0),
                  source=lambda grad, dim, index, source: _source_slices(grad, dim, index, source))
INDEX_FILL = node("IndexFillBackward0", ("self",), saved_tensors=("index",), jvp=LINEAR,
                  self=lambda grad, dim, index: grad.index_fill(dim, index, 0))
INDEX_FILL_TENSOR = node("IndexFillBackward1", ("self", "value"), saved_tensors=("index",), jvp=LINEAR,
                         self=lambda grad, dim, index: grad.index_fill(dim, index, 0),
                         value=lambda grad, dim, index: grad.index_select(dim, index).sum())
TAKE = node("TakeBackward0", ("self",), saved_tensors=("index",), jvp=LINEAR,
            self=lambda grad, self, index: put(zeros_like(self), index, grad, True))
PUT = node("PutBackward0", ("self", "source"), saved_tensors=("index",), jvp=LINEAR,
           self=lambda grad, accumulate, index, source: grad if accumulate else put(grad, index, zeros_like(source)),
           source=lambda grad, index, source: take(grad, index).reshape(source.shape))
MASKED_SELECT = node("MaskedSelectBackward0", ("self",), saved_tensors=("mask",), jvp=LINEAR,
                     self=lambda grad, mask, self: masked_scatter(zeros(self.shape, dtype=grad.dtype), mask.expand(
                         self.shape) if mask.shape != self.shape else mask, grad))
MASKED_SCATTER = node("MaskedScatterBackward0", ("self", "source"), saved_tensors=("mask",), jvp=LINEAR,
                      self=lambda grad, mask: grad.masked_fill(mask, 0),
                      source=lambda grad, mask, source_sym_sizes: _masked_scatter_source_grad(grad, mask,
                                                                                               source_sym_sizes))
SCATTER_REDUCE = node("ScatterReduceBackward0", ("self", "src"), saved_tensors=("index",),
                      self=lambda grad, dim, index, src, reduce, include_self, self, result: _reduce_grads(
                          grad, self, dim, index, src, reduce, include_self, result, scatter=True)[0],
                      src=lambda grad, dim, index, src, reduce, include_self, self, result: _reduce_grads(
                          grad, self, dim, index, src, reduce, include_self, result, scatter=True)[1])
INDEX_REDUCE = node("IndexReduceBackward0", ("self", "source"), saved_tensors=("index",),
                    self=lambda grad, dim, index, source, reduce, include_self, self, result: _reduce_grads(
                        grad, self, dim, index, source, reduce, include_self, result, scatter=False)[0],
                    source=lambda grad, dim, index, source, reduce, include_self, self, result: _reduce_grads(
                        grad, self, dim, index, source, reduce, include_self, result, scatter=False)[1])


@op(nodes=(INDEX_SELECT,))
def index_select(input: Tensor, dim: int, index: Tensor) -> Tensor:
    check_not_unsigned("index_select", input._dtype)
    if input.ndim == 0 and index.numel() != 1:  # before the index's own checks
        raise RuntimeError(f"index_select(): Index to scalar can have only 1 value, got {index.numel()} value(s)")
    d = wrap_dim(dim, max(input.ndim, 1))
    positions = _index_vector(index)
    size = input.shape[d] if input.ndim else 1
    bad = positions[(positions >= size) | (positions < 0)]
    if bad.size:
        if input.ndim > 1 and d == 1:  # the kernel for dim 1 of a matrix checks in its own words
            raise RuntimeError(f"INDICES element is out of DATA bounds, id={int(bad[0])} axis_dim={size}")
        raise IndexError("index out of range in self")
    # (numpy's ascontiguousarray would make a 0-dim array 1-dim)
    data = np.ascontiguousarray(input._data[_along(positions, d, input.ndim)]) if input.ndim else input._data.copy()
    return record(INDEX_SELECT, (input,), data, input._dtype, dim=dim, index=index,
                  self_sym_sizes=input.shape)


def _placed(input: Tensor, dim: int, index: Tensor, source: Tensor, func: str) -> tuple:
    """index_add's and index_reduce's checks (ATen's index_func_meta_impl), then the kernel's bounds."""
    d = wrap_dim(dim, max(input.ndim, 1))
    if index.ndim > 1:
        raise IndexError(f"{func}_(): Index is supposed to be a vector, but got dim: {index.ndim} with type: "
                         f"{index._dtype._scalar_name} and size: {list(index.shape)}")
    if index._dtype not in (dtypes.int64, dtypes.int32):
        raise RuntimeError(f"{func}_(): Expected dtype int32/int64 for index but got: {index._dtype._scalar_name}")
    positions = index._data.reshape(-1).astype(np.int64)
    if input._dtype is not source._dtype:
        raise RuntimeError(f"{func}_(): self ({input._dtype._scalar_name}) and source ({source._dtype._scalar_name}) "
                           "must have the same scalar type")
    if not (d == 0 or d < source.ndim):
        raise RuntimeError(f"{func}_(): Indexing dim {d} is out of bounds of the source tensor with dim {source.ndim}")
    count = source.shape[d] if source.ndim else 1
    if positions.size != count:
        raise RuntimeError(f"{func}_(): Number of indices ({positions.size}) should be equal to source.size(dim): "
                           f"({count}), for dim: {d}")
    if _sliced(input.shape, d, input.ndim and source.ndim) != _sliced(source.shape, d, input.ndim and source.ndim):
        raise RuntimeError("source tensor shape must match self tensor shape, excluding the specified dimension. Got "
                           f"self.shape = {list(input.shape)} source.shape = {list(source.shape)}")
    return positions, d


def _sliced(shape: tuple, dim: int, erase: bool) -> list:
    """A shape without its size along `dim` (when `erase`): what index_add and index_copy compare."""
    return list(shape[:dim] + shape[dim + 1:]) if erase else list(shape)


@op(nodes=(INDEX_ADD,))
def index_add(input: Tensor, dim: int, index: Tensor, source: Tensor, *, alpha: Any = 1) -> Tensor:
    positions, d = _placed(input, dim, index, source, "index_add")
    _check_bounds(positions, input.shape[d] if input.ndim else 1, d, RuntimeError, negative=False)
    data = input._data.copy()
    values = source._data.astype(input._dtype._numpy) * alpha if alpha != 1 else source._data
    if input.ndim:
        np.add.at(data, _along(positions, d, input.ndim), values)
    else:
        data += values.reshape(())
    return record(INDEX_ADD, (input, source), data, input._dtype, alpha=alpha, dim=dim, index=index, source=source,
                  source_dim=source.ndim)


def _copied_places(input: Tensor, dim: int, index: Tensor, source: Tensor) -> tuple:
    """index_copy's checks, in its meta function's order and words, then the kernel's bounds."""
    d = wrap_dim(dim, max(input.ndim, 1))
    if index.ndim > 1:
        raise IndexError(f"index_copy_(): Index should have dimension 1 or 0 (got {index.ndim})")
    count = index.numel()
    if source.ndim == 0 and count != 1:
        raise IndexError(f"index_copy_(): When source is scalar, index should have one element (got {count})")
    if source.ndim != input.ndim and source.ndim and input.ndim:
        raise IndexError(f"index_copy_(): When source and destination are not scalars, their dimensionality must "
                         f"match. Source dimensionality ({source.ndim}), destination dimensionality ({input.ndim})")
    if index._dtype is not dtypes.int64:
        raise RuntimeError(f"index_copy_(): Expected a long tensor for index, but got {index._dtype._scalar_name}")
    if input._dtype is not source._dtype:
        raise RuntimeError(f"index_copy_(): self and source expected to have the same dtype, but got (self) "
                           f"{input._dtype._scalar_name} and (source) {source._dtype._scalar_name}")
    # (each shape erases its own size along dim; C++ prints the vectors' elements with spaces)
    mine, theirs = _sliced(input.shape, d, input.ndim), _sliced(source.shape, d, source.ndim)
    if mine != theirs:
        raise RuntimeError(f"index_copy_(): Source/destination tensor must have same slice shapes. Destination slice "
                           f"shape: {' '.join(map(str, mine))} at dimension {d} and source slice shape: "
                           f"{' '.join(map(str, theirs))} at dimension 0.")
    if source.ndim and count != source.shape[d]:
        raise IndexError(f"index_copy_(): Number of indices ({count}) should be equal to source.size(dim) "
                         f"({source.shape[d]})")
    positions = index._data.reshape(-1)
    _check_bounds(positions, input.shape[d] if input.ndim else 1, d, prefix="index_copy_(): ", negative=False)
    return positions, d


@op(nodes=(INDEX_COPY,))
def index_copy(input: Tensor, dim: int, index: Tensor, source: Tensor) -> Tensor:
    positions, d = _copied_places(input, dim, index, source)
    data = input._data.copy()
    if input.ndim:
        data[_along(positions, d, input.ndim)] = source._data
    else:
        data[...] = source._data.reshape(())
    return record(INDEX_COPY, (input, source), data, input._dtype, dim=dim, index=index, source=source,
                  source_dim=source.ndim)


@op(nodes=(INDEX_FILL, INDEX_FILL_TENSOR))
def index_fill(input: Tensor, dim: int, index: Tensor, value: Any) -> Tensor:
    if index._dtype is not dtypes.int64:
        raise IndexError("index_fill_(): Expected dtype int64 for index.")
    if index.ndim > 1:
        raise RuntimeError("Index has to be a vector/scalar")
    positions = index._data.reshape(-1)
    d = wrap_dim(dim, max(input.ndim, 1))
    # PyTorch restrides the input to one element along dim per index (stride 0): on an empty
    # input, the storage check of that view is the error
    base = input if input.ndim else Tensor._make(input._data.reshape(1), input._dtype)
    sizes, strides = list(base.shape), list(base.stride())
    sizes[d], strides[d] = index.numel(), 0
    strided(base, sizes, strides, None)
    _check_bounds(positions, input.shape[d] if input.ndim else 1, d)  # the dim wrapped, as its message shows
    if isinstance(value, Tensor) and value.ndim:
        raise RuntimeError(f"index_fill_ only supports a 0-dimensional value tensor, but got tensor with "
                           f"{value.ndim} dimension(s).")
    data = input._data.copy()
    number = value._data if isinstance(value, Tensor) else kernel_scalar(value, input._dtype)
    if input.ndim:
        data[_along(positions, d, input.ndim)] = number
    elif positions.size:
        data[...] = number
    if isinstance(value, Tensor):
        return record(INDEX_FILL_TENSOR, (input, value), data, input._dtype, dim=dim, index=index)
    return record(INDEX_FILL, (input,), data, input._dtype, dim=dim, index=index)


def _flat_positions(index: Tensor, numel: int) -> np.ndarray:
    positions = index._data.reshape(-1).astype(np.int64)
    bad = positions[(positions >= numel) | (positions < -numel)]
    if bad.size:
        raise IndexError(f"out of range: tried to access index {int(bad[0])} on a tensor of {numel} elements.")
    return np.where(positions < 0, positions + numel, positions)


@op(nodes=(TAKE,))
def take(input: Tensor, index: Tensor) -> Tensor:
    if index._dtype is not dtypes.int64:
        raise RuntimeError(f"take(): Expected a long tensor for index, but got {index._dtype._scalar_name}")
    if input.numel() == 0 and index.numel():
        raise IndexError("take(): tried to take from an empty tensor")
    positions = _flat_positions(index, input.numel())
    data = np.ascontiguousarray(input._data).reshape(-1)[positions].reshape(index.shape)
    return record(TAKE, (input,), data, input._dtype, index=index, self=input)


@op(nodes=(PUT,))
def put(input: Tensor, index: Tensor, source: Tensor, accumulate: bool = False) -> Tensor:
    if index._dtype is not dtypes.int64:  # (put_'s checks, in its order)
        raise IndexError(f"put_(): Expected a long tensor for index, but got {index._dtype._scalar_name}")
    if input._dtype is not source._dtype:
        raise RuntimeError(f"put_(): self and source expected to have the same dtype, but got self.dtype = "
                           f"{input._dtype._scalar_name} and source.dtype = {source._dtype._scalar_name}")
    if input.numel() == 0 and index.numel():
        raise IndexError("put_(): Tried to put elements into an empty tensor")
    positions = _flat_positions(index, input.numel())
    data = np.array(input._data, copy=True, order="C")
    flat = data.reshape(-1)
    values = source._data.reshape(-1).astype(input._dtype._numpy)
    if accumulate:
        np.add.at(flat, positions, values)
    else:
        flat[positions] = values
    return record(PUT, (input, source), data, input._dtype, accumulate=accumulate, index=index, source=source)


@op()
def take_along_dim(input: Tensor, indices: Tensor, dim: Optional[int] = None) -> Tensor:
    if dim is None:
        return gather(input.reshape(-1), 0, indices.reshape(-1))
    if indices._dtype is not dtypes.int64:  # its own check, before the dim's
        raise RuntimeError(f"torch.take_along_dim(): dtype of indices should be Long but got "
                           f"{indices._dtype._scalar_name}")
    d = wrap_dim(dim, input.ndim)
    shape_in, shape_index = list(input.shape), list(indices.shape)
    shape_in[d] = shape_index[d] = 1
    common = np.broadcast_shapes(tuple(shape_in), tuple(shape_index))
    expanded_in = list(common)
    expanded_in[d] = input.shape[d]
    expanded_index = list(common)
    expanded_index[d] = indices.shape[d]
    return gather(input.expand(tuple(expanded_in)), d, indices.expand(tuple(expanded_index)))



def _check_mask(mask: Tensor, name: str) -> None:
    if mask._dtype is not dtypes.bool_:
        raise RuntimeError(f"{name}: expected BoolTensor for mask")


@op(nodes=(MASKED_SELECT,))
def masked_select(input: Tensor, mask: Tensor) -> Tensor:
    _check_mask(mask, "masked_select")
    if meta.state["made"] and meta.any_meta((input, mask)):
        raise meta.no_meta_kernel("masked_select")
    data, keep = np.broadcast_arrays(input._data, mask._data)
    result = record(MASKED_SELECT, (input,), np.ascontiguousarray(data[keep]), input._dtype, mask=mask, self=input)
    if data.shape != input._data.shape and result.grad_fn is not None:
        # a broadcast input gathers its gradient back through expand, as PyTorch's composite does
        return masked_select(input.expand(data.shape), mask.expand(data.shape))
    return result


def _masked_scatter_source_grad(grad: Tensor, mask: Tensor, sizes: tuple) -> Tensor:
    selected = grad.masked_select(mask)
    total = int(np.prod(sizes, dtype=np.int64))
    padding = zeros((total - selected.numel(),), dtype=grad.dtype)
    return cat([selected, padding]).reshape(sizes)


@op(nodes=(MASKED_SCATTER,))
def masked_scatter(input: Tensor, mask: Tensor, source: Tensor) -> Tensor:
    if mask._dtype is not dtypes.bool_:
        raise RuntimeError(f"masked_scatter_ only supports boolean masks, but got mask with dtype "
                           f"{mask._dtype._cpp_name}")
    if input._dtype is not source._dtype:
        raise RuntimeError(f"masked_scatter: expected self and source to have same dtypes but got"
                           f"{input._dtype._scalar_name} and {source._dtype._scalar_name}")
    keep = np.broadcast_to(mask._data, input.shape)
    count = int(keep.sum())
    if source.numel() < count:
        raise RuntimeError("Number of elements of source < number of ones in mask")
    data = input._data.copy()
    data[keep] = source._data.reshape(-1)[:count]
    return record(MASKED_SCATTER, (input, source), data, input._dtype, mask=mask, source_sym_sizes=source.shape)


# ------------------------------------------------------------------ reductions into places

_REDUCTIONS = {"sum": np.add, "prod": np.multiply, "amax": np.maximum, "amin": np.minimum, "mean": np.add}


def _reduce_into(input: Tensor, positions: tuple, values: np.ndarray, reduce: str, include_self: bool) -> np.ndarray:
    """`input` with `values` reduced into `positions` (a numpy index), as scatter_reduce and index_reduce do."""
    data = input._data.copy()
    counts = np.zeros(data.shape, dtype=np.int64)
    np.add.at(counts, positions, 1)
    touched = counts > 0
    if not include_self:
        identity = {"sum": 0, "mean": 0, "prod": 1, "amax": -np.inf, "amin": np.inf}[reduce]
        if data.dtype.kind in "iub" and reduce in ("amax", "amin"):
            info = np.iinfo(data.dtype)
            identity = info.min if reduce == "amax" else info.max
        data[touched] = identity
    _REDUCTIONS[reduce].at(data, positions, values.astype(data.dtype))
    if reduce == "mean":
        divisor = counts + (1 if include_self else 0)
        divisor = np.where(touched, np.maximum(divisor, 1), 1)
        data = (data // divisor if data.dtype.kind in "iu" else data / divisor).astype(data.dtype)
    return data


def _reduce_grads(grad: Tensor, self: Tensor, dim: int, index: Tensor, src: Tensor, reduce: str, include_self: bool,
                  result: Tensor, scatter: bool) -> tuple:
    """The gradients of scatter_reduce / index_reduce for self and src, as PyTorch defines them:
    sum and mean spread the gradient, prod divides the product, amax/amin share it among ties."""
    d = wrap_dim(dim, max(self.ndim, 1))
    if scatter:
        def pick(t: Tensor) -> Tensor:
            return gather(t, d, index)
    else:
        def pick(t: Tensor) -> Tensor:
            return t.index_select(d, index)

    def spread(values: Tensor) -> Tensor:
        return (zeros_like(self).scatter_add(d, index, values) if scatter
                else zeros_like(self).index_add(d, index, values))

    touched = spread(pick(zeros_like(grad) + 1)) > 0
    if reduce == "sum":
        return grad, pick(grad)
    if reduce == "mean":
        counts = spread(pick(zeros_like(grad) + 1)) + (1 if include_self else 0)
        counts = counts.masked_fill(counts == 0, 1)
        scaled = grad / counts
        return (scaled if include_self else scaled.masked_fill(touched, 0)).where(touched, grad), pick(scaled)
    if reduce == "prod":
        # zeros handled exactly: a factor's derivative is the product of the others, which is the
        # product of the non-zero values when it is the only zero, and zero when there are more
        masked_src = src.masked_fill(src == 0, 1)
        masked_self = self.masked_fill(self == 0, 1)
        masked_result = masked_self.where(touched, zeros_like(self) + 1) if not include_self else masked_self
        masked_result = (masked_result.scatter_reduce(d, index, masked_src, "prod") if scatter
                         else masked_result.index_reduce(d, index, masked_src, "prod"))
        zero_count = spread((src == 0).to(grad.dtype)) + ((self == 0).to(grad.dtype) if include_self else 0)
        only_zero = masked_result.where(zero_count == 1, zeros_like(masked_result))
        self_grad = grad * (result / masked_self).where(self != 0, only_zero)
        if not include_self:
            self_grad = self_grad.masked_fill(touched, 0)
        src_grad = (pick(grad * result) / masked_src).where(src != 0, pick(grad * only_zero))
        return self_grad.where(touched, grad), src_grad
    # amax / amin: the gradient shared evenly among the values equal to the result
    self_hits = (self == result).to(grad.dtype)
    if not include_self:
        self_hits = self_hits.masked_fill(touched, 0)
    src_hits = (src == pick(result)).to(grad.dtype)
    share = grad / (self_hits + spread(src_hits)).masked_fill(~touched, 1).clamp_min(1)
    return (share * self_hits).where(touched, grad), pick(share) * src_hits


@op(nodes=(SCATTER_REDUCE,))
def scatter_reduce(input: Tensor, dim: int, index: Tensor, src: Tensor, reduce: str, *,
                   include_self: bool = True) -> Tensor:
    index_array = _check_index(index, "scatter", input, dim)
    d = _check_scatter(input, dim, index_array, src)
    if reduce not in _REDUCTIONS:
        raise RuntimeError(f"reduce argument must be either sum, prod, mean, amax or amin, got {reduce}")
    _check_positions(index_array, input, d)
    grids = list(np.indices(index.shape, sparse=True))
    grids[d] = index_array
    values = src._data[tuple(slice(0, n) for n in index.shape)]
    data = _reduce_into(input, tuple(grids), values, reduce, include_self)
    return record(SCATTER_REDUCE, (input, src), data, input._dtype, dim=dim, index=index, src=src, reduce=reduce,
                  include_self=include_self, self=input)


@op(nodes=(INDEX_REDUCE,))
def index_reduce(input: Tensor, dim: int, index: Tensor, source: Tensor, reduce: str, *,
                 include_self: bool = True) -> Tensor:
    if reduce not in ("prod", "mean", "amax", "amin"):
        raise RuntimeError(f"index_reduce(): Expected reduce to be one of prod, mean, amax or amin but got {reduce}.")
    positions, d = _placed(input, dim, index, source, "index_reduce")
    warn_once("UserWarning", "index_reduce() is in beta and the API may change at any time.")  # the kernel's
    size = input.shape[d] if input.ndim else 1
    if ((positions < 0) | (positions >= size)).any():
        raise IndexError("index out of range in self")
    data = _reduce_into(input, _along(positions, d, input.ndim), source._data, reduce, include_self)
    return record(INDEX_REDUCE, (input, source), data, input._dtype, dim=dim, index=index, source=source,
                  reduce=reduce, include_self=include_self, self=input)


# ------------------------------------------------------------------ positions of non-zeros

@op()
def nonzero(input: Tensor, *, as_tuple: bool = False) -> Any:
    check_not_unsigned("nonzero_count_cpu", input._dtype)
    if meta.state["made"] and meta.is_meta(input):  # its result's shape follows its values
        raise NotImplementedError(meta.NONZERO_UNIMPLEMENTED)
    return _nonzero(input, as_tuple)


def _nonzero(input: Tensor, as_tuple: bool = False) -> Any:
    found = np.nonzero(input._data) if input.ndim else np.nonzero(input._data.reshape(1))
    if as_tuple:
        return tuple(int64_tensor(axis) for axis in found) if input.ndim else (int64_tensor(found[0]),)
    # PyTorch's kernel writes the coordinates dim by dim: the result's strides are (1, count)
    return int64_tensor(np.stack(found).T if input.ndim else np.zeros((int(found[0].size), 0), np.int64))


@op()
def argwhere(input: Tensor) -> Tensor:
    return nonzero(input)


@op()
def nonzero_static(input: Tensor, *, size: int, fill_value: int = -1) -> Tensor:
    if size < 0:
        raise RuntimeError(f"nonzero_static: 'size' must be an non-negative integer, but got size: {size}")
    found = _nonzero(input)._data[:size]  # (a meta input too: the size is given)
    padding = np.full((size - found.shape[0], found.shape[1]), fill_value, dtype=np.int64)
    return int64_tensor(np.concatenate([found, padding]))


@op(module="nn")
def one_hot(input: Tensor, num_classes: int = -1) -> Tensor:
    """torch.nn.functional.one_hot: int64 rows with a one at each class value."""
    if input._dtype is not dtypes.int64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    values = input._data
    if values.size == 0:
        if num_classes <= 0:
            raise RuntimeError("Can not infer total number of classes from empty tensor.")
        return int64_tensor(np.zeros(values.shape + (num_classes,), np.int64))
    if values.min() < 0:
        raise RuntimeError("Class values must be non-negative.")
    if num_classes == -1:
        num_classes = int(values.max()) + 1
    elif num_classes <= values.max():
        raise RuntimeError("Class values must be smaller than num_classes.")
    return int64_tensor((values[..., None] == np.arange(num_classes)).astype(np.int64))


def _fill_diagonal(self: Tensor, fill_value: Any, wrap: bool = False) -> Tensor:
    if self.ndim < 2:
        raise RuntimeError("dimensions must larger than 1")
    if self.ndim > 2 and len(set(self.shape)) != 1:
        raise RuntimeError("all dimensions of input must be of equal length")
    # numpy.fill_diagonal's walk over the flat storage: a tall matrix's diagonal stops at its width
    # unless it wraps
    if self.ndim == 2:
        step, end = self.shape[1] + 1, self.numel() if wrap else self.shape[1] * self.shape[1]
    else:
        step, end = sum(int(np.prod(self.shape[k + 1:])) for k in range(self.ndim)), self.numel()
    positions = np.arange(0, min(end, self.numel()), step)
    if FORWARD_LEVELS:
        check_batched_operands("fill_diagonal_", self, {})
    return _put_in_place(self, index=int64_tensor(positions),
                         source=as_tensor(fill_value, self._dtype).expand(positions.shape))


_put_in_place = make_inplace(put)  # (unnamed: vmap's checks are fill_diagonal_'s)


op("fill_diagonal_", function=False, method=_fill_diagonal)(_fill_diagonal)


def unravel_index(indices: Any, shape: Any) -> tuple:
    """The coordinates in `shape` of flat indices, as a tuple of int64 tensors (torch.functional)."""
    indices = indices if isinstance(indices, Tensor) else int64_tensor(np.asarray(indices))
    if indices._dtype.category != dtypes.INTEGRAL or indices._dtype is dtypes.bool_:
        raise TypeError(f"expected 'indices' to be integer dtype, but got {indices._dtype}")
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    if any(size < 0 for size in shape):
        raise ValueError("'shape' cannot have negative values, but got " + str(shape))
    total = int(np.prod(shape, dtype=np.int64))
    flat = indices._data.astype(np.int64)
    if np.any((flat < -total) | (flat >= total)):
        raise RuntimeError("'indices' must be in range [-" + str(total) + ", " + str(total - 1) + "]")
    coordinates = np.unravel_index(np.where(flat < 0, flat + total, flat), shape)
    return tuple(int64_tensor(c) for c in coordinates)


op("unravel_index", python="torch.functional", method=False)(unravel_index)


def _index_put_in_place(input: Tensor, indices: Any, values: Tensor, accumulate: bool = False) -> Tensor:
    """index_put_: what the kernel writes before an index outside its dimension stays written."""
    key = numpy_index(tuple(indices))
    outside, expanded = put_values(input, key, values)
    if outside is not None and outside.error is not None:
        write_before(input, outside, expanded, accumulate)
        raise outside.error
    return index_put_tensors(input, indices, values, accumulate)


_index_put_checked = make_inplace(_index_put_in_place)


def _index_put_(input: Tensor, **bound: Any) -> Tensor:
    """index_put_: on a tensor whose elements share memory, warned and written element by element
    into it (expanded_put), the history recorded as of the memory written."""
    if not internal_overlap(input._data):
        return _index_put_checked(input, **bound)
    indices, values, accumulate = bound["indices"], bound["values"], bound.get("accumulate", False)
    check_inplace(input, values)
    masks = [index for index in indices if isinstance(index, Tensor)]
    expanded_put(input._data, not accumulate and isinstance(values, Tensor) and values._data.size == 1
                 and len(masks) == 1 and masks[0]._dtype is dtypes.bool_)
    if isinstance(values, Tensor) and overlap(input._data, values._data) in ("full", "partial"):
        raise RuntimeError(OVERLAP_MESSAGE)
    key = numpy_index(tuple(indices))
    outside, expanded = put_values(input, key, values)
    if outside is not None:
        if outside.error is not None:
            write_before(input, outside, expanded, accumulate)
            raise outside.error
        return input
    recorded = grad_mode.is_grad_enabled() and (input.requires_grad or expanded.requires_grad)
    out = index_put(input, key, expanded, accumulate) if recorded else None
    if accumulate:
        np.add.at(input._data, key, expanded._data)
    else:
        input._data[key] = expanded._data
    if out is None:
        input._vc.value += 1
        return input
    out._data = np.array(input._data)  # each element as the shared memory now holds it
    return commit_inplace(input, out)


@op("index_put", nodes=(INDEX_PUT,), inplace=_index_put_)
def index_put_tensors(input: Tensor, indices: Any, values: Tensor, accumulate: bool = False) -> Tensor:
    """x.index_put((rows, cols), values): indexing by a tuple of index tensors."""
    key = numpy_index(tuple(indices))
    outside, values = put_values(input, key, values)
    if outside is not None:
        if outside.error is not None:
            raise outside.error
        return input.clone()
    return index_put(input, key, values, accumulate)


def _masked_fill_in_place(input: Tensor, mask: Tensor, value: Any) -> Tensor:
    """masked_fill_: its own checks of the value and the mask first, then the mask's shape against
    the tensor's (TensorIterator's, the tensor written first)."""
    check_masked_fill(mask, value)
    broadcast_shapes(tuple(input.shape), tuple(mask.shape))
    return masked_fill_values(input, mask, value)


op("masked_fill", inplace=make_inplace(_masked_fill_in_place, name="masked_fill_"))(masked_fill)
