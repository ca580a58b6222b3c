"""PyTorch's dtypes on numpy, and PyTorch's type-promotion rules."""
from __future__ import annotations

import math

import numpy as np

from ..display.names import refuse_instances, torch_class

# Promotion categories, lowest first.
BOOL, INTEGRAL, FLOATING, COMPLEX = range(4)


@torch_class("torch.dtype", c_type=True)
class DType:
    """A torch dtype: `torch.float32` and friends."""

    __slots__ = ("name", "_numpy", "category", "tensor_type", "is_signed", "_scalar_name", "_cpp_name", "_itemsize")

    def __init__(self, name: str, numpy_dtype: str, category: int, tensor_type: str, scalar_name: str,
                 cpp_name: str, is_signed: bool = True, itemsize: int = 0):
        self.name = name
        self._numpy = np.dtype(numpy_dtype)  # how its values are stored (bfloat16: in float32, rounded)
        self._itemsize = itemsize or self._numpy.itemsize
        self.category = category
        self.tensor_type = tensor_type  # the legacy name in error messages: torch.FloatTensor
        self.is_signed = is_signed
        # the names PyTorch's messages give it: its ScalarType (`Float`) and its C++ type (`float`)
        self._scalar_name = scalar_name
        self._cpp_name = cpp_name

    @property
    def is_floating_point(self) -> bool:
        return self.category == FLOATING

    @property
    def is_complex(self) -> bool:
        return self.category == COMPLEX

    @property
    def itemsize(self) -> int:
        return self._itemsize

    def to_real(self) -> "DType":
        return {"complex64": float32, "complex128": float64}.get(self.name, self)

    def to_complex(self) -> "DType":
        return {"float64": complex128, "complex128": complex128}.get(self.name, complex64)

    def __repr__(self) -> str:
        return f"torch.{self.name}"

    def __reduce__(self):
        return (by_name, (self.name,))


float16 = DType("float16", "float16", FLOATING, "HalfTensor", "Half", "c10::Half")
# numpy has no bfloat16: its values live in float32 storage, rounded to bfloat16 by Tensor._make
bfloat16 = DType("bfloat16", "float32", FLOATING, "BFloat16Tensor", "BFloat16", "c10::BFloat16", itemsize=2)
float32 = DType("float32", "float32", FLOATING, "FloatTensor", "Float", "float")
float64 = DType("float64", "float64", FLOATING, "DoubleTensor", "Double", "double")
complex64 = DType("complex64", "complex64", COMPLEX, "ComplexFloatTensor", "ComplexFloat", "c10::complex<float>")
complex128 = DType("complex128", "complex128", COMPLEX, "ComplexDoubleTensor", "ComplexDouble",
                   "c10::complex<double>")
uint8 = DType("uint8", "uint8", INTEGRAL, "ByteTensor", "Byte", "unsigned char", is_signed=False)
int8 = DType("int8", "int8", INTEGRAL, "CharTensor", "Char", "signed char")
int16 = DType("int16", "int16", INTEGRAL, "ShortTensor", "Short", "short int")
int32 = DType("int32", "int32", INTEGRAL, "IntTensor", "Int", "int")
int64 = DType("int64", "int64", INTEGRAL, "LongTensor", "Long", "long int")
bool_ = DType("bool", "bool", BOOL, "BoolTensor", "Bool", "bool", is_signed=False)
# PyTorch's "barebones" unsigned dtypes: few kernels, and no promotion with other integers
uint16 = DType("uint16", "uint16", INTEGRAL, "UInt16Tensor", "UInt16", "uint16_t", is_signed=False)
uint32 = DType("uint32", "uint32", INTEGRAL, "UInt32Tensor", "UInt32", "uint32_t", is_signed=False)
uint64 = DType("uint64", "uint64", INTEGRAL, "UInt64Tensor", "UInt64", "uint64_t", is_signed=False)
BAREBONES_UNSIGNED = (uint16, uint32, uint64)
refuse_instances(DType)

ALL = (float16, bfloat16, float32, float64, complex64, complex128, uint8, int8, int16, int32, int64, bool_, uint16,
       uint32, uint64)
_BY_NAME = {d.name: d for d in ALL}
_BY_NUMPY = {d._numpy: d for d in ALL if d is not bfloat16}

# The names torch exposes for each dtype (torch.float is torch.float32, ...).
ALIASES = {
    "float16": float16, "half": float16, "bfloat16": bfloat16, "float32": float32, "float": float32,
    "float64": float64, "double": float64, "complex64": complex64, "cfloat": complex64,
    "complex128": complex128, "cdouble": complex128, "uint8": uint8, "int8": int8,
    "int16": int16, "short": int16, "int32": int32, "int": int32, "int64": int64, "long": int64,
    "bool": bool_, "uint16": uint16, "uint32": uint32, "uint64": uint64,
}

