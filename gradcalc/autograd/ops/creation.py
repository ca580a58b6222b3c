"""Making tensors: torch.tensor, zeros, ones, full, arange, linspace, eye, rand, randn, randint,
randperm, the `_like` forms and `x.new_*`, with PyTorch's dtype rules."""
from __future__ import annotations

import collections
import math
import operator
from typing import Any, Optional, Sequence

import numpy as np

from .. import dtypes, forward_mode, kernels, random
from ..dtypes import DType
from ..grad_mode import FORWARD_LEVELS
from ..layout import CHANNELS_LAST_ORDERS, dense_in_order, in_memory_order, preserved
from ..meta import make_meta, wants_meta
from ..tensor import DEVICE_CONTEXT, ONLY_FLOAT_GRAD_MESSAGE, Tensor, check_device
from ...display.names import type_name
from ...warnings import warn, warn_once
from .common import (check_allocation, check_not_unsigned, check_real_scalar, check_storage_size, fill_scalar,
                     kernel_scalar, not_implemented_for, shape_text, small_size, wrap_int64)
from .info import MEMORY_FORMATS, check_memory_format
from .parser import parser
from .registry import op
from .tensor_numpy import numpy_dtype, tensor_from_numpy

COPY_CONSTRUCT_WARNING = (
    "To copy construct from a tensor, it is recommended to use sourceTensor.detach().clone() or "
    "sourceTensor.detach().clone().requires_grad_(True), rather than torch.tensor(sourceTensor).")
LIST_OF_ARRAYS_WARNING = (
    "Creating a tensor from a list of numpy.ndarrays is extremely slow. Please consider converting the list to a "
    "single numpy.ndarray with numpy.array() before converting to a tensor.")


def finish(data: np.ndarray, dtype: DType, requires_grad: Any, device: Any = None) -> Tensor:
    # (no device given nor a `with torch.device` block: the common call, which has no device to check)
    asks_device = device is not None or DEVICE_CONTEXT
    if asks_device:
        check_device(device)
    if requires_grad and dtype.category < dtypes.FLOATING:
        raise RuntimeError(ONLY_FLOAT_GRAD_MESSAGE)
    if asks_device and wants_meta(device):
        return make_meta(data.shape, dtype, requires_grad)
    return Tensor._make(data, dtype, requires_grad=bool(requires_grad))


# what a check of PyTorch's own Python code says (torch._check without a message)
EXPECTED_COND = ("Expected cond to be True, but got False. (Could this error message be improved? If so, please "
                 "report an enhancement request to PyTorch.)")


def meta_factory(size: Sequence, dtype: DType, requires_grad: Any, device: Any, *,
                 normal: bool = False) -> Optional[Tensor]:
    """A meta tensor when one is asked for, made before any values are (a meta size may hold no
    memory's worth). A `normal` sampler's meta kernel is torch._refs', which checks its sizes
    with a bare torch._check."""
    if device is None and not DEVICE_CONTEXT:
        return None
    check_device(device)
    if not wants_meta(device):
        return None
    if normal and any(n < 0 for n in size):
        raise RuntimeError(EXPECTED_COND)
    if requires_grad and dtype.category < dtypes.FLOATING:
        raise RuntimeError(ONLY_FLOAT_GRAD_MESSAGE)
    return make_meta(check_size(size, dtype, allocated=False), dtype, requires_grad)


def _is_sequence(data: Any) -> bool:
    # a deque is a sequence to PyTorch too (makemore-style loss windows keep their last values in one),
    # and so is a numpy record (np.void): its fields are its items
    return isinstance(data, (list, tuple, range, np.ndarray, collections.deque, np.void))


def _numpy_data(data: Any, dtype: Optional[DType]) -> bool:
    """Whether torch.tensor takes `data` as numpy's: an array, or a scalar given no dtype (given
    one, PyTorch stores a scalar as a Python number, with its checked conversion, and reads a
    record as a sequence of its fields)."""
    return isinstance(data, np.ndarray) or (isinstance(data, np.generic) and dtype is None)


def infer_dtype(data: Any) -> DType:
    """PyTorch's infer_scalar_type: the dtype nested Python data takes, every element counted."""
    if isinstance(data, Tensor):
        return data._dtype
    if isinstance(data, (np.ndarray, np.generic)):  # before Python's numbers: np.float64 is a float
        return numpy_dtype(data.dtype)
    if isinstance(data, (bool, int, float, complex)):
        return dtypes.scalar_dtype(data)
    if isinstance(data, (str, bytes)):
        raise TypeError(f"new(): invalid data type '{type_name(data)}'")
    if _is_sequence(data):
        found = None
        for item in data:
            kind = infer_dtype(item)
            found = kind if found is None else dtypes.promote_types(found, kind)
        return found or dtypes.get_default_dtype()
    raise RuntimeError(f"Could not infer dtype of {type_name(data)}")


