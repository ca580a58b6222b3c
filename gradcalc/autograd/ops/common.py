"""What the op families share: operands and their dtypes, broadcasting, dims, PyTorch's wording."""
from __future__ import annotations

import math
import os
from typing import Any, Callable, Optional, Sequence

import numpy as np

from .. import dtypes, forward_mode, grad_mode, meta
from ..grad_mode import FORWARD_LEVELS
from ..dtypes import DType
from ..native import kernels
from ..tensor import Tensor, wrap_dim
from .registry import recording_not_needed
from ... import numpy_state
from ...display.names import torch_class, type_name
from ...language.limits import reading_frames
from ...warnings import warn_once

numpy_state.quiet()


def as_tensor(value: Any, dtype: Optional[DType] = None) -> Tensor:
    """A tensor operand; a Python number becomes a 0-dim tensor of the dtype PyTorch wraps it in
    (double for a float: its value stays whole until the op casts it to the result's dtype)."""
    if isinstance(value, Tensor):
        return value
    if isinstance(value, (bool, int, float, complex)):
        if dtype is None:
            return Tensor._wrap_number(value)
        return Tensor._make(np.array(value, dtype=dtype._numpy), dtype)
    if isinstance(value, np.ndarray):
        return Tensor._make(value, dtypes.from_numpy(value.dtype))
    raise TypeError(f"expected Tensor as element 1 in argument 0, but got {type_name(value)}")


def wrap_int64(value: int) -> int:
    """A Python int as C++'s int64 arithmetic wraps it."""
    return (value + 2 ** 63) % 2 ** 64 - 2 ** 63


def conjugate(t: Tensor) -> Tensor:
    """`t.conj()` in backward formulas: a real tensor is its own conjugate, so no call is made."""
    return t.conj() if t._dtype.category == dtypes.COMPLEX else t


def check_number(value: Any, op_name: str) -> None:
    if not isinstance(value, (Tensor, bool, int, float, complex)):
        raise TypeError(f"unsupported operand type(s) for {op_name}: 'Tensor' and '{type_name(value)}'")


def arrays(tensors: Sequence[Tensor], dtype: DType) -> list:
    return [t._data if t._dtype is dtype else castable_data(t, dtype).astype(dtype._numpy) for t in tensors]


# copy_'s warning of a complex value made real, and where in ATen it is raised
COMPLEX_TO_REAL_WARNING = ("Casting complex values to real discards the imaginary part", "aten/src/ATen/native/Copy.cpp:307")


def castable_data(t: Tensor, dtype: DType) -> np.ndarray:
    """t's values, to be cast to `dtype`: a complex tensor made real gives its real part, with
    copy_'s warning (not numpy's ComplexWarning)."""
    if t._dtype.is_complex and not dtype.is_complex:
        warn_once("UserWarning", *COMPLEX_TO_REAL_WARNING)
        return t._data.real
    return t._data


def check_broadcast(a: Tensor, b: Tensor) -> None:
    """An element-wise op's check of its two operands' shapes (and, on the meta device, devices)."""
    if meta.state["made"] and (meta.is_meta(a) or meta.is_meta(b)):
        meta.check_operands((a, b))
        return
    a_shape, b_shape = a._data.shape, b._data.shape
    if a_shape == b_shape:
        return
    for i, (x, y) in enumerate(zip(reversed(a_shape), reversed(b_shape))):
        if x != y and x != 1 and y != 1:
            # under vmap, PyTorch's batching rule broadcasts the physical tensors, batch dims in front
            dim = max(a.ndim, b.ndim) - 1 - i + len(batch_front(a, b))
            raise RuntimeError(f"The size of tensor a ({x}) must match the size of tensor b ({y}) at "
                               f"non-singleton dimension {dim}")


def batch_front(*tensors: Any) -> tuple:
    """Under vmap, the batch dims PyTorch's batching rules put in front of the shapes (and so of
    the dims) its messages print: the sizes of the vmaps whose examples reach `tensors`."""
    return forward_mode.batch_dims(*tensors) if FORWARD_LEVELS else ()


