"""torch.nn.utils.prune: masks on a module's parameters, as the Pruning Tutorial uses them.

Pruning `name` moves the parameter to `name_orig`, keeps the mask in the buffer `name_mask` and
sets `name` to their product before each forward, from a forward pre-hook (the method itself)."""
from __future__ import annotations

import numbers
from abc import ABC, abstractmethod
from collections.abc import Iterable
from typing import Any, Iterator, Optional

from ...autograd.ops.common import ones_like, zeros_like
from ...autograd.ops.creation import rand, rand_like
from ...autograd.ops.generate import builtin
from ...autograd.tensor import Tensor
from ..modules.module import Module
from ...torch_code import copied_from_torch
from .convert_parameters import parameters_to_vector

__all__ = ["BasePruningMethod", "PruningContainer", "Identity", "RandomUnstructured", "L1Unstructured",
           "RandomStructured", "LnStructured", "CustomFromMask", "identity", "random_unstructured",
           "l1_unstructured", "random_structured", "ln_structured", "global_unstructured", "custom_from_mask",
           "remove", "is_pruned"]


class BasePruningMethod(ABC):
    """A way to compute a mask; as a forward pre-hook it re-applies the mask before each forward."""

    __module__ = "torch.nn.utils.prune"
    _tensor_name: str

    def __call__(self, module: Module, inputs: Any) -> None:
        setattr(module, self._tensor_name, self.apply_mask(module))

    @abstractmethod
    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        pass

    def apply_mask(self, module: Module) -> Tensor:
        if self._tensor_name is None:
            raise AssertionError(f"Module {module} has to be pruned")
        mask = getattr(module, self._tensor_name + "_mask")
        orig = getattr(module, self._tensor_name + "_orig")
        return mask.to(dtype=orig.dtype) * orig

    @classmethod
    def apply(cls, module: Module, name: str, *args: Any, importance_scores: Optional[Tensor] = None,
              **kwargs: Any) -> "BasePruningMethod":
        method = _composite_method(cls, module, name, *args, **kwargs)
        orig = getattr(module, name)
        if importance_scores is not None:
            if importance_scores.shape != orig.shape:
                raise AssertionError(f"importance_scores should have the same shape as parameter {name} of "
                                     f"{module}, got {importance_scores.shape} vs {orig.shape}")
        else:
            importance_scores = orig
        if not isinstance(method, PruningContainer):
            module.register_parameter(name + "_orig", orig)
            del module._parameters[name]
            default_mask = ones_like(orig)
        else:
            default_mask = getattr(module, name + "_mask").detach().clone()
        try:
            mask = method.compute_mask(importance_scores, default_mask=default_mask)
            module.register_buffer(name + "_mask", mask)
            setattr(module, name, method.apply_mask(module))
            module.register_forward_pre_hook(method)
        except Exception:
            if not isinstance(method, PruningContainer):
                orig = getattr(module, name + "_orig")
                module.register_parameter(name, orig)
                del module._parameters[name + "_orig"]
            raise
        return method

    def prune(self, t: Tensor, default_mask: Optional[Tensor] = None,
              importance_scores: Optional[Tensor] = None) -> Tensor:
        if importance_scores is not None:
            if importance_scores.shape != t.shape:
                raise AssertionError("importance_scores should have the same shape as tensor t, got "
                                     f"{importance_scores.shape} vs {t.shape}")
        else:
            importance_scores = t
        default_mask = default_mask if default_mask is not None else ones_like(t)
        return t * self.compute_mask(importance_scores, default_mask=default_mask)

    def remove(self, module: Module) -> None:
        if self._tensor_name is None:
            raise AssertionError(f"Module {module} has to be pruned before pruning can be removed")
        weight = self.apply_mask(module)
        if hasattr(module, self._tensor_name):
            delattr(module, self._tensor_name)
        orig = module._parameters[self._tensor_name + "_orig"]
        orig.data = weight.data
        del module._parameters[self._tensor_name + "_orig"]
        del module._buffers[self._tensor_name + "_mask"]
        setattr(module, self._tensor_name, orig)


