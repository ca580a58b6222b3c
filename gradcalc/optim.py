"""torch.optim: SGD, Adam, AdamW, RMSprop and Adagrad, updating parameters as PyTorch's CPU
code does, step for step (its single-tensor loops: PyTorch uses no foreach kernels on the CPU).

Every update is an in-place change of the parameter under no_grad, so it bumps the parameter's
version as in PyTorch; the arithmetic of each step (fused multiply-adds included) comes from
`kernels`, so the parameters keep PyTorch's last bits through any number of steps.
"""
from __future__ import annotations

from collections import defaultdict
from typing import Any, Callable, Optional

import numpy as np

from .autograd import dtypes, grad_mode, kernels
from .autograd.tensor import Tensor
from .nn.modules import typename
from .warnings import warn

__all__ = ["Optimizer", "SGD", "Adam", "AdamW", "RMSprop", "Adagrad"]


class _RequiredParameter:
    def __repr__(self) -> str:
        return "<required parameter>"


required = _RequiredParameter()


def _set(tensor: Tensor, data: np.ndarray) -> None:
    """An in-place update of `tensor` (a version bump, as PyTorch's in-place ops make)."""
    with grad_mode.no_grad():
        tensor.copy_(Tensor._make(np.asarray(data, dtype=tensor.dtype._numpy), tensor.dtype))


def _zeros_like(tensor: Tensor, value: float = 0) -> Tensor:
    return Tensor._make(np.full(tensor.shape, value, dtype=tensor.dtype._numpy), tensor.dtype)


def _step_counter() -> Tensor:
    return Tensor._make(np.zeros((), np.float32), dtypes.float32)


def _count(step: Tensor) -> float:
    """state['step'] += 1, then its value as a Python float (what PyTorch's _get_value reads)."""
    _set(step, step._data + np.float32(1))
    return float(step._data)


def _decayed(group: dict, param: Tensor, grad: np.ndarray) -> np.ndarray:
    """The gradient with L2 weight decay: grad.add(param, alpha=weight_decay)."""
    decay = group["weight_decay"]
    return kernels.add_scaled(grad, param._data, decay) if decay != 0 else grad