_default_float = float32
# the dtypes of Python numbers wrapped as PyTorch wraps them where a tensor is expected
WRAPPED_DTYPES = {float: float64, int: int64, bool: bool_, complex: complex128}


def by_name(name: str) -> DType:
    return _BY_NAME[name]


def from_numpy(dtype: np.dtype) -> DType:
    try:
        return _BY_NUMPY[np.dtype(dtype)]
    except KeyError:
        raise TypeError(f"can't convert np.ndarray of type {np.dtype(dtype)}.") from None


def get_default_dtype() -> DType:
    return _default_float


def set_default_dtype(d: DType, /) -> None:  # torch's parameter, which its messages name
    global _default_float
    if not isinstance(d, DType) or d not in (float32, float64, float16, bfloat16):
        raise TypeError("only floating-point types are supported as the default type")
    _default_float = d
    _WITH_NUMBER.clear()


def default_complex() -> DType:
    return complex128 if _default_float is float64 else complex64


_PROMOTED: dict = {}  # (a, b) -> promote_types(a, b), filled as pairs are met


def promote_types(a: DType, b: DType) -> DType:
    """torch.promote_types: the smallest dtype both convert to without loss of category."""
    if a is b:
        return a
    promoted = _PROMOTED.get((a, b))
    if promoted is None:
        promoted = _PROMOTED[(a, b)] = _promote(a, b)
    return promoted


def _promote(a: DType, b: DType) -> DType:
    if (a in BAREBONES_UNSIGNED or b in BAREBONES_UNSIGNED) and FLOATING not in (a.category, b.category):
        raise RuntimeError(f"Promotion for uint16, uint32, uint64 types is not supported, attempted to promote "
                           f"{a._scalar_name} and {b._scalar_name}")
    if a.category != b.category:
        low, high = (a, b) if a.category < b.category else (b, a)
        if high.category == COMPLEX and low.category == FLOATING:
            return float64.to_complex() if low is float64 else high
        return high
    if {a, b} == {float16, bfloat16}:
        return float32  # neither holds the other's values
    if a.category == INTEGRAL and (a is uint8 or b is uint8):
        other = b if a is uint8 else a
        return int16 if other is int8 else other
    return _BY_NUMPY[np.promote_types(a._numpy, b._numpy)]


# the dtypes with a legacy tensor class of their own (torch.FloatTensor, ...) before bool and the rest
_LEGACY_CLASSES = frozenset({"float32", "float64", "float16", "uint8", "int8", "int16", "int32", "int64"})


def legacy_type_name(dtype: DType) -> str:
    """How ATen's messages name a CPU tensor's type: `torch.FloatTensor`, or `CPUBoolType` for a dtype
    without a legacy class of its own."""
    return f"torch.{dtype.tensor_type}" if dtype.name in _LEGACY_CLASSES else f"CPU{dtype._scalar_name}Type"


def scalar_dtype(value: object, wrapped: bool = False) -> DType:
    """The dtype a Python number takes as a tensor of its own (`wrapped`: as PyTorch wraps a number
    passed where a tensor is expected, float64 and complex128 for floats and complex numbers)."""
    if wrapped and type(value) in WRAPPED_DTYPES:
        return WRAPPED_DTYPES[type(value)]
    if isinstance(value, bool):
        return bool_
    if isinstance(value, int):
        return int64
    if isinstance(value, float):
        return float64 if wrapped else _default_float
    if isinstance(value, complex):
        return complex128 if wrapped else default_complex()
    raise TypeError(f"not a number: {type(value).__name__}")


def unpack_scalar_int(value: int) -> DType:
    """The dtype PyTorch's argument parser gives a Python int scalar: int64, or uint64 past int64's
    range (up to 2**64 - 1); beyond, the OverflowError of CPython's unsigned conversion."""
    if -2 ** 63 <= value < 2 ** 63:
        return int64
    if value < 0:
        raise OverflowError("can't convert negative int to unsigned")
    if value >= 2 ** 64:
        raise OverflowError("int too big to convert")
    return uint64


def result_type(operands: list) -> DType:
    """PyTorch's result type: tensors with dimensions beat 0-dim tensors beat Python numbers,
    except where a lower-priority operand is of a higher category."""
    dim_result = zero_result = wrapped_result = None
    for operand in operands:
        dtype = getattr(operand, "_dtype", None)  # a Tensor (no import of tensor.py here: it imports us)
        if dtype is None:
            dtype = scalar_dtype(operand)
            if dtype is int64 and not -2 ** 63 <= operand < 2 ** 63:  # torch's Scalar holds it unsigned
                dtype = unpack_scalar_int(operand)
        elif operand._wrapped:
            dtype = _as_number(dtype)
        elif operand._data.ndim > 0:
            dim_result = dtype if dim_result is None else promote_types(dim_result, dtype)
            continue
        else:
            zero_result = dtype if zero_result is None else promote_types(zero_result, dtype)
            continue
        wrapped_result = dtype if wrapped_result is None else promote_types(wrapped_result, dtype)
    return _combine(dim_result, _combine(zero_result, wrapped_result))


