"""Indexing: `x[...]`, index_put, gather, scatter, masked_fill and where."""
from __future__ import annotations

import math
import operator
from typing import Any, NamedTuple, Optional

import numpy as np

from .. import dtypes, layout, meta
from ..native import kernels as native
from ..tensor import Tensor, wrap_dim
from ...display.names import type_name
from ...warnings import warn, warn_once
from .common import (COMPLEX_TO_REAL_WARNING, arrays, as_tensor, batch_front, broadcast_shapes, check_not_unsigned,
                     kernel_scalar, op_recursion, opmath_scalar, real_scalar, shape_text, zeros, zeros_like)
from .creation import data_array, infer_dtype
from .parser import unpack_long
from .tensor_numpy import numpy_dtype
from .registry import LINEAR, NOT_IMPLEMENTED, node, op, record, recording_not_needed
from .conversion import to_dtype
from .shape import ALIAS, SELECT, expand, reshape, select, slice_dim, unsqueeze

INDEX = node("IndexBackward0", ("self",), saved_tensors=("indices",), jvp=LINEAR,
             self=lambda grad, self_sym_sizes, indices: _index_grad(grad, self_sym_sizes, indices))
INDEX_PUT = node("IndexPutBackward0", ("self", "values"), saved_tensors=("indices",), jvp=LINEAR,
                 self=lambda grad, indices, accumulate: grad if accumulate else index_put(
                     grad, indices, zeros_like(grad[indices]), False),
                 values=lambda grad, indices: grad[indices])
# the accumulating index_put that the backward of indexing records (torch's _index_put_impl_)
INDEX_PUT_IMPL = node("IndexPutImplBackward0", ("self", "values"), saved_tensors=("indices",), jvp=LINEAR,
                      self=INDEX_PUT.formulas[0], values=INDEX_PUT.formulas[1])
SCATTER_SRC = node("ScatterBackward0", ("self", "src"), saved_tensors=("index",), jvp=LINEAR,
                   self=lambda grad, dim, index: scatter(grad, dim, index, zeros(index.shape, dtype=grad.dtype)),
                   src=lambda grad, dim, index: gather(grad, dim, index))
GATHER = node("GatherBackward0", ("self",), saved_tensors=("index",), saved=("sparse_grad",), jvp=LINEAR,
              self=lambda grad, self, dim, index: scatter_add(zeros(self.shape, dtype=grad.dtype), dim, index, grad))
SCATTER_VALUE = node("ScatterBackward1", ("self",), saved_tensors=("index",), jvp=LINEAR,
                     self=lambda grad, dim, index: scatter(grad, dim, index, value=0))
SCATTER_ADD = node("ScatterAddBackward0", ("self", "src"), saved_tensors=("index",), jvp=LINEAR,
                   self=lambda grad: grad, src=lambda grad, dim, index: gather(grad, dim, index))
MASKED_FILL = node("MaskedFillBackward0", ("self",), saved_tensors=("mask",), jvp=LINEAR,
                   self=lambda grad, mask: masked_fill(grad, mask, 0))
MASKED_FILL_TENSOR = node("MaskedFillBackward1", ("self", "value"), saved_tensors=("mask",), jvp=LINEAR,
                          self=lambda grad, mask: masked_fill(grad, mask, 0),
                          value=lambda grad, mask: where(mask, grad, zeros_like(grad)).sum())
WHERE = node("WhereBackward0", ("self", "other"), saved_tensors=("condition",), jvp=LINEAR,
             self=lambda grad, condition: where(condition, grad, zeros_like(grad)),
             other=lambda grad, condition: where(condition, zeros_like(grad), grad))


SEQUENCE_AS_TUPLE_WARNING = (
    "Using a non-tuple sequence for multidimensional indexing is deprecated and will be changed in pytorch 2.9; use "
    "x[tuple(seq)] instead of x[seq]. In pytorch 2.9 this will be interpreted as tensor index, x[torch.tensor(seq)], "
    "which will result either in an error or a different result")


def _sequence_as_tuple(index: Any) -> Any:
    """PyTorch's legacy rule (NumPy's old one): a list (or a str, a sequence of strs) of fewer than
    32 items, one of which is a tensor, a sequence, None, ... or a slice, indexes as the tuple of
    its items, with a warning."""
    if len(index) < 32:
        for item in index:
            if isinstance(item, (Tensor, list, tuple, range, str, bytes, slice)) or item is None or item is Ellipsis:
                warn("UserWarning", SEQUENCE_AS_TUPLE_WARNING)
                return tuple(index)
    return index


