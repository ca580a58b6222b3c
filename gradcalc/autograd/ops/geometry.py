"""Ops on a tensor's geometry itself: views by explicit sizes and strides (as_strided), the
in-place view ops that change a tensor's shape where it stands (t_, transpose_, squeeze_,
unsqueeze_, as_strided_), and resizing."""
from __future__ import annotations

from typing import Any, Optional, Sequence

import numpy as np

from .. import grad_mode
from ..forward_mode import has_tangent, propagate
from ..tensor import Tensor, wrap_dim
from ...warnings import warn
from .common import int64_tensor, normalize_dims
from .inplace import AS_STRIDED, view_positions
from .registry import LINEAR, new_node, node, op, record
from .shape import SQUEEZE_INPLACE

T_INPLACE = node("TBackward1", ("self",), jvp=LINEAR, self=lambda grad: grad.t())
TRANSPOSE_INPLACE = node("TransposeBackward1", ("self",), jvp=LINEAR,
                         self=lambda grad, dim0, dim1: grad.transpose(dim0, dim1))
UNSQUEEZE_INPLACE = node("UnsqueezeBackward1", ("self",), jvp=LINEAR, self=lambda grad, dim: grad.squeeze(dim))
SQUEEZE_ALL_INPLACE = node("SqueezeBackward3", ("self",), jvp=LINEAR,
                           self=lambda grad, self_sym_sizes: grad.reshape(self_sym_sizes))
SQUEEZE_DIMS_INPLACE = node("SqueezeBackward5", ("self",), jvp=LINEAR,
                            self=lambda grad, self_sym_sizes, dim: grad.reshape(self_sym_sizes))
AS_STRIDED_SCATTER = node("AsStridedScatterBackward0", ("self", "src"), jvp=LINEAR,
                          saved=("size", "stride", "storage_offset"),
                          self=lambda grad, _positions: grad.reshape(-1).index_fill(
                              0, _positions.reshape(-1), 0).reshape(grad.shape),
                          src=lambda grad, _positions: grad.reshape(-1)[_positions])
# Tensor.resize, which PyTorch writes as a Python autograd Function
RESIZE = node("torch.autograd.function.ResizeBackward", ("self",), shown_name="ResizeBackward", jvp=LINEAR,
              self=lambda grad, _self_sym_sizes: grad.reshape(_self_sym_sizes))


def _storage(t: Tensor) -> np.ndarray:
    """The flat array that owns `t`'s memory."""
    owner = t._data
    while isinstance(owner.base, np.ndarray):
        owner = owner.base
    return owner.reshape(-1)


def strided(input: Tensor, size: Sequence[int], stride: Sequence[int], storage_offset: Optional[int]) -> np.ndarray:
    size, stride = tuple(size), tuple(stride)
    offset = input.storage_offset() if storage_offset is None else storage_offset
    # ATen's setStrided, in its order: the lengths, the strides' signs, the storage's bounds, the offset
    if len(size) != len(stride):
        raise RuntimeError("mismatch in length of strides and shape")
    if any(s < 0 for s in stride):
        raise RuntimeError(f"as_strided: Negative strides are not supported at the moment, got strides: {list(stride)}")
    for n, s in zip(size, stride):  # computeStorageNbytes: a size of 0 first ends it; a negative one overflows
        if n == 0:
            break
        if n < 0 and s:
            raise RuntimeError(f"Storage size calculation overflowed with sizes={list(size)} and "
                               f"strides={list(stride)}")
    storage = _storage(input)
    needed = offset + 1 + sum((n - 1) * s for n, s in zip(size, stride)) if all(size) else 0
    if needed > storage.size:
        itemsize = input._data.itemsize
        raise RuntimeError(f"setStorage: sizes {list(size)}, strides {list(stride)}, storage offset {offset}, and "
                           f"itemsize {itemsize} requiring a storage size of {needed * itemsize} are out of bounds "
                           f"for storage of size {storage.size * itemsize}")
    if offset < 0:
        raise RuntimeError(f"Tensor: invalid storage offset {offset}")
    itemsize = storage.itemsize
    return np.lib.stride_tricks.as_strided(storage[offset:], size, tuple(s * itemsize for s in stride))


@op(inplace=False)
def as_strided(input: Tensor, size: Sequence[int], stride: Sequence[int], storage_offset: Optional[int] = None) -> Tensor:
    data = strided(input, size, stride, storage_offset)
    positions = view_positions(Tensor._make(data, input._dtype), input)
    return record(AS_STRIDED, (input,), data, input._dtype, view_of=input, size=tuple(size), stride=tuple(stride),
                  storage_offset=input.storage_offset() if storage_offset is None else storage_offset,
                  _self_sym_sizes=input.shape, _positions=positions)


@op(nodes=(AS_STRIDED_SCATTER,))
def as_strided_scatter(input: Tensor, src: Tensor, size: Sequence[int], stride: Sequence[int],
                       storage_offset: Optional[int] = None) -> Tensor:
    base = input.contiguous().clone() if input.is_contiguous() else input.contiguous()
    view = strided(base, size, stride, storage_offset)
    view[...] = src._data
    positions = view_positions(Tensor._make(view, base._dtype), base)
    return record(AS_STRIDED_SCATTER, (input, src), base._data, input._dtype, size=tuple(size), stride=tuple(stride),
                  storage_offset=storage_offset, _positions=int64_tensor(positions))


