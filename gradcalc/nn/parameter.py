"""nn.Parameter: a leaf tensor that a Module registers when it is assigned as an attribute."""
from __future__ import annotations

from typing import Any

import numpy as np

from ..display.names import type_name
from ..autograd import dtypes
from ..autograd.tensor import ONLY_FLOAT_GRAD_MESSAGE, Tensor


class Parameter(Tensor):
    """Shares storage and version counter with the tensor it wraps (as `detach()` does), but
    is a leaf of its own that requires grad unless told otherwise."""

    __slots__ = ()
    __module__ = "torch.nn.parameter"  # type(p) prints as <class 'torch.nn.parameter.Parameter'>
    is_parameter = True

    def __new__(cls, data: Any = None, requires_grad: bool = True) -> "Parameter":
        if data is None:
            data = Tensor._make(np.empty((0,), dtype=dtypes.get_default_dtype()._numpy), dtypes.get_default_dtype())
        if not isinstance(data, Tensor):
            raise AttributeError(f"'{type_name(data)}' object has no attribute 'detach'")
        if not isinstance(requires_grad, bool):
            raise TypeError("_make_subclass(): argument 'require_grad' (position 3) must be bool, not "
                            f"{type_name(requires_grad)}")
        if requires_grad and data.dtype.category < dtypes.FLOATING:
            raise RuntimeError(ONLY_FLOAT_GRAD_MESSAGE)
        param = cls._make(data._data, data._dtype, requires_grad=requires_grad)
        param._vc = data._vc
        if data.is_meta:
            param.__dict__["_meta"] = True
        return param

    def __init__(self, data: Any = None, requires_grad: bool = True) -> None:
        # everything happened in __new__; Tensor.__init__ would refuse
        pass

    def __copy__(self) -> "Parameter":
        # torch's pickling rebuild: a Parameter on the same storage, attributes shared
        copy = type(self)(Tensor._make(self._data, self._dtype), self.requires_grad)
        copy.__dict__.update(self.__dict__)
        return copy

    def __deepcopy__(self, memo: dict) -> "Parameter":
        # torch.nn.Parameter's own: a clone of the data, without the gradient or attributes
        if id(self) not in memo:
            memo[id(self)] = type(self)(Tensor._make(self._data.copy(), self._dtype), self.requires_grad)
        return memo[id(self)]

class UninitializedParameter(Parameter):
    """The parameter of a lazy module before its first call, which gives it its shape."""

    __slots__ = ()
    __module__ = "torch.nn.parameter"

    def __new__(cls, requires_grad: bool = True, device: Any = None, dtype: Any = None) -> "UninitializedParameter":
        dtype = dtypes.get_default_dtype() if dtype is None else dtype
        return super().__new__(cls, Tensor._make(_empty(0, dtype), dtype), requires_grad)

    def __init__(self, requires_grad: bool = True, device: Any = None, dtype: Any = None) -> None:
        pass

    def __repr__(self) -> str:
        return "<UninitializedParameter>"

    __str__ = __repr__

    def materialize(self, shape: tuple) -> Parameter:
        """A parameter of `shape` (its values are set by the module's reset_parameters)."""
        return Parameter(Tensor._make(_empty(shape, self._dtype), self._dtype), self.requires_grad)


class Buffer(Tensor):
    """`self.x = nn.Buffer(t)` registers a buffer: the instance is a plain tensor (as in torch)
    marked as a buffer, `persistent` deciding whether state_dict holds it."""

    __slots__ = ()
    __module__ = "torch.nn.parameter"

    def __new__(cls, data: Any = None, *, persistent: bool = True) -> Tensor:
        if data is None:
            data = Tensor._make(np.empty((0,), dtype=dtypes.get_default_dtype()._numpy), dtypes.get_default_dtype())
        buffer = data.detach()._set_requires_grad(data.requires_grad)
        buffer.persistent = persistent
        buffer._is_buffer = True
        return buffer


def is_buffer(value: Any) -> bool:
    """Whether `value` came from nn.Buffer (isinstance(value, nn.Buffer) in torch)."""
    return isinstance(value, Tensor) and value.__dict__.get("_is_buffer", False)


class UninitializedBuffer(Tensor):
    """The buffer of a lazy module before its first call, which gives it its shape."""

    __slots__ = ()
    __module__ = "torch.nn.parameter"

    def __new__(cls, requires_grad: bool = False, device: Any = None, dtype: Any = None,
                persistent: bool = True) -> "UninitializedBuffer":
        dtype = dtypes.get_default_dtype() if dtype is None else dtype
        buffer = cls._make(_empty(0, dtype), dtype, requires_grad=requires_grad)
        buffer.persistent = persistent
        buffer._is_buffer = True
        return buffer

    def __init__(self, requires_grad: bool = False, device: Any = None, dtype: Any = None,
                 persistent: bool = True) -> None:
        pass

    def __repr__(self) -> str:
        return "<UninitializedBuffer>"

    __str__ = __repr__

    def materialize(self, shape: tuple) -> Tensor:
        """A tensor of `shape` (its values are set by the module's reset_parameters)."""
        return Tensor._make(_empty(shape, self._dtype), self._dtype, requires_grad=self.requires_grad)


def _empty(size: Any, dtype: Any) -> np.ndarray:
    """The zeros of torch.empty(size, dtype=dtype), as torch's Python code calls it: its checks."""
    from ..autograd.ops import creation  # (the ops import nn's parameters)
    return creation.allocated(size, dtype)._data


def is_lazy(param: Any) -> bool:
    return isinstance(param, (UninitializedParameter, UninitializedBuffer))

