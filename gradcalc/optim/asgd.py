"""torch.optim.asgd: averaged stochastic gradient descent, as PyTorch's single-tensor loop."""
from __future__ import annotations

from typing import Any, Optional

import numpy as np

from ..autograd import dtypes
from ..autograd.tensor import Tensor
from .optimizer import Optimizer, _as_tensor, _check, _check_lr, _count, _step_counter, _zeros_like

__all__ = ["ASGD"]


def _scalar(value: float) -> Tensor:
    return Tensor._make(np.asarray(value, np.float32), dtypes.float32)


class ASGD(Optimizer):
    __module__ = "torch.optim.asgd"

    def __init__(self, params: Any, lr: float = 1e-2, lambd: float = 1e-4, alpha: float = 0.75, t0: float = 1e6,
                 weight_decay: float = 0, foreach: Optional[bool] = None, maximize: bool = False,
                 differentiable: bool = False, capturable: bool = False) -> None:
        _check_lr(lr)
        _check(weight_decay, 0.0, "Invalid weight_decay value: {}")
        defaults = dict(lr=lr, lambd=lambd, alpha=alpha, t0=t0, weight_decay=weight_decay, foreach=foreach,
                        maximize=maximize, differentiable=differentiable, capturable=capturable)
        super().__init__(params, defaults)

    def _update(self, group: dict, param: Tensor, grad: np.ndarray, state: dict) -> None:
        if not state:
            state["step"] = _step_counter()
            state["eta"] = _scalar(group["lr"])
            state["mu"] = _scalar(1.0)
            state["ax"] = _zeros_like(param)
        lr, lambd = group["lr"], group["lambd"]
        step = _count(state["step"])
        gradient = _as_tensor(param, grad)
        if group["weight_decay"] != 0:
            gradient = gradient.add(param, alpha=group["weight_decay"])
        eta = state["eta"].item()
        param.mul_(1 - lambd * eta)
        param.add_(gradient, alpha=-eta)
        ax, mu = state["ax"], state["mu"]
        if mu.item() != 1:
            ax.add_(param.sub(ax).mul_(mu))
        else:
            ax.copy_(param)
        # torch.as_tensor of a Python float: a float32 tensor
        state["eta"].copy_(_scalar(lr / (1 + lambd * lr * step) ** group["alpha"]))
        state["mu"].copy_(_scalar(1 / max(1, step - group["t0"])))