def ranges_as_lists(index: Any) -> Any:
    """A range, or a tuple inside an index's tuple, is a sequence of ints to PyTorch, as a list of
    them is; a list of indices is read as a tuple of them by PyTorch's legacy rule."""
    if type(index) is list or isinstance(index, str):
        index = _sequence_as_tuple(index)
    if isinstance(index, range):
        return list(index)
    if isinstance(index, tuple) and any(isinstance(item, (range, tuple)) for item in index):
        return tuple(list(item) if isinstance(item, (range, tuple)) else item for item in index)
    return index


def getitem(a: Tensor, index: Any) -> Tensor:
    try:
        data = a._data
        if index.__class__ is int and data.ndim and -data.shape[0] <= index < data.shape[0]:
            # `x[i]`, the commonest index: what basic_index's select comes to (its 0-d result a view too)
            return record(SELECT, (a,), data[index, ...], a._dtype, view_of=a,
                          self_sym_sizes=a.shape, dim=0, index=index)
        if index.__class__ is Tensor and index._dtype is dtypes.int64 and index._data.ndim and data.ndim and \
                _in_bounds(index, data.shape[0]):
            # `C[X]`, rows of an embedding: what _advanced_index comes to for one tensor of rows in bounds
            key = (index._data,)
            return record(INDEX, (a,), np.ascontiguousarray(data[key]), a._dtype, self_sym_sizes=a.shape,
                          indices=key)
        index = ranges_as_lists(index)
        items = index if isinstance(index, tuple) else (index,)
        if _any_advanced(items):
            return _advanced_index(a, items)
        out = basic_index(a, index, items)
        if out is a:
            return record(ALIAS, (a,), a._data.view(), a._dtype, view_of=a)
        return out
    except RecursionError as error:  # PyTorch's indexing meets the limit in no call of its own: plain words
        raise op_recursion(error, "maximum recursion depth exceeded") from None


def basic_index(a: Tensor, index: Any, items: tuple, assigning: bool = False) -> Tensor:
    """The view that integers, slices, None and ... select: `a` itself when they select all of it."""
    if sum(1 for item in items if item is Ellipsis) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    specified = sum(1 for item in items if item is not None and item is not Ellipsis)
    if a.ndim == 0 and isinstance(index, slice):
        _unpack_slice(index)  # (PySlice_Unpack's errors come first)
        raise IndexError("slice() cannot be applied to a 0-dim tensor.")
    if a.ndim == 0 and isinstance(index, int) and not isinstance(index, bool):
        unpack_long(index)
        if index != 0:  # PyTorch's bounds check, for which a 0-dim tensor has size 0
            raise IndexError(f"index {index} is out of bounds for dimension 0 with size 0")
        raise IndexError("invalid index of a 0-dim tensor. Use `tensor.item()` in Python or `tensor.item<T>()` in "
                         "C++ to convert a 0-dim tensor to a number")
    if specified > a.ndim:
        raise IndexError(f"too many indices for tensor of dimension {a.ndim}")
    out, dim = a, 0
    for position_in_index, item in enumerate(items):  # PyTorch's out-of-range error names the position
        if item is Ellipsis:
            dim += a.ndim - specified
        elif item is None:
            out = unsqueeze(out, dim)
            dim += 1
        elif isinstance(item, slice):
            start, stop, step = _unpack_slice(item)
            start, stop = _clipped_slice_bound(start), _clipped_slice_bound(stop)
            # as PyTorch: a lone slice is always recorded when reading; in a tuple or an
            # assignment, one that is literally the whole dim (start 0, step 1, stop at or past
            # the end) is skipped
            whole = start in (None, 0) and step in (None, 1) and (stop is None or stop >= out.shape[dim])
            if (isinstance(index, slice) and not assigning) or not whole:
                out = slice_dim(out, dim, start, stop, step)
            dim += 1
        else:
            position, size = _index_int(item), out.shape[dim]
            if type(position) is int:
                unpack_long(position)
            if not -size <= position < size:
                raise IndexError(f"index {position} is out of bounds for dimension {position_in_index} with size {size}")
            out = select(out, dim, position)
    return out


def _index_int(value: Any) -> Any:
    if value is None or isinstance(value, int):
        return value
    if isinstance(value, np.integer):  # PyTorch reads numpy's integers as Python's
        return int(value)
    if isinstance(value, Tensor):
        return value.__index__()
    if isinstance(value, str):  # PyTorch reads a sequence as a tensor of indices
        raise TypeError("new(): invalid data type 'str'")
    raise IndexError("only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables are valid "
                     "indices (got " + type_name(value) + ")")