def _holds_array(data: Any) -> bool:
    """Whether nested sequences hold a numpy array anywhere (PyTorch warns of it, once)."""
    return isinstance(data, (list, tuple)) and any(
        isinstance(item, np.ndarray) or _holds_array(item) for item in data)


def _holds_tensor(data: Any) -> bool:
    if isinstance(data, Tensor):
        return True
    return _is_sequence(data) and not isinstance(data, np.ndarray) and any(_holds_tensor(item) for item in data)


def _sizes(data: Any) -> tuple:
    """PyTorch's compute_sizes: each dim's length, read from the first element down."""
    sizes = []
    while _is_sequence(data):
        sizes.append(len(data))
        if not len(data):
            break
        data = data[0]
    return tuple(sizes)


def _store(data: Any, sizes: tuple, dim: int, dtype: DType, flat: list) -> None:
    """PyTorch's recursive_store: every element checked against the sizes, in order."""
    if dim == len(sizes):
        flat.append(_element(data, dtype))
        return
    if not _is_sequence(data):
        data = _as_sequence(data)
    if len(data) != sizes[dim]:
        raise ValueError(f"expected sequence of length {sizes[dim]} at dim {dim} (got {len(data)})")
    for item in data:
        _store(item, sizes, dim + 1, dtype, flat)


def _as_sequence(data: Any) -> list:
    """PySequence_Fast: any iterable as a list (a string's characters, a dict's keys, a tensor's rows)."""
    try:
        iterator = iter(data)
    except TypeError:
        raise TypeError("not a sequence") from None
    return list(iterator)


def _element(value: Any, dtype: DType) -> Any:
    if isinstance(value, np.ndarray):  # read through numpy's own __index__, __float__, __complex__
        if dtype.category <= dtypes.INTEGRAL:
            return operator.index(value)
        return complex(value) if dtype.is_complex else float(value)
    if isinstance(value, Tensor):  # read as PyTorch's store_scalar reads it: through __index__, __float__, __complex__
        if dtype.category <= dtypes.INTEGRAL:
            return value.__index__()
        return complex(value) if dtype.is_complex else float(value)
    if isinstance(value, np.generic) and not isinstance(value, (float, complex)):
        return _numpy_scalar(value, dtype)  # (numpy's float64 and complex128 are Python's types)
    if isinstance(value, (bool, int, float, complex)):
        # unpacked as the dtype's C type: an int64 (or a bool), a double or a complex double
        if dtype is dtypes.uint64 and type(value) is not bool:  # read as an unsigned long long
            if type(value) is not int:
                raise TypeError("an integer is required")
            if value < 0:
                raise OverflowError("can't convert negative int to unsigned")
            if value >= 2 ** 64:
                raise OverflowError("int too big to convert")
            return value
        if type(value) is int:
            if dtype.category == dtypes.INTEGRAL:
                if not -2 ** 63 <= value < 2 ** 63:
                    raise ValueError("Overflow when unpacking long long")
            elif dtype.category == dtypes.BOOL:  # read as a bool: any int past int64 is nonzero
                return True if value else False
            else:
                float(value)  # Python's OverflowError for an int past a double
        elif isinstance(value, complex) and not dtype.is_complex and dtype.category != dtypes.BOOL:
            if dtype.category <= dtypes.INTEGRAL:
                raise TypeError("'complex' object cannot be interpreted as an integer")
            raise TypeError("must be real number, not complex")
        if dtype.category == dtypes.INTEGRAL and type(value) is not bool:
            _check_integral_range(value, dtype)
        return value
    if dtype.category <= dtypes.INTEGRAL:
        raise TypeError(f"'{type_name(value)}' object cannot be interpreted as an integer")
    raise TypeError(f"must be real number, not {type_name(value)}")


def _check_integral_range(value: Any, dtype: DType) -> None:
    """c10's checked conversion of each element, as it is stored: a signed type takes its range,
    an unsigned one -max..max from an int (negatives wrap) and its own range from a float."""
    limits = np.iinfo(dtype._numpy)
    lowest = limits.min if dtype.is_signed or isinstance(value, float) else -int(limits.max)
    if not lowest <= value <= limits.max:  # (False for a NaN too)
        raise RuntimeError(f"value cannot be converted to type {dtype.name} without overflow")


