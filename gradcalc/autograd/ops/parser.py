"""PyTorch's argument parser (torch/csrc/utils/python_arg_parser.cpp), for gradcalc's ops.

Every C function of PyTorch matches its arguments against signature strings such as
`sum(Tensor input, IntArrayRef[1]? dim, bool keepdim=False, *, ScalarType? dtype=None)`, in
order, and its errors (`sum(): argument 'input' (position 1) must be Tensor, not int`,
`... received an invalid combination of arguments - got (...), but expected one of: ...`) come
from that matching. gradcalc reads the same strings, recorded from PyTorch into
`signatures.txt` by tools/record_signatures.py, and matches them the same way, so its errors
are PyTorch's word for word. A signature is compiled on the first call of its function.
"""
from __future__ import annotations

import operator
import os
from typing import Any, Optional

import numpy as np

from .. import dtypes
from ..dtypes import DType
from ..tensor import DEVICE_CONTEXT, NO_CUDA_MESSAGE, Device, Size, Tensor
from ...display.names import type_name
from ...warnings import first_time, warn
from . import unordered_map
from .common import plain_int_tuple, plain_ints
from .tensor_numpy import python_scalar

# ParameterType: the kinds of parameter a signature string names
(TENSOR, SCALAR, INT64, SYM_INT, DOUBLE, COMPLEX, TENSOR_LIST, INT_LIST, SYM_INT_LIST, FLOAT_LIST, GENERATOR, BOOL,
 STORAGE, PYOBJECT, SCALARTYPE, LAYOUT, MEMORY_FORMAT, QSCHEME, DEVICE, STREAM, STRING, DIMNAME, DIMNAME_LIST,
 SCALAR_LIST, DISPATCH_KEY_SET) = range(25)

_KINDS = {
    "Tensor": TENSOR, "Scalar": SCALAR, "int64_t": INT64, "SymInt": SYM_INT, "double": DOUBLE, "complex": COMPLEX,
    "TensorList": TENSOR_LIST, "c10::List<::std::optional<Tensor>>": TENSOR_LIST, "IntArrayRef": INT_LIST,
    "SymIntArrayRef": SYM_INT_LIST, "ArrayRef<double>": FLOAT_LIST, "Generator": GENERATOR, "bool": BOOL,
    "Storage": STORAGE, "PyObject*": PYOBJECT, "ScalarType": SCALARTYPE, "Layout": LAYOUT,
    "MemoryFormat": MEMORY_FORMAT, "QScheme": QSCHEME, "Device": DEVICE, "Stream": STREAM, "std::string": STRING,
    "c10::string_view": STRING, "std::string_view": STRING, "Dimname": DIMNAME, "DimnameList": DIMNAME_LIST,
    "ScalarList": SCALAR_LIST, "DeviceIndex": INT64, "DispatchKeySet": DISPATCH_KEY_SET,
}
_TYPE_NAMES = {
    TENSOR: "Tensor", SCALAR: "Number", INT64: "int", SYM_INT: "int", DOUBLE: "float", COMPLEX: "complex",
    TENSOR_LIST: "tuple of Tensors", INT_LIST: "tuple of ints", SYM_INT_LIST: "tuple of ints",
    FLOAT_LIST: "tuple of floats", GENERATOR: "torch.Generator", BOOL: "bool", STORAGE: "torch.Storage",
    PYOBJECT: "object", SCALARTYPE: "torch.dtype", LAYOUT: "torch.layout", MEMORY_FORMAT: "torch.memory_format",
    QSCHEME: "torch.qscheme", DEVICE: "torch.device", STREAM: "Stream", STRING: "str", DIMNAME: "name",
    DIMNAME_LIST: "tuple of names", SCALAR_LIST: "tuple of Scalars", DISPATCH_KEY_SET: "DispatchKeySet",
}
# NumPy's spellings that PyTorch also accepts for a few parameters
_NUMPY_NAMES = {"dim": ("axis",), "keepdim": ("keepdims",), "input": ("x", "a", "x1"), "other": ("x2",)}
# the functions whose Tensor parameters also take Python numbers
_NUMBERS_AS_TENSORS = frozenset({
    "add", "add_", "add_out", "div", "div_", "div_out", "divide", "divide_", "divide_out", "mul", "mul_", "mul_out",
    "multiply", "multiply_", "multiply_out", "sub", "sub_", "sub_out", "subtract", "subtract_", "subtract_out",
    "true_divide", "true_divide_", "true_divide_out", "to", "_to_copy", "copy_", "floor_divide", "floor_divide_",
    "floor_divide_out"})
# Python's number types name dtypes where a dtype is expected (`x.to(float)`)
_PYTHON_SCALAR_TYPES = {float: "float64", int: "int64", bool: "bool", complex: "complex128"}

_classes: dict = {}  # optional classes checked by kind (Generator, layouts, storages), registered by their modules


def register_kind(kind_name: str, cls: type) -> None:
    """Let parameters of `kind_name` ("Generator", "Layout", "MemoryFormat", "Storage") accept `cls`."""
    _classes[kind_name] = cls


