"""numpy as a program imports it: the real numpy behind the policy.

Arrays, numpy's scalars and dtypes are numpy's own objects, so they print as numpy prints
them; the policy lets a program use their everyday attributes and methods and nothing that
touches host files, pickles, raw memory or C (`dump`, `data`, `ctypes`, `frombuffer`, `ctypeslib`,
a bit generator's `ctypes` and `cffi`, ...); `save`, `load`, `memmap`, `tofile` and their kin
work on the program's own files (gradcalc/files/arrays.py).
"""
from __future__ import annotations

import math
import operator
import sys
from types import ModuleType
from typing import Any

import numpy as np

from .. import policy
from ... import numpy_state
from ...display.names import torch_class
from .namespace import Submodule

# numpy's members a program does not get: files, pickles, raw memory, C, global hooks, docs tools
_NUMPY_REFUSED = frozenset({
    "save", "savez", "savez_compressed", "savetxt", "load", "loadtxt", "genfromtxt", "fromfile", "fromregex",
    "memmap", "frombuffer", "from_dlpack", "DataSource", "ctypeslib", "f2py", "lib", "core", "testing", "test",
    "show_config", "show_runtime", "get_include", "info", "lookfor", "source",
    "setbufsize", "getbufsize", "add_docstring", "add_newdoc", "add_newdoc_ufunc", "char", "rec", "ma", "exceptions",
    "dtypes", "typing", "emath", "polynomial", "matrixlib", "version", "strings", "nditer", "nested_iters",
    "isnat", "busday_count", "busday_offset", "busdaycalendar", "is_busday", "datetime_data", "recarray", "record",
    "broadcast", "flatiter", "matrix", "asmatrix", "bmat", "memmap", "format_parser",
})
# what arrays and numpy's scalars may not show
_ARRAY_REFUSED = frozenset({"tofile", "dump", "dumps", "data", "ctypes", "setflags", "getfield", "setfield",
                            "newbyteorder", "format", "format_map"})
_DTYPE_READ = frozenset({"name", "kind", "char", "itemsize", "type", "str", "descr", "byteorder", "fields", "names",
                         "shape", "base", "num", "isbuiltin", "isnative", "hasobject", "alignment", "subdtype",
                         "newbyteorder", "ndim", "flags", "metadata"})
_GENERATOR_REFUSED = frozenset({"bit_generator"})
_BIT_GENERATOR_READ = frozenset({"state", "seed_seq", "spawn", "jumped", "random_raw"})
RANDOM_FUNCTIONS = (
    "seed", "rand", "randn", "randint", "random", "random_sample", "ranf", "sample", "random_integers", "choice",
    "shuffle", "permutation", "normal", "uniform", "standard_normal", "binomial", "poisson", "beta", "exponential",
    "gamma", "multinomial", "multivariate_normal", "dirichlet", "laplace", "logistic", "lognormal", "geometric",
    "bytes", "get_state", "set_state", "standard_exponential", "standard_gamma", "triangular", "chisquare",
)


def _members(module: ModuleType, refused: frozenset = frozenset()) -> dict:
    refused = refused | {"test"}  # numpy's own test runner
    return {name: value for name, value in vars(module).items()
            if not name.startswith("_") and name not in refused and not isinstance(value, ModuleType)}


# what a program may assign on an array: values and shape, which numpy checks; never `strides`,
# `dtype` or `data`, which would reinterpret memory
_ARRAY_WRITABLE = frozenset({"shape", "real", "imag", "flat"})


# the references to an array that sys.getrefcount counts in _Resize.__call__ besides the program's:
# the _Resize's own and getrefcount's argument
_OWN_REFERENCES = 2


def _size_changes(array: np.ndarray, new_shape: tuple) -> bool:
    """Whether resizing to `new_shape` changes the array's size (numpy checks references only then);
    False where numpy would refuse the shape itself, in its own words."""
    dims = new_shape[0] if len(new_shape) == 1 else new_shape
    if dims is None:
        return False
    try:
        sizes = [operator.index(dims)] if not isinstance(dims, (tuple, list)) else [operator.index(d) for d in dims]
    except TypeError:
        return False
    return min(sizes, default=0) >= 0 and math.prod(sizes) != array.size


