"""The members of Tensor that are not ops of their own name: Python's operators (`x + y`,
`x[i]`, `x += y`), the properties that are views (`x.T`, `x.mT`, `x.real`), iteration, the copy
protocol and `backward`."""
from __future__ import annotations

from copy import deepcopy
from typing import Any, Callable, Optional, Sequence

import numpy as np

from .. import api, dtypes, meta
from ..native import address, kernels
from ..tensor import Tensor
from ...display.names import type_name
from ...warnings import warn_once
from .arithmetic import (ADD, DIV, MUL, SUB, add, div, floor_divide, mul, neg, pow as power, rdiv, reciprocal, remainder,
                         rpow, rsub, sub)
from .comparison import (bitwise_and, bitwise_left_shift, bitwise_not, bitwise_or, bitwise_right_shift,
                         bitwise_xor, eq, ge, gt, le, logical_not, lt, ne)
from .common import op_recursion, out_of_memory
from .generate import make_inplace, python_method
from .inplace import check_inplace, check_overlap, setitem
from .indexing import getitem
from .joining import unbind
from .linalg import matmul
from .arrangement import imag, real
from .pointwise import abs as absolute, conj
from .registry import untracked
from .shape import flip, permute, transpose
from .tensor_numpy import python_scalar, tensor_from_numpy

T_DEPRECATED_WARNING = ("The use of `x.T` on tensors of dimension other than 2 to reverse their shape is deprecated "
                        "and it will throw an error in a future release. Consider `x.mT` to transpose batches of "
                        "matrices or `x.permute(*torch.arange(x.ndim - 1, -1, -1))` to reverse the dimensions of a "
                        "tensor.")


_OPERANDS = (Tensor, bool, int, float, complex)
_tensor_binary = kernels.tensor_binary if kernels is not None else None


def _operand(other: Any) -> Any:
    """An operator's other operand as PyTorch's parser reads it: a tensor or a number, numpy's
    scalars as Python's; NotImplemented for anything else, so that Python tries the other
    operand (an array's numpy) and then says `unsupported operand type(s)`."""
    if isinstance(other, np.generic):
        return python_scalar(other) if isinstance(other, (np.number, np.bool_)) else NotImplemented
    return other if isinstance(other, _OPERANDS) else NotImplemented


_PLAIN_OPERANDS = frozenset(_OPERANDS)


def _reflected(function: Callable, scalars: bool = True, same: Optional[tuple] = None) -> Callable:
    """An operator method of Tensor; `scalars` False for one whose op takes tensors only (@), which
    refuses a number before reading it. `same`: (node, forward, params) of an element-wise op whose
    commonest calls (two tensors of one floating dtype and shape, a tensor and a number) the native
    module computes and records as arithmetic.binary does."""
    native = _tensor_binary if same is not None else None

    def operator(a: Tensor, other: Any) -> Any:
        try:
            if native is not None:
                result = native(*same, a, other)
                if result is not None:
                    return result
            if type(other) not in _PLAIN_OPERANDS:
                other = _operand(other)
                if other is NotImplemented:
                    return NotImplemented
            elif type(other) is int and scalars and not -2 ** 63 <= other < 2 ** 63:
                dtypes.unpack_scalar_int(other)  # the parser's OverflowError past uint64, before any other check
            if meta.state["made"] and (meta.is_meta(a) or meta.is_meta(other)):
                # the op's own checks judge the operands' devices (an element-wise op's broadcast); a
                # comparison's result is made outside the registry's record: meta here
                return meta.marked(function(a, other))
            return function(a, other)
        except MemoryError as error:
            raise out_of_memory(error) from None
        except RecursionError as error:
            raise op_recursion(error) from None
        except TypeError:
            # as PyTorch's operators (TypeError_to_NotImplemented_): a TypeError on the way, a hook's
            # too, lets Python try the other operand and then say `unsupported operand type(s)`
            return NotImplemented

    return operator


_eq = _reflected(eq)


def _equal(a: Tensor, other: Any) -> Any:
    """`==`, the one operator of PyTorch's that also takes an array, as a tensor on its memory."""
    if isinstance(other, np.ndarray):
        try:
            other = tensor_from_numpy(other, warn_if_not_writeable=False)
        except TypeError:
            return NotImplemented
    return _eq(a, other)


_rdiv_operands = _reflected(rdiv)


def _rtruediv(a: Tensor, other: Any) -> Any:
    """`other / a`: torch's __rdiv__ is Python, `a.reciprocal() * other`, so an operand no op
    takes (a numpy array) meets the product's operator, and the array's numpy computes it."""
    if type(other) in _PLAIN_OPERANDS or _operand(other) is not NotImplemented:
        return _rdiv_operands(a, other)
    try:
        return reciprocal(a) * other
    except TypeError:
        return NotImplemented


def _swapped(function: Callable) -> Callable:
    return lambda a, other: function(other, a)


def _matmul(a: Tensor, other: Any) -> Any:
    return matmul(a, other) if isinstance(other, Tensor) else NotImplemented


def _rmatmul(a: Tensor, other: Any) -> Any:
    return matmul(other, a) if isinstance(other, Tensor) else NotImplemented


