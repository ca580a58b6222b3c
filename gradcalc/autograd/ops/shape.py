"""Views and shape changes: view, reshape, permute, transpose, squeeze, expand, select, slice,
narrow, and the copies that rearrange elements (flip, roll, repeat, tril, triu, diag)."""
from __future__ import annotations

import math
from typing import Any, Sequence

import numpy as np

from .. import dtypes
from ..tensor import Tensor, wrap_dim
from .common import (check_not_unsigned, normalize_dims, plain_int_tuple, plain_ints, shape_args, shape_text,
                     wrap_int64)
from .registry import LINEAR, node, op, record, recording_not_needed

# the backward of a view takes the gradient back to the input's shape (reshape called as it is,
# without the method's argument parsing; on the array when the backward records nothing); all of
# them are linear
VIEW = node("ViewBackward0", ("self",), jvp=LINEAR,
            self=lambda grad, self_sym_sizes: _reshaped_grad(grad, self_sym_sizes))
UNSAFE_VIEW = node("UnsafeViewBackward0", ("self",), jvp=LINEAR,
                   self=lambda grad, self_sym_sizes: reshape(grad, self_sym_sizes))
RESHAPE_ALIAS = node("ReshapeAliasBackward0", ("self",), jvp=LINEAR,
                     self=lambda grad, self_sym_sizes: reshape(grad, self_sym_sizes))
T = node("TBackward0", ("self",), jvp=LINEAR, self=lambda grad: grad.t())
TRANSPOSE = node("TransposeBackward0", ("self",), jvp=LINEAR,
                 self=lambda grad, dim0, dim1: grad.transpose(dim0, dim1))
PERMUTE = node("PermuteBackward0", ("self",), jvp=LINEAR,
               self=lambda grad, dims: grad.permute(tuple(np.argsort([wrap_dim(d, grad.ndim) for d in dims]))))
UNSQUEEZE = node("UnsqueezeBackward0", ("self",), jvp=LINEAR, self=lambda grad, dim: grad.squeeze(dim))
SQUEEZE = node("SqueezeBackward0", ("self",), jvp=LINEAR,
               self=lambda grad, self_sym_sizes: grad.reshape(self_sym_sizes))
SQUEEZE_DIM = node("SqueezeBackward1", ("self",), jvp=LINEAR,
                   self=lambda grad, self_sym_sizes, dim: grad.reshape(self_sym_sizes))
SQUEEZE_DIMS = node("SqueezeBackward2", ("self",), jvp=LINEAR,
                    self=lambda grad, self_sym_sizes, dim: grad.reshape(self_sym_sizes))
# `x.squeeze_(0)` on a fresh result: what matmul and nn.Linear do to a 1-D input's row
SQUEEZE_INPLACE = node("SqueezeBackward4", ("self",), jvp=LINEAR,
                       self=lambda grad, self_sym_sizes, dim: grad.reshape(self_sym_sizes))
EXPAND = node("ExpandBackward0", ("self",), jvp=LINEAR,
              self=lambda grad, self_sym_sizes: grad.sum_to_size(self_sym_sizes))
ALIAS = node("AliasBackward0", ("self",), jvp=LINEAR, self=lambda grad: grad)
SELECT = node("SelectBackward0", ("self",), jvp=LINEAR,
              self=lambda grad, self_sym_sizes, dim, index: select_backward(grad, self_sym_sizes, dim, index))
SLICE = node("SliceBackward0", ("self",), jvp=LINEAR,
             self=lambda grad, self_sym_sizes, dim, start, end, step: slice_backward(grad, self_sym_sizes, dim, start,
                                                                                    end, step))
SELECT_BACKWARD = node("SelectBackwardBackward0", ("grad_output",), jvp=LINEAR,
                       grad_output=lambda grad, dim, index: grad.select(dim, index))
SLICE_BACKWARD = node("SliceBackwardBackward0", ("grad_output",), jvp=LINEAR,
                      grad_output=lambda grad, dim, start, end, step: slice_dim(grad, dim, start, end, step))