def _composite_method(cls: type, module: Module, name: str, *args: Any, **kwargs: Any) -> BasePruningMethod:
    """The new method, in a PruningContainer with the one already pruning `name` (whose hook goes)."""
    old_method = None
    found = []
    for key, hook in module._forward_pre_hooks.items():
        if isinstance(hook, BasePruningMethod) and hook._tensor_name == name:
            old_method = hook
            found.append(key)
    if len(found) > 1:
        raise AssertionError(f"Avoid adding multiple pruning hooks to the same tensor {name} of module {module}. "
                             "Use a PruningContainer.")
    for key in found:
        del module._forward_pre_hooks[key]
    method = cls(*args, **kwargs)
    method._tensor_name = name
    if isinstance(old_method, PruningContainer):
        old_method.add_pruning_method(method)
        method = old_method
    elif old_method is not None:
        container = PruningContainer(old_method)
        container.add_pruning_method(method)
        method = container
    return method


class PruningContainer(BasePruningMethod):
    """The methods applied one after the other to the same tensor."""

    __module__ = "torch.nn.utils.prune"

    def __init__(self, *args: BasePruningMethod) -> None:
        self._pruning_methods: tuple = ()
        if len(args) == 1:
            self._tensor_name = args[0]._tensor_name
            self.add_pruning_method(args[0])
        else:
            for method in args:
                self.add_pruning_method(method)

    def add_pruning_method(self, method: BasePruningMethod) -> None:
        if not isinstance(method, BasePruningMethod) and method is not None:
            raise TypeError(f"{type(method)} is not a BasePruningMethod subclass")
        if method is not None and self._tensor_name != method._tensor_name:
            raise ValueError("Can only add pruning methods acting on the parameter named "
                             f"'{self._tensor_name}' to PruningContainer {self}. Found '{method._tensor_name}'")
        self._pruning_methods += (method,)

    def __len__(self) -> int:
        return len(self._pruning_methods)

    def __iter__(self) -> Iterator[BasePruningMethod]:
        return iter(self._pruning_methods)

    def __getitem__(self, idx: Any) -> BasePruningMethod:
        return self._pruning_methods[idx]

    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        """The last method's mask computed on the entries (or channels) the earlier ones left."""
        method = self._pruning_methods[-1]
        mask = default_mask.to(dtype=t.dtype)
        if method.PRUNING_TYPE == "unstructured":
            slc: Any = default_mask == 1
        elif method.PRUNING_TYPE == "structured":
            if not hasattr(method, "dim"):
                raise AttributeError('Pruning methods of PRUNING_TYPE "structured" need to have the attribute `dim` '
                                     "defined.")
            n_dims = t.dim()
            dim = method.dim + n_dims if method.dim < 0 else method.dim
            if dim < 0:
                raise IndexError(f"Index is out of bounds for tensor with dimensions {n_dims}")
            keep_channel = default_mask.sum(dim=[d for d in range(n_dims) if d != dim]) != 0
            slc = tuple(keep_channel if d == dim else slice(None) for d in range(n_dims))
        elif method.PRUNING_TYPE == "global":
            slc = (slice(None),) * len(t.shape)
        else:
            raise ValueError(f"Unrecognized PRUNING_TYPE {method.PRUNING_TYPE}")
        partial_mask = method.compute_mask(t[slc], default_mask=default_mask[slc])
        mask[slc] = partial_mask.to(dtype=mask.dtype)
        return mask


class Identity(BasePruningMethod):
    __module__ = "torch.nn.utils.prune"
    PRUNING_TYPE = "unstructured"

    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        return default_mask

    @classmethod
    def apply(cls, module: Module, name: str) -> BasePruningMethod:
        return super().apply(module, name)


class RandomUnstructured(BasePruningMethod):
    __module__ = "torch.nn.utils.prune"
    PRUNING_TYPE = "unstructured"

    def __init__(self, amount: Any) -> None:
        _validate_pruning_amount_init(amount)
        self.amount = amount

    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        tensor_size = t.nelement()
        nparams_toprune = _compute_nparams_toprune(self.amount, tensor_size)
        _validate_pruning_amount(nparams_toprune, tensor_size)
        mask = default_mask.clone()
        if nparams_toprune != 0:
            prob = rand_like(t)
            mask.view(-1)[builtin("torch", "topk")(prob.view(-1), k=nparams_toprune).indices] = 0
        return mask

    @classmethod
    def apply(cls, module: Module, name: str, amount: Any) -> BasePruningMethod:
        return super().apply(module, name, amount=amount)