def _invert(a: Tensor) -> Tensor:
    if a._dtype.category > dtypes.INTEGRAL:  # Tensor.__invert__'s own check, before the op's
        raise TypeError("~ (operator.invert) is only implemented on integer and Boolean-type tensors")
    return logical_not(a) if a._dtype is dtypes.bool_ else bitwise_not(a)


def _unary(function: Callable) -> Callable:
    def operator(a: Tensor) -> Any:
        try:
            return function(a)
        except RecursionError as error:
            raise op_recursion(error) from None

    return operator


OPERATORS = {
    "__add__": _reflected(add, same=(ADD, np.add, {"alpha": 1})),
    "__radd__": _reflected(add, same=(ADD, np.add, {"alpha": 1})),
    "__sub__": _reflected(sub, same=(SUB, np.subtract, {"alpha": 1})), "__rsub__": _reflected(rsub),
    "__mul__": _reflected(mul, same=(MUL, np.multiply, {})), "__rmul__": _reflected(mul, same=(MUL, np.multiply, {})),
    "__truediv__": _reflected(div, same=(DIV, np.true_divide, {})), "__rtruediv__": _rtruediv,
    "__pow__": _reflected(power),
    "__rpow__": _reflected(rpow), "__matmul__": _reflected(_matmul, False),
    "__rmatmul__": _reflected(_rmatmul, False),
    "__floordiv__": _reflected(floor_divide), "__rfloordiv__": _reflected(_swapped(floor_divide)),
    "__mod__": _reflected(remainder), "__rmod__": _reflected(_swapped(remainder)),
    "__and__": _reflected(bitwise_and), "__rand__": _reflected(bitwise_and), "__or__": _reflected(bitwise_or),
    "__ror__": _reflected(bitwise_or), "__xor__": _reflected(bitwise_xor), "__rxor__": _reflected(bitwise_xor),
    "__lshift__": _reflected(bitwise_left_shift), "__rlshift__": _reflected(_swapped(bitwise_left_shift)),
    "__rshift__": _reflected(bitwise_right_shift), "__rrshift__": _reflected(_swapped(bitwise_right_shift)),
    "__eq__": _equal, "__ne__": _reflected(ne), "__lt__": _reflected(lt), "__le__": _reflected(le),
    "__gt__": _reflected(gt), "__ge__": _reflected(ge),
    "__neg__": _unary(neg), "__pos__": lambda a: a, "__abs__": _unary(absolute), "__invert__": _unary(_invert),
    "__getitem__": getitem, "__setitem__": setitem,
}
# each augmented assignment's op and the in-place op PyTorch runs for it
AUGMENTED = {"__iadd__": (add, "add_"), "__isub__": (sub, "sub_"), "__imul__": (mul, "mul_"),
             "__itruediv__": (div, "div_"), "__ipow__": (power, "pow_"), "__imod__": (remainder, "remainder_"),
             "__ifloordiv__": (floor_divide, "floor_divide_"), "__iand__": (bitwise_and, "bitwise_and_"),
             "__ior__": (bitwise_or, "bitwise_or_"), "__ixor__": (bitwise_xor, "bitwise_xor_"),
             "__ilshift__": (bitwise_left_shift, "__ilshift__"), "__irshift__": (bitwise_right_shift, "__irshift__")}


# the augmented assignments whose op is one numpy ufunc on two operands of one dtype
_UFUNCS = {add: np.add, sub: np.subtract, mul: np.multiply}
_UFUNC_DTYPES = (dtypes.float32, dtypes.float64)


def _augmented(function: Callable, name: str) -> Callable:
    inplace = make_inplace(lambda input, other: function(input, other), name=name)
    ufunc = _UFUNCS.get(function)
    if ufunc is None:
        return _reflected(lambda a, other: inplace(a, other=other))

    def augmented(a: Tensor, other: Any) -> Tensor:
        if (other.__class__ is Tensor and a._dtype is other._dtype and a._dtype in _UFUNC_DTYPES
                and a._data.shape == other._data.shape and untracked(a) and untracked(other)):
            # `p.data += step` recording nothing (an optimizer's update): computed into a's
            # storage, as the op's result would be copied there (numpy buffers an overlap)
            check_inplace(a, other)
            check_overlap(a, other)
            ufunc(a._data, other._data, out=a._data)
            a._vc.value += 1
            return a
        return inplace(a, other=other)

    return _reflected(augmented)


def T(self: Tensor) -> Tensor:
    if self.ndim == 0:
        warn_once("UserWarning", "Tensor.T is deprecated on 0-D tensors. This function is the identity in these "
                                 "cases.", at="aten/src/ATen/native/TensorShape.cpp:4321")
    elif self.ndim != 2:
        warn_once("UserWarning", T_DEPRECATED_WARNING, at="aten/src/ATen/native/TensorShape.cpp:4314")
    return permute(self, tuple(reversed(range(self.ndim))))


