"""Python's builtins as a program sees them, and the prelude of SPEC §3.

Most are Python's own. Those that reach past an object's public face (getattr, setattr,
hasattr, delattr, vars, dir, type) go through the guard; `open` opens the session's own files
(gradcalc/files); those that would reach the host (eval, exec, compile, globals, locals, input,
breakpoint, help) refuse in one line.
The guard's own entries (`$getattr`, ...) have names no program can write.
"""
from __future__ import annotations

import ast
import builtins as host
import operator
from typing import Any, Callable, Optional

from . import compiler, guard, limits, nesting, policy
from ..c_arguments import c_arguments
from ..display.names import torch_class
from ..files import streams

PRELUDE_FROM_TORCH = (
    "tensor", "ones", "zeros", "ones_like", "zeros_like", "full", "full_like", "arange", "linspace", "eye", "rand",
    "randn", "randint", "rand_like", "randn_like", "manual_seed", "no_grad", "enable_grad", "set_grad_enabled",
    "autograd", "exp", "log", "sin", "cos", "tanh", "sigmoid", "relu", "sqrt", "matmul", "stack", "cat",
)

_PLAIN = (
    "abs", "aiter", "all", "anext", "any", "ascii", "bin", "bool", "bytearray", "bytes", "callable", "chr",
    "classmethod", "complex", "dict", "divmod", "enumerate", "filter", "float", "format", "frozenset", "hash", "hex",
    "id", "int", "isinstance", "issubclass", "iter", "len", "list", "map", "max", "min", "next", "object", "oct",
    "ord", "print", "property", "range", "repr", "reversed", "round", "set", "slice", "sorted", "staticmethod", "str",
    "sum", "super", "tuple", "zip", "memoryview", "None", "Ellipsis", "NotImplemented", "False", "True",
)

# What is refused, and why, in the words of the one line a program gets.
_REFUSED = {
    "input": "a program reads no input",
    "eval": "a program cannot run code from strings",
    "exec": "a program cannot run code from strings",
    "compile": "a program cannot compile code from strings",
    "globals": "a program cannot reach its namespace as a dictionary",
    "locals": "a program cannot reach its namespace as a dictionary",
    "breakpoint": "there is no debugger",
    "help": "there is no interactive help",
}


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


def _open(*args: Any, **kwargs: Any) -> Any:
    """open(file, mode='r', buffering=-1, encoding=None, errors=None, newline=None, closefd=True,
    opener=None), bound and converted in Argument Clinic's order and words, on the session's files."""
    return streams.open_file(**streams.open_arguments(args, kwargs))


# the session's own files' `open`, which is also io.open
OPEN = Builtin("open", _open)


def _refusal(name: str, why: str) -> Builtin:
    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise PermissionError(f"{name}() is not available in gradcalc: {why}")

    return Builtin(name, refuse)


