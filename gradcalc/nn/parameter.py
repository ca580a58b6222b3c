"""nn.Parameter: a leaf tensor that a Module registers when it is assigned as an attribute."""
from __future__ import annotations

from typing import Any

import numpy as np

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
            raise AttributeError(f"'{type(data).__name__}' object has no attribute 'detach'")
        if not isinstance(requires_grad, bool):
            raise TypeError("_make_subclass(): argument 'require_grad' (position 3) must be bool, not "
                            f"{type(requires_grad).__name__}")
        if requires_grad and data.dtype.category < dtypes.FLOATING:
            raise RuntimeError(ONLY_FLOAT_GRAD_MESSAGE)
        param = cls._make(data._data, data._dtype, requires_grad=requires_grad)
        param._vc = data._vc
        return param

    def __init__(self, data: Any = None, requires_grad: bool = True) -> None:
        # everything happened in __new__; Tensor.__init__ would refuse
        pass
