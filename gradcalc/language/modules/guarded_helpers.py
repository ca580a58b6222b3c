"""Standard-library helpers that act on a program's names and objects with the host's own
`getattr`, `setattr`, `eval` or `exec`, remade to act through the guard.

Each is admitted for what it does, not for its public name:

* `functools.update_wrapper`/`wraps`: reads and sets the attributes the program names.
* `dataclasses.dataclass`/`make_dataclass`, `collections.namedtuple`, `typing.NamedTuple`, Enum's
  functional API: format field names into source text they `exec`, or put the program's names
  and values in a class's namespace.
* `typing.get_type_hints`, `functools.singledispatch(method)`'s `register`: `eval` string annotations.
* `argparse`: see guarded_argparse.py.
* `copy`: applies the state a program's `__reduce_ex__` or `__getstate__` returns with `setattr`.
* `warnings.formatwarning`/`warn_explicit`: read source lines from any file.
* `types.SimpleNamespace`: a dict a program fills, which numpy would read its protocols from.
"""
from __future__ import annotations

import collections
import copy
import dataclasses
import enum
import functools
import keyword
import types
import typing
from typing import Any, Callable

from .. import guard, policy
from ...display.names import torch_class, type_name

_exact = guard.exact_name


def _names(values: Any) -> list:
    """Names as `str()` makes them (namedtuple's, Enum's), copied to exact strings."""
    return [_exact(str(value)) for value in values]


# ------------------------------------------------------------------ types.SimpleNamespace

@torch_class("types.SimpleNamespace", c_type=True)
class SimpleNamespace(types.SimpleNamespace):
    """types.SimpleNamespace as a program makes it: the same object, whose class holds the
    protocol shields (policy.shield_class) that its instances' dicts cannot override."""

    def __repr__(self) -> str:
        text = types.SimpleNamespace.__repr__(self)
        # as Python shows its own: `namespace(a=1)`; a program's subclass shows its name
        return "namespace" + text[len(type_name(self)):] if type(self) is SimpleNamespace else text


policy.shield_class(SimpleNamespace)


# ------------------------------------------------------------------ functools

def update_wrapper(wrapper: Any, wrapped: Any, assigned: Any = functools.WRAPPER_ASSIGNMENTS,
                   updated: Any = functools.WRAPPER_UPDATES) -> Any:
    """functools.update_wrapper, each attribute read and set through the guard."""
    for attribute in assigned:
        name = _exact(attribute)
        try:
            value = guard.compiled_getattr(wrapped, name)
        except AttributeError:
            continue
        guard.guarded_setattr(value, wrapper, name)
    for attribute in updated:
        name = _exact(attribute)
        if name == "__dict__":  # the wrapped object's own attributes, as the program reads and sets them
            own = vars(wrapped) if policy.is_program_function(wrapped) else _readable_dict(wrapped)
            for key, value in dict.items(own) if isinstance(own, dict) else ():
                if isinstance(key, str):
                    guard.guarded_setattr(value, wrapper, _exact(key))
            continue
        try:
            source = guard.compiled_getattr(wrapped, name)
        except AttributeError:
            source = {}
        guard.compiled_getattr(guard.compiled_getattr(wrapper, name), "update")(source)
    guard.guarded_setattr(wrapped, wrapper, "__wrapped__")
    return wrapper


def _readable_dict(obj: Any) -> Any:
    try:
        return guard.compiled_getattr(obj, "__dict__")
    except AttributeError:  # gradcalc's own objects keep their attributes to themselves
        return None


def wraps(wrapped: Any, assigned: Any = functools.WRAPPER_ASSIGNMENTS,
          updated: Any = functools.WRAPPER_UPDATES) -> Callable:
    """functools.wraps, through update_wrapper above."""
    return functools.partial(update_wrapper, wrapped=wrapped, assigned=assigned, updated=updated)


def own_only(decorate: Callable) -> Callable:
    """A decorator that sets a flag on what it is given (typing.final): on the program's own
    classes and functions; anything else is returned as it is, unmarked."""

    def decorator(target: Any) -> Any:
        if policy.is_program_class(target) or policy.is_program_function(target):
            return decorate(target)
        return target

    return decorator


def total_ordering(cls: Any) -> Any:
    """functools.total_ordering, which sets methods on the class it is given: a program's own."""
    if not policy.is_program_class(cls):
        raise TypeError("total_ordering() in gradcalc orders a class of the program's own")
    return functools.total_ordering(cls)


# ------------------------------------------------------------------ annotations

