"""torch.optim.optimizer: parameter groups, per-parameter state, state_dict and its loading, and
the step every optimizer shares, which updates parameters as PyTorch's CPU code does, step for
step (its single-tensor loops: PyTorch uses no foreach kernels on the CPU, so `foreach=True` is
accepted and computes the same).

Every update is an in-place change of the parameter under no_grad, so it bumps the parameter's
version as in PyTorch; the arithmetic of each step (fused multiply-adds included) comes from
`kernels` or from the tensor ops PyTorch's loop calls, so the parameters keep PyTorch's last bits
through any number of steps.
"""
from __future__ import annotations

import types
from collections import OrderedDict, defaultdict
from copy import deepcopy
from itertools import chain
from typing import Any, Callable, Optional

import numpy as np

from ..autograd import dtypes, grad_mode, kernels, mkl
from ..autograd.ops.common import kernel_scalar
from ..autograd.tensor import RemovableHandle, Tensor
from ..nn.modules import typename
from ..warnings import warn

__all__ = ["Optimizer", "required"]


class _RequiredParameter:
    def __repr__(self) -> str:
        return "<required parameter>"


required = _RequiredParameter()


def _scalar(value: Any, dtype: Optional[dtypes.DType] = None) -> Any:
    """`value` as PyTorch's argument parser reads a Scalar argument (torch's `alpha=-lr`): an int past
    int64's range fails there, in its words; then as the kernel reads it in `dtype`, checked."""
    if type(value) is int:
        dtypes.unpack_scalar_int(value)
    return value if dtype is None else kernel_scalar(value, dtype)


def _set(tensor: Tensor, data: np.ndarray) -> None:
    """An in-place update of `tensor` (a version bump, as PyTorch's in-place ops make)."""
    with grad_mode.no_grad():
        tensor.copy_(Tensor._make(np.asarray(data, dtype=tensor.dtype._numpy), tensor.dtype))


def _sqrt(x: np.ndarray) -> np.ndarray:
    """Tensor.sqrt's values, which ATen's optimizers take: MKL's vector sqrt where its backend is in use."""
    root = mkl.vml("SqrtBackward0", x)
    return np.sqrt(x) if root is None else root


def _zeros_like(tensor: Tensor, value: float = 0) -> Tensor:
    return Tensor._make(np.full(tensor.shape, value, dtype=tensor.dtype._numpy), tensor.dtype)


def _step_counter() -> Tensor:
    return Tensor._make(np.zeros((), np.float32), dtypes.float32)


def _count(step: Tensor) -> float:
    """state['step'] += 1, then its value as a Python float (what PyTorch's _get_value reads)."""
    _set(step, step._data + np.float32(1))
    return float(step._data)


def _as_tensor(param: Tensor, grad: np.ndarray) -> Tensor:
    """The gradient a step works with, as a tensor for the tensor ops PyTorch's loop calls."""
    return Tensor._make(grad, param.dtype)


def _check_betas(betas: tuple) -> None:
    for index, beta in enumerate(betas[:2]):
        if not 0.0 <= beta < 1.0:
            raise ValueError(f"Invalid beta parameter at index {index}: {beta}")


def _adam_state(state: dict, param: Tensor) -> None:
    """The state Adam and its kin start from: a step count and the two moment averages."""
    if not state:
        state["step"] = _step_counter()
        state["exp_avg"] = _zeros_like(param)
        state["exp_avg_sq"] = _zeros_like(param)


def _decay(group: dict, param: Tensor, gradient: Tensor) -> Tensor:
    """Weight decay as NAdam and RAdam apply it: decoupled (on the parameter) or L2 (on the gradient)."""
    decay = group["weight_decay"]
    if decay == 0:
        return gradient
    if group["decoupled_weight_decay"]:
        param.mul_(1 - group["lr"] * decay)
        return gradient
    return gradient.add(param, alpha=decay)


def _decayed(group: dict, param: Tensor, grad: np.ndarray) -> np.ndarray:
    """The gradient with L2 weight decay: grad.add(param, alpha=weight_decay)."""
    decay = group["weight_decay"]
    return kernels.add_scaled(grad, param._data, _scalar(decay, param.dtype)) if decay != 0 else grad


