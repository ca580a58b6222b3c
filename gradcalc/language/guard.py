"""The guard: every attribute a program's code reads, writes or deletes, and getattr, setattr,
hasattr, delattr, str.format and class creation, go through these functions, which apply the
policy (policy.py).

The read path is kept short, since it runs for every `x.attr` of a program: an exact-type rule
lookup, a name test, Python's getattr, and a check that the value's type may be held.
"""
from __future__ import annotations

import builtins
from collections import UserString
from types import FunctionType, MethodType
from typing import Any, Callable

from ..display.names import c_arity_words, shown_class_attribute, shown_method, tp_name, type_name
from .policy import (ATTRIBUTE_HOOKS, CLASS, CLASS_BODY_DUNDERS, CLASS_DUNDERS, CLASS_PROXIES,
                     FORBIDDEN_CLASS_NAMES, FORMATTING, GUARDED_DUNDERS, PICKLING, PROGRAM, READABLE_DUNDERS, RULES,
                     SUPER, USER_DUNDERS, Rule, attribute_hook, class_rule, defines, derivable, is_dunder,
                     is_program_class, is_program_function, private_allowed, proxied, register_program_class, resolve)

_getattr, _setattr, _delattr, _type = builtins.getattr, builtins.setattr, builtins.delattr, builtins.type
_exact_str = str.__str__  # a str subclass's characters as an exact str, running none of its methods
_TEMPLATES = (str, UserString)  # what has a str.format of its own (UserString's formats its data)
_GETSET = _type(_type.__dict__["__dict__"])
_MEMBER = _type(_type.__dict__["__dictoffset__"])
_BUILTIN_METHOD = _type("".count)
_METHOD_DESCRIPTOR = _type(str.count)



# ------------------------------------------------------------------ reading

def exact_name(name: Any) -> str:
    """An attribute name a program gave, as an exact `str`: a `str` subclass's own characters,
    copied by `str.__str__` without running any of its methods. Every decision and the access
    itself then use this one string, never the program's object (whose `__eq__`, `__hash__` or
    `__getitem__` would otherwise decide)."""
    if _type(name) is str:
        return name
    if isinstance(name, str):
        return _exact_str(name)
    raise TypeError(f"attribute name must be string, not '{type_name(name)}'")


def guarded_getattr(obj: Any, name: Any) -> Any:
    """`obj.name` for a name the program computed (getattr, attrgetter, a format string...)."""
    return compiled_getattr(obj, name if _type(name) is str else exact_name(name))


def compiled_getattr(obj: Any, name: str, called: bool = False, _rules: dict = RULES, _type: type = type,
                     _read: Any = getattr, _method: type = MethodType, _builtin: type = _BUILTIN_METHOD) -> Any:
    """`obj.name` as a program may see it, for an exact `str` name (the compiled code's `x.attr`).
    `called` (`x.attr(...)`): a C type's method comes as CPython's method call takes it, its type's
    descriptor with the object, whose errors name the type (`str.count() takes no keyword
    arguments`, where the bound method says `count()`).
    (The defaults bind globals as locals: this runs for every attribute a program reads; the
    compiled code passes two or three arguments only.)"""
    rule = _rules.get(_type(obj))
    if rule is not None and (name in rule.read or (rule.public and name[0] != "_" and name not in rule.deny)):
        value = _read(obj, name)
        value_type = _type(value)
        if value_type in _rules and value_type is not _method and value_type is not _builtin:
            return value
        return held(value, obj, name, called, rule)
    return _slow_getattr(obj, name, rule if rule is not None else resolve(_type(obj)))


def held(value: Any, obj: Any, name: str, called: bool, rule: Any) -> Any:
    """What compiled_getattr gives for `value`, just read as `obj.name` under `rule`, when it is a
    method or of a type the rules do not list (csrc/guard.c's compiled_getattr calls it too)."""
    value_type = _type(value)
    if value_type in RULES:
        if value_type is MethodType and rule.c_methods:
            return shown_method(value)
        # (a method of another name came from the instance's own attributes, which win)
        if called and value_type is _BUILTIN_METHOD and value.__self__ is obj and value.__name__ == name:
            descriptor = _type(obj).__dict__.get(name)  # the type's own, most often
            if _type(descriptor) is _METHOD_DESCRIPTOR:
                return MethodType(descriptor, obj)
            return value if descriptor is not None else _called_method(obj, name, value)
        return value
    return admit(value, obj, name)


