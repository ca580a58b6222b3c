"""torch.optim.adadelta: Adadelta, the tensor ops of PyTorch's single-tensor loop."""
from __future__ import annotations

from typing import Any, Optional

import numpy as np

from ..autograd.tensor import Tensor
from .optimizer import Optimizer, _as_tensor, _check, _check_lr, _count, _step_counter, _zeros_like

__all__ = ["Adadelta"]


class Adadelta(Optimizer):
    __module__ = "torch.optim.adadelta"

    def __init__(self, params: Any, lr: float = 1.0, rho: float = 0.9, eps: float = 1e-6, weight_decay: float = 0,
                 foreach: Optional[bool] = None, *, capturable: bool = False, maximize: bool = False,
                 differentiable: bool = False) -> None:
        _check_lr(lr)
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"Invalid rho value: {rho}")
        _check(eps, 0.0, "Invalid epsilon value: {}")
        _check(weight_decay, 0.0, "Invalid weight_decay value: {}")
        defaults = dict(lr=lr, rho=rho, eps=eps, weight_decay=weight_decay, maximize=maximize, capturable=capturable,
                        foreach=foreach, differentiable=differentiable)
        super().__init__(params, defaults)

    def _update(self, group: dict, param: Tensor, grad: np.ndarray, state: dict) -> None:
        if not state:
            state["step"] = _step_counter()
            state["square_avg"] = _zeros_like(param)
            state["acc_delta"] = _zeros_like(param)
        rho, eps = group["rho"], group["eps"]
        _count(state["step"])
        gradient = _as_tensor(param, grad)
        if group["weight_decay"] != 0:
            gradient = gradient.add(param, alpha=group["weight_decay"])
        square_avg, acc_delta = state["square_avg"], state["acc_delta"]
        square_avg.mul_(rho).addcmul_(gradient, gradient, value=1 - rho)
        std = square_avg.add(eps).sqrt_()
        delta = acc_delta.add(eps).sqrt_()
        delta.div_(std).mul_(gradient)
        acc_delta.mul_(rho).addcmul_(delta, delta, value=1 - rho)
        param.add_(delta, alpha=-group["lr"])
