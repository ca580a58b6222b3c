"""The names PyTorch's classes and methods show: `type(x)`, method reprs, Python's own messages.

PyTorch writes some of its classes in Python (`torch.Tensor`, the grad modes) and others in
C (`torch.Size`, `torch.dtype`, the grad_fn nodes). Python names a C class by its full name
in its messages (`'torch.dtype' object is not callable`) and shows a C method as
`<built-in method numel of torch.Size object at 0x...>`; gradcalc's classes copy both.
"""
from __future__ import annotations

import ctypes
from types import FunctionType, MethodType
from typing import Any, Callable, Optional, TypeVar

from ..language.limits import native_call

Class = TypeVar("Class", bound=type)
_HEAP_TYPE = 1 << 9  # Py_TPFLAGS_HEAPTYPE: a class made by a class statement


def type_name(value: Any) -> str:
    """The name Python's and PyTorch's messages give a value's type (its `tp_name`): a C type's
    full name (`numpy.ndarray`, `_io.StringIO`, gradcalc's `torch.dtype`), a class statement's
    bare name."""
    return tp_name(type(value))


def tp_name(cls: type) -> str:
    """A class's name as CPython's own messages give it (`type object 'torch.dtype' has no
    attribute 'x'`): see type_name."""
    full = _C_TYPE_NAMES.get(cls)
    if full is not None:
        return full
    if cls.__flags__ & _HEAP_TYPE or cls.__module__ == "builtins":
        return cls.__name__
    return f"{cls.__module__}.{cls.__qualname__}"


# gradcalc's classes that stand for C types, and their full names (their tp_name)
_C_TYPE_NAMES: dict = {}
# the C strings their tp_name point to, kept alive with them
_TP_NAMES: list = []
# PyTypeObject's tp_name: after the variable-size object head's three words
_TP_NAME_OFFSET = 3 * ctypes.sizeof(ctypes.c_void_p)


def _two_names(cls: type, full: str, short: str) -> None:
    """A C type has two names: CPython's own messages print its tp_name (`'torch.dtype' object is
    not callable`), Python code reads its __name__ (`dtype`: json's "Object of type dtype is not
    JSON serializable"). A class statement's type has one name for both, so its __name__ is made
    the short one and its tp_name pointed back at the full one, once the type's layout is checked
    (where it differs, both stay the full name)."""
    cls.__name__ = full
    slot = ctypes.c_void_p.from_address(id(cls) + _TP_NAME_OFFSET)
    if slot.value is None or ctypes.string_at(slot.value) != full.encode():
        return
    kept = ctypes.create_string_buffer(full.encode())
    cls.__name__ = short
    if ctypes.string_at(slot.value) != short.encode():
        cls.__name__ = full
        return
    _TP_NAMES.append(kept)
    slot.value = ctypes.addressof(kept)


def torch_class(qualified: str, *, c_type: bool = False) -> Callable[[Class], Class]:
    """Class decorator: `type(x)` prints `<class 'qualified'>` (a bare name is a builtins class).

    A C type's methods print as built-in methods (except the names listed in the class's
    `_python_methods`), and Python's messages name the type by its full name, as C types'.
    """
    module, _, name = qualified.rpartition(".")

    def rename(cls: Class) -> Class:
        cls.__module__ = module or "builtins"
        cls.__qualname__ = name
        if c_type:
            _C_TYPE_NAMES[cls] = qualified
            # gradcalc's own write of the type's memory (a node's class may be made as a program
            # runs, behind the sandbox's wall, which refuses ctypes otherwise)
            native_call(_two_names, cls, qualified, name)
        else:
            cls.__name__ = name
        if c_type and "_python_methods" not in cls.__dict__:
            cls._python_methods = frozenset()
        return cls

    return rename


def refuse_instances(cls: type) -> None:
    """Once the fixed instances of a C type exist (the dtypes, the layouts), calling the type fails
    as calling such a type does in Python, never with gradcalc's own `__init__` parameters."""

    def __new__(klass: type, *args: Any, **kwargs: Any) -> Any:
        raise TypeError(f"cannot create '{_C_TYPE_NAMES.get(klass, klass.__name__)}' instances")

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
        return f"<built-in method {self._method.__name__} of {type_name(owner)} object at {hex(id(owner))}>"


_VARIADIC = 0x04 | 0x08  # CO_VARARGS, CO_VARKEYWORDS


def c_arity_words(function: Callable, bound: int) -> Optional[str]:
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
    words = c_arity_words(function, 0)
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
    words = c_arity_words(method.__func__, 1)
    if words is None:
        return None
    owner = type(method.__self__)  # (torch.Tensor's C methods are torch._C.TensorBase's)
    shown = f"{(getattr(owner, '_c_base', None) or owner.__qualname__).rpartition('.')[2]}.{method.__name__}()"
    if kwargs:
        return TypeError(f"{shown} takes no keyword arguments")
    return TypeError(f"{shown} {words} ({len(args)} given)")