def _numpy_scalar(value: np.generic, dtype: DType) -> Any:
    """A numpy scalar as torch's store_scalar reads one, in numpy's words where it refuses: through
    __index__ for an integral or bool tensor (a bool tensor takes numpy's bool too), __float__ for a
    floating one, __complex__ (else __float__) for a complex one."""
    if dtype.category == dtypes.BOOL and isinstance(value, np.bool_):
        return bool(value)
    if dtype.category <= dtypes.INTEGRAL:
        index = operator.index(value)
        if dtype.category == dtypes.INTEGRAL:
            _check_integral_range(index, dtype)
        return index
    if isinstance(value, np.flexible) and not isinstance(value, np.void):  # strings: no number at all
        raise TypeError(f"must be real number, not {type_name(value)}")
    if dtype.is_complex:
        return complex(value) if isinstance(value, np.complexfloating) else complex(float(value))
    return float(value)


def _refuse_string(data: Any) -> None:
    """PyTorch's first check of a tensor's data, whatever the dtype (numpy's strings are str too)."""
    if isinstance(data, (str, bytes)):
        raise TypeError(f"new(): invalid data type '{type_name(data)}'")


def data_array(data: Any, dtype: Optional[DType]) -> tuple:
    """(array, dtype) of nested Python data, in `dtype` or the one PyTorch infers."""
    _refuse_string(data)
    first = data
    while _is_sequence(first) and len(first):  # PyTorch reads the sizes down the first elements
        first = first[0]
        if isinstance(first, str):
            raise ValueError("too many dimensions 'str'")
    try:
        inferred = infer_dtype(data)
    except (RuntimeError, TypeError):
        if dtype is None:
            raise
        inferred = None  # PyTorch infers nothing when given a dtype: each element is refused as stored
    dtype = dtype or inferred
    if _holds_array(data):  # once the dtype is known
        warn_once("UserWarning", LIST_OF_ARRAYS_WARNING, at="torch/csrc/utils/tensor_new.cpp:252")
    sizes = _sizes(data)
    if (inferred is not None and inferred.category <= dtypes.FLOATING and not _holds_tensor(data)
            and (dtype.category > dtypes.INTEGRAL or dtype is inferred)):
        # (into another integral or bool dtype, each element is converted with PyTorch's checks)
        # the common case, rectangular lists of numbers: numpy reads them at once
        try:
            values = np.array(data, dtype=dtype._numpy if dtype.category != dtypes.BOOL else bool)
        except (ValueError, TypeError, OverflowError):
            values = None
        if values is not None and values.shape == sizes and values.dtype != object:
            return values, dtype
    flat: list = []
    if int(np.prod(sizes, dtype=np.int64)):
        _store(data, sizes, 0, dtype, flat)
    kind = np.complex128 if any(isinstance(v, complex) for v in flat) else None
    values = np.array(flat, dtype=np.uint64 if dtype is dtypes.uint64 else kind)
    return np.asarray(values, dtype=dtype._numpy).reshape(sizes), dtype


@op()
def tensor(data: Any, *, dtype: Optional[DType] = None, device: Any = None, pin_memory: bool = False,
           requires_grad: bool = False) -> Tensor:
    if isinstance(data, Tensor):
        warn("UserWarning", COPY_CONSTRUCT_WARNING)
        dtype = dtype or data.dtype
        return finish(data._data.astype(dtype._numpy, copy=True), dtype, requires_grad, device)
    _refuse_string(data)
    if _numpy_data(data, dtype):
        source = numpy_tensor(data, warn_if_not_writeable=False)
        dtype = dtype or source._dtype
        return finish(source._data.astype(dtype._numpy, copy=True), dtype, requires_grad, device)
    array, dtype = data_array(data, dtype)
    return finish(array, dtype, requires_grad, device)


def numpy_tensor(data: Any, warn_if_not_writeable: bool = True) -> Tensor:
    """An array, or a numpy scalar as a 0-dim array, as a tensor on its memory."""
    return tensor_from_numpy(data if isinstance(data, np.ndarray) else np.array(data), warn_if_not_writeable)


@op()
def as_tensor(data: Any, *, dtype: Optional[DType] = None, device: Any = None) -> Tensor:
    _refuse_string(data)
    if _numpy_data(data, dtype):
        check_device(device)
        data = numpy_tensor(data)
    if isinstance(data, Tensor) and (dtype is None or dtype is data.dtype):
        return data
    if isinstance(data, Tensor):
        return data.to(dtype)
    return tensor(data, dtype=dtype, device=device)


def check_size(size: Sequence, dtype: DType, allocated: bool = True) -> tuple:
    if allocated and small_size(size, dtype):
        return size
    for value in size:
        if value < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {value}: {shape_text(size)}")
    if not allocated:  # a meta tensor: no memory to be had, but its size is computed all the same
        check_storage_size(tuple(size), dtype)
        return tuple(size)
    return check_allocation(size, dtype)


