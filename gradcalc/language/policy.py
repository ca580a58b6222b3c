"""The sandbox policy: for each type a program may hold, matched exactly, what it may read,
write and call. The guard (guard.py) applies it to every attribute access.

Threat model: the program text is untrusted. It must not reach files, processes, sockets, the
environment, host memory, host modules, or any object from which those follow (modules,
frames, code objects, function globals, class internals, raw numpy objects, the `type`/`object`
machinery). Hence allow-lists by exact type, never block-lists, and a type absent from this
module cannot be held: an attribute whose value is of such a type is refused.

A type's rule:
  read          names it may read (dunders and private names only if listed here)
  public        every name without a leading underscore may be read, except `deny`
  write         names it may assign and delete; `public_write`: every public name
  subclasses    the rule covers classes gradcalc derives from the type (grad_fn classes,
                nn modules); a program's own classes get rules of their own
  private       a predicate for private names (`grad_fn._saved_self`)
  shown_base    the class PyTorch names for read-only properties (`torch._C.TensorBase`)
  c_methods     bound methods print as C built-ins (`<built-in method sum of Tensor ...>`)
  replaced      names read through a function of the object instead (`ndarray.resize`, whose
                `refcheck=False` would free memory that other arrays still show)
  public_if     public names of the objects this predicate accepts (a program's own functions:
                a function the standard library made, lru_cache's or contextmanager's, carries
                the attributes update_wrapper copied from whatever it wrapped, gradcalc's too)
"""
from __future__ import annotations

import builtins
import collections
import copy
import re
import sys
import types
import weakref
from typing import Any, Callable, Iterable, Optional

VALUE, CLASS, SUPER, PROGRAM = "value", "class", "super", "program"


class Rule:
    __slots__ = ("kind", "read", "public", "deny", "write", "public_write", "subclasses", "private", "c_methods",
                 "derivable", "shown_base", "replaced", "public_if")

    def __init__(self, kind: str = VALUE, read: Iterable[str] = (), public: bool = False, deny: Iterable[str] = (),
                 write: Iterable[str] = (), public_write: bool = False, subclasses: bool = False,
                 private: Optional[Callable[[str], bool]] = None, derivable: bool = False,
                 shown_base: Optional[str] = None, replaced: Optional[dict] = None,
                 public_if: Optional[Callable[[Any], bool]] = None) -> None:
        self.kind = kind
        # program classes learn the private names they may use as they go: mutable sets
        self.read: Any = set(read) if kind == PROGRAM else frozenset(read)
        self.public = public
        self.deny = frozenset(deny)
        self.write: Any = set(write) if kind == PROGRAM else frozenset(write)
        self.public_write = public_write
        self.subclasses = subclasses
        self.private = private
        self.c_methods = False
        self.derivable = derivable  # a program's class may derive from it
        self.shown_base = shown_base  # the C class PyTorch's messages name for its read-only properties
        self.replaced = replaced
        self.public_if = public_if  # public names only of the objects this predicate accepts


# ------------------------------------------------------------------ dunders

# The special methods a program's class may define, which may also be read on objects that have
# them (`x.__len__()`, `super().__init__()`).
USER_DUNDERS = frozenset("""
    __init__ __new__ __call__ __repr__ __str__ __format__ __bytes__ __hash__ __bool__ __len__ __length_hint__
    __getitem__ __setitem__ __delitem__ __missing__ __iter__ __next__ __reversed__ __contains__ __enter__ __exit__
    __eq__ __ne__ __lt__ __le__ __gt__ __ge__ __add__ __sub__ __mul__ __matmul__ __truediv__ __floordiv__ __mod__
    __divmod__ __pow__ __lshift__ __rshift__ __and__ __xor__ __or__ __radd__ __rsub__ __rmul__ __rmatmul__
    __rtruediv__ __rfloordiv__ __rmod__ __rdivmod__ __rpow__ __rlshift__ __rrshift__ __rand__ __rxor__ __ror__
    __iadd__ __isub__ __imul__ __imatmul__ __itruediv__ __ifloordiv__ __imod__ __ipow__ __ilshift__ __irshift__
    __iand__ __ixor__ __ior__ __neg__ __pos__ __abs__ __invert__ __complex__ __int__ __float__ __index__ __round__
    __trunc__ __floor__ __ceil__ __getattr__ __getattribute__ __setattr__ __delattr__ __dir__ __get__ __set__
    __delete__ __set_name__ __init_subclass__ __class_getitem__ __post_init__ __copy__ __deepcopy__ __getstate__
    __setstate__ __reduce__ __reduce_ex__ __getnewargs__ __getnewargs_ex__ __sizeof__ __torch_function__
    __array__ __instancecheck__ __subclasscheck__
""".split())
# What a class body may also assign among the dunder names.
CLASS_BODY_DUNDERS = USER_DUNDERS | frozenset(
    {"__slots__", "__doc__", "__module__", "__qualname__", "__annotations__", "__match_args__", "__classcell__"})
