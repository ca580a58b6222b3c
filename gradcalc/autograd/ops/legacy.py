"""The API old tutorials use: `torch.Tensor([1, 2])`, `torch.FloatTensor(3, 2)` and their kin,
`x.new(...)`, `torch.autograd.Variable`, storages (`x.untyped_storage()`, `x.storage()`)."""
from __future__ import annotations

from typing import Any

import numpy as np

from .. import dtypes
from ..dtypes import DType
from ..function import BackwardCFunction, Function
from ..tensor import ONLY_FLOAT_GRAD_MESSAGE, Size, Tensor, check_device
from ...c_arguments import c_arguments, unsigned_byte
from ...display.names import torch_class, type_name
from ...warnings import warn, warn_once
from .creation import data_array, filled
from .parser import parser, register_kind
from .registry import op
from .tensor_numpy import tensor_from_numpy

TYPED_STORAGE_WARNING = (
    "TypedStorage is deprecated. It will be removed in the future and UntypedStorage will be the only storage class. "
    "This should only matter to you if you are using storages directly.  To access UntypedStorage directly, use "
    "tensor.untyped_storage() instead of tensor.storage()")


def _options(dtype: DType) -> str:
    return (f"TensorOptions(dtype={dtype._cpp_name}, device=cpu, layout=Strided, requires_grad=false (default), "
            "pinned_memory=false (default), memory_format=(nullopt))")


def construct(dtype: DType, args: tuple, kwargs: dict) -> Tensor:
    if len(args) == 1 and isinstance(args[0], (list, tuple)) and not isinstance(args[0], Size):
        # a lone sequence fits new(size), but PyTorch reads it as data unless it is a torch.Size
        if set(kwargs) - {"device"}:  # no signature takes the keywords: refused with the sequence shown
            parser("Tensor", "new").parse(args, kwargs)
        bound = parser("Tensor", "new").parse((), kwargs)[1]
        bound.pop("device", None)
        return constructed(dtype, {"data": args[0], **bound})
    return constructed(dtype, parser("Tensor", "new").parse(args, kwargs)[1])


def constructed(dtype: DType, bound: dict) -> Tensor:
    """PyTorch's legacy constructor: `Tensor()`, `Tensor(sizes...)`, `Tensor(tensor)`, `Tensor(data)`."""
    check_device(bound.get("device"))
    if "other" in bound:
        other = bound["other"]
        if other._dtype is not dtype:
            raise TypeError(f"expected {_options(dtype)} (got {_options(other._dtype)})")
        alias = Tensor._make(other._data, dtype)
        alias._vc = other._vc
        return alias
    if "storage" in bound:
        return bound["storage"]._tensor(dtype)
    if "size" in bound:
        return filled(bound["size"], 0, dtype, False, None)  # fresh memory: zeros stand for what it holds
    if "data" in bound:
        data = bound["data"]
        if isinstance(data, np.ndarray):  # on the array's memory when the dtypes agree
            return Tensor._make(tensor_from_numpy(data)._data.astype(dtype._numpy, copy=False), dtype)
        if not isinstance(data, (list, tuple, range)):
            if isinstance(data, str):
                raise TypeError("new(): invalid data type 'str'")
            raise TypeError(f"new(): data must be a sequence (got {type_name(data)})")
        array, dtype = data_array(data, dtype)
        return Tensor._make(array, dtype)
    return filled((0,), 0, dtype, False, None)


def tensor_new(cls: type, *args: Any, **kwargs: Any) -> Tensor:
    """torch.Tensor(...): the legacy constructor, in the default dtype."""
    return construct(dtypes.get_default_dtype(), args, kwargs)


def _new(self: Tensor, *args: Any, **kwargs: Any) -> Tensor:
    """x.new(...): the legacy constructor in x's dtype."""
    return construct(self._dtype, args, kwargs)


op("new", function=False, method=_new)(_new)