@torch_class("builtin_function_or_method")
class _Resize:
    """`a.resize` as a program holds it: numpy's, always with its check that no other array
    shows the memory (`refcheck=False` would free memory that views still read)."""

    __slots__ = ("_array",)

    def __init__(self, array: np.ndarray) -> None:
        self._array = array

    def __call__(self, *new_shape: Any, **kwargs: Any) -> None:
        # numpy's own reading of its one keyword, in its words
        if len(kwargs) > 1:
            raise TypeError(f"function takes at most 1 keyword argument ({len(kwargs)} given)")
        for key in kwargs:
            if key != "refcheck":
                raise TypeError(f"'{key}' is an invalid keyword argument for this function")
        # numpy refuses to move the memory of an array referenced elsewhere: it counts the array's
        # references, the program's name for it and the call's own. gradcalc's call holds others (this
        # object's), so the count is made here, over the references past gradcalc's own; numpy checks
        # the rest (its base, weak references, owning its data) with refcheck=False
        if _size_changes(self._array, new_shape) and sys.getrefcount(self._array) > _OWN_REFERENCES + 1:
            raise ValueError("cannot resize an array that references or is referenced\nby another object in this "
                             "way.\nUse the np.resize function to get a new resized copy or\n set refcheck=False to "
                             "disable this check")
        return self._array.resize(*new_shape, refcheck=False)

    def __repr__(self) -> str:
        return f"<built-in method resize of numpy.ndarray object at {hex(id(self._array))}>"


def _array_rule(cls: type) -> None:
    policy.allow_module_types([cls], read=policy.public_names(cls) - _ARRAY_REFUSED, deny=_ARRAY_REFUSED)


class _ArrayClass(type):
    """The class of `ndarray` as programs hold it (`np.ndarray`, `type(a)`, `a.__class__`): the
    same answers as numpy's class (the guard reads its attributes from numpy's), but its
    constructor refuses what would read pointers from raw bytes, a dtype that holds objects over
    a `buffer=`."""

    def __call__(cls, shape: Any, dtype: Any = float, buffer: Any = None, *args: Any, **kwargs: Any) -> Any:
        if buffer is not None and np.dtype(dtype).hasobject:
            raise ValueError("cannot create an OBJECT array from memory buffer")
        return np.ndarray(shape, dtype, buffer, *args, **kwargs)

    def __instancecheck__(cls, value: Any) -> bool:
        return isinstance(value, np.ndarray)

    def __subclasscheck__(cls, subclass: Any) -> bool:
        return subclass is cls or issubclass(subclass, np.ndarray)

    def __repr__(cls) -> str:
        return repr(np.ndarray)


# its methods show as the class's metaclass's (`<bound method type.__call__ of <class 'numpy.ndarray'>>`)
for _method in (_ArrayClass.__call__, _ArrayClass.__instancecheck__, _ArrayClass.__subclasscheck__):
    _method.__qualname__ = f"type.{_method.__name__}"
del _method


ARRAY_CLASS = _ArrayClass("ndarray", (), {"__module__": "numpy", "__qualname__": "ndarray",
                                           "__doc__": np.ndarray.__doc__})