def check_annotations(obj: Any) -> None:
    """Refuse annotations that typing would evaluate with Python's own `eval` (strings, forward
    references, also inside `list["..."]`), and annotation dicts that are not plain dicts keyed
    by exact strings (whose methods would run while typing reads them)."""

    def check(annotation: Any) -> None:
        if isinstance(annotation, (str, typing.ForwardRef)):
            shown = str.__repr__(_exact(annotation)) if isinstance(annotation, str) else "a forward reference"
            raise TypeError(f"gradcalc does not evaluate string annotations ({shown})")
        if isinstance(annotation, (typing._GenericAlias, types.GenericAlias, types.UnionType)) and (  # type: ignore
                getattr(annotation, "__origin__", None) is not typing.Literal):  # a Literal's strings are values
            for argument in annotation.__args__:
                check(argument)

    if isinstance(obj, types.MethodType):
        obj = obj.__func__
    if isinstance(obj, type):
        owners = [vars(base).get("__annotations__", {}) for base in obj.__mro__]
    elif isinstance(obj, types.FunctionType):
        owners = [obj.__annotations__]
    else:
        raise TypeError(f"gradcalc reads the type hints of classes and functions, not of a "
                        f"'{type(obj).__name__}' object")
    for annotations in owners:
        if isinstance(annotations, types.GetSetDescriptorType):
            continue  # a class without annotations of its own shows `type`'s descriptor
        if type(annotations) is not dict:
            raise TypeError("an __annotations__ that is not a dict is not supported in gradcalc")
        for name, annotation in annotations.items():
            if type(name) is not str:
                raise TypeError("annotation names must be strings in gradcalc")
            check(annotation)


def get_type_hints(obj: Any, globalns: Any = None, localns: Any = None, include_extras: bool = False) -> dict:
    """typing.get_type_hints for annotations that are objects already (check_annotations)."""
    check_annotations(obj)
    return typing.get_type_hints(obj, globalns={"__builtins__": {}}, localns={}, include_extras=include_extras)


def _checked_register(register: Callable) -> Callable:
    """A singledispatch function's `register`, which reads the type from the annotations of a
    function registered without one (typing.get_type_hints)."""

    def checked(cls: Any, func: Any = None) -> Any:
        if func is None and not isinstance(cls, type):
            check_annotations(cls)
        return register(cls, func)

    functools.update_wrapper(checked, register)
    return checked


_DISPATCHER_OWN = frozenset({"register", "dispatch", "registry", "_clear_cache"})


@functools.wraps(functools.singledispatch)
def singledispatch(func: Any) -> Any:
    dispatcher = functools.singledispatch(func)
    if not policy.is_program_function(func):  # what update_wrapper copied from gradcalc's object
        for key in [key for key in vars(dispatcher) if key not in _DISPATCHER_OWN and not policy.is_dunder(key)]:
            del vars(dispatcher)[key]
    dispatcher.register = _checked_register(dispatcher.register)
    policy.SHOWN_FUNCTIONS.add(dispatcher)
    return dispatcher


@torch_class("functools.singledispatchmethod")
class singledispatchmethod(functools.singledispatchmethod):  # noqa: N801 - functools' name
    """functools.singledispatchmethod, whose `register` checks as singledispatch's does."""

    def register(self, cls: Any, method: Any = None) -> Any:
        if method is None and not isinstance(cls, type):
            check_annotations(cls)
        return super().register(cls, method)


# ------------------------------------------------------------------ classes made from names

def _check_field_name(name: Any) -> str:
    if not isinstance(name, str):
        raise TypeError(f"Field names must be valid identifiers: {name!r}")
    name = _exact(name)
    if not name.isidentifier():
        raise TypeError(f"Field names must be valid identifiers: {name!r}")
    if keyword.iskeyword(name):
        raise TypeError(f"Field names must not be keywords: {name!r}")
    if policy.is_dunder(name):
        raise TypeError(f"a field named {name!r} is not supported in gradcalc")
    return name


def _check_dataclass(cls: Any) -> None:
    """What dataclass formats into the source it runs: the class's annotation names."""
    if not policy.is_program_class(cls):
        raise TypeError("dataclass() in gradcalc makes a dataclass of a class of the program's own")
    annotations = vars(cls).get("__annotations__", {})
    if type(annotations) is not dict:
        raise TypeError("an __annotations__ that is not a dict is not supported in gradcalc")
    for name in list(annotations):
        if type(name) is not str:
            raise TypeError("annotation names must be strings in gradcalc")
        _check_field_name(name)


