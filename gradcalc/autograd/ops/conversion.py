"""Copies and conversions: clone, detach, `.to(...)`, the dtype shorthands, `.type(...)`."""
from __future__ import annotations

from typing import Any, Optional

from .. import dtypes, meta
from ..dtypes import DType
from ...warnings import warn_once
from ..layout import in_format, preserved_copy, suggested_format
from ..tensor import Device, Tensor, check_device
from .common import COMPLEX_TO_REAL_WARNING
from .info import MEMORY_FORMATS, check_memory_format
from .registry import LINEAR, node, op, record

CONTIGUOUS_FORMAT = MEMORY_FORMATS["contiguous_format"]
PRESERVE_FORMAT = MEMORY_FORMATS["preserve_format"]

CLONE = node("CloneBackward0", ("self",), jvp=LINEAR, self=lambda grad: grad)
def _to_copy_grad(grad: Tensor, dtype: DType) -> Tensor:
    # a real tensor made complex takes the real part of its gradient, without a warning
    if grad._dtype.is_complex and not dtype.is_complex:
        grad = grad.real
    return grad.to(dtype)


TO_COPY = node("ToCopyBackward0", ("self",), jvp=LINEAR, self=lambda grad, _self_dtype: _to_copy_grad(grad, _self_dtype))


@op()
def clone(input: Tensor, *, memory_format: Any = None) -> Tensor:
    check_memory_format(memory_format, input.ndim)
    # torch.preserve_format, the default, keeps a dense tensor's strides (empty_like's rules)
    if memory_format is None or memory_format is PRESERVE_FORMAT:
        data = preserved_copy(input._data)
    else:
        data = in_format(input._data, memory_format._name)
    return record(CLONE, (input,), data, input._dtype)


@op(inplace=False)  # detach_ is Tensor's own: it changes the history, not the values
def detach(input: Tensor) -> Tensor:
    # same storage and version counter, but not a view for autograd: no base to follow; an
    # inference tensor's has a counter of its own outside inference mode (_make's)
    out = Tensor._make(input._data, input._dtype)
    if not input._is_inference:
        out._vc = input._vc
    out._is_inference = input._is_inference  # a view for the inference mode's rules
    return out


def to_dtype(a: Tensor, dtype: DType, copy: bool = False, memory_format: Any = None) -> Tensor:
    """`a` in `dtype`, itself where nothing changes; a copy (ToCopyBackward0) in `memory_format`
    where one is asked for that `a` does not suggest (c10's suggest_memory_format)."""
    relaid = (memory_format is not None and memory_format is not PRESERVE_FORMAT
              and suggested_format(a._data) != memory_format._name)
    if dtype is a._dtype and not copy and not relaid:
        return a
    values = a._data
    if a._dtype.is_complex and not dtype.is_complex:
        warn_once("UserWarning", *COMPLEX_TO_REAL_WARNING)
        values = values.real
    data = values.astype(dtype._numpy)
    if relaid:  # (after the conversion: numpy's copy of an array in C order, size-1 dims aside, is in C order)
        data = in_format(data, memory_format._name)
    if a.requires_grad and dtype.category < dtypes.FLOATING:
        return Tensor._make(data, dtype)
    return record(TO_COPY, (a,), data, dtype, _self_dtype=a._dtype)


@op(function=False)
def to(input: Tensor, device: Any = None, dtype: Optional[DType] = None, non_blocking: bool = False,
       copy: bool = False, *, memory_format: Any = None, tensor: Optional[Tensor] = None) -> Tensor:
    check_device(device)
    check_memory_format(memory_format, input.ndim)
    if device is not None and (Device(device).type == "meta") != input.is_meta:
        if input.is_meta:
            raise meta.copy_out_error()
        return meta.mark(to_dtype(input, dtype or input._dtype, copy=True))  # a copy: ToCopyBackward0
    if tensor is not None:
        # a Python number stands for a tensor of its own: float64 for a float, as PyTorch wraps it
        dtype = tensor._dtype if isinstance(tensor, Tensor) else dtypes.scalar_dtype(tensor, wrapped=True)
    return to_dtype(input, dtype or input._dtype, copy, memory_format)


def _cast(name: str, dtype: DType) -> None:
    def cast(input: Tensor, *, memory_format: Any = None) -> Tensor:
        check_memory_format(memory_format, input.ndim)
        return to_dtype(input, dtype, memory_format=memory_format)

    cast.__name__ = cast.__qualname__ = name
    op(name, function=False)(cast)


for _name, _dtype in (("float", dtypes.float32), ("double", dtypes.float64), ("half", dtypes.float16),
                      ("bfloat16", dtypes.bfloat16),
                      ("long", dtypes.int64), ("int", dtypes.int32), ("short", dtypes.int16), ("char", dtypes.int8),
                      ("byte", dtypes.uint8), ("bool", dtypes.bool_), ("cfloat", dtypes.complex64),
                      ("cdouble", dtypes.complex128)):
    _cast(_name, _dtype)
del _name, _dtype


@op("type", function=False)
def tensor_type(input: Tensor, dtype: Any = None, non_blocking: bool = False, *, memory_format: Any = None) -> Any:
    if dtype is None:
        return f"torch.{input._dtype.tensor_type}"
    if isinstance(dtype, str):  # a legacy name: x.type("torch.DoubleTensor")
        named = [d for d in dtypes.ALL if f"torch.{d.tensor_type}" == dtype]
        if not named:
            raise ValueError(f"invalid type: '{dtype}'")
        dtype = named[0]
    elif dtype in (float, int, bool, complex):
        dtype = dtypes.scalar_dtype(dtype(), wrapped=True)
    elif isinstance(dtype, type) and isinstance(getattr(dtype, "dtype", None), DType):  # x.type(torch.FloatTensor)
        dtype = dtype.dtype
    elif not isinstance(dtype, DType):
        raise TypeError("dtype must be a type, str, or dtype object")
    return to_dtype(input, dtype)


@op(function=False)
def type_as(input: Tensor, other: Tensor) -> Tensor:
    return to_dtype(input, other._dtype)


@op(function=False)
def contiguous(input: Tensor, *, memory_format: Any = None) -> Tensor:
    check_memory_format(memory_format, input.ndim)
    memory_format = memory_format or CONTIGUOUS_FORMAT
    return input if input.is_contiguous(memory_format=memory_format) else clone(input, memory_format=memory_format)