@torch_class("torch.tensortype", c_type=True)
class TensorType(type):
    """The class of the legacy tensor types: `isinstance(x, torch.FloatTensor)` asks for the dtype."""

    def __instancecheck__(cls, instance: Any) -> bool:
        return isinstance(instance, Tensor) and instance._dtype is cls.dtype

    def __call__(cls, *args: Any, **kwargs: Any) -> Tensor:
        return construct(cls.dtype, args, kwargs)

    def __repr__(cls) -> str:
        return f"<class 'torch.{cls.__name__}'>"


# torch.FloatTensor, torch.LongTensor, ...: one per dtype that has a legacy name (none complex)
LEGACY_TYPES = {dtype.tensor_type: TensorType(dtype.tensor_type, (), {"dtype": dtype, "__module__": "torch"})
                for dtype in dtypes.ALL
                if not dtype.tensor_type.startswith("Complex") and dtype not in dtypes.BAREBONES_UNSIGNED}


def _optional_name(value: Any) -> Any:
    """PyArg's `z` format (the fifth parameter): a str without NUL characters, or None."""
    if value is not None and not isinstance(value, str):
        raise TypeError(f"argument 5 must be str or None, not {type_name(value)}")
    if value is not None and "\0" in value:
        raise ValueError("embedded null character")
    return value


# torch's legacy Variable constructor (python_legacy_variable.cpp) parses with format "|ObbOz"
_VARIABLE_PARAMETERS = ("data", "requires_grad", "volatile", "_grad_fn", "name")
_VARIABLE_CONVERTERS = {"requires_grad": unsigned_byte, "volatile": unsigned_byte, "name": _optional_name}
GRAD_FN_ARGUMENT_MESSAGE = ("_grad_fn argument to legacy Variable constructor is no longer supported.  Instead, please "
                            "invoke your _grad_fn to produce a variable with it as the _grad_fn.")


@torch_class("torch.autograd.variable.VariableMeta")
class VariableMeta(type):
    """Variable's class: every tensor is an instance of Variable."""

    def __instancecheck__(cls, instance: Any) -> bool:
        return isinstance(instance, Tensor)


