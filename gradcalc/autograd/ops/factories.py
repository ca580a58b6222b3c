"""More factories: logspace, the deprecated range, scalar_tensor, empty tensors of given strides or
layout, asarray, and the signal windows (Hann, Hamming, Blackman, Bartlett, Kaiser) computed in
their dtype step by step as PyTorch's composites compute them."""
from __future__ import annotations

import math
from typing import Any, Optional, Sequence

import numpy as np

from .. import dtypes, special_functions as special
from ..dtypes import DType
from ..tensor import Tensor, check_device
from ...warnings import warn, warn_once
from .common import check_not_unsigned, kernel_scalar, not_implemented_for
from .creation import (batched_like, check_size, data_array, finish, numpy_tensor, range_ends, spaced_dtype,
                       spaced_ends)
from .registry import op


@op()
def logspace(start: Any, end: Any, steps: int, base: float = 10.0, *, dtype: Optional[DType] = None,
             layout: Any = None, device: Any = None, pin_memory: Any = False, requires_grad: Any = False) -> Tensor:
    start, end = range_ends("logspace", start, end)
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    dtype = spaced_dtype("logspace", start, end, dtype)
    start, end = spaced_ends("logspace_cpu", start, end, steps, dtype)
    # exponents from both ends in the dtype (double for integers), each power taken in double
    kind = np.float64 if dtype.category <= dtypes.INTEGRAL else dtype._numpy.type
    index = np.arange(steps)
    if steps == 1:
        exponents = np.array([start], dtype=kind)
    else:
        step = (kind(end) - kind(start)) / kind(steps - 1)
        halfway = steps // 2
        exponents = np.where(index < halfway, kind(start) + step * index.astype(kind),
                             kind(end) - step * (steps - index - 1).astype(kind)).astype(kind)
    if dtype.is_complex:  # std::pow of complex numbers: glibc's cpow, exp(y * log(x)), in the dtype
        data = np.exp(exponents * np.log(kind(base)))
    else:
        data = np.power(float(base), exponents.astype(np.float64))
    if dtype.category <= dtypes.INTEGRAL:
        data = np.trunc(data)
    return finish(data.astype(dtype._numpy), dtype, requires_grad, device)


@op("range")
def range_(start: Any, end: Any, step: Any = 1, *, dtype: Optional[DType] = None, layout: Any = None,
           device: Any = None, requires_grad: bool = False) -> Tensor:
    warn("UserWarning", "torch.range is deprecated and will be removed in a future release because its behavior is "
                        "inconsistent with Python's range builtin. Instead, use torch.arange, which produces values "
                        "in [start, end).")
    dtype = dtype or dtypes.get_default_dtype()
    check_not_unsigned("range_cpu", dtype)
    if dtype is dtypes.bool_ or dtype.is_complex:  # ATen's kernel has no bool or complex
        raise not_implemented_for("range_cpu", dtype)
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if (step > 0 and start > end) or (step < 0 and start < end):
        raise RuntimeError("upper bound and larger bound inconsistent with step sign")
    count = int(math.floor((end - start) / step)) + 1
    data = start + step * np.arange(count, dtype=np.float64)
    return finish(data.astype(dtype._numpy), dtype, requires_grad, device)


@op()
def scalar_tensor(s: Any, *, dtype: Optional[DType] = None, layout: Any = None, device: Any = None,
                  pin_memory: Any = False, requires_grad: Any = False) -> Tensor:
    dtype = dtype or dtypes.get_default_dtype()
    return finish(np.array(kernel_scalar(s, dtype), dtype=dtype._numpy), dtype, requires_grad, device)


def _strided_zeros(size: Sequence[int], stride: Sequence[int], dtype: DType) -> np.ndarray:
    size, stride = check_size(size, dtype), tuple(stride)
    needed = 1 + sum((n - 1) * s for n, s in zip(size, stride)) if all(size) else 0
    storage = np.zeros(needed, dtype=dtype._numpy)
    itemsize = storage.itemsize
    return np.lib.stride_tricks.as_strided(storage, size, tuple(s * itemsize for s in stride))