def broadcast_shapes(a_shape: tuple, b_shape: tuple, offset: int = 0) -> tuple:
    """The broadcast of two shapes, or PyTorch's error naming the first dimension that clashes
    (`offset` dims after the first: a vmap's batch dims)."""
    ndim = max(len(a_shape), len(b_shape))
    a_full, b_full = (1,) * (ndim - len(a_shape)) + a_shape, (1,) * (ndim - len(b_shape)) + b_shape
    for dim in reversed(range(ndim)):
        x, y = a_full[dim], b_full[dim]
        if x != y and x != 1 and y != 1:
            raise RuntimeError(f"The size of tensor a ({x}) must match the size of tensor b ({y}) at "
                               f"non-singleton dimension {dim + offset}")
    return tuple(y if x == 1 else x for x, y in zip(a_full, b_full))


def float_result(dtype: DType) -> DType:
    """The dtype of a function that gives floats: integers and bools compute in the default dtype."""
    return dtype if dtype.category >= dtypes.FLOATING else dtypes.get_default_dtype()


def is_conj(input: Tensor) -> bool:
    """Whether the tensor is conj()'s result (PyTorch's lazy conjugate bit; see pointwise.conj)."""
    return input.__dict__.get("_conj", False)


def check_has_kernel(kernel: str, *operands: Any) -> None:
    """PyTorch's kernels that have no bool version, nor one for the barebones unsigned dtypes."""
    dtype = dtypes.result_type(list(operands))
    if dtype is dtypes.bool_ or dtype in dtypes.BAREBONES_UNSIGNED:
        raise not_implemented_for(kernel, dtype)


def check_not_unsigned(kernel: str, dtype: DType) -> None:
    """uint16, uint32 and uint64 have few of PyTorch's kernels: the others refuse them."""
    if dtype in dtypes.BAREBONES_UNSIGNED:
        raise not_implemented_for(kernel, dtype)


def check_not_complex(kernel: str, dtype: DType) -> None:
    """A kernel that orders values has no complex one: PyTorch's dispatch refuses it."""
    if dtype.is_complex:
        raise not_implemented_for(kernel, dtype)


def not_implemented_for(kernel: str, dtype: DType) -> NotImplementedError:
    return NotImplementedError(f"\"{kernel}\" not implemented for '{dtype._scalar_name}'")


CLAMP_COMPLEX = "clamp is not supported for complex types"


def refuse_complex(kernel: str, dtype: DType) -> None:
    """The dtype dispatch of an ATen kernel built for real types only, met by a complex dtype."""
    if dtype.is_complex:
        raise not_implemented_for(kernel, dtype)


def refuse_complex_autograd(name: str, result: Tensor) -> Tensor:
    """throw_error_for_complex_autograd: an op whose derivative PyTorch gives for real types only,
    its complex result requiring grad (after the forward ran)."""
    if result.requires_grad and result._dtype.is_complex:
        raise RuntimeError(f"{name} does not support automatic differentiation for outputs with complex dtype.")
    return result


def check_real_scalar(value: Any, dtype: DType) -> None:
    """A complex number where the kernel takes a real one: PyTorch's conversion refuses it."""
    if isinstance(value, complex) and not dtype.is_complex:
        raise RuntimeError("value cannot be converted to type double without overflow")


# the C++ types of at::Scalar's checked conversions, as their messages name them
SCALAR_C_TYPES = {"uint8": "uint8_t", "int8": "int8_t", "int16": "int16_t", "int32": "int", "int64": "int64_t"}


_FLOAT32_MAX = float(np.finfo(np.float32).max)


def _fitted_integer(value: Any, dtype: DType) -> Any:
    """Scalar::to<T>() of an integer type: a number past the type's range is refused; an int below
    an unsigned type's zero wraps, as two's complement, down to minus its max."""
    name = SCALAR_C_TYPES.get(dtype.name)
    if name is None or isinstance(value, bool) or not isinstance(value, (int, float)):
        return value
    info = np.iinfo(dtype._numpy)
    lowest = -int(info.max) if info.min == 0 and isinstance(value, int) else int(info.min)
    if not lowest <= value <= int(info.max):
        raise RuntimeError(f"value cannot be converted to type {name} without overflow")
    return value % (int(info.max) + 1) if isinstance(value, int) and value < 0 and info.min == 0 else value


# the largest finite value of the floating types whose kernels check a scalar argument against it,
# with the C++ type their message names (a double holds any Python float)
_CHECKED_FLOATS = {dtypes.float32: ("float", _FLOAT32_MAX), dtypes.float16: ("c10::Half", 65504.0),
                   dtypes.bfloat16: ("c10::BFloat16", (2 - 2 ** -7) * 2.0 ** 127)}


