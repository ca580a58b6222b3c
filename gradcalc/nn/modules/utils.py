"""Sizes given as one number or one per dim, made tuples as torch.nn.modules.utils does; methods
named after the class torch defines them in."""
from __future__ import annotations

import collections.abc
from types import FunctionType
from typing import Any, Callable


def defined_in(owner: str, method: Callable, name: str = "") -> FunctionType:
    """A copy of `method` named as the method `name` (its own name by default) of torch's class
    `owner`: Python's errors about a call's arguments name the class that defines the method
    (`ZeroPad2d.__init__() got an unexpected keyword argument`), which in torch is not always the
    class gradcalc defines it in."""
    name = name or method.__name__
    own = FunctionType(method.__code__, method.__globals__, name, method.__defaults__, method.__closure__)
    own.__kwdefaults__ = method.__kwdefaults__
    own.__qualname__ = f"{owner}.{name}"
    return own


def own_init(cls: type) -> type:
    """Class decorator: the class's own copy of the `__init__` it inherits, as torch's class has."""
    cls.__init__ = defined_in(cls.__name__, cls.__init__)  # type: ignore[misc]
    return cls


def _ntuple(value: Any, n: int) -> tuple:
    if isinstance(value, collections.abc.Iterable):  # any iterable, as torch's (a str's characters too)
        return tuple(value)
    return (value,) * n


def _single(value: Any) -> tuple:
    return _ntuple(value, 1)


def _pair(value: Any) -> tuple:
    return _ntuple(value, 2)
