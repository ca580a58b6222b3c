"""torch.testing.make_tensor: a tensor of the given shape and dtype, drawn uniformly from [low, high)
with PyTorch's defaults, checks and random streams (randint for bools and integers, uniform_ for
floats and complex numbers)."""
from __future__ import annotations

import collections.abc
import math
from typing import Any, Optional

from ..autograd import dtypes
from ..autograd.ops import info
from ..autograd.ops.arrangement import view_as_real
from ..autograd.ops.generate import namespace_members
from ..autograd.tensor import Tensor
from ..warnings import warn

_BOOLEAN_OR_INTEGRAL = (dtypes.bool_, dtypes.uint8, dtypes.int8, dtypes.int16, dtypes.int32, dtypes.int64)
_FLOATING_OR_COMPLEX = (dtypes.float16, dtypes.bfloat16, dtypes.float32, dtypes.float64, dtypes.complex64,
                        dtypes.complex128)


# torch's own functions, as torch.testing calls them (their argument parsing included)
_TORCH = namespace_members("torch")

def _interval(dtype: Any, low: Optional[float], high: Optional[float], lowest: float, highest: float,
              default_low: float, default_high: float) -> tuple:
    """[low, high) checked against what the dtype holds, clamped to it (integers rounded up)."""
    low = default_low if low is None else low
    high = default_high if high is None else high
    if any(isinstance(value, float) and math.isnan(value) for value in (low, high)):
        raise ValueError(f"`low` and `high` cannot be NaN, but got low={low!r} and high={high!r}")
    if low == high and dtype in _FLOATING_OR_COMPLEX:
        warn("FutureWarning", "Passing `low==high` to `torch.testing.make_tensor` for floating or complex types is "
                              "deprecated since 2.1 and will be removed in 2.3. Use `torch.full(...)` instead.")
    elif low >= high:
        raise ValueError(f"`low` must be less than `high`, but got {low} >= {high}")
    elif high < lowest or low >= highest:
        raise ValueError(f"The value interval specified by `low` and `high` is [{low}, {high}), but {dtype} only "
                         f"supports [{lowest}, {highest})")
    low, high = min(max(low, lowest), highest), min(max(high, lowest), highest)
    if dtype in _BOOLEAN_OR_INTEGRAL:
        return math.ceil(low), math.ceil(high)
    return low, high


def make_tensor(*shape: Any, dtype: Any, device: Any, low: Optional[float] = None, high: Optional[float] = None,
                requires_grad: bool = False, noncontiguous: bool = False, exclude_zero: bool = False,
                memory_format: Any = None) -> Tensor:
    if len(shape) == 1 and isinstance(shape[0], collections.abc.Sequence):
        shape = shape[0]
    shape = tuple(shape)
    if noncontiguous and memory_format is not None:
        raise ValueError(f"The parameters `noncontiguous` and `memory_format` are mutually exclusive, but got "
                         f"noncontiguous={noncontiguous!r} and memory_format={memory_format!r}")
    if requires_grad and dtype in _BOOLEAN_OR_INTEGRAL:
        raise ValueError(f"`requires_grad=True` is not supported for boolean and integral dtypes, but got "
                         f"dtype={dtype!r}")
    noncontiguous = noncontiguous and math.prod(shape) > 1
    if noncontiguous:
        shape = (*shape[:-1], 2 * shape[-1])
    if dtype is dtypes.bool_:
        low, high = _interval(dtype, low, high, 0, 2, 0, 2)
        result = _TORCH["randint"](low, high, shape, device=device, dtype=dtype)
    elif dtype in _BOOLEAN_OR_INTEGRAL:
        limits = info.iinfo(dtype)
        low, high = _interval(dtype, low, high, limits.min, limits.max + (dtype is not dtypes.int64), -9, 10)
        result = _TORCH["randint"](low, high, shape, device=device, dtype=dtype)
    elif dtype in _FLOATING_OR_COMPLEX:
        limits = info.finfo(dtype)
        low, high = _interval(dtype, low, high, limits.min, limits.max, -9, 9)
        result = _TORCH["empty"](shape, device=device, dtype=dtype)
        target = view_as_real(result) if dtype.is_complex else result
        if high - low >= info.finfo(target.dtype).max:
            target.uniform_(low / 2, high / 2).mul_(2)
        else:
            target.uniform_(low, high)
    else:
        raise TypeError(f"The requested dtype '{dtype}' is not supported by torch.testing.make_tensor(). To request "
                        "support, file an issue at: https://github.com/pytorch/pytorch/issues")
    if noncontiguous:
        result = result[..., 1::2]
    elif memory_format is not None:
        result = result.clone(memory_format=memory_format)
    if exclude_zero:
        result[result == 0] = 1 if dtype in _BOOLEAN_OR_INTEGRAL else info.finfo(dtype).tiny
    if dtype in _FLOATING_OR_COMPLEX:
        result.requires_grad = requires_grad
    return result


# as torch names the module of its own (Python names it in a call's argument errors)
make_tensor.__module__ = "torch.testing._creation"
