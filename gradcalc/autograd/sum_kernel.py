"""torch.sum in PyTorch's order of additions (aten/src/ATen/native/cpu/SumKernel.cpp).

Floating-point addition is not associative, so a sum is only PyTorch's, bit for bit, when it
adds in PyTorch's order. `cascade_sum` follows SumKernel.cpp: the TensorIterator lays the
reduction out (reduced dimensions innermost, coalesced), and each 2-D chunk is summed by one of
four loops, all built on a four-level cascade of running sums (`multi_row_sum`) over four
interleaved accumulators (`row_sum`), with SIMD registers as lanes. Those helpers add along axis
0 of their argument and keep the other axes as independent lanes, exactly as the C++ keeps one
accumulator per lane. The native module runs the 2-D loop where it is built (csrc/cascade.c);
these numpy loops give the same bits elsewhere.
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from .layout import iteration_order
from .native import kernels as native

# Bytes in one SIMD register of the sum kernel: PyTorch builds it for AVX2 only (it registers
# AVX512 variants for a few kernels, softmax among them), so even an AVX512 machine adds 32 bytes at a time.
VECTOR_BYTES = 32
# Running sums per row in row_sum, and cascade levels in multi_row_sum.
_ILP = 4
_LEVELS = 4


def ceil_log2(x: int) -> int:
    return 1 if x <= 2 else (x - 1).bit_length()


# +0 of each dtype as a 0-d array, which numpy adds at an array's cost (a numpy scalar costs about
# half a microsecond more): adding it turns a sum's -0 into the +0 a sum from zero gives
_ZEROS: dict = {}


def _zero(dtype: np.dtype) -> np.ndarray:
    zero = _ZEROS.get(dtype)
    if zero is None:
        zero = _ZEROS[dtype] = np.zeros((), dtype)
        zero.flags.writeable = False
    return zero


def _sequential(values: np.ndarray, axis: int = 0) -> np.ndarray:
    """v[0] + v[1] + ... from left to right along `axis` (one accumulator, in order). A sum from
    zero differs only in a zero's sign (never -0), which multi_row_sum gives its result once."""
    if values.shape[axis] == 0:
        return np.zeros(values.shape[:axis] + values.shape[axis + 1:], values.dtype)
    return values.cumsum(axis=axis).take(-1, axis=axis)  # cumsum adds strictly in order


def _row_by_row(values: np.ndarray, axis: int = 0) -> np.ndarray:
    """_sequential for a C-contiguous array whose last axis is not summed and holds two lanes or
    more: numpy then loops over the lanes innermost and adds whole rows of them in order, several
    times faster than cumsum (it sums pairwise only along an axis it loops over innermost)."""
    return np.add.reduce(values, axis=axis)


