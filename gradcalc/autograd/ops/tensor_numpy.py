"""The bridge with numpy, as PyTorch's (torch/csrc/utils/tensor_numpy.cpp and Tensor's numpy
protocol in torch/_tensor.py): `t.numpy()` and `torch.from_numpy(a)` share memory,
`np.asarray(t)` goes through `__array__`, and numpy's ufuncs give tensors back through
`__array_wrap__`, with the DeprecationWarnings numpy 2 raises about torch's signatures."""
from __future__ import annotations

from typing import Any

import numpy as np

from ...display.names import type_name
from .. import dtypes, grad_mode
from ..dtypes import DType
from ..tensor import Tensor
from ...warnings import warn_once
from .common import is_conj
from .registry import op

NOT_WRITABLE_WARNING = (
    "The given NumPy array is not writable, and PyTorch does not support non-writable tensors. This means writing to "
    "this tensor will result in undefined behavior. You may want to copy the array to protect its data or make it "
    "writable before converting it to a tensor. This type of warning will be suppressed for the rest of this "
    "program.")
NEGATIVE_STRIDES_MESSAGE = (
    "At least one stride in the given numpy array is negative, and tensors with negative strides are not currently "
    "supported. (You can probably work around this by making a copy of your array  with array.copy().) ")
_SUPPORTED = ("float64, float32, float16, complex64, complex128, int64, int32, int16, int8, uint64, uint32, uint16, "
              "uint8, and bool")


class _Memory:
    """An array's memory offered as writable, for memory numpy allocated itself: PyTorch writes
    into a read-only array's memory (one whose `flags.writeable` was cleared), numpy only
    through an array made on this."""

    def __init__(self, array: np.ndarray) -> None:
        interface = dict(array.__array_interface__)
        interface["data"] = (interface["data"][0], False)
        self.__array_interface__ = interface
        self.owner = array  # keeps the memory alive as long as the arrays made on it


def _owns_memory(array: np.ndarray) -> bool:
    """Whether numpy allocated the memory under `array` (not a bytes object's, say)."""
    while isinstance(array.base, np.ndarray):
        array = array.base
    return array.base is None and array.flags.owndata


def writable(array: np.ndarray) -> np.ndarray:
    """A new array object on the same memory, writable as PyTorch's tensors are; memory that is
    not numpy's own and that numpy holds read-only (a bytes object's) stays read-only."""
    view = array.view()
    if not view.flags.writeable:
        try:
            view.flags.writeable = True
        except ValueError:  # numpy refuses when the memory's owner is read-only
            if _owns_memory(array):
                view = np.asarray(_Memory(array))
    return view


def numpy_dtype(dtype: np.dtype) -> DType:
    """The tensor dtype of an array's dtype, or PyTorch's TypeError naming numpy's scalar type
    (PyTorch reads numpy's type numbers: where unsigned long long is not uint64's C type, as on
    Linux, it has none, though numpy finds the two dtypes equal)."""
    try:
        if np.dtype(dtype).type is np.ulonglong and np.ulonglong is not np.uint64:
            raise TypeError
        return dtypes.from_numpy(dtype)
    except TypeError:
        scalar = np.dtype(dtype).type
        raise TypeError(f"can't convert np.ndarray of type {scalar.__module__}.{scalar.__name__}. The only supported "
                        f"types are: {_SUPPORTED}.") from None


def tensor_from_numpy(array: Any, warn_if_not_writeable: bool = True) -> Tensor:
    """A tensor on the array's memory, after PyTorch's checks in PyTorch's order."""
    if not isinstance(array, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {type_name(array)})")
    if warn_if_not_writeable and not array.flags.writeable:
        warn_once("UserWarning", NOT_WRITABLE_WARNING, at="torch/csrc/utils/tensor_numpy.cpp:213")
    itemsize = array.itemsize
    if itemsize and any(stride % itemsize for stride in array.strides):  # (no supported dtype has size 0)
        raise ValueError("given numpy array strides not a multiple of the element byte size. Copy the numpy array to "
                         "reallocate the memory.")
    if any(stride < 0 for stride in array.strides):
        raise ValueError(NEGATIVE_STRIDES_MESSAGE)
    if not array.dtype.isnative:
        raise ValueError("given numpy array has byte order different from the native byte order. Conversion between "
                         "byte orders is currently not supported.")
    dtype = numpy_dtype(array.dtype)
    return Tensor._make(writable(array), dtype)


def from_numpy(ndarray: Any, /) -> Tensor:
    """torch.from_numpy: a tensor sharing the array's memory."""
    return tensor_from_numpy(ndarray)


def scalar_array(value: np.generic) -> np.ndarray:
    """A numpy scalar as the 0-dim array PyTorch makes of it (PyArray_FromScalar)."""
    return np.array(value)


def python_scalar(value: Any) -> Any:
    """A numpy scalar as PyTorch's argument parser reads a Scalar: integers as ints, complex
    numbers as complex, anything else (np.bool_ too) as a float."""
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.complexfloating):
        return complex(value)
    return float(value)


@op(function=False)
def numpy(input: Tensor, *, force: bool = False) -> np.ndarray:
    if input.is_meta:
        raise TypeError("can't convert meta device type tensor to numpy. Use Tensor.cpu() to copy the tensor to host "
                        "memory first.")
    if force:
        input = input.detach().resolve_conj().resolve_neg()
    elif input.requires_grad and grad_mode.is_grad_enabled():
        raise RuntimeError("Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.")
    elif is_conj(input):
        raise RuntimeError("Can't call numpy() on Tensor that has conjugate bit set. Use tensor.resolve_conj().numpy() "
                           "instead.")
    if input._dtype is dtypes.bfloat16:
        raise TypeError("Got unsupported ScalarType BFloat16")
    return writable(input._data)


def __array__(self: Tensor, dtype: Any = None) -> np.ndarray:
    if dtype is None:
        return self.numpy()
    return self.numpy().astype(dtype, copy=False)


def __array_wrap__(self: Tensor, array: np.ndarray) -> Tensor:
    if array.dtype == bool:  # as torch/_tensor.py: "torch has no built-in bool tensor"
        array = array.astype("uint8")
    return from_numpy(array)


__array__.__qualname__ = "Tensor.__array__"
__array_wrap__.__qualname__ = "Tensor.__array_wrap__"


def install(cls: type) -> None:
    """Tensor's side of numpy's array protocol, with torch's signatures (numpy 2 warns about them)."""
    cls.__array_priority__ = 1000  # numpy's operators leave tensors to Tensor's own
    cls.__array__ = __array__
    cls.__array_wrap__ = __array_wrap__