class Optimizer:
    """Parameter groups (dicts holding the parameters and their settings) and per-parameter state."""

    __module__ = "torch.optim.optimizer"

    def __init__(self, params: Any, defaults: dict) -> None:
        if isinstance(params, Tensor):
            raise TypeError("params argument given to the optimizer should be an iterable of Tensors or dicts, but "
                            f"got {typename(params)}")
        self.defaults = defaults
        self.state: dict = defaultdict(dict)
        self.param_groups: list = []
        param_groups = list(params)
        if len(param_groups) == 0:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(param_groups[0], dict):
            param_groups = [{"params": param_groups}]
        for param_group in param_groups:
            self.add_param_group(param_group)

    def add_param_group(self, param_group: dict) -> None:
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group).__name__}")
        params = param_group["params"]
        if isinstance(params, Tensor):
            param_group["params"] = [params]
        elif isinstance(params, set):
            raise TypeError("optimizer parameters need to be organized in ordered collections, but the ordering of "
                            "tensors in sets will change between runs. Please use a list instead.")
        else:
            param_group["params"] = list(params)
        for param in param_group["params"]:
            if not isinstance(param, Tensor):
                raise TypeError(f"optimizer can only optimize Tensors, but one of the params is {typename(param)}")
            if not self.defaults.get("differentiable", None) and not (param.is_leaf or param.retains_grad):
                raise ValueError("can't optimize a non-leaf Tensor")
        for name, default in self.defaults.items():
            if default is required and name not in param_group:
                raise ValueError(f"parameter group didn't specify a value of required optimization parameter {name}")
            param_group.setdefault(name, default)
        params = param_group["params"]
        if len(params) != len({id(p) for p in params}):
            warn("UserWarning", "optimizer contains a parameter group with duplicate parameters; in future, this will "
                                "cause an error; see github.com/pytorch/pytorch/issues/40967 for more information")
        taken = {id(p) for group in self.param_groups for p in group["params"]}
        if any(id(p) in taken for p in params):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(param_group)

    def zero_grad(self, set_to_none: bool = True) -> None:
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                if set_to_none:
                    p.grad = None
                else:
                    if p.grad.grad_fn is not None:
                        p.grad.detach_()
                    else:
                        p.grad.requires_grad_(False)
                    p.grad.zero_()

    def step(self, closure: Optional[Callable[[], Any]] = None) -> Any:
        loss = None
        if closure is not None:
            with grad_mode.enable_grad():
                loss = closure()
        with grad_mode.set_grad_enabled(bool(self.defaults.get("differentiable", False))):
            for group in self.param_groups:
                for param in group["params"]:
                    if param.grad is not None:
                        grad = param.grad._data
                        self._update(group, param, -grad if group.get("maximize") else grad, self.state[param])
        return loss

    def _update(self, group: dict, param: Tensor, grad: np.ndarray, state: dict) -> None:
        raise NotImplementedError

    def state_dict(self) -> dict:
        # parameters become their positions, counted across the groups in order
        mapping: dict = {}
        groups = []
        for group in self.param_groups:
            packed = {k: v for k, v in group.items() if k != "params"}
            for p in group["params"]:
                mapping.setdefault(id(p), len(mapping))
            packed["params"] = [mapping[id(p)] for p in group["params"]]
            groups.append(packed)
        state = {mapping[id(k)] if isinstance(k, Tensor) else k: v for k, v in self.state.items()}
        return {"state": state, "param_groups": groups}

    def __repr__(self) -> str:
        text = type(self).__name__ + " ("
        for index, group in enumerate(self.param_groups):
            text += f"\nParameter Group {index}\n"
            for key in sorted(group):
                if key != "params":
                    text += f"    {key}: {group[key]}\n"
        return text + ")"


def _check(value: Any, minimum: float, message: str) -> None:
    if not minimum <= value:
        raise ValueError(message.format(value))


class SGD(Optimizer):
    __module__ = "torch.optim.sgd"

    def __init__(self, params: Any, lr: float = 1e-3, momentum: float = 0, dampening: float = 0,
                 weight_decay: float = 0, nesterov: bool = False, *, maximize: bool = False,
                 foreach: Optional[bool] = None, differentiable: bool = False, fused: Optional[bool] = None) -> None:
        _check(lr, 0.0, "Invalid learning rate: {}")
        _check(momentum, 0.0, "Invalid momentum value: {}")
        _check(weight_decay, 0.0, "Invalid weight_decay value: {}")
        defaults = dict(lr=lr, momentum=momentum, dampening=dampening, weight_decay=weight_decay, nesterov=nesterov,
                        maximize=maximize, foreach=foreach, differentiable=differentiable, fused=fused)
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, defaults)

    def _update(self, group: dict, param: Tensor, grad: np.ndarray, state: dict) -> None:
        grad = _decayed(group, param, grad)
        momentum = group["momentum"]
        if momentum != 0:
            buffer = state.get("momentum_buffer")
            if buffer is None:
                buffer = state["momentum_buffer"] = Tensor._make(np.array(grad), param.dtype)
            else:
                scaled = buffer._data * np.asarray(momentum, dtype=grad.dtype)
                _set(buffer, kernels.add_scaled(scaled, grad, 1 - group["dampening"]))
            grad = kernels.add_scaled(grad, buffer._data, momentum) if group["nesterov"] else buffer._data
        _set(param, kernels.add_scaled(param._data, grad, -group["lr"]))


