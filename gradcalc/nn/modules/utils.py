"""Sizes given as one number or one per dim, made tuples as torch.nn.modules.utils does; methods
named after the class torch defines them in."""
from __future__ import annotations

import collections.abc
from types import FunctionType
from typing import Any, Callable

from ...autograd.ops.common import library_recursion


# a layer's __init__ as its class holds it -> the function it wraps
_BOUNDARIES: dict = {}


def recursion_boundary(init: Callable) -> Callable:
    """A layer's `__init__` that meets the recursion limit as PyTorch's does (library_recursion):
    a program's runaway recursion through its own layers' construction reaches it there first.
    Python's errors about a call's arguments name the function wrapped (its __qualname__)."""
    if init in _BOUNDARIES:
        return init

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        try:
            init(self, *args, **kwargs)
        except RecursionError as error:
            raise library_recursion(error) from None

    for attribute in ("__module__", "__name__", "__qualname__", "__doc__"):
        setattr(__init__, attribute, getattr(init, attribute))
    __init__.__wrapped__ = init  # inspect.signature(Linear) reads the layer's own parameters
    _BOUNDARIES[__init__] = init
    return __init__


def unwrapped(method: Callable) -> Callable:
    """The function a recursion boundary wraps (any other: itself)."""
    return _BOUNDARIES.get(method, method)


def defined_in(owner: str, method: Callable, name: str = "") -> FunctionType:
    """A copy of `method` named as the method `name` (its own name by default) of torch's class
    `owner`: Python's errors about a call's arguments name the class that defines the method
    (`ZeroPad2d.__init__() got an unexpected keyword argument`), which in torch is not always the
    class gradcalc defines it in."""
    method = unwrapped(method)
    name = name or method.__name__
    own = FunctionType(method.__code__, method.__globals__, name, method.__defaults__, method.__closure__)
    own.__kwdefaults__ = method.__kwdefaults__
    own.__qualname__ = f"{owner}.{name}"
    return own


def own_init(cls: type) -> type:
    """Class decorator: the class's own copy of the `__init__` it inherits, as torch's class has."""
    cls.__init__ = recursion_boundary(defined_in(cls.__name__, cls.__init__))  # type: ignore[misc]
    return cls


def _ntuple(value: Any, n: int) -> tuple:
    if isinstance(value, collections.abc.Iterable):  # any iterable, as torch's (a str's characters too)
        return tuple(value)
    return (value,) * n


def _single(value: Any) -> tuple:
    return _ntuple(value, 1)


def _pair(value: Any) -> tuple:
    return _ntuple(value, 2)