@torch_class("torch.autograd.variable.Variable")
class Variable(metaclass=VariableMeta):
    """torch.autograd.Variable, kept by PyTorch for old code: calling it gives a tensor on the
    data's storage, detached from any graph, a leaf of its own (an empty one without data)."""

    def __new__(cls, *args: Any, **kwargs: Any) -> Any:
        bound = c_arguments(None, _VARIABLE_PARAMETERS, 0, args, kwargs, _VARIABLE_CONVERTERS)
        data, requires_grad = bound.get("data"), bound.get("requires_grad", 0)
        volatile, grad_fn = bound.get("volatile", 0), bound.get("_grad_fn")
        if volatile:
            warn("UserWarning", "volatile was removed and now has no effect. Use `with torch.no_grad():` instead.")
            if requires_grad:
                raise ValueError("Variable can't be volatile and require_grad at the same time!")
        if grad_fn is not None and not isinstance(grad_fn, (Function, BackwardCFunction)):
            raise TypeError(f"_grad_fn has to be a Function object or None, but got {type_name(grad_fn)}")
        if data is None:
            default = dtypes.get_default_dtype()
            data = Tensor._make(np.empty((0,), dtype=default._numpy), default)
        elif not isinstance(data, Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got {type_name(data)}")
        if grad_fn is not None:
            raise RuntimeError(GRAD_FN_ARGUMENT_MESSAGE)
        variable = data.detach()
        if requires_grad and variable._dtype.category < dtypes.FLOATING:
            raise RuntimeError(ONLY_FLOAT_GRAD_MESSAGE)  # the C setter's words, not requires_grad_'s
        variable._requires_grad = bool(requires_grad)
        return variable


class _StorageBase:
    """torch.storage._StorageBase: the methods of a tensor's memory that torch writes in Python
    (Python's messages name them `_StorageBase.size()`)."""

    __module__ = "torch.storage"
    __slots__ = ("_owner",)

    def __init__(self, owner: Tensor) -> None:
        self._owner = owner

    def _bytes(self) -> np.ndarray:
        data = self._owner._data
        while isinstance(data.base, np.ndarray):  # the whole allocation, not just the tensor's view of it
            data = data.base
        return np.frombuffer(np.ascontiguousarray(data).tobytes(), dtype=np.uint8)

    def _tensor(self, dtype: DType) -> Tensor:
        return Tensor._make(self._bytes().view(dtype._numpy).copy(), dtype)

    def size(self) -> int:
        return self.nbytes()

    def tolist(self) -> list:
        return self._bytes().tolist()

    def cpu(self) -> "_StorageBase":
        return self  # (already on the CPU)

    def clone(self) -> "_StorageBase":
        return type(self)(self._tensor(self._owner._dtype))  # a storage of its own, with the same bytes

    def __repr__(self) -> str:
        values = "".join(f" {value}\n" for value in self._bytes().tolist())
        return f"{values}[torch.storage.UntypedStorage(device=cpu) of size {self.nbytes()}]"


@torch_class("torch.storage.UntypedStorage")
class UntypedStorage(_StorageBase):
    """A tensor's memory as bytes: `x.untyped_storage()`. Its other methods are torch._C.StorageBase's,
    written in C."""

    _python_methods = frozenset({"size", "tolist", "cpu", "clone", "__getitem__", "__repr__"})
    _c_base = "torch._C.StorageBase"
    __slots__ = ()

    def nbytes(self) -> int:
        return int(self._bytes().size)

    def __len__(self) -> int:
        return self.nbytes()

    def data_ptr(self) -> int:
        return self._owner.data_ptr() - self._owner.storage_offset() * self._owner._data.itemsize

    def element_size(self) -> int:
        return 1

    def is_shared(self) -> bool:
        return False  # (no storage is in shared memory: gradcalc has no processes to share it with)

    @property
    def device(self) -> Any:
        return self._owner.device

    def __getitem__(self, index: int) -> int:
        return int(self._bytes()[index])


@torch_class("torch.storage.TypedStorage")
class TypedStorage(UntypedStorage):
    """`x.storage()`, deprecated in PyTorch: the memory seen as elements of the tensor's dtype."""

    __slots__ = ()

    def _values(self) -> np.ndarray:
        return self._bytes().view(self._owner._dtype._numpy)

    def cpu(self) -> "TypedStorage":
        return TypedStorage(self._owner)  # a new wrapper of the same memory, as torch's

    def size(self) -> int:
        return int(self._values().size)

    def __len__(self) -> int:
        return self.size()

    @property
    def dtype(self) -> DType:
        return self._owner._dtype

    def element_size(self) -> int:
        return self._owner.element_size()

    def tolist(self) -> list:
        return self._values().tolist()

    def __getitem__(self, index: int) -> Any:
        return self._values()[index].item()

    def __repr__(self) -> str:
        shown = [repr(float(v)) if self.dtype.is_floating_point else str(v) for v in self._values().tolist()]
        values = "".join(f" {value}\n" for value in shown)
        return (f"{values}[torch.storage.TypedStorage(dtype=torch.{self.dtype.name}, device=cpu) of size "
                f"{self.size()}]")


TypedStorage._python_methods = frozenset(dir(TypedStorage))  # a class torch writes in Python
register_kind("Storage", UntypedStorage)


@op(function=False)
def untyped_storage(input: Tensor) -> UntypedStorage:
    return UntypedStorage(input)


def _storage(self: Tensor) -> TypedStorage:
    warn_once("UserWarning", TYPED_STORAGE_WARNING)
    return TypedStorage(self)


op("storage", function=False, method=_storage)(_storage)