def dataclass(cls: Any = None, /, *, init: Any = True, repr: Any = True, eq: Any = True,  # noqa: A002
              order: Any = False, unsafe_hash: Any = False, frozen: Any = False, match_args: Any = True,
              kw_only: Any = False, slots: Any = False, weakref_slot: Any = False) -> Any:
    """dataclasses.dataclass, for a program's class whose field names are identifiers (its keywords
    Python's own: an unknown one is refused at the call, before the class is read)."""
    options = dict(init=init, repr=repr, eq=eq, order=order, unsafe_hash=unsafe_hash, frozen=frozen,
                   match_args=match_args, kw_only=kw_only, slots=slots, weakref_slot=weakref_slot)

    def wrap(target: Any) -> Any:
        _check_dataclass(target)
        made = dataclasses.dataclass(target, **options)
        policy.register_program_class(made)  # `slots=True` makes a new class
        return made

    return wrap if cls is None else wrap(cls)


def make_dataclass(cls_name: Any, fields: Any, *, bases: Any = (), namespace: Any = None, init: Any = True,
                   repr: Any = True, eq: Any = True, order: Any = False, unsafe_hash: Any = False,  # noqa: A002
                   frozen: Any = False, match_args: Any = True, kw_only: Any = False, slots: Any = False,
                   weakref_slot: Any = False) -> type:
    """dataclasses.make_dataclass, from exact names, checked bases and a checked namespace (its
    keywords Python's own: a wrong call is refused in Python's words)."""
    options = dict(init=init, repr=repr, eq=eq, order=order, unsafe_hash=unsafe_hash, frozen=frozen,
                   match_args=match_args, kw_only=kw_only, slots=slots, weakref_slot=weakref_slot)
    exact_fields = []
    for item in fields:
        if isinstance(item, str):
            exact_fields.append(_check_field_name(item))
        elif isinstance(item, (tuple, list)) and item:
            exact_fields.append((_check_field_name(item[0]), *item[1:]))
        else:
            exact_fields.append(item)  # dataclasses' own TypeError
    if not isinstance(bases, tuple):  # types.new_class iterates them, type() takes a tuple only
        iter(bases)
        raise TypeError(f"type.__new__() argument 2 must be tuple, not {type(bases).__name__}")
    guard.check_bases(bases)
    if namespace is not None:
        if not isinstance(namespace, dict):
            raise TypeError(f"make_dataclass() argument 'namespace' must be a dict, not {type(namespace).__name__}")
        namespace = guard.exact_namespace(namespace)
        guard.check_class_namespace(cls_name, namespace)
    name = _exact(cls_name) if isinstance(cls_name, str) else cls_name
    made = dataclasses.make_dataclass(name, exact_fields, bases=bases, namespace=namespace, **options)
    policy.register_program_class(made)
    return made


def namedtuple(typename: Any, field_names: Any, *, rename: bool = False, defaults: Any = None,
               module: Any = None) -> type:
    """collections.namedtuple, from exact strings (it formats them into the source it runs, after
    checking them with their own `isidentifier`)."""
    names = _exact(field_names) if isinstance(field_names, str) else _names(field_names)
    made = collections.namedtuple(_exact(str(typename)), names, rename=rename, defaults=defaults,
                                                module=_exact(str(module)) if module is not None else "__main__")
    policy.register_program_class(made)
    return made


def named_tuple(typename: Any, fields: Any = None, /, **kwargs: Any) -> type:
    """typing.NamedTuple's functional form, from exact names."""
    if fields is None:
        fields = list(kwargs.items())
    elif kwargs:
        raise TypeError("Either list of fields or keywords can be provided to NamedTuple, not both")
    exact = [(_exact(str(name)), annotation) for name, annotation in fields]
    made = typing.NamedTuple(_exact(str(typename)), exact)
    made.__module__ = "__main__"  # typing would look for its caller's module in the frames
    policy.register_program_class(made)
    return made


named_tuple.__name__ = named_tuple.__qualname__ = "NamedTuple"
# `class P(NamedTuple)` derives from typing's class behind it, as with typing's own NamedTuple
named_tuple.__mro_entries__ = lambda bases: (typing._NamedTuple,)  # type: ignore[attr-defined]


