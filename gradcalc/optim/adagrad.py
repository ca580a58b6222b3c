"""torch.optim.adagrad: Adagrad, whose state PyTorch sets up when the optimizer is made."""
from __future__ import annotations

from typing import Any, Optional

import numpy as np

from ..autograd import kernels
from ..autograd.tensor import Tensor
from .optimizer import Optimizer, _check, _check_lr, _count, _decayed, _set, _sqrt, _step_counter, _zeros_like

__all__ = ["Adagrad"]


class Adagrad(Optimizer):
    __module__ = "torch.optim.adagrad"

    def __init__(self, params: Any, lr: float = 1e-2, lr_decay: float = 0, weight_decay: float = 0,
                 initial_accumulator_value: float = 0, eps: float = 1e-10, foreach: Optional[bool] = None, *,
                 maximize: bool = False, differentiable: bool = False, fused: Optional[bool] = None) -> None:
        _check_lr(lr)
        _check(lr_decay, 0.0, "Invalid lr_decay value: {}")
        _check(weight_decay, 0.0, "Invalid weight_decay value: {}")
        _check(initial_accumulator_value, 0.0, "Invalid initial_accumulator_value value: {}")
        _check(eps, 0.0, "Invalid epsilon value: {}")
        defaults = dict(lr=lr, lr_decay=lr_decay, eps=eps, weight_decay=weight_decay,
                        initial_accumulator_value=initial_accumulator_value, foreach=foreach, maximize=maximize,
                        differentiable=differentiable, fused=fused)
        super().__init__(params, defaults)
        # Adagrad sets its state up front, not at the first step
        for group in self.param_groups:
            for p in group["params"]:
                self.state[p]["step"] = _step_counter()
                self.state[p]["sum"] = _zeros_like(p, group["initial_accumulator_value"])

    def _update(self, group: dict, param: Tensor, grad: np.ndarray, state: dict) -> None:
        step = _count(state["step"])
        grad = _decayed(group, param, grad)
        rate = group["lr"] / (1 + (step - 1) * group["lr_decay"])
        total = state["sum"]
        _set(total, kernels.addcmul(total._data, grad, grad, 1))
        deviation = _sqrt(total._data) + grad.dtype.type(group["eps"])
        _set(param, kernels.addcdiv(param._data, grad, deviation, -rate))
