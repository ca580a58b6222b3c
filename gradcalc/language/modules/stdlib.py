"""The standard modules tutorials import, each a table of the real module's harmless members.

A builder returns a module's members and lists, in the policy, the types of the values they
make (a `re.Pattern`, a `datetime`). A member is admitted for what it does, not for its public
name: what reads or sets attributes by names a program chose, formats them into source it runs,
evaluates strings or reads files is replaced by a version that goes through the guard
(guarded_helpers.py, guarded_argparse.py) or is left out. Why each of the others is safe:

* math, cmath, statistics, heapq, bisect, fractions, decimal, numbers, itertools, datetime, time,
  string (constants, capwords, Template: `$name` is a mapping lookup, never an attribute walk),
  textwrap, json, re: they compute on the values given and call only the program's own methods
  (`__lt__`, `__float__`, a `default=` or `key=` function), never the host's getattr, setattr or
  eval with a program's string; `time.sleep` only waits (the jail's CPU limit bounds it).
* functools: partial, reduce, cmp_to_key, lru_cache/cache (the host's update_wrapper, copying a
  program function's own public attributes), cached_property (its name comes from the class
  statement), partialmethod; wraps, update_wrapper, total_ordering, singledispatch(method) are
  guarded_helpers'.
* operator: item and arithmetic functions; attrgetter and methodcaller read through the guard;
  pow and lshift carry the size limits.
* collections: containers (UserString's format is the guard's); namedtuple is guarded_helpers'.
* copy: copy and deepcopy, whose `_reconstruct` applies a program's own reductions through the
  guard (guarded_helpers.install).
* dataclasses: field, fields, asdict, astuple, replace, is_dataclass read the fields that
  dataclass checked; dataclass and make_dataclass are guarded_helpers'.
* typing: aliases, forms, TypeVar, cast, Protocol, TypedDict (they keep annotations, never
  evaluate them); get_type_hints and NamedTuple are guarded_helpers'; final and
  dataclass_transform mark the program's own classes and functions only; no_type_check, which sets a flag on every function of any
  class, is left out.
* abc, enum: classes a program derives from; Enum's functional API is guarded_helpers'.
* contextlib: context managers calling the program's own callables; redirect_stdout and
  redirect_stderr point the session's streams at a program object for the block.
* types: type objects to compare with; SimpleNamespace is guarded_helpers' (a shielded class).
* pprint: formats with `repr`, printing to the session's stdout.
* argparse: guarded_argparse's parser (no `@file`, `dest`s the guard allows) and Namespace.
* warnings: warn, filters and catch_warnings (shown through the session); formatwarning and
  warn_explicit read no source file.
* sys: constants, getsizeof, intern, exit; argv, modules and path are the program's own copies.
* random, io, __future__: a session's own generator, in-memory streams, feature flags.
"""
from __future__ import annotations

import functools
import sys as host_sys
from types import ModuleType
from typing import Any, Callable, Iterable

from .. import guard, policy
from ...display.names import c_arity, torch_class
from ..builtins import Builtin
from . import guarded_helpers as guarded
from .namespace import Submodule


def _public(module: Any, names: Iterable[str] = (), without: Iterable[str] = ()) -> dict:
    """The module's public members (or only `names`), less `without` and the modules it imported."""
    chosen = list(names) or [name for name in vars(module) if not name.startswith("_")]
    refused = set(without)
    return {name: getattr(module, name) for name in chosen
            if name not in refused and hasattr(module, name) and not isinstance(getattr(module, name), ModuleType)}


def _allow(*types_: Any, **options: Any) -> None:
    policy.allow_module_types([t for t in types_ if isinstance(t, type)], **options)


def _public_read(*types_: Any) -> None:
    _allow(*types_, public=True)


def _shown_as(original: Callable, replacement: Callable) -> Callable:
    """`replacement` (guarded_helpers') with the names and documentation of the member it stands
    for, as Python shows that member; never a way back to it (no `__wrapped__`)."""
    functools.update_wrapper(replacement, original, updated=())
    del replacement.__wrapped__
    return replacement


# ------------------------------------------------------------------ the builders

def _math() -> dict:
    import math

    return _public(math)


def _cmath() -> dict:
    import cmath

    return _public(cmath)