FLIP = node("FlipBackward0", ("self",), jvp=LINEAR, self=lambda grad, dims: grad.flip(dims))
ROLL = node("RollBackward0", ("self",), jvp=LINEAR,
            self=lambda grad, shifts, dims: grad.roll(tuple(-shift for shift in shifts), dims))
REPEAT = node("RepeatBackward0", ("self",), jvp=LINEAR,
              self=lambda grad, repeats, self_sym_sizes: _repeat_grad(grad, repeats, self_sym_sizes))
TRIL = node("TrilBackward0", ("self",), jvp=LINEAR, self=lambda grad, diagonal: grad.tril(diagonal))
TRIU = node("TriuBackward0", ("self",), jvp=LINEAR, self=lambda grad, diagonal: grad.triu(diagonal))


def _reshaped_grad(grad: Tensor, sizes: tuple) -> Tensor:
    if recording_not_needed():
        return Tensor._make(grad._data.reshape(sizes), grad._dtype)
    return reshape(grad, sizes)


def _view_shape(a: Tensor, shape: Sequence) -> tuple:
    if not plain_int_tuple(shape):
        shape = tuple(int(s) for s in shape)
    return infer_size(shape, a._data.size)  # (numel's own method would parse its arguments)


def infer_size(shape: tuple, numel: int) -> tuple:
    """ATen's infer_size: `shape` with its -1 worked out for `numel` elements, or its error."""
    if shape and min(shape) >= -1:  # the common cases, that fit: no -1 or one (the rest is refused below)
        inferring = shape.count(-1)
        if not inferring and wrap_int64(math.prod(shape)) == numel:
            return shape
        if inferring == 1:
            known = wrap_int64(-math.prod(shape))  # the other sizes' product
            if known > 0 and not numel % known:
                index = shape.index(-1)
                return shape[:index] + (numel // known,) + shape[index + 1:]
    # ATen's infer_size checks the sizes in order: a second -1 or a negative size, whichever comes first
    inferred = None
    for index, size in enumerate(shape):
        if size == -1:
            if inferred is not None:
                raise RuntimeError("only one dimension can be inferred")
            inferred = index
        elif size < 0:
            raise RuntimeError(f"invalid shape dimension {size} at index {index} of shape {shape_text(shape)}")
    # the product as int64 arithmetic wraps it, without numpy's cost on a few ints
    known = wrap_int64(math.prod(s for s in shape if s != -1))
    if inferred is not None:
        if known == 0 and numel == 0:
            raise RuntimeError(f"cannot reshape tensor of 0 elements into shape {shape_text(shape)} because the "
                               "unspecified dimension size -1 can be any value and is ambiguous")
        if known <= 0 or numel % known:
            raise RuntimeError(f"shape '{shape_text(shape)}' is invalid for input of size {numel}")
        shape = tuple(numel // known if s == -1 else s for s in shape)
    elif known != numel:
        raise RuntimeError(f"shape '{shape_text(shape)}' is invalid for input of size {numel}")
    return shape


@op(function=False)
def view(input: Tensor, size: Any = None, *, dtype: Any = None) -> Tensor:
    if dtype is not None:
        return _view_dtype(input, dtype)
    data = input._data.view()
    if plain_ints(size, -1):
        # sizes the parser passed: numpy works out a -1 as infer_size would (it would take any
        # negative size for one), and takes what fits; what it refuses is worked out below, in
        # PyTorch's words
        try:
            data.shape = size
        except (ValueError, AttributeError):
            pass
        else:
            return record(VIEW, (input,), data, input._dtype, view_of=input, self_sym_sizes=input.shape)
    shape = _view_shape(input, shape_args(size) if isinstance(size, tuple) else size)
    try:
        data.shape = shape
    except AttributeError:
        raise RuntimeError("view size is not compatible with input tensor's size and stride (at least one "
                           "dimension spans across two contiguous subspaces). Use .reshape(...) instead.") from None
    return record(VIEW, (input,), data, input._dtype, view_of=input, self_sym_sizes=input.shape)


def _view_dtype(input: Tensor, dtype: Any) -> Tensor:
    """The same bytes read as another dtype (the last dim scaled by the ratio of element sizes).
    PyTorch does not track it for autograd: no grad_fn, no base."""
    old, new = input._dtype.itemsize, dtype.itemsize
    if old != new:
        if input.ndim == 0:
            raise RuntimeError(f"self.dim() cannot be 0 to view {input._dtype._scalar_name} as "
                               f"{dtype._scalar_name} (different element sizes)")
        if input.stride(-1) != 1:
            raise RuntimeError(f"self.stride(-1) must be 1 to view {input._dtype._scalar_name} as "
                               f"{dtype._scalar_name} (different element sizes), but got {input.stride(-1)}")
        if new > old and (input.shape[-1] * old) % new:
            raise RuntimeError(f"self.size(-1) must be divisible by {new // old} to view "
                               f"{input._dtype._scalar_name} as {dtype._scalar_name} (different element sizes), "
                               f"but got {input.shape[-1]}")
    data = (input._data if input.ndim else input._data.reshape(1)).view(dtype._numpy)
    return Tensor._make(data if input.ndim or old != new else data.reshape(()), dtype)


@op()
def reshape(input: Tensor, shape: Any) -> Tensor:
    shape = _view_shape(input, shape)
    data = input._data.view()
    try:
        data.shape = shape
    except AttributeError:
        return unsafe_view(input.clone(), shape)
    # PyTorch views a contiguous tensor, and aliases a non-contiguous one with new strides
    node_def = VIEW if input._data.flags.c_contiguous else RESHAPE_ALIAS
    return record(node_def, (input,), data, input._dtype, view_of=input, self_sym_sizes=input.shape)


def alias(input: Tensor) -> Tensor:
    """A view of the whole tensor (AliasBackward0), as aten::alias."""
    return record(ALIAS, (input,), input._data.view(), input._dtype, view_of=input)


@op(function=False)
def view_as(input: Tensor, other: Tensor) -> Tensor:
    return view(input, other.shape)


@op(function=False)
def reshape_as(input: Tensor, other: Tensor) -> Tensor:
    return reshape(input, other.shape)


def unsafe_view(a: Tensor, shape: tuple) -> Tensor:
    return record(UNSAFE_VIEW, (a,), a._data.reshape(shape), a._dtype, view_of=a, self_sym_sizes=a.shape)


@op()
def flatten(input: Tensor, start_dim: int = 0, end_dim: int = -1) -> Tensor:
    if input.ndim == 0:
        return reshape(input, (1,))
    start, end = wrap_dim(start_dim, input.ndim), wrap_dim(end_dim, input.ndim)
    if start > end:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    if start == end:
        return input
    shape = input.shape[:start] + (int(np.prod(input.shape[start:end + 1])),) + input.shape[end + 1:]
    return reshape(input, shape)


@op(inplace=False)  # t_ changes the shape of the tensor itself: not a value written back
def t(input: Tensor) -> Tensor:
    if input.ndim > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {input.ndim}D")
    return record(T, (input,), input._data.T, input._dtype, view_of=input)


@op(aliases=("swapdims",), inplace=False)
def transpose(input: Tensor, dim0: int, dim1: int) -> Tensor:
    d0, d1 = wrap_dim(dim0, input.ndim), wrap_dim(dim1, input.ndim)
    data = np.swapaxes(input._data, d0, d1) if input.ndim else input._data.view()  # a 0-dim tensor takes 0 and -1
    return record(TRANSPOSE, (input,), data, input._dtype, view_of=input, dim0=dim0, dim1=dim1)


@op(inplace=False)  # transpose under the names of PyTorch's signature, swapaxes(axis0, axis1)
def swapaxes(input: Tensor, axis0: int, axis1: int) -> Tensor:
    return transpose(input, axis0, axis1)


@op()
def permute(input: Tensor, dims: Sequence[int]) -> Tensor:
    if len(dims) != input.ndim:
        raise RuntimeError(f"permute(sparse_coo): number of dimensions in the tensor input does not match the "
                           f"length of the desired ordering of dimensions i.e. input.dim() = {input.ndim} is not equal "
                           f"to len(dims) = {len(dims)}")
    wrapped = tuple(wrap_dim(d, input.ndim) for d in dims)
    if len(set(wrapped)) != len(wrapped):
        raise RuntimeError("permute(): duplicate dims are not allowed.")
    return record(PERMUTE, (input,), np.transpose(input._data, wrapped), input._dtype, view_of=input, dims=tuple(dims))


@op(inplace=False)
def unsqueeze(input: Tensor, dim: int) -> Tensor:
    d = wrap_dim(dim, input.ndim + 1)
    return record(UNSQUEEZE, (input,), np.expand_dims(input._data, d), input._dtype, view_of=input, dim=dim)


@op(inplace=False)
def squeeze(input: Tensor, dim: Any = None) -> Tensor:
    if dim is None:
        return record(SQUEEZE, (input,), np.squeeze(input._data), input._dtype, view_of=input,
                      self_sym_sizes=input.shape)
    dims = normalize_dims(dim, input.ndim) if input.ndim else ()
    drop = tuple(d for d in dims if input.shape[d] == 1)
    data = np.squeeze(input._data, axis=drop) if drop else input._data.view()
    node_def = SQUEEZE_DIMS if isinstance(dim, tuple) else SQUEEZE_DIM
    return record(node_def, (input,), data, input._dtype, view_of=input, self_sym_sizes=input.shape, dim=dim)


def squeeze_inplace(a: Tensor, dim: int) -> Tensor:
    """`x.squeeze_(dim)` on a fresh result, as matmul and linear record it."""
    return record(SQUEEZE_INPLACE, (a,), np.squeeze(a._data, dim), a._dtype, view_of=a, self_sym_sizes=a.shape,
                  dim=dim)


@op(function=False)
def expand(input: Tensor, size: Sequence[int], *, implicit: bool = False) -> Tensor:
    a, sizes = input, tuple(size)
    target = expanded_shape(a, sizes)
    if target == a.shape:
        return record(EXPAND, (a,), a._data.view(), a._dtype, view_of=a, self_sym_sizes=a.shape)
    # a view that can be written through, as PyTorch's (np.broadcast_to's is read-only), with
    # PyTorch's strides (inferExpandGeometry): 0 where expanded, a new dim of size 1 as if contiguous
    lead = len(sizes) - a.ndim
    strides = [0] * len(target)
    for i in reversed(range(len(target))):
        if i >= lead:
            length, stride = a.shape[i - lead], a._data.strides[i - lead]
        else:
            length, stride = 1, target[i + 1] * strides[i + 1] if i + 1 < len(target) else a._data.itemsize
        strides[i] = 0 if length != target[i] else stride
    data = np.lib.stride_tricks.as_strided(a._data, target, tuple(strides))
    return record(EXPAND, (a,), data, a._dtype, view_of=a, self_sym_sizes=a.shape)


def expanded_shape(a: Tensor, sizes: tuple) -> tuple:
    """The shape `a.expand(*sizes)` has (-1 keeps a dim), or PyTorch's error, from the last dim on."""
    if len(sizes) < a.ndim:
        raise RuntimeError(f"expand({dtypes.legacy_type_name(a._dtype)}{{{shape_text(a.shape)}}}, "
                           f"size={shape_text(sizes)}): the number of sizes "
                           f"provided ({len(sizes)}) must be greater or equal to the number of dimensions in the "
                           f"tensor ({a.ndim})")
    lead = len(sizes) - a.ndim
    target = []
    for i in reversed(range(len(sizes))):  # from the last dim, as PyTorch checks them
        wanted = sizes[i]
        if i < lead:
            if wanted == -1:
                raise RuntimeError(f"The expanded size of the tensor (-1) isn't allowed in a leading, "
                                   f"non-existing dimension {i}")
            target.append(wanted)
            continue
        current = a.shape[i - lead]
        if wanted == -1:
            wanted = current
        if current != wanted and current != 1:
            raise RuntimeError(f"The expanded size of the tensor ({wanted}) must match the existing size ({current}) "
                               f"at non-singleton dimension {i}.  Target sizes: {shape_text(sizes)}.  "
                               f"Tensor sizes: {shape_text(a.shape)}")
        target.append(wanted)
    target = tuple(reversed(target))
    if any(n < 0 for n in target):  # c10's numel of the negative size, read as unsigned
        raise RuntimeError("numel: integer multiplication overflow")
    return target


@op(function=False)
def expand_as(input: Tensor, other: Tensor) -> Tensor:
    return expand(input, other.shape)


def _select_key(dim: int, index: int) -> tuple:
    return (slice(None),) * dim + (index,)


def _slice_key(dim: int, key: slice) -> tuple:
    return (slice(None),) * dim + (key,)


@op()
def select(input: Tensor, dim: int, index: int) -> Tensor:
    if input.ndim == 0:
        raise IndexError("select() cannot be applied to a 0-dim tensor.")
    d = wrap_dim(dim, input.ndim)
    size = input.shape[d]
    if not -size <= index < size:
        raise IndexError(f"select(): index {index} out of range for tensor of size {list(input.shape)} at "
                         f"dimension {d}")
    key = _select_key(d, index % size)
    data = input._data[key]
    return record(SELECT, (input,), np.asarray(data) if data.ndim else input._data[key + (...,)], input._dtype,
                  view_of=input, self_sym_sizes=input.shape, dim=dim, index=index)


# the end PyTorch keeps for a slice with no stop: INT64_MAX
END_OF_DIM = 2 ** 63 - 1


def slice_dim(a: Tensor, dim: int, start: Any, end: Any, step: Any) -> Tensor:
    """a[..., start:end:step] along dim: PyTorch's slice, which keeps start and end as given."""
    step = 1 if step is None else step
    if step <= 0:
        raise ValueError("step must be greater than zero")
    d = wrap_dim(dim, a.ndim)
    step = min(step, _INT64_MAX)  # (PySlice_Unpack's clamp)
    first, last, _ = slice(start, end, step).indices(a.shape[d])
    last = max(first, last)
    if step > 1 << 62:  # ATen's size arithmetic may overflow int64 here
        size = _wrapped_slice_size(last - first, step)
        _check_wrapped_view(a, d, size, step)
        last = first + size
    data = a._data[_slice_key(d, slice(first, last, step))]
    return record(SLICE, (a,), data, a._dtype, view_of=a, self_sym_sizes=a.shape, dim=dim,
                  start=0 if start is None else start, end=END_OF_DIM if end is None else end, step=step)


_INT64_MAX = (1 << 63) - 1


def _wrapped_int64(value: int) -> int:
    return (value + (1 << 63)) % (1 << 64) - (1 << 63)


def _wrapped_slice_size(length: int, step: int) -> int:
    """ATen's slice size, (len + step - 1) / step in C's int64 arithmetic: the sum wraps and the
    division truncates, so a step near int64's limit gives 0 or -1 where Python's gives 1."""
    total = _wrapped_int64(length + step - 1)
    return total // step if total >= 0 else -(-total // step)


def _check_wrapped_view(a: Tensor, dim: int, size: int, step: int) -> None:
    """as_strided's checks of the view such a slice makes: its stride (times step) wrapped
    negative, or its size, refused."""
    sizes, strides = list(a.shape), [stride // a._data.itemsize for stride in a._data.strides]
    sizes[dim], strides[dim] = size, _wrapped_int64(strides[dim] * step)
    if min(strides) < 0:
        raise RuntimeError(f"as_strided: Negative strides are not supported at the moment, got strides: {strides}")
    if size < 0:
        raise RuntimeError(f"Storage size calculation overflowed with sizes={sizes} and strides={strides}")


def _slice_bounds(size: int, start: int, end: int, step: int) -> slice:
    first, last, _ = slice(start, end, step).indices(size)
    return slice(first, max(first, last), step)


@op()
def narrow(input: Tensor, dim: int, start: Any, length: int) -> Tensor:
    # PyTorch's narrow is a slice: its grad_fn is SliceBackward0
    if isinstance(start, Tensor):
        start = int(start.item())
    if input.ndim == 0:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    d = wrap_dim(dim, input.ndim)
    size = input.shape[d]
    if not -size <= start <= size:
        raise IndexError(f"start out of range (expected to be in range of [{-size}, {size}], but got {start})")
    if length < 0:
        raise RuntimeError("narrow(): length must be non-negative.")
    start %= max(size, 1)
    if start + length > size:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size ({size}).")
    return slice_dim(input, dim, start, start + length, 1)


def select_backward(grad: Tensor, shape: tuple, dim: int, index: int) -> Tensor:
    """Zeros of `shape` with `grad` at `index` along `dim`."""
    d = wrap_dim(dim, len(shape))
    data = np.zeros(shape, dtype=grad._dtype._numpy)
    data[_select_key(d, index % shape[d])] = grad._data
    return record(SELECT_BACKWARD, (grad,), data, grad._dtype, dim=dim, index=index)


def slice_backward(grad: Tensor, shape: tuple, dim: int, start: int, end: int, step: int) -> Tensor:
    """Zeros of `shape` with `grad` at the slice start:end:step along `dim`."""
    d = wrap_dim(dim, len(shape))
    data = np.zeros(shape, dtype=grad._dtype._numpy)
    data[_slice_key(d, _slice_bounds(shape[d], start, end, step))] = grad._data
    return record(SLICE_BACKWARD, (grad,), data, grad._dtype, dim=dim, start=start, end=end, step=step)


@op()
def movedim(input: Tensor, source: Any, destination: Any) -> Tensor:
    """A permute (PyTorch records PermuteBackward0) that moves `source` dims to `destination`."""
    a = input
    if a.ndim == 0:  # dims 0 and -1 name the tensor itself: nothing moves
        wrap_dim(source if not isinstance(source, tuple) else 0, 0)
        return record(ALIAS, (a,), a._data.view(), a._dtype, view_of=a)
    sources = [wrap_dim(d, a.ndim) for d in (source if isinstance(source, tuple) else (source,))]
    targets = [wrap_dim(d, a.ndim) for d in (destination if isinstance(destination, tuple) else (destination,))]
    order = [d for d in range(a.ndim) if d not in sources]
    for target, source_dim in sorted(zip(targets, sources)):
        order.insert(target, source_dim)
    return permute(a, tuple(order))


@op()
def flip(input: Tensor, dims: Sequence[int]) -> Tensor:
    check_not_unsigned("flip_cpu", input._dtype)
    wrapped = normalize_dims(tuple(dims), input.ndim)
    data = np.flip(input._data, wrapped).copy() if input.ndim else input._data.copy()
    return record(FLIP, (input,), data, input._dtype, dims=tuple(dims))


@op()
def roll(input: Tensor, shifts: Sequence[int], dims: Any = None) -> Tensor:
    """ATen's roll: the flattened tensor for one shift and no dims, else one dim after another,
    an empty tensor copied whatever its dims."""
    a = input
    shifts, dims = tuple(shifts), tuple(dims or ())
    if not shifts:
        raise RuntimeError("`shifts` required")
    if not dims and len(shifts) == 1:  # the flattened tensor rolls
        data = np.roll(a._data.reshape(-1), shifts).reshape(a.shape)
        return record(ROLL, (a,), data, a._dtype, shifts=shifts, dims=())
    if len(shifts) != len(dims):
        raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, dims:{len(dims)}")
    if a.ndim == 0:  # the kernel asks the size of the first dim
        raise IndexError(f"Dimension specified as {dims[0]} but tensor has no dimensions")
    if a.numel() == 0:
        data = a._data.copy()
    else:
        data = np.roll(a._data, shifts, tuple(wrap_dim(d, a.ndim) for d in dims)) if a.ndim else a._data.copy()
    return record(ROLL, (a,), data, a._dtype, shifts=shifts, dims=dims)


def _repeat_grad(grad: Tensor, repeats: tuple, self_shape: tuple) -> Tensor:
    """The sum of the gradient over the copies: each dim split into (copies, size), the copies summed."""
    padded = (1,) * (len(repeats) - len(self_shape)) + tuple(self_shape)
    split = tuple(n for pair in zip(repeats, padded) for n in pair)
    return grad.reshape(split).sum(tuple(range(0, len(split), 2))).reshape(self_shape)


@op(function=False)
def repeat(input: Tensor, repeats: Sequence[int]) -> Tensor:
    repeats = tuple(repeats)
    if len(repeats) < input.ndim:
        raise RuntimeError("Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor")
    padded = input._data.reshape((1,) * (len(repeats) - input.ndim) + input.shape)
    sizes = [size * count for size, count in zip(padded.shape, repeats)]
    for size in sizes:  # the new tensor's sizes, checked as empty() checks them
        if size < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {size}: {shape_text(sizes)}")
    return record(REPEAT, (input,), np.tile(padded, repeats), input._dtype, repeats=repeats,
                  self_sym_sizes=input.shape)


@op()
def tril(input: Tensor, diagonal: int = 0) -> Tensor:
    if input.ndim < 2:
        raise RuntimeError("tril: input tensor must have at least 2 dimensions")
    return record(TRIL, (input,), np.tril(input._data, diagonal), input._dtype, diagonal=diagonal)


@op()
def triu(input: Tensor, diagonal: int = 0) -> Tensor:
    if input.ndim < 2:
        raise RuntimeError("triu: input tensor must have at least 2 dimensions")
    return record(TRIU, (input,), np.triu(input._data, diagonal), input._dtype, diagonal=diagonal)


# diag: a vector onto a diagonal (DiagEmbed), or a matrix's diagonal copied out
DIAG_EMBED = node("DiagEmbedBackward0", ("self",), jvp=LINEAR,
                  self=lambda grad, offset, dim1, dim2: diag(grad, offset))
DIAGONAL_COPY = node("DiagonalBackward0_copy", ("self",), jvp=LINEAR,
                     self=lambda grad, self_sym_sizes, offset, dim1, dim2: diagonal_backward(grad, self_sym_sizes,
                                                                                             offset))
DIAGONAL_BACKWARD = node("DiagonalBackwardBackward0", ("grad_output",), jvp=LINEAR,
                         grad_output=lambda grad, offset, dim1, dim2: diag(grad, offset))


@op()
def diag(input: Tensor, diagonal: int = 0) -> Tensor:
    if input.ndim == 1:
        return record(DIAG_EMBED, (input,), np.diag(input._data, diagonal), input._dtype, offset=diagonal, dim1=0,
                      dim2=1)
    if input.ndim == 2:
        return record(DIAGONAL_COPY, (input,), np.diag(input._data, diagonal).copy(), input._dtype,
                      self_sym_sizes=input.shape, offset=diagonal, dim1=0, dim2=1)
    raise RuntimeError(f"diag(): Supports 1D or 2D tensors. Got {input.ndim}D")


def diagonal_backward(grad_output: Tensor, shape: tuple, diagonal: int) -> Tensor:
    """A zero matrix of `shape` holding grad_output on the diagonal."""
    data = np.zeros(shape, dtype=grad_output._dtype._numpy)
    index = np.arange(grad_output.shape[0])
    data[index + max(-diagonal, 0), index + max(diagonal, 0)] = grad_output._data
    return record(DIAGONAL_BACKWARD, (grad_output,), data, grad_output._dtype, offset=diagonal, dim1=0, dim2=1)