# numpy's numbers count as Python's, as in PyTorch (only gradcalc's own code passes them)
def _is_long(obj: Any) -> bool:
    return type(obj) is int or (isinstance(obj, (int, np.integer)) and not isinstance(obj, bool))


def _is_double(obj: Any) -> bool:
    return isinstance(obj, (float, int, np.integer, np.floating))


def _is_scalar(obj: Any) -> bool:
    return isinstance(obj, (float, int, complex, np.number, np.bool_))


def _is_index(obj: Any) -> bool:
    """THPUtils_checkIndex: an int, or anything with an __index__ that answers (not a bool)."""
    if isinstance(obj, bool):
        return False
    if isinstance(obj, (int, np.integer)):
        return True
    if isinstance(obj, Tensor):
        try:
            obj.__index__()
        except TypeError:
            return False
        return True
    return False


def _is_instance_of(kind_name: str, obj: Any) -> bool:
    cls = _classes.get(kind_name)
    return cls is not None and isinstance(obj, cls)


class Param:
    __slots__ = ("name", "kind", "size", "allow_none", "optional", "keyword_only", "default", "numpy_names",
                 "numbers_as_tensors", "shown")

    def __init__(self, text: str, keyword_only: bool, numbers_as_tensors: bool) -> None:
        type_text, _, rest = text.partition(" ")
        self.allow_none = "?" in type_text
        type_text = type_text.replace("?", "")
        self.size = 0
        if "[" in type_text:
            type_text, _, size = type_text.partition("[")
            self.size = int(size.rstrip("]") or 0)
        self.kind = _KINDS[type_text]
        self.name, has_default, default = rest.partition("=")
        self.optional = bool(has_default)
        self.default = default if has_default else None
        if default == "None":
            self.allow_none = True
        self.keyword_only = keyword_only
        self.numpy_names = _NUMPY_NAMES.get(self.name, ())
        self.numbers_as_tensors = numbers_as_tensors
        self.shown = f"{_TYPE_NAMES[self.kind]} {self.name}" + (f" = {default}" if has_default else "")

    @property
    def type_name(self) -> str:
        return _TYPE_NAMES[self.kind]

    def check(self, obj: Any, position: int) -> tuple:
        """(does `obj` fit, index of the first element that does not, or -1)."""
        kind = self.kind
        if kind == TENSOR:
            return isinstance(obj, Tensor) or (self.numbers_as_tensors and _is_scalar(obj)), -1
        if kind in (SCALAR, COMPLEX, DOUBLE):
            if (kind == SCALAR and _is_scalar(obj)) or (kind != DOUBLE and isinstance(obj, complex)) or _is_double(obj):
                return True, -1
            return isinstance(obj, Tensor) and not obj.requires_grad and obj.ndim == 0, -1
        if kind == INT64:
            if _is_long(obj):
                return True, -1
            return (isinstance(obj, Tensor) and obj._dtype.category == dtypes.INTEGRAL and not obj.requires_grad
                    and obj.ndim == 0), -1
        if kind == SYM_INT:
            return _is_index(obj), -1
        if kind in (INT_LIST, SYM_INT_LIST):
            if isinstance(obj, (tuple, list)):
                if not obj or _is_index(obj[0]):
                    return True, -1
                return False, 0
            return self.size > 0 and (_is_long(obj) if kind == INT_LIST else _is_index(obj)), -1
        if kind == TENSOR_LIST:
            if not isinstance(obj, (tuple, list)):
                return False, -1
            for index, item in enumerate(obj):
                if not isinstance(item, Tensor):
                    raise TypeError(f"expected Tensor as element {index} in argument {position}, but got "
                                    f"{type_name(item)}")
            return True, -1
        if kind == BOOL:
            return isinstance(obj, bool), -1
        if kind == SCALARTYPE:
            return isinstance(obj, DType) or (isinstance(obj, type) and obj in _PYTHON_SCALAR_TYPES), -1
        if kind == DEVICE:
            return _is_long(obj) or isinstance(obj, (str, bytes, Device)), -1
        if kind == STRING:  # THPUtils_checkString: bytes are a string too
            return isinstance(obj, (str, bytes)), -1
        if kind == FLOAT_LIST:
            if not isinstance(obj, (tuple, list)):
                return False, -1
            return not obj or _is_double(obj[0]) or isinstance(obj[0], complex), -1
        if kind == SCALAR_LIST:
            return isinstance(obj, (tuple, list)) and all(_is_scalar(item) for item in obj), -1
        if kind == PYOBJECT:
            return True, -1
        if kind == DIMNAME:
            return obj is None or isinstance(obj, str), -1
        if kind == DIMNAME_LIST:
            names = isinstance(obj, (tuple, list)) and all(item is None or isinstance(item, str) for item in obj)
            return names or (self.size == 1 and (obj is None or isinstance(obj, str))), -1
        if kind == GENERATOR:
            return _is_instance_of("Generator", obj), -1
        if kind == LAYOUT:
            return _is_instance_of("Layout", obj), -1
        if kind == MEMORY_FORMAT:
            return _is_instance_of("MemoryFormat", obj), -1
        if kind == STORAGE:
            return _is_instance_of("Storage", obj), -1
        return False, -1  # qscheme, stream, dispatch keys: gradcalc has none to pass

    def convert(self, obj: Any, signature_name: str) -> Any:
        """The value the implementation receives (PythonArgs' unpacking)."""
        kind = self.kind
        if obj is None:
            return None
        if obj.__class__ is int and (kind == INT64 or kind == SYM_INT):  # the common cases, first
            return unpack_long(obj)
        if obj.__class__ is tuple and (kind == INT_LIST or kind == SYM_INT_LIST) and plain_int_tuple(obj):
            low = min(obj)  # sizes of plain ints: nothing to convert (as the list case below finds, later)
            if -2 ** 63 <= low and max(obj) < 2 ** 63 and (
                    kind == INT_LIST or low >= _LEAST_PLAIN_SYM_INT or signature_name not in _SIZES_MADE_CONCRETE_AT):
                return obj
        if kind in (SCALAR, DOUBLE, COMPLEX) and isinstance(obj, Tensor):
            obj = obj.item()
        elif kind in (SCALAR, TENSOR, COMPLEX) and isinstance(obj, np.generic):
            obj = python_scalar(obj)
        if kind in (SCALAR, TENSOR) and type(obj) is int:  # a Tensor parameter takes a number as a Scalar too
            dtypes.unpack_scalar_int(obj)  # the OverflowError of a number past uint64's range
        if kind == TENSOR and self.name == "out" and not isinstance(obj, Tensor):
            # the result goes into a tensor made of the number, as PyTorch wraps one (`out=0`: int64)
            dtype = dtypes.scalar_dtype(obj, wrapped=True)
            return Tensor._make(np.array(obj, dtype=dtype._numpy), dtype)
        if kind == DOUBLE:
            return float(obj)
        if kind == INT64:
            return unpack_long(obj if type(obj) is int else int(obj))
        if kind == SYM_INT:
            return unpack_long(operator.index(obj))
        if kind in (INT_LIST, SYM_INT_LIST):
            if not isinstance(obj, (tuple, list)):
                values = (unpack_long(operator.index(obj)),) * self.size
            elif plain_int_tuple(obj) and -2 ** 63 <= min(obj) and max(obj) < 2 ** 63:
                values = obj  # (the common case: nothing to convert)
            else:
                values = tuple(self._list_item(item, index, signature_name) for index, item in enumerate(obj))
            if kind == SYM_INT_LIST and signature_name in _SIZES_MADE_CONCRETE_AT and values and \
                    min(values) < _LEAST_PLAIN_SYM_INT:
                raise RuntimeError(f"{_ATEN_BUILD}/{_SIZES_MADE_CONCRETE_AT[signature_name]}: SymIntArrayRef "
                                   "expected to contain only concrete integers")
            return values
        if kind == FLOAT_LIST and not any(isinstance(item, complex) for item in obj):
            return self._float_list(obj, signature_name)
        if kind == SCALARTYPE and not isinstance(obj, DType):
            return dtypes.by_name(_PYTHON_SCALAR_TYPES[obj])
        if kind == DEVICE and _is_long(obj):  # an accelerator's index, unpacked before it is judged
            return unpack_long(int(obj))
        if kind in (STRING, DEVICE) and isinstance(obj, bytes):  # as the std::string PyTorch reads them into
            return obj.decode("utf-8", "surrogateescape")
        return obj

    def _float_list(self, values: Any, signature_name: str) -> list:
        """PythonArgs::getDoublelist: each element as a double, or the element's refusal."""
        floats = []
        for index, item in enumerate(values):
            try:
                floats.append(float(item))
            except (TypeError, ValueError, OverflowError, RuntimeError):
                raise TypeError(f"{signature_name}(): argument '{self.name}' must be tuple of floats, but found "
                                f"element of type {type_name(item)} at pos {index + 1}") from None
        return floats

    def _list_item(self, item: Any, index: int, signature_name: str) -> int:
        if type(item) is int:
            if not -2 ** 63 <= item < 2 ** 63:
                raise TypeError(overflow_message(signature_name, self.name, index + 1))
            return item
        if _is_long(item):
            return int(item)
        if isinstance(item, Tensor) and item.numel() == 1 and item._dtype.category <= dtypes.INTEGRAL:
            return int(item._data.reshape(()))
        try:
            return operator.index(item)
        except TypeError:
            raise TypeError(f"{signature_name}(): argument '{self.name}' failed to unpack the object at pos "
                            f"{index + 1} with error \"type must be tuple of ints,but got {type_name(item)}\"") \
                from None


