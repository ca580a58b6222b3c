"""The torch modules a program imports: torch, torch.nn, torch.nn.functional, torch.autograd, ...
as member tables; the session makes each into a Namespace of its own (see __init__.py)."""
from __future__ import annotations

import math
from typing import Any, Callable

from ..builtins import Builtin
from ...display.names import torch_class
from .namespace import Submodule

VERSION = "2.13.0+cpu"

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
    from ...nn.functional import _require_tensor

    def call(*args: Any, **kwargs: Any) -> Any:
        if len(args) == 1 and not kwargs:
            _require_tensor(args[0], name, "input", 1)
        return function(*args, **kwargs)

    return call


def is_tensor(obj: Any) -> bool:
    """torch.is_tensor, a Python function in torch: `<function is_tensor at 0x...>`."""
    from ...autograd.tensor import Tensor

    return isinstance(obj, Tensor)


@torch_class("torch.autograd.variable.Variable")
class Variable:
    """torch.autograd.Variable, kept by PyTorch for old code: calling it gives a tensor on the
    data's storage, detached from any graph."""

    def __new__(cls, data: Any, requires_grad: bool = False, volatile: bool = False) -> Any:
        return data.detach().requires_grad_(requires_grad)


def templates() -> dict:
    """The members of torch and of each of its modules, submodules named by Submodule."""
    from ...autograd import api, creation, dtypes, functions as ops, grad_mode, random
    from ...autograd.tensor import Device, Size, Tensor
    from ...display import tensor_repr
    from ...nn import functional, init, modules, parameter, utils
    from ... import optim
    from ...autograd import functional as autograd_functional

    nn = {name: getattr(modules, name) for name in modules.__all__}
    nn.update(Parameter=parameter.Parameter, functional=Submodule("torch.nn.functional"),
              init=Submodule("torch.nn.init"), utils=Submodule("torch.nn.utils"))

    grad_modes = dict(no_grad=grad_mode.no_grad, enable_grad=grad_mode.enable_grad,
                      set_grad_enabled=grad_mode.set_grad_enabled, inference_mode=grad_mode.inference_mode)
    autograd = dict(grad=api.grad, backward=api.backward, **grad_modes,
                    set_detect_anomaly=grad_mode.set_detect_anomaly, detect_anomaly=grad_mode.set_detect_anomaly,
                    functional=Submodule("torch.autograd.functional"), Variable=Variable)

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
        autograd=Submodule("torch.autograd"), nn=Submodule("torch.nn"), cuda=Submodule("torch.cuda"),
        optim=Submodule("torch.optim"), backends=Submodule("torch.backends"), __version__=VERSION,
        accelerator=Submodule("torch.accelerator"),
        # torch's math constants (tutorials write torch.pi where they cannot import math)
        pi=math.pi, e=math.e, inf=math.inf, nan=math.nan,
    )
    return {
        "torch": torch, "torch.nn": nn, "torch.autograd": autograd,
        "torch.nn.functional": {name: getattr(functional, name) for name in functional.__all__},
        "torch.nn.init": {name: getattr(init, name) for name in init.__all__},
        "torch.nn.utils": {name: getattr(utils, name) for name in utils.__all__},
        "torch.optim": optim.optimizers(),
        "torch.autograd.functional": {name: getattr(autograd_functional, name)
                                      for name in autograd_functional.__all__},
        "torch.cuda": dict(is_available=Builtin("is_available", lambda: False),
                           device_count=Builtin("device_count", lambda: 0)),
        # seeded scripts set these; a CPU build has no cuDNN and no MPS
        # a CPU build has no accelerator (pytorch/examples ask before choosing the device)
        "torch.accelerator": dict(is_available=Builtin("is_available", lambda: False),
                                  current_accelerator=Builtin("current_accelerator",
                                                              lambda check_available=False: None),
                                  device_count=Builtin("device_count", lambda: 0)),
        "torch.backends": dict(cudnn=Submodule("torch.backends.cudnn"), mps=Submodule("torch.backends.mps")),
        "torch.backends.cudnn": dict(deterministic=False, benchmark=False, enabled=True,
                                     is_available=Builtin("is_available", lambda: False)),
        "torch.backends.mps": dict(is_available=Builtin("is_available", lambda: False),
                                   is_built=Builtin("is_built", lambda: False)),
    }