class Optimizer:
    """Parameter groups (dicts holding the parameters and their settings) and per-parameter state."""

    __module__ = "torch.optim.optimizer"

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if cls.step is Optimizer.step:
            # each of torch's optimizers defines its step, which Python's messages name (`SGD.step()`; AdamW
            # takes Adam's)
            step = Optimizer.step
            own = types.FunctionType(step.__code__, step.__globals__, "step", step.__defaults__, step.__closure__)
            own.__qualname__ = f"{cls.__name__}.step"
            own.__doc__, own.__annotations__ = step.__doc__, step.__annotations__
            cls.step = own  # type: ignore[method-assign]

    def __init__(self, params: Any, defaults: dict) -> None:
        self.defaults = defaults
        self._optimizer_step_pre_hooks: OrderedDict = OrderedDict()
        self._optimizer_step_post_hooks: OrderedDict = OrderedDict()
        if isinstance(params, Tensor):
            raise TypeError("params argument given to the optimizer should be an iterable of Tensors or dicts, but "
                            f"got {typename(params)}")
        self.state: dict = defaultdict(dict)
        self.param_groups: list = []
        param_groups = list(params)
        if len(param_groups) == 0:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(param_groups[0], dict):
            param_groups = [{"params": param_groups}]
        for param_group in param_groups:
            self.add_param_group(param_group)

    def __getstate__(self) -> dict:
        return {"defaults": self.defaults, "state": self.state, "param_groups": self.param_groups}

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self._optimizer_step_pre_hooks = OrderedDict()
        self._optimizer_step_post_hooks = OrderedDict()

    def add_param_group(self, param_group: dict) -> None:
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group)}")
        if "params" not in param_group:  # the KeyError of torch's param_group["params"]
            raise KeyError("params")
        params = param_group["params"]
        if isinstance(params, Tensor):
            param_group["params"] = [params]
        elif isinstance(params, set):
            raise TypeError("optimizer parameters need to be organized in ordered collections, but the ordering of "
                            "tensors in sets will change between runs. Please use a list instead.")
        else:
            param_group["params"] = list(params)
        # (name, parameter) pairs, as named_parameters() gives them
        names = [param[0] for param in param_group["params"] if isinstance(param, tuple)]
        param_group["params"] = [param[1] if isinstance(param, tuple) else param for param in param_group["params"]]
        if names:
            if len(names) != len(param_group["params"]):
                raise ValueError("all optimizer params should be with/without names. Some param names are missing")
            param_group["param_names"] = names
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
        taken = set()
        for group in self.param_groups:
            taken.update(id(p) for p in group["params"])
            if ("param_names" in param_group) != ("param_names" in group):
                which = "with names" if "param_names" in param_group else "without names"
                raise ValueError("all optimizer param groups should be with/without names. cannot add param group "
                                 f"{which} to the optimizer")
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
        args: tuple = (closure,) if closure is not None else ()
        kwargs: dict = {}
        for hook in list(self._optimizer_step_pre_hooks.values()):
            result = hook(self, args, kwargs)
            if result is not None:
                if not (isinstance(result, tuple) and len(result) == 2):
                    raise RuntimeError(f"<function {type(self).__name__}.step at {hex(id(type(self)))}> must return "
                                       f"None or a tuple of (new_args, new_kwargs), but got {result}.")
                args, kwargs = result
        loss = self._step(*args, **kwargs)
        for hook in list(self._optimizer_step_post_hooks.values()):
            hook(self, args, kwargs)
        return loss

    def _step(self, closure: Optional[Callable[[], Any]] = None) -> Any:
        loss = None
        if closure is not None:
            with grad_mode.enable_grad():
                loss = closure()
        with grad_mode.set_grad_enabled(bool(self.defaults.get("differentiable", False))):
            for group in self.param_groups:
                for param in group["params"]:
                    if param.grad is not None:
                        grad = param.grad._data
                        self._update(group, param, -grad if group.get("maximize") else grad,
                                     self._state_of(group, param))
        return loss

    def _state_of(self, group: dict, param: Tensor) -> dict:
        """The state `_update` keeps for `param` (made as the optimizer first steps it)."""
        return self.state[param]

    def _update(self, group: dict, param: Tensor, grad: np.ndarray, state: dict) -> None:
        raise NotImplementedError

    def register_step_pre_hook(self, hook: Callable) -> RemovableHandle:
        return _register(self._optimizer_step_pre_hooks, hook)

    def register_step_post_hook(self, hook: Callable) -> RemovableHandle:
        return _register(self._optimizer_step_post_hooks, hook)

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

    def load_state_dict(self, state_dict: dict) -> None:
        groups = self.param_groups
        saved_groups = deepcopy(state_dict["param_groups"])
        if len(groups) != len(saved_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        if any(len(g["params"]) != len(s["params"]) for g, s in zip(groups, saved_groups)):
            raise ValueError("loaded state dict contains a parameter group that doesn't match the size of optimizer's "
                             "group")
        id_map = dict(zip(chain.from_iterable(g["params"] for g in saved_groups),
                          chain.from_iterable(g["params"] for g in groups)))
        state: dict = defaultdict(dict)
        for key, value in state_dict["state"].items():
            if key in id_map:
                param = id_map[key]
                state[param] = _cast(param, value)
            else:
                state[key] = value
        for group, saved in zip(groups, saved_groups):
            saved["params"] = group["params"]
            if "param_names" in group and "param_names" not in saved:
                saved["param_names"] = group["param_names"]
        self.state = state
        self.param_groups = saved_groups

    def __repr__(self) -> str:
        text = type(self).__name__ + " ("
        for index, group in enumerate(self.param_groups):
            text += f"\nParameter Group {index}\n"
            for key in sorted(group):
                if key != "params":
                    text += f"    {key}: {group[key]}\n"
        return text + ")"


def _register(hooks: OrderedDict, hook: Callable) -> RemovableHandle:
    key = object()
    hooks[key] = hook
    return RemovableHandle(lambda: hooks.pop(key, None))


def _cast(param: Tensor, value: Any, key: Any = None) -> Any:
    """A loaded state value as the parameter keeps it: tensors in its dtype (but the step count)."""
    if isinstance(value, Tensor):
        return value if key == "step" or not param.is_floating_point() else value.to(dtype=param.dtype)
    if isinstance(value, dict):
        return {k: _cast(param, v, k) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_cast(param, v) for v in value)
    return value


def _check(value: Any, minimum: float, message: str) -> None:
    if not minimum <= value:
        raise ValueError(message.format(value))


def _check_lr(lr: Any, foreach: Any = None, capturable: bool = False) -> None:
    """The optimizers' first checks: a tensor lr of one element (Adam's kin refuse one with foreach
    and without capturable first), then its value."""
    if isinstance(lr, Tensor):
        if foreach and not capturable:
            raise ValueError("lr as a Tensor is not supported for capturable=False and foreach=True")
        if lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
    _check(lr, 0.0, "Invalid learning rate: {}")
