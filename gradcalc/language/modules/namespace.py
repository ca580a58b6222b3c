"""A module as a program sees it: named members and nothing of the host behind them."""
from __future__ import annotations

from typing import Any

from ...display.names import torch_class


@torch_class("module")
class Namespace:
    """Members live in the instance's dict, so Python's import statements find them; the class
    has no methods of its own for `from torch import ...` to reach."""

    def __init__(self, name: str, members: dict) -> None:
        self.__dict__.update(members)
        self.__dict__["__name__"] = name

    def __getattr__(self, name: str) -> Any:
        load = self.__dict__.get("_lazy_members", {}).pop(name, None)
        if load is not None:
            value = self.__dict__[name] = load()
            return value
        raise AttributeError(f"module '{self.__dict__['__name__']}' has no attribute '{name}'")

    def __repr__(self) -> str:
        return f"<module '{self.__dict__['__name__']}'>"

    def __dir__(self) -> list:
        names = set(self.__dict__) | set(self.__dict__.get("_lazy_members", ()))
        return sorted(name for name in names if not name.startswith("_"))


def members(namespace: Namespace) -> dict:
    """The public members of a namespace."""
    return {name: value for name, value in vars(namespace).items() if not name.startswith("_")}


class Submodule:
    """In a module's member table: the module of that name, as the same session has it."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name


class LazySubmodule(Submodule):
    """A submodule made when the program first reads it (`torch.distributions`): only the
    programs that use it pay the start-up time of its code."""

    __slots__ = ()