# Never in a program's class: `__del__` would run program code whenever the collector decides.
FORBIDDEN_CLASS_NAMES = frozenset({"__del__", "__class__", "__dict__", "__weakref__"})
# str.format and format_map walk attributes by the names in the template: the guard's own stand in
# for them, on str and UserString (whose format is its data's) and what derives from them.
FORMATTING = frozenset({"format", "format_map"})
# Objects' pickling hooks give host callables (copyreg's, numpy's): only a program's own may be read.
PICKLING = _PICKLING = frozenset({"__reduce__", "__reduce_ex__", "__getstate__", "__setstate__", "__getnewargs__",
                       "__getnewargs_ex__"})
# Dunders any object may show; the result is still checked (`x.__class__` is a class the policy knows).
_METADATA = frozenset({"__class__", "__doc__", "__module__", "__name__", "__qualname__"})
# A descriptor's `__get__` would read, from an object, what the class-level policy denies: only a
# program's own descriptors show theirs.
_DESCRIBING = frozenset({"__get__", "__set__", "__delete__", "__set_name__", "__instancecheck__",
                         "__subclasscheck__"})
READABLE_DUNDERS = (USER_DUNDERS - _PICKLING - _DESCRIBING) | _METADATA
# Reading these gives a version that goes through the guard: `object.__setattr__(self, "x", 1)`.
GUARDED_DUNDERS = frozenset({"__getattribute__", "__getattr__", "__setattr__", "__delattr__", "__new__"})
# What a class object may show besides its public attributes.
CLASS_DUNDERS = (USER_DUNDERS - _PICKLING - {"__instancecheck__", "__subclasscheck__"}) | frozenset(
    {"__name__", "__qualname__", "__doc__", "__module__", "__annotations__", "__members__", "__slots__",
     "__match_args__", "__abstractmethods__", "__dataclass_fields__", "__mro__", "__required_keys__",
     "__optional_keys__", "__total__"}) - {"__class__"}


def is_dunder(name: str) -> bool:
    return len(name) > 4 and name[:2] == "__" and name[-2:] == "__"


# ------------------------------------------------------------------ numpy's protocols

# What numpy (and the buffer and DLPack protocols) read off any object it is given, on the object
# itself: `__array_interface__` and `__array_struct__` make an array over any address. They are
# dunders, which the guard never lets a program set; but a program can also put them where the
# guard does not look (an instance's `__dict__`, a `__getattr__`, a helper that calls setattr),
# so the classes whose objects a program can fill answer none of them (see shield_class).
ARRAY_PROTOCOLS = frozenset({
    "__array_interface__", "__array_struct__", "__array__", "__array_priority__", "__array_ufunc__",
    "__array_function__", "__array_wrap__", "__array_finalize__", "__array_prepare__", "__array_namespace__",
    "__dlpack__", "__dlpack_device__", "__buffer__", "__release_buffer__",
})