def allocated(size: Any, dtype: DType, value: float = 0, maker: str = "empty") -> Tensor:
    """A tensor of `value` as torch's Python code makes one with torch.empty(size) and an init, or
    with torch.zeros or torch.ones (`maker`) (nn's parameters and buffers): that function's argument
    parser's errors, PyTorch's allocator's."""
    size = _empty_arguments(size, dtype, maker)
    if maker == "zeros" and any(n < 0 for n in size):  # (zeros' own check, in its words)
        raise RuntimeError("zeros: Dimension size must be non-negative.")
    shape = check_size(size, dtype)
    # (zeros from calloc: pages the kernel zeroes as they are first written, not filled twice)
    data = np.zeros(shape, dtype._numpy) if type(value) is int and value == 0 else np.full(shape, value, dtype._numpy)
    return Tensor._make(data, dtype)


def _empty_arguments(size: Any, dtype: Any, maker: str = "empty") -> tuple:
    """torch.empty(size, dtype=dtype)'s argument parser (or `maker`'s), as nn's Python code calls it
    (`size` a tuple or one number, as that code passes it): its errors, and the size."""
    return tuple(parser("torch", maker).parse((size,), {"dtype": dtype})[1]["size"])


def parameter_data(shape: Any, dtype: DType, device: Any) -> Tensor:
    """The storage a module's constructor makes for a parameter: on the meta device when asked (by `device=` or
    a `with torch.device("meta")` block), zeros to draw into otherwise (torch.empty's checks first)."""
    check_device(device)
    if wants_meta(device):
        return make_meta(check_size(_empty_arguments(shape, dtype), dtype, allocated=False), dtype)
    return allocated(shape, dtype)


def filled(size: Sequence, value: Any, dtype: Optional[DType], requires_grad: Any, device: Any,
           like: Optional[np.ndarray] = None) -> Tensor:
    """A tensor of `value`s, laid out as `like` when given (see _preserving)."""
    dtype = dtype or dtypes.get_default_dtype()
    meta = meta_factory(size, dtype, requires_grad, device)
    if meta is not None:
        return meta
    if like is None:  # (the empty tensor first, then its fill)
        shape = check_size(size, dtype)
        value = fill_scalar(value, dtype, math.prod(shape))
        if type(value) is int and value == 0:  # calloc's zeros
            data = np.zeros(shape, dtype._numpy)
        elif type(value) is int and value == 1:  # (every dtype holds a one: no need of np.full's cast)
            data = np.empty(shape, dtype._numpy)
            data.fill(1)
        else:
            data = np.full(shape, value, dtype=dtype._numpy)
    else:
        data = preserved(like, dtype._numpy)
        data[...] = fill_scalar(value, dtype, data.size)
    return finish(data, dtype, requires_grad, device)


def _preserving(input: Tensor, memory_format: Any) -> Optional[np.ndarray]:
    """`input`'s array when a `*_like` result keeps its layout (torch.preserve_format, the
    default, and an input not in C order), else None."""
    data = input._data
    check_memory_format(memory_format, data.ndim)
    if memory_format in (MEMORY_FORMATS["channels_last"], MEMORY_FORMATS["channels_last_3d"]):
        return dense_in_order(data.shape, data.dtype, CHANNELS_LAST_ORDERS[memory_format._name])
    if memory_format is MEMORY_FORMATS["contiguous_format"] or data.ndim < 2 or data.flags.c_contiguous:
        return None
    return data


@op()
def zeros(size: Sequence[int], *, dtype: Optional[DType] = None, layout: Any = None, device: Any = None,
          pin_memory: Any = False, requires_grad: Any = False) -> Tensor:
    if any(n < 0 for n in size) and not wants_meta(device):  # zeros checks its sizes itself, in its own words
        raise RuntimeError("zeros: Dimension size must be non-negative.")
    return filled(size, 0, dtype, requires_grad, device)


@op()
def ones(size: Sequence[int], *, dtype: Optional[DType] = None, layout: Any = None, device: Any = None,
         pin_memory: Any = False, requires_grad: Any = False) -> Tensor:
    return filled(size, 1, dtype, requires_grad, device)


@op()
def empty(size: Sequence[int], *, memory_format: Any = None, dtype: Optional[DType] = None, layout: Any = None,
          device: Any = None, pin_memory: Any = False, requires_grad: Any = False) -> Tensor:
    check_memory_format(memory_format, len(size))
    like = None
    if memory_format in (MEMORY_FORMATS["channels_last"], MEMORY_FORMATS["channels_last_3d"]):
        like = dense_in_order(tuple(size), np.float32, CHANNELS_LAST_ORDERS[memory_format._name])
    return filled(size, 0, dtype, requires_grad, device, like)


