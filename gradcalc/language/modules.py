"""The modules a program can import: torch, torch.nn, torch.nn.functional, torch.autograd.
Nothing else: gradcalc never imports host modules on a program's behalf."""
from __future__ import annotations

import math
from typing import Any, Callable, Iterable

from . import sandbox
from .builtins import Builtin
from ..display.names import torch_class

# The functions torch writes in Python (torch/functional.py); its other functions are C built-ins.
_PYTHON_FUNCTIONS = frozenset({
    "atleast_1d", "atleast_2d", "atleast_3d", "broadcast_shapes", "broadcast_tensors", "cartesian_prod",
    "block_diag", "cdist", "chain_matmul", "einsum", "istft", "lu", "norm", "meshgrid", "pca_lowrank", "split",
    "stft", "svd_lowrank", "tensordot", "unique", "unique_consecutive", "unravel_index",
})


# torch's functions whose argument parser, given nothing but a non-tensor input, names that input;
# with more arguments several overloads may fit, and it lists them instead
_TENSOR_INPUT = frozenset({
    "abs", "absolute", "acos", "allclose", "amax", "amin", "argmax", "argmin", "argsort", "asin", "atan", "atan2",
    "bernoulli", "ceil", "chunk", "clone", "conj", "cos", "cosh", "count_nonzero", "cumprod", "cumsum", "detach",
    "diag", "dot", "equal", "erf", "exp", "exp2", "expm1", "flatten", "flip", "floor", "frac", "gather", "ger",
    "imag", "isclose", "isnan", "log", "log10", "log1p", "log2", "logical_and", "logical_not", "logical_or",
    "logsumexp", "matmul", "max", "maximum", "mean", "median", "min", "minimum", "mul", "mv", "nan_to_num",
    "nansum", "neg", "negative", "outer", "permute", "prod", "real", "reciprocal", "relu", "reshape", "roll",
    "round", "rsqrt", "select", "sgn", "sigmoid", "sign", "sin", "sinh", "sort", "sqrt", "square", "squeeze",
    "sum", "t", "tan", "tanh", "topk", "transpose", "tril", "triu", "trunc", "unbind", "unsqueeze",
})


def _checking_input(name: str, function: Callable) -> Callable:
    """`function` refusing a lone non-tensor input as torch's argument parser does."""
    from ..nn.functional import _require_tensor

    def call(*args: Any, **kwargs: Any) -> Any:
        if len(args) == 1 and not kwargs:
            _require_tensor(args[0], name, "input", 1)
        return function(*args, **kwargs)

    return call


@sandbox.allow
@torch_class("module")
class Namespace:
    """A module as a program sees it: named members, nothing of the host behind them."""

    def __init__(self, name: str, members: dict) -> None:
        self.__dict__.update(members)
        object.__setattr__(self, "_module_name", name)

    def __getattr__(self, name: str) -> Any:
        raise AttributeError(f"module '{self._module_name}' has no attribute '{name}'")

    def __repr__(self) -> str:
        return f"<module '{self._module_name}'>"

    def _members(self) -> dict:
        return {k: v for k, v in self.__dict__.items() if not k.startswith("_")}


_MODULES: dict = {}


def is_tensor(obj: Any) -> bool:
    """torch.is_tensor, a Python function in torch: `<function is_tensor at 0x...>`."""
    from ..autograd.tensor import Tensor

    return isinstance(obj, Tensor)


@torch_class("torch.autograd.variable.Variable")
class Variable:
    """torch.autograd.Variable, kept by PyTorch for old code: calling it gives a tensor on the
    data's storage, detached from any graph."""

    def __new__(cls, data: Any, requires_grad: bool = False, volatile: bool = False) -> Any:
        return data.detach().requires_grad_(requires_grad)