def unpack_long(value: int) -> int:
    """THPUtils_unpackLong: an int past int64's range is refused."""
    if not -2 ** 63 <= value < 2 ** 63:
        raise ValueError("Overflow when unpacking long long")
    return value


def overflow_message(signature_name: str, name: str, position: int) -> str:
    """The first line of PyTorch's message for a size past int64's range (the rest of it is the
    C++ backtrace of THPUtils_unpackLong, which says nothing to a program)."""
    return (f"{signature_name}(): argument '{name}' failed to unpack the object at pos {position} with error "
            f"\"Overflow when unpacking long long")


class Signature:
    __slots__ = ("name", "params", "min_args", "max_args", "max_pos_args", "hidden", "deprecated",
                 "varargs_intlist", "text", "takes_options")

    def __init__(self, text: str) -> None:
        self.text = text
        open_paren = text.index("(")
        self.name = text[:open_paren]
        close_paren = text.rindex(")")
        suffix = text[close_paren + 1:]
        self.deprecated = suffix == "|deprecated"
        self.hidden = suffix in ("|deprecated", "|hidden")
        numbers = self.name in _NUMBERS_AS_TENSORS
        self.params = []
        keyword_only = False
        inner = text[open_paren + 1:close_paren]
        for piece in inner.split(", ") if inner else ():
            if piece == "*":
                keyword_only = True
            else:
                self.params.append(Param(piece, keyword_only, numbers))
        self.max_args = len(self.params)
        self.min_args = sum(1 for p in self.params if not p.optional)
        self.max_pos_args = sum(1 for p in self.params if not p.keyword_only)
        self.varargs_intlist = self.max_pos_args == 1 and self.params[0].kind in (INT_LIST, SYM_INT_LIST)
        # a factory's TensorOptions (dtype, layout, device, ...): its binding reads them before the other arguments
        kinds = {param.name: param.kind for param in self.params}
        self.takes_options = kinds.get("device") == DEVICE and kinds.get("layout") == LAYOUT

    def keyword_param(self, given: str) -> Optional[Param]:
        """The parameter a keyword argument binds to: by its name or a NumPy spelling of it."""
        for param in self.params:
            if param.name == given or given in param.numpy_names:
                return param
        return None

    def shown(self) -> str:
        """FunctionSignature::toString: how error messages show this signature."""
        parts, keyword_shown = [], False
        for param in self.params:
            if param.keyword_only and not keyword_shown:
                parts.append("*")
                keyword_shown = True
            parts.append(param.shown)
        return "(" + ", ".join(parts) + ")"

    def match(self, args: tuple, kwargs: dict, raise_errors: bool) -> Optional[list]:
        """The (parameter, argument) pairs of the arguments given, or None if they do not fit (with
        `raise_errors`, PyTorch's TypeError instead). Like PyTorch, the match looks at the first
        element of a list only; the others are read (and refused) by `bind`, once it matched."""
        nargs = len(args)
        if nargs > self.max_pos_args and not self.varargs_intlist:
            if raise_errors:
                self._extra_args(nargs)
            return None
        matched = []
        remaining = len(kwargs)
        position = 0
        for index, param in enumerate(self.params):
            is_keyword = False
            obj = _MISSING
            if position < nargs:
                if param.keyword_only:
                    if raise_errors:
                        self._extra_args(nargs)
                    return None
                obj = args[position]
            elif kwargs:
                obj = kwargs.get(param.name, _MISSING)
                for alternative in param.numpy_names:
                    if obj is not _MISSING:
                        break
                    obj = kwargs.get(alternative, _MISSING)
                is_keyword = True
            if obj is _MISSING:
                if not param.optional:
                    if raise_errors:
                        self._missing_args(index)
                    return None
            elif obj is None and param.allow_none:
                matched.append((param, None))
            else:
                fits, failed = param.check(obj, index)
                if fits:
                    matched.append((param, obj))
                elif self.varargs_intlist and position == 0 and not is_keyword and _varargs_fit(args):
                    matched.append((param, args))  # view(2, 3): the positional ints are the one list
                    position = nargs
                    continue
                elif raise_errors:
                    if self.varargs_intlist and nargs > self.max_pos_args and not is_keyword:
                        self._extra_args(nargs)  # a keyword's type is judged after the ints were taken together
                    self._type_error(param, obj, position, is_keyword, failed, args)
                else:
                    return None
            if not is_keyword:
                position += 1
            elif obj is not _MISSING:
                remaining -= 1
        if position < nargs:  # `view((1, 2), 3)`: a list took the varargs parameter, an argument is left
            if raise_errors:
                self._extra_args(nargs)
            return None
        if remaining > 0:
            if raise_errors:
                self._extra_kwargs(kwargs, nargs)
            return None
        return matched

    def bind(self, matched: list) -> dict:
        """The matched arguments bound to parameter names, as the implementation receives them."""
        if self.takes_options:
            self.read_options({param.name: obj for param, obj in matched})
        return {param.name: param.convert(obj, self.name) for param, obj in matched}

    def read_options(self, given: dict) -> None:
        """What the generated binding of a factory does before it unpacks sizes and values: the device parsed,
        then the `out=` tensor checked against the dtype and device asked for (check_out_type_matches; gradcalc's
        one layout always matches) or, without one, the device initialised (maybe_initialize_device: a CUDA device
        fails there, whatever the sizes)."""
        device = given.get("device")
        if device is not None:
            device = Device(self.keyword_param("device").convert(device, self.name))
        out = given.get("out")
        if isinstance(out, Tensor):
            dtype = self.keyword_param("dtype").convert(given.get("dtype"), self.name)
            if dtype is not None and dtype is not out.dtype:
                raise RuntimeError(f"dtype {dtype._scalar_name} does not match dtype of out parameter "
                                   f"({out.dtype._scalar_name})")
            if device is not None and device.type != out.device.type:
                raise RuntimeError(f"device type {device.type} does not match device type of out parameter "
                                   f"({out.device.type})")
        elif device is not None and device.type == "cuda":
            raise AssertionError(NO_CUDA_MESSAGE)

    def _extra_args(self, nargs: int) -> None:
        if self.min_args != self.max_pos_args:
            raise TypeError(f"{self.name}() takes from {self.min_args} to {self.max_pos_args} positional arguments "
                            f"but {nargs} were given")
        plural = "" if self.max_pos_args == 1 else "s"
        raise TypeError(f"{self.name}() takes {self.max_pos_args} positional argument{plural} but {nargs} "
                        f"{'was' if nargs == 1 else 'were'} given")

    def _missing_args(self, index: int) -> None:
        missing = [f'"{p.name}"' for p in self.params[index:] if not p.optional]
        # PyTorch's own message: "argument" takes an "s" when exactly one is missing
        plural = "s" if len(missing) == 1 else ""
        raise TypeError(f"{self.name}() missing {len(missing)} required positional argument{plural}: "
                        f"{', '.join(missing)}")

    def _type_error(self, param: Param, obj: Any, position: int, is_keyword: bool, failed: int, args: tuple) -> None:
        if is_keyword:
            raise TypeError(f"{self.name}(): argument '{param.name}' must be {param.type_name}, not "
                            f"{type_name(obj)}")
        if failed != -1:
            sequence = obj if isinstance(obj, (tuple, list)) else args
            raise TypeError(f"{self.name}(): argument '{param.name}' (position {position + 1}) must be "
                            f"{param.type_name}, but found element of type {type_name(sequence[failed])} at pos "
                            f"{failed}")
        raise TypeError(f"{self.name}(): argument '{param.name}' (position {position + 1}) must be {param.type_name}, "
                        f"not {type_name(obj)}")

    def _extra_kwargs(self, kwargs: dict, nargs: int) -> None:
        names = [p.name for p in self.params]
        for key in kwargs:
            if not isinstance(key, str):
                raise TypeError("keywords must be strings")
            if key not in names:
                raise TypeError(f"{self.name}() got an unexpected keyword argument '{key}'")
            if names.index(key) < nargs:
                raise TypeError(f"{self.name}() got multiple values for argument '{key}'")
        raise TypeError("invalid keyword arguments")


