"""Making tensors: torch.tensor, ones, zeros, arange, rand, ... with PyTorch's dtype rules."""
from __future__ import annotations

import math
from typing import Any, Optional, Sequence

import numpy as np

from . import dtypes, kernels, random
from .dtypes import DType
from .tensor import ONLY_FLOAT_GRAD_MESSAGE, Tensor, check_device
from ..warnings import warn

COPY_CONSTRUCT_WARNING = (
    "To copy construct from a tensor, it is recommended to use sourceTensor.detach().clone() or "
    "sourceTensor.detach().clone().requires_grad_(True), rather than torch.tensor(sourceTensor).")


def _finish(data: np.ndarray, dtype: DType, requires_grad: bool, device: Any = None) -> Tensor:
    check_device(device)
    if requires_grad and dtype.category < dtypes.FLOATING:
        raise RuntimeError(ONLY_FLOAT_GRAD_MESSAGE)
    return Tensor._make(data, dtype, requires_grad=bool(requires_grad))


def _check_dtype(dtype: Any) -> Optional[DType]:
    if dtype is None or isinstance(dtype, DType):
        return dtype
    raise TypeError(f"tensor(): argument 'dtype' must be torch.dtype, not {type(dtype).__name__}")


def _infer(data: Any, dim: int = 0) -> tuple:
    """(shape, dtype) of nested Python data, checking it is rectangular as PyTorch does."""
    if isinstance(data, Tensor):
        return data.shape, data.dtype
    if isinstance(data, (list, tuple)):
        if not data:
            return (0,), None
        shapes, kinds = [], None
        for item in data:
            shape, kind = _infer(item, dim + 1)
            shapes.append(shape)
            kinds = kind if kinds is None else (kinds if kind is None else dtypes.promote_types(kinds, kind))
        first = shapes[0]
        for shape in shapes[1:]:
            if len(shape) != len(first) or (len(shape) and shape[0] != first[0]):
                if len(first) == 0 or len(shape) == 0:
                    raise TypeError("Expected a sequence of numbers, got " + ("list" if len(first) else "float"))
                raise ValueError(f"expected sequence of length {first[0]} at dim {dim + 1} (got {shape[0]})")
        return (len(data),) + tuple(first), kinds
    if isinstance(data, (bool, int, float, complex)):
        return (), dtypes.scalar_dtype(data)
    raise TypeError(f"Could not infer dtype of {type(data).__name__}")


def _values(data: Any) -> Any:
    if isinstance(data, Tensor):
        return data._data
    if isinstance(data, (list, tuple)):
        return [_values(item) for item in data]
    return data


def tensor(data: Any, dtype: Any = None, device: Any = None, requires_grad: bool = False,
           pin_memory: bool = False) -> Tensor:
    dtype = _check_dtype(dtype)
    if isinstance(data, Tensor):
        warn("UserWarning", COPY_CONSTRUCT_WARNING)
        dtype = dtype or data.dtype
        return _finish(data._data.astype(dtype.numpy, copy=True), dtype, requires_grad, device)
    shape, inferred = _infer(data)
    dtype = dtype or inferred or dtypes.get_default_dtype()
    array = np.array(_values(data), dtype=dtype.numpy if dtype.category != dtypes.BOOL else bool)
    if array.shape != shape:
        array = array.reshape(shape)
    return _finish(array, dtype, requires_grad, device)


def as_tensor(data: Any, dtype: Any = None, device: Any = None) -> Tensor:
    if isinstance(data, Tensor) and (dtype is None or dtype is data.dtype):
        return data
    if isinstance(data, Tensor):
        return data.to(dtype)
    return tensor(data, dtype=dtype, device=device)


def _size(size: Sequence) -> tuple:
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = tuple(size[0])
    for value in size:
        if not isinstance(value, int) or isinstance(value, bool):
            raise TypeError(f"empty(): argument 'size' (position 1) must be tuple of ints, but found element of "
                            f"type {type(value).__name__} at pos 0")
        if value < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {value}: "
                               f"[{', '.join(map(str, size))}]")
    return tuple(size)