@op()
def empty_strided(size: Sequence[int], stride: Sequence[int], *, dtype: Optional[DType] = None, layout: Any = None,
                  device: Any = None, pin_memory: Any = False, requires_grad: Any = False) -> Tensor:
    dtype = dtype or dtypes.get_default_dtype()
    check_device(device)
    return finish(_strided_zeros(size, stride, dtype), dtype, requires_grad, device)


@op(function=False)
def new_empty_strided(input: Tensor, size: Sequence[int], stride: Sequence[int], *, dtype: Optional[DType] = None,
                      layout: Any = None, device: Any = None, pin_memory: Any = False,
                      requires_grad: Any = False) -> Tensor:
    dtype = dtype or input._dtype
    return batched_like(finish(_strided_zeros(size, stride, dtype), dtype, requires_grad, device), input)


@op()
def empty_permuted(size: Sequence[int], physical_layout: Sequence[int], *, dtype: Optional[DType] = None,
                   layout: Any = None, device: Any = None, pin_memory: Any = False,
                   requires_grad: Any = False) -> Tensor:
    dtype = dtype or dtypes.get_default_dtype()
    size, order = check_size(size, dtype), tuple(physical_layout)
    if sorted(order) != list(range(len(size))):
        raise RuntimeError(f"Number of dimensions in size does not match the length of the physical_layout; i.e. "
                           f"len(size) = {len(size)} is not equal to len(physical_layout) = {len(order)}")
    physical = np.zeros(tuple(size[d] for d in order), dtype=dtype._numpy)
    return finish(np.transpose(physical, np.argsort(order)), dtype, requires_grad, device)


ASARRAY_REQUIRES_GRAD_WARNING = (
    "torch.asarray: unspecified requires_grad now defaults to obj.requires_grad instead of False. Pass "
    "requires_grad=False explicitly to get the old behavior and silence this warning.")


@op()
def asarray(obj: Any, *, dtype: Optional[DType] = None, device: Any = None, copy: Optional[bool] = None,
            requires_grad: Optional[bool] = None) -> Tensor:
    if isinstance(obj, (np.ndarray, np.generic, Tensor)):
        check_device(device)  # Python data is read first, and its device checked as it is made
    if isinstance(obj, (np.ndarray, np.generic)):
        obj = numpy_tensor(obj, warn_if_not_writeable=not copy)
        if copy is False and dtype is not None and dtype is not obj._dtype:
            raise ValueError(f"can't alias tensor with dtype '{obj._dtype._scalar_name}' into dtype "
                             f"'{dtype._scalar_name}'.")
        result = asarray(obj, dtype=dtype, copy=copy)
        return result._set_requires_grad() if requires_grad else result
    if isinstance(obj, Tensor):
        if requires_grad is None and obj.requires_grad:
            warn_once("UserWarning", ASARRAY_REQUIRES_GRAD_WARNING)
        result = obj if dtype is None or dtype is obj._dtype else obj.to(dtype)
        if copy:
            result = result.clone()
        if requires_grad is not None and requires_grad != result.requires_grad:
            result = result.detach()._set_requires_grad(requires_grad) if requires_grad else result.detach()
        return result
    data, inferred = data_array(obj, dtype)
    return finish(data, dtype or inferred, bool(requires_grad), device)


# ------------------------------------------------------------------ windows

def _window(window_length: int, dtype: Optional[DType], requires_grad: Any, device: Any, name: str) -> Any:
    """The dtype, or the finished window when its length leaves nothing to compute."""
    if window_length < 0:
        raise RuntimeError(f"{name} requires non-negative window length, got window_length={window_length}")
    dtype = dtype or dtypes.get_default_dtype()
    if dtype.category < dtypes.FLOATING:
        raise RuntimeError(f"{name} expects floating point dtypes, got: TensorOptions(dtype={dtype._scalar_name}, "
                           "device=cpu, layout=Strided, requires_grad=false (default), pinned_memory=false "
                           "(default), memory_format=(nullopt))")
    check_device(device)
    if window_length <= 1:
        return finish(np.ones(window_length, dtype=dtype._numpy), dtype, requires_grad, device)
    return dtype