def _varargs_fit(args: tuple) -> bool:
    """`view(2, 3)`: positional ints taken together as the one int-list parameter."""
    return not args or _is_index(args[0])


_MISSING = object()
# the functions torch's DeviceContext gives a device (torch/utils/_device.py's _device_constructors), by parser name
_DEVICE_CONSTRUCTORS = frozenset({
    "empty", "empty_permuted", "empty_strided", "ones", "arange", "bartlett_window", "blackman_window", "eye",
    "fft_fftfreq", "fft_rfftfreq", "full", "hamming_window", "hann_window", "kaiser_window", "linspace", "logspace",
    "rand", "randn", "randint", "randperm", "range", "tril_indices", "triu_indices", "zeros", "asarray", "tensor",
    "as_tensor", "scalar_tensor"})

# A SymInt holds an int from -2**62 up as a plain number, a smaller one as a symbolic value; the
# kernels of these functions read their size list as plain ints, and refuse a symbolic one in the
# words of the generated file that calls them (a function of the same kernel shares its place)
_LEAST_PLAIN_SYM_INT = -2 ** 62
_ATEN_BUILD = "/__w/pytorch/pytorch/build/aten/src/ATen"
_EMPTY_AT, _VIEW_AT, _EXPAND_AT, _REPEAT_AT = ("RegisterCPU_1.cpp:2398", "RegisterCPU_3.cpp:5710",
                                               "RegisterCompositeExplicitAutograd_0.cpp:4963",
                                               "RegisterCompositeExplicitAutograd_0.cpp:9752")
