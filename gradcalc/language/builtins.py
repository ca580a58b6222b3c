"""Python's everyday builtins as a program sees them, and the prelude of SPEC §3.

Only harmless builtins are offered: no eval, exec, open, getattr, __import__, globals or vars.
"""
from __future__ import annotations

import builtins as host
from typing import Any, Callable, Optional

from . import sandbox
from .classes import explicit_super
from ..display.names import torch_class

PRELUDE_FROM_TORCH = (
    "tensor", "ones", "zeros", "ones_like", "zeros_like", "full", "full_like", "arange", "linspace", "eye", "rand",
    "randn", "randint", "rand_like", "randn_like", "manual_seed", "no_grad", "enable_grad", "set_grad_enabled",
    "autograd", "exp", "log", "sin", "cos", "tanh", "sigmoid", "relu", "sqrt", "matmul", "stack", "cat",
)

_PLAIN = (
    "len", "range", "abs", "min", "max", "sum", "round", "float", "int", "bool", "complex", "str", "repr", "list",
    "tuple", "dict", "set", "frozenset", "isinstance", "issubclass", "enumerate", "zip", "sorted", "reversed", "any",
    "all", "map", "filter", "divmod", "pow", "id", "hex", "oct", "bin", "chr", "ord", "format", "iter", "next",
    "slice", "callable", "hash", "ascii",
    "Exception", "ArithmeticError", "AssertionError", "AttributeError", "IndexError", "KeyError", "LookupError",
    "NameError", "NotImplementedError", "RuntimeError", "StopIteration", "TypeError", "ValueError",
    "ZeroDivisionError",
)


@torch_class("builtin_function_or_method")
class Builtin:
    """A builtin function of gradcalc's own making, shown as Python shows its builtins:
    `<built-in function print>`, or with an owner, as torch shows its C functions:
    `<built-in method exp of type object at 0x...>`."""

    def __init__(self, name: str, function: Callable, owner: Optional[str] = None) -> None:
        self.name = name
        self.function = function
        self.owner = owner
        # its names as Python gives them (call errors use `print()`, `torch._VariableFunctionsClass.exp()`)
        self.__name__ = name
        self.__qualname__ = name if owner is None else f"_VariableFunctionsClass.{name}"
        self.__module__ = None if owner is None else "torch"

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.function(*args, **kwargs)

    def __repr__(self) -> str:
        if self.owner is None:
            return f"<built-in function {self.name}>"
        # torch's address is that of the class holding its functions: any one fixed address will do
        return f"<built-in method {self.name} of {self.owner} object at {hex(id(Builtin))}>"


class _Type(Builtin):
    """`type` or `super`, classes in Python, and shown as such."""

    def __repr__(self) -> str:
        return f"<class '{self.name}'>"


class SuperBuiltin(_Type):
    """`super`: the interpreter answers a call without arguments, which needs the method it is in."""


def make_builtins(write: Callable[[str], None]) -> dict:
    """The builtins of one session; `print` writes through `write`."""

    def print_(*values: Any, sep: Any = " ", end: Any = "\n", file: Any = None, flush: bool = False) -> None:
        if file is not None:
            raise TypeError("print() of gradcalc writes to standard output only (file= is not supported)")
        sep = " " if sep is None else sep
        end = "\n" if end is None else end
        if not isinstance(sep, str):
            raise TypeError(f"sep must be None or a string, not {type(sep).__name__}")
        if not isinstance(end, str):
            raise TypeError(f"end must be None or a string, not {type(end).__name__}")
        write(sep.join(str(value) for value in values) + end)

    def type_(*args: Any) -> type:
        if len(args) == 3:  # Python would make a new class: a way out of the sandbox
            raise TypeError("type() with 3 arguments (making a class) is not supported in gradcalc")
        if len(args) != 1:
            raise TypeError("type() takes 1 or 3 arguments")
        cls = type(args[0])
        # the type of a class is a metaclass, which would make classes: the builtin stands in for it
        return table["type"] if issubclass(cls, type) else cls

    def hasattr_(value: Any, name: str) -> bool:
        return sandbox.has_attribute(value, name)

    table = {name: getattr(host, name) for name in _PLAIN}
    table.update(print=Builtin("print", print_), type=_Type("type", type_), hasattr=Builtin("hasattr", hasattr_),
                 super=SuperBuiltin("super", explicit_super))
    return table


def prelude(modules: dict) -> dict:
    """The names in scope before a program's first line."""
    torch = modules["torch"]
    names = {"torch": torch, "nn": modules["torch.nn"], "F": modules["torch.nn.functional"]}
    names.update({name: getattr(torch, name) for name in PRELUDE_FROM_TORCH})
    return names