def kernel_scalar(value: Any, dtype: DType) -> Any:
    """A kernel's scalar argument (alpha, beta, a fill value, clamp's bounds, a slope) as it reads
    it in the tensor's type, Scalar::to<scalar_t>(): checked, as c10's checked_convert (infinity
    passes; see _fitted_integer)."""
    if type(value) is int and 0 <= value <= 1:  # the defaults, which every type holds
        return value
    value = real_scalar(value, dtype)
    checked = _CHECKED_FLOATS.get(dtype)
    if checked is None:
        return _fitted_integer(value, dtype)
    if isinstance(value, (int, float)) and not isinstance(value, bool) and abs(value) > checked[1] and \
            value not in (math.inf, -math.inf) and value == value:
        raise RuntimeError(f"value cannot be converted to type {checked[0]} without overflow")
    return value


_C_TYPE_NAMES = {**SCALAR_C_TYPES, "float64": "double", "float32": "float", "float16": "c10::Half",
                 "bfloat16": "c10::BFloat16"}


def real_scalar(value: Any, dtype: DType) -> Any:
    """A complex Python number as a real type's kernel reads it (c10's checked_convert): refused
    with an imaginary part, else its real part (a bool tensor takes its truth)."""
    if not isinstance(value, complex) or dtype.is_complex:
        return value
    if dtype is dtypes.bool_:
        return bool(value)
    if value.imag:
        raise RuntimeError(f"value cannot be converted to type {_C_TYPE_NAMES[dtype.name]} without overflow")
    return value.real


def fill_scalar(value: Any, dtype: DType, numel: int) -> Any:
    """A fill's number (fill_, full): checked as kernel_scalar checks it, except that a single
    element of a half precision goes through ATen's scalar_fill, which takes infinity."""
    if numel == 1 and dtype in (dtypes.float16, dtypes.bfloat16):
        return value
    return kernel_scalar(value, dtype)


def opmath_scalar(value: Any, dtype: DType) -> Any:
    """kernel_scalar for a kernel that computes the half precisions in float (at::opmath_type)."""
    if type(value) is int and 0 <= value <= 1:  # the defaults, which every type holds
        return value
    return kernel_scalar(value, dtypes.float32 if dtype in (dtypes.float16, dtypes.bfloat16) else dtype)


def opmath_array(x: np.ndarray) -> np.ndarray:
    """An array as a kernel for the half precisions computes with it: in float32, the result rounded
    once at the end (bfloat16's values already live in float32 here)."""
    return x.astype(np.float32) if x.dtype == np.float16 else x


def reduced_kernel(kernel: Callable, ops: Callable) -> Callable:
    """A backward formula `(grad, self, ...) -> Tensor` whose PyTorch kernel computes float16 and
    bfloat16 in float32 and rounds once: `kernel(dy, x, dtype, ...)` on the arrays so widened (and
    the half precision's DType) when no graph is recorded
    (PyTorch's kernel), `ops` otherwise and for the other dtypes (tensor ops, as PyTorch's
    differentiable form, or as its kernel in those dtypes)."""

    def formula(grad: Tensor, self: Tensor, *args: Any, **params: Any) -> Tensor:
        if self._dtype in (dtypes.float16, dtypes.bfloat16) and recording_not_needed():
            data = kernel(opmath_array(grad._data), opmath_array(self._data), self._dtype, *args, **params)
            return Tensor._make(np.asarray(data, dtype=grad._dtype._numpy), grad._dtype)
        return ops(grad, self, *args, **params)

    return formula


# ------------------------------------------------------------------ memory

_INT64_MAX = (1 << 63) - 1
# a new tensor at least this large is allocated once beforehand, so that a failure names its own size
_LARGE_ALLOCATION = 1 << 28
_JUST_INT = {int}


def allocation_error(nbytes: int) -> RuntimeError:
    """PyTorch's CPU allocator refusing `nbytes`."""
    return RuntimeError(f"[enforce fail at alloc_cpu.cpp:127] err == 0. DefaultCPUAllocator: can't allocate memory: "
                        f"you tried to allocate {nbytes} bytes. Error code 12 (Cannot allocate memory)")