def _unpack_slice(item: slice) -> tuple:
    """A slice's start, stop and step as torch's __PySlice_Unpack reads them: the step, then start
    and stop (their TypeErrors), then a zero step refused (it only sets Python's error at first)."""
    step = _slice_int(item.step)
    start, stop = _slice_int(item.start), _slice_int(item.stop)
    if step == 0:
        raise ValueError("slice step cannot be zero")
    return start, stop, step


def _slice_int(value: Any) -> Any:
    """A slice's start, stop or step, read as Python reads them."""
    if value is None or isinstance(value, int):
        return value
    if not hasattr(type(value), "__index__"):
        raise TypeError("slice indices must be integers or None or have an __index__ method")
    return operator.index(value)


# c10::SymInt's least plain value: a slice's start or stop below it is clipped to it, with a warning each
LEAST_SLICE_BOUND = -2 ** 62


def _clipped_slice_bound(value: Optional[int]) -> Optional[int]:
    if value is not None and value < LEAST_SLICE_BOUND:
        warn("UserWarning", "Truncating the start/stop/step of slice. This is likely because of saved old models when "
                            "the start/stop/step were larger.")
        return LEAST_SLICE_BOUND
    return value


INDEX_DTYPE_MESSAGE = "tensors used as indices must be long, int, byte or bool tensors"


def _any_advanced(items: tuple) -> bool:
    for item in items:
        if isinstance(item, (list, np.ndarray, bool)) or (
                isinstance(item, Tensor) and (item.ndim > 0 or item._dtype is dtypes.bool_)):
            return True
    return False


def is_advanced(index: Any) -> bool:
    return _any_advanced(index if isinstance(index, tuple) else (index,))


def numpy_index(items: tuple) -> tuple:
    key = []
    for item in items:
        if isinstance(item, Tensor):
            if item._dtype is dtypes.bool_ or item._dtype is dtypes.uint8:
                key.append(item._data.astype(bool))
            elif item._dtype.category == dtypes.INTEGRAL:
                key.append(item._data)
            else:
                raise IndexError(INDEX_DTYPE_MESSAGE)
        elif isinstance(item, np.ndarray):  # torch reads it as a sequence: floats become int64, others fail
            dtype = numpy_dtype(item.dtype)
            if dtype.is_complex:
                warn("UserWarning", *COMPLEX_TO_REAL_WARNING)
                item = item.real
            key.append(item.astype(np.int64) if dtype.category > dtypes.INTEGRAL else item)
        else:
            key.append(item)
    return tuple(key)


def _list_as_tensor(item: list) -> Tensor:
    """A list used as an index, read as torch reads it (indexing_tensor_from_data): its dtype
    inferred over every element (a str or None fails), then a bool or uint8 tensor as inferred,
    any other an int64 one (floats truncated, ints past int64 refused)."""
    inferred = infer_dtype(item)
    dtype = inferred if inferred in (dtypes.bool_, dtypes.uint8) else dtypes.int64
    return Tensor._make(data_array(item, dtype)[0], dtype)


def _advanced_item(item: Any) -> Any:
    """One item of an advanced index as PyTorch's applySlicing reads it: a list becomes a tensor,
    a number other than an int or a bool is read through __index__ (or refused)."""
    if isinstance(item, list):
        return _list_as_tensor(item)
    if isinstance(item, np.ndarray):
        numpy_dtype(item.dtype)  # read as a tensor: a dtype PyTorch has none of is refused
        if item.dtype.kind == "f":  # read as int64 (indexing_tensor_from_data), before the bounds: C's cast
            with np.errstate(invalid="ignore"):
                return item.astype(np.int64)
        return item
    if item is None or item is Ellipsis or isinstance(item, (bool, slice, Tensor)):
        return item
    return _index_int(item)


def checked_advanced_items(a: Tensor, items: tuple) -> tuple:
    """The items of an advanced index, each list read as a tensor, in PyTorch's order of checks:
    the count of indices, each item in turn, the masks' shapes, the shapes broadcast together (the
    bounds are the kernel's: see `outside_element`)."""
    if len(items) == 1 and a.ndim and _in_bounds(items[0], a._data.shape[0]):
        return items  # one tensor of integers within the first dimension (C[X] in a loop): nothing else to check
    specified = sum(_item_dims(item) for item in items if item is not None and item is not Ellipsis)
    if specified > a.ndim:
        raise IndexError(f"too many indices for tensor of dimension {a.ndim}")
    items = tuple(_advanced_item(item) for item in items)
    _check_selections(a, items, specified)
    for item in items:  # the index tensors' dtypes, before their shapes
        if isinstance(item, Tensor) and item._dtype.category > dtypes.INTEGRAL:
            raise IndexError(INDEX_DTYPE_MESSAGE)
    axis = 0
    for item in items:  # each mask's shape (expandTensors), before the indices broadcast together
        if item is Ellipsis:
            axis += a.ndim - specified
        elif item is not None:
            if _mask(item) is not None:
                covered = a.shape[axis:axis + item.ndim]
                for j, (n, m) in enumerate(zip(item.shape, covered)):
                    if n != m:
                        raise IndexError(f"The shape of the mask {shape_text(item.shape)} at index {j} does not match "
                                         f"the shape of the indexed tensor {shape_text(a.shape)} at index {axis + j}")
            axis += _item_dims(item)
    _check_index_shapes(items)
    return items