class L1Unstructured(BasePruningMethod):
    __module__ = "torch.nn.utils.prune"
    PRUNING_TYPE = "unstructured"

    def __init__(self, amount: Any) -> None:
        _validate_pruning_amount_init(amount)
        self.amount = amount

    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        tensor_size = t.nelement()
        nparams_toprune = _compute_nparams_toprune(self.amount, tensor_size)
        _validate_pruning_amount(nparams_toprune, tensor_size)
        mask = default_mask.clone()
        if nparams_toprune != 0:
            mask.view(-1)[builtin("torch", "topk")(t.abs().view(-1), k=nparams_toprune, largest=False).indices] = 0
        return mask

    @classmethod
    def apply(cls, module: Module, name: str, amount: Any,
              importance_scores: Optional[Tensor] = None) -> BasePruningMethod:
        return super().apply(module, name, amount=amount, importance_scores=importance_scores)


def _channel_mask(t: Tensor, dim: int, channels: Any) -> Tensor:
    """Ones on the channels of `dim` that `channels` selects, zeros elsewhere."""
    mask = zeros_like(t)
    mask[tuple(channels if d == dim % t.ndim else slice(None) for d in range(t.ndim))] = 1
    return mask


class RandomStructured(BasePruningMethod):
    __module__ = "torch.nn.utils.prune"
    PRUNING_TYPE = "structured"

    def __init__(self, amount: Any, dim: int = -1) -> None:
        _validate_pruning_amount_init(amount)
        self.amount = amount
        self.dim = dim

    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        _validate_structured_pruning(t)
        _validate_pruning_dim(t, self.dim)
        tensor_size = t.shape[self.dim]
        nparams_toprune = _compute_nparams_toprune(self.amount, tensor_size)
        _validate_pruning_amount(nparams_toprune, tensor_size)
        if nparams_toprune == 0:
            return default_mask
        prob = rand((tensor_size,))
        threshold = builtin("torch", "kthvalue")(prob, k=nparams_toprune).values
        mask = _channel_mask(t, self.dim, prob > threshold)
        mask *= default_mask.to(dtype=mask.dtype)
        return mask

    @classmethod
    def apply(cls, module: Module, name: str, amount: Any, dim: int = -1) -> BasePruningMethod:
        return super().apply(module, name, amount=amount, dim=dim)


class LnStructured(BasePruningMethod):
    __module__ = "torch.nn.utils.prune"
    PRUNING_TYPE = "structured"

    def __init__(self, amount: Any, n: Any, dim: int = -1) -> None:
        _validate_pruning_amount_init(amount)
        self.amount = amount
        self.n = n
        self.dim = dim

    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        _validate_structured_pruning(t)
        _validate_pruning_dim(t, self.dim)
        tensor_size = t.shape[self.dim]
        nparams_toprune = _compute_nparams_toprune(self.amount, tensor_size)
        nparams_tokeep = tensor_size - nparams_toprune
        _validate_pruning_amount(nparams_toprune, tensor_size)
        norm = _compute_norm(t, self.n, self.dim)
        kept = builtin("torch", "topk")(norm, k=nparams_tokeep, largest=True)
        if nparams_toprune == 0:
            return default_mask
        mask = _channel_mask(t, self.dim, kept.indices)
        mask *= default_mask.to(dtype=mask.dtype)
        return mask

    @classmethod
    def apply(cls, module: Module, name: str, amount: Any, n: Any, dim: int,
              importance_scores: Optional[Tensor] = None) -> BasePruningMethod:
        return super().apply(module, name, amount=amount, n=n, dim=dim, importance_scores=importance_scores)


class CustomFromMask(BasePruningMethod):
    __module__ = "torch.nn.utils.prune"
    PRUNING_TYPE = "global"

    def __init__(self, mask: Tensor) -> None:
        self.mask = mask

    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        if default_mask.shape != self.mask.shape:
            raise AssertionError(f"default_mask shape {default_mask.shape} must match self.mask shape "
                                 f"{self.mask.shape}")
        return default_mask * self.mask.to(dtype=default_mask.dtype)

    @classmethod
    def apply(cls, module: Module, name: str, mask: Tensor) -> BasePruningMethod:
        return super().apply(module, name, mask=mask)


def identity(module: Module, name: str) -> Module:
    Identity.apply(module, name)
    return module


def random_unstructured(module: Module, name: str, amount: Any) -> Module:
    RandomUnstructured.apply(module, name, amount)
    return module