@op()
def full(size: Sequence[int], fill_value: Any, *, dtype: Optional[DType] = None, layout: Any = None,
         device: Any = None, pin_memory: Any = False, requires_grad: Any = False) -> Tensor:
    dtype = dtype or dtypes.scalar_dtype(fill_value)
    meta = meta_factory(size, dtype, requires_grad, device)
    if meta is not None:
        return meta
    shape = check_size(size, dtype)
    return finish(np.full(shape, fill_scalar(fill_value, dtype, math.prod(shape)), dtype=dtype._numpy), dtype,
                  requires_grad, device)


def _like(name: str, value: Any) -> None:
    def like(input: Tensor, *, memory_format: Any = None, dtype: Optional[DType] = None, layout: Any = None,
             device: Any = None, pin_memory: Any = False, requires_grad: Any = False) -> Tensor:
        return filled(input.shape, value, dtype or input._dtype, requires_grad, device, _preserving(input, memory_format))

    like.__name__ = like.__qualname__ = name
    op(name)(like)


_like("zeros_like", 0)
_like("ones_like", 1)
_like("empty_like", 0)


@op()
def full_like(input: Tensor, fill_value: Any, *, memory_format: Any = None, dtype: Optional[DType] = None,
              layout: Any = None, device: Any = None, pin_memory: Any = False, requires_grad: Any = False) -> Tensor:
    return filled(input.shape, fill_value, dtype or input._dtype, requires_grad, device,
                  _preserving(input, memory_format))


_INT64_MAX = float(2 ** 63 - 1)  # as the double ATen compares arange's size with


def _check_arange_bounds(start: float, end: float, step: float) -> None:
    """ATen's arange_check_bounds, on the bounds as doubles."""
    if not (step > 0 or step < 0):  # a nan step fails it too
        raise RuntimeError("step must be nonzero")
    if not (math.isfinite(start) and math.isfinite(end)):
        raise RuntimeError(f"unsupported range: {dtypes.cpp_double(start)} -> {dtypes.cpp_double(end)}")
    if not ((step > 0 and end >= start) or (step < 0 and end <= start)):
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")


def _arange_bounds(bounds: list, dtype: DType) -> list:
    """start, end and step as ATen's arange then reads them, Scalar::to<acc_type>(): int64 for the
    integer dtypes (a float truncated), double for the others (_arange_floats rounds them to float
    for float16 and bfloat16, whose accumulate type it is)."""
    if dtype.category > dtypes.INTEGRAL:
        return [float(value) for value in bounds]
    for value in bounds:
        if not -2 ** 63 <= value < 2 ** 63:
            raise RuntimeError("value cannot be converted to type int64_t without overflow")
    return [int(value) for value in bounds]


def _arange_size(start: Any, end: Any, step: Any, bounds: list, dtype: DType) -> float:
    """ATen's arange size: in int64 arithmetic, wrapping, for int64; else from the bounds as doubles."""
    if dtype is dtypes.int64:
        sign = (step > 0) - (step < 0)
        span = wrap_int64(wrap_int64(wrap_int64(end - start) + step) - sign)
        quotient = abs(span) // abs(step)  # C++'s division truncates toward zero
        return float(quotient if (span < 0) == (step < 0) else -quotient)
    first, last, stride = (float(value) for value in bounds)
    return math.ceil((last - first) / stride)


# The floating dtypes' accumulate types (c10's acc_type on the CPU) and how many elements one
# 256-bit register holds
_ARANGE_FLOATS = {dtypes.float64: (np.float64, 4), dtypes.float32: (np.float64, 8), dtypes.float16: (np.float32, 16),
                  dtypes.bfloat16: (np.float32, 16)}


def _arange_floats(start: float, step: float, count: int, dtype: DType) -> np.ndarray:
    """ATen's arange kernel as it runs on AVX2 and AVX-512 machines alike (its stub has no AVX-512
    build): two registers at a time, each filled from a base start + step * i rounded to the dtype,
    lane l holding base + l * step; the elements left over, fewer than two registers, one by one,
    start + step * i. Each `a + b * c` is one fused multiply-add in the accumulate type (the
    compiler contracts it), rounded to the dtype. Computed a block at a time, so that a long range
    needs little more memory than its result."""
    accumulate, lanes = _ARANGE_FLOATS[dtype]
    whole = count - count % (2 * lanes)
    start, step = np.asarray(start, accumulate), np.asarray(step, accumulate)
    out = np.empty(count, dtype._numpy)
    for low in range(0, count, _ARANGE_BLOCK):
        index = np.arange(low, min(count, low + _ARANGE_BLOCK), dtype=np.float64)
        lane = np.where(index < whole, index % lanes, 0)  # past the whole registers, each its own base
        first = (index - lane).astype(accumulate)
        base = _rounded_to(kernels.fused_multiply_add(step, first, start), dtype).astype(accumulate)
        out[low:low + index.size] = _rounded_to(kernels.fused_multiply_add(lane.astype(accumulate), step, base), dtype)
    return out