class Outside(NamedTuple):
    """An advanced index's first element outside its dimension (see `outside_element`)."""
    error: Optional[IndexError]  # None when the result is empty: the kernel's loop never runs
    before: np.ndarray  # the flat places in the data of the result's elements before it, in order
    shape: tuple  # the result's


def _all_inside(data: np.ndarray, key: tuple, specified: int) -> bool:
    """Whether every integer index array lies within its dimension (the common case, told by two
    reductions per array, without the masks' nonzero or any array of flags)."""
    axis = 0
    for item in key:
        if item is Ellipsis:
            axis += data.ndim - specified
        elif isinstance(item, np.ndarray) and item.dtype == bool:
            axis += item.ndim
        elif isinstance(item, np.ndarray):
            size = data.shape[axis]
            if item.size and (np.maximum.reduce(item, axis=None) >= size
                              or np.minimum.reduce(item, axis=None) < -size):
                return False
            axis += 1
        elif item is not None and not isinstance(item, bool):
            axis += 1
    return True


def outside_element(data: np.ndarray, key: tuple) -> Optional[Outside]:
    """The first element of `data[key]` whose index is outside its dimension, as PyTorch's index
    kernels meet it going through the result in order (index_put_ has written the elements
    before it); its error names the index's place among the index tensors. None when every
    index is inside."""
    specified = sum(item.ndim if isinstance(item, np.ndarray) and item.dtype == bool else
                    0 if item is None or item is Ellipsis or isinstance(item, bool) else 1 for item in key)
    if _all_inside(data, key, specified):
        return None
    axis, advanced, arrays, plain = 0, 0, [], []  # arrays: (place among the index tensors, axis, outside)
    for item in key:
        if isinstance(item, np.ndarray) and item.dtype == bool and item.ndim:
            for covered in item.nonzero():  # as numpy reads a mask: one index array per dimension it covers
                arrays.append((advanced, axis, np.zeros(covered.shape, bool)))
                plain.append(covered)
                axis += 1
            advanced += 1
            continue
        plain.append(item)
        if item is Ellipsis:
            axis += data.ndim - specified
        elif isinstance(item, np.ndarray) and item.dtype != bool:
            size = data.shape[axis]
            arrays.append((advanced, axis, (item >= size) | (item < -size)))
            advanced += 1
            axis += 1
        elif item is not None and not isinstance(item, (bool, np.ndarray)):
            axis += 1
    if not any(outside.any() for _, _, outside in arrays):
        return None
    places = [j for j, item in enumerate(plain) if isinstance(item, np.ndarray)]
    shape = np.broadcast_shapes(*(plain[j].shape for j in places))
    # the result in order: an index outside its dimension points at an extra, marked place
    extended, marking, inside = list(data.shape), list(plain), list(plain)
    for (_, axis, outside), j in zip(arrays, places):
        size = data.shape[axis]
        extended[axis] += 1
        marking[j] = np.where(outside, size, plain[j] % max(size, 1))
        inside[j] = np.where(outside, 0, marking[j])
    marks = np.zeros(extended, bool)
    for (_, axis, outside) in arrays:
        marks[(slice(None),) * axis + (data.shape[axis],)] = True
    marked = marks[tuple(marking)]
    if not marked.size:
        return Outside(None, np.zeros(0, np.int64), marked.shape)
    count = int(np.argmax(marked))
    positions = np.arange(data.size).reshape(data.shape)[tuple(inside)] if data.size else np.zeros(0, np.int64)
    before = positions.reshape(-1)[:count]
    # the first element outside, over the index arrays' broadcast shape; the first of its indices outside
    first = np.unravel_index(int(np.argmax(np.logical_or.reduce(
        [np.broadcast_to(outside, shape) for _, _, outside in arrays]))), shape)
    position, axis, j = next((position, axis, j) for (position, axis, outside), j in zip(arrays, places)
                             if np.broadcast_to(outside, shape)[first])
    size = data.shape[axis]
    if size == 0:
        return Outside(IndexError("index is out of bounds for dimension with size 0"), before, marked.shape)
    index = int(np.broadcast_to(plain[j], shape)[first])
    return Outside(IndexError(f"index {index} is out of bounds for dimension {position} with size {size}"), before,
                   marked.shape)