def multi_row_sum(values: np.ndarray, in_order: Callable = _sequential) -> np.ndarray:
    """Sum along axis 0 by a cascade: blocks of `step` items go into level 0, each full block is
    carried up into level 1, each `step` blocks of that into level 2, and so on; the result is
    the items after the last full block, then each level's accumulator, added in turn.
    `in_order(values, axis)` sums along an axis in order, as from zero but for a zero's sign: a
    zero's sign decides nothing but a zero sum's, so +0 is added to the result once (a sum from
    zero is never -0)."""
    size = values.shape[0]
    step = 1 << max(4, ceil_log2(size) // _LEVELS)
    lanes = values.shape[1:]
    total = None  # what is added so far; None for nothing yet
    received = values
    for _ in range(_LEVELS - 1):
        # a level adds what it receives; every `step` items it carries its sum up to the next and
        # starts again from zero
        full = len(received) // step
        if full * step < len(received):
            rest = in_order(received[full * step:], 0)
            total = rest if total is None else total + rest
        if not full:
            return np.zeros(lanes, values.dtype) if total is None else total + _zero(values.dtype)
        received = in_order(received[:full * step].reshape((full, step) + lanes), 1)
    rest = in_order(received, 0)  # the last level keeps all it receives
    return (rest if total is None else total + rest) + _zero(values.dtype)


def contiguous_total(x: np.ndarray) -> np.ndarray:
    """_inner_vectorized of one C-contiguous row (any shape, summed whole) as a 1-element
    array, with the four accumulators of row_sum side by side as the lanes of one wide register."""
    flat = x.reshape(-1)
    if native is not None and flat.size * x.itemsize >= VECTOR_BYTES:  # (a shorter row is not vectorized)
        out = np.empty(1, x.dtype)
        native.sum_chunk(flat.reshape(1, -1), x.itemsize, 0, out)
        return out
    lanes = VECTOR_BYTES // x.itemsize
    width = lanes * _ILP
    rows, registers = flat.size // width, flat.size // lanes
    partial = multi_row_sum(flat[:rows * width].reshape(rows, width), _row_by_row)
    # each lane: the first accumulator, the registers left over, then the other three accumulators
    vector = np.add.reduce(np.concatenate((partial[:lanes], flat[rows * width:registers * lanes],
                                           partial[lanes:])).reshape(-1, lanes), axis=0)
    return np.concatenate((np.zeros(1, x.dtype), flat[registers * lanes:], vector)).cumsum()[-1:]


def row_sum(values: np.ndarray) -> np.ndarray:
    """Sum along axis 0 with four interleaved accumulators (item i goes to accumulator i % 4)."""
    size = values.shape[0]
    rows = size // _ILP
    lanes = values.shape[1:]
    # the four accumulators side by side are lanes enough for numpy's row-by-row reduction
    in_order = _row_by_row if values.flags.c_contiguous else _sequential
    partial = multi_row_sum(values[:rows * _ILP].reshape((rows, _ILP) + lanes), in_order)
    # the first accumulator, the items left over, then the other three, added in that order
    return np.concatenate((partial[:1], values[rows * _ILP:], partial[1:])).cumsum(axis=0)[-1]


def _inner_vectorized(rows: np.ndarray, lanes: int) -> np.ndarray:
    """vectorized_inner_sum: each row of `rows` (axis 1) as SIMD registers summed by row_sum,
    then the leftover elements, then the register's lanes, into one scalar per row."""
    count, size = rows.shape
    registers = size // lanes
    head = rows[:, :registers * lanes].reshape(count, registers, lanes).transpose(1, 0, 2)
    vector = row_sum(head)
    return np.concatenate((np.zeros((1, count), rows.dtype), rows[:, registers * lanes:].T, vector.T)).cumsum(
        axis=0)[-1]


def _outer(columns: np.ndarray, grouped: int) -> np.ndarray:
    """The outer sums: the first `grouped` columns (axis 1) by multi_row_sum along axis 0, the
    others by row_sum (lanes are independent, so SIMD and scalar loops agree)."""
    # copied C-contiguous, columns sum row by row: the grouped ones are whole registers (two lanes
    # or more), the others take row_sum's four accumulators as lanes
    if grouped == 0 and columns.shape[1]:
        return row_sum(np.ascontiguousarray(columns))
    head = multi_row_sum(np.ascontiguousarray(columns[:, :grouped]), _row_by_row)
    if grouped == columns.shape[1]:
        return head
    return np.concatenate([head, row_sum(np.ascontiguousarray(columns[:, grouped:]))])


def _chunk(block: np.ndarray, in_strides: list, out_strides: list, itemsize: int) -> np.ndarray:
    """One call of cascade_sum's 2-D loop on block[dim1, dim0]: the values it adds into the
    outputs along dim1 (one value when no output moves along dim1)."""
    size1, size0 = block.shape
    if out_strides[0] != 0 and out_strides[1] == 0:  # the reduction moves to dim 0
        block, size0, size1 = block.T, size1, size0
        in_strides, out_strides = in_strides[::-1], out_strides[::-1]
    if out_strides[0] != 0:  # not a reduction: a copy
        return block.reshape(-1) + _zero(block.dtype)
    if native is not None:
        out = np.empty(size1, block.dtype)
        native.sum_chunk(block, in_strides[0], in_strides[1], out)
        return out
    lanes = VECTOR_BYTES // itemsize
    if in_strides[0] == itemsize and size0 >= lanes:
        return _inner_vectorized(block, lanes)
    columns = block.T
    if in_strides[1] == itemsize and size1 >= lanes:
        return _outer(columns, size1 // (_ILP * lanes) * _ILP * lanes)
    if in_strides[0] < in_strides[1]:
        return _outer(columns, 0)
    return _outer(columns, size1 // _ILP * _ILP)


def cascade_sum(x: np.ndarray, dims: tuple) -> np.ndarray:
    """torch.sum of float32/float64 `x` over `dims` (every dimension when empty), shaped as with
    keepdim=True."""
    if native is not None and 0 < x.size < VECTOR_BYTES // x.itemsize and len(dims) in (0, x.ndim) \
            and x.flags.c_contiguous:
        # a few values in memory order into one (`v.sum()` of a small vector): what the plan below
        # comes to, the 2-D loop's one row of them, without the plan's steps (its running sums
        # start from +0: the sum is never -0, as the plan's `+ _zero` makes sure of)
        out = np.empty((1,) * x.ndim, x.dtype)
        native.sum_chunk(x.reshape(1, x.size), x.itemsize if x.size > 1 else 0, 0, out)
        return out
    key = (x.shape, x.strides, x.dtype.char, tuple(dims), x.flags.c_contiguous)
    plan = _SUM_PLANS.get(key)
    if plan is None:
        plan = _sum_plan(x, dims)
        if len(_SUM_PLANS) >= _SUM_PLANS_KEPT:
            _SUM_PLANS.clear()
        _SUM_PLANS[key] = plan
    out_shape, whole, axes, view_shape, in_strides, out_strides, inner, (sizes, steps) = plan
    if whole:
        return contiguous_total(x).reshape(out_shape)
    if x.size == 0:
        return np.zeros(out_shape, x.dtype)
    unit = x.itemsize
    view = x.transpose(axes).reshape(view_shape)
    if inner is None:  # one chunk, whose values are the outputs in order (a bias's gradient, say)
        return (_chunk(view, in_strides, out_strides, unit) + _zero(x.dtype)).reshape(out_shape)
    out = np.zeros(out_shape, x.dtype)
    flat = out.reshape(-1)
    for position in np.ndindex(*sizes) if sizes else ((),):  # (ndindex costs more than a one-chunk sum)
        base = sum(index * step for index, step in zip(position, steps))
        values = _chunk(view[position], in_strides, out_strides, unit)
        # outputs shared by several chunks (or rows) accumulate in loop order, as the kernel's stores do
        np.add.at(flat, (base + inner[:values.size]) // unit, values)
    return out


# cascade_sum's layout of a reduction, which depends only on the shape, strides, dtype and
# dimensions: computed once per kind of call (a training loop sums the same shapes every step)
_SUM_PLANS: dict = {}
_SUM_PLANS_KEPT = 256


def _sum_plan(x: np.ndarray, dims: tuple) -> tuple:
    """(out_shape, whole, axes, view_shape, in_strides, out_strides, inner, (sizes, steps)) for
    cascade_sum: `whole` when it sums everything from memory in order; `inner` None when one
    chunk's values are all the outputs, in order; otherwise `x` transposed
    by `axes` and reshaped to `view_shape` has one axis per coalesced group of dimensions
    (outermost first), and the 2-D loop runs once per position over the outer groups' `sizes`,
    its outputs at the byte offset given by the groups' output strides, `steps`."""
    unit = x.itemsize
    reduced = set(dims) if dims else set(range(x.ndim))
    out_shape = tuple(1 if d in reduced else n for d, n in enumerate(x.shape))
    lanes = VECTOR_BYTES // unit
    if x.size >= lanes and x.flags.c_contiguous and all(d in reduced or n == 1 for d, n in enumerate(x.shape)):
        # everything into one value, from memory in order: TensorIterator makes it one row, which
        # the loop below would sum by _inner_vectorized and add into a zero (a sum from +0 is never -0)
        return out_shape, True, None, None, None, None, None, ((), ())
    if x.size == 0:
        return out_shape, False, None, None, None, None, None, ((), ())
    contiguous = np.zeros(out_shape, x.dtype).strides

    def strides_of(d: int) -> tuple:  # (output, input) strides in bytes; a reduced dim stays put in the output
        return 0 if d in reduced else contiguous[d], x.strides[d]

    kept = [d for d in range(x.ndim) if x.shape[d] != 1]  # TensorIterator coalesces size-1 dimensions away
    order = [kept[i] for i in iteration_order([x.shape[d] for d in kept], [strides_of(d) for d in kept],
                                                 reduction=True)]
    groups: list = []  # coalesced dimensions, innermost first: [axes (inner to outer), size, strides]
    for d in order:
        if groups and all(groups[-1][1] * inner == stride for inner, stride in zip(groups[-1][2], strides_of(d))):
            groups[-1][0].append(d)
            groups[-1][1] *= x.shape[d]
        else:
            groups.append([[d], x.shape[d], strides_of(d)])
    while len(groups) < 2:
        groups.append([[], 1, (0, 0)])
    # a numpy view with one axis per group, outermost first
    axes = [a for group in reversed(groups) for a in reversed(group[0])]
    axes = tuple(axes + [d for d in range(x.ndim) if d not in axes])
    view_shape = tuple(g[1] for g in reversed(groups))
    in_strides = [groups[0][2][1], groups[1][2][1]]
    out_strides = [groups[0][2][0], groups[1][2][0]]
    if out_strides[0] and out_strides[1]:
        inner = (np.arange(groups[1][1])[:, None] * out_strides[1] + np.arange(groups[0][1]) * out_strides[0]).ravel()
    else:
        inner = np.arange(groups[1][1] if not out_strides[0] else groups[0][1]) * (out_strides[1] or out_strides[0])
    inner.flags.writeable = False
    outer = groups[:1:-1]
    sizes, steps = tuple(g[1] for g in outer), tuple(g[2][0] for g in outer)
    if not sizes and np.array_equal(inner // unit, np.arange(int(np.prod(out_shape)))):
        inner = None  # one chunk, adding into zeros each output in order: its values plus 0
    return out_shape, False, axes, view_shape, in_strides, out_strides, inner, (sizes, steps)