class Adam(Optimizer):
    __module__ = "torch.optim.adam"

    def __init__(self, params: Any, lr: float = 1e-3, betas: tuple = (0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 0, amsgrad: bool = False, *, foreach: Optional[bool] = None,
                 maximize: bool = False, capturable: bool = False, differentiable: bool = False,
                 fused: Optional[bool] = None, decoupled_weight_decay: bool = False) -> None:
        _check(lr, 0.0, "Invalid learning rate: {}")
        _check(eps, 0.0, "Invalid epsilon value: {}")
        for index, beta in enumerate(betas):
            if not 0.0 <= beta < 1.0:
                raise ValueError(f"Invalid beta parameter at index {index}: {beta}")
        _check(weight_decay, 0.0, "Invalid weight_decay value: {}")
        if not all(isinstance(beta, float) for beta in betas):
            raise ValueError("betas must be either both floats or both Tensors")
        defaults = dict(lr=lr, betas=tuple(betas), eps=eps, weight_decay=weight_decay, amsgrad=amsgrad,
                        maximize=maximize, foreach=foreach, capturable=capturable, differentiable=differentiable,
                        fused=fused, decoupled_weight_decay=decoupled_weight_decay)
        super().__init__(params, defaults)

    def _update(self, group: dict, param: Tensor, grad: np.ndarray, state: dict) -> None:
        if not state:
            state["step"] = _step_counter()
            state["exp_avg"] = _zeros_like(param)
            state["exp_avg_sq"] = _zeros_like(param)
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
        denom = np.sqrt(second) / kind(correction2_sqrt) + kind(group["eps"])
        _set(param, kernels.addcdiv(param._data, exp_avg._data, denom, -step_size))


class AdamW(Adam):
    __module__ = "torch.optim.adamw"

    def __init__(self, params: Any, lr: float = 1e-3, betas: tuple = (0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 1e-2, amsgrad: bool = False, *, maximize: bool = False,
                 foreach: Optional[bool] = None, capturable: bool = False, differentiable: bool = False,
                 fused: Optional[bool] = None) -> None:
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, foreach=foreach, maximize=maximize,
                         capturable=capturable, differentiable=differentiable, fused=fused,
                         decoupled_weight_decay=True)


class RMSprop(Optimizer):
    __module__ = "torch.optim.rmsprop"

    def __init__(self, params: Any, lr: float = 1e-2, alpha: float = 0.99, eps: float = 1e-8,
                 weight_decay: float = 0, momentum: float = 0, centered: bool = False, capturable: bool = False,
                 foreach: Optional[bool] = None, maximize: bool = False, differentiable: bool = False) -> None:
        _check(lr, 0.0, "Invalid learning rate: {}")
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
            average = np.sqrt(kernels.addcmul(square_avg._data, grad_avg._data, grad_avg._data, -1))
        else:
            average = np.sqrt(square_avg._data)
        average = average + kind(group["eps"])
        if group["momentum"] > 0:
            buffer = state["momentum_buffer"]
            _set(buffer, kernels.addcdiv(buffer._data * kind(group["momentum"]), grad, average))
            _set(param, kernels.add_scaled(param._data, buffer._data, -group["lr"]))
        else:
            _set(param, kernels.addcdiv(param._data, grad, average, -group["lr"]))


class Adagrad(Optimizer):
    __module__ = "torch.optim.adagrad"

    def __init__(self, params: Any, lr: float = 1e-2, lr_decay: float = 0, weight_decay: float = 0,
                 initial_accumulator_value: float = 0, eps: float = 1e-10, foreach: Optional[bool] = None, *,
                 maximize: bool = False, differentiable: bool = False, fused: Optional[bool] = None) -> None:
        _check(lr, 0.0, "Invalid learning rate: {}")
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
        deviation = np.sqrt(total._data) + grad.dtype.type(group["eps"])
        _set(param, kernels.addcdiv(param._data, grad, deviation, -rate))


def optimizers() -> dict:
    """The members of the torch.optim namespace."""
    return {name: globals()[name] for name in __all__}