# the built-in types whose public methods a program's code reads without the guard's call
_PLAIN_TYPES = (list, dict, str, tuple, set, frozenset, bytes, bytearray, int, float, complex, bool)


class FastReads:
    """Which objects' attributes a program's compiled code reads as Python does, without the
    guard's call (a Python frame for every `xs.append(x)`; with none, a program's frames meet the
    recursion limit where CPython's do, and run at its speed). `table[name]` is the set of exact
    types for which compiled_getattr(obj, name) gives what Python's `obj.name` gives:
      * the built-in types' public methods (a bound C method; CPython's method call when called);
      * tensors' public properties (values of the types programs hold: a test checks each);
      * every public name of a module (whose members `from m import x` hands over as they are) and
        every name but a dunder of the instances of a program's classes made of its own classes
        alone (what the program stored, or its own methods and properties: every private name of
        such a class is the program's, policy.private_allowed). A private name's entry holds those
        classes alone.
    `table[name + "()"]` is the same for a call `obj.name(...)`: those types, and tensors for
    their methods whose call the guard's wrapper (BuiltinMethod, which a method read alone needs,
    to print as PyTorch's) would leave as it is: the generated ops' `x.view(...)`, `x.sum()`.
    The compiled code tests `$type(obj) in $fast[key]`; `cover` makes the entries of the keys a
    statement reads before it runs."""

    def __init__(self) -> None:
        self.table: dict = {}
        self._direct: set = set()
        self._programs: set = set()  # (the program's classes among them)
        self._called: tuple = ()
        self._by_name: dict = {}

    def start(self) -> None:
        """Fill in what the installed rules allow (after policy.install)."""
        from ..autograd.tensor import Tensor
        from ..nn.parameter import Parameter
        from .modules.namespace import Namespace

        for cls in _PLAIN_TYPES:
            self._add_members(cls, lambda member: _type(member) is _METHOD_DESCRIPTOR)
        for cls in (Tensor, Parameter):
            self._add_members(cls, lambda member: isinstance(member, property))
        self._called = (Tensor, Parameter)  # (their methods' call entries: made as cover meets them)
        self.add_direct(Namespace)

    def _add_members(self, cls: type, wanted: Callable[[Any], bool]) -> None:
        rule = resolve(cls)  # (a Parameter's is made on first use)
        if rule is None or _BUILTIN_METHOD not in RULES:
            return
        for base in reversed(cls.__mro__):
            for name, member in vars(base).items():
                if name in FORMATTING and issubclass(cls, _TEMPLATES):
                    continue
                if _public(rule, name) and wanted(_class_member(cls, name)):
                    for key in (name, name + "()"):  # (read directly: called directly too)
                        self._by_name.setdefault(key, set()).add(cls)
                        if key in self.table:
                            self.table[key].add(cls)

    def _called_directly(self, name: str) -> set:
        """The tensor classes whose method `name` a call reaches without the guard (_called_as_it_is),
        worked out for the names a program calls rather than for every method at start-up."""
        called = set()
        for cls in self._called:
            if _public(resolve(cls), name) and _called_as_it_is(_class_member(cls, name)):
                called.add(cls)
        return called

    def add_direct(self, cls: type, program: bool = False) -> None:
        self._direct.add(cls)
        if program:
            self._programs.add(cls)
        for name, types in self.table.items():
            if program or name[0] != "_":
                types.add(cls)

    def cover(self, names: Any) -> None:
        table = self.table
        for name in names:
            if name in table:
                continue
            if name[0] == "_":  # a private name: the program's own classes' only
                table[name] = set(self._programs)
                continue
            table[name] = self._by_name.get(name, set()) | self._direct
            if name.endswith("()"):
                table[name] |= self._called_directly(name[:-2])

    def program_class(self, cls: type) -> None:
        """A class a program made: read directly if every class it derives from is the program's."""
        if all(base is object or is_program_class(base) for base in cls.__mro__):
            self.add_direct(cls, program=True)