def _as_number(dtype: DType) -> DType:
    """The dtype a wrapped number takes part in promotion with: a float's or complex's is the default one."""
    if dtype.category == FLOATING:
        return _default_float
    return default_complex() if dtype.category == COMPLEX else dtype


_NUMBER_TYPES = frozenset({bool, int, float, complex})
_WRAPPED_AS = {float64: float, int64: int, uint64: int, bool_: bool, complex128: complex}  # as Tensor._wrap_number makes them
_TENSOR = "tensor"
# (tensor dtype, Python number type) -> their result type under the default dtype in force
_WITH_NUMBER: dict = {}


def _promotes_as(operand: object) -> object:
    """How an operand takes part in promotion: as a tensor (_TENSOR), as a Python number (its
    type; a wrapped number's too), or None for anything else."""
    kind = type(operand)
    if kind in _NUMBER_TYPES:
        return kind
    wrapped = getattr(operand, "_wrapped", None)  # a Tensor (no import of tensor.py here: it imports us)
    if wrapped is None:
        return None
    return _WRAPPED_AS[operand._dtype] if wrapped else _TENSOR


def pair_result_type(a: object, b: object) -> DType:
    """result_type([a, b]), the common pairs (two tensors, a tensor and a number) answered
    without the general walk."""
    if getattr(a, "_wrapped", None) is False:  # the commonest pairs first, with no call
        if getattr(b, "_wrapped", None) is False and a._dtype is b._dtype:
            return a._dtype
        found = _WITH_NUMBER.get((a._dtype, type(b)))  # a tensor and a Python number met before
        if found is not None:
            return found
    a_kind, b_kind = _promotes_as(a), _promotes_as(b)
    if a_kind is _TENSOR:
        if b_kind is _TENSOR:
            a_dtype, b_dtype = a._dtype, b._dtype
            if a_dtype is b_dtype:
                return a_dtype
            a_dims, b_dims = a._data.ndim > 0, b._data.ndim > 0
            if a_dims == b_dims:
                return promote_types(a_dtype, b_dtype)
            return _combine(a_dtype, b_dtype) if a_dims else _combine(b_dtype, a_dtype)
        if b_kind is not None:
            return _with_number(a._dtype, b_kind, a, b)
    elif b_kind is _TENSOR and a_kind is not None:
        return _with_number(b._dtype, a_kind, a, b)
    return result_type([a, b])


def _with_number(dtype: DType, number_type: type, a: object, b: object) -> DType:
    key = (dtype, number_type)
    found = _WITH_NUMBER.get(key)
    if found is None:
        found = result_type([a, b])
        if dtype is not bool_:  # (an int takes part with a bool tensor: as uint64 past int64's range)
            _WITH_NUMBER[key] = found
    return found


def _combine(higher: DType | None, lower: DType | None) -> DType | None:
    if higher is None:
        return lower
    if lower is None:
        return higher
    if higher is bool_:  # c10's combine_categories promotes a bool with what outranks it
        return promote_types(higher, lower)
    if higher.category >= lower.category:
        return higher
    if lower.category == COMPLEX and higher.category == FLOATING:
        return higher.to_complex()
    return lower


def cpp_double(value: float) -> str:
    """A double as C++'s ostream prints it in PyTorch's messages: six significant digits (C's %g),
    a NaN with its sign."""
    text = "%g" % value
    return "-nan" if text == "nan" and math.copysign(1.0, value) < 0 else text


def rounded_in_float32(values: np.ndarray, dtype: DType) -> np.ndarray:
    """float32 values rounded to float16's or bfloat16's precision (float32's left as they are),
    still stored as float32: what c10's Half and BFloat16 operators keep of each result."""
    values = np.asarray(values, dtype=np.float32)
    if dtype is bfloat16:
        return round_to_bfloat16(values)
    return values.astype(np.float16).astype(np.float32) if dtype is float16 else values


def round_to_bfloat16(values: np.ndarray) -> np.ndarray:
    """float32 values rounded to the nearest bfloat16 (ties to even), still stored as float32."""
    values = np.asarray(values, dtype=np.float32)
    bits = values.view(np.uint32).astype(np.uint64)
    bits = (bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000
    rounded = bits.astype(np.uint32).view(np.float32)
    return np.where(np.isnan(values), values, rounded)
