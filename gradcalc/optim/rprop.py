"""torch.optim.rprop: resilient backpropagation, as PyTorch's single-tensor loop."""
from __future__ import annotations

from typing import Any, Optional

import numpy as np

from ..autograd.tensor import Tensor
from .optimizer import Optimizer, _as_tensor, _check_lr, _count, _step_counter, _zeros_like

__all__ = ["Rprop"]


class Rprop(Optimizer):
    __module__ = "torch.optim.rprop"

    def __init__(self, params: Any, lr: float = 1e-2, etas: tuple = (0.5, 1.2), step_sizes: tuple = (1e-6, 50), *,
                 capturable: bool = False, foreach: Optional[bool] = None, maximize: bool = False,
                 differentiable: bool = False) -> None:
        _check_lr(lr)
        if not 0.0 < etas[0] < 1.0 < etas[1]:
            raise ValueError(f"Invalid eta values: {etas[0]}, {etas[1]}")
        defaults = dict(lr=lr, etas=etas, step_sizes=step_sizes, foreach=foreach, maximize=maximize,
                        differentiable=differentiable, capturable=capturable)
        super().__init__(params, defaults)

    def _update(self, group: dict, param: Tensor, grad: np.ndarray, state: dict) -> None:
        if not state:
            state["step"] = _step_counter()
            state["prev"] = _zeros_like(param)
            state["step_size"] = _zeros_like(param, group["lr"])
        etaminus, etaplus = group["etas"]
        step_size_min, step_size_max = group["step_sizes"]
        _count(state["step"])
        gradient = _as_tensor(param, grad)
        prev, step_size = state["prev"], state["step_size"]
        sign = gradient.mul(prev).sign()
        sign[sign.gt(0)] = etaplus
        sign[sign.lt(0)] = etaminus
        sign[sign.eq(0)] = 1
        step_size.mul_(sign).clamp_(step_size_min, step_size_max)
        gradient = gradient.clone()
        gradient[sign.eq(etaminus)] = 0
        param.addcmul_(gradient.sign(), step_size, value=-1)
        prev.copy_(gradient)