# the running session's (Session sets it as it runs a statement): the classes a program makes join it
running_fast_reads: list = [None]


def _public(rule: Any, name: str) -> bool:
    """Whether RULE lets a program read `name` on the fast path (no dunders, private or denied names)."""
    return name in rule.read or (rule.public and name[0] != "_" and name not in rule.deny)


def _called_as_it_is(member: Any) -> bool:
    """Whether a tensor method's call through BuiltinMethod is the plain call: a Python function
    for which the wrapper has no CPython words (it rewords only a C method of no argument or of
    one that did not bind)."""
    return _type(member) is FunctionType and c_arity_words(member, 1) is None


def _class_member(cls: type, name: str) -> Any:
    """The class attribute `name` as the class's MRO holds it (no descriptor run)."""
    for base in cls.__mro__:
        if name in vars(base):
            return vars(base)[name]
    return None


def _called_method(obj: Any, name: str, method: Any) -> Any:
    """The C method `method` (`obj.name`) as CPython's method call takes it: the descriptor the
    type's bases hold (tuple's, for a torch.Size), with the object."""
    for cls in _type(obj).__mro__[1:]:
        descriptor = cls.__dict__.get(name)
        if descriptor is not None:
            return MethodType(descriptor, obj) if _type(descriptor) is _METHOD_DESCRIPTOR else method
    return method


def admit(value: Any, obj: Any, name: str) -> Any:
    """`value`, read as `obj.name`, if the program may hold its type."""
    if resolve(_type(value)) is None:
        raise AttributeError(f"'{type_name(obj)}' object attribute '{name}' holds a "
                             f"'{_type(value).__qualname__}' object, which gradcalc does not give to programs")
    return value


def _slow_getattr(obj: Any, name: str, rule: Any) -> Any:
    if rule is None:
        _refuse(obj, name)
    if rule.kind == CLASS:
        return _class_getattr(obj, name)
    if rule.kind == SUPER:
        return _super_getattr(obj, name)
    if name in FORMATTING and isinstance(obj, _TEMPLATES):
        return _SafeFormatter.bound(obj, name)
    if rule.replaced is not None and name in rule.replaced:
        return rule.replaced[name](obj)
    if not _readable(obj, name, rule):
        _refuse(obj, name)
    if name in GUARDED_DUNDERS:
        return _guarded_special(obj, name, _getattr(obj, name))
    value = _getattr(obj, name)
    if _type(value) is MethodType and rule.c_methods:
        return shown_method(value)
    if name == "__class__":
        value = CLASS_PROXIES.get(value, value)
    return admit(value, obj, name)


def _readable(obj: Any, name: str, rule: Any) -> bool:
    """The names the fast path leaves: dunders, private names and denied public names."""
    if name in rule.read or (rule.public and name[0] != "_" and name not in rule.deny):
        return True
    if rule.public_if is not None and name[0] != "_" and name not in rule.deny and rule.public_if(obj):
        return True
    if is_dunder(name):
        return name in READABLE_DUNDERS
    if name[0] == "_":
        if rule.kind == PROGRAM and private_allowed(_type(obj), name):
            rule.read.add(name)  # learnt once per class, then the fast path takes it
            return True
        return rule.private is not None and rule.private(name)
    return False


def readable_name(obj: Any, name: str) -> bool:
    """Whether the policy lets a program read `obj.name`, decided without reading it (so that
    `dir()` and the REPL's completion run no property)."""
    rule = RULES.get(_type(obj)) or resolve(_type(obj))
    if rule is None:
        return False
    if rule.kind == CLASS:
        if not isinstance(obj, type):
            return False
        if is_dunder(name):
            return name in CLASS_DUNDERS
        if name[0] == "_":
            return is_program_class(obj) and private_allowed(obj, name)
        return class_rule(obj) is not None or is_program_class(obj)
    if rule.kind == SUPER:
        return False
    return _readable(obj, name, rule)