def _itertools() -> dict:
    import itertools

    members = _public(itertools)
    for cls in [v for v in members.values() if isinstance(v, type)] + [type(itertools.tee([])[0]),
                                                                        type(next(itertools.groupby([1]))[1])]:
        _allow(cls, read=policy.public_names(cls))  # chain.from_iterable, tee's __copy__
    return members


def _functools() -> dict:
    import functools as module

    members = _public(module, ("partial", "partialmethod", "reduce", "wraps", "update_wrapper", "lru_cache", "cache",
                               "cached_property", "total_ordering", "cmp_to_key", "singledispatch",
                               "singledispatchmethod", "WRAPPER_ASSIGNMENTS", "WRAPPER_UPDATES"))
    _allow(module.partial, read={"func", "args", "keywords", "__call__", "__doc__"}, write={"__doc__"}, subclasses=False)
    cached = module.lru_cache()(lambda: None)
    # (not its other attributes: update_wrapper copied them from whatever it wraps, gradcalc's objects too)
    _allow(type(cached), read={"cache_info", "cache_clear", "cache_parameters", "__wrapped__", "__name__",
                               "__qualname__", "__doc__", "__module__", "__call__"})
    _allow(type(cached.cache_info()), public=True)
    members.update({name: _shown_as(getattr(module, name), getattr(guarded, name))
                    for name in ("wraps", "update_wrapper", "total_ordering", "singledispatch")})
    members["singledispatchmethod"] = guarded.singledispatchmethod
    _allow(module.cached_property, module.partialmethod, read={"__doc__"})
    _allow(guarded.singledispatchmethod, read={"__doc__", "register"})
    _allow(type(module.cmp_to_key(lambda a, b: 0)(1)), read=set())
    return members


def _call_arguments(kind: str, objs: tuple, kwargs: dict) -> Any:
    """The one object an attrgetter or methodcaller is called with, refused in C's words otherwise."""
    if kwargs:
        raise TypeError(f"{kind}() takes no keyword arguments")
    if len(objs) != 1:
        raise TypeError(f"{kind} expected 1 argument, got {len(objs)}")
    return objs[0]


@torch_class("operator.attrgetter", c_type=True)
class attrgetter:  # noqa: N801 (named as the C type it stands for, which its methods show)
    """operator.attrgetter, reading through the guard."""

    __slots__ = ("_names",)

    def __init__(self, *names: str, **kwargs: Any) -> None:
        if kwargs:
            raise TypeError("attrgetter() takes no keyword arguments")
        if not all(isinstance(name, str) for name in names):
            raise TypeError("attribute name must be a string")
        if not names:
            raise TypeError("attrgetter expected 1 argument, got 0")
        self._names = tuple(guard.exact_name(name) for name in names)  # split and read as the characters they are

    def __call__(self, *objs: Any, **kwargs: Any) -> Any:
        obj = _call_arguments("attrgetter", objs, kwargs)
        values = []
        for dotted in self._names:
            value = obj
            for part in dotted.split("."):
                value = guard.compiled_getattr(value, part)
            values.append(value)
        return values[0] if len(values) == 1 else tuple(values)

    def __repr__(self) -> str:
        return f"operator.attrgetter({', '.join(map(repr, self._names))})"


@torch_class("operator.methodcaller", c_type=True)
class methodcaller:  # noqa: N801 (named as the C type it stands for)
    """operator.methodcaller, reading the method through the guard."""

    __slots__ = ("_name", "_args", "_kwargs")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if not args:
            raise TypeError("methodcaller needs at least one argument, the method name")
        name, *rest = args
        if not isinstance(name, str):
            raise TypeError("method name must be a string")
        self._name, self._args, self._kwargs = guard.exact_name(name), tuple(rest), dict(kwargs)

    def __call__(self, *objs: Any, **kwargs: Any) -> Any:
        obj = _call_arguments("methodcaller", objs, kwargs)
        return guard.compiled_getattr(obj, self._name)(*self._args, **self._kwargs)

    def __repr__(self) -> str:
        shown = [repr(self._name), *map(repr, self._args), *(f"{key}={value!r}" for key, value in self._kwargs.items())]
        return f"operator.methodcaller({', '.join(shown)})"