_SIZES_MADE_CONCRETE_AT = {
    "ones": "RegisterCompositeExplicitAutograd_0.cpp:8236", "randn": "RegisterCompositeExplicitAutograd_0.cpp:9454",
    "rand": "RegisterCompositeExplicitAutograd_0.cpp:8781", "full": "RegisterCompositeExplicitAutograd_0.cpp:5179",
    "randint": "RegisterCompositeExplicitAutograd_0.cpp:8948", "empty_strided": "RegisterCPU_2.cpp:2356",
    "new_ones": "RegisterCompositeExplicitAutograd_0.cpp:4653",
    "new_zeros": "RegisterCompositeExplicitAutograd_0.cpp:4600",
    "new_full": "RegisterCompositeExplicitAutograd_0.cpp:4547", "resize_": "RegisterCPU_3.cpp:2677",
    "as_strided": "RegisterCPU_0.cpp:1754", "normal": "RegisterCompositeExplicitAutograd_0.cpp:16347",
    "roll": "RegisterCPU_3.cpp:4890", "empty": _EMPTY_AT, "new_empty": _EMPTY_AT, "new": _EMPTY_AT, "view": _VIEW_AT,
    "reshape": _VIEW_AT, "expand": _EXPAND_AT, "broadcast_to": _EXPAND_AT, "repeat": _REPEAT_AT, "tile": _REPEAT_AT,
}


