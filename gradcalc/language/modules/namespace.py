"""A module as a program sees it: named members and nothing of the host behind them."""
from __future__ import annotations

import weakref
from typing import Any, Callable, Optional

from ...display.names import torch_class, type_name
from ..limits import with_room

# A module's members load when a program first reaches one (the prelude's torch.nn costs nothing
# until used), and a submodule or a deferred member when it is itself reached (`import torch`
# builds neither torch.optim nor torch.func). Per namespace: the loader of its member table, and
# the loaders of its deferred members.
_UNBUILT: "weakref.WeakKeyDictionary[Namespace, Callable[[], tuple]]" = weakref.WeakKeyDictionary()
_DEFERRED: "weakref.WeakKeyDictionary[Namespace, dict]" = weakref.WeakKeyDictionary()


# the flags of a module that a setter of torch._C checks: (module, flag) -> the setter's name
_BOOL_FLAGS = {("torch.backends.cudnn", flag): f"set_{flag}_cudnn" for flag in ("deterministic", "benchmark", "enabled")}


@torch_class("module")
class Namespace:
    """Members live in the instance's dict, so Python's import statements find them; the class
    has no methods of its own for `from torch import ...` to reach."""

    def __init__(self, name: str, members: dict, table: Optional[Callable[[], tuple]] = None) -> None:
        """`table()`, called when a member is first reached, gives the members (which do not
        replace `members`) and the loaders of the deferred ones."""
        self.__dict__.update(members)
        self.__dict__["__name__"] = name
        if table is not None:
            _UNBUILT[self] = table

    def __getattr__(self, name: str) -> Any:
        if _build(self):
            return getattr(self, name)
        deferred = _DEFERRED.get(self, {})
        load = deferred.get(name)
        if load is None:
            raise AttributeError(f"module '{self.__dict__['__name__']}' has no attribute '{name}'")
        value = self.__dict__[name] = with_room(load)
        del deferred[name]
        return value

    def __setattr__(self, name: str, value: Any) -> None:
        setter = _BOOL_FLAGS.get((self.__dict__["__name__"], name))
        if setter is not None and type(value) is not bool:  # PyTorch's C setter of the flag refuses it
            raise RuntimeError(f"{setter} expects a bool, but got {type_name(value)}")
        object.__setattr__(self, name, value)

    def __repr__(self) -> str:
        return f"<module '{self.__dict__['__name__']}'>"

    def __dir__(self) -> list:
        _build(self)
        return sorted(name for name in (*self.__dict__, *_DEFERRED.get(self, ())) if not name.startswith("_"))


def _build(namespace: Namespace) -> bool:
    """Fill a namespace's members from its table, the first time; whether this was it."""
    table = _UNBUILT.get(namespace)
    if table is None:
        return False
    members, deferred = with_room(table)
    del _UNBUILT[namespace]
    own = vars(namespace)
    for name, value in members.items():
        own.setdefault(name, value)
    _DEFERRED[namespace] = {name: load for name, load in deferred.items() if name not in own}
    return True


def member(namespace: Namespace, name: str) -> Any:
    """A member by name, loaded if deferred; only the module's own members (never the class's
    attributes, as getattr would give). KeyError when it has none of that name."""
    _build(namespace)
    found = vars(namespace)
    if name not in found and name in _DEFERRED.get(namespace, ()):
        getattr(namespace, name)
    return found[name]


def members(namespace: Namespace) -> dict:
    """The public members of a namespace, the deferred ones loaded."""
    return {name: getattr(namespace, name) for name in dir(namespace)}


class Submodule:
    """In a module's member table: the module of that name, as the same session has it."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name


class Deferred:
    """In a module's member table: a member loaded when a program first reaches it."""

    __slots__ = ("load",)

    def __init__(self, load: Callable[[], Any]) -> None:
        self.load = load