# how PyTorch's C ops meet the recursion limit: on entering a call of their own (Py_EnterRecursiveCall)
C_CALL_RECURSION = "maximum recursion depth exceeded while calling a Python object"


def op_recursion(error: RecursionError, words: str = C_CALL_RECURSION) -> RecursionError:
    """The recursion limit met in an op's own Python frames, in the words PyTorch's C op meets it
    with. It runs at the limit: its words are changed in place, with no call that checks the
    limit (str() or a new exception would meet it again, in other words)."""
    message = error.args[0] if error.args else None
    if type(message) is str and message.startswith("maximum recursion depth exceeded"):
        error.args = (words,)
    return error  # or gradcalc's own refusal of a nesting (a structure too deep to convert)


_LIBRARY = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))) + os.sep
_LANGUAGE = os.path.join(_LIBRARY, "language") + os.sep


def library_recursion(error: RecursionError) -> RecursionError:
    """The recursion limit met inside a library class's own code (a layer's construction): there
    PyTorch meets it first at the deepest of its calls, a C function's (op_recursion's words). Met
    in a program's code (a subclass's method it calls) or the language's, the error stays."""
    trace = error.__traceback__
    while trace is not None and trace.tb_next is not None:
        trace = trace.tb_next
    if trace is None:
        return error
    with reading_frames():
        filename = trace.tb_frame.f_code.co_filename
    return op_recursion(error) if filename.startswith(_LIBRARY) and not filename.startswith(_LANGUAGE) else error


def out_of_memory(error: MemoryError) -> BaseException:
    """The error an op gives when an array it needs cannot be allocated: PyTorch's allocator
    error for numpy's; any other MemoryError (an integer too large) stays as it is."""
    nbytes = getattr(error, "_total_size", None)
    return allocation_error(nbytes) if isinstance(nbytes, int) else error


def check_storage_size(size: tuple, dtype: DType) -> int:
    """The byte count of a new tensor of `size`, its strides checked within int64 as PyTorch's
    computeStorageNbytes checks them (a meta tensor's too)."""
    nbytes = dtype.itemsize
    for n in size:
        nbytes *= n
    if nbytes > _INT64_MAX:
        raise RuntimeError(f"Storage size calculation overflowed with sizes={shape_text(size)}")
    stride = 1
    for n in reversed(size[1:]):
        stride *= max(n, 1)
        if stride > _INT64_MAX:
            raise RuntimeError("Stride calculation overflowed")
    return nbytes


def plain_int_tuple(obj: Any) -> bool:
    """Whether `obj` is a non-empty tuple of Python ints only (not bools, numpy's or tensors)."""
    return obj.__class__ is tuple and set(map(type, obj)) == _JUST_INT


def plain_ints(obj: Any, least: int) -> bool:
    """Whether `obj` is a non-empty tuple of Python ints only, each from `least` up to int64's largest."""
    return plain_int_tuple(obj) and least <= min(obj) and max(obj) < 2 ** 63


if kernels is not None:  # (one C call: csrc/dispatch.c)
    plain_ints = kernels.plain_ints  # noqa: F811


def small_size(size: Any, dtype: DType) -> bool:
    """Whether `size` is a tuple of ints from 1 whose tensor of `dtype` is smaller than a large
    allocation: then none of check_allocation's checks can fail (a factory's common call)."""
    return plain_ints(size, 1) and math.prod(size) * dtype.itemsize < _LARGE_ALLOCATION


def check_allocation(size: Sequence[int], dtype: DType) -> tuple:
    """The sizes of a new tensor, checked as PyTorch's empty() checks them: the byte count and the
    strides within int64, and the memory to be had."""
    if small_size(size, dtype):
        return size
    size = tuple(size)
    nbytes = check_storage_size(size, dtype)
    if nbytes >= _LARGE_ALLOCATION:
        try:
            np.empty(nbytes, dtype=np.uint8)
        except MemoryError:
            raise allocation_error(nbytes) from None
    return size


def check_reduction_size(name: str, x: np.ndarray, dim: int) -> None:
    """The check of the order statistics (median, kthvalue, mode) that the reduced dim holds something."""
    if x.shape[dim] == 0:
        raise IndexError(f"{name}(): Expected reduction dim {dim} to have non-zero size.")