def _enum_create(cls: Any, class_name: Any, names: Any, *, module: Any = None, qualname: Any = None,
                 type: Any = None, start: int = 1, boundary: Any = None) -> Any:  # noqa: A002 - Enum's name
    """Enum's functional API (`Enum("Color", "RED GREEN")`), from exact names: a dunder name would
    be a class attribute (`__del__`, numpy's protocols), not a member."""
    if type is not None:
        guard.check_bases((type,))
    # Python's first check, before the names are read: an enum with members cannot be extended
    enum.EnumType._get_mixins_(class_name, (cls,) if type is None else (type, cls))
    if isinstance(names, str):
        names = _exact(names)
    elif isinstance(names, (tuple, list)) and names and isinstance(names[0], str):
        names = _names(names)
    elif isinstance(names, (tuple, list)):
        names = [(_exact(item[0]) if isinstance(item[0], str) else item[0], *item[1:])
                 if isinstance(item, (tuple, list)) and item else item for item in names]
    elif names is not None:
        names = {_exact(key) if isinstance(key, str) else key: names[key] for key in list(names)}
    listed = names.replace(",", " ").split() if isinstance(names, str) else (
        [item if isinstance(item, str) else item[0] for item in names] if isinstance(names, (tuple, list)) else
        list(names or ()))
    for name in listed:
        if isinstance(name, str) and policy.is_dunder(name):
            raise TypeError(f"defining '{name}' in a class is not supported in gradcalc")
    made = enum.EnumType._create_(
        cls, _exact(class_name) if isinstance(class_name, str) else class_name, names,
        module=_exact(module) if isinstance(module, str) else module,
        qualname=_exact(qualname) if isinstance(qualname, str) else qualname,
        type=type, start=start, boundary=boundary)
    policy.register_program_class(made)
    return made




# ------------------------------------------------------------------ copy

_reconstruct = copy._reconstruct  # type: ignore[attr-defined]
_STATE_METHODS = ("__reduce_ex__", "__reduce__", "__getstate__")


def _program_reduces(cls: type) -> bool:
    """Whether a program's class chose how its objects are copied (the state, the callable)."""
    for name in _STATE_METHODS:
        owner = next((base for base in cls.__mro__ if name in vars(base)), None)
        if owner is not None and policy.is_program_class(owner):
            return True
    return False


def _guarded_reconstruct(x: Any, memo: Any, func: Any, args: Any, state: Any = None, listiter: Any = None,
                         dictiter: Any = None, *, deepcopy: Callable = copy.deepcopy) -> Any:
    """copy's `_reconstruct`, which applies a reduction's state with the host's setattr: for a
    program's own reduction, the state is set as the program could set it."""
    if not _program_reduces(type(x)):
        return _reconstruct(x, memo, func, args, state, listiter, dictiter, deepcopy=deepcopy)
    deep = memo is not None
    if deep and args:
        args = deepcopy(args, memo)
    made = func(*args)
    if deep:
        memo[id(x)] = made
    if state is not None:
        if deep:
            state = deepcopy(state, memo)
        if hasattr(type(made), "__setstate__"):
            guard.compiled_getattr(made, "__setstate__")(state)
        else:
            slots = None
            if isinstance(state, tuple) and len(state) == 2:
                state, slots = state
            if isinstance(state, dict) and policy.is_program_class(type(made)):
                # the program's own object's dict, as copy updates it (its class is shielded)
                made.__dict__.update({_exact(key): value for key, value in dict.items(state)
                                      if isinstance(key, str)})
                state = None
            for part in (state, slots):
                for key, value in dict.items(part) if isinstance(part, dict) else ():
                    guard.guarded_setattr(value, made, _exact(key))
    if listiter is not None:
        append = guard.compiled_getattr(made, "append")
        for item in listiter:
            append(deepcopy(item, memo) if deep else item)
    if dictiter is not None:
        for key, value in dictiter:
            made[deepcopy(key, memo) if deep else key] = deepcopy(value, memo) if deep else value
    return made


def install() -> None:
    """Before a program's first line (a program reaches copy and Enum through gradcalc's API too):
    copy applies a program's own reductions through the guard (copy.copy, copy.deepcopy and what
    calls them: dataclasses.asdict, a module's deepcopy), and Enum's functional API goes through
    _enum_create (a class attribute of Enum comes before its metaclass's method of that name).
    Both act as before on everything that is not a program's."""
    copy._reconstruct = _guarded_reconstruct  # type: ignore[attr-defined]
    if "_create_" not in vars(enum.Enum):
        type.__setattr__(enum.Enum, "_create_", classmethod(_enum_create))


# ------------------------------------------------------------------ warnings

def formatwarning(message: Any, category: Any, filename: Any, lineno: Any, line: Any = None) -> str:
    """warnings.formatwarning, which reads no file: the source line is shown only when given."""
    import warnings

    return warnings.formatwarning(message, category, filename, lineno, "" if line is None else line)


def warn_explicit(message: Any, category: Any, filename: Any, lineno: Any, module: Any = None,
                  registry: Any = None, module_globals: Any = None, source: Any = None) -> None:
    """warnings.warn_explicit, without `module_globals` (whose loader it would ask for any file's lines)."""
    import warnings

    given = {name: value for name, value in (("module", module), ("registry", registry), ("source", source))
             if value is not None}  # an explicit module=None would silence the warning
    warnings.warn_explicit(message, category, filename, lineno, **given)
