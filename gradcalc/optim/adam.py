"""torch.optim.adam: Adam, with AMSGrad and (for AdamW) decoupled weight decay."""
from __future__ import annotations

from typing import Any, Optional

import numpy as np

from ..autograd import kernels
from ..autograd.tensor import Tensor
from .optimizer import Optimizer, _adam_state, _check, _check_lr, _check_betas, _count, _decayed, _set, _sqrt, _zeros_like

__all__ = ["Adam"]


class Adam(Optimizer):
    __module__ = "torch.optim.adam"

    def __init__(self, params: Any, lr: float = 1e-3, betas: tuple = (0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 0, amsgrad: bool = False, *, foreach: Optional[bool] = None,
                 maximize: bool = False, capturable: bool = False, differentiable: bool = False,
                 fused: Optional[bool] = None, decoupled_weight_decay: bool = False) -> None:
        _check_lr(lr, foreach, capturable)
        _check(eps, 0.0, "Invalid epsilon value: {}")
        _check_betas(betas)
        _check(weight_decay, 0.0, "Invalid weight_decay value: {}")
        if not all(isinstance(beta, float) for beta in betas):
            raise ValueError("betas must be either both floats or both Tensors")
        defaults = dict(lr=lr, betas=tuple(betas), eps=eps, weight_decay=weight_decay, amsgrad=amsgrad,
                        maximize=maximize, foreach=foreach, capturable=capturable, differentiable=differentiable,
                        fused=fused, decoupled_weight_decay=decoupled_weight_decay)
        super().__init__(params, defaults)

    def _update(self, group: dict, param: Tensor, grad: np.ndarray, state: dict) -> None:
        if not state:
            _adam_state(state, param)
            if group["amsgrad"]:
                state["max_exp_avg_sq"] = _zeros_like(param)
        beta1, beta2 = group["betas"]
        lr, kind = group["lr"], grad.dtype.type
        step = _count(state["step"])
        if group["weight_decay"] != 0:
            if group["decoupled_weight_decay"]:
                _set(param, param._data * kind(1 - lr * group["weight_decay"]))
            else:
                grad = _decayed(group, param, grad)
        exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
        _set(exp_avg, kernels.lerp(exp_avg._data, grad, 1 - beta1))
        _set(exp_avg_sq, kernels.addcmul(exp_avg_sq._data * kind(beta2), grad, grad, 1 - beta2))
        step_size = lr / (1 - beta1 ** step)
        correction2_sqrt = (1 - beta2 ** step) ** 0.5
        second = exp_avg_sq._data
        if group["amsgrad"]:
            _set(state["max_exp_avg_sq"], np.maximum(state["max_exp_avg_sq"]._data, second))
            second = state["max_exp_avg_sq"]._data
        denom = _sqrt(second) / kind(correction2_sqrt) + kind(group["eps"])
        _set(param, kernels.addcdiv(param._data, exp_avg._data, denom, -step_size))
