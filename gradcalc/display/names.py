"""The names PyTorch's classes and methods show: `type(x)`, method reprs, Python's own messages.

PyTorch writes some of its classes in Python (`torch.Tensor`, the grad modes) and others in
C (`torch.Size`, `torch.dtype`, the grad_fn nodes). Python names a C class by its full name
in its messages (`'torch.dtype' object is not callable`) and shows a C method as
`<built-in method numel of torch.Size object at 0x...>`; gradcalc's classes copy both.
"""
from __future__ import annotations

from types import MethodType
from typing import Any, Callable, Optional, TypeVar

Class = TypeVar("Class", bound=type)
_HEAP_TYPE = 1 << 9  # Py_TPFLAGS_HEAPTYPE: a class made by a class statement


def type_name(value: Any) -> str:
    """The name Python's and PyTorch's messages give a value's type (its `tp_name`): a C type's
    full name (`numpy.ndarray`, `_io.StringIO`), a class statement's bare name."""
    cls = type(value)
    if cls.__flags__ & _HEAP_TYPE or cls.__module__ == "builtins":
        return cls.__name__
    return f"{cls.__module__}.{cls.__qualname__}"


def torch_class(qualified: str, *, c_type: bool = False) -> Callable[[Class], Class]:
    """Class decorator: `type(x)` prints `<class 'qualified'>` (a bare name is a builtins class).

    A C type's methods print as built-in methods (except the names listed in the class's
    `_python_methods`), and Python's messages name the type by its full name, as C types'.
    """
    module, _, name = qualified.rpartition(".")

    def rename(cls: Class) -> Class:
        cls.__module__ = module or "builtins"
        cls.__qualname__ = name
        cls.__name__ = qualified if c_type else name
        if c_type and "_python_methods" not in cls.__dict__:
            cls._python_methods = frozenset()
        return cls

    return rename


def refuse_instances(cls: type) -> None:
    """Once the fixed instances of a C type exist (the dtypes, the layouts), calling the type fails
    as calling such a type does in Python, never with gradcalc's own `__init__` parameters."""

    def __new__(klass: type, *args: Any, **kwargs: Any) -> Any:
        raise TypeError(f"cannot create '{klass.__name__}' instances")

    cls.__new__ = __new__  # type: ignore[method-assign]


@torch_class("builtin_function_or_method")
class BuiltinMethod:
    """A bound method of an object whose class PyTorch writes in C, as a program sees it."""

    __slots__ = ("_method",)

    def __init__(self, method: MethodType) -> None:
        self._method = method

    @property
    def __name__(self) -> str:  # type: ignore[override]
        return self._method.__name__

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        try:
            return self._method(*args, **kwargs)
        except TypeError as error:
            if error.__traceback__ is not None and error.__traceback__.tb_next is None:  # the call did not bind
                refusal = _c_call_error(self._method, args, kwargs)
                if refusal is not None:
                    raise refusal from None
            raise

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, BuiltinMethod) and self._method == other._method

    def __hash__(self) -> int:
        return hash(self._method)

    def __repr__(self) -> str:
        owner = self._method.__self__
        return f"<built-in method {self._method.__name__} of {type(owner).__name__} object at {hex(id(owner))}>"


_VARIADIC = 0x04 | 0x08  # CO_VARARGS, CO_VARKEYWORDS


def _c_arity_words(function: Callable, bound: int) -> Optional[str]:
    """What CPython says a C function of no argument (METH_NOARGS) or of one (METH_O) takes, for the
    Python function behind it (`bound`: the arguments a method's binding supplies); None for any
    other signature."""
    code = getattr(function, "__code__", None)
    if code is None or code.co_flags & _VARIADIC or code.co_kwonlyargcount or function.__defaults__:
        return None
    return {0: "takes no arguments", 1: "takes exactly one argument"}.get(code.co_argcount - bound)


def c_arity(shown: str, function: Callable) -> Callable:
    """A C function of no argument (METH_NOARGS) or of one (METH_O) refuses other calls in
    CPython's words, not in those of the Python function behind it."""
    words = _c_arity_words(function, 0)
    code = function.__code__ if words else None
    if words is None or (code.co_argcount == 1 and code.co_posonlyargcount != 1):
        return function
    wanted = code.co_argcount

    def checked(*args: Any, **kwargs: Any) -> Any:
        if kwargs:
            raise TypeError(f"{shown}() takes no keyword arguments")
        if len(args) != wanted:
            raise TypeError(f"{shown}() {words} ({len(args)} given)")
        return function(*args)

    return checked


def _c_call_error(method: MethodType, args: tuple, kwargs: dict) -> Optional[TypeError]:
    """CPython's words for a call a C method of no argument (METH_NOARGS) or one (METH_O) refuses:
    `Size.numel() takes no arguments (1 given)`, not those of the Python method behind it."""
    words = _c_arity_words(method.__func__, 1)
    if words is None:
        return None
    shown = f"{type(method.__self__).__qualname__}.{method.__name__}()"
    if kwargs:
        return TypeError(f"{shown} takes no keyword arguments")
    return TypeError(f"{shown} {words} ({len(args)} given)")


def shown_method(method: MethodType) -> Any:
    """`method` as a program gets it: wrapped if PyTorch implements it in C."""
    python_methods = getattr(type(method.__self__), "_python_methods", None)
    if python_methods is None or method.__name__ in python_methods:
        return method
    return BuiltinMethod(method)