def put_values(a: Tensor, key: tuple, source: Tensor, *, assigning: bool = False,
               converting: bool = False) -> tuple[Optional[Outside], Tensor]:
    """index_put_'s checks after the indices', in ATen's order: the values' shape against the
    result's (`x[i] = v`, `assigning`, first drops their leading ones), their dtype (unless
    `converting`), then the indices' bounds (the kernel's); and the values, converted and
    expanded to the result's shape."""
    outside = outside_element(a._data, key)
    target_shape = a._data[key].shape if outside is None else outside.shape
    value_shape = list(source.shape)
    while assigning and value_shape and value_shape[0] == 1:
        value_shape.pop(0)
    if len(value_shape) > len(target_shape) or any(
            s != t and s != 1 for s, t in zip(reversed(value_shape), reversed(target_shape))):
        raise RuntimeError(f"shape mismatch: value tensor of shape {value_shape} cannot be broadcast to "
                           f"indexing result of shape {list(target_shape)}")
    if len(value_shape) != source.ndim:
        source = reshape(source, tuple(value_shape))
    if source._dtype is not a._dtype and not converting:
        raise RuntimeError(f"Index put requires the source and destination dtypes match, got "
                           f"{a._dtype._scalar_name} for the destination and {source._dtype._scalar_name} for "
                           f"the source.")
    values = to_dtype(source, a._dtype)
    return outside, values if values.shape == target_shape else expand(values, target_shape)


def write_before(a: Tensor, outside: Outside, values: Tensor, accumulate: bool) -> None:
    """What index_put_'s kernel writes into `a` before it meets an index outside: the elements
    before it, in order (in the data alone: the failed op bumps no version, records no graph)."""
    places = np.unravel_index(outside.before, a._data.shape)
    written = values._data.reshape(-1)[:outside.before.size]
    if accumulate:
        np.add.at(a._data, places, written)
    else:
        a._data[places] = written


def _check_selections(a: Tensor, items: tuple, specified: int) -> None:
    """The integers of an index (Python's, 0-dim integer tensors), which PyTorch's applySlicing
    reads and selects with as it meets them, before it looks at the other index tensors: their
    errors name the item's position in the index."""
    axis = 0
    for position, item in enumerate(items):
        if item is Ellipsis:
            axis += a.ndim - specified
        elif item is None or isinstance(item, bool):
            continue
        elif isinstance(item, int) or (isinstance(item, Tensor) and item.ndim == 0
                                       and item._dtype.category == dtypes.INTEGRAL):
            index = unpack_long(item) if isinstance(item, int) else int(item._data)
            size = a.shape[axis]
            if not -size <= index < size:
                raise IndexError(f"index {index} is out of bounds for dimension {position} with size {size}")
            axis += 1
        else:
            axis += _item_dims(item)


def _in_bounds(item: Any, size: int) -> bool:
    """Whether `item` is a tensor of integers (not a uint8 mask) all within -size and size - 1."""
    if not isinstance(item, Tensor) or item._dtype is dtypes.uint8:
        return False
    indices = item._data
    if indices.dtype.kind not in "iu":
        return False
    if not indices.size:
        return True
    if native is not None and indices.dtype.type is np.int64 and indices.flags.c_contiguous:
        least, greatest = native.int64_range(indices)  # (one pass)
        return greatest < size and least >= -size
    # (the ufuncs' reductions: ndarray.max and min go through a Python layer of numpy's)
    return np.maximum.reduce(indices, axis=None) < size and np.minimum.reduce(indices, axis=None) >= -size


def _check_index_shapes(items: tuple) -> None:
    """PyTorch's error when the index tensors do not broadcast together (a mask counts as one
    index of its true elements' count per dimension it covers)."""
    shapes = []
    for item in items:
        mask = np.asarray(item) if isinstance(item, bool) else _mask(item)
        if mask is not None:  # (a single True or False: one dimension of 1 or 0)
            shapes += [(int(np.count_nonzero(mask)),)] * max(mask.ndim, 1)
        elif isinstance(item, Tensor) and item.ndim > 0:
            shapes.append(item.shape)
        elif isinstance(item, np.ndarray):
            shapes.append(item.shape)
    try:
        if len(shapes) > 1:  # (one shape always broadcasts)
            np.broadcast_shapes(*shapes)
    except ValueError:
        listed = ", ".join(shape_text(shape) for shape in shapes)
        raise IndexError(f"shape mismatch: indexing tensors could not be broadcast together with shapes {listed}") \
            from None


