"""Where a new tensor's elements lie in memory, as ATen decides it.

Strides show in `stride()` and `is_contiguous()`, decide whether `view` succeeds, and choose the
path of a matrix product (and so its last bits). ATen's rules:

* an element-wise op (TensorIterator) lays its result out in the order of its operands' strides,
  the first operand deciding where they disagree, so `x.t() + y` is laid out as `x.t()`;
* `empty_like` and the ops made of it (`clone`, `zeros_like`, `rand_like`, ...) keep a dense
  tensor's strides, and lay any other out densely in the order of its strides;
* a fill or a sampler visits the elements in that memory order.

numpy follows the same idea with rules of its own (where operands disagree it falls back to
C order; `copy()` is C order), so results are laid out again here where they differ.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np


def iteration_order(shape: Sequence[int], strides: Sequence[tuple], reduction: bool = False) -> list:
    """TensorIterator's order of dimensions, innermost first (reorder_dimensions): by ascending
    stride, the first operand whose strides differ deciding, equal strides putting the smaller
    size first. `strides` holds one tuple per dimension with each operand's stride (0 where it is
    broadcast); in a reduction the first operand is the output, and its reduced dimensions
    (stride 0) come first."""
    def should_swap(dim0: int, dim1: int) -> int:
        for operand, (stride0, stride1) in enumerate(zip(strides[dim0], strides[dim1])):
            if reduction and operand == 0 and (stride0 == 0) != (stride1 == 0):
                return 1 if stride1 == 0 else -1
            if stride0 == 0 or stride1 == 0:
                continue
            if stride0 != stride1:
                return -1 if stride0 < stride1 else 1
            if shape[dim0] > shape[dim1]:
                return 1
        return 0

    perm = list(reversed(range(len(shape))))
    for i in range(1, len(perm)):  # insertion sort that leaves ambiguous pairs in place
        dim1 = i
        for dim0 in range(i - 1, -1, -1):
            comparison = should_swap(perm[dim0], perm[dim1])
            if comparison > 0:
                perm[dim0], perm[dim1] = perm[dim1], perm[dim0]
                dim1 = dim0
            elif comparison < 0:
                break
    return perm


def dense_in_order(shape: Sequence[int], dtype: np.dtype, order: Sequence[int]) -> np.ndarray:
    """An uninitialised array of `shape` whose dimensions lie densely in `order` (innermost first)."""
    outer_first = list(reversed(order))
    block = np.empty([shape[d] for d in outer_first], dtype=dtype)
    return block.transpose(np.argsort(outer_first))


def _broadcast_strides(array: np.ndarray, shape: tuple) -> list:
    """`array`'s stride along each dimension of `shape`, 0 where it is broadcast."""
    missing = len(shape) - array.ndim
    strides = [0] * missing
    for size, stride, full in zip(array.shape, array.strides, shape[missing:]):
        strides.append(0 if size == 1 and full != 1 else stride)
    return strides


def in_row_order(shape: tuple, operands: Sequence[np.ndarray]) -> bool:
    """iteration_order's answer for a 2-D result of SHAPE, without its lists: whether its rows are
    outermost (the first operand whose two strides differ, broadcasting ones left out, deciding)."""
    rows, columns = shape
    for operand in operands:
        if operand.ndim == 2:
            (height, width), (row_step, column_step) = operand.shape, operand.strides
            if height == 1 and rows != 1:
                row_step = 0
            if width == 1 and columns != 1:
                column_step = 0
        else:
            continue  # (broadcast along the rows: it decides nothing)
        if row_step == 0 or column_step == 0:
            continue
        if row_step != column_step:
            return column_step < row_step
        if columns > rows:
            return False
    return True


def element_wise_result(data: np.ndarray, operands: Sequence[np.ndarray]) -> np.ndarray:
    """`data`, the result of an element-wise op over `operands`, laid out as TensorIterator lays
    it out (a copy only where numpy laid it out otherwise)."""
    if data.ndim < 2:
        return data
    for operand in operands:
        if not operand.flags.c_contiguous:
            break
    else:  # all in C order: so is numpy's result, and ATen's
        return data
    shape = data.shape
    if data.ndim == 2 and in_row_order(shape, operands):  # (an LSTM's gate chunks, a slice's rows)
        return data if data.flags.c_contiguous else np.ascontiguousarray(data)
    per_operand = [_broadcast_strides(operand, shape) for operand in operands]
    order = iteration_order(shape, list(zip(*per_operand)))
    if order == list(reversed(range(data.ndim))):
        if data.flags.c_contiguous:
            return data
        return np.ascontiguousarray(data)
    out = dense_in_order(shape, data.dtype, order)
    if out.strides == data.strides:
        return data
    out[...] = data
    return out