def shape_text(shape: Sequence) -> str:
    """A shape as PyTorch's messages write it: `[2, 3]`."""
    return f"[{', '.join(map(str, shape))}]"


def normalize_dims(dim: Any, ndim: int) -> Optional[tuple]:
    if dim is None:
        return None
    dims = tuple(dim) if isinstance(dim, (tuple, list)) else (dim,)
    wrapped = tuple(wrap_dim(d, ndim) for d in dims)
    repeated = [d for i, d in enumerate(wrapped) if d in wrapped[:i]]
    if repeated:
        raise RuntimeError(f"dim {repeated[0]} appears multiple times in the list of dims")
    # a 0-dim tensor accepts dim 0 (or -1) and reduces over nothing
    return wrapped if ndim else ()


def reduction_dims(dim: Any, ndim: int) -> Optional[tuple]:
    """The dims a reduction (sum, mean, std, a norm, ...) reduces, None for all: ATen's
    make_dim_mask reads an empty list of dims as every dim."""
    return normalize_dims(dim, ndim) or None


def shape_args(shape: tuple) -> tuple:
    """`view(2, 3)` and `view((2, 3))` alike."""
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        return tuple(shape[0])
    return shape


def unsqueeze_reduced(t: Tensor, dims: Optional[tuple], ndim: int, keepdim: bool) -> Tensor:
    """A reduction's result with its reduced dims put back (as size 1), to broadcast against its input."""
    if keepdim or dims is None or ndim == 0:
        return t
    for d in sorted(dims):
        t = t.unsqueeze(d)
    return t


def expand_reduced(g: Tensor, self_shape: tuple, dims: Optional[tuple], keepdim: bool) -> Tensor:
    return unsqueeze_reduced(g, dims, len(self_shape), keepdim).expand(self_shape)


def zeros(shape: Sequence, dtype: Optional[DType] = None) -> Tensor:
    dtype = dtype or dtypes.get_default_dtype()
    return Tensor._make(np.zeros(tuple(shape), dtype=dtype._numpy), dtype)


def zeros_like(a: Tensor, dtype: Optional[DType] = None) -> Tensor:
    dtype = dtype or a._dtype
    return Tensor._make(np.zeros(a.shape, dtype=dtype._numpy), dtype)


def ones_like(a: Tensor, dtype: Optional[DType] = None) -> Tensor:
    dtype = dtype or a._dtype
    return Tensor._make(np.ones(a.shape, dtype=dtype._numpy), dtype)


def int64_tensor(values: Any) -> Tensor:
    return Tensor._make(np.asarray(values, dtype=np.int64), dtypes.int64)


class ReturnTypes(tuple):
    """torch.return_types.max and friends: a tuple with named fields, of one class per kind as in
    torch (`<class 'torch.return_types.max'>`)."""

    __slots__ = ()
    _classes: dict = {}
    _fields: tuple = ("values", "indices")

    def __new__(cls, kind: str, *items: Any, fields: tuple = ("values", "indices")) -> "ReturnTypes":
        named = ReturnTypes._classes.get(kind)
        if named is None:
            members = {"__slots__": (), "_fields": fields}
            members.update({field: property(_field_getter(index)) for index, field in enumerate(fields)})
            named = torch_class(f"torch.return_types.{kind}", c_type=True)(type(kind, (ReturnTypes,), members))
            ReturnTypes._classes[kind] = named
        return tuple.__new__(named, items)

    def __repr__(self) -> str:
        shown = ",\n".join(f"{field}={value!r}" for field, value in zip(self._fields, self))
        return f"{type_name(self)}(\n{shown})"


def _field_getter(index: int) -> Any:
    return lambda self: self[index]


# the input edge of an optional tensor argument left out (a convolution's bias): never requires grad
ABSENT = Tensor._make(np.zeros((0,), dtype=np.float32), dtypes.float32)


def check_no_requires_grad(tensor: Optional[Tensor], name: str, function: str) -> None:
    """Autograd's check, before the kernel's, of an argument PyTorch does not differentiate a
    function for (in grad mode only)."""
    if tensor is not None and tensor.requires_grad and grad_mode.is_grad_enabled():
        raise RuntimeError(f"The function '{function}' is not differentiable with respect to argument '{name}'. "
                           "This input cannot have requires_grad True.")
