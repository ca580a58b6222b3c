"""torch.optim.sgd: stochastic gradient descent, with momentum, dampening and Nesterov."""
from __future__ import annotations

from typing import Any, Optional

import numpy as np

from ..autograd import kernels
from ..autograd.tensor import Tensor
from .optimizer import Optimizer, _decayed, _scalar, _set

__all__ = ["SGD"]


class SGD(Optimizer):
    __module__ = "torch.optim.sgd"

    def __init__(self, params: Any, lr: float = 1e-3, momentum: float = 0, dampening: float = 0,
                 weight_decay: float = 0, nesterov: bool = False, *, maximize: bool = False,
                 foreach: Optional[bool] = None, differentiable: bool = False, fused: Optional[bool] = None) -> None:
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        # SGD's checks read `lr < 0.0` where the other optimizers' read `not 0.0 <= lr`: a value of
        # the wrong type fails in the words of its own comparison
        for value, message in ((lr, "Invalid learning rate: {}"), (momentum, "Invalid momentum value: {}"),
                               (weight_decay, "Invalid weight_decay value: {}")):
            if value < 0.0:
                raise ValueError(message.format(value))
        defaults = dict(lr=lr, momentum=momentum, dampening=dampening, weight_decay=weight_decay, nesterov=nesterov,
                        maximize=maximize, foreach=foreach, differentiable=differentiable, fused=fused)
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, defaults)

    def _state_of(self, group: dict, param: Tensor) -> dict:
        # torch's SGD keeps a parameter's state only for its momentum buffer
        return self.state[param] if group["momentum"] != 0 else {}

    def _update(self, group: dict, param: Tensor, grad: np.ndarray, state: dict) -> None:
        grad = _decayed(group, param, grad)
        momentum = group["momentum"]
        if momentum != 0:
            buffer = state.get("momentum_buffer")
            if buffer is None:
                buffer = state["momentum_buffer"] = Tensor._make(np.array(grad), param.dtype)
            else:  # buf.mul_(momentum).add_(grad, alpha=1 - dampening): each scalar as the parser reads it
                scaled = buffer._data * np.asarray(_scalar(momentum), dtype=grad.dtype)
                _set(buffer, kernels.add_scaled(scaled, grad, _scalar(1 - group["dampening"], param.dtype)))
            # grad.add(buf, alpha=momentum)
            grad = kernels.add_scaled(grad, buffer._data, _scalar(momentum, param.dtype)) if group["nesterov"] \
                else buffer._data
        _set(param, kernels.add_scaled(param._data, grad, _scalar(-group["lr"], param.dtype)))
