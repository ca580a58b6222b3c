"""The text of any value a program shows: Python's repr, with PyTorch's for tensors."""
from __future__ import annotations

from typing import Any

from ..autograd import dtypes
from .tensor_repr import format_tensor


def tensor_repr(tensor: Any) -> str:
    """repr(t) as PyTorch prints it, `Parameter containing:` included."""
    dtype = tensor._dtype
    grad_fn = tensor._grad_fn.name() if tensor._grad_fn is not None else None
    if grad_fn is not None and "::" in grad_fn:
        grad_fn = grad_fn.rsplit("::", 1)[1]
    text = format_tensor(tensor._data, dtype.name, grad_fn=grad_fn, requires_grad=tensor._requires_grad,
                         default_dtype=dtypes.get_default_dtype().name)
    if getattr(type(tensor), "is_parameter", False):
        return "Parameter containing:\n" + text
    return text