@torch_class("Quitter")
class Quitter:
    """`exit` and `quit`, as the site module gives them: calling one ends the program."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"Use {self.name}() or Ctrl-D (i.e. EOF) to exit"

    def __call__(self, code: Any = None) -> None:
        raise SystemExit(code)


_METACLASSES: dict = {}  # the proxy a program holds -> the metaclass it stands for
_PROXIES: dict = {}  # and back


def guarded_metaclass(real: type) -> type:
    """What a program holds for a metaclass (`type`, `abc.ABCMeta`): a class that answers
    `isinstance` and `issubclass` as the real one, makes classes only through the class guard,
    and, for `type`, tells an object's type (the metaclass of any class shows as `type`)."""

    class Metaclass(host.type):
        def __call__(cls, *args: Any, **kwargs: Any) -> Any:
            if real is host.type and len(args) == 1 and kwargs:
                raise TypeError("type() takes no keyword arguments")
            if real is host.type and len(args) == 1 and not kwargs:
                result = host.type(args[0])
                if issubclass(result, host.type):
                    return _PROXIES.get(result, Type)
                policy.resolve(result)  # a library's rules, and its classes' stand-ins, made on first use
                return policy.CLASS_PROXIES.get(result, result)
            if len(args) == 3:
                return guard.make_class(*args, metaclass=real)
            raise TypeError(f"{real.__name__}() takes 1 or 3 arguments" if real is host.type
                            else f"{real.__name__}() takes 3 arguments")

        def __instancecheck__(cls, value: Any) -> bool:
            return isinstance(value, real) or value in _METACLASSES

        def __subclasscheck__(cls, subclass: Any) -> bool:
            return issubclass(_METACLASSES.get(subclass, subclass), real)

        def __repr__(cls) -> str:
            return repr(real)

    # its methods show as the real metaclass's (`<bound method type.__call__ of <class 'type'>>`)
    for method in (Metaclass.__call__, Metaclass.__instancecheck__, Metaclass.__subclasscheck__):
        method.__qualname__ = f"{real.__qualname__}.{method.__name__}"
    proxy = Metaclass(real.__name__, (), {"__module__": real.__module__, "__qualname__": real.__qualname__,
                                          "__doc__": real.__doc__})
    _METACLASSES[proxy] = real
    _PROXIES[real] = proxy
    policy.allow_module_types([Metaclass], kind=policy.CLASS)
    return proxy


Type = guarded_metaclass(host.type)
# the iterators that count their nesting are held as the builtins they stand for
policy.allow_module_types(nesting.COUNTED_ITERATORS.values())


def metaclass_for(value: Any) -> Any:
    """The real metaclass for one a program names in `class C(metaclass=...)`, or None."""
    real = _METACLASSES.get(value, value)
    return real if real in _METACLASSES.values() else None


def _positional(name: str, args: tuple, kwargs: dict, low: int, high: int) -> None:
    """Python's checks for a builtin that takes only positional arguments (`hasattr expected 2
    arguments, got 1`): the wrappers here must not show their own names and parameters."""
    if kwargs:
        raise TypeError(f"{name}() takes no keyword arguments")
    if low <= len(args) <= high:
        return
    if low == high:
        raise TypeError(f"{name} expected {low} argument{'s' if low != 1 else ''}, got {len(args)}")
    if len(args) < low:
        raise TypeError(f"{name} expected at least {low} argument{'s' if low != 1 else ''}, got {len(args)}")
    raise TypeError(f"{name} expected at most {high} argument{'s' if high != 1 else ''}, got {len(args)}")


def _getattr(*args: Any, **kwargs: Any) -> Any:
    _positional("getattr", args, kwargs, 2, 3)
    obj, name, *default = args
    name = guard.exact_name(name)
    try:
        return guard.guarded_getattr(obj, name)
    except AttributeError:
        if default:
            return default[0]
        raise


def _hasattr(*args: Any, **kwargs: Any) -> bool:
    _positional("hasattr", args, kwargs, 2, 2)
    obj, name = args
    name = guard.exact_name(name)
    try:
        guard.guarded_getattr(obj, name)
    except AttributeError:
        return False
    return True


def _setattr(*args: Any, **kwargs: Any) -> None:
    _positional("setattr", args, kwargs, 3, 3)
    obj, name, value = args
    guard.guarded_setattr(value, obj, guard.exact_name(name))


def _delattr(*args: Any, **kwargs: Any) -> None:
    _positional("delattr", args, kwargs, 2, 2)
    obj, name = args
    guard.guarded_delattr(obj, guard.exact_name(name))


def exact_keywords(mapping: Any) -> Any:
    """`f(**mapping)`'s mapping with exact-`str` keys (see compiler.KWARGS); Python's own errors
    for what is not a mapping of strings."""
    if host.type(mapping) is dict and all(host.type(key) is str for key in mapping):
        return mapping
    if not hasattr(mapping, "keys"):
        return mapping
    return {guard.exact_name(key) if isinstance(key, str) else key: mapping[key] for key in mapping.keys()}