# the parameter kinds whose check of a tensor looks at its values (a 0-dim tensor is a Scalar)
_TENSOR_CHECKED_BY_VALUE = frozenset({SCALAR, COMPLEX, DOUBLE, INT64, SYM_INT, SYM_INT_LIST})
# the kinds whose check of a list looks at every item; the others look at the first one, or none
_LIST_CHECKED_BY_ITEMS = frozenset({TENSOR_LIST, SCALAR_LIST, DIMNAME_LIST})
_SEQUENCES = frozenset({tuple, list, Size})
# the kinds whose conversion of an int checks its range, whatever ints of the same type did before
# (a Tensor parameter's too: it takes a number as a Scalar)
_RANGE_CHECKED = frozenset({SCALAR, TENSOR, INT64, SYM_INT, INT_LIST, SYM_INT_LIST})
# a value of these types may pass unchanged and still be checked at every call (an int's range,
# each int of a tuple of sizes)
_CHECKED_TYPES = (int, tuple)

def _decided_by_type(param: Param, obj: Any) -> bool:
    """Whether `param.check(obj)` gives the same answer for every object of obj's type (and, for
    a list, of its first item's type, which the parser's call keys hold)."""
    if isinstance(obj, Tensor):
        return param.kind not in _TENSOR_CHECKED_BY_VALUE
    if isinstance(obj, (tuple, list)):
        return param.kind not in _LIST_CHECKED_BY_ITEMS and not (obj and isinstance(obj[0], Tensor))
    return not isinstance(obj, type) or param.kind != SCALARTYPE  # `x.to(float)`: a type judged by itself


# How the native call (csrc/dispatch.c) takes a remembered binding's converted value: as it is when
# it is of the common kind for its parameter (an int in int64's range, a tuple of them, a number),
# else through Param.convert.
_AS_PYTHON, _PLAIN_INT, _PLAIN_INTS, _PLAIN_SYM_INTS, _PLAIN_NUMBER, _PLAIN_FLOAT = range(6)


def _native_plan(param: Param, signature_name: str) -> int:
    """Which of the common kinds Param.convert passes unchanged `param` takes (see above)."""
    if param.kind in (INT64, SYM_INT):
        return _PLAIN_INT
    if param.kind == SCALAR or (param.kind == TENSOR and param.name != "out"):
        return _PLAIN_NUMBER  # (a float, or an int in int64's range: its range checked, itself kept)
    if param.kind == DOUBLE:
        return _PLAIN_FLOAT
    if param.kind == INT_LIST or (param.kind == SYM_INT_LIST and signature_name not in _SIZES_MADE_CONCRETE_AT):
        return _PLAIN_INTS
    return _PLAIN_SYM_INTS if param.kind == SYM_INT_LIST else _AS_PYTHON


def _call_key(args: tuple, kwargs: dict) -> tuple:
    """What decides how a call binds, for the calls whose checks look at types only: the types of
    the arguments, positional then keyword (a list's with its first item's), then the keyword names."""
    values = (*args, *kwargs.values()) if kwargs else args
    types = tuple(map(type, values))
    if not _SEQUENCES.isdisjoint(types):
        types = tuple((type(value), type(value[0]) if value else None) if type(value) in _SEQUENCES
                      else type(value) for value in values)
    return (*types, *kwargs) if kwargs else types


