"""torch.optim.nadam: Adam with Nesterov momentum, as PyTorch's single-tensor loop."""
from __future__ import annotations

from typing import Any, Optional

import numpy as np

from ..autograd import dtypes
from ..autograd.tensor import Tensor
from .optimizer import Optimizer, _adam_state, _as_tensor, _check, _check_lr, _check_betas, _count, _decay

__all__ = ["NAdam"]


class NAdam(Optimizer):
    __module__ = "torch.optim.nadam"

    def __init__(self, params: Any, lr: float = 2e-3, betas: tuple = (0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 0, momentum_decay: float = 4e-3, decoupled_weight_decay: bool = False, *,
                 foreach: Optional[bool] = None, maximize: bool = False, capturable: bool = False,
                 differentiable: bool = False) -> None:
        _check_lr(lr, foreach, capturable)
        _check(eps, 0.0, "Invalid epsilon value: {}")
        _check_betas(betas)
        _check(weight_decay, 0.0, "Invalid weight_decay value: {}")
        _check(momentum_decay, 0.0, "Invalid momentum_decay value: {}")
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, momentum_decay=momentum_decay,
                        decoupled_weight_decay=decoupled_weight_decay, maximize=maximize, foreach=foreach,
                        capturable=capturable, differentiable=differentiable)
        super().__init__(params, defaults)

    def _update(self, group: dict, param: Tensor, grad: np.ndarray, state: dict) -> None:
        if not state:
            _adam_state(state, param)
            state["mu_product"] = Tensor._make(np.ones((), np.float32), dtypes.float32)
        beta1, beta2 = group["betas"]
        lr, eps = group["lr"], group["eps"]
        step = _count(state["step"])
        bias_correction2 = 1 - beta2 ** step
        gradient = _decay(group, param, _as_tensor(param, grad))
        mu = beta1 * (1.0 - 0.5 * 0.96 ** (step * group["momentum_decay"]))
        mu_next = beta1 * (1.0 - 0.5 * 0.96 ** ((step + 1) * group["momentum_decay"]))
        mu_product = state["mu_product"]
        mu_product.mul_(mu)
        exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
        exp_avg.lerp_(gradient, 1 - beta1)
        exp_avg_sq.mul_(beta2).addcmul_(gradient, gradient, value=1 - beta2)
        denom = exp_avg_sq.div(bias_correction2).sqrt()
        product = mu_product.item()
        denom.add_(eps)
        param.addcdiv_(gradient, denom, value=-lr * (1.0 - mu) / (1.0 - product))
        param.addcdiv_(exp_avg, denom, value=-lr * mu_next / (1.0 - product * mu_next))
