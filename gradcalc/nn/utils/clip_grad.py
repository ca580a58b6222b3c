"""torch.nn.utils.clip_grad: clipping gradients by their total norm or by value, as PyTorch does it on the CPU."""
from __future__ import annotations

from types import GeneratorType
from typing import Any

from ...autograd import grad_mode
from ...autograd.ops.creation import tensor
from ...autograd.ops.joining import stack
from ...autograd.ops.statistics import vector_norm
from ...autograd.tensor import Tensor
from ...warnings import warn

__all__ = ["clip_grad_norm_", "clip_grad_value_"]


def _parameter_list(parameters: Any) -> list:
    if isinstance(parameters, Tensor):
        return [parameters]
    listed = list(parameters)
    if isinstance(parameters, GeneratorType) and not listed:
        warn("UserWarning", "`parameters` is an empty generator, no gradient clipping will occur.")
    return listed


def clip_grad_norm_(parameters: Any, max_norm: float, norm_type: float = 2.0, error_if_nonfinite: bool = False,
                    foreach: Any = None) -> Tensor:
    """Scale the gradients so that their norm taken together is at most max_norm; returns that norm.
    The steps are torch's (_get_total_norm, then _clip_grads_with_norm_): norm_type read as a float
    first, max_norm after the norm, even with no gradient to clip."""
    with grad_mode.no_grad():
        grads = [p.grad for p in _parameter_list(parameters) if p.grad is not None]
        norm_type = float(norm_type)
        if not grads:
            total = tensor(0.0)
        else:  # the norm of each gradient, then the norm of those norms
            total = vector_norm(stack([vector_norm(g, norm_type) for g in grads]), norm_type)
        if error_if_nonfinite and bool((total != total) | (total.abs() == float("inf"))):
            raise RuntimeError(f"The total norm of order {norm_type} for gradients from `parameters` is non-finite, "
                               "so it cannot be clipped. To disable this error and scale the gradients by the "
                               "non-finite norm anyway, set `error_if_nonfinite=False`")
        max_norm = float(max_norm)  # read once the norm is known, even when there is nothing to clip
        if grads:
            coefficient = (max_norm / (total + 1e-6)).clamp(max=1.0)
            for g in grads:
                g.mul_(coefficient)
    return total


def clip_grad_value_(parameters: Any, clip_value: float, foreach: Any = None) -> None:
    with grad_mode.no_grad():
        parameters = [parameters] if isinstance(parameters, Tensor) else parameters
        clip_value = float(clip_value)  # read first, as torch's, whatever the gradients
        grads = [p.grad for p in parameters if p.grad is not None]
        if not grads:  # torch groups them by device and dtype, which refuses an empty list
            raise RuntimeError("Expected !nested_tensorlist[0].empty() to be true, but got false.  (Could this error "
                               "message be improved?  If so, please report an enhancement request to PyTorch.)")
        for grad in grads:
            grad.clamp_(min=-clip_value, max=clip_value)