def _operator() -> dict:
    import operator

    from .. import limits

    members = _public(operator)
    members.update(attrgetter=attrgetter, methodcaller=methodcaller,
                   pow=Builtin("pow", limits.guarded_pow), ipow=Builtin("ipow", limits.guarded_ipow),
                   lshift=Builtin("lshift", limits.guarded_lshift), ilshift=Builtin("ilshift", limits.guarded_ilshift),
                   __pow__=Builtin("pow", limits.guarded_pow), __lshift__=Builtin("lshift", limits.guarded_lshift))
    _allow(operator.itemgetter, attrgetter, methodcaller, read={"__call__"})
    return members


def _collections() -> dict:
    import collections

    members = _public(collections, ("OrderedDict", "defaultdict", "Counter", "deque", "ChainMap", "UserDict",
                                    "UserList", "UserString"))
    members.update(namedtuple=_shown_as(collections.namedtuple, guarded.namedtuple),
                   abc=Submodule("collections.abc"))
    return members  # their types are in the policy from the start: gradcalc's API returns them


def _collections_abc() -> dict:
    import collections.abc

    members = _public(collections.abc)
    _allow(*members.values(), read=set(), derivable=True)
    return members


def _copy() -> dict:
    import copy

    return _public(copy, ("copy", "deepcopy", "Error"))


def _dataclasses() -> dict:
    import dataclasses

    members = _public(dataclasses, ("field", "fields", "asdict", "astuple", "replace", "is_dataclass",
                                    "FrozenInstanceError", "MISSING", "InitVar", "KW_ONLY", "Field"))
    members.update(dataclass=_shown_as(dataclasses.dataclass, guarded.dataclass),
                   make_dataclass=_shown_as(dataclasses.make_dataclass, guarded.make_dataclass))
    _allow(dataclasses.Field, read={"name", "type", "default", "default_factory", "init", "repr", "hash", "compare",
                                    "metadata", "kw_only"})
    _allow(type(dataclasses.MISSING), type(dataclasses.KW_ONLY), dataclasses.InitVar, read=set())
    return members


def _typing() -> dict:
    import typing

    # no_type_check sets a flag on every function of any class it is given (gradcalc's too)
    members = _public(typing, without=("get_type_hints", "get_overloads", "clear_overloads", "TYPE_CHECKING",
                                       "ForwardRef", "no_type_check", "no_type_check_decorator", "io", "re"))
    members["TYPE_CHECKING"] = False
    members["get_type_hints"] = _shown_as(typing.get_type_hints, guarded.get_type_hints)
    members["final"] = _shown_as(typing.final, guarded.own_only(typing.final))

    def dataclass_transform(**options: Any) -> Callable:
        return guarded.own_only(typing.dataclass_transform(**options))

    members["dataclass_transform"] = _shown_as(typing.dataclass_transform, dataclass_transform)
    members["NamedTuple"] = guarded.named_tuple
    install_typing_types()
    return members


def install_typing_types() -> None:
    """The values typing makes (aliases, forms, type variables; `int | None` in an annotation
    without `import typing`): they show their parts, nothing more."""
    import typing

    samples = [typing.List[int], typing.Optional[int], typing.Callable[[int], int], typing.Union, typing.Any,
               typing.TypeVar("T"), typing.List, typing.Tuple[int, ...], typing.Literal[1], typing.Dict[str, int],
               typing.Annotated[int, 1], list[int], int | None, typing.Generic, typing.Protocol, typing.Final,
               typing.ClassVar[int], typing.NewType("N", int), typing.ParamSpec("P"), typing.Tuple, typing.Literal,
               typing.Callable]
    _allow(*[type(sample) for sample in samples],
           read={"__origin__", "__args__", "__name__", "__qualname__", "__module__", "__doc__", "__parameters__",
                 "__metadata__", "__supertype__", "__getitem__", "__call__", "__or__", "__ror__"})
    # what `class C(NamedTuple)` and its kin derive from (their __mro_entries__)
    for cls in (typing.Generic, typing.Protocol, getattr(typing, "_NamedTuple", None),
                getattr(typing, "_TypedDict", None)):
        if isinstance(cls, type):
            _allow(cls, read=set(), derivable=True)


def _abc() -> dict:
    import abc

    from ..builtins import guarded_metaclass

    members = _public(abc, ("ABC", "abstractmethod", "abstractproperty", "abstractclassmethod",
                            "abstractstaticmethod"))
    members["ABCMeta"] = guarded_metaclass(abc.ABCMeta)
    _allow(abc.ABC, derivable=True)
    _allow(abc.ABCMeta, kind=policy.CLASS)
    return members


