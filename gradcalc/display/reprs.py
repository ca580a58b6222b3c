"""The text of any value a program shows: Python's repr, with PyTorch's for tensors."""
from __future__ import annotations

from typing import Any

from ..autograd import dtypes
from .tensor_repr import format_tensor


def tensor_repr(tensor: Any) -> str:
    """repr(t) as PyTorch prints it, `Parameter containing:` included."""
    dtype = tensor._dtype
    try:
        grad_fn = tensor._grad_fn.name() if tensor._grad_fn is not None else None
    except RuntimeError:  # a view made in no-grad mode and changed in place has no valid history
        grad_fn = "Invalid"
    if grad_fn is not None and "::" in grad_fn:
        grad_fn = grad_fn.rsplit("::", 1)[1]
    # requires_grad, not the flag: a view made in no-grad mode requires grad when its base does
    text = format_tensor(tensor._data, dtype.name, grad_fn=grad_fn, requires_grad=tensor.requires_grad,
                         default_dtype=dtypes.get_default_dtype().name)
    if getattr(type(tensor), "is_parameter", False):
        return "Parameter containing:\n" + text
    return text