class Parser:
    """The signatures of one function or method, matched in PyTorch's order (deprecated ones last).

    A call whose argument types (and keyword names) have matched before, where the match depended
    on nothing else, binds the same way without matching again (its arguments still converted as
    the signature says): `x.pow(2)`, `x.sum()` and `torch.mul(a, b)` in a loop."""

    __slots__ = ("signatures", "name", "single", "_bindings")

    def __init__(self, texts: list) -> None:
        signatures = [Signature(text) for text in texts]
        self.signatures = [s for s in signatures if not s.deprecated] + [s for s in signatures if s.deprecated]
        self.name = signatures[0].name
        self.single = len(self.signatures) == 1
        # call key -> (signature index, positional names (None: all to the first parameter, as one
        # list), keyword names, parameters that convert)
        self._bindings: dict = {}

    def parse(self, args: tuple, kwargs: dict) -> tuple:
        """(index of the matching signature, its bound arguments), or PyTorch's TypeError."""
        given = kwargs  # (what a refusal shows: the parser reads the call before the mode adds its device)
        if DEVICE_CONTEXT and self.name in _DEVICE_CONSTRUCTORS and kwargs.get("device") is None:
            # torch's DeviceContext mode gives the factories the device of the innermost `with torch.device(...)`
            kwargs = {**kwargs, "device": DEVICE_CONTEXT[-1]}
        key = _call_key(args, kwargs)
        binding = self._bindings.get(key)
        if binding is not None:
            index, names, keywords, converted = binding[:4]
            # (names None: the positional ints as the one list)
            bound = {converted[0].name: args} if names is None else dict(zip(names, args))
            if kwargs:
                bound.update(zip(keywords, kwargs.values()))
            if self.signatures[index].deprecated:
                self._warn_deprecated(index)
            if self.signatures[index].takes_options:
                self.signatures[index].read_options(bound)
            for param in converted:
                bound[param.name] = param.convert(bound[param.name], self.name)
            return index, bound
        if self.single:
            index, matched = 0, self.signatures[0].match(args, kwargs, given is kwargs)
            if matched is None:  # refused with the mode's device: said of the call as given
                self.signatures[0].match(args, given, True)
                matched = self.signatures[0].match(args, kwargs, True)
        else:
            for index, signature in enumerate(self.signatures):
                matched = signature.match(args, kwargs, False)
                if matched is not None:
                    break
            else:
                self._error(args, given)
        if self.signatures[index].deprecated:  # PyTorch warns on the match, before it reads the values
            self._warn_deprecated(index)
        bound = self.signatures[index].bind(matched)
        self._remember(key, index, args, kwargs, bound)
        return index, bound

    def _warn_deprecated(self, index: int) -> None:
        """check_deprecated's TORCH_WARN_ONCE: one warning in a process, for whichever deprecated
        overload (of any function) is called first."""
        if not first_time("deprecated overload"):
            return
        message = f"This overload of {self.name} is deprecated:\n\t{self.name}{self.signatures[index].shown()}"
        others = [f"\n\t{self.name}{s.shown()}" for s in self.signatures if not s.hidden]
        if others:
            message += "\nConsider using one of the following signatures instead:" + "".join(others)
        warn("UserWarning", message, at="torch/csrc/utils/python_arg_parser.cpp:1841")

    def _remember(self, key: tuple, index: int, args: tuple, kwargs: dict, bound: dict) -> None:
        """Keep how this call bound when every check the signatures up to the match made of its
        arguments was decided by the call key alone."""
        for signature in self.signatures[:index + 1]:
            if signature.varargs_intlist and args and isinstance(args[0], Tensor):
                return  # `view(n)`: whether a tensor is an int depends on its value
            params = signature.params
            for position, obj in enumerate(args):
                if position < len(params) and not _decided_by_type(params[position], obj):
                    return
            for given, obj in kwargs.items():
                param = signature.keyword_param(given)
                if param is not None and not _decided_by_type(param, obj):
                    return
        signature = self.signatures[index]
        keywords = [signature.keyword_param(given) for given in kwargs]
        if signature.varargs_intlist and args and type(args[0]) not in _SEQUENCES:
            # `view(2, 3)`, `view(-1)`: the positional ints were taken together as the one list, as
            # they will be again when they are plain ints (no names: all of them go to its one parameter)
            if not all(type(obj) is int for obj in args) or bound[signature.params[0].name] != args:
                return
            names, positional = None, [signature.params[0]]
            values = (args, *kwargs.values())
        else:
            positional = signature.params[:len(args)]
            names = tuple(param.name for param in positional)
            values = (*args, *kwargs.values())
        converted = tuple(param for param, obj in zip([*positional, *keywords], values)
                          if names is None and param is positional[0] or bound[param.name] is not obj
                          or (type(obj) in _CHECKED_TYPES and param.kind in _RANGE_CHECKED))
        native = None if signature.deprecated else (
            tuple((param.name, _native_plan(param, self.name), param) for param in converted),
            signature.read_options if signature.takes_options else None)
        self._bindings[key] = (index, names, tuple(param.name for param in keywords), converted, native)

    def _error(self, args: tuple, kwargs: dict) -> None:
        count = len(args) + len(kwargs)
        plausible = [s for s in self.signatures if s.min_args <= count <= s.max_args and not s.hidden]
        if len(plausible) == 1:
            plausible[0].match(args, kwargs, True)
        options = [s for s in self.signatures if not s.hidden]
        raise TypeError(invalid_arguments(self.name, args, kwargs, options))