# elements of a range computed at once (a multiple of every dtype's two registers)
_ARANGE_BLOCK = 1 << 16


def _rounded_to(values: np.ndarray, dtype: DType) -> np.ndarray:
    if dtype is dtypes.bfloat16:
        return dtypes.round_to_bfloat16(values)
    return values.astype(dtype._numpy)


@op()
def arange(start: Any = None, end: Any = None, step: Any = 1, *, dtype: Optional[DType] = None, layout: Any = None,
           device: Any = None, pin_memory: Any = False, requires_grad: Any = False) -> Tensor:
    check_not_unsigned("arange_cpu", dtype)
    if dtype is not None and (dtype is dtypes.bool_ or dtype.is_complex):  # ATen's kernel has no bool or complex
        raise not_implemented_for("arange_cpu", dtype)
    if start is None:
        start = 0
    bounds = [v.item() if isinstance(v, Tensor) else v for v in (start, end, step)]
    for bound in bounds:
        check_real_scalar(bound, dtypes.float64)
    if dtype is None:
        dtype = dtypes.int64 if all(isinstance(v, int) for v in bounds) else dtypes.get_default_dtype()
    _check_arange_bounds(*(float(value) for value in bounds))
    # int64 reads its bounds as int64 before it sizes the range; the other dtypes size it from doubles first
    if dtype is dtypes.int64:
        start, end, step = _arange_bounds(bounds, dtype)
        if step == 0:  # a fraction read as int64 (TORCH_CHECK_VALUE)
            raise ValueError("step must be nonzero")
    size = _arange_size(start, end, step, bounds, dtype)
    if not 0 <= size <= _INT64_MAX:
        raise RuntimeError("invalid size, possible overflow?")
    count = int(size)
    if count > 2 ** 63 - 1:  # a size of 2**63 passes the check as a double, and casts to int64's minimum
        raise RuntimeError(f"IntArrayRef contains an int that cannot be represented as a SymInt: {-2 ** 63}")
    if dtype is not dtypes.int64:  # (read once the result is sized)
        start, end, step = _arange_bounds(bounds, dtype)
    check_allocation((count,), dtype)
    if dtype in _ARANGE_FLOATS:
        data = _arange_floats(start, step, count, dtype)
    elif dtype.category >= dtypes.FLOATING:
        data = start + np.arange(count, dtype=np.float64) * step
    else:  # int64 arithmetic, as ATen's accumulate type for every integer dtype
        data = np.int64(start) + np.arange(count, dtype=np.int64) * np.int64(step)
    return finish(data.astype(dtype._numpy), dtype, requires_grad, device)


@op()
def linspace(start: Any, end: Any, steps: int, *, dtype: Optional[DType] = None, layout: Any = None,
             device: Any = None, pin_memory: Any = False, requires_grad: Any = False) -> Tensor:
    start, end = range_ends("linspace", start, end)
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    dtype = spaced_dtype("linspace", start, end, dtype)
    check_allocation((steps,), dtype)
    start, end = spaced_ends("linspace_cpu", start, end, steps, dtype)
    # PyTorch fills the first half forwards from start and the second half backwards from end
    index = np.arange(steps, dtype=np.float64)
    halfway = steps // 2
    if dtype in (dtypes.float32, dtypes.float64) and steps > 1:
        data = linspace_values(start, end, steps, dtype._numpy.type)
    elif dtype in (dtypes.float16, dtypes.bfloat16) and steps > 1:
        data = _reduced_linspace_values(start, end, steps, dtype)
    else:
        step = (end - start) / (steps - 1) if steps > 1 else 0.0
        # one step is just start (index 0 is in neither half when halfway is 0)
        data = np.where((index < halfway) | (steps == 1), start + step * index, end - step * (steps - index - 1))
    if dtype.category <= dtypes.INTEGRAL:
        data = np.trunc(data)
    return finish(data.astype(dtype._numpy), dtype, requires_grad, device)


def range_ends(name: str, start: Any, end: Any) -> tuple:
    """linspace's and logspace's ends as numbers: their overloads taking tensors take 0-dim ones only."""
    tensors = [(label, value) for label, value in (("start", start), ("end", end)) if isinstance(value, Tensor)]
    if any(value.ndim for _, value in tensors):
        got = " and ".join(f"{label} with {value.ndim} dimension(s)" for label, value in tensors)
        raise RuntimeError(f"{name} only supports 0-dimensional start and end tensors, but got {got}.")
    return tuple(value.item() if isinstance(value, Tensor) else value for value in (start, end))