def _enum() -> dict:
    import enum

    members = _public(enum, ("Enum", "IntEnum", "Flag", "IntFlag", "StrEnum", "auto", "unique", "verify",
                             "nonmember", "member", "EnumCheck"))
    for cls in (enum.Enum, enum.IntEnum, enum.Flag, enum.IntFlag, getattr(enum, "StrEnum", None)):
        if cls is not None:
            _allow(cls, public=True, read={"name", "value", "__members__"}, derivable=True)
    _allow(type(enum.Enum), kind=policy.CLASS)
    _allow(enum.auto, read={"value"})
    return members


def _string() -> dict:
    import string

    members = _public(string, ("ascii_letters", "ascii_lowercase", "ascii_uppercase", "digits", "hexdigits",
                               "octdigits", "punctuation", "printable", "whitespace", "capwords", "Template"))
    _allow(string.Template, read={"substitute", "safe_substitute", "template", "is_valid", "get_identifiers"},
           derivable=True)
    return members


def _statistics() -> dict:
    import statistics

    members = _public(statistics)
    _allow(statistics.NormalDist, public=True)
    return members


def _time() -> dict:
    import time

    members = _public(time, ("time", "time_ns", "perf_counter", "perf_counter_ns", "monotonic", "monotonic_ns",
                             "process_time", "process_time_ns", "sleep", "strftime", "strptime", "gmtime",
                             "localtime", "mktime", "asctime", "ctime", "struct_time", "timezone", "altzone",
                             "daylight", "tzname"))
    _public_read(time.struct_time)
    return members


def _datetime() -> dict:
    import datetime

    members = _public(datetime, ("date", "datetime", "time", "timedelta", "timezone", "tzinfo", "MINYEAR",
                                 "MAXYEAR"))
    _public_read(datetime.date, datetime.datetime, datetime.time, datetime.timedelta, datetime.timezone,
                 datetime.tzinfo, type(datetime.date(2000, 1, 1).isocalendar()))
    return members


def _re() -> dict:
    import re

    members = _public(re, ("compile", "search", "match", "fullmatch", "split", "findall", "finditer", "sub", "subn",
                           "escape", "purge", "error", "Pattern", "Match", "I", "IGNORECASE", "M", "MULTILINE",
                           "S", "DOTALL", "X", "VERBOSE", "A", "ASCII", "L", "LOCALE", "U", "UNICODE", "NOFLAG",
                           "RegexFlag"))
    _public_read(re.Pattern, re.Match, re.RegexFlag, type(re.compile("").scanner("")))
    return members


def _json_default(encoder: Any, value: Any) -> Any:
    """JSONEncoder.default in json's words, a C type of torch's named as Python names one: by the
    last part of its full name (gradcalc's classes standing for them carry the full name)."""
    raise TypeError(f"Object of type {type(value).__name__.rpartition('.')[2]} is not JSON serializable")


def _json() -> dict:
    import json

    json.JSONEncoder.default = _json_default  # type: ignore[method-assign]
    members = _public(json, ("dumps", "loads", "JSONDecodeError", "JSONEncoder", "JSONDecoder"))
    _allow(json.JSONEncoder, json.JSONDecoder, public=True, derivable=True)
    return members


def _heapq() -> dict:
    import heapq

    return _public(heapq)


def _bisect() -> dict:
    import bisect

    return _public(bisect)


def _numbers() -> dict:
    import numbers

    members = _public(numbers)
    _allow(*members.values(), read=set(), derivable=True)
    return members


def _contextlib() -> dict:
    import contextlib

    members = _public(contextlib, ("contextmanager", "nullcontext", "suppress", "ExitStack", "closing",
                                   "ContextDecorator", "AbstractContextManager", "redirect_stdout",
                                   "redirect_stderr"))
    _allow(contextlib.ContextDecorator, contextlib.AbstractContextManager, read=set(), derivable=True)
    _allow(contextlib.ExitStack, read={"enter_context", "push", "callback", "pop_all", "close", "__enter__",
                                       "__exit__"})
    _allow(contextlib.nullcontext, contextlib.suppress, contextlib.closing, contextlib.redirect_stdout,
           contextlib.redirect_stderr, type(contextlib.contextmanager(lambda: iter([None]))()),
           read={"__enter__", "__exit__", "__call__"})
    return members