def install_types() -> None:
    """The types of the values numpy gives a program."""
    from ...files.arrays import ToFile  # an array's tofile writes to the program's own files

    refused = _ARRAY_REFUSED | {"resize"}
    policy.allow_module_types([np.ndarray], read=policy.public_names(np.ndarray) - refused, deny=refused,
                              write=_ARRAY_WRITABLE, replaced={"resize": _Resize, "tofile": ToFile})
    policy.allow_module_types([_Resize, ToFile], read={"__call__"})
    policy.RULES[ARRAY_CLASS] = policy.RULES[np.ndarray]  # its attributes are numpy's class's
    policy.allow_module_types([_ArrayClass], kind=policy.CLASS)
    policy.CLASS_PROXIES[np.ndarray] = ARRAY_CLASS
    scalars = {cls for cls in np.sctypeDict.values()} | {np.bool_, np.str_, np.bytes_, np.void, np.object_}
    for cls in scalars:
        _array_rule(cls)
    for cls in vars(np.dtypes).values():
        if isinstance(cls, type) and issubclass(cls, np.dtype):
            policy.allow_module_types([cls], read=_DTYPE_READ)
    policy.allow_module_types([type(np.dtype), type(np.ndarray)], kind=policy.CLASS)
    policy.allow_module_types([np.ufunc], read={"nin", "nout", "nargs", "ntypes", "types", "identity", "signature",
                                                "reduce", "accumulate", "reduceat", "outer", "at", "__name__",
                                                "__doc__", "__call__"})
    # numpy's functions: dispatchers of Python functions, and Cython's functions (default_rng)
    policy.allow_module_types([type(np.sum), type(np.random.default_rng)],
                              read={"__name__", "__qualname__", "__module__", "__doc__", "__call__"})
    policy.allow_module_types([np.flatiter], read={"index", "coords", "copy"})
    policy.allow_module_types([type(np.mgrid), type(np.ogrid), type(np.r_), type(np.c_), type(np.s_)], read=set())
    policy.allow_module_types([np.finfo, np.iinfo, np.poly1d, np.vectorize, np.ndenumerate, np.ndindex],
                              public=True)
    policy.allow_module_types([type(np.ones(1).flags)], read={"writeable", "c_contiguous", "f_contiguous",
                                                              "owndata", "aligned", "writebackifcopy"},
                              write={"writeable"})
    policy.allow_module_types([np.errstate, numpy_state.PROGRAM_FUNCTIONS["errstate"]],
                              read={"__enter__", "__exit__", "__call__"})
    random = np.random
    policy.allow_module_types([random.Generator], read=policy.public_names(random.Generator) - _GENERATOR_REFUSED)
    policy.allow_module_types([random.RandomState], read=policy.public_names(random.RandomState))
    bit_generators = [random.PCG64, random.MT19937, random.Philox, random.SFC64, random.PCG64DXSM]
    policy.allow_module_types(bit_generators, read=_BIT_GENERATOR_READ)
    policy.allow_module_types([random.SeedSequence], read={"entropy", "spawn_key", "pool_size",
                                                           "n_children_spawned", "generate_state", "spawn"})
    for error in (np.linalg.LinAlgError, np.exceptions.AxisError, np.exceptions.ComplexWarning):
        policy.allow_module_types([error], read=policy.RULES[ValueError].read, public=True,
                                  deny={"obj", "path"})


def numpy() -> dict:
    policy.resolve(np.ndarray)  # the rules of numpy's types
    members = _members(np, _NUMPY_REFUSED)
    members["ndarray"] = ARRAY_CLASS
    members.update(numpy_state.PROGRAM_FUNCTIONS)
    members.update(linalg=Submodule("numpy.linalg"), random=Submodule("numpy.random"), fft=Submodule("numpy.fft"),
                   testing=Submodule("numpy.testing"), __version__=np.__version__)
    return members


def linalg() -> dict:
    import numpy.linalg

    return _members(numpy.linalg)


def fft() -> dict:
    import numpy.fft

    return _members(numpy.fft, frozenset({"helper"}))


def random() -> dict:
    import numpy.random as random

    # the module-level functions are a session's own generator's (see session_members)
    return {name: getattr(random, name) for name in ("Generator", "RandomState", "SeedSequence", "PCG64", "MT19937",
                                                      "Philox", "SFC64", "default_rng")}


def testing() -> dict:
    import numpy.testing as testing

    return {name: getattr(testing, name) for name in (
        "assert_allclose", "assert_array_equal", "assert_array_almost_equal", "assert_almost_equal", "assert_equal",
        "assert_array_less", "assert_approx_equal", "assert_string_equal", "assert_raises", "assert_warns")}


def session_random_members() -> dict:
    """np.random's module-level functions, bound to a generator of the session's own."""
    generator = np.random.RandomState()
    return {name: getattr(generator, name) for name in RANDOM_FUNCTIONS if hasattr(generator, name)}


BUILDERS = {"numpy": numpy, "numpy.linalg": linalg, "numpy.fft": fft, "numpy.random": random,
            "numpy.testing": testing}