def invalid_arguments(name: str, args: tuple, kwargs: dict, options: list) -> str:
    """torch::format_invalid_args: the `received an invalid combination of arguments` message."""
    message = f"{name}() received an invalid combination of arguments - "
    # PyTorch collects the keywords in a std::unordered_map, whose order they come back in
    keywords = {key: kwargs[key] for key in unordered_map.iteration_order(kwargs)}
    shown = [option.shown() for option in options]
    if len(shown) == 1:
        arguments = _option_arguments(shown[0])
        unmatched = _unmatched_keywords(arguments, keywords)
        if unmatched:
            return message + "got unrecognized keyword arguments: " + ", ".join(unmatched)
        described = (_matched_description(arguments, args, keywords)
                     if len(args) + len(keywords) == len(arguments) else _description(args, keywords))
        return message + f"got {described}, but expected {shown[0]}"
    message += f"got {_description(args, keywords)}, but expected one of:\n"
    for text in shown:
        message += f" * {text}\n"
        arguments = _option_arguments(text)
        if len(args) + len(keywords) == len(arguments):
            unmatched = _unmatched_keywords(arguments, keywords)
            if unmatched:
                message += "      didn't match because some of the keywords were incorrect: " + ", ".join(unmatched) + "\n"
            else:
                message += ("      didn't match because some of the arguments have invalid types: "
                            + _matched_description(arguments, args, keywords) + "\n")
    return message


def _option_arguments(shown: str) -> list:
    """(name, type name) of each argument, as invalid_arguments.cpp's _parseOption reads them back
    from the shown signature: `*` and `type name = default` included, the name being the last word."""
    arguments = []
    for piece in shown[1:-1].split(", "):
        type_end = piece.rfind(" ")
        type_name = piece if type_end < 0 else piece[:type_end]
        arguments.append((piece[type_end + 1:], type_name))
    return arguments


def _unmatched_keywords(arguments: list, keywords: dict) -> list:
    start = max(len(arguments) - len(keywords), 0)
    names = [name for name, _ in arguments[start:]]
    return [key for key in keywords if key not in names]


def _shown_type(value: Any) -> str:
    if isinstance(value, (tuple, list)):
        items = ", ".join(type_name(item) for item in value)
        if isinstance(value, tuple):
            return f"{type_name(value)} of ({items}{',' if len(value) == 1 else ''})"
        return f"{type_name(value)} of [{items}]"
    return type_name(value)


def _description(args: tuple, keywords: dict) -> str:
    text = "".join(f"{type_name(arg)}, " for arg in args)
    text += "".join(f"{key}={type_name(value)}, " for key, value in keywords.items())
    # PyTorch drops the last ", " only when there are positional arguments: `(foo=int, )`
    return "(" + (text[:-2] if args else text) + ")"


def _matched_description(arguments: list, args: tuple, keywords: dict) -> str:
    """The arguments, each marked `!...!` where its type does not match the option's parameter."""
    text = ""
    for index in range(len(args) + len(keywords)):
        name, type_name = arguments[index]
        is_keyword = index >= len(args)
        value = keywords[name] if is_keyword else args[index]
        shown = (f"{name}=" if is_keyword else "") + _shown_type(value)
        text += (shown if _matches_shown_type(type_name, value) else f"!{shown}!") + ", "
    return "(" + (text[:-2] if args else text) + ")"


def _matches_shown_type(shown: str, value: Any) -> bool:
    """invalid_arguments.cpp's test: the Python type's name against the shown type name."""
    python_name = type_name(value)
    if shown == "float":
        return python_name in ("float", "int", "long")
    if shown == "int":
        return python_name in ("int", "long")
    return python_name == shown


class NoArguments:
    """A method PyTorch defines with METH_NOARGS: no parser, CPython's own messages."""

    __slots__ = ("name",)
    single = True
    # the call with no arguments, as Parser._bindings holds a remembered one (for csrc/dispatch.c)
    _bindings = {(): (0, (), (), (), ((), None))}

    def __init__(self, name: str) -> None:
        self.name = name

    def parse(self, args: tuple, kwargs: dict) -> tuple:
        if kwargs:
            raise TypeError(f"TensorBase.{self.name}() takes no keyword arguments")
        if args:
            raise TypeError(f"TensorBase.{self.name}() takes no arguments ({len(args)} given)")
        return 0, {}


def compile_parser(texts: list) -> Any:
    if len(texts) == 1 and texts[0].endswith("|noargs"):
        return NoArguments(texts[0][:texts[0].index("(")])
    return Parser(texts)


_SIGNATURES_FILE = os.path.join(os.path.dirname(__file__), "signatures.txt")
_blocks: dict = {}  # "namespace name" -> its signature strings, one per line, read at the first need
_parsers: dict = {}  # (namespace, name) -> its parser, compiled at the first call


def _signature_blocks() -> dict:
    """PyTorch's signatures by "namespace name", from tools/record_signatures.py's recording."""
    if not _blocks:
        with open(_SIGNATURES_FILE, encoding="ascii") as handle:
            for block in handle.read().split("\n[")[1:]:
                key, _, lines = block.partition("]\n")
                _blocks[key] = lines
    return _blocks


def signature_texts(namespace: str, name: str) -> list:
    return _signature_blocks()[f"{namespace} {name}"].strip("\n").split("\n")


def parser(namespace: str, name: str) -> Any:
    """The parser of one of PyTorch's functions ("torch", "Tensor", "linalg", ... namespace)."""
    found = _parsers.get((namespace, name))
    if found is None:
        found = _parsers[(namespace, name)] = compile_parser(signature_texts(namespace, name))
    return found


def has_signature(namespace: str, name: str) -> bool:
    return f"{namespace} {name}" in _signature_blocks()


