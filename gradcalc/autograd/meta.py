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
from typing import Any, Callable

import numpy as np

from . import tensor as tensor_module
from .dtypes import DType
from .tensor import Device, Tensor
from ..warnings import warn

# whether any meta tensor was made in this process: until then the ops' entry points check nothing; whether an
# in-place op runs on meta operands (its meta kernel checks no devices)
state = {"made": False, "in_place": False}


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


def check_same_device(inputs: Any, scalars_exempt: bool = True) -> None:
    """TensorIterator's check: every tensor on the first one's device but CPU scalars (0-dim; `scalars_exempt`)."""
    tensors = [t for t in inputs if isinstance(t, Tensor) and (t.ndim or not scalars_exempt)]
    for tensor in tensors[1:]:
        if is_meta(tensor) != is_meta(tensors[0]):
            raise RuntimeError(f"Tensor on device {tensor.device} is not on the expected device "
                               f"{tensors[0].device}!")


def check_operands(tensors: Any) -> None:
    """An element-wise op's meta kernel (torch._refs): the operands' shapes broadcast first, in the refs' words
    (_broadcast_shapes), then their devices checked."""
    common = [1] * max(tensor.ndim for tensor in tensors)
    for index, tensor in enumerate(tensors):
        shape = tensor.shape
        for dim in range(-1, -1 - len(shape), -1):
            if shape[dim] == common[dim]:
                continue
            if common[dim] == 1:
                common[dim] = shape[dim]
            elif shape[dim] != 1:
                raise RuntimeError(f"Attempting to broadcast a dimension of length {shape[dim]} at {dim}! Mismatching "
                                   f"argument at index {index} had {shape}; but expected shape should be broadcastable "
                                   f"to {common}")
    if not state["in_place"]:
        check_same_device(tensors)


def check_concatenated(tensors: list, dim: int) -> None:
    """cat's meta kernel (torch._refs), past its check of devices: the dimensions and sizes in its own words."""
    first = tensors[0]
    for number, tensor in enumerate(tensors):
        if tensor.ndim != first.ndim:
            raise RuntimeError(f"Number of dimensions of tensors must match.  Expected {first.ndim}-D tensors, but "
                               f"got {tensor.ndim}-D for tensor number {number} in the list")
        for axis in range(tensor.ndim):
            if axis != dim and tensor.shape[axis] != first.shape[axis]:
                raise RuntimeError(f"Sizes of tensors must match except in dimension {dim}. Expected "
                                   f"{first.shape[axis]} in dimension {axis} but got {tensor.shape[axis]} for tensor "
                                   f"number {number} in the list")


def in_place(target: Tensor, compute: Callable[[], Tensor], commit: Callable[[Tensor, Tensor], Tensor]) -> Tensor:
    """An in-place op with a meta operand: its meta kernel checks the shapes only and writes nothing, so a CPU
    tensor is left as it was."""
    outer, state["in_place"] = state["in_place"], True
    try:
        result = compute()
    finally:
        state["in_place"] = outer
    if result.shape != target.shape:
        raise RuntimeError(f"output with shape {target.shape} doesn't match the broadcast shape {tuple(result.shape)}")
    return commit(target, result) if is_meta(target) else target


def write_out(result: Tensor, out: Tensor) -> Tensor:
    """An `out=` with a meta tensor on either side, as torch's out_wrapper writes it: the out tensor resized (with
    its warning, whose second shape torch leaves unformatted), then the devices and the cast checked."""
    if out.shape != result.shape:
        if out.numel():
            warn("UserWarning", f"An output with one or more elements was resized since it had shape {out.shape} "
                                "which does not match the required output shape {str(shape)}. This behavior is "
                                "deprecated, and in a future PyTorch release outputs will not be resized unless they "
                                "have zero elements. You can explicitly reuse an out tensor t by resizing it, "
                                "inplace, to zero elements with t.resize_(0).")
        out._data = storage(tuple(result.shape), out._dtype._numpy)
    if is_meta(result) != is_meta(out) and (result.ndim or is_meta(result)):
        raise RuntimeError(f"Attempting to copy from device {result.device} to device {out.device}, but cross-device "
                           "copies are not allowed!")
    if result._dtype.category > out._dtype.category:
        raise RuntimeError(f"Attempting to cast from {result.dtype} to out tensor with dtype {out.dtype}, but this "
                           "can't be cast because it is not safe!")
    out._vc.value += 1
    return out


def no_meta_kernel(operator: str) -> NotImplementedError:
    """PyTorch's refusal of an op without a meta kernel (its result's shape follows its values: `equal`,
    `unique`, `masked_select`)."""
    return NotImplementedError(
        f"aten::{operator}: attempted to run this operator with Meta tensors, but there was no fake impl or Meta "
        "kernel registered. You may have run into this message while using an operator with PT2 compilation APIs "
        "(torch.compile/torch.export); in order to use this operator with those APIs you'll need to add a fake "
        "impl. Please see the following for next steps:  "
        "https://pytorch.org/tutorials/advanced/custom_ops_landing_page.html")


NONZERO_UNIMPLEMENTED = (
    "The register_meta function for torch.nonzero() raises unimplemented by default, as a correct data-independent "
    "implementation does not exist. This implementation returns a fake value, assuming all elements of the tensor "
    "are non-zero. To enable this registration, please set "
    "'torch.fx.experimental._config.meta_nonzero_assume_all_nonzero' to True.")


def copy_out_error() -> NotImplementedError:
    return NotImplementedError("Cannot copy out of meta tensor; no data!")