class _Shield:
    """A data descriptor a class holds for each of numpy's protocol names it does not define
    itself: a data descriptor of the class comes before the instance's own `__dict__`, so
    whatever a program put there under that name is never found."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __get__(self, obj: Any, owner: Any = None) -> Any:
        raise AttributeError(self.name)

    def __set__(self, obj: Any, value: Any) -> None:
        raise AttributeError(f"'{type(obj).__name__}' object attribute '{self.name}' cannot be set in gradcalc")

    def __delete__(self, obj: Any) -> None:
        raise AttributeError(self.name)


def _refusing_protocols(method: Callable) -> Callable:
    """A program's `__getattr__` or `__getattribute__`, which numpy would otherwise ask for its
    protocols: it is never asked for them."""

    def checked(self: Any, name: Any, *args: Any) -> Any:
        if name in ARRAY_PROTOCOLS:
            raise AttributeError(name)
        return method(self, name, *args)

    checked.__name__, checked.__qualname__ = method.__name__, method.__qualname__
    checked.__refusing_protocols__ = True  # type: ignore[attr-defined]
    return checked


def defines(owner: type, name: str) -> bool:
    """Whether a class defines `name` itself (a shield is no attribute: it hides one)."""
    return name in vars(owner) and type(vars(owner)[name]) is not _Shield


ATTRIBUTE_HOOKS = ("__getattr__", "__getattribute__")


def attribute_hook(value: Any) -> Any:
    """A program's `__getattr__` or `__getattribute__` as its class holds it (_refusing_protocols):
    a function (any other callable would be asked by Python without going through one)."""
    if not isinstance(value, types.FunctionType):
        raise TypeError("a class's __getattr__ and __getattribute__ must be functions in gradcalc")
    return value if hasattr(value, "__refusing_protocols__") else _refusing_protocols(value)


def shield_class(cls: type, program: bool = False) -> None:
    """Make `cls`'s objects answer none of numpy's protocols but those its classes define; of a
    program's class's own, only a method `__array__` (which must return an array), never a slot
    or any other value under a protocol's name. (Not on a typing.Protocol, whose class dict lists
    what its instances must have, and which has no instances.)"""
    for name in ARRAY_PROTOCOLS if not vars(cls).get("_is_protocol") else ():
        own = vars(cls).get(name)
        if program and own is not None and not (name == "__array__" and isinstance(own, types.FunctionType)):
            type.__setattr__(cls, name, _Shield(name))
        elif not any(name in vars(base) for base in cls.__mro__):
            type.__setattr__(cls, name, _Shield(name))
    if program:
        for name in ATTRIBUTE_HOOKS:
            if name in vars(cls):
                type.__setattr__(cls, name, attribute_hook(vars(cls)[name]))


# ------------------------------------------------------------------ the rules

RULES: dict = {}  # type -> Rule; every type here may be held by a program
# classes a program holds a stand-in for (numpy's ndarray, whose constructor reads raw buffers):
# the real class -> the class the program gets from `type(x)`, `x.__class__` and its module
CLASS_PROXIES: dict = {}


def proxied(cls: Any) -> Any:
    """The real class a stand-in stands for (itself if none)."""
    for real, proxy in CLASS_PROXIES.items():
        if proxy is cls:
            return real
    return cls
_PENDING: list = []  # (module, class name, rule) of gradcalc's classes, resolved on first use
_INSTALLED: list = []


def public_names(cls: type) -> frozenset:
    return frozenset(name for name in dir(cls) if not name.startswith("_"))


def _base_exception_method(name: str) -> Callable[[BaseException], Any]:
    """`exception.name` read as a builtin method bound through BaseException's descriptor, as
    CPython calls `e.name(...)`: its messages name `BaseException.name()`, not the subclass."""
    from ..display.names import BuiltinMethod

    descriptor = getattr(BaseException, name)
    return lambda exception: BuiltinMethod(types.MethodType(descriptor, exception))


def _allow(types_: Iterable[type], **options: Any) -> None:
    for cls in types_:
        RULES[cls] = Rule(**options)


def _allow_methods(types_: Iterable[type], deny: Iterable[str] = (), extra: Iterable[str] = ()) -> None:
    """Types whose public methods (as `dir` lists them) may all be called."""
    for cls in types_:
        RULES[cls] = Rule(read=(public_names(cls) - frozenset(deny)) | frozenset(extra))


def _named_types() -> dict:
    """Host types met only through a value: iterators, views, descriptors."""
    samples = {
        "list_iterator": iter([]), "list_reverseiterator": reversed([]), "tuple_iterator": iter(()),
        "range_iterator": iter(range(0)), "longrange_iterator": iter(range(2 ** 64)), "str_ascii_iterator": iter(""),
        "str_iterator": iter("é"), "set_iterator": iter(set()), "bytes_iterator": iter(b""),
        "bytearray_iterator": iter(bytearray()), "dict_keyiterator": iter({}), "dict_valueiterator": iter({}.values()),
        "dict_itemiterator": iter({}.items()), "dict_reversekeyiterator": reversed({}),
        "dict_reversevalueiterator": reversed({}.values()), "dict_reverseitemiterator": reversed({}.items()),
        "callable_iterator": iter(int, 1), "iterator": iter(type("S", (), {"__getitem__": lambda s, i: 1})()),
        "method-wrapper": (1).__add__, "wrapper_descriptor": int.__add__, "method_descriptor": str.join,
        "classmethod_descriptor": dict.__dict__["fromkeys"],
        "getset_descriptor": types.FunctionType.__dict__["__name__"],
        "member_descriptor": type.__dict__["__dictoffset__"], "builtin_method": re.compile("").finditer,
    }
    types_ = {name: type(value) for name, value in samples.items()}
    return types_


def _install_python() -> None:
    """Python's own types, as a program meets them."""
    none_type, ellipsis_type, notimplemented_type = type(None), type(...), type(NotImplemented)
    # plain values: every public method; str.format is the guard's own (a format string reads attributes)
    _allow_methods([int, float, complex, bool, bytes, bytearray, list, tuple, dict, set, frozenset, range, slice,
                    none_type, ellipsis_type, notimplemented_type, object])
    _allow_methods([str], deny={"format", "format_map"})
    _allow_methods([type({}.keys()), type({}.values()), type({}.items())], deny={"mapping"})
    _allow([memoryview], read=public_names(memoryview) - {"obj"})
    for cls in _named_types().values():
        RULES.setdefault(cls, Rule(read=public_names(cls) - {"obj"}))
    _allow([zip, map, filter, enumerate, reversed, types.MappingProxyType])
    RULES[types.MappingProxyType] = Rule(read={"get", "keys", "values", "items", "copy"})
    _allow([types.GeneratorType], read={"send", "throw", "close"})
    # callables: their names and documentation; a program's functions carry attributes of its own,
    # set and read by name only (a function's `__dict__`, which no class can shield, would take
    # numpy's protocols)
    function_dunders = {"__name__", "__qualname__", "__doc__", "__module__", "__defaults__", "__kwdefaults__",
                        "__annotations__", "__wrapped__", "__call__", "__get__"}
    _allow([types.FunctionType], read=function_dunders,
           public_if=lambda function: is_program_function(function) or function in SHOWN_FUNCTIONS)
    _allow([types.MethodType], read={"__name__", "__qualname__", "__doc__", "__module__", "__call__", "__wrapped__"},
           public=True)
    _allow([types.BuiltinFunctionType],
           read={"__name__", "__qualname__", "__doc__", "__module__", "__text_signature__", "__call__"})
    _allow([property], read={"fget", "fset", "fdel", "getter", "setter", "deleter", "__doc__", "__isabstractmethod__"})
    _allow([staticmethod, classmethod], read={"__doc__", "__isabstractmethod__", "__wrapped__"})
    _allow([super], kind=SUPER)
    import abc
    import enum

    _allow([type, abc.ABCMeta, enum.EnumType], kind=CLASS)
    import __future__
    import warnings

    _allow([__future__._Feature], read={"getOptionalRelease", "getMandatoryRelease", "compiler_flag"})
    _allow([warnings.WarningMessage], read={"message", "category", "filename", "lineno", "line", "source"})
    # exceptions: their arguments and chaining, never their traceback; a few carry data of their own
    exception_read = {"args", "__cause__", "__context__", "__suppress_context__", "__notes__", "__class__", "__str__",
                      "__repr__", "__init__"}
    # `e.add_note(...)` calls BaseException's own method: CPython's messages about the call name it
    exception_methods = {name: _base_exception_method(name) for name in ("add_note", "with_traceback")}
    exception_write = {"args", "__cause__", "__context__", "__suppress_context__", "__notes__"}
    extra = {StopIteration: {"value"}, StopAsyncIteration: {"value"}, SystemExit: {"code"},
             OSError: {"errno", "strerror", "filename", "filename2"}, ImportError: {"name", "msg"},
             NameError: {"name"}, AttributeError: {"name"}, KeyboardInterrupt: set(),
             SyntaxError: {"msg", "filename", "lineno", "offset", "text", "end_lineno", "end_offset"},
             UnicodeError: {"encoding", "object", "start", "end", "reason"},
             BaseExceptionGroup: {"exceptions", "message", "split", "subgroup", "derive"}}
    for value in vars(builtins).values():
        if isinstance(value, type) and issubclass(value, BaseException):
            read = set(exception_read)
            for base, names in extra.items():
                if issubclass(value, base):
                    read |= names
            # their own attributes too (`e.extra = 1`), but not the object an AttributeError was
            # about nor the file an ImportError came from
            RULES[value] = Rule(read=read, public=True, deny={"obj", "path", *exception_methods}, write=exception_write,
                                public_write=True, derivable=True, replaced=exception_methods)
    for cls in (object, dict, list, tuple, set, frozenset, int, float, str, complex, bytes):
        RULES[cls].derivable = True
    # collections' containers: gradcalc's own API returns some (state_dict is an OrderedDict)
    for cls in (collections.OrderedDict, collections.Counter, collections.defaultdict, collections.deque,
                collections.ChainMap, collections.UserDict, collections.UserList, collections.UserString):
        RULES[cls] = Rule(read=public_names(cls) - FORMATTING, derivable=True,
                          write={"default_factory"} if cls is collections.defaultdict else ())
    ordered = collections.OrderedDict(a=1)
    for value in (ordered.keys(), ordered.values(), ordered.items(), iter(ordered), reversed(ordered),
                  iter(ordered.values()), iter(ordered.items()), iter(collections.deque()),
                  reversed(collections.deque())):
        RULES[type(value)] = Rule(read=public_names(type(value)) - {"mapping"})