def l1_unstructured(module: Module, name: str, amount: Any, importance_scores: Optional[Tensor] = None) -> Module:
    L1Unstructured.apply(module, name, amount=amount, importance_scores=importance_scores)
    return module


def random_structured(module: Module, name: str, amount: Any, dim: int) -> Module:
    RandomStructured.apply(module, name, amount, dim)
    return module


def ln_structured(module: Module, name: str, amount: Any, n: Any, dim: int,
                  importance_scores: Optional[Tensor] = None) -> Module:
    LnStructured.apply(module, name, amount, n, dim, importance_scores=importance_scores)
    return module


def global_unstructured(parameters: Any, pruning_method: type, importance_scores: Optional[dict] = None,
                        **kwargs: Any) -> None:
    """Prune the smallest entries of all the (module, name) pairs taken together."""
    if not isinstance(parameters, Iterable):
        raise TypeError("global_unstructured(): parameters is not an Iterable")
    importance_scores = importance_scores if importance_scores is not None else {}
    if not isinstance(importance_scores, dict):
        raise TypeError("global_unstructured(): importance_scores must be of type dict")
    relevant_importance_scores = parameters_to_vector(
        [importance_scores.get((module, name), getattr(module, name)) for module, name in parameters])
    default_mask = parameters_to_vector(
        [getattr(module, name + "_mask", ones_like(getattr(module, name))) for module, name in parameters])
    container = PruningContainer()
    container._tensor_name = "temp"
    method = pruning_method(**kwargs)
    method._tensor_name = "temp"
    if method.PRUNING_TYPE != "unstructured":
        raise TypeError('Only "unstructured" PRUNING_TYPE supported for the `pruning_method`. Found method '
                        f"{pruning_method} of type {method.PRUNING_TYPE}")
    container.add_pruning_method(method)
    final_mask = container.compute_mask(relevant_importance_scores, default_mask)
    pointer = 0
    for module, name in parameters:
        param = getattr(module, name)
        num_param = param.numel()
        custom_from_mask(module, name, mask=final_mask[pointer:pointer + num_param].view_as(param))
        pointer += num_param


def custom_from_mask(module: Module, name: str, mask: Tensor) -> Module:
    CustomFromMask.apply(module, name, mask)
    return module


@copied_from_torch
def remove(module: Module, name: str) -> Module:
    """Make the pruning permanent: `name` is a parameter again, with the pruned values."""
    for key, hook in module._forward_pre_hooks.items():
        if isinstance(hook, BasePruningMethod) and hook._tensor_name == name:
            hook.remove(module)
            del module._forward_pre_hooks[key]
            return module
    raise ValueError(f"Parameter '{name}' of module {module} has to be pruned before pruning can be removed")


def is_pruned(module: Module) -> bool:
    return any(isinstance(hook, BasePruningMethod) for _, submodule in module.named_modules()
               for hook in submodule._forward_pre_hooks.values())


def _validate_pruning_amount_init(amount: Any) -> None:
    if not isinstance(amount, numbers.Real):
        raise TypeError(f"Invalid type for amount: {amount}. Must be int or float.")
    if (isinstance(amount, numbers.Integral) and amount < 0) or (
            not isinstance(amount, numbers.Integral) and (float(amount) > 1.0 or float(amount) < 0.0)):
        raise ValueError(f"amount={amount} should either be a float in the range [0, 1] or a non-negative integer")


def _validate_pruning_amount(amount: Any, tensor_size: int) -> None:
    if isinstance(amount, numbers.Integral) and amount > tensor_size:
        raise ValueError(f"amount={amount} should be smaller than the number of parameters to prune={tensor_size}")


def _validate_structured_pruning(t: Tensor) -> None:
    shape = t.shape
    if len(shape) <= 1:
        raise ValueError("Structured pruning can only be applied to multidimensional tensors. Found tensor of shape "
                         f"{shape} with {len(shape)} dims")


def _compute_nparams_toprune(amount: Any, tensor_size: int) -> int:
    return amount if isinstance(amount, numbers.Integral) else round(amount * tensor_size)


def _validate_pruning_dim(t: Tensor, dim: int) -> None:
    if dim >= t.dim():
        raise IndexError(f"Invalid index {dim} for tensor of size {t.shape}")


def _compute_norm(t: Tensor, n: Any, dim: int) -> Tensor:
    dims = list(range(t.dim()))
    dims.remove(dims[dim])
    return t.norm(p=n, dim=dims)