def _item_dims(item: Any) -> int:
    """How many dimensions of the indexed tensor one index item consumes (a bool mask: its own; a
    Python bool, a 0-dim mask: none)."""
    if isinstance(item, bool):
        return 0
    mask = _mask(item)
    return 1 if mask is None else mask.ndim


def _mask(item: Any) -> Optional[np.ndarray]:
    """The mask an index item is (a bool or uint8 tensor, a bool array: PyTorch reads one as a bool
    tensor), or None."""
    if isinstance(item, Tensor) and item._dtype in (dtypes.bool_, dtypes.uint8):
        return item._data
    if isinstance(item, np.ndarray) and item.dtype == bool:
        return item
    return None


def _advanced_index(a: Tensor, items: tuple) -> Tensor:
    checked = checked_advanced_items(a, items)
    key = numpy_index(checked)
    outside = outside_element(a._data, key) if checked is not items else None  # (the fast path's is inside)
    if outside is not None:
        if outside.error is not None:
            raise outside.error
        return record(INDEX, (a,), np.zeros(outside.shape, a._data.dtype), a._dtype, self_sym_sizes=a.shape,
                      indices=key)
    data = a._data[key]
    return record(INDEX, (a,), np.ascontiguousarray(data), a._dtype, self_sym_sizes=a.shape, indices=key)


def _index_grad(grad: Tensor, sizes: tuple, indices: tuple) -> Tensor:
    """Indexing's gradient: `grad` added into zeros at the indexed places, in order (on the arrays
    when the backward records nothing: the same additions without the ops)."""
    if recording_not_needed():
        sizes = tuple(sizes)  # (a torch.Size's slices are Sizes, made in Python)
        data = np.zeros(sizes, grad._dtype._numpy)
        rows = indices[0] if len(indices) == 1 else None
        if type(rows) is np.ndarray and rows.dtype.type is np.int64 and sizes and grad._data.shape == rows.shape + sizes[1:]:
            # rows of the first dim (an embedding's C[X]): each element's flat position, so that
            # numpy's ufunc.at takes its fast path of one flat index (the same additions in the
            # same order; a negative row's positions count from the end as the row does)
            if native is not None and data.dtype.type in (np.float32, np.float64) and data.size:
                native.add_rows(data, np.ascontiguousarray(rows), np.ascontiguousarray(grad._data))  # (in C)
                return Tensor._make(data, grad._dtype)
            inner = math.prod(sizes[1:])
            positions = (rows.reshape(-1, 1) * inner + np.arange(inner)).reshape(-1)
            np.add.at(data.reshape(-1), positions, grad._data.reshape(-1))
        else:
            np.add.at(data, indices, grad._data)
        return Tensor._make(data, grad._dtype)
    return index_put(zeros(sizes, dtype=grad.dtype), indices, grad, True, INDEX_PUT_IMPL)


def index_put(a: Tensor, key: tuple, values: Any, accumulate: bool, node_def: Any = None) -> Tensor:
    data = a._data.copy()
    values = as_tensor(values)
    if accumulate:
        np.add.at(data, key, values._data)
    else:
        data[key] = values._data
    return record(node_def or INDEX_PUT, (a, values), data, a._dtype, indices=key, accumulate=accumulate)


def scatter_positions(grad: Tensor, shape: tuple, positions: np.ndarray) -> Tensor:
    """Zeros of `shape` with `grad` added at the given flat positions."""
    flat = zeros((int(np.prod(shape)),), dtype=grad.dtype)
    return index_put(flat, (positions.reshape(-1),), grad.reshape(-1), True).reshape(shape)


def _index_array(index: Any) -> np.ndarray:
    return index._data if isinstance(index, Tensor) else np.asarray(index)


def _check_index(index: Any, name: str, input: Tensor, dim: int) -> np.ndarray:
    """A scatter's or gather's index as an array, after the dim's own check (ATen wraps it first)."""
    wrap_dim(dim, input.ndim)
    index = _index_array(index)
    if index.dtype not in (np.int64, np.int32):
        if index.size:  # PyTorch checks the dtype of a non-empty index only
            raise RuntimeError(f"{name}(): Expected dtype int32/int64 for index")
        return index.astype(np.int64)
    return index


