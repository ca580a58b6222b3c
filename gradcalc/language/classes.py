"""Classes a program defines: `class Net(nn.Module):` and plain ones such as `class Config:`.

They are real Python classes, so that nn.Module's registration of parameters, its calls and
its repr work on them unchanged. Their namespaces hold only the program's own values and
functions: the parser lets a class body define no double-underscore name but `__init__`, and
the sandbox governs every attribute access to the classes and their instances.
"""
from __future__ import annotations

import weakref
from typing import Any, Optional

_USER_CLASSES: "weakref.WeakSet[type]" = weakref.WeakSet()


class Object:
    """The hidden base of a class defined without one: the sandbox lets programs read and set
    its instances' public attributes."""


def is_user_class(cls: Any) -> bool:
    return isinstance(cls, type) and cls in _USER_CLASSES


def check_base(base: Any) -> None:
    """Only nn.Module's family and the program's own classes can be derived from: a host class
    (int, Exception, a tensor) would bring its C protocols and private state with it."""
    from ..nn.modules import Module  # nn is loaded with the prelude; not at this module's import

    if isinstance(base, type) and (is_user_class(base) or issubclass(base, Module)):
        return
    shown = base.__qualname__ if isinstance(base, type) else type(base).__name__ + " object"
    raise TypeError(f"a class in gradcalc derives from nn.Module (or a subclass), from a class of the program "
                    f"or from nothing, not from {shown}")


def make_class(name: str, qualname: str, base: Optional[type], namespace: dict) -> type:
    cls = type(name, (base or Object,), {**namespace, "__module__": "__main__", "__qualname__": qualname})
    _USER_CLASSES.add(cls)
    return cls


class Super:
    """What `super()` gives: `instance`'s attributes as the classes after `owner` in its
    class's MRO define them. The sandbox lets programs reach `__init__` and public names only."""

    __slots__ = ("owner", "instance")

    def __init__(self, owner: Any, instance: Any) -> None:
        if not isinstance(owner, type):
            raise TypeError(f"super() argument 1 must be a type, not {type(owner).__name__}")
        # the class-method form super(cls, cls) is left out: nothing in gradcalc needs it
        if isinstance(instance, type) or not isinstance(instance, owner):
            raise TypeError("super(type, obj): obj must be an instance or subtype of type")
        self.owner = owner
        self.instance = instance

    def attribute(self, name: str) -> Any:
        return getattr(super(self.owner, self.instance), name)

    def __repr__(self) -> str:
        return f"<super: <class '{self.owner.__name__}'>, <{type(self.instance).__name__} object>>"


def explicit_super(*args: Any) -> Super:
    """`super(Net, self)`; the interpreter answers `super()` itself, knowing the method it runs in."""
    if not args:
        raise RuntimeError("super(): no arguments")
    if len(args) != 2:
        raise TypeError("super() in gradcalc takes no arguments or two (a class and an instance)")
    if isinstance(args[0], type) and not is_user_class(args[0]):  # the program's classes are the only owners
        raise TypeError(f"super() in gradcalc takes a class of the program, not {args[0].__qualname__}")
    return Super(*args)