def _build() -> dict:
    from ..autograd import api, creation, dtypes, functions as ops, grad_mode, random
    from ..autograd.engine import Node
    from ..autograd.tensor import Device, RemovableHandle, Size, Tensor
    from ..display import tensor_repr
    from ..nn import functional, init, modules, parameter, utils
    from .. import optim
    from ..autograd import functional as autograd_functional

    for readable in (Size, dtypes.DType, Device, ops.ReturnTypes, RemovableHandle, random.Generator,
                     grad_mode._GradMode):
        sandbox.allow(readable)
    sandbox.allow(Node, only={"next_functions", "name", "metadata", "register_hook", "variable"})
    sandbox.allow(Tensor, writable=True, c_base="torch._C.TensorBase")
    sandbox.allow(modules.Module, writable=True)
    sandbox.allow(optim.Optimizer)

    functional_ns = Namespace("torch.nn.functional", {name: getattr(functional, name) for name in functional.__all__})
    init_ns = Namespace("torch.nn.init", {name: getattr(init, name) for name in init.__all__})
    nn_members = {name: getattr(modules, name) for name in modules.__all__}
    utils_ns = Namespace("torch.nn.utils", {name: getattr(utils, name) for name in utils.__all__})
    nn_members.update(Parameter=parameter.Parameter, functional=functional_ns, init=init_ns, utils=utils_ns)
    nn_ns = Namespace("torch.nn", nn_members)
    optim_ns = Namespace("torch.optim", optim.optimizers())
    autograd_functional_ns = Namespace("torch.autograd.functional",
                                       {name: getattr(autograd_functional, name) for name in autograd_functional.__all__})

    grad_modes = dict(no_grad=grad_mode.no_grad, enable_grad=grad_mode.enable_grad,
                      set_grad_enabled=grad_mode.set_grad_enabled, inference_mode=grad_mode.inference_mode)
    autograd_ns = Namespace("torch.autograd", dict(grad=api.grad, backward=api.backward, **grad_modes,
                                                   set_detect_anomaly=grad_mode.set_detect_anomaly,
                                                   detect_anomaly=grad_mode.set_detect_anomaly,
                                                   functional=autograd_functional_ns, Variable=Variable))
    cuda_ns = Namespace("torch.cuda", dict(is_available=lambda: False, device_count=lambda: 0))

    functions = {name: getattr(creation, name) for name in creation.__all__}
    functions.update({name: _checking_input(name, getattr(ops, name)) if name in _TENSOR_INPUT else getattr(ops, name)
                      for name in ops.TORCH_FUNCTIONS})
    functions.update(
        promote_types=dtypes.promote_types, result_type=lambda a, b: dtypes.result_type([a, b]),
        is_floating_point=lambda t: t.is_floating_point(), is_complex=lambda t: t.is_complex(),
        numel=lambda t: t.numel())
    # shown as torch shows them: `<built-in method exp of type object at 0x...>`, `<function split at 0x...>`
    torch: dict = {name: function if name in _PYTHON_FUNCTIONS else Builtin(name, function, owner="type")
                   for name, function in functions.items()}
    torch.update(dtypes.ALIASES)
    torch.update(grad_modes)
    torch.update(
        Tensor=Tensor, Size=Size, device=Device, dtype=dtypes.DType, is_tensor=is_tensor,
        is_grad_enabled=Builtin("is_grad_enabled", grad_mode.is_grad_enabled),
        is_inference_mode_enabled=Builtin("is_inference_mode_enabled", grad_mode.is_inference_mode_enabled),
        get_default_dtype=Builtin("get_default_dtype", dtypes.get_default_dtype),
        set_default_dtype=dtypes.set_default_dtype, set_printoptions=tensor_repr.set_printoptions,
        manual_seed=random.manual_seed, seed=random.seed, initial_seed=random.initial_seed,
        autograd=autograd_ns, nn=nn_ns, cuda=cuda_ns, optim=optim_ns,
        # torch's math constants (tutorials write torch.pi where they cannot import math)
        pi=math.pi, e=math.e, inf=math.inf, nan=math.nan,
    )
    torch_ns = Namespace("torch", torch)
    return {"torch": torch_ns, "torch.nn": nn_ns, "torch.nn.functional": functional_ns, "torch.nn.init": init_ns,
            "torch.autograd": autograd_ns, "torch.cuda": cuda_ns, "torch.optim": optim_ns,
            "torch.nn.utils": utils_ns, "torch.autograd.functional": autograd_functional_ns}


def modules() -> dict:
    if not _MODULES:
        _MODULES.update(_build())
    return _MODULES


def import_module(name: str) -> Namespace:
    try:
        return modules()[name]
    except KeyError:
        raise ModuleNotFoundError(f"No module named '{name}'") from None


def import_from(module_name: str, names: Iterable[tuple]) -> list:
    """The (binding, value) pairs of `from module_name import name as asname, ...`."""
    module = import_module(module_name)
    bound = []
    for name, asname in names:
        if name == "*":
            bound.extend(module._members().items())
            continue
        submodule = modules().get(f"{module_name}.{name}")
        value = submodule if submodule is not None else module.__dict__.get(name)
        if value is None or name.startswith("_"):
            raise ImportError(f"cannot import name '{name}' from '{module_name}' (unknown location)")
        bound.append((asname or name, value))
    return bound