# gradcalc's classes: public attributes are PyTorch's API by construction; internals are private.
def _gradcalc(module: str, name: str, **options: Any) -> None:
    _PENDING.append((module, name, options))


def _saved_names(name: str) -> bool:
    return name.startswith(("_saved_", "_raw_saved_"))


_gradcalc("gradcalc.autograd.tensor", "Tensor", public=True, read={"_version", "_base", "__dict__"}, public_write=True,
          subclasses=True, derivable=True, shown_base="torch._C.TensorBase")
_gradcalc("gradcalc.autograd.tensor", "Size", public=True, read={"__getitem__", "__len__"})
_gradcalc("gradcalc.autograd.tensor", "Device", public=True)
_gradcalc("gradcalc.autograd.engine", "RemovableHandle", public=True)
_gradcalc("gradcalc.autograd.dtypes", "DType", public=True, deny={"numpy"})
_gradcalc("gradcalc.autograd.engine", "Node", subclasses=True, private=_saved_names,
          read={"next_functions", "name", "metadata", "register_hook", "register_prehook", "variable", "__call__"})
# a custom Function's ctx is its grad_fn: the program's own attributes, PyTorch's API, never the engine's entry points
_gradcalc("gradcalc.autograd.function", "Function", public=True, derivable=True)
_gradcalc("gradcalc.autograd.function", "FunctionCtx", public=True, public_write=True)
_gradcalc("gradcalc.autograd.function", "InplaceFunction", public=True, derivable=True)
_gradcalc("gradcalc.autograd.function", "BackwardCFunction", public=True, public_write=True, subclasses=True,
          deny={"apply", "release"}, shown_base="torch._C._FunctionBase")
