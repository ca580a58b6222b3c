"""Joining and splitting: cat, stack, unbind, split, chunk."""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from .. import dtypes, meta
from ..tensor import Tensor, wrap_dim
from .common import arrays, shape_text, zeros
from .parser import parser
from .registry import LINEAR, node, op, record, record_outputs, record_views
from .shape import narrow, select

STACK = node("StackBackward0", ("tensors",), jvp=LINEAR,
             tensors=lambda grad, dim, _count: [select(grad, dim, index) for index in range(_count)])
CAT = node("CatBackward0", ("tensors",), jvp=LINEAR,
           tensors=lambda grad, dim, _sizes: [narrow(grad, dim, start, size) for start, size in _sizes])
UNBIND = node("UnbindBackward0", ("self",), multi_output=True, jvp=LINEAR,
              self=lambda grads, _self_sizes, dim: stack(
                  _pieces(grads, _self_sizes, dim, [1] * _self_sizes[wrap_dim(dim, len(_self_sizes))], True), dim))
SPLIT = node("SplitBackward0", ("self",), multi_output=True, jvp=LINEAR, saved=("split_size",),
             self=lambda grads, self_sym_sizes, dim, _sizes: cat(_pieces(grads, self_sym_sizes, dim, _sizes, False),
                                                                 dim))
SPLIT_WITH_SIZES = node("SplitWithSizesBackward0", ("self",), multi_output=True, jvp=LINEAR,
                        self=lambda grads, self_sym_sizes, dim, split_sizes: cat(
                            _pieces(grads, self_sym_sizes, dim, split_sizes, False), dim))


def _pieces(grads: list, self_shape: tuple, dim: int, sizes: list, squeezed: bool) -> list:
    """The gradients of the outputs of unbind or split, zeros for those that got none."""
    dim = wrap_dim(dim, len(self_shape))
    pieces = []
    for index, size in enumerate(sizes):
        grad = grads[index] if index < len(grads) else None
        if grad is None:
            shape = self_shape[:dim] + (() if squeezed else (size,)) + self_shape[dim + 1:]
            grad = zeros(shape, dtype=next(g for g in grads if g is not None).dtype)
        pieces.append(grad)
    return pieces


@op(nodes=(STACK,))
def stack(tensors: Sequence[Tensor], dim: int = 0) -> Tensor:
    tensors = list(tensors)
    if not tensors:
        raise RuntimeError("stack expects a non-empty TensorList")
    first = tensors[0]
    if meta.state["made"] and meta.any_meta(tensors):
        # stack's meta kernel: the sizes first (its message stops short), then the devices
        if any(t.shape != first.shape for t in tensors):
            raise RuntimeError(f"stack expects each tensor to be equal size, but got {first.shape} at entry 0 ")
        meta.check_same_device(tensors, scalars_exempt=False)
    for i, t in enumerate(tensors):
        if t.shape != first.shape:
            raise RuntimeError(f"stack expects each tensor to be equal size, but got {shape_text(first.shape)} at "
                               f"entry 0 and {shape_text(t.shape)} at entry {i}")
    d = wrap_dim(dim, first.ndim + 1)
    dtype = dtypes.result_type(tensors)
    data = np.stack(arrays(tensors, dtype), axis=d)
    return record(STACK, tensors, data, dtype, dim=dim, _count=len(tensors))


@op(nodes=(CAT,), aliases=("concat", "concatenate"))
def cat(tensors: Sequence[Tensor], dim: int = 0) -> Tensor:
    tensors = list(tensors)
    if not tensors:
        raise ValueError("torch.cat(): expected a non-empty list of Tensors")
    on_meta = meta.state["made"] and meta.any_meta(tensors)
    if on_meta:  # cat's meta kernel checks every tensor's device first
        meta.check_same_device(tensors, scalars_exempt=False)
    for position, t in enumerate(tensors):
        if t.ndim == 0:
            raise RuntimeError(f"zero-dimensional tensor (at position {position}) cannot be concatenated")
    kept = [t for t in tensors if not (t.ndim == 1 and t.shape[0] == 0)] or tensors[:1]
    d = wrap_dim(dim, kept[0].ndim)
    dtype = dtypes.result_type(tensors)
    if on_meta:
        meta.check_concatenated(kept, d)
    for i, t in enumerate(kept):
        if t.ndim != kept[0].ndim:
            raise RuntimeError(f"Tensors must have same number of dimensions: got {kept[0].ndim} and {t.ndim}")
        for axis in range(t.ndim):
            if axis != d and t.shape[axis] != kept[0].shape[axis]:
                raise RuntimeError(f"Sizes of tensors must match except in dimension {d}. Expected size "
                                   f"{kept[0].shape[axis]} but got size {t.shape[axis]} for tensor number {i} in the "
                                   f"list.")
    data = np.concatenate(arrays(kept, dtype), axis=d)
    sizes, start = [], 0
    for t in tensors:
        size = t.shape[d] if t.ndim > d else 0
        sizes.append((start, size))
        start += size
    return record(CAT, tensors, data, dtype, dim=dim, _sizes=sizes)