def _refuse(obj: Any, name: str) -> None:
    """Python's own AttributeError for a missing attribute, else gradcalc's refusal. Whether it
    exists is read from the classes, without evaluating it (a property may import, compute or
    fail); only a class's own `__getattr__` (a module's, nn.Module's) is asked, for its message."""
    owners = proxied(obj).__mro__ if isinstance(obj, type) else _type(obj).__mro__
    instance_dict = getattr(obj, "__dict__", None) if not isinstance(obj, type) else None
    exists = any(defines(owner, name) for owner in owners) or (
        isinstance(instance_dict, dict) and name in instance_dict) or (
        isinstance(obj, type) and any(name in vars(meta) for meta in _type(obj).__mro__))
    if not exists:
        if not isinstance(obj, type) and any("__getattr__" in vars(owner) for owner in owners[:-1]):
            try:
                _getattr(obj, name)
            except AttributeError as error:
                raise AttributeError(str(error)) from None
        if isinstance(obj, type):
            raise AttributeError(f"type object '{tp_name(obj)}' has no attribute '{name}'")
        raise AttributeError(f"'{type_name(obj)}' object has no attribute '{name}'")
    if isinstance(obj, type):
        raise AttributeError(f"type object '{tp_name(obj)}' attribute '{name}' is not accessible in gradcalc")
    raise AttributeError(f"'{type_name(obj)}' object attribute '{name}' is not accessible in gradcalc")


def _class_getattr(cls: Any, name: str) -> Any:
    """An attribute of a class: what its objects may show, its special methods, and for a
    program's class its own private names; never the type machinery (`__subclasses__`,
    `__dict__`), and no way round the policy through the class (`Tensor._data`, `dtype.numpy`)."""
    if not isinstance(cls, type):
        _refuse(cls, name)
    if not is_dunder(name):
        cls = proxied(cls)  # a stand-in shows the real class's attributes, its own special methods
    if name in FORMATTING and issubclass(cls, _TEMPLATES):
        return _SafeFormatter.unbound(name, cls)
    program = is_program_class(cls)
    if is_dunder(name):
        allowed = name in CLASS_DUNDERS
    elif name[0] == "_":
        allowed = program and private_allowed(cls, name)
    elif program:
        allowed = True
    else:
        rule = class_rule(cls)  # a class the policy does not list shows nothing
        allowed = rule is not None and (name in rule.read or (rule.public and name not in rule.deny)
                                        or (name == "mro" and not issubclass(cls, type)))  # (shows no more than __mro__)
    if allowed and not is_dunder(name):
        # what the class and its bases define; of its metaclass's, only what the standard library's
        # metaclasses add (`ABC.register`) and `mro`, which shows nothing new
        allowed = (any(name in vars(base) for base in cls.__mro__) or not hasattr(type(cls), name)
                   or name == "mro" or any(name in vars(meta) for meta in type(cls).__mro__
                                           if meta not in (type, object)))
    if not allowed:
        _refuse(cls, name)
    if name == "__name__" and not program:
        return cls.__qualname__  # a C type's __name__ is its full name, kept for Python's messages
    if name == "__mro__":
        return shown_mro(cls)
    if name == "mro":
        return _shown_mro_method(cls)
    value = _getattr(cls, name)
    if name in GUARDED_DUNDERS:
        return _guarded_special(None, name, value)
    return admit(shown_class_attribute(cls, name, value), cls, name)


def _shown_mro_method(cls: type) -> Callable:
    """`cls.mro` as a program holds it: type.mro bound to the class, refusing arguments in its words."""

    def mro(*args: Any, **kwargs: Any) -> list:
        # CPython names a bound C method by its class's __qualname__ (a C type's is its short name)
        if kwargs:
            raise TypeError(f"{cls.__qualname__}.mro() takes no keyword arguments")
        if args:
            raise TypeError(f"{cls.__qualname__}.mro() takes no arguments ({len(args)} given)")
        return list(shown_mro(cls))

    return mro


