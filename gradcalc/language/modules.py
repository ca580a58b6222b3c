"""The modules a program can import: torch, torch.nn, torch.nn.functional, torch.autograd.
Nothing else: gradcalc never imports host modules on a program's behalf."""
from __future__ import annotations

from typing import Any, Iterable

from . import sandbox
from ..display.names import torch_class


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


def _build() -> dict:
    from ..autograd import dtypes, grad_mode, random
    from ..autograd.engine import Node
    from ..autograd.ops import ReturnTypes, info, legacy, torch_namespaces
    from ..autograd.tensor import Device, RemovableHandle, Size, Tensor
    from ..nn import functional, init, modules, parameter, utils
    from .. import optim
    from ..autograd import functional as autograd_functional

    for readable in (Size, dtypes.DType, Device, RemovableHandle, random.Generator, grad_mode._GradMode):
        sandbox.allow(readable)
    for readable in (ReturnTypes, info.finfo, info.iinfo, info.Layout, info.MemoryFormat, legacy.UntypedStorage):
        sandbox.allow(readable)
    sandbox.allow(Node, only={"next_functions", "name", "metadata", "register_hook", "variable"})
    sandbox.allow(Tensor, writable=True, c_base="torch._C.TensorBase")
    sandbox.allow(modules.Module, writable=True)
    sandbox.allow(optim.Optimizer)

    namespaces = {name: Namespace(name, members) for name, members in torch_namespaces().items()}
    functional_ns = Namespace("torch.nn.functional", {name: getattr(functional, name) for name in functional.__all__})
    init_ns = Namespace("torch.nn.init", {name: getattr(init, name) for name in init.__all__})
    nn_members = {name: getattr(modules, name) for name in modules.__all__}
    utils_ns = Namespace("torch.nn.utils", {name: getattr(utils, name) for name in utils.__all__})
    nn_members.update(Parameter=parameter.Parameter, functional=functional_ns, init=init_ns, utils=utils_ns)
    namespaces["torch.nn"] = Namespace("torch.nn", nn_members)
    namespaces["torch.optim"] = Namespace("torch.optim", optim.optimizers())
    namespaces["torch.autograd.functional"] = Namespace(
        "torch.autograd.functional", {name: getattr(autograd_functional, name) for name in autograd_functional.__all__})
    namespaces["torch.nn.functional"], namespaces["torch.nn.init"] = functional_ns, init_ns
    namespaces["torch.nn.utils"] = utils_ns
    # a submodule is also an attribute of its parent: torch.linalg, torch.autograd.functional
    for name, namespace in namespaces.items():
        parent, _, child = name.rpartition(".")
        if parent in namespaces and child not in namespaces[parent].__dict__:
            namespaces[parent].__dict__[child] = namespace
    return namespaces


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