# ------------------------------------------------------------------ in place

def _check_leaf(self: Tensor) -> None:
    if self.is_leaf and self.requires_grad and grad_mode.is_grad_enabled():
        raise RuntimeError("a leaf Variable that requires grad is being used in an in-place operation.")


def _restride(self: Tensor, node_def: Any, data: np.ndarray, **params: Any) -> Tensor:
    """Give `self` the geometry of `data` (a view of its own memory), recording the view op."""
    _check_leaf(self)
    recorded = grad_mode.is_grad_enabled() and self.requires_grad
    history = new_node(node_def, (self,), params) if recorded else None
    before = None
    if has_tangent(self):  # the tangents take the new geometry too
        before = Tensor._make(self._data, self._dtype)
        before._fw = dict(self._fw)
    self._data = data
    self._vc.value += 1
    if before is not None:
        propagate(node_def, (before,), (self,), params)
    if history is not None:
        self._set_history(history, 0)
    return self


def _t_(self: Tensor) -> Tensor:
    if self.ndim > 2:
        raise RuntimeError(f"t_() expects a tensor with <= 2 dimensions, but self is {self.ndim}D")
    return _restride(self, T_INPLACE, self._data.T)


def _transpose_(self: Tensor, dim0: int, dim1: int) -> Tensor:
    d0, d1 = wrap_dim(dim0, max(self.ndim, 1)), wrap_dim(dim1, max(self.ndim, 1))
    return _restride(self, TRANSPOSE_INPLACE, np.swapaxes(self._data, d0, d1) if self.ndim else self._data,
                     dim0=dim0, dim1=dim1)


def _swapaxes_(self: Tensor, axis0: int, axis1: int) -> Tensor:
    return _transpose_(self, axis0, axis1)


def _swapdims_(self: Tensor, dim0: int, dim1: int) -> Tensor:
    return _transpose_(self, dim0, dim1)


def _unsqueeze_(self: Tensor, dim: int) -> Tensor:
    return _restride(self, UNSQUEEZE_INPLACE, np.expand_dims(self._data, wrap_dim(dim, self.ndim + 1)), dim=dim)


def _squeeze_(self: Tensor, dim: Any = None) -> Tensor:
    if dim is None:
        return _restride(self, SQUEEZE_ALL_INPLACE, np.squeeze(self._data), self_sym_sizes=self.shape)
    dims = normalize_dims(dim, self.ndim) if self.ndim else ()
    drop = tuple(d for d in dims if self.shape[d] == 1)
    data = np.squeeze(self._data, axis=drop) if drop else self._data
    node_def = SQUEEZE_DIMS_INPLACE if isinstance(dim, tuple) else SQUEEZE_INPLACE
    return _restride(self, node_def, data, self_sym_sizes=self.shape, dim=dim)


def _as_strided_(self: Tensor, size: Sequence[int], stride: Sequence[int], storage_offset: Optional[int] = None) -> Tensor:
    positions = view_positions(Tensor._make(strided(self, size, stride, storage_offset), self._dtype), self)
    return _restride(self, AS_STRIDED, strided(self, size, stride, storage_offset), size=tuple(size),
                     stride=tuple(stride), storage_offset=storage_offset, _self_sym_sizes=self.shape,
                     _positions=positions)


for _name, _method in (("t_", _t_), ("transpose_", _transpose_), ("swapaxes_", _swapaxes_),
                       ("swapdims_", _swapdims_), ("unsqueeze_", _unsqueeze_), ("squeeze_", _squeeze_),
                       ("as_strided_", _as_strided_)):
    op(_name, function=None if _name == "as_strided_" else False, inplace=False)(_method)  # torch.as_strided_ too
del _name, _method


def _resize_(self: Tensor, size: Sequence[int], *, memory_format: Any = None) -> Tensor:
    if self.requires_grad:
        raise RuntimeError("cannot resize variables that require grad")
    size = tuple(size)
    count = int(np.prod(size, dtype=np.int64))
    flat = _storage(self)[self.storage_offset():] if self._data.size else self._data.reshape(-1)
    if count <= flat.size and self.is_contiguous():
        self._data = flat[:count].reshape(size)
    else:  # a larger storage: the old values first, the rest uninitialised (zeros here)
        grown = np.zeros(count, dtype=self._data.dtype)
        kept = self._data.reshape(-1)[:count]
        grown[:kept.size] = kept
        self._data = grown.reshape(size)
    self._vc.value += 1
    return self


def _resize_as_(self: Tensor, the_template: Tensor, *, memory_format: Any = None) -> Tensor:
    return _resize_(self, the_template.shape)


def _resize(self: Tensor, *sizes: Any) -> Tensor:
    warn("UserWarning", "non-inplace resize is deprecated")
    shape = tuple(sizes[0]) if len(sizes) == 1 and isinstance(sizes[0], (tuple, list)) else sizes
    result = record(RESIZE, (self,), self._data.reshape(shape).copy(), self._dtype, _self_sym_sizes=self.shape)
    return result


def _resize_as(self: Tensor, tensor: Tensor) -> Tensor:
    return _resize(self, tuple(tensor.shape))


op("resize_", function=False, inplace=False)(_resize_)
op("resize_as_", inplace=False)(_resize_as_)
op("resize", function=False, method=_resize)(_resize)
op("resize_as", function=False, method=_resize_as)(_resize_as)
