"""What torch tells about itself and its dtypes: torch.__version__, torch.finfo and torch.iinfo,
layouts and memory formats, typename, can_cast, thread counts, and the tensor attributes that
describe where a tensor lives (layout, is_cpu, is_sparse, ...)."""
from __future__ import annotations

from typing import Any

import numpy as np

from .. import dtypes
from ..dtypes import DType
from ..tensor import Tensor
from ...display.names import refuse_instances, torch_class, type_name
from ...warnings import warn
from .parser import parser, register_kind
from .registry import op


@torch_class("torch.torch_version.TorchVersion")
class TorchVersion(str):
    """torch.__version__: a string that compares as a version (`torch.__version__ >= "2.0"`)."""

    __slots__ = ()

    @staticmethod
    def _key(text: Any) -> tuple:
        release, _, local = str(text).partition("+")
        numbers = [int(piece) if piece.isdigit() else 0 for piece in release.split(".")]
        while numbers and numbers[-1] == 0:
            numbers.pop()  # 2.13 and 2.13.0 are one version
        return tuple(numbers), local

    def __lt__(self, other: Any) -> bool:
        return self._key(self) < self._key(other)

    def __le__(self, other: Any) -> bool:
        return self._key(self) <= self._key(other)

    def __gt__(self, other: Any) -> bool:
        return self._key(self) > self._key(other)

    def __ge__(self, other: Any) -> bool:
        return self._key(self) >= self._key(other)

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, str) and self._key(self) == self._key(other)

    __hash__ = str.__hash__


VERSION = TorchVersion("2.13.0+cpu")


class _Named:
    """A torch constant shown by its name: `torch.strided`, `torch.contiguous_format`."""

    __slots__ = ("_name",)

    def __init__(self, name: str) -> None:
        self._name = name

    def __repr__(self) -> str:
        return f"torch.{self._name}"

    # copies are the constant itself, as torch's (its type makes no new instances)
    def __copy__(self) -> "_Named":
        return self

    def __deepcopy__(self, memo: dict) -> "_Named":
        return self


@torch_class("torch.layout", c_type=True)
class Layout(_Named):
    __slots__ = ()


@torch_class("torch.memory_format", c_type=True)
class MemoryFormat(_Named):
    __slots__ = ()


register_kind("Layout", Layout)
register_kind("MemoryFormat", MemoryFormat)
STRIDED = Layout("strided")
MEMORY_FORMATS = {name: MemoryFormat(name) for name in ("contiguous_format", "preserve_format", "channels_last",
                                                         "channels_last_3d")}
refuse_instances(Layout)
refuse_instances(MemoryFormat)
_FORMAT_RANKS = {MEMORY_FORMATS["channels_last"]: 4, MEMORY_FORMATS["channels_last_3d"]: 5}


def check_memory_format(memory_format: Any, ndim: int) -> None:
    """A channels-last layout asked of a tensor of another rank: c10's refusal."""
    rank = _FORMAT_RANKS.get(memory_format)
    if rank is not None and ndim != rank:
        raise RuntimeError(f"required rank {rank} tensor to use {memory_format._name} format")


def _float_text(value: float) -> str:
    """A number as torch's finfo repr writes it (C's %g)."""
    return f"{value:g}"


_OMITTED = object()


@torch_class("torch.finfo", c_type=True)
class finfo:
    """torch.finfo(dtype): the limits of a floating dtype."""

    __slots__ = ("bits", "eps", "max", "min", "tiny", "smallest_normal", "resolution", "dtype")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        bound = parser("_C", "finfo").parse(args, kwargs)[1]  # its C constructor's argument parser
        dtype = bound.get("type", _OMITTED)
        dtype = dtypes.get_default_dtype() if dtype is _OMITTED else dtype
        if dtype.category < dtypes.FLOATING:
            raise TypeError("torch.finfo() requires a floating point input type. Use torch.iinfo to handle "
                            "'torch.finfo'")
        if dtype is dtypes.bfloat16:  # float32's range with 8 bits of precision
            self.bits, self.eps, self.resolution = 16, 2.0 ** -7, 0.01
            self.max = float(np.float32(dtypes.round_to_bfloat16(np.float32(3.3895313892515355e38))))
            self.min, self.tiny = -self.max, float(np.finfo(np.float32).tiny)
            self.smallest_normal, self.dtype = self.tiny, "bfloat16"
            return
        info = np.finfo(dtype.to_real()._numpy)
        self.bits = int(info.bits)
        self.eps, self.max, self.min = float(info.eps), float(info.max), float(info.min)
        self.tiny = self.smallest_normal = float(info.tiny)
        self.resolution = 10.0 ** -int(info.precision)  # a double, as torch computes it (numpy: in the dtype)
        self.dtype = dtype.to_real().name

    def __repr__(self) -> str:
        return (f"finfo(resolution={_float_text(self.resolution)}, min={_float_text(self.min)}, "
                f"max={_float_text(self.max)}, eps={_float_text(self.eps)}, "
                f"smallest_normal={_float_text(self.smallest_normal)}, tiny={_float_text(self.tiny)}, "
                f"dtype={self.dtype})")


