"""What a tensor is rather than what it computes: its sizes, strides, storage, dtype tests,
Python numbers, and the autograd flags. Tensor's own methods, declared here so that their
arguments are parsed as PyTorch parses them and torch's functions of the same names exist."""
from __future__ import annotations

import weakref
from typing import Any

import numpy as np

from ..tensor import Tensor
from .common import is_conj
from .registry import op

for _method in (Tensor.size, Tensor.dim, Tensor.numel, Tensor.element_size, Tensor.stride, Tensor.storage_offset,
                Tensor.data_ptr, Tensor.is_contiguous, Tensor.is_floating_point, Tensor.is_complex,
                Tensor.is_inference, Tensor.get_device, Tensor.item, Tensor.tolist, Tensor.cpu, Tensor.cuda,
                Tensor.requires_grad_, Tensor.retain_grad, Tensor.detach_):
    op(_method.__name__, inplace=False)(_method)
op("nelement", inplace=False)(Tensor.numel)
op("ndimension", inplace=False)(Tensor.dim)
del _method


@op()
def is_nonzero(input: Tensor) -> bool:
    if input.numel() != 1:
        if input.numel() == 0:
            raise RuntimeError("Boolean value of Tensor with no values is ambiguous")
        raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
    return bool(input)


@op()
def is_same_size(input: Tensor, other: Tensor) -> bool:
    return input.shape == other.shape


@op()
def is_signed(input: Tensor) -> bool:
    return input._dtype.is_signed


op("is_conj")(is_conj)


@op()
def is_neg(input: Tensor) -> bool:
    return False  # likewise no lazy negation bit


op("const_data_ptr", inplace=False)(Tensor.data_ptr)


def _apply(self: Tensor, callable: Any) -> Tensor:
    """Each element replaced by callable(element), in place (CPU tensors only, no autograd)."""
    return _map_values(self, callable, ())


def _map(self: Tensor, other: Tensor, callable: Any) -> Tensor:
    return _map_values(self, callable, (other,))


def _map2(self: Tensor, x: Tensor, y: Tensor, callable: Any) -> Tensor:
    return _map_values(self, callable, (x, y))


def _map_values(self: Tensor, function: Any, others: tuple) -> Tensor:
    if self.requires_grad:
        raise RuntimeError("Can't call map_() on Variable that requires grad. Use var.detach().map_() instead.")
    sources = [np.broadcast_to(other._data, self.shape) for other in others]
    for index in np.ndindex(self.shape):
        values = [self._data[index].item()] + [source[index].item() for source in sources]
        self._data[index] = function(*values)
    self._vc.value += 1
    return self


op("apply_", function=False, inplace=False, method=_apply)(_apply)
op("map_", function=False, inplace=False, method=_map)(_map)
op("map2_", function=False, inplace=False, method=_map2)(_map2)


_SHARED: dict = {}  # id -> weak reference of the allocations share_memory_() was asked to share


def _allocation(t: Tensor) -> np.ndarray:
    data = t._data
    while isinstance(data.base, np.ndarray):
        data = data.base
    return data


def _share_memory_(self: Tensor) -> Tensor:
    # one process: the memory stays where it is, but is_shared() tells it was asked for
    allocation = _allocation(self)
    _SHARED[id(allocation)] = weakref.ref(allocation, lambda _, key=id(allocation): _SHARED.pop(key, None))
    return self


def _is_shared(self: Tensor) -> bool:
    allocation = _allocation(self)
    ref = _SHARED.get(id(allocation))
    return ref is not None and ref() is allocation


def _dim_order(self: Tensor, *, ambiguity_check: Any = False) -> tuple:
    """The dims from outermost to innermost in memory (largest stride first, ties in order)."""
    strides = self.stride()
    return tuple(sorted(range(self.ndim), key=lambda d: -strides[d]))


def _module_load(self: Tensor, other: Tensor, assign: bool = False) -> Tensor:
    return other.detach() if assign else self.copy_(other).detach()


for _name, _method in (("share_memory_", _share_memory_), ("is_shared", _is_shared), ("dim_order", _dim_order),
                       ("module_load", _module_load)):
    op(_name, function=False, inplace=False, method=_method)(_method)
del _name, _method


@op(function=False, inplace=False)
def is_set_to(input: Tensor, tensor: Tensor) -> bool:
    """Whether both view the same memory with the same geometry."""
    same_memory = np.shares_memory(input._data, tensor._data) or input._data is tensor._data
    return same_memory and input.data_ptr() == tensor.data_ptr() and input.shape == tensor.shape and \
        input.stride() == tensor.stride()


@op(function=False, inplace=False)
def set_(input: Tensor, source: Any = None, storage_offset: int = 0, size: Any = None, stride: Any = None) -> Tensor:
    """set_(): empty; set_(tensor): share its memory and geometry; set_(storage, offset, size, stride)."""
    if input.requires_grad and input.is_leaf:
        raise RuntimeError("set_ is not allowed on a Tensor created from .data or .detach().")
    if source is None:
        input._data = np.zeros((0,), dtype=input._dtype._numpy)
    elif isinstance(source, Tensor):
        input._data = source._data
    else:
        flat = _allocation(source._owner).reshape(-1)  # a storage: the allocation of the tensor it belongs to
        size = tuple(size) if size is not None else (flat.size - storage_offset,)
        stride = tuple(stride) if stride is not None else tuple(
            int(np.prod(size[k + 1:], dtype=np.int64)) for k in range(len(size)))
        itemsize = flat.itemsize
        input._data = np.lib.stride_tricks.as_strided(flat[storage_offset:], size, tuple(s * itemsize for s in stride))
    input._vc.value += 1
    return input


@op(function=False, inplace=False)
def to_dense(input: Tensor, dtype: Any = None, *, masked_grad: Any = None) -> Tensor:
    """A strided tensor is dense already: itself (in the dtype asked for)."""
    return input if dtype is None or dtype is input._dtype else input.to(dtype)
