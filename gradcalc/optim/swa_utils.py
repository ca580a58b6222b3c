"""torch.optim.swa_utils: stochastic weight averaging and exponential moving averages of a
model's parameters (AveragedModel), the SWA learning-rate schedule (SWALR) and update_bn."""
from __future__ import annotations

import copy
import itertools
import math
from typing import Any, Callable, Iterable, Literal, Optional

from ..autograd import dtypes, grad_mode
from ..autograd.ops.creation import tensor
from ..autograd.tensor import Tensor
from ..nn.modules.batchnorm import _BatchNorm
from ..nn.modules.module import Module
from .lr_scheduler import LRScheduler, _format_param, _warn_get_lr_called_within_step
from .optimizer import Optimizer

__all__ = ["AveragedModel", "update_bn", "SWALR", "get_ema_multi_avg_fn", "get_swa_multi_avg_fn", "get_ema_avg_fn",
           "get_swa_avg_fn"]


def _check_decay(decay: float) -> None:
    if decay < 0.0 or decay > 1.0:
        raise ValueError(f"Invalid decay value {decay} provided. Please provide a value in [0,1] range.")


def get_ema_multi_avg_fn(decay: float = 0.999) -> Callable:
    """An update of all the averaged tensors at once: each moves (1 - decay) of the way to the model's."""
    _check_decay(decay)

    def ema_update(ema_param_list: list, current_param_list: list, _: Any) -> None:
        with grad_mode.no_grad():
            if ema_param_list[0].is_floating_point() or ema_param_list[0].is_complex():
                for p_ema, p_model in zip(ema_param_list, current_param_list):
                    p_ema.lerp_(p_model, 1 - decay)
            else:
                for p_ema, p_model in zip(ema_param_list, current_param_list):
                    p_ema.copy_(p_ema * decay + p_model * (1 - decay))

    return ema_update


def get_swa_multi_avg_fn() -> Callable:
    """An update of all the averaged tensors at once to the running mean of the models seen."""

    def swa_update(averaged_param_list: list, current_param_list: list, num_averaged: Any) -> None:
        with grad_mode.no_grad():
            if averaged_param_list[0].is_floating_point() or averaged_param_list[0].is_complex():
                for p_averaged, p_model in zip(averaged_param_list, current_param_list):
                    p_averaged.lerp_(p_model, float(1 / (num_averaged + 1)))
                return
            for p_averaged, p_model in zip(averaged_param_list, current_param_list):
                diff = p_model - p_averaged
                if isinstance(num_averaged, Tensor):
                    p_averaged.addcdiv_(diff, num_averaged + 1)
                else:
                    p_averaged.add_(diff, alpha=1.0 / (num_averaged + 1))

    return swa_update


def get_ema_avg_fn(decay: float = 0.999) -> Callable:
    _check_decay(decay)

    def ema_update(ema_param: Tensor, current_param: Tensor, num_averaged: Any) -> Tensor:
        with grad_mode.no_grad():
            return decay * ema_param + (1 - decay) * current_param

    return ema_update


def get_swa_avg_fn() -> Callable:
    def swa_update(averaged_param: Tensor, current_param: Tensor, num_averaged: Any) -> Tensor:
        with grad_mode.no_grad():
            return averaged_param + (current_param - averaged_param) / (num_averaged + 1)

    return swa_update


def _by_dtype(averaged: list, current: list) -> list:
    """The pairs of lists grouped by dtype, in the order the dtypes first appear."""
    groups: dict = {}
    for p_averaged, p_model in zip(averaged, current):
        pair = groups.setdefault(p_averaged.dtype, ([], []))
        pair[0].append(p_averaged)
        pair[1].append(p_model)
    return list(groups.values())


