"""torch.nn's modules: Module with its registration of parameters and submodules, Linear,
Sequential, the activations and the regression losses, each printing as PyTorch prints it."""
from __future__ import annotations

import operator
from collections import OrderedDict
from typing import Any, Callable, Iterator, Optional

import numpy as np

from ..autograd import dtypes, grad_mode, random
from ..autograd.dtypes import DType
from ..autograd.tensor import ONLY_FLOAT_GRAD_MESSAGE, Tensor, check_device, to_arguments
from ..warnings import warn
from . import functional as F
from .init import ZERO_ELEMENT_WARNING
from .parameter import Parameter

__all__ = ["Module", "Linear", "Identity", "Sequential", "ReLU", "LeakyReLU", "Sigmoid", "Tanh", "Softmax",
           "LogSoftmax", "Flatten", "MSELoss", "L1Loss", "BCELoss", "BCEWithLogitsLoss", "NLLLoss", "CrossEntropyLoss",
           "GELU", "SiLU", "Softplus", "ELU", "Hardtanh", "ReLU6", "Dropout", "ModuleList"]


def typename(obj: Any) -> str:
    """torch.typename: how PyTorch names a value in its type errors."""
    if isinstance(obj, Tensor):
        return obj.type()
    module = getattr(obj, "__module__", "") or ""
    if hasattr(obj, "__qualname__"):
        qualname = obj.__qualname__
    elif hasattr(obj, "__name__"):
        qualname = obj.__name__
    else:
        module = type(obj).__module__ or ""
        qualname = type(obj).__qualname__
    return qualname if module in ("", "builtins") else f"{module}.{qualname}"


def _add_indent(text: str, spaces: int) -> str:
    lines = text.split("\n")
    if len(lines) == 1:
        return text
    return lines[0] + "\n" + "\n".join(" " * spaces + line for line in lines[1:])