def _size(shape: tuple, d: int) -> int:
    """PyTorch's ensure_nonempty_size: a 0-dim tensor has size 1 along its one dim."""
    return shape[wrap_dim(d, len(shape))] if shape else 1


def _check_scatter(input: Tensor, dim: int, index: np.ndarray, src: Optional[Tensor]) -> int:
    """PyTorch's scatter_shape_check; the dim, wrapped."""
    dim = wrap_dim(dim, input.ndim)
    if src is not None and src._dtype is not input._dtype:
        raise RuntimeError("scatter(): Expected self.dtype to be equal to src.dtype")
    if not index.size:
        return dim
    if max(input.ndim, 1) != max(index.ndim, 1):
        raise RuntimeError("Index tensor must have the same number of dimensions as self tensor")
    dims = range(max(input.ndim, 1))
    wrong = any(d != dim and _size(index.shape, d) > _size(input.shape, d) for d in dims)
    if not wrong and src is not None:
        wrong = any(_size(index.shape, d) > _size(src.shape, d) for d in dims)
    if wrong:
        message = (f"Expected index {shape_text(index.shape)} to be no larger than self {shape_text(input.shape)} "
                   f"apart from dimension {dim}")
        raise RuntimeError(message + (f" and to be no larger size than src {shape_text(src.shape)}"
                                      if src is not None else ""))
    return dim


def _check_positions(index: np.ndarray, input: Tensor, dim: int) -> None:
    size = _size(input.shape, dim)
    bad = index[(index < 0) | (index >= size)]
    if bad.size:
        raise RuntimeError(f"index {int(bad.flat[0])} is out of bounds for dimension {dim} with size {size}")


def _positions(index: np.ndarray, dim: int) -> tuple:
    """The places in self that the elements of `index` name along `dim`."""
    grids = list(np.indices(index.shape, sparse=True))
    grids[dim] = index
    return tuple(grids)


def _flat_dims(data: np.ndarray) -> np.ndarray:
    return data.reshape(1) if data.ndim == 0 else data


@op(nodes=(SCATTER_SRC, SCATTER_VALUE))
def scatter(input: Tensor, dim: int, index: Any, src: Optional[Tensor] = None, *, value: Any = None,
            reduce: Optional[str] = None) -> Tensor:
    check_not_unsigned("scatter_gather_tensor_cpu", input._dtype)
    index = _check_index(index, "scatter", input, dim)
    dim = _check_scatter(input, dim, index, src)
    if src is not None and reduce is not None:
        warn_once("UserWarning", "The reduce argument of torch.scatter with Tensor src is deprecated and will be "
                                 "removed in a future PyTorch release. Use torch.scatter_reduce instead for more "
                                 "reduction options.", at="aten/src/ATen/native/TensorAdvancedIndexing.cpp:225")
    if reduce not in (None, "add", "multiply"):
        raise RuntimeError("reduce argument must be either add or multiply.")
    _check_positions(index, input, dim)
    data = input._data.copy()
    target, positions = _flat_dims(data), _positions(_flat_dims(index), dim)
    if src is None:
        values = np.asarray(kernel_scalar(real_scalar(value, input._dtype), input._dtype), dtype=input._dtype._numpy)
    else:
        values = _flat_dims(src._data)[tuple(slice(0, n) for n in _flat_dims(index).shape)]
    if reduce is None:
        target[positions] = values
        if src is None:
            return record(SCATTER_VALUE, (input,), data, input._dtype, dim=dim, index=index)
        return record(SCATTER_SRC, (input, src), data, input._dtype, dim=dim, index=index)
    (np.add if reduce == "add" else np.multiply).at(target, positions, np.broadcast_to(values, _flat_dims(index).shape))
    return record(NOT_IMPLEMENTED, (input,) if src is None else (input, src), data, input._dtype,
                  _aten="scatter")


@op(nodes=(SCATTER_ADD,))
def scatter_add(input: Tensor, dim: int, index: Any, src: Tensor) -> Tensor:
    index = _check_index(index, "scatter_add", input, dim)
    dim = _check_scatter(input, dim, index, src)
    _check_positions(index, input, dim)
    data = input._data.copy()
    flat_index = _flat_dims(index)
    np.add.at(_flat_dims(data), _positions(flat_index, dim),
              _flat_dims(src._data)[tuple(slice(0, n) for n in flat_index.shape)])
    return record(SCATTER_ADD, (input, src), data, input._dtype, dim=dim, index=index)