def mT(self: Tensor) -> Tensor:
    if self.ndim == 0:  # PyTorch returns the tensor itself
        warn_once("UserWarning", "Tensor.mT is deprecated on 0-D tensors. This function is the identity in these "
                                 "cases.", at="aten/src/ATen/native/TensorShape.cpp:4373")
        return self
    if self.ndim == 1:
        raise RuntimeError("tensor.mT is only supported on matrices or batches of matrices. Got 1-D tensor.")
    return transpose(self, -2, -1)


def H(self: Tensor) -> Tensor:
    if self.ndim > 2:
        raise RuntimeError(f"tensor.H is only supported on matrices (2-D tensors). Got {self.ndim}-D tensor.")
    return conj(T(self)) if self.ndim else self


def mH(self: Tensor) -> Tensor:
    return conj(mT(self))


def backward(self: Tensor, gradient: Optional[Tensor] = None, retain_graph: Optional[bool] = None,
             create_graph: bool = False, inputs: Optional[Sequence[Tensor]] = None) -> None:
    try:
        api.backward(self, gradient, retain_graph, create_graph, inputs=inputs)
    except MemoryError as error:
        raise out_of_memory(error) from None


def _iterate(self: Tensor) -> Any:
    if self.ndim == 0:
        raise TypeError("iteration over a 0-d tensor")
    return iter(unbind(self, 0))


def _reversed(self: Tensor) -> Tensor:
    # torch's Python method: a tensor is no sequence, so `reversed(x)` needs it
    return self if self.ndim == 0 else flip(self, [0])


DEEPCOPY_NON_LEAF_MESSAGE = (
    "Only Tensors created explicitly by the user (graph leaves) support the deepcopy protocol at the moment.  If you "
    "were attempting to deepcopy a module, this may be because of a torch.nn.utils.weight_norm usage, see "
    "https://github.com/pytorch/pytorch/pull/103001")


def _on_storage(data: np.ndarray, storage: np.ndarray) -> np.ndarray:
    """An array with `data`'s shape, strides and offset, on another copy of its storage."""
    offset = address(data) - address(_owner(data)) if data.size else 0
    return np.ndarray(data.shape, data.dtype, buffer=storage, offset=offset, strides=data.strides)


def _owner(data: np.ndarray) -> np.ndarray:
    while isinstance(data.base, np.ndarray):
        data = data.base
    return data


def _rebuilt(data: np.ndarray, dtype: dtypes.DType, requires_grad: bool) -> Tensor:
    # torch rebuilds a copy with set_() on an empty tensor, an in-place change: version 1
    copy = Tensor._make(data, dtype, requires_grad=requires_grad)
    copy._vc.value = 1
    return copy


def _copy(self: Tensor) -> Tensor:
    """copy.copy: a new leaf on the same storage (torch's pickling rebuild), attributes shared."""
    copy = _rebuilt(self._data, self._dtype, self.requires_grad)
    copy.__dict__.update(self.__dict__)
    return copy


def _deepcopy(self: Tensor, memo: dict) -> Tensor:
    """copy.deepcopy: leaves only; tensors on one storage get one new storage between them, and
    the gradient and attributes are deep copies too."""
    if not self.is_leaf:
        raise RuntimeError(DEEPCOPY_NON_LEAF_MESSAGE)
    if id(self) in memo:
        return memo[id(self)]
    owner = _owner(self._data)
    storage = memo.get(id(owner))
    if storage is None:
        storage = memo[id(owner)] = owner.copy()
        memo.setdefault(id(memo), []).append(owner)  # copy.deepcopy's way of keeping a memo key's object alive
    copy = _rebuilt(_on_storage(self._data, storage), self._dtype, self.requires_grad)
    if self._grad is not None:
        copy._grad = _deepcopy(self._grad, memo)
    for name, value in self.__dict__.items():
        copy.__dict__[name] = deepcopy(value, memo)
    memo[id(self)] = copy
    return copy


def _part_setter(part: Callable) -> Callable:
    """`x.real = value`, `x.imag = value`: the part's view takes the value, as torch copies into it."""

    def assign(self: Tensor, value: Any) -> None:
        view = part(self)
        if not isinstance(value, (Tensor, bool, int, float, complex)):
            raise TypeError(f"can't assign a {type_name(value)} to a torch.{view._dtype.tensor_type}")
        view.copy_(value if isinstance(value, Tensor) else Tensor._make(np.array(value), view._dtype))

    return assign


def install(cls: type) -> None:
    for name, function in OPERATORS.items():
        setattr(cls, name, function)
    for name, (function, inplace_name) in AUGMENTED.items():
        setattr(cls, name, _augmented(function, inplace_name))
    for name, getter in (("T", T), ("mT", mT), ("H", H), ("mH", mH)):
        setattr(cls, name, property(getter))
    for name, getter in (("real", real), ("imag", imag)):
        setattr(cls, name, property(getter, _part_setter(getter)))
    cls.backward = python_method("backward", backward)
    cls.__copy__ = python_method("__copy__", _copy)
    cls.__deepcopy__ = python_method("__deepcopy__", _deepcopy)
    cls.__iter__ = _iterate
    cls.__reversed__ = python_method("__reversed__", _reversed)