def spaced_dtype(name: str, start: Any, end: Any, dtype: Optional[DType]) -> DType:
    """The dtype linspace and logspace make: a complex end makes the default complex, which a real
    dtype asked for cannot take."""
    inferred = dtypes.get_default_dtype()
    if isinstance(start, complex) or isinstance(end, complex):
        inferred = inferred.to_complex()
        if dtype is not None and not dtype.is_complex:
            raise RuntimeError(f"torch.{name}(): inferred dtype {inferred._cpp_name} can't be safely cast to passed "
                               f"dtype {dtype._scalar_name}")
    return dtype or inferred


def spaced_ends(kernel: str, start: Any, end: Any, steps: int, dtype: DType) -> tuple:
    """linspace's and logspace's ends as ATen's kernels read them, which run for two steps or more
    (one step is a fill with start): no bool kernel; an integer dtype's ends are converted to it
    first (Scalar::to, an unsigned type wrapping a negative int), the values spaced between those;
    a float dtype's ends are checked against its range in any case."""
    if dtype.category == dtypes.FLOATING:
        kernel_scalar(start, dtype), kernel_scalar(end, dtype)
    if steps > 1:
        check_not_unsigned(kernel, dtype)
        if dtype is dtypes.bool_:
            raise not_implemented_for(kernel, dtype)
        if dtype.category == dtypes.INTEGRAL:
            return int(kernel_scalar(start, dtype)), int(kernel_scalar(end, dtype))
    return start, end


def linspace_values(start: Any, end: Any, steps: int, kind: type) -> np.ndarray:
    """The values of PyTorch's float kernel: the ends and the step in the dtype, and each value
    start + step * i (or end - step * (steps - 1 - i)) rounded once, as its fused multiply-add does."""
    first, last = kind(start), kind(end)
    step = (last - first) / kind(steps - 1)
    index = np.arange(steps)
    forward = index < steps // 2
    count = np.where(forward, index, steps - 1 - index).astype(kind)
    return kernels.fused_multiply_add(np.where(forward, step, -step), count, np.where(forward, first, last))


def _reduced_linspace_values(start: Any, end: Any, steps: int, dtype: DType) -> np.ndarray:
    """The values of PyTorch's float16 and bfloat16 kernel: c10's Half and BFloat16 arithmetic,
    every operation (and every conversion, of the ends, the count and each index) rounded to the
    dtype: start + step * i, or end - step * (steps - 1 - i)."""

    def rounded(values: Any) -> np.ndarray:  # (c10 converts a double to float first)
        return dtypes.rounded_in_float32(np.asarray(values, dtype=np.float32), dtype)

    first, last = rounded(start), rounded(end)
    step = rounded(rounded(last - first) / rounded(steps - 1))
    index = np.arange(steps)
    forward = index < steps // 2
    product = rounded(step * rounded(np.where(forward, index, steps - 1 - index)))
    return rounded(np.where(forward, first + product, last - product))


@op()
def eye(n: int, m: Optional[int] = None, *, dtype: Optional[DType] = None, layout: Any = None, device: Any = None,
        pin_memory: Any = False, requires_grad: Any = False) -> Tensor:
    for name, count in (("n", n), ("m", m)):
        if count is not None and count < 0:
            raise RuntimeError(f"{name} must be greater or equal to 0, got {count}")
    dtype = dtype or dtypes.get_default_dtype()
    if dtype in (dtypes.uint16, dtypes.uint32, dtypes.uint64):  # (the kernel's dispatch)
        raise not_implemented_for("eye", dtype)
    check_allocation((n, m if m is not None else n), dtype)
    return finish(np.eye(n, m if m is not None else n, dtype=dtype._numpy), dtype, requires_grad, device)


def _sampled(sampler: Any, size: Sequence, dtype: Optional[DType], device: Any, requires_grad: Any,
             generator: Any) -> Tensor:
    dtype = dtype or dtypes.get_default_dtype()
    # a meta tensor draws nothing
    meta = meta_factory(size, dtype, requires_grad, device, normal=sampler is random.randn)
    if meta is not None:
        return meta
    return finish(sampler(check_size(size, dtype), dtype.name, generator=generator), dtype, requires_grad, device)


@op()
def rand(size: Sequence[int], *, generator: Any = None, dtype: Optional[DType] = None, layout: Any = None,
         device: Any = None, pin_memory: Any = False, requires_grad: Any = False) -> Tensor:
    return _sampled(random.rand, size, dtype, device, requires_grad, generator)


