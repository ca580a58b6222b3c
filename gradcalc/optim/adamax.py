"""torch.optim.adamax: Adamax (Adam with the infinity norm), as PyTorch's single-tensor loop."""
from __future__ import annotations

from typing import Any, Optional

import numpy as np

from ..autograd.ops import comparison
from ..autograd.tensor import Tensor
from .optimizer import Optimizer, _as_tensor, _check, _check_lr, _check_betas, _count, _step_counter, _zeros_like

__all__ = ["Adamax"]


class Adamax(Optimizer):
    __module__ = "torch.optim.adamax"

    def __init__(self, params: Any, lr: float = 2e-3, betas: tuple = (0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 0, foreach: Optional[bool] = None, *, maximize: bool = False,
                 differentiable: bool = False, capturable: bool = False) -> None:
        _check_lr(lr)
        _check(eps, 0.0, "Invalid epsilon value: {}")
        _check_betas(betas)
        _check(weight_decay, 0.0, "Invalid weight_decay value: {}")
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, foreach=foreach, maximize=maximize,
                        differentiable=differentiable, capturable=capturable)
        super().__init__(params, defaults)

    def _update(self, group: dict, param: Tensor, grad: np.ndarray, state: dict) -> None:
        if not state:
            state["step"] = _step_counter()
            state["exp_avg"] = _zeros_like(param)
            state["exp_inf"] = _zeros_like(param)
        beta1, beta2 = group["betas"]
        step = _count(state["step"])
        gradient = _as_tensor(param, grad)
        if group["weight_decay"] != 0:
            gradient = gradient.add(param, alpha=group["weight_decay"])
        exp_avg, exp_inf = state["exp_avg"], state["exp_inf"]
        exp_avg.lerp_(gradient, 1 - beta1)
        exp_inf.copy_(comparison.maximum(exp_inf.mul_(beta2), gradient.abs().add_(group["eps"])))
        param.addcdiv_(exp_avg, exp_inf, value=-(group["lr"] / (1 - beta1 ** step)))