def _filled(size: Sequence, value: Any, dtype: Optional[DType], requires_grad: bool, device: Any) -> Tensor:
    dtype = _check_dtype(dtype) or dtypes.get_default_dtype()
    return _finish(np.full(_size(size), value, dtype=dtype.numpy), dtype, requires_grad, device)


def zeros(*size: Any, dtype: Any = None, device: Any = None, requires_grad: bool = False) -> Tensor:
    return _filled(size, 0, dtype, requires_grad, device)


def ones(*size: Any, dtype: Any = None, device: Any = None, requires_grad: bool = False) -> Tensor:
    return _filled(size, 1, dtype, requires_grad, device)


def empty(*size: Any, dtype: Any = None, device: Any = None, requires_grad: bool = False) -> Tensor:
    return _filled(size, 0, dtype, requires_grad, device)


def full(size: Sequence, fill_value: Any, dtype: Any = None, device: Any = None,
         requires_grad: bool = False) -> Tensor:
    dtype = _check_dtype(dtype) or dtypes.scalar_dtype(fill_value)
    return _finish(np.full(_size((size,)), fill_value, dtype=dtype.numpy), dtype, requires_grad, device)


def _like(source: Tensor, dtype: Any) -> tuple:
    if not isinstance(source, Tensor):
        raise TypeError(f"zeros_like(): argument 'input' (position 1) must be Tensor, not {type(source).__name__}")
    return source.shape, _check_dtype(dtype) or source.dtype


def zeros_like(input: Tensor, dtype: Any = None, device: Any = None, requires_grad: bool = False) -> Tensor:
    shape, dtype = _like(input, dtype)
    return _filled(shape, 0, dtype, requires_grad, device)


def ones_like(input: Tensor, dtype: Any = None, device: Any = None, requires_grad: bool = False) -> Tensor:
    shape, dtype = _like(input, dtype)
    return _filled(shape, 1, dtype, requires_grad, device)


def empty_like(input: Tensor, dtype: Any = None, device: Any = None, requires_grad: bool = False) -> Tensor:
    return zeros_like(input, dtype, device, requires_grad)


def full_like(input: Tensor, fill_value: Any, dtype: Any = None, device: Any = None,
              requires_grad: bool = False) -> Tensor:
    shape, dtype = _like(input, dtype)
    return _filled(shape, fill_value, dtype, requires_grad, device)


def arange(start: Any, end: Any = None, step: Any = 1, dtype: Any = None, device: Any = None,
           requires_grad: bool = False) -> Tensor:
    if end is None:
        start, end = 0, start
    bounds = [v.item() if isinstance(v, Tensor) else v for v in (start, end, step)]
    start, end, step = bounds
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if (end - start) * step < 0:
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    dtype = _check_dtype(dtype)
    if dtype is None:
        dtype = dtypes.int64 if all(isinstance(v, int) for v in bounds) else dtypes.get_default_dtype()
    count = math.ceil((end - start) / step)
    data = (start + np.arange(count, dtype=np.float64) * step) if dtype.category >= dtypes.FLOATING else \
        np.arange(start, end, step)
    return _finish(data.astype(dtype.numpy), dtype, requires_grad, device)


def linspace(start: Any, end: Any, steps: int, dtype: Any = None, device: Any = None,
             requires_grad: bool = False) -> Tensor:
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    dtype = _check_dtype(dtype) or dtypes.get_default_dtype()
    start, end = (v.item() if isinstance(v, Tensor) else v for v in (start, end))
    # PyTorch fills the first half forwards from start and the second half backwards from end
    index = np.arange(steps, dtype=np.float64)
    halfway = steps // 2
    if dtype in (dtypes.float32, dtypes.float64) and steps > 1:
        data = _linspace_fused(start, end, steps, dtype.numpy.type)
    else:
        step = (end - start) / (steps - 1) if steps > 1 else 0.0
        # one step is just start (index 0 is in neither half when halfway is 0)
        data = np.where((index < halfway) | (steps == 1), start + step * index, end - step * (steps - index - 1))
    if dtype.category <= dtypes.INTEGRAL:
        data = np.trunc(data)
    return _finish(data.astype(dtype.numpy), dtype, requires_grad, device)