def shown_method(method: MethodType) -> Any:
    """`method` as a program gets it: wrapped if PyTorch implements it in C."""
    python_methods = getattr(type(method.__self__), "_python_methods", None)
    if python_methods is None or method.__name__ in python_methods:
        return method
    return BuiltinMethod(method)


# CPython's slot wrappers among a C type's special methods (the others are plain C methods)
_SLOTS = frozenset({"__getitem__", "__setitem__", "__delitem__"})
# the one descriptor a program sees for each C method or attribute (`Tensor.add is Tensor.add`)
_DESCRIPTORS: dict = {}


def shown_class_attribute(cls: type, name: str, value: Any) -> Any:
    """`cls.name` as a program gets it: a method or attribute PyTorch writes in C prints and
    refuses a wrong object as CPython's descriptors do (`<method 'add' of 'torch._C.TensorBase'
    objects>`)."""
    python_methods = getattr(cls, "_python_methods", None)
    kind = type(value)
    if python_methods is None or name in python_methods or (kind is not FunctionType and kind is not property):
        return value
    if name[:2] == "__" and getattr(cls, "_c_base", None) is None:
        return value  # (a C type's special methods are slot wrappers of their own, or of object's)
    shown = _DESCRIPTORS.get(value)
    if shown is None:
        owner = next((base for base in cls.__mro__ if name in vars(base)), None)
        if owner is None or "_python_methods" not in vars(owner):
            return value  # defined by a subclass (a program's, nn.Parameter): a function as in torch
        descriptor_type = GetSetDescriptor if kind is property else SlotWrapper if name in _SLOTS else MethodDescriptor
        shown = _DESCRIPTORS[value] = object.__new__(descriptor_type)  # (a program cannot make one: see below)
        shown._value, shown._name, shown._owner = value, name, owner
    return shown


class _Descriptor:
    __slots__ = ("_value", "_name", "_owner")

    @property
    def __name__(self) -> str:  # type: ignore[override]
        return self._name

    def qualified_name(self) -> str:
        return f"{self._owner_name().rpartition('.')[2]}.{self._name}"

    def _owner_name(self) -> str:
        # torch.Tensor's C methods are those of its C base, torch._C.TensorBase
        return getattr(self._owner, "_c_base", None) or tp_name(self._owner)

    # how CPython's descriptor of this kind shows, and refuses an object of another type
    _KIND = ""
    _MISMATCH = "descriptor '{name}' for '{owner}' objects doesn't apply to a '{type}' object"

    def _bound(self, obj: Any) -> Any:
        if not isinstance(obj, self._owner):
            raise TypeError(self._MISMATCH.format(name=self._name, owner=self._owner_name(), type=type_name(obj)))
        return obj

    def __repr__(self) -> str:
        return f"<{self._KIND} '{self._name}' of '{self._owner_name()}' objects>"


@torch_class("method_descriptor")
class MethodDescriptor(_Descriptor):
    """A C method read from its class (`torch.Tensor.add`)."""

    __slots__ = ()
    _KIND = "method"

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if not args:
            raise TypeError(f"unbound method {self.qualified_name()}() needs an argument")
        return self.__get__(args[0])(*args[1:], **kwargs)

    def __get__(self, obj: Any, cls: Any = None) -> Any:
        return self if obj is None else BuiltinMethod(MethodType(self._value, self._bound(obj)))


@torch_class("wrapper_descriptor")
class SlotWrapper(MethodDescriptor):
    """A C type's slot read from its class (`torch.Tensor.__getitem__`)."""

    __slots__ = ()
    _KIND = "slot wrapper"
    _MISMATCH = "descriptor '{name}' requires a '{owner}' object but received a '{type}'"

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if not args:
            raise TypeError(f"descriptor '{self._name}' of '{self._owner_name()}' object needs an argument")
        return self._value(self._bound(args[0]), *args[1:], **kwargs)


@torch_class("getset_descriptor")
class GetSetDescriptor(_Descriptor):
    """A C attribute read from its class (`torch.Tensor.shape`)."""

    __slots__ = ()
    _KIND = "attribute"

    def __get__(self, obj: Any, cls: Any = None) -> Any:
        return self if obj is None else self._value.__get__(self._bound(obj), cls)

    def __set__(self, obj: Any, value: Any) -> None:
        self._value.__set__(self._bound(obj), value)

    def __delete__(self, obj: Any) -> None:
        self._value.__delete__(self._bound(obj))


for _descriptor_type in (MethodDescriptor, SlotWrapper, GetSetDescriptor):
    refuse_instances(_descriptor_type)  # `type(torch.Tensor.add)(...)`: as CPython's descriptor types
del _descriptor_type
