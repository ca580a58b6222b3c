"""torch.optim.rmsprop: RMSprop, centred or not, with momentum."""
from __future__ import annotations

from typing import Any, Optional

import numpy as np

from ..autograd import kernels
from ..autograd.tensor import Tensor
from .optimizer import Optimizer, _check, _check_lr, _count, _decayed, _scalar, _set, _sqrt, _step_counter, _zeros_like

__all__ = ["RMSprop"]


class RMSprop(Optimizer):
    __module__ = "torch.optim.rmsprop"

    def __init__(self, params: Any, lr: float = 1e-2, alpha: float = 0.99, eps: float = 1e-8,
                 weight_decay: float = 0, momentum: float = 0, centered: bool = False, capturable: bool = False,
                 foreach: Optional[bool] = None, maximize: bool = False, differentiable: bool = False) -> None:
        _check_lr(lr)
        _check(eps, 0.0, "Invalid epsilon value: {}")
        _check(momentum, 0.0, "Invalid momentum value: {}")
        _check(weight_decay, 0.0, "Invalid weight_decay value: {}")
        _check(alpha, 0.0, "Invalid alpha value: {}")
        defaults = dict(lr=lr, momentum=momentum, alpha=alpha, eps=eps, centered=centered, weight_decay=weight_decay,
                        capturable=capturable, foreach=foreach, maximize=maximize, differentiable=differentiable)
        super().__init__(params, defaults)

    def _update(self, group: dict, param: Tensor, grad: np.ndarray, state: dict) -> None:
        if not state:
            state["step"] = _step_counter()
            state["square_avg"] = _zeros_like(param)
            if group["momentum"] > 0:
                state["momentum_buffer"] = _zeros_like(param)
            if group["centered"]:
                state["grad_avg"] = _zeros_like(param)
        alpha, kind = group["alpha"], grad.dtype.type
        _count(state["step"])
        grad = _decayed(group, param, grad)
        square_avg = state["square_avg"]
        _set(square_avg, kernels.addcmul(square_avg._data * kind(alpha), grad, grad, 1 - alpha))
        if group["centered"]:
            grad_avg = state["grad_avg"]
            _set(grad_avg, kernels.lerp(grad_avg._data, grad, 1 - alpha))
            average = _sqrt(kernels.addcmul(square_avg._data, grad_avg._data, grad_avg._data, -1))
        else:
            average = _sqrt(square_avg._data)
        average = average + kind(group["eps"])
        if group["momentum"] > 0:
            buffer = state["momentum_buffer"]
            _set(buffer, kernels.addcdiv(buffer._data * kind(group["momentum"]), grad, average))
            _set(param, kernels.add_scaled(param._data, buffer._data, _scalar(-group["lr"], param.dtype)))
        else:
            _set(param, kernels.addcdiv(param._data, grad, average, _scalar(-group["lr"], param.dtype)))