def _types() -> dict:
    import types

    members = _public(types, ("SimpleNamespace", "FunctionType", "LambdaType", "MethodType", "GeneratorType",
                              "BuiltinFunctionType", "BuiltinMethodType", "MappingProxyType", "NoneType",
                              "EllipsisType", "NotImplementedType", "GenericAlias", "UnionType"))
    members["SimpleNamespace"] = guarded.SimpleNamespace
    _allow(guarded.SimpleNamespace, public=True, public_write=True, read={"__dict__"}, derivable=True)
    return members


def _pprint() -> dict:
    import pprint

    members = _public(pprint, ("pformat", "isreadable", "isrecursive", "saferepr", "PrettyPrinter"))

    # Python's own signatures (pp sorts no dicts); the stream at print time, not import time: the
    # session's sys.stdout
    def pprint_(object: Any, stream: Any = None, indent: int = 1, width: int = 80, depth: Any = None, *,
                compact: bool = False, sort_dicts: bool = True, underscore_numbers: bool = False) -> None:
        pprint.pprint(object, stream=stream if stream is not None else host_sys.stdout, indent=indent, width=width,
                      depth=depth, compact=compact, sort_dicts=sort_dicts, underscore_numbers=underscore_numbers)

    def pp(object: Any, *args: Any, sort_dicts: bool = False, **kwargs: Any) -> None:
        pprint_(object, *args, sort_dicts=sort_dicts, **kwargs)

    pprint_.__name__ = pprint_.__qualname__ = "pprint"
    pp.__qualname__ = "pp"
    members.update(pprint=Builtin("pprint", pprint_), pp=Builtin("pp", pp))
    _allow(pprint.PrettyPrinter, read={"pprint", "pformat", "isreadable", "isrecursive", "format"})
    return members


def _textwrap() -> dict:
    import textwrap

    members = _public(textwrap, ("dedent", "indent", "fill", "wrap", "shorten", "TextWrapper"))
    _public_read(textwrap.TextWrapper)
    return members


def _argparse() -> dict:
    import argparse

    from .guarded_argparse import ArgumentParserMixin, Namespace

    parser_class = type("ArgumentParser", (ArgumentParserMixin, argparse.ArgumentParser), {"__module__": "argparse"})

    def make_parser(*args: Any, prog: Any = None, **kwargs: Any) -> Any:
        return parser_class(*args, prog=prog or "main.py", **kwargs)

    members = _public(argparse, ("Namespace", "Action", "ArgumentTypeError", "ArgumentError", "HelpFormatter",
                                 "RawTextHelpFormatter", "RawDescriptionHelpFormatter",
                                 "ArgumentDefaultsHelpFormatter", "MetavarTypeHelpFormatter", "SUPPRESS",
                                 "OPTIONAL", "ZERO_OR_MORE", "ONE_OR_MORE", "REMAINDER", "BooleanOptionalAction"))
    members.update(ArgumentParser=Builtin("ArgumentParser", make_parser), Namespace=Namespace)
    _allow(Namespace, public=True, public_write=True, read={"__dict__"})
    _allow(parser_class, read={"add_argument", "add_argument_group", "add_mutually_exclusive_group",
                               "set_defaults", "get_default", "parse_args", "parse_known_args", "print_help",
                               "print_usage", "format_help", "format_usage", "error", "exit", "description",
                               "prog", "epilog", "add_subparsers"})
    group = argparse.ArgumentParser().add_argument_group()
    _allow(type(group), type(argparse.ArgumentParser().add_mutually_exclusive_group()),
           read={"add_argument", "add_argument_group", "add_mutually_exclusive_group", "title", "description"})
    _allow(argparse.Action, public=True, derivable=True)
    _allow(type(argparse.ArgumentParser().add_subparsers()), read={"add_parser"})
    _allow(type(argparse.ArgumentParser().add_argument("--x")), public=True)
    return members