def shown_mro(cls: type) -> tuple:
    """A class and its bases as a program may hold them. Left out: the host's real class behind a
    guarded stand-in of the same name (argparse's Namespace, which sets any attribute unshielded;
    logging's Formatter, which formats templates unguarded), and private helper bases the policy
    does not list (argparse's _AttributeHolder)."""
    shown: list = []
    for base in cls.__mro__:
        listed = base is cls or base is object or is_program_class(base) or class_rule(base) is not None
        shadowed = any(base.__module__ == stand_in.__module__ and base.__qualname__ == stand_in.__qualname__
                       for stand_in in shown)
        if listed or not (shadowed or base.__name__.startswith("_")):
            shown.append(base)
    return tuple(shown)


def _super_getattr(proxy: super, name: str) -> Any:
    """`super().name`: what the instance itself may show, read from the classes after the owner."""
    instance = proxy.__self__
    if instance is None:
        if name == "__init__":
            # `super(Cls).__init__()` (torch.utils.data's IterableDataset example): the unbound
            # proxy's own __init__, which can only bind it as super() could
            return _getattr(proxy, name)
        _refuse(proxy, name)
    if name in FORMATTING and isinstance(instance, _TEMPLATES):
        return _SafeFormatter.bound(instance, name)
    if name in PICKLING and not _own_pickling(proxy, name):
        _refuse(proxy, name)
    if isinstance(instance, type):  # in a classmethod
        allowed = (name in CLASS_DUNDERS) if is_dunder(name) else (
            name[0] != "_" or (is_program_class(instance) and private_allowed(instance, name)))
    else:
        rule = RULES.get(_type(instance)) or resolve(_type(instance))
        allowed = rule is not None and _readable(instance, name, rule)
    if not allowed:
        _refuse(proxy, name)
    value = _getattr(proxy, name)
    if name in GUARDED_DUNDERS:
        return _guarded_special(instance, name, value)
    return admit(value, proxy, name)


def _own_pickling(proxy: super, name: str) -> bool:
    """Whether `super().__reduce_ex__` (and its kin) is a program's own: Python's and gradcalc's
    give copyreg's functions, which make uninitialised objects of any class."""
    start = proxy.__thisclass__
    mro = proxy.__self_class__.__mro__
    following = mro[mro.index(start) + 1:] if start in mro else ()
    owner = next((base for base in following if name in vars(base)), None)
    return owner is not None and is_program_class(owner)


def _guarded_special(instance: Any, name: str, method: Callable) -> Callable:
    """`__setattr__` and its kin read from an object, a class or super(): the same method, with
    the guard's check of the name first (`object.__setattr__(self, "_x", 1)` in a dataclass)."""

    def checked(*args: Any, **kwargs: Any) -> Any:
        if name == "__new__":
            made = args[0] if args else None
            # a new object of the program's class or of a plain Python type; never an uninitialised
            # object of gradcalc's own, nor a class made behind the class guard
            if isinstance(made, type) and not issubclass(made, type) and (
                    is_program_class(made) or made.__module__ == "builtins"):
                return method(*args, **kwargs)
            shown = made.__qualname__ if isinstance(made, type) else type_name(made)
            raise TypeError(f"__new__ of {shown} is not available in gradcalc")
        target, rest = (instance, args) if instance is not None else (args[0] if args else None, args[1:])
        if not rest or not isinstance(rest[0], str):
            return method(*args)  # Python's own TypeError
        attribute = exact_name(rest[0])
        args = args[:len(args) - len(rest)] + (attribute,) + rest[1:]
        if name in ("__setattr__", "__delattr__"):
            check_writable(target, attribute)
            if name == "__setattr__" and attribute in ATTRIBUTE_HOOKS and isinstance(target, type) and len(rest) > 1:
                args = args[:len(args) - len(rest)] + (attribute, attribute_hook(rest[1])) + rest[2:]
            return method(*args)
        rule = RULES.get(_type(target)) or resolve(_type(target))
        if rule is None or not _readable(target, attribute, rule):
            _refuse(target, attribute)
        return admit(method(*args), target, attribute)

    checked.__name__ = checked.__qualname__ = name
    return checked


# ------------------------------------------------------------------ writing