_gradcalc("gradcalc.autograd.random", "Generator", public=True)
_gradcalc("gradcalc.autograd.grad_mode", "_GradMode", public=True, subclasses=True)
_gradcalc("gradcalc.autograd.anomaly_mode", "detect_anomaly", public=True)
_gradcalc("gradcalc.autograd.anomaly_mode", "set_detect_anomaly", public=True)
_gradcalc("gradcalc.autograd.gradcheck", "GradcheckError", like=RuntimeError)
_gradcalc("gradcalc.autograd.forward_ad", "UnpackedDualTensor", public=True, read={"__getitem__", "__len__", "__iter__"})
_gradcalc("gradcalc.autograd.forward_ad", "dual_level", read={"__enter__", "__exit__"})
_gradcalc("gradcalc.autograd.ops.common", "ReturnTypes", public=True, subclasses=True)
_gradcalc("gradcalc.autograd.ops.generate", "BuiltinFunction", read={"__name__", "__qualname__", "__call__"})
_gradcalc("gradcalc.autograd.ops.info", "TorchVersion", read=public_names(str) - {"format", "format_map"})
_gradcalc("gradcalc.autograd.ops.info", "finfo", public=True)
_gradcalc("gradcalc.autograd.ops.info", "iinfo", public=True)
_gradcalc("gradcalc.autograd.ops.info", "Layout")
_gradcalc("gradcalc.autograd.ops.info", "MemoryFormat")
_gradcalc("gradcalc.autograd.ops.legacy", "TensorType", kind=CLASS)  # torch.FloatTensor and its kin
_gradcalc("gradcalc.autograd.ops.legacy", "VariableMeta", kind=CLASS)  # Variable's class
_gradcalc("gradcalc.autograd.ops.legacy", "LEGACY_TYPES", read={"dtype"})  # what those classes show
_gradcalc("gradcalc.autograd.ops.legacy", "UntypedStorage", public=True)
_gradcalc("gradcalc.autograd.ops.legacy", "TypedStorage", public=True)
_gradcalc("gradcalc.autograd.ops.registry", "SavedTensorHandle", public=True)
# torch.autograd.graph: the abstract Node shows its API (calling it on a grad_fn raises NotImplementedError, as in
# PyTorch); a saved_tensors_hooks context shows the program's hooks (save_on_cpu's are closures over two flags)
_gradcalc("gradcalc.autograd.graph", "Node",
          read={"name", "next_functions", "metadata", "register_hook", "register_prehook"})
