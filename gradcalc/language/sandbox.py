"""What a program may reach: attributes of gradcalc's own objects and of plain Python values,
never a dunder, a private name or an object of the host Python (functions, classes, frames)."""
from __future__ import annotations

import string
from types import GetSetDescriptorType, MemberDescriptorType, MethodType
from typing import Any, Optional

from ..display.names import shown_method
from .classes import Object, Super, is_user_class

# Types whose public attributes a program may read (None: all of them; a set: only those).
# Everything else (functions, classes, generators, modules of the host) exposes nothing.
_PLAIN_TYPES = (str, int, float, complex, bool, list, tuple, dict, set, frozenset, range, slice, type(None))
_READABLE: dict = {cls: None for cls in _PLAIN_TYPES}
_READABLE[Object] = None  # instances of the program's plain classes
_WRITABLE: set = {Object}
_C_BASES: dict = {}  # class -> the C class PyTorch defines its properties on, as its messages name it
_PRIVATE_ALLOWED = {"_version"}


def allow(cls: type, writable: bool = False, only: Optional[set] = None, c_base: Optional[str] = None) -> type:
    """Let programs read (and, if writable, assign) the public attributes of `cls`'s instances,
    or only the attributes named in `only`; `c_base` names the class of its read-only properties
    in errors (`attribute 'shape' of 'torch._C.TensorBase' objects is not writable`)."""
    _READABLE[cls] = only
    if writable:
        _WRITABLE.add(cls)
    if c_base is not None:
        _C_BASES[cls] = c_base
    return cls


def _readable(value: Any, name: str) -> bool:
    if isinstance(value, type):
        # a plain type's own methods (`dict.fromkeys`, `str.lower`), none of `type`'s (`mro`);
        # str.format unbound would skip the sandbox's formatter
        if is_user_class(value):  # what the program's classes define, not what Module or type does
            return any(name in vars(base) for base in value.__mro__ if is_user_class(base))
        return (value in _PLAIN_TYPES and any(name in vars(base) for base in value.__mro__)
                and name not in ("format", "format_map"))
    for cls, only in _READABLE.items():
        if isinstance(value, cls):
            return only is None or name in only
    return False


def _check_name(name: str) -> None:
    if name.startswith("_") and name not in _PRIVATE_ALLOWED:
        raise AttributeError(f"access to '{name}' is not allowed in gradcalc")


def get_attribute(value: Any, name: str) -> Any:
    if type(value) is Super:
        return _super_attribute(value, name)
    if name in ("__name__", "__qualname__"):
        return _name_of(value, name)
    _check_name(name)
    if not _readable(value, name):
        if isinstance(value, type):
            raise AttributeError(f"type object '{value.__name__}' has no attribute '{name}'")
        raise AttributeError(f"'{_type_name(value)}' object has no attribute '{name}'")
    if isinstance(value, str) and name in ("format", "format_map"):
        return _SafeFormatter(value).format if name == "format" else _SafeFormatter(value).format_map
    attribute = getattr(value, name)
    return shown_method(attribute) if type(attribute) is MethodType else attribute


def _super_attribute(proxy: Super, name: str) -> Any:
    """`super().__init__` and the public attributes the instance itself would show: the one
    dunder a program may reach, and only through super()."""
    if name != "__init__":
        _check_name(name)
        if not _readable(proxy.instance, name):
            raise AttributeError(f"'super' object has no attribute '{name}'")
    attribute = proxy.attribute(name)
    return shown_method(attribute) if type(attribute) is MethodType else attribute


def _name_of(value: Any, name: str) -> str:
    """`f.__name__`, `type(x).__name__`: the two dunders decorators and messages use, strings only."""
    if is_user_class(value):
        return getattr(value, name)
    if isinstance(value, type):
        return value.__qualname__  # a C type's __name__ is its full name, for Python's messages
    shown = getattr(value, name, None) if callable(value) else None
    if not isinstance(shown, str):
        raise AttributeError(f"'{_type_name(value)}' object has no attribute '{name}'")
    return shown


def has_attribute(value: Any, name: str) -> bool:
    try:
        get_attribute(value, name)
    except AttributeError:
        return False
    return True


def set_attribute(target: Any, name: str, value: Any) -> None:
    _check_writable(target, name, "fset")
    setattr(target, name, value)


def delete_attribute(target: Any, name: str) -> None:
    _check_writable(target, name, "fdel")
    delattr(target, name)


def _check_writable(target: Any, name: str, accessor: str) -> None:
    """Raise Python's (or PyTorch's) AttributeError if `target.name` cannot be set or deleted."""
    _check_name(name)
    if isinstance(target, type):
        if target in _PLAIN_TYPES:  # Python says "set" for `del` too
            raise TypeError(f"cannot set '{name}' attribute of immutable type '{target.__name__}'")
        raise AttributeError(f"cannot set '{name}' attribute of class '{target.__name__}' in gradcalc")
    cls = type(target)
    owner = next((base for base in cls.__mro__ if name in vars(base)), None)
    descriptor = vars(owner)[name] if owner is not None else None
    writable = any(isinstance(target, allowed) for allowed in _WRITABLE)
    if writable and not (isinstance(descriptor, property) and getattr(descriptor, accessor) is None):
        return
    if isinstance(descriptor, (GetSetDescriptorType, property)):
        shown = _C_BASES.get(owner, owner.__name__)
        raise AttributeError(f"attribute '{name}' of '{shown}' objects is not writable")
    if isinstance(descriptor, MemberDescriptorType):
        raise AttributeError("readonly attribute")
    if descriptor is not None:
        raise AttributeError(f"'{cls.__name__}' object attribute '{name}' is read-only")
    # Python would take it (but not on PyTorch's C types): gradcalc keeps its objects as they are
    if hasattr(target, "__dict__") and not hasattr(cls, "_python_methods"):
        raise AttributeError(f"attribute '{name}' of '{cls.__name__}' objects cannot be set in gradcalc")
    raise AttributeError(f"'{cls.__name__}' object has no attribute '{name}'")


def _type_name(value: Any) -> str:
    return type(value).__name__


class _SafeFormatter(string.Formatter):
    """str.format that resolves `{0.attr}` and `{0[key]}` through the sandbox."""

    def __init__(self, template: str) -> None:
        self.template = template

    def format(self, *args: Any, **kwargs: Any) -> str:  # type: ignore[override]
        return self.vformat(self.template, args, kwargs)

    def format_map(self, mapping: dict) -> str:
        return self.vformat(self.template, (), mapping)

    def get_value(self, key: Any, args: Any, kwargs: Any) -> Any:
        if isinstance(key, int) and key >= len(args):  # str.format's message, not a bare tuple index error
            raise IndexError(f"Replacement index {key} out of range for positional args tuple")
        return super().get_value(key, args, kwargs)

    def get_field(self, field_name: str, args: Any, kwargs: Any) -> Any:
        import _string

        first, rest = _string.formatter_field_name_split(field_name)
        value = self.get_value(first, args, kwargs)
        for is_attribute, key in rest:
            value = get_attribute(value, key) if is_attribute else value[key]
        return value, first