@op(nodes=(UNBIND,))
def unbind(input: Tensor, dim: int = 0) -> tuple:
    if input.ndim == 0:
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    d = wrap_dim(dim, input.ndim)
    datas = [input._data[(slice(None),) * d + (i, ...)] for i in range(input.shape[d])]
    return record_views(UNBIND, input, datas, _self_sizes=input.shape, dim=dim)


UNSAFE_SPLIT = node("UnsafeSplitBackward0", ("self",), multi_output=True, jvp=LINEAR, saved=("split_size",),
                    self=SPLIT.formulas[0])
UNSAFE_SPLIT_WITH_SIZES = node("UnsafeSplitWithSizesBackward0", ("self",), multi_output=True, jvp=LINEAR,
                               self=SPLIT_WITH_SIZES.formulas[0])


def split_tensor(a: Tensor, split_size_or_sections: Any, dim: int = 0, unsafe: bool = False) -> tuple:
    if a.ndim == 0:
        raise RuntimeError("split expects at least a 1-dimensional tensor")
    d = wrap_dim(dim, a.ndim)
    size = a.shape[d]
    if isinstance(split_size_or_sections, (list, tuple)):
        sizes = [int(s) for s in split_size_or_sections]
        if sum(sizes) != size or any(s < 0 for s in sizes):
            raise RuntimeError(f"split_with_sizes expects split_sizes to sum exactly to {size} (input tensor's size "
                               f"at dimension {d}), but got split_sizes={shape_text(sizes)}")
        params = {"split_sizes": tuple(sizes)}
        node_def = SPLIT_WITH_SIZES
    else:
        step = int(split_size_or_sections)
        if step < 0:
            raise RuntimeError(f"split expects split_size be non-negative, but got split_size={step}")
        if step == 0 and size != 0:
            raise RuntimeError(f"split_size can only be 0 if dimension size is 0, but got dimension size of {size}")
        sizes = [min(step, size - start) for start in range(0, size, step)] if size else [0]
        params = {"split_size": step, "_sizes": sizes}
        node_def = SPLIT
    datas, start = [], 0
    for length in sizes:
        datas.append(a._data[(slice(None),) * d + (slice(start, start + length),)])
        start += length
    if unsafe:  # the same pieces, not marked as views of the input
        node_def = UNSAFE_SPLIT if node_def is SPLIT else UNSAFE_SPLIT_WITH_SIZES
        return record_outputs(node_def, (a,), [(data, a._dtype) for data in datas], ["piece"] * len(datas),
                              self_sym_sizes=a.shape, dim=dim, **params)
    return record_views(node_def, a, datas, self_sym_sizes=a.shape, dim=dim, **params)


def _split_method(self: Tensor, split_size: Any, dim: int = 0) -> tuple:
    # torch/_tensor.py: a number splits by size (torch.split), anything else by sizes (split_with_sizes)
    if isinstance(split_size, Tensor):
        try:
            split_size = int(split_size)
        except ValueError:
            pass
    name = "split" if isinstance(split_size, int) else "split_with_sizes"
    bound = parser("torch", name).parse((self, split_size, dim), {})[1]
    return split_tensor(self, bound["split_size" if name == "split" else "split_sizes"], bound.get("dim", 0))


@op(nodes=(SPLIT, SPLIT_WITH_SIZES), python="torch.functional", method=_split_method)
def split(tensor: Tensor, split_size_or_sections: Any, dim: int = 0) -> tuple:
    return tensor.split(split_size_or_sections, dim)


@op()
def split_with_sizes(input: Tensor, split_sizes: Sequence[int], dim: int = 0) -> tuple:
    return split_tensor(input, list(split_sizes), dim)


@op()
def unsafe_split(input: Tensor, split_size: int, dim: int = 0) -> tuple:
    return split_tensor(input, split_size, dim, unsafe=True)


@op()
def unsafe_split_with_sizes(input: Tensor, split_sizes: Sequence[int], dim: int = 0) -> tuple:
    return split_tensor(input, list(split_sizes), dim, unsafe=True)


@op()
def unsafe_chunk(input: Tensor, chunks: int, dim: int = 0) -> tuple:
    return chunk(input, chunks, dim, unsafe=True)


@op()
def chunk(input: Tensor, chunks: int, dim: int = 0, unsafe: bool = False) -> tuple:
    if chunks <= 0:
        raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    if input.ndim == 0:
        raise RuntimeError("chunk expects at least a 1-dimensional tensor")
    d = wrap_dim(dim, input.ndim)
    if input.shape[d] == 0:  # PyTorch makes `chunks` empty pieces, with split_with_sizes
        return split_tensor(input, [0] * chunks, dim, unsafe)
    return split_tensor(input, -(-input.shape[d] // chunks) if input.shape[d] else 0, dim, unsafe)