class Module:
    """Parameters and submodules are kept in registries filled by attribute assignment, so
    that `parameters()`, `state_dict()` and the repr list them in the order they were set."""

    __module__ = "torch.nn.modules.module"

    def __init__(self) -> None:
        object.__setattr__(self, "training", True)
        object.__setattr__(self, "_parameters", {})
        object.__setattr__(self, "_modules", {})

    # -------------------------------------------------------------- attributes

    def __getattr__(self, name: str) -> Any:
        # reached only when ordinary lookup fails: the registries come next
        registries = self.__dict__
        for registry in ("_parameters", "_modules"):
            if registry in registries and name in registries[registry]:
                return registries[registry][name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __setattr__(self, name: str, value: Any) -> None:
        # a subclass whose __init__ forgot super().__init__() has no registries yet
        params, modules = self.__dict__.get("_parameters"), self.__dict__.get("_modules")
        if isinstance(value, Parameter):
            if params is None:
                raise AttributeError("cannot assign parameters before Module.__init__() call")
            self.__dict__.pop(name, None)
            modules.pop(name, None)
            params[name] = value
        elif params is not None and name in params:
            if value is not None:
                raise TypeError(f"cannot assign '{typename(value)}' as parameter '{name}' (torch.nn.Parameter or "
                                "None expected)")
            params[name] = None
        elif isinstance(value, Module):
            if modules is None:
                raise AttributeError("cannot assign module before Module.__init__() call")
            self.__dict__.pop(name, None)
            params.pop(name, None)
            modules[name] = value
        elif modules is not None and name in modules:
            if value is not None:
                raise TypeError(f"cannot assign '{typename(value)}' as child module '{name}' (torch.nn.Module or "
                                "None expected)")
            modules[name] = None
        else:
            object.__setattr__(self, name, value)

    def __delattr__(self, name: str) -> None:
        for registry in (self._parameters, self._modules):
            if name in registry:
                del registry[name]
                return
        object.__delattr__(self, name)

    def __dir__(self) -> list:
        return sorted(set(dir(type(self))) | set(self.__dict__) | set(self._parameters) | set(self._modules))

    def register_parameter(self, name: str, param: Optional[Parameter]) -> None:
        if not isinstance(name, str):
            raise TypeError(f"parameter name should be a string. Got {typename(name)}")
        if "." in name:
            raise KeyError("parameter name can't contain \".\"")
        if name == "":
            raise KeyError("parameter name can't be empty string \"\"")
        if hasattr(self, name) and name not in self._parameters:
            raise KeyError(f"attribute '{name}' already exists")
        if param is not None and not isinstance(param, Parameter):
            raise TypeError(f"cannot assign '{typename(param)}' object to parameter '{name}' (torch.nn.Parameter "
                            "or None required)")
        self._parameters[name] = param

    def add_module(self, name: str, module: Optional["Module"]) -> None:
        if module is not None and not isinstance(module, Module):
            raise TypeError(f"{typename(module)} is not a Module subclass")
        if not isinstance(name, str):
            raise TypeError(f"module name should be a string. Got {typename(name)}")
        if hasattr(self, name) and name not in self._modules:
            raise KeyError(f"attribute '{name}' already exists")
        if "." in name:
            raise KeyError(f"module name can't contain \".\", got: {name}")
        if name == "":
            raise KeyError("module name can't be empty string \"\"")
        self._modules[name] = module

    register_module = add_module

    # -------------------------------------------------------------- calling

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.forward(*args, **kwargs)

    def forward(self, *input: Any) -> Any:
        raise NotImplementedError(f"Module [{type(self).__name__}] is missing the required \"forward\" function")

    # -------------------------------------------------------------- traversal (generators, as in torch)

    def named_modules(self, memo: Optional[set] = None, prefix: str = "",
                      remove_duplicate: bool = True) -> Iterator[tuple]:
        if memo is None:
            memo = set()
        if self in memo:
            return
        if remove_duplicate:
            memo.add(self)
        yield prefix, self
        for name, module in self._modules.items():
            if module is None:
                continue
            yield from module.named_modules(memo, prefix + ("." if prefix else "") + name, remove_duplicate)

    def modules(self) -> Iterator["Module"]:
        for _, module in self.named_modules():
            yield module

    def named_children(self) -> Iterator[tuple]:
        memo = set()
        for name, module in self._modules.items():
            if module is not None and module not in memo:
                memo.add(module)
                yield name, module

    def children(self) -> Iterator["Module"]:
        for _, module in self.named_children():
            yield module

    def named_parameters(self, prefix: str = "", recurse: bool = True,
                         remove_duplicate: bool = True) -> Iterator[tuple]:
        owners = self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate) if recurse else [(prefix, self)]
        memo = set()
        for owner_prefix, owner in owners:
            for name, param in owner._parameters.items():
                if param is None or param in memo:
                    continue
                if remove_duplicate:
                    memo.add(param)
                yield owner_prefix + ("." if owner_prefix else "") + name, param

    def parameters(self, recurse: bool = True) -> Iterator[Parameter]:
        for _, param in self.named_parameters(recurse=recurse):
            yield param

    def apply(self, fn: Callable[["Module"], Any]) -> "Module":
        for module in self.children():
            module.apply(fn)
        fn(self)
        return self

    # -------------------------------------------------------------- modes and gradients

    def train(self, mode: bool = True) -> "Module":
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        self.training = mode
        for module in self.children():
            module.train(mode)
        return self

    def eval(self) -> "Module":
        return self.train(False)

    def requires_grad_(self, requires_grad: bool = True) -> "Module":
        for param in self.parameters():
            param.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none: bool = True) -> None:
        for param in self.parameters():
            grad = param.grad
            if grad is None:
                continue
            if set_to_none:
                param.grad = None
                continue
            if grad.grad_fn is not None:
                grad.detach_()
            else:
                grad.requires_grad_(False)
            grad.zero_()

    # -------------------------------------------------------------- dtype and device

    def to(self, *args: Any, **kwargs: Any) -> "Module":
        dtype, _ = to_arguments(args, kwargs)
        if dtype is None:
            return self
        if dtype.category < dtypes.FLOATING:
            raise TypeError(f"nn.Module.to only accepts floating point or complex dtypes, but got desired "
                            f"dtype={dtype}")
        return self._convert(dtype)

    def float(self) -> "Module":
        return self._convert(dtypes.float32)

    def double(self) -> "Module":
        return self._convert(dtypes.float64)

    def cpu(self) -> "Module":
        return self

    def cuda(self, device: Any = None) -> "Module":
        return self.to("cuda")

    def _convert(self, dtype: DType) -> "Module":
        # the Parameter objects stay the same; their data (and grads) change dtype, as in torch
        for param in self.parameters():
            if param.dtype.category >= dtypes.FLOATING and param.dtype is not dtype:
                with grad_mode.no_grad():
                    param.data = param.to(dtype)
                    if param.grad is not None:
                        param.grad = param.grad.to(dtype)
        return self

    # -------------------------------------------------------------- state

    def state_dict(self, destination: Optional[dict] = None, prefix: str = "", keep_vars: bool = False) -> dict:
        if destination is None:
            destination = OrderedDict()
        for name, param in self._parameters.items():
            if param is not None:
                destination[prefix + name] = param if keep_vars else param.detach()
        for name, module in self._modules.items():
            if module is not None:
                module.state_dict(destination=destination, prefix=prefix + name + ".", keep_vars=keep_vars)
        return destination

    # -------------------------------------------------------------- repr

    def extra_repr(self) -> str:
        return ""

    def _get_name(self) -> str:
        return type(self).__name__

    def __repr__(self) -> str:
        extra = self.extra_repr()
        extra_lines = extra.split("\n") if extra else []
        child_lines = [f"({name}): {_add_indent(repr(module), 2)}" for name, module in self._modules.items()]
        lines = extra_lines + child_lines
        text = self._get_name() + "("
        if lines:
            if len(extra_lines) == 1 and not child_lines:
                text += extra_lines[0]
            else:
                text += "\n  " + "\n  ".join(lines) + "\n"
        return text + ")"