# the channels-last formats' dimensions, innermost first (c10's order for their strides)
CHANNELS_LAST_ORDERS = {"channels_last": (1, 3, 2, 0), "channels_last_3d": (1, 4, 3, 2, 0)}


def in_format(array: np.ndarray, name: str) -> np.ndarray:
    """A copy of `array` laid out in the memory format `name` (contiguous_format: C order)."""
    order = CHANNELS_LAST_ORDERS.get(name)
    if order is None:
        return np.array(array, order="C")
    out = dense_in_order(array.shape, array.dtype, order)
    out[...] = array
    return out


def suggested_format(array: np.ndarray) -> str:
    """c10's suggest_memory_format: channels_last (or _3d) where the strides are like that format's,
    a size-1 tensor's ambiguous strides read as contiguous; else contiguous_format."""
    for name, order in CHANNELS_LAST_ORDERS.items():
        if array.ndim != len(order):
            continue
        strides, low = array.strides, 0
        if strides[1] == 0:
            return "contiguous_format"
        for d in order:
            if array.shape[d] == 0 or strides[d] < low or (d == 0 and low == strides[1]):
                return "contiguous_format"
            low = strides[d] * (array.shape[d] if array.shape[d] > 1 else 1)
        return name
    return "contiguous_format"


def in_suggested_format(data: np.ndarray, *operands: np.ndarray) -> np.ndarray:
    """`data` laid out channels-last where an operand suggests that format (a convolution's or a
    pool's result, as ATen's CPU kernels give it), else as it is."""
    for operand in operands:
        name = suggested_format(operand)
        if name != "contiguous_format" and operand.ndim == data.ndim:
            return in_format(data, name)
    return data


def preserved(array: np.ndarray, dtype: np.dtype = None) -> np.ndarray:
    """An uninitialised array as `empty_like(memory_format=torch.preserve_format)` lays it out:
    a dense array's strides, any other's dense in the order of its strides."""
    dtype = array.dtype if dtype is None else dtype
    if array.ndim < 2 or array.flags.c_contiguous:
        return np.empty(array.shape, dtype=dtype)
    return dense_in_order(array.shape, dtype, iteration_order(array.shape, [(s,) for s in array.strides]))


def preserved_copy(array: np.ndarray) -> np.ndarray:
    """`clone()`: a copy laid out as `preserved` lays it out."""
    if array.ndim < 2 or array.flags.c_contiguous:
        return array.copy()
    out = preserved(array)
    out[...] = array
    return out


def _non_overlapping_and_dense(array: np.ndarray) -> bool:
    """ATen's is_non_overlapping_and_dense: the elements fill a block of memory, each once."""
    required = array.itemsize
    for stride, size in sorted((stride, size) for size, stride in zip(array.shape, array.strides) if size > 1):
        if stride != required:
            return False
        required *= size
    return True


def as_gradient_of(grad: np.ndarray, variable: np.ndarray) -> np.ndarray:
    """`grad` laid out as AccumulateGrad's gradient layout contract asks for a leaf's first
    gradient: as the leaf if the leaf is dense, else contiguous (a copy only where needed)."""
    if variable.ndim < 2 or variable.flags.c_contiguous or not _non_overlapping_and_dense(variable):
        return grad if grad.flags.c_contiguous else np.ascontiguousarray(grad)
    out = preserved(variable, grad.dtype)
    if out.strides == grad.strides:
        return grad
    out[...] = grad
    return out


def in_memory_order(array: np.ndarray) -> np.ndarray:
    """A view of `array` whose C order is TensorIterator's order over it (outermost first), for a
    sampler that draws element after element in memory order."""
    if array.ndim < 2 or array.flags.c_contiguous:
        return array
    order = iteration_order(array.shape, [(s,) for s in array.strides])
    return array.transpose(list(reversed(order)))