def guarded_setattr(value: Any, obj: Any, name: str, _rules: dict = RULES, _type: type = type,
                    _write: Any = setattr) -> None:
    """`obj.name = value` (the value comes first: Python evaluates it first)."""
    cls = _type(obj)
    rule = _rules.get(cls)
    # (a pair check_writable let through once, `p.grad = None`, needs no second look: see _WRITABLE_PUBLIC)
    if (rule is None or name not in rule.write) and (cls, name) not in _WRITABLE_PUBLIC:
        check_writable(obj, name)
        if name in ATTRIBUTE_HOOKS and isinstance(obj, type):  # a program's class (check_writable)
            value = attribute_hook(value)
    _write(obj, name, value)


def compiled_paths() -> tuple:
    """The compiled code's `$getattr` and `$setattr`: compiled_getattr and guarded_setattr, or the
    native module's versions of their common paths (csrc/guard.c), which call them for the rest."""
    from ..autograd.native import kernels  # (with the autograd package, which the session's prelude loads)

    if kernels is None:
        return compiled_getattr, guarded_setattr
    kernels.prepare_guard(RULES, held, compiled_getattr, guarded_setattr, Rule)
    return kernels.compiled_getattr, kernels.guarded_setattr


def guarded_delattr(obj: Any, name: str) -> None:
    rule = RULES.get(_type(obj))
    if rule is None or name not in rule.write:
        check_writable(obj, name)
    _delattr(obj, name)


def check_writable(obj: Any, name: str) -> None:
    """Raise unless a program may assign `obj.name`: its own objects' attributes, what the
    policy lists, and the public attributes of objects that take new ones (a tensor, a module),
    unless a read-only property of their class has that name (then PyTorch's or Python's message)."""
    cls = _type(obj)
    rule = RULES.get(cls) or resolve(cls)
    if rule is None:
        raise AttributeError(f"'{tp_name(cls)}' object attribute '{name}' cannot be set in gradcalc")
    if rule.kind == CLASS:
        _check_class_writable(obj, name)
        return
    if name in rule.write:
        return
    if rule.kind == PROGRAM and name in _WRAPPER_NAMES:
        return  # functools.wraps on a program's object (a decorator class): entries in its own dict
    if rule.kind == PROGRAM and not is_dunder(name):
        if name[0] != "_" or private_allowed(cls, name):
            rule.write.add(name)  # learnt once; Python's own errors (a property without setter) still apply
            return
    elif cls is _FUNCTION:
        if name in _FUNCTION_WRITABLE or (name[0] != "_" and is_program_function(obj)):
            return  # a program's function may carry attributes (`f.calls = 0`)
    elif rule.public_write and name[0] != "_":
        if (cls, name) not in _WRITABLE_PUBLIC:
            _check_descriptor(obj, name, rule)
            _remember_writable(cls, name)
        return
    if is_dunder(name) or name[0] == "_":
        raise AttributeError(f"'{tp_name(cls)}' object attribute '{name}' cannot be set in gradcalc")
    _check_descriptor(obj, name, rule)
    raise AttributeError(f"'{tp_name(cls)}' object has no attribute '{name}'")


_FUNCTION = _type(check_writable)
_WRAPPER_NAMES = frozenset({"__module__", "__name__", "__qualname__", "__doc__", "__annotations__", "__wrapped__"})
_FUNCTION_WRITABLE = frozenset({"__name__", "__qualname__", "__doc__", "__module__", "__wrapped__",
                                "__annotations__", "__defaults__", "__kwdefaults__"})


# (class, name) pairs of gradcalc's own classes that _check_descriptor let through: their class
# dicts do not change under a program, so the walk of the MRO (`p.grad = None` every step) is
# made once; bounded, as a program chooses the names
_WRITABLE_PUBLIC: set = set()
_WRITABLE_PUBLIC_KEPT = 4096


def _remember_writable(cls: type, name: str) -> None:
    if len(_WRITABLE_PUBLIC) >= _WRITABLE_PUBLIC_KEPT:
        _WRITABLE_PUBLIC.clear()
    _WRITABLE_PUBLIC.add((cls, name))