# ------------------------------------------------------------------ layers

def _check_linear_sizes(out_features: Any, in_features: Any) -> None:
    """The errors torch.empty((out_features, in_features)) gives."""
    for position, size in ((1, out_features), (2, in_features)):
        if not isinstance(size, int):
            raise TypeError(f"empty(): argument 'size' failed to unpack the object at pos {position} with error "
                            f"\"type must be tuple of ints,but got {type(size).__name__}\"")
    for size in (out_features, in_features):
        if size < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {size}: "
                               f"[{out_features}, {in_features}]")


class Linear(Module):
    """y = x W^T + b, initialised as PyTorch initialises it, draw for draw."""

    __module__ = "torch.nn.modules.linear"

    def __init__(self, in_features: int, out_features: int, bias: bool = True, device: Any = None,
                 dtype: Optional[DType] = None) -> None:
        super().__init__()
        check_device(device)
        _check_linear_sizes(out_features, in_features)
        dtype = dtype or dtypes.get_default_dtype()
        if dtype.category < dtypes.FLOATING:
            raise RuntimeError(ONLY_FLOAT_GRAD_MESSAGE)
        self.in_features = in_features
        self.out_features = out_features
        # as torch: uninitialised parameters, then reset_parameters draws into them in place
        self.weight = Parameter(Tensor._make(np.zeros((out_features, in_features), dtype._numpy), dtype))
        if bias:
            self.bias = Parameter(Tensor._make(np.zeros((out_features,), dtype._numpy), dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """kaiming_uniform_ on the weight (skipped, with a warning, when it has no elements),
        then uniform_ on the bias, from PyTorch's random stream."""
        weight, bias = random.linear_init(self.in_features, self.out_features, self.bias is not None,
                                          self.weight.dtype.name)
        with grad_mode.no_grad():
            if self.weight.numel():
                self.weight.copy_(Tensor._make(weight, self.weight.dtype))
            else:
                warn("UserWarning", ZERO_ELEMENT_WARNING)
            if bias is not None:
                self.bias.copy_(Tensor._make(bias, self.bias.dtype))

    def forward(self, input: Tensor) -> Tensor:
        return F.linear(input, self.weight, self.bias)

    def extra_repr(self) -> str:
        return f"in_features={self.in_features}, out_features={self.out_features}, bias={self.bias is not None}"


class Identity(Module):
    __module__ = "torch.nn.modules.linear"

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__()

    def forward(self, input: Any) -> Any:
        return input


class Flatten(Module):
    __module__ = "torch.nn.modules.flatten"

    def __init__(self, start_dim: int = 1, end_dim: int = -1) -> None:
        super().__init__()
        self.start_dim = start_dim
        self.end_dim = end_dim

    def forward(self, input: Tensor) -> Tensor:
        return input.flatten(self.start_dim, self.end_dim)

    def extra_repr(self) -> str:
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"


class _ModuleSequence(Module):
    """What Sequential and ModuleList share: submodules in order, named "0", "1", ..."""

    def _index(self, index: Any) -> str:
        size = len(self)
        position = operator.index(index)
        if not -size <= position < size:
            raise IndexError(f"index {position} is out of range")
        return list(self._modules)[position % size]

    def __setitem__(self, index: Any, module: Module) -> None:
        setattr(self, self._index(index), module)

    def __delitem__(self, index: Any) -> None:
        if isinstance(index, slice):
            for name in list(self._modules)[index]:
                del self._modules[name]
        else:
            del self._modules[self._index(index)]
        # the names stay "0", "1", ... in order
        items = list(self._modules.values())
        self._modules.clear()
        for position, module in enumerate(items):
            self._modules[str(position)] = module

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[Module]:
        return iter(self._modules.values())

    def append(self, module: Module) -> "_ModuleSequence":
        self.add_module(str(len(self)), module)
        return self

    def extend(self, modules: Any) -> "_ModuleSequence":
        for module in modules:
            self.append(module)
        return self


class Sequential(_ModuleSequence):
    """Modules run in order, registered under the names "0", "1", ..."""

    __module__ = "torch.nn.modules.container"

    def __init__(self, *args: Module) -> None:
        super().__init__()
        for index, module in enumerate(args):
            self.add_module(str(index), module)

    @classmethod
    def _from_items(cls, items: list) -> "Sequential":
        # a slice keeps the original names, as torch's does
        sequential = cls()
        for name, module in items:
            sequential.add_module(name, module)
        return sequential

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, slice):
            return Sequential._from_items(list(self._modules.items())[index])
        return self._modules[self._index(index)]

    def forward(self, input: Any) -> Any:
        for module in self:
            input = module(input)
        return input


# ------------------------------------------------------------------ activations

class ReLU(Module):
    __module__ = "torch.nn.modules.activation"

    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.relu(input, inplace=self.inplace)

    def extra_repr(self) -> str:
        return "inplace=True" if self.inplace else ""


class LeakyReLU(Module):
    __module__ = "torch.nn.modules.activation"

    def __init__(self, negative_slope: float = 0.01, inplace: bool = False) -> None:
        super().__init__()
        self.negative_slope = negative_slope
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.leaky_relu(input, self.negative_slope, self.inplace)

    def extra_repr(self) -> str:
        return f"negative_slope={self.negative_slope}" + (", inplace=True" if self.inplace else "")


class Sigmoid(Module):
    __module__ = "torch.nn.modules.activation"

    def forward(self, input: Tensor) -> Tensor:
        return F.sigmoid(input)


class Tanh(Module):
    __module__ = "torch.nn.modules.activation"

    def forward(self, input: Tensor) -> Tensor:
        return F.tanh(input)


class Softmax(Module):
    __module__ = "torch.nn.modules.activation"

    def __init__(self, dim: Optional[int] = None) -> None:
        super().__init__()
        self.dim = dim

    def forward(self, input: Tensor) -> Tensor:
        return F.softmax(input, self.dim)

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


class LogSoftmax(Module):
    __module__ = "torch.nn.modules.activation"

    def __init__(self, dim: Optional[int] = None) -> None:
        super().__init__()
        self.dim = dim

    def forward(self, input: Tensor) -> Tensor:
        return F.log_softmax(input, self.dim)

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


# ------------------------------------------------------------------ losses

class _Loss(Module):
    """The legacy size_average/reduce arguments come first: `nn.L1Loss(pred, target)` passes
    tensors there, whose truth value PyTorch then asks for."""

    __module__ = "torch.nn.modules.loss"

    def __init__(self, size_average: Any = None, reduce: Any = None, reduction: str = "mean") -> None:
        super().__init__()
        if size_average is not None or reduce is not None:
            self.reduction = F.legacy_reduction(size_average, reduce)
        else:
            self.reduction = reduction


class MSELoss(_Loss):
    __module__ = "torch.nn.modules.loss"

    def __init__(self, size_average: Any = None, reduce: Any = None, reduction: str = "mean") -> None:
        super().__init__(size_average, reduce, reduction)

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.mse_loss(input, target, reduction=self.reduction)


class L1Loss(_Loss):
    __module__ = "torch.nn.modules.loss"

    def __init__(self, size_average: Any = None, reduce: Any = None, reduction: str = "mean") -> None:
        super().__init__(size_average, reduce, reduction)

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.l1_loss(input, target, reduction=self.reduction)


class _WeightedLoss(_Loss):
    """A loss with an optional weight per element or class (a buffer in torch, not a parameter)."""

    __module__ = "torch.nn.modules.loss"

    def __init__(self, weight: Optional[Tensor] = None, size_average: Any = None, reduce: Any = None,
                 reduction: str = "mean") -> None:
        super().__init__(size_average, reduce, reduction)
        self.weight = weight


class BCELoss(_WeightedLoss):
    __module__ = "torch.nn.modules.loss"

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.binary_cross_entropy(input, target, weight=self.weight, reduction=self.reduction)


class BCEWithLogitsLoss(_Loss):
    __module__ = "torch.nn.modules.loss"

    def __init__(self, weight: Optional[Tensor] = None, size_average: Any = None, reduce: Any = None,
                 reduction: str = "mean", pos_weight: Optional[Tensor] = None) -> None:
        super().__init__(size_average, reduce, reduction)
        self.weight = weight
        self.pos_weight = pos_weight

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.binary_cross_entropy_with_logits(input, target, self.weight, pos_weight=self.pos_weight,
                                                  reduction=self.reduction)


class NLLLoss(_WeightedLoss):
    __module__ = "torch.nn.modules.loss"

    def __init__(self, weight: Optional[Tensor] = None, size_average: Any = None, ignore_index: int = -100,
                 reduce: Any = None, reduction: str = "mean") -> None:
        super().__init__(weight, size_average, reduce, reduction)
        self.ignore_index = ignore_index

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.nll_loss(input, target, weight=self.weight, ignore_index=self.ignore_index, reduction=self.reduction)


class CrossEntropyLoss(_WeightedLoss):
    __module__ = "torch.nn.modules.loss"

    def __init__(self, weight: Optional[Tensor] = None, size_average: Any = None, ignore_index: int = -100,
                 reduce: Any = None, reduction: str = "mean", label_smoothing: float = 0.0) -> None:
        super().__init__(weight, size_average, reduce, reduction)
        self.ignore_index = ignore_index
        self.label_smoothing = label_smoothing

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.cross_entropy(input, target, weight=self.weight, ignore_index=self.ignore_index,
                               reduction=self.reduction, label_smoothing=self.label_smoothing)


# ------------------------------------------------------------------ more activations, dropout, ModuleList

class GELU(Module):
    __module__ = "torch.nn.modules.activation"

    def __init__(self, approximate: str = "none") -> None:
        super().__init__()
        self.approximate = approximate

    def forward(self, input: Tensor) -> Tensor:
        return F.gelu(input, approximate=self.approximate)

    def extra_repr(self) -> str:
        return f"approximate={self.approximate!r}"


class SiLU(Module):
    __module__ = "torch.nn.modules.activation"

    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.silu(input, inplace=self.inplace)

    def extra_repr(self) -> str:
        return "inplace=True" if self.inplace else ""


class Softplus(Module):
    __module__ = "torch.nn.modules.activation"

    def __init__(self, beta: float = 1.0, threshold: float = 20.0) -> None:
        super().__init__()
        self.beta = beta
        self.threshold = threshold

    def forward(self, input: Tensor) -> Tensor:
        return F.softplus(input, self.beta, self.threshold)

    def extra_repr(self) -> str:
        return f"beta={self.beta}, threshold={self.threshold}"


class ELU(Module):
    __module__ = "torch.nn.modules.activation"

    def __init__(self, alpha: float = 1.0, inplace: bool = False) -> None:
        super().__init__()
        self.alpha = alpha
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.elu(input, self.alpha, self.inplace)

    def extra_repr(self) -> str:
        return f"alpha={self.alpha}" + (", inplace=True" if self.inplace else "")


class Hardtanh(Module):
    __module__ = "torch.nn.modules.activation"

    def __init__(self, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False) -> None:
        super().__init__()
        self.min_val = min_val
        self.max_val = max_val
        self.inplace = inplace
        if self.max_val <= self.min_val:
            raise AssertionError()

    def forward(self, input: Tensor) -> Tensor:
        return F.hardtanh(input, self.min_val, self.max_val, self.inplace)

    def extra_repr(self) -> str:
        return f"min_val={self.min_val}, max_val={self.max_val}" + (", inplace=True" if self.inplace else "")


class ReLU6(Hardtanh):
    __module__ = "torch.nn.modules.activation"

    def __init__(self, inplace: bool = False) -> None:
        super().__init__(0.0, 6.0, inplace)

    def extra_repr(self) -> str:
        return "inplace=True" if self.inplace else ""


class Dropout(Module):
    __module__ = "torch.nn.modules.dropout"

    def __init__(self, p: float = 0.5, inplace: bool = False) -> None:
        super().__init__()
        if p < 0 or p > 1:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p = p
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        # the mode set by .train() / .eval() decides whether anything is dropped
        return F.dropout(input, self.p, self.training, self.inplace)

    def extra_repr(self) -> str:
        return f"p={self.p}, inplace={self.inplace}"


class ModuleList(_ModuleSequence):
    """A list of submodules, registered under the names "0", "1", ...; it has no forward."""

    __module__ = "torch.nn.modules.container"

    def __init__(self, modules: Any = None) -> None:
        super().__init__()
        if modules is not None:
            self.extend(modules)

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, slice):
            return ModuleList(list(self._modules.values())[index])
        return self._modules[self._index(index)]

    def insert(self, index: int, module: Module) -> None:
        items = list(self._modules.values())
        items.insert(index, module)
        self._modules.clear()
        for position, item in enumerate(items):
            self.add_module(str(position), item)

    def __repr__(self) -> str:
        # runs of equal entries print once, as "(0-2): 3 x Linear(...)", as torch's ModuleList does
        reprs = [repr(module) for module in self]
        if not reprs:
            return self._get_name() + "()"
        runs: list = []
        for index, text in enumerate(reprs):
            if runs and runs[-1][2] == text:
                runs[-1][1] = index
            else:
                runs.append([index, index, text])
        lines = []
        for start, end, text in runs:
            label = f"({start})" if start == end else f"({start}-{end})"
            count = "" if start == end else f"{end - start + 1} x "
            lines.append(_add_indent(f"{label}: {count}{text}", 2))
        return self._get_name() + "(\n  " + "\n  ".join(lines) + "\n)"