_gradcalc("gradcalc.autograd.graph", "GradientEdge", public=True, read={"__getitem__", "__len__", "__iter__"})
_gradcalc("gradcalc.autograd.graph", "saved_tensors_hooks", public=True, subclasses=True,
          read={"__enter__", "__exit__"})
_gradcalc("gradcalc.autograd.graph", "_MultiHandle", public=True)
_gradcalc("gradcalc.autograd.graph", "_AllowMutationOnSavedContext")
# what a @contextmanager function returns (disable_saved_tensors_hooks): never its generator
_gradcalc("contextlib", "_GeneratorContextManager", read={"__enter__", "__exit__", "__call__"})
_gradcalc("gradcalc.autograd.ops.decompositions", "LinAlgError", like=RuntimeError)
_gradcalc("gradcalc.serialization", "UnpicklingError", like=RuntimeError)
_gradcalc("gradcalc.autograd.autocast", "autocast", public=True, read={"__enter__", "__exit__", "__call__"},
          subclasses=True)  # torch.cuda.amp.autocast derives from it
_gradcalc("gradcalc.amp", "GradScaler", public=True, subclasses=True, derivable=True)
# torch.nn: a module's registries and forward pre-hooks (the Pruning Tutorial finds its pruning method there; they
# hold the program's hooks only); torch.nn.utils' spectral norm keeps its power-iteration vectors as private
# buffers (`_u`, `_v`)
_MODULE_READ = {"_parameters", "_buffers", "_modules", "_forward_pre_hooks", "__call__",
                "__getattr__", "__setattr__", "__delattr__", "__dict__"}
_gradcalc("gradcalc.nn.modules.module", "Module", public=True, public_write=True, subclasses=True, derivable=True,
          read=_MODULE_READ)
_gradcalc("gradcalc.nn.utils.parametrizations", "_SpectralNorm", public=True, public_write=True, subclasses=True,
          derivable=True, read=_MODULE_READ | {"_u", "_v"}, write={"_u", "_v"})
_gradcalc("gradcalc.nn.utils.parametrizations", "_OrthMaps", public=True)
# a pruning method is a module's forward pre-hook (programs find it in `_forward_pre_hooks`); programs derive their own
_gradcalc("gradcalc.nn.utils.prune", "BasePruningMethod", public=True, public_write=True, subclasses=True,
          derivable=True, read={"_tensor_name", "_pruning_methods", "__call__", "__iter__", "__len__", "__getitem__"},
          write={"_tensor_name"})
_gradcalc("gradcalc.nn.utils.weight_norm", "WeightNorm", public=True, read={"__call__"})
_gradcalc("gradcalc.nn.utils.spectral_norm", "SpectralNorm", public=True, read={"__call__"})
_gradcalc("gradcalc.nn.modules.module", "_IncompatibleKeys",
          read=public_names(tuple) | {"missing_keys", "unexpected_keys", "_fields"})
_gradcalc("gradcalc.nn.utils.rnn", "PackedSequence", public=True, read={"_fields", "__getitem__", "__len__", "__iter__"})
_gradcalc("gradcalc.nn.modules.adaptive", "_ASMoutput", public=True, read={"_fields", "__getitem__", "__len__", "__iter__"})
_gradcalc("gradcalc.optim.optimizer", "Optimizer", public=True, public_write=True, subclasses=True, derivable=True)
_gradcalc("gradcalc.optim.lr_scheduler", "LRScheduler", public=True, public_write=True, subclasses=True,
          derivable=True)
_gradcalc("gradcalc.optim.lr_scheduler", "_CountedStep", read={"__call__"})
_gradcalc("gradcalc.optim.optimizer", "_RequiredParameter")  # `required`, the marker old optimizers compare with
_gradcalc("gradcalc.utils.data.dataset", "Dataset", public=True, public_write=True, subclasses=True, derivable=True,
          read={"__getitem__", "__len__", "__iter__", "__add__"})
_gradcalc("gradcalc.utils.data.sampler", "Sampler", public=True, public_write=True, subclasses=True, derivable=True,
          read={"__iter__", "__len__"})
_gradcalc("gradcalc.utils.data.dataloader", "DataLoader", public=True, public_write=True, subclasses=True,
          derivable=True, read={"__iter__", "__len__"})
_gradcalc("gradcalc.utils.data.dataloader", "_BaseDataLoaderIter", read={"__next__", "__iter__", "__len__"},
          subclasses=True)