def _check_descriptor(obj: Any, name: str, rule: Any) -> None:
    """Python's message (or PyTorch's) for an attribute its class makes read-only."""
    cls = _type(obj)
    owner = next((base for base in cls.__mro__ if name in vars(base)), None)
    if owner is None:
        return
    descriptor = vars(owner)[name]
    if isinstance(descriptor, property):
        if descriptor.fset is not None:
            return
        shown = rule.shown_base or owner.__name__
    elif _type(descriptor) is _GETSET:
        shown = rule.shown_base or owner.__name__
    elif _type(descriptor) is _MEMBER:
        if rule.shown_base is None:
            raise AttributeError("readonly attribute")
        shown = rule.shown_base  # a slot of a class PyTorch writes in C: its getset's message
    elif hasattr(descriptor, "__set__") or not hasattr(obj, "__dict__"):
        raise AttributeError(f"'{tp_name(cls)}' object attribute '{name}' is read-only")
    else:
        return  # a method or a plain class attribute: the instance's own attribute shadows it
    raise AttributeError(f"attribute '{name}' of '{shown}' objects is not writable")


def _check_class_writable(cls: Any, name: str) -> None:
    if is_program_class(cls):
        if name in FORBIDDEN_CLASS_NAMES or (is_dunder(name) and name not in CLASS_BODY_DUNDERS | {"__name__"}):
            raise AttributeError(f"type object '{tp_name(cls)}' attribute '{name}' cannot be set in gradcalc")
        if name[0] == "_" and not is_dunder(name) and not private_allowed(cls, name):
            raise AttributeError(f"type object '{tp_name(cls)}' attribute '{name}' cannot be set in gradcalc")
        return
    if isinstance(cls, type) and cls.__module__ == "builtins":
        raise TypeError(f"cannot set '{name}' attribute of immutable type '{cls.__name__}'")
    shown = tp_name(cls) if isinstance(cls, type) else type_name(cls)
    raise AttributeError(f"attributes of class '{shown}' cannot be set in gradcalc")


# ------------------------------------------------------------------ str.format

def _format(template: str, args: tuple, kwargs: Any) -> str:
    """str.format, with `{0.attr}` read through the guard: a format string is a program too.
    Python's own parser splits the fields; numbering and errors are str.format's."""
    import _string

    counter: list = [0]  # the next automatic index; None once a field was numbered by hand

    def render(text: str, depth: int) -> str:
        if depth < 0:
            raise ValueError("Max string recursion exceeded")
        out = []
        for literal, field, spec, conversion in _string.formatter_parser(text):
            out.append(literal)
            if field is None:
                continue
            first, rest = _string.formatter_field_name_split(field)
            if first == "":
                if counter[0] is None:
                    raise ValueError("cannot switch from manual field specification to automatic field numbering")
                first = counter[0]
                counter[0] += 1
            elif isinstance(first, int):
                if counter[0]:
                    raise ValueError("cannot switch from automatic field numbering to manual field specification")
                counter[0] = None
            if isinstance(first, int):
                if first >= len(args):
                    raise IndexError(f"Replacement index {first} out of range for positional args tuple")
                value = args[first]
            else:
                value = kwargs[first]
            for is_attribute, key in rest:
                value = guarded_getattr(value, key) if is_attribute else value[key]
            if conversion is not None:
                converters = {"r": repr, "s": str, "a": ascii}
                if conversion not in converters:
                    raise ValueError(f"Unknown conversion specifier {conversion}")
                value = converters[conversion](value)
            out.append(format(value, render(spec, depth - 1) if spec else ""))
        return "".join(out)

    return render(template, 2)


format_template = _format  # for the library code that formats a program's template (logging's `{` style)