def _cosine_window(window_length: int, periodic: bool, alpha: float, beta: float, dtype: DType) -> np.ndarray:
    """alpha - beta cos(2 pi n / (N - 1)), N one longer for a periodic window, in the dtype."""
    kind = dtype._numpy.type
    length = window_length + 1 if periodic else window_length
    positions = np.arange(length, dtype=dtype._numpy) * kind(2.0 * math.pi / (length - 1))
    values = np.cos(positions) * kind(-beta) + kind(alpha)
    return values[:window_length].astype(dtype._numpy)


@op()
def hamming_window(window_length: int, periodic: bool = True, alpha: float = 0.54, beta: float = 0.46, *,
                   dtype: Optional[DType] = None, layout: Any = None, device: Any = None, pin_memory: Any = False,
                   requires_grad: Any = False) -> Tensor:
    kind = _window(window_length, dtype, requires_grad, device, "hamming_window")
    if isinstance(kind, Tensor):
        return kind
    return finish(_cosine_window(window_length, periodic, alpha, beta, kind), kind, requires_grad, device)


@op()
def hann_window(window_length: int, periodic: bool = True, *, dtype: Optional[DType] = None, layout: Any = None,
                device: Any = None, pin_memory: Any = False, requires_grad: Any = False) -> Tensor:
    kind = _window(window_length, dtype, requires_grad, device, "hann_window")
    if isinstance(kind, Tensor):
        return kind
    return finish(_cosine_window(window_length, periodic, 0.5, 0.5, kind), kind, requires_grad, device)


@op()
def blackman_window(window_length: int, periodic: bool = True, *, dtype: Optional[DType] = None, layout: Any = None,
                    device: Any = None, pin_memory: Any = False, requires_grad: Any = False) -> Tensor:
    kind = _window(window_length, dtype, requires_grad, device, "blackman_window")
    if isinstance(kind, Tensor):
        return kind
    scalar = kind._numpy.type
    length = window_length + 1 if periodic else window_length
    x = np.arange(length, dtype=kind._numpy) * scalar(math.pi / (length - 1))
    values = np.cos(x * scalar(4)) * scalar(0.08) - np.cos(x * scalar(2)) * scalar(0.5) + scalar(0.42)
    return finish(values[:window_length].astype(kind._numpy), kind, requires_grad, device)


@op()
def bartlett_window(window_length: int, periodic: bool = True, *, dtype: Optional[DType] = None, layout: Any = None,
                    device: Any = None, pin_memory: Any = False, requires_grad: Any = False) -> Tensor:
    kind = _window(window_length, dtype, requires_grad, device, "bartlett_window")
    if isinstance(kind, Tensor):
        return kind
    scalar = kind._numpy.type
    length = window_length + 1 if periodic else window_length
    values = np.arange(length, dtype=kind._numpy) * scalar(2.0 / (length - 1))
    first_half = ((length - 1) >> 1) + 1
    values[first_half:] = values[first_half:] * scalar(-1) + scalar(2)
    return finish(values[:window_length].astype(kind._numpy), kind, requires_grad, device)


@op()
def kaiser_window(window_length: int, periodic: bool = True, beta: float = 12.0, *, dtype: Optional[DType] = None,
                  layout: Any = None, device: Any = None, pin_memory: Any = False,
                  requires_grad: Any = False) -> Tensor:
    kind = _window(window_length, dtype, requires_grad, device, "kaiser_window")
    if isinstance(kind, Tensor):
        return kind
    length = window_length + 1 if periodic else window_length
    alpha = (length - 1) / 2.0
    n = np.arange(length, dtype=np.float64)
    values = special.i0(beta * np.sqrt(np.maximum(0.0, 1 - ((n - alpha) / alpha) ** 2))) / special.i0(beta)
    return finish(values[:window_length].astype(kind._numpy), kind, requires_grad, device)