_gradcalc("gradcalc.utils.data.dataloader", "WorkerInfo", public=True)
_gradcalc("gradcalc.display.names", "BuiltinMethod", read={"__name__", "__qualname__", "__call__"})
# (a class statement cannot give its objects a __qualname__ of their own: read through the
# function; a C attribute's __get__ is not given: what it returns would miss the guard's checks)
for _descriptor, _read in (("MethodDescriptor", {"__get__"}), ("SlotWrapper", {"__get__"}),
                           ("GetSetDescriptor", set())):
    _gradcalc("gradcalc.display.names", _descriptor, read={"__name__", "__call__", *_read},
              replaced={"__qualname__": lambda descriptor: descriptor.qualified_name()})
del _descriptor, _read
_gradcalc("gradcalc.language.builtins", "Builtin", read={"__name__", "__qualname__", "__module__", "__call__"},
          subclasses=True)
_gradcalc("gradcalc.language.builtins", "Quitter", read={"__call__"})
_gradcalc("gradcalc.autograd.ops.legacy", "Variable", read=set())
_gradcalc("gradcalc.session", "OutputStream", read={"write", "writelines", "flush", "isatty", "encoding", "name"})
_gradcalc("gradcalc.language.modules.namespace", "Namespace", public=True, public_write=True,
          read={"__name__", "__version__", "__doc__", "__all__"})
# torch.distributions: the private names that PyTorch's own subclasses use and programs' subclasses copy
_gradcalc("gradcalc.distributions.distribution", "Distribution", public=True, public_write=True, subclasses=True,
          derivable=True, write={"_validate_args"},
          read={"_validate_args", "_batch_shape", "_event_shape", "_extended_shape", "_validate_sample",
                "_get_checked_instance", "_param", "_num_events", "_natural_params", "_log_normalizer",
                "_mean_carrier_measure", "_unbroadcasted_scale_tril"})
_gradcalc("gradcalc.distributions.constraints", "Constraint", public=True, subclasses=True, derivable=True)
# a dependent property is a property (its fget is the distribution's or the program's own function)
_gradcalc("gradcalc.distributions.constraints", "_DependentProperty",
          read={"is_discrete", "event_dim", "check", "__call__", "__doc__"})
_gradcalc("gradcalc.distributions.utils", "_lazy_property_and_property", read={"__doc__"})


def install() -> None:
    """Fill the table: Python's types (once), then those of gradcalc's classes whose modules are
    loaded; the others when their modules load (a program reaching torch.optim loads it)."""
    if not _INSTALLED:
        _INSTALLED.append(True)
        _install_python()
    _install_loaded()


def _install_loaded() -> bool:
    """Install the pending rules of gradcalc's classes whose modules are loaded; whether any were."""
    ready = [entry for entry in _PENDING if entry[0] in sys.modules]
    for entry in ready:
        _PENDING.remove(entry)
        module, name, options = entry
        listed = getattr(sys.modules[module], name)
        for cls in listed.values() if isinstance(listed, dict) else (listed,):
            like = options.get("like")  # an exception: as Python's own exceptions
            RULES[cls] = rule = copy.copy(RULES[like]) if like else Rule(**options)
            rule.c_methods = _c_methods(cls)
            if "__dict__" in rule.read:  # a program fills its objects' dicts (Tensor, Module)
                shield_class(cls)
    return bool(ready)


def _c_methods(cls: type) -> bool:
    """Whether PyTorch writes the class in C (its methods print as built-ins): see display/names.py."""
    return any("_python_methods" in vars(base) for base in cls.__mro__)


def allow_module_types(types_: Iterable[type], **options: Any) -> None:
    """Types of an importable module's values (datetime, re.Pattern, ...): see modules/."""
    for cls in types_:
        if cls not in RULES:
            RULES[cls] = Rule(**options)


# The rules of a library's types, made when a program first meets one of them: numpy's arrays
# reach programs that never import numpy (`t.numpy()`), typing's forms programs that never import
# typing (`int | None`), and making them costs start-up time.
_LIBRARY_RULES = {"numpy": ("gradcalc.language.modules.numpy", "install_types"),
                  "typing": ("gradcalc.language.modules.stdlib", "install_typing_types"),
                  "types": ("gradcalc.language.modules.stdlib", "install_typing_types")}