class _SafeFormatter:
    """str.format and str.format_map as a program gets them (see _format)."""

    @staticmethod
    def bound(template: Any, name: str) -> Callable:
        if isinstance(template, UserString):  # its format is its data's
            data = template.data
            template = exact_name(data) if isinstance(data, str) else str(data)
        if name == "format":
            def format(*args: Any, **kwargs: Any) -> str:
                return _format(template, args, kwargs)
            return format

        def format_map(mapping: Any) -> str:
            return _format(template, (), mapping)
        return format_map

    @staticmethod
    def unbound(name: str, cls: type) -> Callable:
        owner = UserString if issubclass(cls, UserString) else str

        def method(template: Any, *args: Any, **kwargs: Any) -> str:
            if not isinstance(template, owner):
                if owner is UserString:  # a plain function of the class: what it reads is missing
                    raise AttributeError(f"'{type_name(template)}' object has no attribute 'data'")
                raise TypeError(f"descriptor '{name}' for 'str' objects doesn't apply to a "
                                f"'{type_name(template)}' object")
            return _SafeFormatter.bound(template, name)(*args, **kwargs)
        method.__name__ = method.__qualname__ = name
        return method


# ------------------------------------------------------------------ classes

def exact_namespace(namespace: dict) -> dict:
    """A class namespace a program built (`type(name, bases, dict)`, make_dataclass's), read
    through dict's own method and keyed by exact strings: a key of its own type would decide, by
    its `__eq__` and `__hash__`, which attribute a lookup finds."""
    exact = {}
    for key, value in dict.items(namespace):
        if not isinstance(key, str):
            raise TypeError(f"a class attribute name must be a string, not '{type_name(key)}'")
        exact[exact_name(key)] = value
    return exact


def check_class_namespace(name: str, namespace: dict) -> None:
    """What a class body (or `type(name, bases, dict)`, with exact_namespace's keys) may define."""
    for key, value in namespace.items():
        if key in ("__dict__", "__weakref__") and _type(value) is _GETSET:
            continue  # what Python itself adds to a class
        if key in FORBIDDEN_CLASS_NAMES or (is_dunder(key) and key not in CLASS_BODY_DUNDERS):
            raise TypeError(f"defining '{key}' in a class is not supported in gradcalc")


def check_bases(bases: tuple) -> None:
    for base in bases:
        if not derivable(base):
            shown = base.__qualname__ if isinstance(base, type) else type_name(base) + " object"
            raise TypeError(f"a class in gradcalc cannot derive from {shown}")


_build_class = builtins.__build_class__


def make_build_class(metaclasses: Callable[[Any], Any]) -> Callable:
    """The `__build_class__` of a session's builtins: the class statement's one way in.
    `metaclasses(m)` maps a metaclass a program names to the real one, or None if refused."""

    def build_class(body: Callable, name: str, *bases: Any, **keywords: Any) -> type:
        import types

        if "metaclass" in keywords:
            metaclass = metaclasses(keywords["metaclass"])
            if metaclass is None:
                raise TypeError("a metaclass other than abc.ABCMeta is not supported in gradcalc")
            keywords["metaclass"] = metaclass
        check_bases(types.resolve_bases(bases))
        cls = _build_class(body, name, *bases, **keywords)  # the body's names were checked when compiled
        if isinstance(cls, type):
            _program_class(cls)
        return cls

    return build_class


def make_class(name: Any, bases: Any, namespace: Any, metaclass: Any = type) -> type:
    """`type(name, bases, dict)`: the same checks as a class statement."""
    if not isinstance(name, str):
        raise TypeError(f"type.__new__() argument 1 must be str, not {type_name(name)}")
    if not isinstance(bases, tuple):
        raise TypeError(f"type.__new__() argument 2 must be tuple, not {type_name(bases)}")
    if not isinstance(namespace, dict):
        raise TypeError(f"type.__new__() argument 3 must be dict, not {type_name(namespace)}")
    check_bases(bases)
    name, namespace = exact_name(name), exact_namespace(namespace)
    check_class_namespace(name, namespace)
    cls = metaclass(name, bases, {"__module__": "__main__", **namespace})
    _program_class(cls)
    return cls


def _program_class(cls: type) -> None:
    register_program_class(cls)
    fast = running_fast_reads[0]
    if fast is not None:
        fast.program_class(cls)


__all__ = ["exact_name", "guarded_getattr", "compiled_getattr", "guarded_setattr", "guarded_delattr", "check_writable", "admit",
           "make_build_class", "make_class", "check_class_namespace", "USER_DUNDERS"]