@op()
def gather(input: Tensor, dim: int, index: Tensor, *, sparse_grad: bool = False) -> Tensor:
    check_not_unsigned("scatter_gather_tensor_cpu", input._dtype)
    index_array = _check_index(index, "gather", input, dim)
    dim = wrap_dim(dim, input.ndim)
    if max(input.ndim, 1) != max(index_array.ndim, 1):
        raise RuntimeError("Index tensor must have the same number of dimensions as input tensor")
    for d in range(max(input.ndim, 1)):
        if d != dim and _size(index_array.shape, d) > _size(input.shape, d):
            raise RuntimeError(f"Size does not match at dimension {d} expected index {shape_text(index_array.shape)} "
                               f"to be no larger than self {shape_text(input.shape)} apart from dimension {dim}")
    _check_positions(index_array, input, dim)
    source, flat_index = _flat_dims(input._data), _flat_dims(index_array)
    # the output has the index's shape: along the other dims, only the first positions of input are read
    window = source[tuple(slice(None) if d == dim else slice(0, n) for d, n in enumerate(flat_index.shape))]
    data = np.take_along_axis(window, flat_index.astype(np.int64), axis=dim).reshape(index_array.shape)
    data = data if data.flags.c_contiguous else data.copy(order="C")  # PyTorch's output is contiguous
    return record(GATHER, (input,), data, input._dtype, dim=dim, index=index_array,
                  sparse_grad=sparse_grad)


def masked_fill(input: Tensor, mask: Tensor, value: Any) -> Tensor:
    """(torch.masked_fill and Tensor.masked_fill_, declared in selection.py)"""
    broadcast_shapes(tuple(mask.shape), tuple(input.shape))  # (ATen expands both first, then masked_fill_ checks)
    return masked_fill_values(input, mask, value)


def check_masked_fill(mask: Tensor, value: Any) -> None:
    """masked_fill_'s own checks of its value and mask."""
    if isinstance(value, Tensor) and value.ndim:
        raise RuntimeError("masked_fill_ only supports a 0-dimensional value tensor, but got tensor with "
                           f"{value.ndim} dimension(s).")
    if mask._dtype is not dtypes.bool_:
        raise RuntimeError(f"masked_fill_ only supports boolean masks, but got mask with dtype "
                           f"{mask._dtype._cpp_name}")


def masked_fill_values(input: Tensor, mask: Tensor, value: Any) -> Tensor:
    check_masked_fill(mask, value)
    number = value._data if isinstance(value, Tensor) else kernel_scalar(value, input._dtype)
    # contiguous whatever the input's layout: ATen fills a contiguous clone (asarray keeps a 0-d
    # result 0-d, where ascontiguousarray would make it 1-d)
    data = np.asarray(np.where(mask._data, np.asarray(number).astype(input._dtype._numpy), input._data), order="C")
    if isinstance(value, Tensor):
        return record(MASKED_FILL_TENSOR, (input, value), data, input._dtype, mask=mask)
    return record(MASKED_FILL, (input,), data, input._dtype, mask=mask)


@op(self_name="input")
def where(condition: Tensor, input: Any = None, other: Any = None, self: Any = None) -> Any:
    if input is None and self is not None:
        input = self
    if condition._dtype is not dtypes.bool_:
        raise RuntimeError(f"where expected condition to be a boolean tensor, but got a tensor with dtype "
                           f"{condition._dtype._scalar_name}")
    if input is None and other is None:
        return tuple(Tensor._make(indices.astype(np.int64), dtypes.int64) for indices in np.nonzero(condition._data))
    dtype = dtypes.result_type([input, other])
    for number in (input, other):  # a number is made a tensor of the result's type, checked
        if not isinstance(number, Tensor):
            opmath_scalar(number, dtype)
    a, b = as_tensor(input), as_tensor(other)
    if meta.state["made"] and meta.any_meta((condition, a, b)):  # torch._refs.where: devices, then shapes
        meta.check_same_device((condition, a, b))
        meta.check_operands((condition, a, b))
    offset = len(batch_front(condition, a, b))
    broadcast_shapes(broadcast_shapes(tuple(condition.shape), tuple(a.shape), offset), tuple(b.shape), offset)
    x, y = arrays((a, b), dtype)
    # laid out by the condition first: it is the first operand of ATen's iterator
    data = layout.element_wise_result(np.asarray(np.where(condition._data, x, y), dtype=dtype._numpy),
                                      (condition._data, a._data, b._data))
    return record(WHERE, (a, b), data, dtype, condition=condition)


def masked(condition: Tensor, values: Tensor, otherwise: Optional[Tensor] = None) -> Tensor:
    """`values` where `condition` holds, zeros (or `otherwise`) elsewhere."""
    return where(condition, values, zeros_like(values) if otherwise is None else otherwise)