def _install_library(cls: type) -> bool:
    """Install the rules of the library `cls` comes from, once; whether there were any to install."""
    module = cls.__module__.partition(".")[0] if isinstance(cls.__module__, str) else ""
    installer = _LIBRARY_RULES.pop(module, None)
    if installer is None:
        return False
    import importlib

    getattr(importlib.import_module(installer[0]), installer[1])()
    return True


def resolve(cls: type) -> Optional[Rule]:
    """The rule of a type met for the first time: a class gradcalc derives from a type whose rule
    covers subclasses (a grad_fn class, an nn module). None: the program may not hold it."""
    rule = RULES.get(cls)
    if rule is not None:
        return rule
    if _install_library(cls) or (_INSTALLED and _install_loaded()):
        return resolve(cls)
    if _made_by_enum(cls):
        register_program_class(cls)
        return RULES[cls]
    for base in cls.__mro__[1:]:
        base_rule = RULES.get(base)
        if base_rule is not None:
            if not base_rule.subclasses or base_rule.kind == PROGRAM:
                return None
            RULES[cls] = rule = Rule(base_rule.kind, base_rule.read, base_rule.public, base_rule.deny,
                                     base_rule.write, base_rule.public_write, True, base_rule.private,
                                     base_rule.derivable, base_rule.shown_base)
            rule.c_methods = _c_methods(cls)
            return rule
    return None


def _made_by_enum(cls: type) -> bool:
    """A class made by Enum's functional API (`Enum("Animal", "ANT BEE")`) from a program's names."""
    import enum

    return isinstance(cls, enum.EnumType) and all(derivable(base) for base in cls.__bases__)


# ------------------------------------------------------------------ a program's classes

# functions the standard library made for a program whose attributes it uses (singledispatch's
# `register`), their copies of other objects' attributes taken away (guarded_helpers)
SHOWN_FUNCTIONS: "weakref.WeakSet" = weakref.WeakSet()


def is_program_function(value: Any) -> bool:
    """A function the program defined (its globals are the session's namespace)."""
    return isinstance(value, types.FunctionType) and "$program" in value.__globals__


def is_program_class(cls: Any) -> bool:
    if not isinstance(cls, type):
        return False
    rule = RULES.get(cls)
    if rule is None and any(_is_registered_program_class(base) for base in cls.__mro__[1:]):
        # a subclass of a program's class, met while Python makes it (in __init_subclass__)
        register_program_class(cls)
        return True
    return rule is not None and rule.kind == PROGRAM


def _is_registered_program_class(cls: type) -> bool:
    rule = RULES.get(cls)
    return rule is not None and rule.kind == PROGRAM


def register_program_class(cls: type) -> None:
    """A class the program made: its instances show their public names, their own private ones
    (micrograd keeps `self._prev`) and the special methods it defines."""
    deny = FORMATTING if issubclass(cls, (str, collections.UserString)) else ()
    own_dunders = {name for base in cls.__mro__ if _is_registered_program_class(base) or base is cls
                   for name in vars(base) if is_dunder(name)}
    # the private names the instances of its gradcalc bases may read and write (a Distribution's
    # `_extended_shape`); public ones follow from the program's own rule, dunders from its class
    inherited = [RULES[base] for base in cls.__mro__[1:] if base in RULES and RULES[base].kind != PROGRAM]
    read = {name for rule in inherited for name in rule.read if name[0] == "_" and not is_dunder(name)}
    write = {name for rule in inherited for name in rule.write if name[0] == "_" and not is_dunder(name)}
    RULES[cls] = Rule(PROGRAM, read=READABLE_DUNDERS | (own_dunders & USER_DUNDERS) | {"__dict__"} | read,
                      public=True, deny=deny, public_write=True, derivable=True, write=write)
    shield_class(cls, program=True)
    # its metaclass (abc.ABCMeta, TypedDict's) was checked when the class was made
    if type(cls) not in RULES:
        RULES[type(cls)] = Rule(CLASS)


def private_allowed(cls: type, name: str) -> bool:
    """A private name of a program's object is the program's own unless a class gradcalc or
    Python wrote (a base of the program's class) uses it: `Tensor._data` stays gradcalc's."""
    for base in cls.__mro__:
        if base is object or is_program_class(base):
            continue
        if name in vars(base) or name in getattr(base, "__slots__", ()):
            return False
    return True


def class_rule(cls: type) -> Optional[Rule]:
    """The rule for the objects a class makes, resolving it if needed."""
    return RULES.get(cls) or resolve(cls)


def derivable(cls: Any) -> bool:
    """Whether a program's class may derive from `cls`."""
    if not isinstance(cls, type):
        return False
    rule = class_rule(cls)
    return rule is not None and rule.derivable
