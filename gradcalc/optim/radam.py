"""torch.optim.radam: rectified Adam, as PyTorch's single-tensor loop."""
from __future__ import annotations

from typing import Any, Optional

import numpy as np

from ..autograd.tensor import Tensor
from .optimizer import Optimizer, _adam_state, _as_tensor, _check, _check_lr, _check_betas, _count, _decay

__all__ = ["RAdam"]


class RAdam(Optimizer):
    __module__ = "torch.optim.radam"

    def __init__(self, params: Any, lr: float = 1e-3, betas: tuple = (0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 0, decoupled_weight_decay: bool = False, *, foreach: Optional[bool] = None,
                 maximize: bool = False, capturable: bool = False, differentiable: bool = False) -> None:
        _check_lr(lr, foreach, capturable)
        _check(eps, 0.0, "Invalid epsilon value: {}")
        _check_betas(betas)
        _check(weight_decay, 0.0, "Invalid weight_decay value: {}")
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, maximize=maximize, foreach=foreach,
                        capturable=capturable, decoupled_weight_decay=decoupled_weight_decay,
                        differentiable=differentiable)
        super().__init__(params, defaults)

    def _update(self, group: dict, param: Tensor, grad: np.ndarray, state: dict) -> None:
        _adam_state(state, param)
        beta1, beta2 = group["betas"]
        lr = group["lr"]
        step = _count(state["step"])
        gradient = _decay(group, param, _as_tensor(param, grad))
        exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
        exp_avg.lerp_(gradient, 1 - beta1)
        exp_avg_sq.mul_(beta2).addcmul_(gradient, gradient, value=1 - beta2)
        bias_correction1 = 1 - beta1 ** step
        bias_correction2 = 1 - beta2 ** step
        corrected = exp_avg / bias_correction1
        rho_inf = 2 / (1 - beta2) - 1
        rho_t = rho_inf - 2 * step * beta2 ** step / bias_correction2
        if rho_t > 5.0:
            rect = ((rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t)) ** 0.5
            adaptive = bias_correction2 ** 0.5 / exp_avg_sq.sqrt().add_(group["eps"])
            param.add_(corrected * lr * adaptive * rect, alpha=-1.0)
        else:
            param.add_(corrected * lr, alpha=-1.0)