def _linspace_fused(start: Any, end: Any, steps: int, kind: type) -> np.ndarray:
    """The values of PyTorch's float kernel: the ends and the step in the dtype, and each value
    start + step * i (or end - step * (steps - 1 - i)) rounded once, as its fused multiply-add does."""
    first, last = kind(start), kind(end)
    step = (last - first) / kind(steps - 1)
    index = np.arange(steps)
    forward = index < steps // 2
    count = np.where(forward, index, steps - 1 - index).astype(kind)
    return kernels.fused_multiply_add(np.where(forward, step, -step), count, np.where(forward, first, last))


def eye(n: int, m: Optional[int] = None, dtype: Any = None, device: Any = None,
        requires_grad: bool = False) -> Tensor:
    dtype = _check_dtype(dtype) or dtypes.get_default_dtype()
    return _finish(np.eye(n, m if m is not None else n, dtype=dtype.numpy), dtype, requires_grad, device)


def _sampled(sampler: Any, size: tuple, dtype: Any, device: Any, requires_grad: bool, generator: Any) -> Tensor:
    dtype = _check_dtype(dtype) or dtypes.get_default_dtype()
    check_device(device)
    return _finish(sampler(_size(size), dtype.name, generator=generator), dtype, requires_grad, device)


def rand(*size: Any, dtype: Any = None, device: Any = None, requires_grad: bool = False,
         generator: Any = None) -> Tensor:
    return _sampled(random.rand, size, dtype, device, requires_grad, generator)


def randn(*size: Any, dtype: Any = None, device: Any = None, requires_grad: bool = False,
          generator: Any = None) -> Tensor:
    return _sampled(random.randn, size, dtype, device, requires_grad, generator)


def randint(*args: Any, size: Any = None, dtype: Any = None, device: Any = None, requires_grad: bool = False,
            generator: Any = None) -> Tensor:
    args = list(args)
    if size is None:
        if not args or not isinstance(args[-1], (tuple, list)):
            raise TypeError("randint() missing 1 required positional arguments: \"size\"")
        size = args.pop()
    low, high = (0, args[0]) if len(args) == 1 else (args[0], args[1])
    if low >= high:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}")
    dtype = _check_dtype(dtype) or dtypes.int64
    check_device(device)
    data = random.randint(low, high, _size((size,)), dtype.name, generator=generator)
    return _finish(np.asarray(data, dtype=dtype.numpy), dtype, requires_grad, device)


def rand_like(input: Tensor, dtype: Any = None, device: Any = None, requires_grad: bool = False) -> Tensor:
    shape, dtype = _like(input, dtype)
    return rand(shape, dtype=dtype, device=device, requires_grad=requires_grad)


def randn_like(input: Tensor, dtype: Any = None, device: Any = None, requires_grad: bool = False) -> Tensor:
    shape, dtype = _like(input, dtype)
    return randn(shape, dtype=dtype, device=device, requires_grad=requires_grad)


def randperm(n: int, dtype: Any = None, device: Any = None, requires_grad: bool = False,
             generator: Any = None) -> Tensor:
    dtype = _check_dtype(dtype) or dtypes.int64
    data = random.randperm(n, dtype.name, generator=generator)
    return _finish(np.asarray(data, dtype=dtype.numpy), dtype, requires_grad, device)


__all__ = ["tensor", "as_tensor", "zeros", "ones", "empty", "full", "zeros_like", "ones_like", "empty_like",
           "full_like", "arange", "linspace", "eye", "rand", "randn", "randint", "rand_like", "randn_like",
           "randperm"]