class AveragedModel(Module):
    """A copy of `model` whose parameters (and buffers, with use_buffers) are averaged over the
    models passed to update_parameters: equally by default, or as avg_fn / multi_avg_fn say."""

    __module__ = "torch.optim.swa_utils"

    def __init__(self, model: Module, device: Any = None, avg_fn: Optional[Callable] = None,
                 multi_avg_fn: Optional[Callable] = None, use_buffers: bool = False) -> None:
        super().__init__()
        if avg_fn is not None and multi_avg_fn is not None:
            raise AssertionError("Only one of avg_fn and multi_avg_fn should be provided")
        self.module = copy.deepcopy(model)
        if device is not None:
            self.module = self.module.to(device)
        self.register_buffer("n_averaged", tensor(0, dtype=dtypes.int64))
        self.avg_fn = avg_fn
        self.multi_avg_fn = multi_avg_fn
        self.use_buffers = use_buffers

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        return self.module(*args, **kwargs)

    def update_parameters(self, model: Module) -> None:
        if self.use_buffers:
            self_param = itertools.chain(self.module.parameters(), self.module.buffers())
            model_param = itertools.chain(model.parameters(), model.buffers())
        else:
            self_param, model_param = self.parameters(), model.parameters()
        self_param_detached, model_param_detached = [], []
        copy_param = bool(self.n_averaged == 0)
        for p_averaged, p_model in zip(self_param, model_param):
            p_model_ = p_model.detach()
            self_param_detached.append(p_averaged.detach())
            model_param_detached.append(p_model_)
            if copy_param:
                p_averaged.detach().copy_(p_model_)
        if self.n_averaged > 0:
            if self.multi_avg_fn is not None or self.avg_fn is None:
                # PyTorch's foreach kernels serve other devices: on the CPU the default is the per-tensor mean
                for self_params, model_params in _by_dtype(self_param_detached, model_param_detached):
                    if self.multi_avg_fn:
                        self.multi_avg_fn(self_params, model_params, self.n_averaged)
                    else:
                        avg_fn = get_swa_avg_fn()
                        for p_averaged, p_model in zip(self_params, model_params):
                            p_averaged.copy_(avg_fn(p_averaged, p_model, self.n_averaged))
            else:
                for p_averaged, p_model in zip(self_param_detached, model_param_detached):
                    p_averaged.detach().copy_(self.avg_fn(p_averaged.detach(), p_model, self.n_averaged))
        if not self.use_buffers:
            for b_swa, b_model in zip(self.module.buffers(), model.buffers()):
                b_swa.detach().copy_(b_model.detach())
        self.n_averaged += 1


def update_bn(loader: Iterable[Any], model: Module, device: Any = None) -> None:
    """Recompute the batch norms' running statistics over one pass of `loader` (a cumulative average)."""
    with grad_mode.no_grad():
        momenta = {}
        for module in model.modules():
            if isinstance(module, _BatchNorm):
                module.reset_running_stats()
                momenta[module] = module.momentum
        if not momenta:
            return
        was_training = model.training
        model.train()
        for module in momenta:
            module.momentum = None
        for input in loader:
            if isinstance(input, (list, tuple)):
                input = input[0]
            model(input)
        for bn_module in momenta:
            bn_module.momentum = momenta[bn_module]
        model.train(was_training)


class SWALR(LRScheduler):
    """Anneal each group's learning rate to its swa_lr over anneal_epochs, then hold it."""

    __module__ = "torch.optim.swa_utils"

    def __init__(self, optimizer: Optimizer, swa_lr: Any, anneal_epochs: int = 10,
                 anneal_strategy: Literal["cos", "linear"] = "cos", last_epoch: int = -1) -> None:
        swa_lrs = _format_param("swa_lr", optimizer, swa_lr)
        for lr, group in zip(swa_lrs, optimizer.param_groups):
            group["swa_lr"] = lr
        if anneal_strategy not in ["cos", "linear"]:
            raise ValueError(f"anneal_strategy must be one of 'cos' or 'linear', instead got {anneal_strategy}")
        self._set_anneal_func(anneal_strategy)
        if not isinstance(anneal_epochs, int) or anneal_epochs < 0:
            raise ValueError(f"anneal_epochs must be equal or greater than 0, got {anneal_epochs}")
        self.anneal_epochs = anneal_epochs
        super().__init__(optimizer, last_epoch)

    @staticmethod
    def _linear_anneal(t: float) -> float:
        return t

    @staticmethod
    def _cosine_anneal(t: float) -> float:
        return (1 - math.cos(math.pi * t)) / 2

    @staticmethod
    def _get_initial_lr(lr: float, swa_lr: float, alpha: float) -> float:
        if alpha == 1:
            return swa_lr
        return (lr - alpha * swa_lr) / (1 - alpha)

    def get_lr(self) -> list:
        _warn_get_lr_called_within_step(self)
        step = self._step_count - 1
        if self.anneal_epochs == 0:
            step = max(1, step)
        prev_t = max(0, min(1, (step - 1) / max(1, self.anneal_epochs)))
        prev_alpha = self.anneal_func(prev_t)
        prev_lrs = [self._get_initial_lr(group["lr"], group["swa_lr"], prev_alpha)
                    for group in self.optimizer.param_groups]
        t = max(0, min(1, step / max(1, self.anneal_epochs)))
        alpha = self.anneal_func(t)
        return [group["swa_lr"] * alpha + lr * (1 - alpha) for group, lr in zip(self.optimizer.param_groups, prev_lrs)]

    def _set_anneal_func(self, anneal_strategy: str) -> None:
        self._anneal_strategy = anneal_strategy
        self.anneal_func = self._cosine_anneal if anneal_strategy == "cos" else self._linear_anneal

    def state_dict(self) -> dict:
        return {key: value for key, value in self.__dict__.items() if key not in ("optimizer", "anneal_func")}

    def load_state_dict(self, state_dict: dict) -> None:
        self.__dict__.update(state_dict)
        self._set_anneal_func(self._anneal_strategy)