@op()
def randn(size: Sequence[int], *, generator: Any = None, dtype: Optional[DType] = None, layout: Any = None,
          device: Any = None, pin_memory: Any = False, requires_grad: Any = False) -> Tensor:
    return _sampled(random.randn, size, dtype, device, requires_grad, generator)


@op()
def randint(low: int = 0, high: int = None, size: Sequence[int] = (), *, generator: Any = None,
            dtype: Optional[DType] = None, layout: Any = None, device: Any = None, pin_memory: Any = False,
            requires_grad: Any = False) -> Tensor:
    if low >= high:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}")
    dtype = dtype or dtypes.int64
    meta = meta_factory(size, dtype, requires_grad, device)
    if meta is not None:
        return meta
    data = random.randint(low, high, check_size(size, dtype), dtype.name, generator=generator)
    return finish(np.asarray(data, dtype=dtype._numpy), dtype, requires_grad, device)


def _sampled_like(draw: Any, input: Tensor, memory_format: Any, dtype: Optional[DType], device: Any,
                  requires_grad: Any, generator: Any) -> Tensor:
    """rand_like and randn_like: a result laid out as `input` is drawn into in memory order, as
    ATen's samplers visit it; `draw(shape, dtype name, generator, contiguous)`."""
    like = _preserving(input, memory_format)
    dtype = dtype or input._dtype
    if like is None:
        return _sampled(draw, input.shape, dtype, device, requires_grad, generator)
    meta = meta_factory(input.shape, dtype, requires_grad, device)
    if meta is not None:
        return meta
    data = preserved(like, dtype._numpy)
    visited = in_memory_order(data)
    visited[...] = draw(visited.shape, dtype.name, generator, data.flags.c_contiguous)
    return finish(data, dtype, requires_grad, device)


@op()
def rand_like(input: Tensor, *, generator: Any = None, memory_format: Any = None, dtype: Optional[DType] = None,
              layout: Any = None, device: Any = None, pin_memory: Any = False, requires_grad: Any = False) -> Tensor:
    return _sampled_like(lambda shape, name, generator, contiguous=True: random.rand(shape, name, generator),
                         input, memory_format, dtype, device, requires_grad, generator)


@op()
def randn_like(input: Tensor, *, generator: Any = None, memory_format: Any = None, dtype: Optional[DType] = None,
               layout: Any = None, device: Any = None, pin_memory: Any = False, requires_grad: Any = False) -> Tensor:
    return _sampled_like(lambda shape, name, generator, contiguous=True: random.randn(shape, name, generator, contiguous),
                         input, memory_format, dtype, device, requires_grad, generator)


@op()
def randperm(n: int, *, generator: Any = None, dtype: Optional[DType] = None, layout: Any = None, device: Any = None,
             pin_memory: Any = False, requires_grad: Any = False) -> Tensor:
    dtype = dtype or dtypes.int64
    data = random.randperm(n, dtype.name, generator=generator)
    return finish(np.asarray(data, dtype=dtype._numpy), dtype, requires_grad, device)


def batched_like(out: Tensor, input: Tensor) -> Tensor:
    """A new_* factory's result under vmap: batched as its tensor is (functorch's rules make it
    so, which is why its docs say to use new_zeros for a tensor the examples then write to)."""
    return forward_mode.follow(out, (input,)) if FORWARD_LEVELS else out


def _new(name: str, value: Any) -> None:
    def new(input: Tensor, size: Sequence[int], *, dtype: Optional[DType] = None, layout: Any = None,
            device: Any = None, pin_memory: Any = False, requires_grad: Any = False) -> Tensor:
        return batched_like(filled(size, value, dtype or input._dtype, requires_grad, device), input)

    new.__name__ = new.__qualname__ = name
    op(name, function=False)(new)


_new("new_zeros", 0)
_new("new_ones", 1)
_new("new_empty", 0)


@op(function=False)
def new_full(input: Tensor, size: Sequence[int], fill_value: Any, *, dtype: Optional[DType] = None,
             layout: Any = None, device: Any = None, pin_memory: Any = False, requires_grad: Any = False) -> Tensor:
    return batched_like(filled(size, fill_value, dtype or input._dtype, requires_grad, device), input)


@op(function=False)
def new_tensor(input: Tensor, data: Any, *, dtype: Optional[DType] = None, device: Any = None,
               requires_grad: bool = False) -> Tensor:
    if isinstance(data, Tensor):
        warn("UserWarning", COPY_CONSTRUCT_WARNING.replace("torch.tensor(sourceTensor)", "tensor.new_tensor(sourceTensor)"))
        dtype = dtype or data._dtype
        return finish(data._data.astype(dtype._numpy, copy=True), dtype, requires_grad, device)
    array, dtype = data_array(data, dtype or input._dtype)
    return finish(array, dtype, requires_grad, device)
