"""The meta device: tensors with a shape and a dtype and no data, as PyTorch's "reasoning about
shapes" recipe uses them (a model built under `with torch.device("meta")` shows each layer's
output shape without computing anything).

A meta tensor is a Tensor flagged `_meta` whose storage is zeros the operating system has not
yet given pages to (np.zeros), contiguous as PyTorch's meta tensors are, so ops that choose by
strides choose as PyTorch does; past a gibibyte it is one zero element seen at every position
(zero strides), so any size costs nothing. Ops on meta tensors run as usual on those zeros and
their results are made meta, so an op's output must fit in memory (PyTorch's meta kernels have no
such bound); the convolution, whose input the recipe makes larger than any memory, only computes
its output's shape.
Factories, `.to("meta")` and a `torch.device("meta")` context make them; nothing copies data
out of them. Random fills on them draw nothing, as PyTorch's meta kernels draw nothing.
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from . import tensor as tensor_module
from .dtypes import DType
from .tensor import Device, Tensor

# whether any meta tensor was made in this process: until then the ops' entry points check nothing
state = {"made": False}


def is_meta(tensor: Any) -> bool:
    return isinstance(tensor, Tensor) and tensor.__dict__.get("_meta", False)


def wants_meta(device: Any) -> bool:
    """Whether a factory given `device` (None: the innermost `with torch.device(...)`) makes a meta tensor."""
    if device is None:
        context = tensor_module.DEVICE_CONTEXT
        return bool(context) and context[-1].type == "meta"
    return Device(device).type == "meta"


_CONTIGUOUS_LIMIT = 2 ** 30  # bytes: larger meta tensors get one zero element at every position


def storage(shape: tuple, dtype: np.dtype) -> np.ndarray:
    """A meta tensor's zeros: contiguous, or zero-strided when large."""
    if math.prod(shape) * dtype.itemsize <= _CONTIGUOUS_LIMIT:
        return np.zeros(shape, dtype)
    return np.lib.stride_tricks.as_strided(np.zeros(1, dtype), shape=shape, strides=(0,) * len(shape),
                                           writeable=True)


def make_meta(shape: Any, dtype: DType, requires_grad: bool = False) -> Tensor:
    out = Tensor._make(storage(tuple(shape), dtype._numpy), dtype, requires_grad=bool(requires_grad))
    return mark(out)


def mark(tensor: Tensor) -> Tensor:
    """`tensor` made meta (its zeros, whatever they are, no longer shown)."""
    tensor.__dict__["_meta"] = True
    state["made"] = True
    return tensor


def marked(result: Any) -> Any:
    """An op's result on meta inputs: its tensors meta (a tuple's, a named tuple's too)."""
    if isinstance(result, Tensor):
        return mark(result) if not is_meta(result) else result
    if isinstance(result, tuple):
        for item in result:
            if isinstance(item, Tensor) and not is_meta(item):
                mark(item)
    return result


def any_meta(values: Any) -> bool:
    return any(is_meta(value) or (isinstance(value, (list, tuple)) and any(is_meta(v) for v in value))
               for value in values)


def moved(tensor: Tensor, device: Any, empty: bool) -> Tensor:
    """`tensor` on `device` for a module's move: to meta, its shape; off meta, new storage (to_empty) or PyTorch's
    error (a copy of data there is none of)."""
    if wants_meta(device):
        return make_meta(tensor.shape, tensor._dtype)
    if not empty:
        raise NotImplementedError("Cannot copy out of meta tensor; no data! Please use torch.nn.Module.to_empty() "
                                  "instead of torch.nn.Module.to() when moving module from meta to a different "
                                  "device.")
    return Tensor._make(np.zeros(tensor.shape, tensor._dtype._numpy), tensor._dtype)


def check_same_device(inputs: Any) -> None:
    """TensorIterator's check: every tensor on the first one's device but CPU scalars (0-dim)."""
    tensors = [t for t in inputs if isinstance(t, Tensor) and t.ndim]
    for tensor in tensors[1:]:
        if is_meta(tensor) != is_meta(tensors[0]):
            raise RuntimeError(f"Tensor on device {tensor.device} is not on the expected device "
                               f"{tensors[0].device}!")


def copy_out_error() -> NotImplementedError:
    return NotImplementedError("Cannot copy out of meta tensor; no data!")