def _vars(*args: Any, **kwargs: Any) -> Any:
    _positional("vars", args, kwargs, 0, 1)
    if not args:
        raise PermissionError("vars() without an argument is not available in gradcalc: "
                              "a program cannot reach its namespace as a dictionary")
    try:
        return guard.guarded_getattr(args[0], "__dict__")
    except AttributeError:
        raise TypeError("vars() argument must have __dict__ attribute") from None


_POW_PARAMETERS = ("base", "exp", "mod")


def _pow(*args: Any, **kwargs: Any) -> Any:
    """pow(base, exp, mod=None), bound in Argument Clinic's order and words, then guarded."""
    bound = c_arguments("pow()", _POW_PARAMETERS, 2, args, kwargs)
    return limits.guarded_pow(bound["base"], bound["exp"], bound.get("mod"))


def make_builtins(namespace: dict, modules: Any, echo: Callable[[Any], None]) -> dict:
    """The builtins of one session, whose globals are `namespace`."""

    def dir_(*args: Any, **kwargs: Any) -> list:
        _positional("dir", args, kwargs, 0, 1)
        if not args:
            return sorted(name for name in namespace if not name.startswith("$") and name != "__builtins__")
        return sorted(name for name in host.dir(args[0]) if guard.readable_name(args[0], name))

    def echo_(value: Any) -> None:
        # as sys.displayhook: None is not shown, and `_` holds the last value shown
        if value is None:
            return
        table["_"] = None
        echo(value)
        table["_"] = value

    streams.allow_types()
    table: dict = {name: getattr(host, name) for name in _PLAIN}
    table.update({name: value for name, value in vars(host).items()
                  if isinstance(value, type) and issubclass(value, BaseException)})
    table.update({name: _refusal(name, why) for name, why in _REFUSED.items()})
    table.update(
        type=Type, getattr=Builtin("getattr", _getattr), hasattr=Builtin("hasattr", _hasattr),
        setattr=Builtin("setattr", _setattr), delattr=Builtin("delattr", _delattr), vars=Builtin("vars", _vars),
        dir=Builtin("dir", dir_), pow=Builtin("pow", _pow), exit=Quitter("exit"), quit=Quitter("quit"),
        hash=Builtin("hash", nesting.guarded_hash), open=OPEN,
        **nesting.COUNTED_ITERATORS,
        # C code a program calls looks these up here (time.strptime imports _strptime); a program
        # cannot name them, and its import statements go through `$import`
        __build_class__=guard.make_build_class(metaclass_for), __import__=host.__import__,
    )
    getattr_, setattr_ = guard.compiled_paths()
    table.update({
        compiler.GETATTR: getattr_, compiler.TYPE: type, compiler.FAST: frozenset(),
        compiler.SETATTR: setattr_,
        compiler.DELATTR: guard.guarded_delattr, compiler.ECHO: echo_,
        compiler.KWARGS: exact_keywords, compiler.POW: limits.guarded_pow, compiler.LSHIFT: limits.guarded_lshift,
        compiler.IMPORT: modules.import_name, compiler.IMPORT_FROM: modules.import_from,
        compiler.IMPORT_STAR: lambda name, level: modules.import_star(namespace, name, level),
    })
    inplace = {ast_op: getattr(operator, name[1:]) for ast_op, name in compiler.INPLACE.items()}
    table.update({name: inplace[ast_op] for ast_op, name in compiler.INPLACE.items()})
    table[compiler.INPLACE[ast.Pow]] = limits.guarded_ipow
    table[compiler.INPLACE[ast.LShift]] = limits.guarded_ilshift
    return table


def prelude(import_module: Callable[[str], Any]) -> dict:
    """The names in scope before a program's first line."""
    torch = import_module("torch")
    names = {"torch": torch, "nn": import_module("torch.nn"), "F": import_module("torch.nn.functional")}
    names.update({name: getattr(torch, name) for name in PRELUDE_FROM_TORCH})
    return names