@torch_class("torch.iinfo", c_type=True)
class iinfo:
    """torch.iinfo(dtype): the limits of an integer dtype."""

    __slots__ = ("bits", "max", "min", "dtype")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        type = parser("_C", "iinfo").parse(args, kwargs)[1]["type"]  # its C constructor's argument parser
        if type is dtypes.bool_:
            raise TypeError("torch.bool is not supported by torch.iinfo")
        if type.category > dtypes.INTEGRAL:
            raise TypeError("torch.iinfo() requires an integer input type. Use torch.finfo to handle "
                            "'torch.iinfo'")
        info = np.iinfo(type._numpy)
        self.bits = type.itemsize * 8
        self.max, self.min = int(info.max), int(info.min)
        self.dtype = type.name

    def __repr__(self) -> str:
        return f"iinfo(min={_float_text(self.min)}, max={_float_text(self.max)}, dtype={self.dtype})"


def typename(obj: Any, /) -> str:
    if isinstance(obj, Tensor):
        return f"torch.{obj._dtype.tensor_type}"
    module = getattr(type(obj), "__module__", "builtins")
    name = type(obj).__qualname__
    return name if module in ("builtins", None) else f"{module}.{name}"


def is_storage(obj: Any, /) -> bool:
    return type(obj).__name__ in ("torch.storage.UntypedStorage", "torch.storage.TypedStorage")


@op(method=False)
def can_cast(from_: DType, to: DType) -> bool:
    """torch.can_cast: no cast to a lower category (a float to an integer, a complex to a float,
    anything but a bool to a bool)."""
    return from_.category <= to.category


_threads = {"intra": 2, "inter": 2}


def get_num_threads() -> int:
    return _threads["intra"]


def set_num_threads(num: int) -> None:
    if num <= 0:
        raise RuntimeError("set_num_threads expects a positive integer")
    _threads["intra"] = num


def get_num_interop_threads() -> int:
    return _threads["inter"]


def set_num_interop_threads(num: int) -> None:
    if num <= 0:
        raise RuntimeError("Expected positive number of threads")
    _threads["inter"] = num


def _always(value: Any) -> Any:
    return property(lambda self: value)


# where a tensor lives: the CPU (or the meta device: Tensor.is_meta), dense and strided
TENSOR_ATTRIBUTES = {
    "layout": _always(STRIDED), "is_cpu": property(lambda self: not self.is_meta), "is_sparse": _always(False),
    "is_sparse_csr": _always(False), "is_quantized": _always(False),
    "is_mkldnn": _always(False), "is_mps": _always(False), "is_xla": _always(False), "is_xpu": _always(False),
    "is_ipu": _always(False), "is_vulkan": _always(False), "is_maia": _always(False), "is_mtia": _always(False),
    "is_nested": _always(False), "name": _always(None),
    "itemsize": property(lambda self: self._dtype.itemsize),
    "nbytes": property(lambda self: self._dtype.itemsize * int(self._data.size)),
    "output_nr": property(lambda self: self._output_nr),
}


def _sparse_part(name: str, layout: str) -> None:
    """Tensor.`name`: a part of a sparse tensor, which a strided one refuses naming the layout it expects."""
    def part(input: Tensor) -> Tensor:
        raise RuntimeError(f"{name} expected {layout} tensor layout but got Strided")

    part.__name__ = part.__qualname__ = name
    op(name, function=False)(part)


for _name, _layout in (("indices", "sparse coordinate"), ("values", "sparse"), ("crow_indices", "sparse row compressed"),
                       ("col_indices", "sparse row compressed"), ("ccol_indices", "sparse column compressed"),
                       ("row_indices", "sparse column compressed")):
    _sparse_part(_name, _layout)


def _volatile(self: Tensor) -> bool:
    warn("UserWarning", "volatile was removed (Variable.volatile is always False)")
    return False


TENSOR_ATTRIBUTES["volatile"] = property(_volatile)


@op(function=False)
def is_pinned(input: Tensor, device: Any = None) -> bool:
    return False


@op(function=False)
def pin_memory(input: Tensor, device: Any = None) -> Tensor:
    raise RuntimeError("Cannot access accelerator device when none is available.")


def install(cls: type) -> None:
    for name, attribute in TENSOR_ATTRIBUTES.items():
        setattr(cls, name, attribute)


def members() -> dict:
    """The members of torch this module makes."""
    return dict(
        __version__=VERSION, finfo=finfo, iinfo=iinfo, layout=Layout, memory_format=MemoryFormat, strided=STRIDED,
        typename=typename, is_storage=is_storage, **MEMORY_FORMATS)


# C functions of torch._C, shown as such
MODULE_FUNCTIONS = {"get_num_threads": get_num_threads, "set_num_threads": set_num_threads,
                    "get_num_interop_threads": get_num_interop_threads,
                    "set_num_interop_threads": set_num_interop_threads}