def _warnings() -> dict:
    import warnings

    members = _public(warnings, ("warn", "filterwarnings", "simplefilter", "resetwarnings", "catch_warnings",
                                 "Warning", "UserWarning", "DeprecationWarning", "PendingDeprecationWarning",
                                 "SyntaxWarning", "RuntimeWarning", "FutureWarning", "ImportWarning",
                                 "UnicodeWarning", "BytesWarning", "ResourceWarning"))
    members.update(formatwarning=_shown_as(warnings.formatwarning, guarded.formatwarning),
                   warn_explicit=Builtin("warn_explicit", guarded.warn_explicit))
    return members


def _sys() -> dict:
    from .. import limits

    members = _public(host_sys, ("version_info", "version", "hexversion", "maxsize", "maxunicode", "float_info",
                                 "int_info", "byteorder", "float_repr_style", "getsizeof",
                                 "intern", "getdefaultencoding", "exit", "api_version"))
    members.update(platform="linux", argv=["main.py"], executable="", modules={}, path=[],
                   getrecursionlimit=Builtin("getrecursionlimit",
                                             c_arity("sys.getrecursionlimit", limits.program_recursion_limit)))
    _public_read(type(host_sys.version_info), type(host_sys.float_info), type(host_sys.int_info))
    return members


def _future() -> dict:
    import __future__

    members = _public(__future__, __future__.all_feature_names)
    _allow(__future__._Feature, read={"getOptionalRelease", "getMandatoryRelease", "compiler_flag"})
    return members


def _random() -> dict:
    import random

    # the module-level functions are the session's (see SESSION_MEMBERS)
    _public_read(random.Random)
    policy.RULES[random.Random].derivable = True
    return {"Random": random.Random}


def _io() -> dict:
    import io

    members = {"StringIO": io.StringIO, "BytesIO": io.BytesIO}
    _allow(io.StringIO, read=policy.public_names(io.StringIO) - {"buffer", "detach", "fileno", "reconfigure"})
    _allow(io.BytesIO, read=policy.public_names(io.BytesIO) - {"fileno", "detach"})
    return members


def _fractions() -> dict:
    import fractions

    _public_read(fractions.Fraction)
    return {"Fraction": fractions.Fraction}


def _decimal() -> dict:
    import decimal

    members = _public(decimal, ("Decimal", "getcontext", "localcontext", "Context", "ROUND_HALF_UP",
                                "ROUND_HALF_EVEN", "ROUND_DOWN", "ROUND_UP", "ROUND_FLOOR", "ROUND_CEILING",
                                "InvalidOperation", "DivisionByZero"))
    _public_read(decimal.Decimal, decimal.Context, decimal.DecimalTuple)
    _allow(type(decimal.localcontext()), read={"__enter__", "__exit__"})
    return members


BUILDERS: dict = {
    "math": _math, "cmath": _cmath, "itertools": _itertools, "functools": _functools, "operator": _operator,
    "collections": _collections, "collections.abc": _collections_abc, "copy": _copy, "dataclasses": _dataclasses,
    "typing": _typing, "abc": _abc, "enum": _enum, "string": _string, "statistics": _statistics, "time": _time,
    "datetime": _datetime, "re": _re, "json": _json, "heapq": _heapq, "bisect": _bisect, "numbers": _numbers,
    "contextlib": _contextlib, "types": _types, "pprint": _pprint, "textwrap": _textwrap, "argparse": _argparse,
    "warnings": _warnings, "sys": _sys, "__future__": _future, "random": _random, "io": _io,
    "fractions": _fractions, "decimal": _decimal,
}

# random's module-level functions, each session's own generator's methods
RANDOM_FUNCTIONS = ("seed", "random", "uniform", "triangular", "randint", "randrange", "choice", "choices",
                    "shuffle", "sample", "gauss", "normalvariate", "lognormvariate", "expovariate", "vonmisesvariate",
                    "gammavariate", "betavariate", "paretovariate", "weibullvariate", "getrandbits", "getstate",
                    "setstate", "randbytes", "binomialvariate")


def session_members(name: str, stdout: Any, stderr: Any) -> dict:
    """What a session adds to a standard module: random's functions are those of a generator of
    its own, sys's streams are its output."""
    if name == "random":
        import random

        generator = random.Random()
        return {function: getattr(generator, function) for function in RANDOM_FUNCTIONS if hasattr(generator, function)}
    if name == "sys":
        return {"stdout": stdout, "stderr": stderr, "__stdout__": stdout, "__stderr__": stderr}
    return {}
