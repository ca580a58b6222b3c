"""Every differentiable operation, declared once: its grad_fn name, its numpy forward and one
backward formula per input (as PyTorch's derivatives.yaml does).

A formula is a function `(grad, <names>...) -> Tensor` written with Tensor operations, so that
with `create_graph=True` the backward pass records a graph of its own (higher-order
derivatives). The names after `grad` say what the formula needs: an input's name or `result`
(saved tensors, freed after backward), or a non-tensor parameter of the op. Only the tensors
that the formulas of inputs requiring grad need are saved, exactly PyTorch's choice, since that
decides which second backward fails and which in-place change is caught. Summing a broadcast
gradient back to its input's shape is the engine's job, not each formula's.
"""
from __future__ import annotations

import builtins
import math
from typing import Any, Callable, Optional, Sequence

import numpy as np

from . import dtypes, grad_mode, kernels, random as rng

np.seterr(all="ignore")  # PyTorch computes inf and nan silently; so does gradcalc, once for all ops
from .dtypes import DType
from ..warnings import warn
from .engine import FREED_MESSAGE, Node, SavedTensor, forward_name, gradient_edge
from ..display.names import torch_class
from .tensor import (LEAF_INPLACE_MESSAGE, ONLY_FLOAT_GRAD_MESSAGE, VIEW_DEFAULT, VIEW_INFERENCE,
                     VIEW_MULTI_OUTPUT, VIEW_NO_GRAD, VIEW_OF_LEAF_INPLACE_MESSAGE, Size, Tensor,
                     VersionCounter, _wrap_dim)


# ------------------------------------------------------------------ the op table machinery

class OpNode(Node):
    """A grad_fn made from an op declaration; each declaration has its own subclass so the
    class name is PyTorch's (`MulBackward0`)."""

    __slots__ = ("saved", "params", "released")
    op: "OpDef"

    def apply(self, grads: list) -> list:
        op = self.op
        if not (op.multi_output or op.variadic):  # the common case, kept short: it runs once per node
            grad, nexts = grads[0], self.next_functions
            if grad is None:
                return [None] * len(nexts)
            return [formula(grad, *[self._value(name) for name in names])
                    if formula is not None and nexts[index][0] is not None else None
                    for index, (formula, names) in enumerate(zip(op.formulas, op.formula_names))]
        # a multi-output op's formula takes the list of its outputs' gradients (None where none came)
        grad = grads if op.multi_output and builtins.any(g is not None for g in grads) else grads[0]
        results = []
        for index, (formula, names) in enumerate(zip(op.formulas, op.formula_names)):
            # a variadic op's one formula serves all its inputs: needed if any of them needs a gradient
            edges = self.next_functions if op.variadic else self.next_functions[index:index + 1]
            if formula is None or grad is None or builtins.all(node is None for node, _ in edges):
                results.append(None)
                continue
            results.append(formula(grad, *[self._value(name) for name in names]))
        if op.variadic:
            return results[0] if results[0] is not None else [None] * len(self.next_functions)
        return results

    def _value(self, name: str) -> Any:
        if name in self.params and name not in self.op.freed_params:
            return self.params[name]
        if self.released:
            raise RuntimeError(FREED_MESSAGE)
        return self.params[name] if name in self.params else self.saved[name].unpack(self)

    def release(self) -> None:
        if self.saved or self.op.freed_params:
            self.saved = {}
            self.released = True

    def name(self) -> str:
        return self.op.display_name


class OpDef:
    def __init__(self, node_name: str, inputs: tuple, forward: Optional[Callable], grads: dict,
                 display_name: Optional[str] = None, multi_output: bool = False, freed: tuple = ()) -> None:
        self.node_name = node_name
        self.display_name = display_name or node_name
        self.inputs = inputs
        self.multi_output = multi_output
        # parameters that PyTorch keeps as saved tensors (indices, masks): freed after backward too
        self.freed_params = freed
        self.variadic = inputs == ("tensors",)
        self.forward = forward
        self.formulas = [grads.get(name) for name in inputs]
        self.formula_names = [f.__code__.co_varnames[1:f.__code__.co_argcount] if f else () for f in self.formulas]
        self._node_class: Optional[type] = None

    @property
    def node_class(self) -> type:
        """The grad_fn class, made on first use: making a hundred classes at every start costs milliseconds."""
        if self._node_class is None:
            node_class = type(self.node_name, (OpNode,), {"__slots__": (), "op": self})
            self._node_class = torch_class(self.node_name, c_type=True)(node_class)  # <class 'MulBackward0'>
        return self._node_class


OPS: dict = {}


def defop(node_name: str, inputs: Sequence[str], forward: Optional[Callable] = None,
          display_name: Optional[str] = None, multi_output: bool = False, freed: tuple = (),
          **grads: Callable) -> OpDef:
    op = OpDef(node_name, tuple(inputs), forward, grads, display_name, multi_output, freed)
    OPS[node_name] = op
    return op


def record(op: OpDef, inputs: Sequence[Tensor], data: np.ndarray, dtype: DType,
           view_of: Optional[Tensor] = None, **params: Any) -> Tensor:
    """The output tensor of `op` on `inputs` (a view sharing storage with `view_of`, if given),
    with a grad_fn when the graph is being recorded."""
    out = Tensor._make(data, dtype, base=view_of, view_kind=_view_kind(VIEW_DEFAULT))
    if not grad_mode.is_grad_enabled() or not builtins.any([t.requires_grad for t in inputs]):
        return out
    node = new_node(op, inputs, params)
    needed = set()
    if op.variadic:
        needed.update(op.formula_names[0])
    else:
        for tensor, names in zip(inputs, op.formula_names):
            if tensor.requires_grad:
                needed.update(names)
    saved = {}
    for name in needed:
        if name == "result":
            saved[name] = SavedTensor(out, is_output=True)
        elif name in op.inputs and name not in params:
            saved[name] = SavedTensor(inputs[op.inputs.index(name)])
    node.saved = saved
    out._grad_fn = node
    return out


def new_node(op: OpDef, inputs: Sequence[Tensor], params: dict) -> OpNode:
    """A grad_fn of `op` on `inputs`, before anything is saved in it."""
    node = op.node_class()
    node.next_functions = tuple([gradient_edge(t) for t in inputs])
    node.input_meta = [(t._data.shape, t._dtype) for t in inputs]
    node.params = params
    node.released = False
    node.saved = {}
    return node


def _view_kind(recorded: str) -> str:
    """How a view made now is marked: `recorded` when grad mode is on."""
    if grad_mode.is_inference_mode_enabled():
        return VIEW_INFERENCE
    return recorded if grad_mode.is_grad_enabled() else VIEW_NO_GRAD


def record_views(op: OpDef, a: Tensor, datas: Sequence[np.ndarray], **params: Any) -> tuple:
    """The views of `a` that one multi-output op (unbind, split) makes, sharing one grad_fn."""
    kind = _view_kind(VIEW_MULTI_OUTPUT)
    outs = tuple(Tensor._make(data, a._dtype, base=a, view_kind=kind) for data in datas)
    if grad_mode.is_grad_enabled() and a.requires_grad:
        node = new_node(op, (a,), params)
        for index, out in enumerate(outs):
            out._grad_fn, out._output_nr = node, index
    return outs


def _grad_of(dtype: DType) -> bool:
    return dtype.category >= dtypes.FLOATING


# ------------------------------------------------------------------ operands and dtypes

def as_tensor(value: Any, dtype: Optional[DType] = None) -> Tensor:
    """A tensor operand; a Python number becomes a 0-dim tensor of its own dtype."""
    if isinstance(value, Tensor):
        return value
    if isinstance(value, (bool, int, float, complex)):
        dtype = dtype or dtypes.scalar_dtype(value)
        return Tensor._make(np.array(value, dtype=dtype.numpy), dtype)
    if isinstance(value, np.ndarray):
        return Tensor._make(value, dtypes.from_numpy(value.dtype))
    raise TypeError(f"expected Tensor as element 1 in argument 0, but got {type(value).__name__}")


def _check_number(value: Any, op_name: str) -> None:
    if not isinstance(value, (Tensor, bool, int, float, complex)):
        raise TypeError(f"unsupported operand type(s) for {op_name}: 'Tensor' and '{type(value).__name__}'")


def _arrays(tensors: Sequence[Tensor], dtype: DType) -> list:
    return [t._data if t._dtype is dtype else t._data.astype(dtype.numpy) for t in tensors]


def _check_broadcast(a: Tensor, b: Tensor) -> None:
    a_shape, b_shape = a._data.shape, b._data.shape
    if a_shape == b_shape:
        return
    for i, (x, y) in enumerate(zip(reversed(a_shape), reversed(b_shape))):
        if x != y and x != 1 and y != 1:
            dim = builtins.max(a.ndim, b.ndim) - 1 - i
            raise RuntimeError(f"The size of tensor a ({x}) must match the size of tensor b ({y}) at "
                               f"non-singleton dimension {dim}")


def _broadcast_shapes(a_shape: tuple, b_shape: tuple) -> tuple:
    """The broadcast of two shapes, or PyTorch's error naming the first dimension that clashes."""
    ndim = builtins.max(len(a_shape), len(b_shape))
    a_full, b_full = (1,) * (ndim - len(a_shape)) + a_shape, (1,) * (ndim - len(b_shape)) + b_shape
    for dim in reversed(range(ndim)):
        x, y = a_full[dim], b_full[dim]
        if x != y and x != 1 and y != 1:
            raise RuntimeError(f"The size of tensor a ({x}) must match the size of tensor b ({y}) at "
                               f"non-singleton dimension {dim}")
    return tuple(y if x == 1 else x for x, y in zip(a_full, b_full))


def _binary(op: OpDef, a: Any, b: Any, compute: Optional[DType] = None, **params: Any) -> Tensor:
    dtype = compute or dtypes.result_type([a, b])
    ta, tb = as_tensor(a), as_tensor(b)
    _check_broadcast(ta, tb)
    x, y = _arrays((ta, tb), dtype)
    data = op.forward(x, y, **params)
    return record(op, (ta, tb), np.asarray(data, dtype=dtype.numpy), dtype, **params)


def _unary_float(op: OpDef, a: Tensor, **params: Any) -> Tensor:
    """An element-wise function that gives a floating result for integer input."""
    dtype = a._dtype if a._dtype.category >= dtypes.FLOATING else dtypes.get_default_dtype()
    # PyTorch's float32 exp, log, tanh, ... are correctly rounded far more often than numpy's:
    # computing in float64 and rounding once gets the same last bits
    compute = dtypes.float64 if dtype in (dtypes.float32, dtypes.float16) else dtype
    (x,) = _arrays((a,), compute)
    data = op.forward(x, **params)
    return record(op, (a,), np.asarray(data, dtype=dtype.numpy), dtype, **params)


def _unary(op: OpDef, a: Tensor, **params: Any) -> Tensor:
    data = op.forward(a._data, **params)
    return record(op, (a,), np.asarray(data, dtype=a._dtype.numpy), a._dtype, **params)


# ------------------------------------------------------------------ arithmetic

def _scaled(grad: Tensor, alpha: Any) -> Tensor:
    return grad if alpha == 1 else grad * alpha


# with an alpha, PyTorch's add kernel is one fused multiply-add: x + alpha * y rounded once
ADD = defop("AddBackward0", ("self", "other"), lambda x, y, alpha=1: kernels.add_scaled(x, y, alpha),
            self=lambda g: g, other=lambda g, alpha: _scaled(g, alpha))
SUB = defop("SubBackward0", ("self", "other"),
            lambda x, y, alpha=1: kernels.add_scaled(x, y, -alpha) if alpha != 1 else x - y,
            self=lambda g: g, other=lambda g, alpha: -_scaled(g, alpha))
RSUB = defop("RsubBackward1", ("self",), lambda x, other, alpha=1: kernels.add_scaled(
    np.asarray(other, dtype=x.dtype), x, -alpha) if alpha != 1 else other - x,
             self=lambda g, alpha: -_scaled(g, alpha))
MUL = defop("MulBackward0", ("self", "other"), np.multiply,
            self=lambda g, other: g * other.conj(), other=lambda g, self: g * self.conj())
DIV = defop("DivBackward0", ("self", "other"), np.true_divide,
            self=lambda g, other: g / other.conj(),
            other=lambda g, self, other: -g * ((self / other) / other).conj())
NEG = defop("NegBackward0", ("self",), np.negative, self=lambda g: -g)
# division by a number inside backward formulas (C++ Scalar division in PyTorch: DivBackward1)
DIV_SCALAR = defop("DivBackward1", ("self",), None, self=lambda g, other: div_scalar(g, other))
RECIPROCAL = defop("ReciprocalBackward0", ("self",), np.reciprocal,
                   self=lambda g, result: -g * (result * result).conj())


def _pow_grad_self(g: Tensor, self: Tensor, exponent: Any) -> Tensor:
    if isinstance(exponent, (int, float)) and exponent == 0:
        return zeros_like(self)
    return g * (exponent * self.pow(exponent - 1)).conj()


def _power(x: np.ndarray, exponent: Any) -> np.ndarray:
    """x ** exponent as PyTorch's kernel computes it for float32 and float64: the exponents 2, 3
    and -2 as products (rounded after each one), 0.5, -0.5 and -1 as sqrt, 1 / sqrt and 1 / x;
    any other through a correctly rounded power, as its pow nearly always is."""
    if x.dtype.type not in (np.float32, np.float64) or isinstance(exponent, complex):
        return np.power(x, exponent)
    products = {0: lambda: np.ones_like(x), 1: lambda: x.copy(), 2: lambda: x * x, 3: lambda: x * x * x,
                -2: lambda: 1 / (x * x), 0.5: lambda: np.sqrt(x), -0.5: lambda: 1 / np.sqrt(x), -1: lambda: 1 / x}
    if exponent in products:
        return products[exponent]()
    return _power_tensor(x, np.asarray(exponent, dtype=x.dtype))


def _power_tensor(x: np.ndarray, exponent: np.ndarray) -> np.ndarray:
    if x.dtype.kind in "iu" and np.any(exponent < 0):
        # PyTorch's integer pow: a negative exponent gives 1 or -1 for a base of 1 or -1, else 0
        x, exponent = np.broadcast_arrays(x, exponent)
        safe = np.power(x, np.where(exponent < 0, 0, exponent))
        odd = (-exponent) % 2 == 1
        inverse = np.where(x == 1, 1, np.where(x == -1, np.where(odd, -1, 1), 0)).astype(x.dtype)
        return np.where(exponent < 0, inverse, safe)
    # float32 through float64 and one rounding: what the C library's powf gives, nearly always
    if x.dtype.type is np.float32:
        return np.power(x.astype(np.float64), exponent.astype(np.float64)).astype(np.float32)
    return np.power(x, exponent)


POW_SCALAR = defop("PowBackward0", ("self",), _power, self=_pow_grad_self)
POW_TENSOR = defop("PowBackward1", ("self", "exponent"), _power_tensor,
                   self=lambda g, self, exponent: g * (exponent * self.pow(exponent - 1)).conj(),
                   exponent=lambda g, self, result: g * (result * _log_masked(self, result)).conj())
POW_SCALAR_BASE = defop("PowBackward2", ("exponent",), lambda e, base: _power_tensor(np.asarray(base, e.dtype), e)
                        if e.dtype.kind in "iu" else np.power(base, e),
                        exponent=lambda g, result, base: g * (result * math.log(base)).conj()
                        if base != 0 else zeros_like(result))


def _log_masked(base: Tensor, result: Tensor) -> Tensor:
    # d(b^e)/de = b^e log b, taken as 0 where b == 0 and the power is 0 (PyTorch's convention)
    return where(logical_and(base == 0, result == 0), zeros_like(base), base.log())


def add(a: Any, b: Any, alpha: Any = 1) -> Tensor:
    _check_number(b, "+")
    return _binary(ADD, a, b, alpha=alpha)


def sub(a: Any, b: Any, alpha: Any = 1) -> Tensor:
    _check_number(b, "-")
    _check_sub_bool(a, b)
    return _binary(SUB, a, b, alpha=alpha)


def _check_sub_bool(a: Any, b: Any) -> None:
    """PyTorch refuses `-` when either operand is bool (a Python bool included)."""
    a_bool, b_bool = (isinstance(v, bool) or (isinstance(v, Tensor) and v._dtype is dtypes.bool_) for v in (a, b))
    if a_bool and b_bool:
        raise RuntimeError("Subtraction, the `-` operator, with two bool tensors is not supported. "
                           "Use the `^` or `logical_xor()` operator instead.")
    if a_bool or b_bool:
        raise RuntimeError("Subtraction, the `-` operator, with a bool tensor is not supported. If you are trying "
                           "to invert a mask, use the `~` or `logical_not()` operator instead.")


def rsub(a: Tensor, other: Any, alpha: Any = 1) -> Tensor:
    """`other - a` for a Python number `other`."""
    _check_number(other, "-")
    if isinstance(other, Tensor):
        return sub(other, a, alpha=alpha)
    _check_sub_bool(other, a)
    dtype = dtypes.result_type([a, other])
    (x,) = _arrays((a,), dtype)
    data = RSUB.forward(x, other=other, alpha=alpha)
    return record(RSUB, (a,), np.asarray(data, dtype=dtype.numpy), dtype, alpha=alpha, other=other)


def mul(a: Any, b: Any) -> Tensor:
    _check_number(b, "*")
    return _binary(MUL, a, b)


def div(a: Any, b: Any, rounding_mode: Optional[str] = None) -> Tensor:
    _check_number(b, "/")
    if rounding_mode is not None:
        function = np.floor_divide if rounding_mode == "floor" else _trunc_divide
        return _rounded_divide(DIV_ROUNDED, a, b, function, "/", f"div_{rounding_mode}_cpu")
    dtype = dtypes.result_type([a, b])
    if dtype.category < dtypes.FLOATING:
        dtype = dtypes.get_default_dtype()
    return _binary(DIV, a, b, compute=dtype)


def div_scalar(a: Tensor, other: Any) -> Tensor:
    return record(DIV_SCALAR, (a,), np.asarray(a._data / other, dtype=a._dtype.numpy), a._dtype, other=other)


def rdiv(a: Tensor, other: Any) -> Tensor:
    """`other / a`: PyTorch computes `a.reciprocal() * other`."""
    return mul(reciprocal(a), other)


def reciprocal(a: Tensor) -> Tensor:
    return _unary_float(RECIPROCAL, a)


def neg(a: Tensor) -> Tensor:
    if a._dtype is dtypes.bool_:
        raise RuntimeError("Negation, the `-` operator, on a bool tensor is not supported. If you are trying "
                           "to invert a mask, use the `~` or `logical_not()` operator instead.")
    return _unary(NEG, a)


def pow(a: Any, exponent: Any) -> Tensor:
    if not isinstance(a, Tensor):
        return rpow(as_tensor(exponent), a)
    if isinstance(exponent, Tensor):
        _check_not_bool("pow", a, exponent)
        return _binary(POW_TENSOR, a, exponent)
    _check_number(exponent, "** or pow()")
    dtype = dtypes.result_type([a, exponent])
    if dtype.category == dtypes.INTEGRAL and isinstance(exponent, int) and exponent < 0:
        raise RuntimeError("Integers to negative integer powers are not allowed.")
    (x,) = _arrays((a,), dtype)
    with np.errstate(all="ignore"):
        data = POW_SCALAR.forward(x, exponent=exponent)
    return record(POW_SCALAR, (a,), np.asarray(data, dtype=dtype.numpy), dtype, exponent=exponent)


def rpow(a: Tensor, base: Any) -> Tensor:
    """`base ** a` for a Python number `base`."""
    _check_not_bool("pow", a, base)
    dtype = dtypes.result_type([a, base])
    (x,) = _arrays((a,), dtype)
    with np.errstate(all="ignore"):
        data = POW_SCALAR_BASE.forward(x, base=base)
    return record(POW_SCALAR_BASE, (a,), np.asarray(data, dtype=dtype.numpy), dtype, base=base)


def floor_divide(a: Any, b: Any) -> Tensor:
    return _rounded_divide(NOT_IMPLEMENTED, a, b, np.floor_divide, "//", "div_floor_cpu", aten="floor_divide")


def _trunc_divide(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    return np.trunc(x / y).astype(x.dtype)


def remainder(a: Any, b: Any) -> Tensor:
    _check_number(b, "%")
    _check_not_bool("remainder_cpu", a, b)
    if isinstance(a, Tensor) and isinstance(b, Tensor):
        return _binary(REMAINDER, a, b)
    dtype = dtypes.result_type([a, b])
    ta, tb = as_tensor(a), as_tensor(b)
    _check_broadcast(ta, tb)
    x, y = _arrays((ta, tb), dtype)
    data = np.asarray(_mod(x, y), dtype=dtype.numpy)
    if isinstance(a, Tensor):  # remainder(Tensor, Scalar): a gradient for self only
        return record(REMAINDER_SCALAR, (a,), data, dtype)
    return record(NOT_IMPLEMENTED, (b,), data, dtype, aten="remainder")  # remainder(Scalar, Tensor): none


REMAINDER_SCALAR = defop("RemainderBackward0", ("self",), None, self=lambda g: g)
def _mod(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """PyTorch's remainder: for floats, fmod moved into the divisor's sign only when not zero,
    so a zero keeps the dividend's sign (-4. % 1. is -0.); integers as Python's %."""
    if x.dtype.kind != "f" and np.broadcast(x, y).size and np.any(y == 0):  # no elements: nothing divided
        raise RuntimeError("ZeroDivisionError")
    if x.dtype.kind != "f":
        return np.mod(x, y)
    result = np.fmod(x, y)
    return np.where((result != 0) & ((result < 0) != (y < 0)), result + y, result)


REMAINDER = defop("RemainderBackward1", ("self", "other"), _mod, self=lambda g: g,
                  other=lambda g, self, other: -g * self.div(other, rounding_mode="floor"))
# div with a rounding mode: piecewise constant, so zero gradients (PyTorch's DivBackward2)
DIV_ROUNDED = defop("DivBackward2", ("self", "other"), None, self=lambda g: zeros_like(g),
                    other=lambda g: zeros_like(g))


def _not_implemented(grad: Tensor, aten: str) -> list:
    raise RuntimeError(f"derivative for aten::{aten} is not implemented")


# an op PyTorch records without a derivative formula (floor_divide, Scalar % Tensor): the
# output requires grad, and backward through it fails
NOT_IMPLEMENTED = defop("NotImplemented", ("tensors",), None, display_name="torch::autograd::NotImplemented",
                        tensors=_not_implemented)


def _check_not_bool(kernel: str, *operands: Any) -> None:
    if dtypes.result_type(list(operands)) is dtypes.bool_:
        raise NotImplementedError(f'"{kernel}" not implemented for \'Bool\'')


def _rounded_divide(op: OpDef, a: Any, b: Any, function: Callable, symbol: str, kernel: str,
                    **params: Any) -> Tensor:
    _check_number(b, symbol)
    _check_not_bool(kernel, a, b)
    dtype = dtypes.result_type([a, b])
    ta, tb = as_tensor(a), as_tensor(b)
    _check_broadcast(ta, tb)
    x, y = _arrays((ta, tb), dtype)
    if dtype.category <= dtypes.INTEGRAL and np.broadcast(x, y).size and np.any(y == 0):
        raise RuntimeError("ZeroDivisionError")
    with np.errstate(all="ignore"):
        data = np.asarray(function(x, y), dtype=dtype.numpy)
    # a Python number is a wrapped operand of its own, with no edge: only tensors are inputs
    inputs = (ta, tb) if op is not NOT_IMPLEMENTED else tuple(t for t in (a, b) if isinstance(t, Tensor))
    return record(op, inputs, data, dtype, **params)


# ------------------------------------------------------------------ comparisons and logic

def _compare(a: Any, b: Any, function: Callable) -> Tensor:
    if not isinstance(b, (Tensor, bool, int, float, complex)):
        return NotImplemented
    dtype = dtypes.result_type([a, b])
    ta, tb = as_tensor(a), as_tensor(b)
    _check_broadcast(ta, tb)
    x, y = _arrays((ta, tb), dtype)
    with np.errstate(all="ignore"):
        return Tensor._make(np.asarray(function(x, y)), dtypes.bool_)


def eq(a: Any, b: Any) -> Tensor:
    return _compare(a, b, np.equal)


def ne(a: Any, b: Any) -> Tensor:
    return _compare(a, b, np.not_equal)


def lt(a: Any, b: Any) -> Tensor:
    return _compare(a, b, np.less)


def le(a: Any, b: Any) -> Tensor:
    return _compare(a, b, np.less_equal)


def gt(a: Any, b: Any) -> Tensor:
    return _compare(a, b, np.greater)


def ge(a: Any, b: Any) -> Tensor:
    return _compare(a, b, np.greater_equal)


def equal(a: Tensor, b: Tensor) -> bool:
    return a.shape == b.shape and bool(np.array_equal(a._data, b._data))


def isclose(a: Tensor, b: Any, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False) -> Tensor:
    return _compare(a, b, lambda x, y: np.isclose(x, y, rtol=rtol, atol=atol, equal_nan=equal_nan))


def allclose(a: Tensor, b: Any, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False) -> bool:
    return bool(isclose(a, b, rtol, atol, equal_nan)._data.all())


def logical_and(a: Tensor, b: Any) -> Tensor:
    return _compare(a, b, np.logical_and)


def logical_or(a: Tensor, b: Any) -> Tensor:
    return _compare(a, b, np.logical_or)


def logical_not(a: Tensor) -> Tensor:
    return Tensor._make(np.logical_not(a._data), dtypes.bool_)


def _bitwise(a: Any, b: Any, function: Callable, symbol: str) -> Tensor:
    dtype = dtypes.result_type([a, b])
    if dtype.category > dtypes.INTEGRAL:
        raise RuntimeError(f"\"{symbol}_cpu\" not implemented for '{_c10_short(dtype)}'")
    ta, tb = as_tensor(a), as_tensor(b)
    x, y = _arrays((ta, tb), dtype)
    return Tensor._make(np.asarray(function(x, y), dtype=dtype.numpy), dtype)


def bitwise_and(a: Any, b: Any) -> Tensor:
    return _bitwise(a, b, np.bitwise_and, "bitwise_and")


def bitwise_or(a: Any, b: Any) -> Tensor:
    return _bitwise(a, b, np.bitwise_or, "bitwise_or")


def bitwise_xor(a: Any, b: Any) -> Tensor:
    return _bitwise(a, b, np.bitwise_xor, "bitwise_xor")


def bitwise_left_shift(a: Any, b: Any) -> Tensor:
    _check_shift(a, b, "lshift")
    return _bitwise(a, b, np.left_shift, "lshift")


def bitwise_right_shift(a: Any, b: Any) -> Tensor:
    _check_shift(a, b, "rshift")
    return _bitwise(a, b, np.right_shift, "rshift")


def _check_shift(a: Any, b: Any, symbol: str) -> None:
    # unlike the other bitwise ops, PyTorch's shifts refuse floats with NotImplementedError
    dtype = dtypes.result_type([a, b])
    if dtype.category > dtypes.INTEGRAL:
        raise NotImplementedError(f"\"{symbol}_cpu\" not implemented for '{_c10_short(dtype)}'")


def bitwise_not(a: Tensor) -> Tensor:
    if a._dtype.category > dtypes.INTEGRAL:
        raise RuntimeError(f"\"bitwise_not_cpu\" not implemented for '{_c10_short(a._dtype)}'")
    return Tensor._make(np.invert(a._data), a._dtype)


def _c10_short(dtype: DType) -> str:
    return {"float32": "Float", "float64": "Double", "float16": "Half", "int64": "Long", "int32": "Int",
            "int16": "Short", "int8": "Char", "uint8": "Byte", "bool": "Bool", "complex64": "ComplexFloat",
            "complex128": "ComplexDouble"}[dtype.name]


def where(condition: Tensor, a: Any, b: Any) -> Tensor:
    dtype = dtypes.result_type([a, b])
    ta, tb = as_tensor(a), as_tensor(b)
    _broadcast_shapes(_broadcast_shapes(tuple(condition.shape), tuple(ta.shape)), tuple(tb.shape))
    x, y = _arrays((ta, tb), dtype)
    data = np.where(condition._data, x, y)
    return record(WHERE, (ta, tb), np.asarray(data, dtype=dtype.numpy), dtype, condition=condition)


MASKED_FILL = defop("MaskedFillBackward0", ("self",), None, freed=("mask",),
                    self=lambda g, mask: masked_fill(g, mask, 0))
MASKED_FILL_TENSOR = defop("MaskedFillBackward1", ("self", "value"), None, freed=("mask",),
                           self=lambda g, mask: masked_fill(g, mask, 0),
                           value=lambda g, mask: where(mask, g, zeros_like(g)).sum())


def masked_fill(a: Tensor, mask: Tensor, value: Any) -> Tensor:
    if mask._dtype is not dtypes.bool_:
        raise RuntimeError(f"masked_fill_ only supports boolean masks, but got mask with dtype {_c10_name(mask._dtype)}")
    if isinstance(value, Tensor) and value.ndim:
        raise RuntimeError("masked_fill_ only supports a 0-dimensional value tensor, but got tensor with "
                           f"{value.ndim} dimension(s).")
    number = value._data if isinstance(value, Tensor) else value
    data = np.where(mask._data, np.asarray(number).astype(a._dtype.numpy), a._data)
    if isinstance(value, Tensor):
        return record(MASKED_FILL_TENSOR, (a, value), data, a._dtype, mask=mask)
    return record(MASKED_FILL, (a,), data, a._dtype, mask=mask)


WHERE = defop("WhereBackward0", ("self", "other"), None, freed=("condition",),
              self=lambda g, condition: where(condition, g, zeros_like(g)),
              other=lambda g, condition: where(condition, zeros_like(g), g))


# ------------------------------------------------------------------ element-wise functions

EXP = defop("ExpBackward0", ("self",), np.exp, self=lambda g, result: g * result.conj())
LOG = defop("LogBackward0", ("self",), np.log, self=lambda g, self: g / self.conj())
LOG2 = defop("Log2Backward0", ("self",), np.log2, self=lambda g, self: g / (self.conj() * math.log(2.0)))
LOG10 = defop("Log10Backward0", ("self",), np.log10, self=lambda g, self: g / (self.conj() * math.log(10.0)))
LOG1P = defop("Log1PBackward0", ("self",), np.log1p, self=lambda g, self: g / (self + 1).conj())
EXPM1 = defop("Expm1Backward0", ("self",), np.expm1, self=lambda g, result: g * (result.conj() + 1))
SIN = defop("SinBackward0", ("self",), np.sin, self=lambda g, self: g * self.cos().conj())
COS = defop("CosBackward0", ("self",), np.cos, self=lambda g, self: g * -self.sin().conj())
TAN = defop("TanBackward0", ("self",), np.tan, self=lambda g, result: g * (1 + result.pow(2)).conj())
TANH = defop("TanhBackward0", ("self",), np.tanh, self=lambda g, result: tanh_backward(g, result))
SIGMOID = defop("SigmoidBackward0", ("self",), None,
                self=lambda g, result: sigmoid_backward(g, result))
# the backward functions PyTorch records as ops of their own (their grad_fn shows with create_graph)
TANH_BACKWARD = defop("TanhBackwardBackward0", ("grad_output", "output"), None,
                      grad_output=lambda g, output: tanh_backward(g, output.conj()),
                      output=lambda g, grad_output, output: g.conj() * (-2 * output.conj() * grad_output).conj())
SIGMOID_BACKWARD = defop("SigmoidBackwardBackward0", ("grad_output", "output"), None,
                         grad_output=lambda g, output: sigmoid_backward(g, output.conj()),
                         output=lambda g, grad_output, output: g.conj() * grad_output * (-2 * output.conj() + 1))
THRESHOLD_BACKWARD = defop("ThresholdBackwardBackward0", ("grad_output", "self"), None,
                           grad_output=lambda g, self, threshold: threshold_backward(g, self, threshold),
                           self=lambda g: zeros_like(g))


def tanh_backward(grad_output: Tensor, output: Tensor) -> Tensor:
    data = grad_output._data * (1 - output._data * output._data.conj()).conj()
    return record(TANH_BACKWARD, (grad_output, output), data, grad_output._dtype)


def sigmoid_backward(grad_output: Tensor, output: Tensor) -> Tensor:
    # grad * (1 - y) * y, multiplied from the left as PyTorch's kernel does
    data = grad_output._data * (1 - output._data).conj() * output._data.conj()
    return record(SIGMOID_BACKWARD, (grad_output, output), data, grad_output._dtype)


def threshold_backward(grad_output: Tensor, self: Tensor, threshold: Any) -> Tensor:
    data = np.where(self._data <= threshold, np.zeros((), grad_output._data.dtype), grad_output._data)
    return record(THRESHOLD_BACKWARD, (grad_output, self), data, grad_output._dtype, threshold=threshold)
SQRT = defop("SqrtBackward0", ("self",), np.sqrt, self=lambda g, result: g / (2 * result.conj()))
RSQRT = defop("RsqrtBackward0", ("self",), lambda x: 1 / np.sqrt(x),
              self=lambda g, result: -0.5 * g * result.pow(3).conj())
ABS = defop("AbsBackward0", ("self",), np.abs, self=lambda g, self: g * sign(self))
# PyTorch's clamp_min keeps what is not below 0: -0. and nan stay as they are
RELU = defop("ReluBackward0", ("self",), lambda x: np.where(x < 0, 0, x).astype(x.dtype),
             self=lambda g, result: threshold_backward(g, result, 0))
ASIN = defop("AsinBackward0", ("self",), np.arcsin, self=lambda g, self: g * (-self * self + 1).rsqrt().conj())
ACOS = defop("AcosBackward0", ("self",), np.arccos,
             self=lambda g, self: g * -(-self * self + 1).rsqrt().conj())
ATAN = defop("AtanBackward0", ("self",), np.arctan, self=lambda g, self: g / (self * self + 1).conj())
SINH = defop("SinhBackward0", ("self",), np.sinh, self=lambda g, self: g * self.cosh().conj())
COSH = defop("CoshBackward0", ("self",), np.cosh, self=lambda g, self: g * self.sinh().conj())
CONJ = defop("ConjBackward0", ("self",), np.conj, self=lambda g: g.conj())


def exp(a: Tensor) -> Tensor:
    return _unary_float(EXP, a)


def log(a: Tensor) -> Tensor:
    return _unary_float(LOG, a)


def log2(a: Tensor) -> Tensor:
    return _unary_float(LOG2, a)


def log10(a: Tensor) -> Tensor:
    return _unary_float(LOG10, a)


def log1p(a: Tensor) -> Tensor:
    return _unary_float(LOG1P, a)


def expm1(a: Tensor) -> Tensor:
    return _unary_float(EXPM1, a)


def sin(a: Tensor) -> Tensor:
    return _unary_float(SIN, a)


def cos(a: Tensor) -> Tensor:
    return _unary_float(COS, a)


def tan(a: Tensor) -> Tensor:
    return _unary_float(TAN, a)


def tanh(a: Tensor) -> Tensor:
    return _unary_float(TANH, a)


def sigmoid(a: Tensor) -> Tensor:
    # as PyTorch: exp rounded to the tensor's dtype, then 1 / (1 + e) in that dtype
    dtype = a._dtype if a._dtype.category >= dtypes.FLOATING else dtypes.get_default_dtype()
    wide = a._data.astype(np.complex128 if dtype.is_complex else np.float64)
    e = np.exp(-wide).astype(dtype.numpy)
    if dtype is dtypes.float32:
        # whole pairs of AVX512 registers take SLEEF's exp; the elements left over, the C library's
        e = kernels.simd_split(vector_exp(np.float32(0) - a._data.astype(np.float32)), e, lanes=16)
    return record(SIGMOID, (a,), np.asarray(1 / (1 + e), dtype=dtype.numpy), dtype)


def sqrt(a: Tensor) -> Tensor:
    return _unary_float(SQRT, a)


def rsqrt(a: Tensor) -> Tensor:
    # one divided by the square root, rounded after each, in the result's dtype as PyTorch's kernel does
    dtype = a._dtype if a._dtype.category >= dtypes.FLOATING else dtypes.get_default_dtype()
    (x,) = _arrays((a,), dtypes.float32 if dtype is dtypes.float16 else dtype)
    return record(RSQRT, (a,), np.asarray(RSQRT.forward(x), dtype=dtype.numpy), dtype)


def asin(a: Tensor) -> Tensor:
    return _unary_float(ASIN, a)


def acos(a: Tensor) -> Tensor:
    return _unary_float(ACOS, a)


def atan(a: Tensor) -> Tensor:
    return _unary_float(ATAN, a)


def sinh(a: Tensor) -> Tensor:
    return _unary_float(SINH, a)


def cosh(a: Tensor) -> Tensor:
    return _unary_float(COSH, a)


def abs(a: Tensor) -> Tensor:
    _check_not_bool("abs_cpu", a)
    if a._dtype.is_complex:
        data = np.abs(a._data)
        return record(ABS, (a,), data, a._dtype.to_real())
    return _unary(ABS, a)


def relu(a: Tensor) -> Tensor:
    if a._dtype is dtypes.bool_:
        raise RuntimeError("Boolean inputs not supported for relu")
    return _unary(RELU, a)


def conj(a: Tensor) -> Tensor:
    if not a._dtype.is_complex:
        return a
    return _unary(CONJ, a)


def _sign(x: np.ndarray) -> np.ndarray:
    """PyTorch's sign, (0 < x) - (x < 0): 0 for nan and for -0."""
    return ((x > 0).astype(x.dtype) - (x < 0).astype(x.dtype)).astype(x.dtype)


SIGN = defop("SignBackward0", ("self",), _sign, self=lambda g: zeros_like(g))


def sign(a: Tensor) -> Tensor:
    if a._dtype is dtypes.bool_:
        return Tensor._make(a._data.copy(), a._dtype)
    return _unary(SIGN, a)


# sgn of a real tensor is sign's values under a node of its own name
SGN = defop("SgnBackward0", ("self",), _sign, self=lambda g: zeros_like(g))


def sgn(a: Tensor) -> Tensor:
    if a._dtype is dtypes.bool_:
        return sign(a)
    if not a._dtype.is_complex:
        return _unary(SGN, a)
    magnitude = np.abs(a._data)
    data = np.where(magnitude == 0, 0, a._data / np.where(magnitude == 0, 1, magnitude))
    return Tensor._make(data.astype(a._dtype.numpy), a._dtype)


def real(a: Tensor) -> Tensor:
    if not a._dtype.is_complex:
        return a
    return Tensor._make(a._data.real, a._dtype.to_real(), view_of=a)


def imag(a: Tensor) -> Tensor:
    if not a._dtype.is_complex:
        raise RuntimeError("imag is not implemented for tensors with non-complex dtypes.")
    return Tensor._make(a._data.imag, a._dtype.to_real(), view_of=a)


CLAMP = defop("ClampBackward1", ("self",), lambda x, min, max: np.clip(x, min, max),
              self=lambda g, self, min, max: where(_in_range(self, min, max), g, zeros_like(g)))


def _in_range(t: Tensor, low: Any, high: Any) -> Tensor:
    inside = ones_like(t, dtype=dtypes.bool_)
    if low is not None:
        inside = logical_and(inside, t >= low)
    if high is not None:
        inside = logical_and(inside, t <= high)
    return inside


# clamp with tensor bounds: min wins where the bounds cross (max < min), as in PyTorch
CLAMP_TENSOR = defop("ClampBackward0", ("self", "min", "max"), None,
                     self=lambda g, self, min, max: where(logical_and(self >= min, self <= max), g, zeros_like(g)),
                     min=lambda g, self, min, max: where(logical_and(self < min, min < max), g, zeros_like(g)),
                     max=lambda g, self, min, max: where(logical_or(self > max, max < min), g, zeros_like(g)))


def _unbounded(dtype: DType, low: bool) -> Tensor:
    """The stand-in for an absent tensor bound: it clamps nothing and, needing no gradient, shows
    as (None, 0) in next_functions as PyTorch's undefined bound does."""
    if dtype.category >= dtypes.FLOATING:
        value = -np.inf if low else np.inf
    else:
        info = np.iinfo(dtype.numpy)
        value = info.min if low else info.max
    return Tensor._make(np.array(value, dtype=dtype.numpy), dtype)


def clamp(a: Tensor, min: Any = None, max: Any = None) -> Tensor:
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    dtype = dtypes.result_type([a] + [v for v in (min, max) if v is not None])
    if isinstance(min, Tensor) or isinstance(max, Tensor):
        bounds = [as_tensor(v) if v is not None else _unbounded(dtype, low=i == 0) for i, v in enumerate((min, max))]
        for bound in bounds:
            _check_broadcast(a, bound)
        x, low, high = _arrays([a] + bounds, dtype)
        data = np.minimum(np.maximum(x, low), high)
        return record(CLAMP_TENSOR, [a] + bounds, np.asarray(data, dtype=dtype.numpy), dtype)
    (x,) = _arrays((a,), dtype)
    data = np.clip(x, min, max)
    return record(CLAMP, (a,), np.asarray(data, dtype=dtype.numpy), dtype, min=min, max=max)


# ------------------------------------------------------------------ reductions

def _expand_reduced(g: Tensor, self_shape: tuple, dims: Optional[tuple], keepdim: bool) -> Tensor:
    if dims is not None and not keepdim:
        for d in sorted(dims):
            g = g.unsqueeze(d)
    return g.expand(self_shape)


SUM = defop("SumBackward0", ("self",), None, self=lambda g, self_shape: g.expand(self_shape))
SUM_DIM = defop("SumBackward1", ("self",), None,
                self=lambda g, self_shape, dims, keepdim: _expand_reduced(g, self_shape, dims, keepdim))
MEAN = defop("MeanBackward0", ("self",), None,
             self=lambda g, self_shape, count: div_scalar(g.expand(self_shape), count))
MEAN_DIM = defop("MeanBackward1", ("self",), None,
                 self=lambda g, self_shape, dims, keepdim, count:
                 div_scalar(_expand_reduced(g, self_shape, dims, keepdim), count))
PROD = defop("ProdBackward0", ("self",), None, self=lambda g, self, result: _prod_grad(g, self, result))
PROD_DIM = defop("ProdBackward1", ("self",), None,
                 self=lambda g, self, result, dims, keepdim: _prod_grad(
                     _expand_reduced(g, self.shape, dims, keepdim), self,
                     _expand_reduced(result, self.shape, dims, keepdim), dims))
MAX_ALL = defop("MaxBackward1", ("self",), None, self=lambda g, self, result: _evenly(g, self, result))
MIN_ALL = defop("MinBackward1", ("self",), None, self=lambda g, self, result: _evenly(g, self, result))
AMAX = defop("AmaxBackward0", ("self",), None,
             self=lambda g, self, result, dims, keepdim: _evenly(
                 _expand_reduced(g, self.shape, dims, keepdim), self,
                 _expand_reduced(result, self.shape, dims, keepdim), dims))
AMIN = defop("AminBackward0", ("self",), None,
             self=lambda g, self, result, dims, keepdim: _evenly(
                 _expand_reduced(g, self.shape, dims, keepdim), self,
                 _expand_reduced(result, self.shape, dims, keepdim), dims))
MAX_DIM = defop("MaxBackward0", ("self",), None, freed=("indices",),
                self=lambda g, self_shape, dim, keepdim, indices: _scatter_back(g, self_shape, dim, keepdim, indices))
MIN_DIM = defop("MinBackward0", ("self",), None, freed=("indices",),
                self=lambda g, self_shape, dim, keepdim, indices: _scatter_back(g, self_shape, dim, keepdim, indices))


def _evenly(g: Tensor, self: Tensor, result: Tensor, dims: Optional[tuple] = None) -> Tensor:
    """The gradient of max/min over ties: shared evenly among the tied elements (PyTorch fills
    zeros with the share for a full reduction, and scales a mask for amax/amin)."""
    if dims is None:
        mask = self == result
        return masked_fill(zeros_like(self, dtype=g.dtype), mask, g / mask.sum())
    mask = (self == result).to(g.dtype)
    return g / mask.sum(dim=dims, keepdim=True) * mask


def _prod_grad(g: Tensor, self: Tensor, result: Tensor, dims: Optional[tuple] = None) -> Tensor:
    if not np.any(self._data == 0):
        return g * (result / self)
    # with zeros, the gradient of each element is the product of all the others: the product of
    # row i of an (n, n) matrix of the reduced values whose diagonal is set to one. Built from
    # tensor ops (not a division) so that create_graph gives the second derivative.
    reduced = tuple(range(self.ndim)) if dims is None else dims
    order = tuple(d for d in range(self.ndim) if d not in reduced) + reduced
    moved = self.permute(order)
    lead = moved.shape[:moved.ndim - len(reduced)]
    n = int(np.prod([self.shape[d] for d in reduced], dtype=np.int64))
    rows = moved.reshape(lead + (1, n)).expand(lead + (n, n))
    diagonal = Tensor._make(np.eye(n, dtype=bool), dtypes.bool_)
    others = where(diagonal, 1.0, rows).prod(-1).reshape(moved.shape).permute(tuple(np.argsort(order)))
    return g * others


def _scatter_back(g: Tensor, self_shape: tuple, dim: int, keepdim: bool, indices: np.ndarray) -> Tensor:
    if not self_shape:
        return g  # the max of a 0-dim tensor along its dim is the tensor itself
    if not keepdim:
        g = g.unsqueeze(dim)
    index = np.expand_dims(indices, dim) if not keepdim else indices
    return scatter(zeros(self_shape, dtype=g.dtype), dim, index, g)


SCATTER_SRC = defop("ScatterBackward0", ("self", "src"), None, freed=("index",),
                    self=lambda g, dim, index: scatter(g, dim, index, zeros(index.shape, dtype=g.dtype)),
                    src=lambda g, dim, index: gather(g, dim, index))
GATHER = defop("GatherBackward0", ("self",), None, freed=("index",),
               self=lambda g, self_shape, dim, index: scatter_add(zeros(self_shape, dtype=g.dtype), dim, index, g))
SCATTER_ADD = defop("ScatterAddBackward0", ("self", "src"), None, freed=("index",),
                    self=lambda g: g, src=lambda g, dim, index: gather(g, dim, index))


def scatter(base: Tensor, dim: int, index: np.ndarray, src: Tensor) -> Tensor:
    data = base._data.copy()
    np.put_along_axis(data, index, src._data, axis=dim)
    return record(SCATTER_SRC, (base, src), data, base._dtype, dim=dim, index=index)


def scatter_add(base: Tensor, dim: int, index: np.ndarray, src: Tensor) -> Tensor:
    data = base._data.copy()
    _add_along_axis(data, index, src._data, dim)
    return record(SCATTER_ADD, (base, src), data, base._dtype, dim=dim, index=index)


def _add_along_axis(data: np.ndarray, index: np.ndarray, values: np.ndarray, axis: int) -> None:
    grids = list(np.indices(index.shape, sparse=True))
    grids[axis] = index
    np.add.at(data, tuple(grids), values)


def gather(a: Tensor, dim: int, index: Any) -> Tensor:
    index_array = index._data if isinstance(index, Tensor) else np.asarray(index)
    # a 0-dim tensor gathers its one element (index 0 along dim 0 or -1)
    data = np.ascontiguousarray(np.take_along_axis(a._data, index_array, axis=dim)) if a.ndim else a._data.copy()
    return record(GATHER, (a,), data, a._dtype, dim=dim, index=index_array, self_shape=a.shape)


def _normalize_dims(dim: Any, ndim: int) -> Optional[tuple]:
    if dim is None:
        return None
    dims = tuple(dim) if isinstance(dim, (tuple, list)) else (dim,)
    wrapped = tuple(_wrap_dim(d, ndim) for d in dims)
    repeated = [d for i, d in enumerate(wrapped) if d in wrapped[:i]]
    if repeated:
        raise RuntimeError(f"dim {repeated[0]} appears multiple times in the list of dims")
    # a 0-dim tensor accepts dim 0 (or -1) and reduces over nothing
    return wrapped if ndim else ()


def _sum_dtype(a: Tensor, dtype: Optional[DType]) -> DType:
    if dtype is not None:
        return dtype
    return dtypes.int64 if a._dtype.category <= dtypes.INTEGRAL else a._dtype


def _sum_data(x: np.ndarray, dims: Optional[tuple], keepdim: bool) -> np.ndarray:
    """The values of torch.sum over `dims` (None: all): float32 and float64 add in the order of
    PyTorch's kernel, whose last bits differ from numpy's pairwise sum."""
    axes = tuple(range(x.ndim)) if dims is None else dims
    if x.dtype.type not in (np.float32, np.float64) or (x.ndim and not axes):
        return np.asarray(x.sum(axis=axes, keepdims=keepdim))
    total = kernels.cascade_sum(x, axes)
    return total if keepdim else total.reshape([n for d, n in enumerate(x.shape) if d not in axes])


def sum(a: Tensor, dim: Any = None, keepdim: bool = False, dtype: Optional[DType] = None) -> Tensor:
    out_dtype = _sum_dtype(a, dtype)
    dims = _normalize_dims(dim, a.ndim)
    (x,) = _arrays((a,), out_dtype)
    data = np.asarray(_sum_data(x, dims, keepdim and dims is not None), dtype=out_dtype.numpy)
    if dims is None:
        return record(SUM, (a,), data, out_dtype, self_shape=a.shape)
    return record(SUM_DIM, (a,), data, out_dtype, self_shape=a.shape, dims=dims, keepdim=keepdim)


def mean(a: Tensor, dim: Any = None, keepdim: bool = False, dtype: Optional[DType] = None) -> Tensor:
    out_dtype = dtype or a._dtype
    if out_dtype.category < dtypes.FLOATING:
        raise RuntimeError(
            "mean(): could not infer output dtype. Input dtype must be either a floating point or complex "
            f"dtype. Got: {_c10_short(out_dtype)}")
    dims = _normalize_dims(dim, a.ndim)
    (x,) = _arrays((a,), out_dtype)
    count = a.numel() if dims is None else int(np.prod([a.shape[d] for d in dims]))
    # on the CPU, PyTorch's mean is its sum divided by the count
    total = _sum_data(x, dims, keepdim and dims is not None)
    data = np.asarray(total / np.asarray(count, dtype=total.dtype), dtype=out_dtype.numpy)
    if dims is None:
        return record(MEAN, (a,), data, out_dtype, self_shape=a.shape, count=count)
    return record(MEAN_DIM, (a,), data, out_dtype, self_shape=a.shape, dims=dims, keepdim=keepdim, count=count)


def _one_dim(name: str, dim: Any) -> None:
    """Ops that reduce along one dim refuse a tuple as PyTorch's argument parser does."""
    if isinstance(dim, (tuple, list)):
        raise TypeError(f"{name}(): argument 'dim' must be int, not {type(dim).__name__}")


def prod(a: Tensor, dim: Any = None, keepdim: bool = False, dtype: Optional[DType] = None) -> Tensor:
    _one_dim("prod", dim)  # unlike sum, prod has no overload taking a list of dims
    out_dtype = _sum_dtype(a, dtype)
    (x,) = _arrays((a,), out_dtype)
    if dim is None:
        return record(PROD, (a,), np.asarray(x.prod(), dtype=out_dtype.numpy), out_dtype)
    dims = _normalize_dims(dim, a.ndim)
    data = np.asarray(x.prod(axis=dims, keepdims=keepdim), dtype=out_dtype.numpy)
    return record(PROD_DIM, (a,), data, out_dtype, dims=dims, keepdim=keepdim)


class ReturnTypes(tuple):
    """torch.return_types.max and friends: a (values, indices) tuple with names, of one class
    per kind as in torch (`<class 'torch.return_types.max'>`)."""

    __slots__ = ()
    _classes: dict = {}

    def __new__(cls, kind: str, values: Tensor, indices: Tensor) -> "ReturnTypes":
        named = ReturnTypes._classes.get(kind)
        if named is None:
            named = torch_class(f"torch.return_types.{kind}", c_type=True)(
                type(kind, (ReturnTypes,), {"__slots__": ()}))
            ReturnTypes._classes[kind] = named
        return tuple.__new__(named, (values, indices))

    @property
    def values(self) -> Tensor:
        return self[0]

    @property
    def indices(self) -> Tensor:
        return self[1]

    def __repr__(self) -> str:
        return f"{type(self).__name__}(\nvalues={self[0]!r},\nindices={self[1]!r})"


def _extreme(a: Tensor, dim: Any, keepdim: bool, kind: str) -> Any:
    numpy_reduce, arg_reduce = (np.max, np.argmax) if kind == "max" else (np.min, np.argmin)
    if isinstance(dim, Tensor):
        return maximum(a, dim) if kind == "max" else minimum(a, dim)
    if dim is None:
        if a.numel() == 0:
            raise RuntimeError(f"{kind}(): Expected reduction dim to be specified for input.numel() == 0. "
                               "Specify the reduction dim with the 'dim' argument.")
        op = MAX_ALL if kind == "max" else MIN_ALL
        return record(op, (a,), np.asarray(numpy_reduce(a._data)), a._dtype)
    if not isinstance(dim, int):
        raise TypeError(f"{kind}() received an invalid combination of arguments - got (dim={type(dim).__name__}, )")
    d = _wrap_dim(dim, a.ndim)
    _check_reduced_size(a, d, kind)
    data = a._data if a.ndim else a._data.reshape(1)
    indices = arg_reduce(data, axis=d)
    values = np.take_along_axis(data, np.expand_dims(indices, d), axis=d)
    if not keepdim:
        values = np.squeeze(values, axis=d)
    else:
        indices = np.expand_dims(indices, d)
    if a.ndim == 0:
        values, indices = values.reshape(()), np.asarray(indices).reshape(())
    op = MAX_DIM if kind == "max" else MIN_DIM
    # np.array, not np.ascontiguousarray, which would make a 0-dim result 1-dim
    out = record(op, (a,), np.array(values), a._dtype, self_shape=a.shape, dim=d, keepdim=keepdim,
                 indices=np.asarray(indices) if keepdim or a.ndim == 0 else indices)
    return ReturnTypes(kind, out, Tensor._make(np.asarray(indices, dtype=np.int64), dtypes.int64))


def max(a: Tensor, dim: Any = None, keepdim: bool = False) -> Any:
    return _extreme(a, dim, keepdim, "max")


def min(a: Tensor, dim: Any = None, keepdim: bool = False) -> Any:
    return _extreme(a, dim, keepdim, "min")


def _check_reduced_size(a: Tensor, dim: Optional[int], name: str) -> None:
    """max, min, amax, amin, argmax and argmin have no value for an empty reduction (amax and
    amin name the dim as it was given, the others wrapped)."""
    if a.numel() != 0:
        return
    if dim is None:
        more = "" if name.startswith("arg") else " Specify the reduction dim with the 'dim' argument."
        error = IndexError if name.startswith("arg") else RuntimeError
        raise error(f"{name}(): Expected reduction dim to be specified for input.numel() == 0.{more}")
    if a.ndim and a.shape[_wrap_dim(dim, a.ndim)] == 0:
        raise IndexError(f"{name}(): Expected reduction dim {dim} to have non-zero size.")


def amax(a: Tensor, dim: Any = (), keepdim: bool = False) -> Tensor:
    # each dim's size is checked before the list of dims is checked for repeats
    for d in (tuple(dim) if isinstance(dim, (tuple, list)) else (dim,)) if dim not in ((), None) else (None,):
        _check_reduced_size(a, d, "amax")  # no dim given (None): the whole tensor
    dims = _normalize_dims(dim, a.ndim) or tuple(range(a.ndim))
    data = np.asarray(np.max(a._data, axis=dims, keepdims=keepdim))
    return record(AMAX, (a,), data, a._dtype, dims=dims, keepdim=keepdim)


def amin(a: Tensor, dim: Any = (), keepdim: bool = False) -> Tensor:
    # each dim's size is checked before the list of dims is checked for repeats
    for d in (tuple(dim) if isinstance(dim, (tuple, list)) else (dim,)) if dim not in ((), None) else (None,):
        _check_reduced_size(a, d, "amin")  # no dim given (None): the whole tensor
    dims = _normalize_dims(dim, a.ndim) or tuple(range(a.ndim))
    data = np.asarray(np.min(a._data, axis=dims, keepdims=keepdim))
    return record(AMIN, (a,), data, a._dtype, dims=dims, keepdim=keepdim)


def _check_arg_reduction(a: Tensor, dim: Any, name: str) -> None:
    if dim is not None and not isinstance(dim, int):
        raise TypeError(f"{name}(): argument 'dim' must be int, not {type(dim).__name__}")
    if a._dtype is dtypes.bool_:
        raise RuntimeError(f"{name}(): does not support bool input")
    _check_reduced_size(a, None if dim is None else _wrap_dim(dim, a.ndim), name)


def argmax(a: Tensor, dim: Optional[int] = None, keepdim: bool = False) -> Tensor:
    _check_arg_reduction(a, dim, "argmax")
    if dim is None:
        return Tensor._make(np.asarray(np.argmax(a._data), dtype=np.int64), dtypes.int64)
    return max(a, dim, keepdim)[1]


def argmin(a: Tensor, dim: Optional[int] = None, keepdim: bool = False) -> Tensor:
    _check_arg_reduction(a, dim, "argmin")
    if dim is None:
        return Tensor._make(np.asarray(np.argmin(a._data), dtype=np.int64), dtypes.int64)
    return min(a, dim, keepdim)[1]


MAXIMUM = defop("MaximumBackward0", ("self", "other"), np.maximum,
                self=lambda g, self, other: g * _tie_mask(self, other, "gt"),
                other=lambda g, self, other: g * _tie_mask(other, self, "gt"))
MINIMUM = defop("MinimumBackward0", ("self", "other"), np.minimum,
                self=lambda g, self, other: g * _tie_mask(self, other, "lt"),
                other=lambda g, self, other: g * _tie_mask(other, self, "lt"))


def _tie_mask(a: Tensor, b: Tensor, how: str) -> Tensor:
    wins = (a > b) if how == "gt" else (a < b)
    return wins.to(a.dtype) + (a == b).to(a.dtype) * 0.5


def _check_other_tensor(b: Any, name: str) -> None:
    if not isinstance(b, Tensor):
        raise TypeError(f"{name}(): argument 'other' (position 2) must be Tensor, not {type(b).__name__}")


def maximum(a: Tensor, b: Tensor) -> Tensor:
    _check_other_tensor(b, "maximum")
    return _binary(MAXIMUM, a, b)


def minimum(a: Tensor, b: Tensor) -> Tensor:
    _check_other_tensor(b, "minimum")
    return _binary(MINIMUM, a, b)


def any(a: Tensor, dim: Any = None, keepdim: bool = False) -> Tensor:
    axis = _normalize_dims(dim, a.ndim)
    return Tensor._make(np.asarray(np.any(a._data, axis=axis, keepdims=keepdim if axis is not None else False)),
                        dtypes.bool_)


def all(a: Tensor, dim: Any = None, keepdim: bool = False) -> Tensor:
    axis = _normalize_dims(dim, a.ndim)
    return Tensor._make(np.asarray(np.all(a._data, axis=axis, keepdims=keepdim if axis is not None else False)),
                        dtypes.bool_)


# ------------------------------------------------------------------ linear algebra

DOT = defop("DotBackward0", ("self", "other"), None,
            self=lambda g, other: g * other.conj(), other=lambda g, self: g * self.conj())
MV = defop("MvBackward0", ("self", "vec"), None,
           self=lambda g, vec: g.unsqueeze(1) * vec.conj().unsqueeze(0),
           vec=lambda g, self: self.conj().t().mv(g))
MM = defop("MmBackward0", ("self", "mat2"), None,
           self=lambda g, mat2: g.mm(mat2.conj().t()), mat2=lambda g, self: self.conj().t().mm(g))
ADDMM = defop("AddmmBackward0", ("self", "mat1", "mat2"), None,
              self=lambda g: g, mat1=lambda g, mat2: g.mm(mat2.conj().t()),
              mat2=lambda g, mat1: mat1.conj().t().mm(g))
BMM = defop("BmmBackward0", ("self", "mat2"), None,
            self=lambda g, mat2: g.bmm(mat2.conj().transpose(1, 2)),
            mat2=lambda g, self: self.conj().transpose(1, 2).bmm(g))


def _matmul_dtype(a: Tensor, b: Tensor) -> DType:
    if a._dtype is not b._dtype:
        raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: {_c10_name(a._dtype)} != "
                           f"{_c10_name(b._dtype)}")
    return a._dtype


def _c10_name(dtype: DType) -> str:
    return {"float32": "float", "float64": "double", "int64": "long int", "int32": "int",
            "float16": "c10::Half", "bool": "bool"}.get(dtype.name, dtype.name)


def dot(a: Tensor, b: Tensor) -> Tensor:
    if a.ndim != 1 or b.ndim != 1:
        raise RuntimeError(f"1D tensors expected, but got {a.ndim}D and {b.ndim}D tensors")
    if a._dtype is not b._dtype:  # checked before the sizes, as PyTorch does
        raise RuntimeError(f"dot : expected both vectors to have same dtype, but found {_c10_short(a._dtype)} and "
                           f"{_c10_short(b._dtype)}")
    if a.shape[0] != b.shape[0]:
        raise RuntimeError("inconsistent tensor size, expected tensor [%d] and src [%d] to have the same number "
                           "of elements, but got %d and %d elements respectively"
                           % (a.shape[0], b.shape[0], a.shape[0], b.shape[0]))
    _check_not_bool("dot", a)
    return record(DOT, (a, b), np.asarray(np.dot(a._data, b._data), dtype=a._dtype.numpy), a._dtype)


def mv(a: Tensor, b: Tensor) -> Tensor:
    if a.ndim != 2 or b.ndim != 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got 1, {a.ndim}, {b.ndim}")
    if a.shape[1] != b.shape[0]:
        raise RuntimeError(f"size mismatch, got input ({a.shape[0]}), mat ({a.shape[0]}x{a.shape[1]}), "
                           f"vec ({b.shape[0]})")
    if a._dtype is not b._dtype:
        raise RuntimeError(f"addmv input tensors must have the same dtype, but got {_c10_short(b._dtype)}, "
                           f"{_c10_short(a._dtype)}, and {_c10_short(b._dtype)}")
    dtype = a._dtype
    _check_not_bool("addmv_impl_cpu", a)
    return record(MV, (a, b), np.asarray(a._data @ b._data, dtype=dtype.numpy), dtype)


def mm(a: Tensor, b: Tensor) -> Tensor:
    if a.ndim != 2:
        raise RuntimeError(f"self must be a matrix")
    if b.ndim != 2:
        raise RuntimeError(f"mat2 must be a matrix")
    if a.shape[1] != b.shape[0]:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({a.shape[0]}x{a.shape[1]} and "
                           f"{b.shape[0]}x{b.shape[1]})")
    dtype = _matmul_dtype(a, b)
    _check_not_bool("addmm_impl_cpu_", a)
    return record(MM, (a, b), np.asarray(kernels.matmul(a._data, b._data), dtype=dtype.numpy), dtype)


def bmm(a: Tensor, b: Tensor) -> Tensor:
    for name, t in (("batch1", a), ("batch2", b)):
        if t.ndim != 3:
            raise RuntimeError(f"{name} must be a 3D tensor")
    if b.shape[:2] != (a.shape[0], a.shape[2]):
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: [{a.shape[0]}, "
                           f"{a.shape[2]}] but got: [{b.shape[0]}, {b.shape[1]}].")
    if a._dtype is not b._dtype:
        raise RuntimeError(f"expected scalar type {_c10_short(a._dtype)} but found {_c10_short(b._dtype)}")
    dtype = a._dtype
    _check_not_bool("bmm", a)
    return record(BMM, (a, b), np.asarray(a._data @ b._data, dtype=dtype.numpy), dtype)


def addmm(bias: Tensor, a: Tensor, b: Tensor) -> Tensor:
    if a.shape[1] != b.shape[0]:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({a.shape[0]}x{a.shape[1]} and "
                           f"{b.shape[0]}x{b.shape[1]})")
    dtype = _matmul_dtype(a, b)
    # the bias is added to the finished product, as sgemm adds C (beta = 1) at the end
    data = np.asarray(bias._data + kernels.matmul(a._data, b._data), dtype=dtype.numpy)
    return record(ADDMM, (bias, a, b), data, dtype)


def matmul(a: Tensor, b: Tensor) -> Tensor:
    """torch.matmul, decomposed into the same ops as PyTorch's, so its graph shows the same nodes."""
    if not isinstance(b, Tensor):
        raise TypeError(f"matmul(): argument 'other' (position 2) must be Tensor, not {type(b).__name__}")
    if a.ndim == 0 or b.ndim == 0:
        raise RuntimeError(f"both arguments to matmul need to be at least 1D, but they are {a.ndim}D and {b.ndim}D")
    if a.ndim == 1 and b.ndim == 1:
        return dot(a, b)
    if a.ndim == 2 and b.ndim == 1:
        return mv(a, b)
    if a.ndim == 1 and b.ndim == 2:
        row = mm(a.unsqueeze(0), b)
        return record(SQUEEZE_INPLACE, (row,), row._data.reshape(row.shape[1:]), row._dtype, view_of=row,
                      self_shape=row.shape)
    if a.ndim == 2 and b.ndim == 2:
        return mm(a, b)
    if a.ndim == 3 and b.ndim == 3 and (a.shape[0] == 1) != (b.shape[0] == 1):
        # a single matrix that requires grad is taken out of its batch of one, then folded
        if a.shape[0] == 1 and a.requires_grad:
            return matmul(squeeze(a, 0), b)
        if b.shape[0] == 1 and b.requires_grad:
            return matmul(a, squeeze(b, 0))
    if _should_fold(a, b):
        transpose = b.ndim > a.ndim
        t1 = b.mT if transpose else a
        t2 = (a.t() if a.ndim == 2 else a) if transpose else b
        output_shape = t1.shape[:-1]
        folded = t1.reshape(int(np.prod(output_shape, dtype=np.int64)), t1.shape[-1])
        if t2.ndim == 2:
            output = _unsafe_view(mm(folded, t2), output_shape + (t2.shape[1],))
            return output.mT.contiguous() if transpose else output
        return _unsafe_view(mv(folded, t2), output_shape)
    n = a.shape[-2] if a.ndim > 1 else 1
    p = b.shape[-1] if b.ndim > 1 else 1
    batch = _broadcast_shapes(tuple(a.shape[:-2]), tuple(b.shape[:-2]))
    count = int(np.prod(batch, dtype=np.int64))
    a3 = a.expand(batch + (n, a.shape[-1])).reshape(count, n, a.shape[-1])
    b3 = b.expand(batch + (b.shape[-2] if b.ndim > 1 else b.shape[0], p)).reshape(count, -1, p)
    shape = batch + ((n,) if a.ndim > 1 else ()) + ((p,) if b.ndim > 1 else ())
    return _unsafe_view(bmm(a3, b3), shape)


def _should_fold(a: Tensor, b: Tensor) -> bool:
    """PyTorch folds the batch of the larger operand into matrix rows (mm/mv instead of bmm)
    when that needs no copy, or when the smaller operand requires grad."""
    a_larger = a.ndim >= b.ndim
    t1 = a if a_larger else b.mT
    small_ndim = b.ndim if a_larger else a.ndim
    if not (t1.ndim >= 3 and small_ndim in (1, 2)):
        return False
    if (b if a_larger else a).requires_grad:
        return True
    if a.ndim == 2:
        return False
    if t1.numel() == 0:
        return True
    shape, strides = t1.shape, t1.stride()
    return builtins.all(strides[i] == strides[i + 1] * shape[i + 1] for i in range(t1.ndim - 2))


# ------------------------------------------------------------------ copies and dtype changes

CLONE = defop("CloneBackward0", ("self",), None, self=lambda g: g)
TO_COPY = defop("ToCopyBackward0", ("self",), None, self=lambda g, self_dtype: g.to(self_dtype))
ALIAS = defop("AliasBackward0", ("self",), None, self=lambda g: g)


def clone(a: Tensor, memory_format: Any = None) -> Tensor:
    return record(CLONE, (a,), a._data.copy(), a._dtype)


def detach(a: Tensor) -> Tensor:
    # same storage and version counter, but not a view for autograd: no base to follow
    out = Tensor._make(a._data, a._dtype)
    out._vc = a._vc
    return out


def to_dtype(a: Tensor, dtype: DType, copy: bool = False) -> Tensor:
    if dtype is a._dtype and not copy:
        return a
    if a.requires_grad and dtype.category < dtypes.FLOATING:
        return Tensor._make(a._data.astype(dtype.numpy), dtype)
    with np.errstate(all="ignore"):
        data = a._data.astype(dtype.numpy)
    return record(TO_COPY, (a,), data, dtype, self_dtype=a._dtype)


# ------------------------------------------------------------------ views and shapes

VIEW = defop("ViewBackward0", ("self",), None, self=lambda g, self_shape: g.reshape(self_shape))
UNSAFE_VIEW = defop("UnsafeViewBackward0", ("self",), None, self=lambda g, self_shape: g.reshape(self_shape))
RESHAPE_ALIAS = defop("ReshapeAliasBackward0", ("self",), None, self=lambda g, self_shape: g.reshape(self_shape))
T = defop("TBackward0", ("self",), None, self=lambda g: g.t())
TRANSPOSE = defop("TransposeBackward0", ("self",), None, self=lambda g, dim0, dim1: g.transpose(dim0, dim1))
PERMUTE = defop("PermuteBackward0", ("self",), None, self=lambda g, dims: g.permute(tuple(np.argsort(dims))))
UNSQUEEZE = defop("UnsqueezeBackward0", ("self",), None, self=lambda g, dim: g.squeeze(dim))
SQUEEZE = defop("SqueezeBackward0", ("self",), None, self=lambda g, self_shape: g.reshape(self_shape))
SQUEEZE_DIM = defop("SqueezeBackward1", ("self",), None, self=lambda g, self_shape: g.reshape(self_shape))
SQUEEZE_DIMS = defop("SqueezeBackward2", ("self",), None, self=lambda g, self_shape: g.reshape(self_shape))
EXPAND = defop("ExpandBackward0", ("self",), None, self=lambda g, self_shape: g.sum_to_size(self_shape))
SELECT = defop("SelectBackward0", ("self",), None,
               self=lambda g, self_shape, dim, index: _embed(g, self_shape, _select_key(len(self_shape), dim, index)))
SLICE = defop("SliceBackward0", ("self",), None,
              self=lambda g, self_shape, dim, key: _embed(g, self_shape, _slice_key(len(self_shape), dim, key)))
INDEX = defop("IndexBackward0", ("self",), None, freed=("index",),
              self=lambda g, self_shape, index: index_put(zeros(self_shape, dtype=g.dtype), index, g, True,
                                                          INDEX_PUT_IMPL))
INDEX_PUT = defop("IndexPutBackward0", ("self", "values"), None, freed=("index",),
                  self=lambda g, index, accumulate: g if accumulate else index_put(g, index, zeros_like(g[index]), False),
                  values=lambda g, index: g[index])
# the accumulating index_put that the backward of indexing records (torch's _index_put_impl_)
INDEX_PUT_IMPL = defop("IndexPutImplBackward0", ("self", "values"), None, freed=("index",),
                       self=INDEX_PUT.formulas[0], values=INDEX_PUT.formulas[1])
AS_STRIDED = defop("AsStridedBackward0", ("self",), None,
                   self=lambda g, self_shape, positions: _scatter_positions(g, self_shape, positions))


def _select_key(ndim: int, dim: int, index: int) -> tuple:
    return (slice(None),) * dim + (index,)


def _slice_key(ndim: int, dim: int, key: slice) -> tuple:
    return (slice(None),) * dim + (key,)


def _embed(g: Tensor, shape: tuple, key: tuple) -> Tensor:
    """Zeros of `shape` with `g` placed at `key` (the backward of select and slice)."""
    data = np.zeros(shape, dtype=g._dtype.numpy)
    data[key] = g._data
    return record(_EMBED_AS[len(key) and isinstance(key[-1], slice)], (g,), data, g._dtype, key=key)


SELECT_BACKWARD = defop("SelectBackwardBackward0", ("self",), None, self=lambda g, key: g[key])
SLICE_BACKWARD = defop("SliceBackwardBackward0", ("self",), None, self=lambda g, key: g[key])
_EMBED_AS = {False: SELECT_BACKWARD, True: SLICE_BACKWARD}


def _view_shape(a: Tensor, shape: Sequence) -> tuple:
    shape = tuple(int(s) for s in shape)
    numel = a.numel()
    if shape.count(-1) > 1:
        raise RuntimeError("only one dimension can be inferred")
    known = int(np.prod([s for s in shape if s != -1], dtype=np.int64))
    if -1 in shape:
        if known == 0 or numel % known:
            raise RuntimeError(f"shape '[{', '.join(map(str, shape))}]' is invalid for input of size {numel}")
        shape = tuple(numel // known if s == -1 else s for s in shape)
    elif known != numel:
        raise RuntimeError(f"shape '[{', '.join(map(str, shape))}]' is invalid for input of size {numel}")
    return shape


def _shape_args(shape: tuple) -> tuple:
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        return tuple(shape[0])
    return shape


def view(a: Tensor, *shape: Any) -> Tensor:
    if len(shape) == 1 and isinstance(shape[0], dtypes.DType):
        raise RuntimeError("view(dtype) is not supported by gradcalc")
    shape = _view_shape(a, _shape_args(shape))
    data = a._data.view()
    try:
        data.shape = shape
    except AttributeError:
        raise RuntimeError("view size is not compatible with input tensor's size and stride (at least one "
                           "dimension spans across two contiguous subspaces). Use .reshape(...) instead.") from None
    return record(VIEW, (a,), data, a._dtype, view_of=a, self_shape=a.shape)


def reshape(a: Tensor, *shape: Any) -> Tensor:
    shape = _view_shape(a, _shape_args(shape))
    data = a._data.view()
    try:
        data.shape = shape
    except AttributeError:
        return _unsafe_view(clone(a), shape)
    # PyTorch views a contiguous tensor, and aliases a non-contiguous one with new strides
    op = VIEW if a._data.flags.c_contiguous else RESHAPE_ALIAS
    return record(op, (a,), data, a._dtype, view_of=a, self_shape=a.shape)


def _unsafe_view(a: Tensor, shape: tuple) -> Tensor:
    return record(UNSAFE_VIEW, (a,), a._data.reshape(shape), a._dtype, view_of=a, self_shape=a.shape)


def flatten(a: Tensor, start_dim: int = 0, end_dim: int = -1) -> Tensor:
    if a.ndim == 0:
        return reshape(a, 1)
    start, end = _wrap_dim(start_dim, a.ndim), _wrap_dim(end_dim, a.ndim)
    if start > end:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    if start == end:
        return a
    shape = a.shape[:start] + (int(np.prod(a.shape[start:end + 1])),) + a.shape[end + 1:]
    return reshape(a, shape)


def t(a: Tensor) -> Tensor:
    if a.ndim > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {a.ndim}D")
    return record(T, (a,), a._data.T, a._dtype, view_of=a)


def transpose(a: Tensor, dim0: int, dim1: int) -> Tensor:
    d0, d1 = _wrap_dim(dim0, a.ndim), _wrap_dim(dim1, a.ndim)
    data = np.swapaxes(a._data, d0, d1) if a.ndim else a._data.view()  # a 0-dim tensor accepts dims 0 and -1
    return record(TRANSPOSE, (a,), data, a._dtype, view_of=a, dim0=d0, dim1=d1)


def permute(a: Tensor, *dims: Any) -> Tensor:
    if not dims:
        raise TypeError('permute() missing 1 required positional arguments: "dims"')
    dims = tuple(_wrap_dim(d, a.ndim) for d in _shape_args(dims))
    if len(dims) != a.ndim:
        raise RuntimeError(f"permute(sparse_coo): number of dimensions in the tensor input does not match the "
                           f"length of the desired ordering of dimensions i.e. input.dim() = {a.ndim} is not equal "
                           f"to len(dims) = {len(dims)}")
    if len(set(dims)) != len(dims):
        raise RuntimeError("permute(): duplicate dims are not allowed.")
    return record(PERMUTE, (a,), np.transpose(a._data, dims), a._dtype, view_of=a, dims=dims)


def unsqueeze(a: Tensor, dim: int) -> Tensor:
    d = _wrap_dim(dim, a.ndim + 1)
    return record(UNSQUEEZE, (a,), np.expand_dims(a._data, d), a._dtype, view_of=a, dim=d)


def squeeze(a: Tensor, dim: Any = None) -> Tensor:
    if dim is None:
        data = np.squeeze(a._data)
        return record(SQUEEZE, (a,), data, a._dtype, view_of=a, self_shape=a.shape)
    dims = _normalize_dims(dim, a.ndim) if a.ndim else ()
    drop = tuple(d for d in dims if a.shape[d] == 1)
    data = np.squeeze(a._data, axis=drop) if drop else a._data.view()
    op = SQUEEZE_DIMS if isinstance(dim, (tuple, list)) else SQUEEZE_DIM
    return record(op, (a,), data, a._dtype, view_of=a, self_shape=a.shape)


def expand(a: Tensor, *sizes: Any) -> Tensor:
    sizes = tuple(_shape_args(sizes))
    if len(sizes) < a.ndim:
        # PyTorch names a bool tensor by its C++ type here, the others by their legacy names
        kind = "CPUBoolType" if a._dtype is dtypes.bool_ else f"torch.{a._dtype.tensor_type}"
        raise RuntimeError(f"expand({kind}{{[{', '.join(map(str, a.shape))}]}}, "
                           f"size=[{', '.join(map(str, sizes))}]): the number of sizes provided ({len(sizes)}) must "
                           f"be greater or equal to the number of dimensions in the tensor ({a.ndim})")
    lead = len(sizes) - a.ndim
    target = []
    for i in reversed(range(len(sizes))):  # from the last dim, as PyTorch checks them
        size = sizes[i]
        if i < lead:
            if size == -1:
                raise RuntimeError(f"The expanded size of the tensor (-1) isn't allowed in a leading, "
                                   f"non-existing dimension {i}")
            target.append(size)
            continue
        current = a.shape[i - lead]
        if size == -1:
            size = current
        if current != size and current != 1:
            raise RuntimeError(f"The expanded size of the tensor ({size}) must match the existing size ({current}) "
                               f"at non-singleton dimension {i}.  Target sizes: [{', '.join(map(str, sizes))}].  "
                               f"Tensor sizes: [{', '.join(map(str, a.shape))}]")
        target.append(size)
    target = tuple(reversed(target))
    if target == a.shape:
        return record(EXPAND, (a,), a._data.view(), a._dtype, view_of=a, self_shape=a.shape)
    # a view that can be written through, as PyTorch's (np.broadcast_to's is read-only), with
    # PyTorch's strides (inferExpandGeometry): 0 where expanded, a new dim of size 1 as if contiguous
    lead = len(target) - a.ndim
    strides = [0] * len(target)
    for i in reversed(range(len(target))):
        if i >= lead:
            size, stride = a.shape[i - lead], a._data.strides[i - lead]
        else:
            size, stride = 1, target[i + 1] * strides[i + 1] if i + 1 < len(target) else a._data.itemsize
        strides[i] = 0 if size != target[i] else stride
    data = np.lib.stride_tricks.as_strided(a._data, target, tuple(strides))
    return record(EXPAND, (a,), data, a._dtype, view_of=a, self_shape=a.shape)


def sum_to_size(a: Tensor, *shape: Any) -> Tensor:
    shape = tuple(_shape_args(shape))
    if a.shape == shape:
        return a
    lead = a.ndim - len(shape)
    dims = tuple(range(lead)) + tuple(lead + i for i, s in enumerate(shape) if s == 1 and a.shape[lead + i] != 1)
    out = a.sum(dim=dims, keepdim=True) if dims else a
    return out.reshape(shape) if lead else out


def select(a: Tensor, dim: int, index: int) -> Tensor:
    if a.ndim == 0:
        raise IndexError("select() cannot be applied to a 0-dim tensor.")
    d = _wrap_dim(dim, a.ndim)
    size = a.shape[d]
    if not -size <= index < size:
        raise IndexError(f"select(): index {index} out of range for tensor of size {list(a.shape)} at dimension {d}")
    index = index % size
    data = a._data[_select_key(a.ndim, d, index)]
    return record(SELECT, (a,), np.asarray(data) if data.ndim else a._data[_select_key(a.ndim, d, index) + (...,)],
                  a._dtype, view_of=a, self_shape=a.shape, dim=d, index=index)


def slice_dim(a: Tensor, dim: int, key: slice) -> Tensor:
    if key.step is not None and key.step <= 0:
        raise ValueError("step must be greater than zero")
    d = _wrap_dim(dim, a.ndim)
    start, stop, step = key.indices(a.shape[d])
    normalized = slice(start, builtins.max(start, stop), step)
    data = a._data[_slice_key(a.ndim, d, normalized)]
    return record(SLICE, (a,), data, a._dtype, view_of=a, self_shape=a.shape, dim=d, key=normalized)


def narrow(a: Tensor, dim: int, start: int, length: int) -> Tensor:
    # PyTorch's narrow is a slice: its grad_fn is SliceBackward0
    if a.ndim == 0:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    d = _wrap_dim(dim, a.ndim)
    size = a.shape[d]
    if not -size <= start <= size:
        raise IndexError(f"start out of range (expected to be in range of [{-size}, {size}], but got {start})")
    if length < 0:
        raise RuntimeError("narrow(): length must be non-negative.")
    start %= builtins.max(size, 1)
    if start + length > size:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size ({size}).")
    key = slice(start, start + length, 1)
    return record(SLICE, (a,), a._data[_slice_key(a.ndim, d, key)], a._dtype, view_of=a, self_shape=a.shape, dim=d,
                  key=key)


def _is_advanced(item: Any) -> bool:
    return isinstance(item, (Tensor, list)) or (isinstance(item, bool))


def getitem(a: Tensor, index: Any) -> Tensor:
    items = index if isinstance(index, tuple) else (index,)
    if builtins_any_advanced(items):
        return _advanced_index(a, items)
    out = _basic_index(a, index, items)
    if out is a:
        return record(ALIAS, (a,), a._data.view(), a._dtype, view_of=a)
    return out


def _basic_index(a: Tensor, index: Any, items: tuple, assigning: bool = False) -> Tensor:
    """The view that integers, slices, None and ... select: `a` itself when they select all of it."""
    if builtins_count(items, Ellipsis) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    specified = builtins.sum(1 for item in items if item is not None and item is not Ellipsis)
    if a.ndim == 0 and isinstance(index, slice):
        raise IndexError("slice() cannot be applied to a 0-dim tensor.")
    if a.ndim == 0 and isinstance(index, int) and not isinstance(index, bool):
        if index != 0:  # PyTorch's bounds check, for which a 0-dim tensor has size 0
            raise IndexError(f"index {index} is out of bounds for dimension 0 with size 0")
        raise IndexError("invalid index of a 0-dim tensor. Use `tensor.item()` in Python or `tensor.item<T>()` in "
                         "C++ to convert a 0-dim tensor to a number")
    if specified > a.ndim:
        raise IndexError(f"too many indices for tensor of dimension {a.ndim}")
    out, dim = a, 0
    for position_in_index, item in enumerate(items):  # PyTorch's out-of-range error names the position
        if item is Ellipsis:
            dim += a.ndim - specified
        elif item is None:
            out = unsqueeze(out, dim)
            dim += 1
        elif isinstance(item, slice):
            key = slice(_index_int(item.start), _index_int(item.stop), _index_int(item.step))
            # as PyTorch: a lone slice is always recorded when reading; in a tuple or an
            # assignment, one that is literally the whole dim (start 0, step 1, stop at or past
            # the end) is skipped
            whole = key.start in (None, 0) and key.step in (None, 1) and (key.stop is None or key.stop >= out.shape[dim])
            if (isinstance(index, slice) and not assigning) or not whole:
                out = slice_dim(out, dim, key)
            dim += 1
        else:
            position, size = _index_int(item), out.shape[dim]
            if not -size <= position < size:
                raise IndexError(f"index {position} is out of bounds for dimension {position_in_index} with size {size}")
            out = select(out, dim, position)
    return out


def _index_int(value: Any) -> Any:
    if value is None or isinstance(value, int):
        return value
    if isinstance(value, Tensor):
        return value.__index__()
    raise TypeError("only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables are valid "
                    "indices (got " + type(value).__name__ + ")")


def builtins_any_advanced(items: tuple) -> bool:
    for item in items:
        if isinstance(item, (list, np.ndarray)) or (
                isinstance(item, Tensor) and (item.ndim > 0 or item._dtype is dtypes.bool_)):
            return True
    return False


def builtins_count(items: tuple, value: Any) -> int:
    return len([item for item in items if item is value])


def _numpy_index(items: tuple, shape: tuple) -> tuple:
    key = []
    for item in items:
        if isinstance(item, Tensor):
            if item._dtype is dtypes.bool_ or item._dtype is dtypes.uint8:
                key.append(item._data.astype(bool))
            elif item._dtype.category == dtypes.INTEGRAL:
                key.append(item._data)
            else:
                raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
        elif isinstance(item, list):
            array = np.asarray(item)
            if array.dtype.kind == "f":
                raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
            key.append(array)
        else:
            key.append(item)
    return tuple(key)


def _check_advanced_bounds(a: Tensor, items: tuple) -> None:
    """PyTorch's error for an integer index out of range: the dimension it names is the index's
    position among the tensor (and list) indices, not the dimension of `a`."""
    specified = builtins.sum(_item_dims(item) for item in items if item is not None and item is not Ellipsis)
    if specified > a.ndim:
        raise IndexError(f"too many indices for tensor of dimension {a.ndim}")
    axis, advanced = 0, 0
    for item in items:
        if item is Ellipsis:
            axis += a.ndim - specified
        elif item is not None:
            indices = item._data if isinstance(item, Tensor) else np.asarray(item) if isinstance(item, list) else None
            if indices is not None and indices.dtype.kind in "iu" and axis < a.ndim:
                size = a.shape[axis]
                outside = indices[(indices >= size) | (indices < -size)]
                if outside.size and size == 0:
                    raise IndexError("index is out of bounds for dimension with size 0")
                if outside.size:
                    raise IndexError(f"index {outside.flat[0]} is out of bounds for dimension {advanced} with size {size}")
            if indices is not None:
                advanced += 1
            axis += _item_dims(item)


def _item_dims(item: Any) -> int:
    """How many dimensions of the indexed tensor one index item consumes (a bool mask: its own)."""
    if isinstance(item, Tensor) and item._dtype in (dtypes.bool_, dtypes.uint8):
        return item.ndim
    return 1


def _advanced_index(a: Tensor, items: tuple) -> Tensor:
    _check_advanced_bounds(a, items)
    key = _numpy_index(items, a.shape)
    try:
        data = a._data[key]
    except IndexError as error:
        raise IndexError(_index_error(str(error), a)) from None
    return record(INDEX, (a,), np.ascontiguousarray(data), a._dtype, self_shape=a.shape, index=key)


def _index_error(message: str, a: Tensor) -> str:
    import re
    found = re.match(r"index (-?\d+) is out of bounds for axis (\d+) with size (\d+)", message)
    if found:
        return f"index {found.group(1)} is out of bounds for dimension {found.group(2)} with size {found.group(3)}"
    return message


def index_put(a: Tensor, key: tuple, values: Tensor, accumulate: bool, op: Optional[OpDef] = None) -> Tensor:
    data = a._data.copy()
    values = as_tensor(values)
    if accumulate:
        np.add.at(data, key, values._data)
    else:
        data[key] = values._data
    return record(op or INDEX_PUT, (a, values), data, a._dtype, index=key, accumulate=accumulate)


def _scatter_positions(g: Tensor, shape: tuple, positions: np.ndarray) -> Tensor:
    flat = zeros((int(np.prod(shape)),), dtype=g.dtype)
    return index_put(flat, (positions.reshape(-1),), g.reshape(-1), True).reshape(shape)


# ------------------------------------------------------------------ joining

STACK = defop("StackBackward0", ("tensors",), None,
              tensors=lambda g, dim, count: [select(g, dim, index) for index in range(count)])
CAT = defop("CatBackward0", ("tensors",), None,
            tensors=lambda g, dim, sizes: [narrow(g, dim, start, size) for start, size in sizes])
UNBIND = defop("UnbindBackward0", ("self",), None, multi_output=True,
               self=lambda grads, self_shape, dim: stack(_pieces(grads, self_shape, dim, [1] * self_shape[dim], True),
                                                         dim))
SPLIT = defop("SplitBackward0", ("self",), None, multi_output=True,
              self=lambda grads, self_shape, dim, sizes: cat(_pieces(grads, self_shape, dim, sizes, False), dim))
SPLIT_WITH_SIZES = defop("SplitWithSizesBackward0", ("self",), None, multi_output=True,
                         self=lambda grads, self_shape, dim, sizes: cat(_pieces(grads, self_shape, dim, sizes, False),
                                                                        dim))


def _pieces(grads: list, self_shape: tuple, dim: int, sizes: list, squeezed: bool) -> list:
    """The gradients of the outputs of unbind or split, zeros for those that got none."""
    pieces = []
    for index, size in enumerate(sizes):
        grad = grads[index] if index < len(grads) else None
        if grad is None:
            shape = self_shape[:dim] + (() if squeezed else (size,)) + self_shape[dim + 1:]
            grad = zeros(shape, dtype=next(g for g in grads if g is not None).dtype)
        pieces.append(grad)
    return pieces


def stack(tensors: Sequence[Tensor], dim: int = 0) -> Tensor:
    tensors = list(tensors)
    if not tensors:
        raise RuntimeError("stack expects a non-empty TensorList")
    first = tensors[0]
    for i, t in enumerate(tensors):
        if t.shape != first.shape:
            raise RuntimeError(f"stack expects each tensor to be equal size, but got [{', '.join(map(str, first.shape))}] "
                               f"at entry 0 and [{', '.join(map(str, t.shape))}] at entry {i}")
    d = _wrap_dim(dim, first.ndim + 1)
    dtype = dtypes.result_type(tensors)
    data = np.stack(_arrays(tensors, dtype), axis=d)
    return record(STACK, tensors, data, dtype, dim=d, count=len(tensors))


def cat(tensors: Sequence[Tensor], dim: int = 0) -> Tensor:
    tensors = [t for t in tensors]
    if not tensors:
        raise RuntimeError("torch.cat(): expected a non-empty list of Tensors")
    for position, t in enumerate(tensors):
        if t.ndim == 0:
            raise RuntimeError(f"zero-dimensional tensor (at position {position}) cannot be concatenated")
    kept = [t for t in tensors if not (t.ndim == 1 and t.shape[0] == 0)] or tensors[:1]
    d = _wrap_dim(dim, kept[0].ndim)
    dtype = dtypes.result_type(tensors)
    for i, t in enumerate(kept):
        if t.ndim != kept[0].ndim:
            raise RuntimeError(f"Tensors must have same number of dimensions: got {kept[0].ndim} and {t.ndim}")
        for axis in range(t.ndim):
            if axis != d and t.shape[axis] != kept[0].shape[axis]:
                raise RuntimeError(f"Sizes of tensors must match except in dimension {d}. Expected size "
                                   f"{kept[0].shape[axis]} but got size {t.shape[axis]} for tensor number {i} in the list.")
    data = np.concatenate(_arrays(kept, dtype), axis=d)
    sizes, start = [], 0
    for t in tensors:
        size = t.shape[d] if t.ndim > d else 0
        sizes.append((start, size))
        start += size
    return record(CAT, tensors, data, dtype, dim=d, sizes=sizes)


def unbind(a: Tensor, dim: int = 0) -> tuple:
    if a.ndim == 0:
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    d = _wrap_dim(dim, a.ndim)
    datas = [a._data[_select_key(a.ndim, d, i) + (...,)] for i in range(a.shape[d])]
    return record_views(UNBIND, a, datas, self_shape=a.shape, dim=d)


def split(a: Tensor, split_size_or_sections: Any, dim: int = 0) -> tuple:
    if a.ndim == 0:
        raise RuntimeError("split expects at least a 1-dimensional tensor")
    d = _wrap_dim(dim, a.ndim)
    size = a.shape[d]
    if isinstance(split_size_or_sections, (list, tuple)):
        sizes = [int(s) for s in split_size_or_sections]
        if builtins.sum(sizes) != size or builtins.any(s < 0 for s in sizes):
            raise RuntimeError(f"split_with_sizes expects split_sizes to sum exactly to {size} (input tensor's size "
                               f"at dimension {d}), but got split_sizes=[{', '.join(map(str, sizes))}]")
        op = SPLIT_WITH_SIZES
    else:
        step = int(split_size_or_sections)
        if step < 0:
            raise RuntimeError(f"split expects split_size be non-negative, but got split_size={step}")
        if step == 0 and size != 0:
            raise RuntimeError(f"split_size can only be 0 if dimension size is 0, but got dimension size of {size}")
        sizes = [builtins.min(step, size - start) for start in range(0, size, step)] if size else [0]
        op = SPLIT
    datas, start = [], 0
    for length in sizes:
        datas.append(a._data[_slice_key(a.ndim, d, slice(start, start + length))])
        start += length
    return record_views(op, a, datas, self_shape=a.shape, dim=d, sizes=sizes)


def chunk(a: Tensor, chunks: int, dim: int = 0) -> tuple:
    if chunks <= 0:
        raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    if a.ndim == 0:
        raise RuntimeError("chunk expects at least a 1-dimensional tensor")
    d = _wrap_dim(dim, a.ndim)
    if a.shape[d] == 0:  # PyTorch makes `chunks` empty pieces, with split_with_sizes
        return split(a, [0] * chunks, d)
    return split(a, -(-a.shape[d] // chunks) if a.shape[d] else 0, d)


# ------------------------------------------------------------------ in-place operations

def check_inplace(a: Tensor, *others: Any) -> None:
    """PyTorch's checks before an in-place change of `a` that `others` take part in: made only
    when grad mode is on and some tensor involved requires grad."""
    if a._is_inference and not grad_mode.is_inference_mode_enabled():
        raise RuntimeError("Inplace update to inference tensor outside InferenceMode is not allowed.You can make a "
                           "clone to get a normal tensor before doing inplace update.See "
                           "https://github.com/pytorch/rfcs/pull/17 for more details.")
    if grad_mode.is_grad_enabled() and builtins.any(t.requires_grad for t in (a,) + others if isinstance(t, Tensor)):
        if a._base is not None:
            check_view_rebase(a, indirect=False)
            if a.requires_grad and a._base.is_leaf:
                raise RuntimeError(VIEW_OF_LEAF_INPLACE_MESSAGE)
        if a.requires_grad and a.is_leaf:
            raise RuntimeError(LEAF_INPLACE_MESSAGE)


def check_overlap(a: Tensor, *others: Any) -> None:
    """The checks of memory overlap that PyTorch's element-wise kernels make when writing to
    `a`, after the autograd checks and before any check of shapes or dtypes."""
    if _internal_overlap(a._data):
        raise RuntimeError("unsupported operation: more than one element of the written-to tensor refers to a "
                           "single memory location. Please clone() the tensor before performing the operation.")
    for other in others:
        if isinstance(other, Tensor) and _overlap(a._data, other._data) == "partial":
            raise RuntimeError(OVERLAP_MESSAGE)


OVERLAP_MESSAGE = ("unsupported operation: some elements of the input tensor and the written-to tensor refer to a "
                   "single memory location. Please clone() the tensor before performing the operation.")


def _dense(x: np.ndarray) -> bool:
    """PyTorch's is_non_overlapping_and_dense: the elements fill a block of memory, in some order of dims."""
    expected = x.itemsize
    for stride, size in sorted((stride, size) for stride, size in zip(x.strides, x.shape) if size != 1):
        if stride != expected:
            return False
        expected *= size
    return True


def _internal_overlap(x: np.ndarray) -> bool:
    """An expanded array, whose elements share memory: written to, PyTorch refuses it."""
    return bool(x.size) and not _dense(x) and builtins.any(
        stride == 0 and size > 1 for stride, size in zip(x.strides, x.shape))


def _overlap(a: np.ndarray, b: np.ndarray) -> str:
    """PyTorch's get_overlap_status of two dense arrays: "full" (the same elements in the same
    layout), "partial" (some shared memory otherwise), "none", or "unknown" when not both dense."""
    if not a.size or not b.size or not np.may_share_memory(a, b):
        return "none"
    if not (_dense(a) and _dense(b)):
        return "unknown"
    a_begin, b_begin = a.__array_interface__["data"][0], b.__array_interface__["data"][0]
    a_end, b_end = a_begin + a.nbytes, b_begin + b.nbytes
    if (a_begin, a_end) == (b_begin, b_end):
        return "full" if a.strides == b.strides else "partial"
    return "partial" if a_begin < b_end and b_begin < a_end else "none"


def check_view_rebase(view: Tensor, indirect: bool) -> None:
    """A view made in no-grad mode, in inference mode or by a multi-output op may not take part
    in an in-place change recorded by autograd (PyTorch's handle_view_on_rebase)."""
    kind = view._view_kind
    if kind == VIEW_DEFAULT:
        return
    modified = "its base or another view of its base has been" if indirect else "is being"
    node = view._node
    if kind in (VIEW_NO_GRAD, VIEW_INFERENCE) or node is None:
        prefix = (f"Output {view._output_nr} of {forward_name(node)} is a view of a view which was created in"
                  if node is not None else "A view was created in")
        if kind == VIEW_INFERENCE:
            message = f"{prefix} inference mode and {modified} modified inplace in normal mode."
        else:
            message = f"{prefix} no_grad mode and {modified} modified inplace with grad mode enabled."
    else:
        message = f"Output {view._output_nr} of {forward_name(node)} is a view and {modified} modified inplace."
    if kind == VIEW_MULTI_OUTPUT:
        message += (" This view is the output of a function that returns multiple views. Such functions do not "
                    "allow the output views to be modified inplace. You should replace the inplace operation by "
                    "an out-of-place one.")
    else:
        where = "inference_mode" if kind == VIEW_INFERENCE else "no_grad"
        message += (" Given that this use case is ambiguous and error-prone, it is forbidden. You can clarify your "
                    f"code by moving both the view and the inplace either both inside the {where} block (if you "
                    "don't want the inplace to be tracked) or both outside (if you want the inplace to be "
                    "tracked).")
    raise RuntimeError(message)


def refresh_view_history(view: Tensor) -> None:
    """After an in-place change of its storage, a view's grad_fn becomes AsStridedBackward0 on
    its base's current history (PyTorch recomputes it lazily the same way)."""
    base = view._base
    if view._node is None and not base.requires_grad:
        return
    check_view_rebase(view, indirect=True)
    node = new_node(AS_STRIDED, (base,), {"self_shape": base.shape, "positions": view_positions(view, base)})
    view._set_history(node, 0)
    view._view_version = view._vc.value


def commit_inplace(a: Tensor, out: Tensor) -> Tensor:
    """Write `out` into `a`'s storage and give `a` out's history (PyTorch's in-place ops)."""
    if a._data.shape != out._data.shape:  # checked before the dtype, as PyTorch does
        raise RuntimeError(f"output with shape [{', '.join(map(str, a.shape))}] doesn't match the broadcast shape "
                           f"[{', '.join(map(str, out.shape))}]")
    if out._dtype is not a._dtype:
        if out._dtype.category > a._dtype.category:
            raise RuntimeError(f"result type {_c10_short(out._dtype)} can't be cast to the desired output type "
                               f"{_c10_short(a._dtype)}")
    node = out._grad_fn
    if node is not None and isinstance(node, OpNode):
        for name, saved in node.saved.items():
            if name == node.op.inputs[0] and not saved.is_output and saved.tensor is a:
                # the op needs its self's value from before the change: PyTorch keeps a copy (another
                # input that is the same tensor stays saved as it is, and is caught as modified)
                snapshot = a._alias(a._grad_fn, a._output_nr)
                snapshot._data = a._data.copy()
                snapshot._vc = VersionCounter()
                node.saved[name] = SavedTensor(snapshot)
    a._data[...] = out._data
    a._vc.value += 1
    if node is None:
        return a
    if isinstance(node, OpNode):
        for saved in node.saved.values():
            if saved.is_output:
                saved.tensor = a._alias()
                saved.version = a._vc.value
    if a._base is None:
        a._set_history(node, out._output_nr)
    else:
        # the base takes the change into its history; the view follows lazily (refresh_view_history)
        base = a._base
        base._set_history(CopySlices(base, a, node), 0)
    return a


@torch_class("CopySlices", c_type=True)
class CopySlices(Node):
    """The base's grad_fn after an in-place change through a view: the change's own grad_fn `fn`
    runs on the view's part of the gradient, the rest of the base's gradient passes unchanged."""

    __slots__ = ("fn", "positions", "view_shape")

    def __init__(self, base: Tensor, view: Tensor, fn: Node) -> None:
        super().__init__((gradient_edge(base),) + tuple(fn.next_functions[1:]))
        self.input_meta = [(base._data.shape, base._dtype)] + list(fn.input_meta[1:])
        self.fn = fn
        self.positions = view_positions(view, base).reshape(-1)
        self.view_shape = view._data.shape

    def name(self) -> str:
        return "torch::autograd::CopySlices"

    def apply(self, grads: list) -> list:
        grad = grads[0]
        if grad is None:
            return [None] * len(self.next_functions)
        flat = grad.reshape(-1)
        results = self.fn.apply([flat[self.positions].reshape(self.view_shape)])
        if results[0] is None:
            return [None] + list(results[1:])
        flat = index_put(flat, (self.positions,), results[0].reshape(-1), False)
        return [flat.reshape(grad.shape)] + list(results[1:])

    def release(self) -> None:
        self.fn.release()


def view_positions(view: Tensor, base: Tensor) -> np.ndarray:
    """For each element of `view`, its flat (row-major) position in `base`."""
    itemsize = base._data.itemsize
    base_offsets = _memory_offsets(base._data, base.data_ptr(), itemsize)
    lookup = np.empty(int(base_offsets.max()) + 1 if base_offsets.size else 0, dtype=np.int64)
    lookup[base_offsets.reshape(-1)] = np.arange(base_offsets.size)
    return lookup[_memory_offsets(view._data, base.data_ptr(), itemsize)]


def _memory_offsets(array: np.ndarray, origin: int, itemsize: int) -> np.ndarray:
    start = (array.__array_interface__["data"][0] - origin) // itemsize if array.size else 0
    offsets = np.full(array.shape, start, dtype=np.int64)
    for axis, (size, stride) in enumerate(zip(array.shape, array.strides)):
        shape = [1] * array.ndim
        shape[axis] = size
        offsets = offsets + (np.arange(size, dtype=np.int64) * (stride // itemsize)).reshape(shape)
    return offsets


def setitem(a: Tensor, index: Any, value: Any) -> None:
    items = index if isinstance(index, tuple) else (index,)
    if isinstance(value, Tensor):
        source = value
    else:
        source = as_tensor(value, a._dtype if not isinstance(value, complex) else None)
    if builtins_any_advanced(items):
        check_inplace(a, source)  # autograd's checks come before the kernel's
        _check_advanced_bounds(a, items)
        if _overlap(a._data, source._data) == "full":  # index_put_ refuses any overlap
            raise RuntimeError(OVERLAP_MESSAGE)
        key = _numpy_index(items, a.shape)
        target_shape = a._data[key].shape
        value_shape = list(source.shape)
        while value_shape and value_shape[0] == 1:  # PyTorch drops the value's leading ones first
            value_shape.pop(0)
        if len(value_shape) > len(target_shape) or builtins.any(
                s != t and s != 1 for s, t in zip(reversed(value_shape), reversed(target_shape))):
            raise RuntimeError(f"shape mismatch: value tensor of shape {value_shape} cannot be broadcast to "
                               f"indexing result of shape {list(target_shape)}")
        if len(value_shape) != source.ndim:
            source = reshape(source, tuple(value_shape))
        # a single value under one bool mask is masked_fill's, which converts it; index_put_ does not
        masked = len(items) == 1 and isinstance(items[0], Tensor) and items[0]._dtype is dtypes.bool_
        if source._dtype is not a._dtype and not (masked and source.ndim == 0):
            raise RuntimeError(f"Index put requires the source and destination dtypes match, got "
                               f"{_c10_short(a._dtype)} for the destination and {_c10_short(source._dtype)} for the "
                               f"source.")
        values = expand(to_dtype(source, a._dtype), target_shape) if source.shape != target_shape else to_dtype(
            source, a._dtype)
        out = index_put(a, key, values, False)
        commit_inplace(a, out)
        return
    # an index that selects all of `a` (x[...] = v, x[:] = v) writes to `a` itself, not to a
    # view of it: a single value with fill_, as PyTorch does
    view = _basic_index(a, index, items, assigning=True)
    # PyTorch's copy_to: a single value is filled in; another shape loses its leading ones and
    # is expanded to the view's shape (expand's errors) before the copy
    if source.ndim == 0 and view.shape != source.shape:
        fill_(view, source)
        return
    if view.shape != source.shape:
        lead = 0
        while lead < source.ndim and source.shape[lead] == 1:
            lead += 1
        stripped = source.reshape(source.shape[lead:]) if lead else source
        source = expand(stripped, view.shape)
    copy_(view, source)


def copy_(a: Tensor, source: Any) -> Tensor:
    check_inplace(a, source)
    check_overlap(a, source)
    source = as_tensor(source, a._dtype if not isinstance(source, Tensor) else None)
    _check_broadcast_to(source, a.shape)
    converted = to_dtype(source, a._dtype)
    out = expand(converted, a.shape) if converted.shape != a.shape else converted
    if not out.requires_grad or not grad_mode.is_grad_enabled():
        out = Tensor._make(np.broadcast_to(converted._data, a.shape), a._dtype)
        if not a.requires_grad or not grad_mode.is_grad_enabled():
            a._data[...] = out._data
            a._vc.value += 1
            return a
    copied = record(COPY, (a, out), np.array(out._data), a._dtype, src_dtype=source._dtype)
    return commit_inplace(a, copied)


COPY = defop("CopyBackwards", ("self", "src"), None, self=lambda g: zeros_like(g), src=lambda g: g)


def _check_broadcast_to(source: Tensor, shape: tuple) -> None:
    if len(source.shape) > len(shape) or builtins.any(s != t and s != 1 for s, t in zip(reversed(source.shape), reversed(shape))):
        raise RuntimeError(f"output with shape [{', '.join(map(str, shape))}] doesn't match the broadcast shape "
                           f"[{', '.join(map(str, _broadcast_shapes(tuple(shape), tuple(source.shape))))}]")


def inplace(function: Callable, overlap_checked: bool = True) -> Callable:
    """The in-place form of an out-of-place function: `x.add_(y)` from `add`."""

    def method(a: Tensor, *args: Any, **kwargs: Any) -> Tensor:
        check_inplace(a, *args, *kwargs.values())
        if overlap_checked:
            check_overlap(a, *args, *kwargs.values())
        return commit_inplace(a, function(a, *args, **kwargs))

    method.__name__ = function.__name__ + "_"
    return method


def zero_(a: Tensor) -> Tensor:
    return fill_(a, 0, ZERO)


def fill_(a: Tensor, value: Any, op: Optional[OpDef] = None) -> Tensor:
    check_inplace(a, value)
    if isinstance(value, Tensor) and value.ndim:
        raise RuntimeError(f"fill_ only supports 0-dimension value tensor but got tensor with {value.ndim} dimensions.")
    number = value._data if isinstance(value, Tensor) else value
    if grad_mode.is_grad_enabled() and (a.requires_grad or isinstance(value, Tensor) and value.requires_grad):
        data = np.full(a.shape, number, dtype=a._dtype.numpy)
        out = (record(FILL_TENSOR, (a, value), data, a._dtype) if isinstance(value, Tensor)
               else record(op or FILL, (a,), data, a._dtype))
        return commit_inplace(a, out)
    a._data[...] = number
    a._vc.value += 1
    return a


FILL = defop("FillBackward2", ("self",), None, self=lambda g: zeros_like(g))
FILL_TENSOR = defop("FillBackward3", ("self", "value"), None, self=lambda g: zeros_like(g), value=lambda g: g.sum())
ZERO = defop("ZeroBackward0", ("self",), None, self=lambda g: zeros_like(g))


# ------------------------------------------------------------------ creation helpers used by formulas

def zeros(shape: Sequence, dtype: Optional[DType] = None) -> Tensor:
    dtype = dtype or dtypes.get_default_dtype()
    return Tensor._make(np.zeros(tuple(shape), dtype=dtype.numpy), dtype)


def zeros_like(a: Tensor, dtype: Optional[DType] = None) -> Tensor:
    dtype = dtype or a._dtype
    return Tensor._make(np.zeros(a.shape, dtype=dtype.numpy), dtype)


def ones_like(a: Tensor, dtype: Optional[DType] = None) -> Tensor:
    dtype = dtype or a._dtype
    return Tensor._make(np.ones(a.shape, dtype=dtype.numpy), dtype)


# ------------------------------------------------------------------ losses

MSE_LOSS = defop("MseLossBackward0", ("self", "target"), None,
                 self=lambda g, self, target, reduction: _mse_grad(g, self, target, reduction),
                 target=lambda g, self, target, reduction: -_mse_grad(g, self, target, reduction))


def _mse_grad(g: Tensor, self: Tensor, target: Tensor, reduction: str) -> Tensor:
    scale = 2.0 / self.numel() if reduction == "mean" else 2.0
    return scale * (self - target) * g


def mse_loss(input: Tensor, target: Tensor, reduction: str = "mean") -> Tensor:
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    if reduction == "none":
        return (input - target).pow(2)
    dtype = dtypes.result_type([input, target])
    x, y = _arrays((input, target), dtype)
    x, y = np.broadcast_arrays(x, y)
    squared = (x - y) ** 2
    data = squared.mean() if reduction == "mean" else squared.sum()
    return record(MSE_LOSS, (input, target), np.asarray(data, dtype=dtype.numpy), dtype, reduction=reduction)


def l1_loss(input: Tensor, target: Tensor, reduction: str = "mean") -> Tensor:
    difference = (input - target).abs()
    if reduction == "mean":
        return difference.mean()
    if reduction == "sum":
        return difference.sum()
    if reduction == "none":
        return difference
    raise ValueError(f"{reduction} is not a valid value for reduction")


# ------------------------------------------------------------------ methods on Tensor

def _reflected(function: Callable) -> Callable:
    def method(a: Tensor, other: Any) -> Any:
        if not isinstance(other, (Tensor, bool, int, float, complex)):
            return NotImplemented
        return function(a, other)

    return method


def _to(a: Tensor, *args: Any, **kwargs: Any) -> Tensor:
    from .tensor import to_arguments
    dtype, copy = to_arguments(args, kwargs)
    return to_dtype(a, dtype, copy) if dtype is not None else a


def _cast(dtype: DType) -> Callable:
    def method(a: Tensor) -> Tensor:
        return to_dtype(a, dtype)

    return method


METHODS = {
    "add": add, "sub": sub, "subtract": sub, "mul": mul, "multiply": mul, "div": div, "divide": div,
    "true_divide": div, "pow": pow, "neg": neg, "negative": neg, "reciprocal": reciprocal,
    "remainder": remainder, "floor_divide": floor_divide,
    "exp": exp, "log": log, "log2": log2, "log10": log10, "log1p": log1p, "expm1": expm1, "sin": sin, "cos": cos,
    "tan": tan, "tanh": tanh, "sigmoid": sigmoid, "sqrt": sqrt, "rsqrt": rsqrt, "abs": abs, "absolute": abs,
    "relu": relu, "asin": asin, "acos": acos, "atan": atan, "sinh": sinh, "cosh": cosh, "conj": conj,
    "sign": sign, "sgn": sgn, "clamp": clamp, "clip": clamp,
    "clamp_min": lambda a, min: clamp(a, min=min), "clamp_max": lambda a, max: clamp(a, max=max),
    "equal": equal, "isclose": isclose, "allclose": allclose, "eq": eq, "ne": ne, "lt": lt, "le": le, "gt": gt, "ge": ge, "logical_and": logical_and,
    "logical_or": logical_or, "logical_not": logical_not,
    "sum": sum, "mean": mean, "prod": prod, "max": max, "min": min, "amax": amax, "amin": amin, "argmax": argmax,
    "argmin": argmin, "any": any, "all": all, "maximum": maximum, "minimum": minimum,
    "dot": dot, "mv": mv, "mm": mm, "bmm": bmm, "matmul": matmul,
    "clone": clone, "to": _to, "float": _cast(dtypes.float32), "double": _cast(dtypes.float64),
    "half": _cast(dtypes.float16), "long": _cast(dtypes.int64), "int": _cast(dtypes.int32),
    "bool": _cast(dtypes.bool_), "short": _cast(dtypes.int16), "byte": _cast(dtypes.uint8),
    "view": view, "reshape": reshape, "flatten": flatten, "t": t, "transpose": transpose, "permute": permute,
    "unsqueeze": unsqueeze, "squeeze": squeeze, "expand": expand, "sum_to_size": sum_to_size,
    "select": select, "narrow": narrow, "unbind": unbind, "split": split, "chunk": chunk, "gather": gather,
    "view_as": lambda a, other: view(a, other.shape), "reshape_as": lambda a, other: reshape(a, other.shape),
    "expand_as": lambda a, other: expand(a, other.shape),
    "contiguous": lambda a, memory_format=None: a if a.is_contiguous() else clone(a),
    "copy_": copy_, "zero_": zero_, "fill_": fill_,
    "masked_fill": masked_fill, "__getitem__": getitem, "__setitem__": setitem,
    "__add__": _reflected(add), "__radd__": _reflected(add), "__sub__": _reflected(sub),
    "__rsub__": _reflected(rsub), "__mul__": _reflected(mul), "__rmul__": _reflected(mul),
    "__truediv__": _reflected(div), "__rtruediv__": _reflected(rdiv), "__pow__": _reflected(pow),
    "__rpow__": _reflected(rpow), "__matmul__": lambda a, b: matmul(a, b) if isinstance(b, Tensor) else NotImplemented, "__rmatmul__": lambda a, b: matmul(b, a) if isinstance(b, Tensor) else NotImplemented,
    "__floordiv__": _reflected(floor_divide), "__rfloordiv__": _reflected(lambda a, b: floor_divide(b, a)),
    "__mod__": _reflected(remainder), "__rmod__": _reflected(lambda a, b: remainder(b, a)),
    "__neg__": neg, "__pos__": lambda a: a, "__abs__": abs, "__invert__": lambda a: logical_not(a)
    if a._dtype is dtypes.bool_ else bitwise_not(a),
    "__and__": _reflected(bitwise_and), "__rand__": _reflected(bitwise_and), "__or__": _reflected(bitwise_or),
    "__ror__": _reflected(bitwise_or), "__xor__": _reflected(bitwise_xor), "__rxor__": _reflected(bitwise_xor),
    "__lshift__": _reflected(bitwise_left_shift), "__rlshift__": _reflected(lambda a, b: bitwise_left_shift(b, a)),
    "__rshift__": _reflected(bitwise_right_shift), "__rrshift__": _reflected(lambda a, b: bitwise_right_shift(b, a)),
    "__eq__": eq, "__ne__": ne, "__lt__": lt, "__le__": le, "__gt__": gt, "__ge__": ge,
}

INPLACE = {"masked_fill": masked_fill, "add": add, "sub": sub, "mul": mul, "div": div, "pow": pow, "neg": neg, "exp": exp,
           "log": log, "sin": sin, "cos": cos, "tanh": tanh, "sigmoid": sigmoid, "sqrt": sqrt, "abs": abs,
           "relu": relu, "clamp": clamp, "clamp_min": METHODS["clamp_min"], "clamp_max": METHODS["clamp_max"],
           "reciprocal": reciprocal, "remainder": remainder, "floor_divide": floor_divide}
AUGMENTED = {"__iadd__": "add", "__isub__": "sub", "__imul__": "mul", "__itruediv__": "div", "__ipow__": "pow",
             "__imod__": "remainder", "__ifloordiv__": "floor_divide"}


def install_methods(cls: type) -> None:
    for name, function in METHODS.items():
        setattr(cls, name, function)
    for name, function in INPLACE.items():
        # masked_fill_ reads its value as a number: no overlap with it to check
        setattr(cls, name + "_", inplace(function, overlap_checked=name != "masked_fill"))
    for dunder, name in AUGMENTED.items():
        setattr(cls, dunder, _reflected(inplace(INPLACE[name])))


subtract, multiply, divide, true_divide, negative, absolute, clip = sub, mul, div, div, neg, abs, clamp


# The functions torch exposes at the top level (torch.exp(x), torch.stack([...]), ...).
TORCH_FUNCTIONS = [
    "add", "sub", "subtract", "mul", "multiply", "div", "divide", "true_divide", "pow", "neg", "negative",
    "reciprocal", "remainder", "floor_divide", "exp", "log", "log2", "log10", "log1p", "expm1", "sin", "cos",
    "tan", "tanh", "sigmoid", "sqrt", "rsqrt", "abs", "absolute", "relu", "asin", "acos", "atan", "sinh", "cosh",
    "conj", "sign", "sgn", "clamp", "clip", "equal", "isclose", "allclose", "eq", "ne", "lt", "le", "gt", "ge", "logical_and", "logical_or",
    "logical_not", "sum", "mean", "prod", "max", "min", "amax", "amin", "argmax", "argmin", "any", "all",
    "maximum", "minimum", "dot", "mv", "mm", "bmm", "matmul", "addmm", "clone", "detach", "reshape", "flatten",
    "t", "transpose", "permute", "unsqueeze", "squeeze", "select", "narrow", "unbind", "split", "chunk", "gather", "stack", "cat",
    "where", "real", "imag", "masked_fill",
]


# ---- nn ops

# `x.squeeze_(0)` on a fresh result: what matmul and nn.Linear do to a 1-D input's row.
SQUEEZE_INPLACE = defop("SqueezeBackward4", ("self",), None, self=lambda g, self_shape: g.reshape(self_shape))
LEAKY_RELU = defop("LeakyReluBackward0", ("self",), None,
                   self=lambda g, self, negative_slope: where(self > 0, g, g * negative_slope))
LEAKY_RELU_INPLACE = defop("LeakyReluBackward1", ("self",), None,
                           self=lambda g, result, negative_slope: where(result > 0, g, g * negative_slope))
SOFTMAX = defop("SoftmaxBackward0", ("self",), None,
                self=lambda g, result, dim: softmax_backward_data(g, result, dim, log=False))
LOG_SOFTMAX = defop("LogSoftmaxBackward0", ("self",), None,
                    self=lambda g, result, dim: softmax_backward_data(g, result, dim, log=True))
# The gradients of those gradients, for create_graph=True.
SOFTMAX_BACKWARD_DATA = defop(
    "SoftmaxBackwardDataBackward0", ("grad_output", "output"), None,
    grad_output=lambda g, output, dim: softmax_backward_data(g, output, dim, log=False),
    output=lambda g, grad_output, output, dim: (grad_output * g - (output * grad_output).sum(dim, keepdim=True) * g
                                                - grad_output * (output * g).sum(dim, keepdim=True)))
LOG_SOFTMAX_BACKWARD_DATA = defop(
    "LogSoftmaxBackwardDataBackward0", ("grad_output", "output"), None,
    grad_output=lambda g, output, dim: g - (g * output.exp()).sum(dim, keepdim=True),
    output=lambda g, grad_output, output, dim: -grad_output.sum(dim, keepdim=True) * output.exp() * g)

# Lanes of a SIMD register in PyTorch's CPU kernels (AVX512: 64 bytes).
VECTOR_BYTES = 64


def lane_sum(values: np.ndarray) -> np.ndarray:
    """Sum over the last axis as at::vec::reduce_all adds: a running sum for fewer elements than
    one register holds; otherwise one running sum per lane, then a pairwise fold of the lanes."""
    lanes = VECTOR_BYTES // values.dtype.itemsize
    size = values.shape[-1]
    if size < lanes:
        return np.add.accumulate(values, axis=-1)[..., -1]
    acc = values[..., :lanes].copy()
    full = size - size % lanes
    for start in range(lanes, full, lanes):
        acc += values[..., start:start + lanes]
    if full < size:
        acc[..., :size - full] += values[..., full:]
    while lanes > 1:
        lanes //= 2
        acc = acc[..., :lanes] + acc[..., lanes:2 * lanes]
    return acc[..., 0]


def _fused_multiply_add(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    """a * b + c rounded once, as the FMA instructions of PyTorch's single-precision kernels."""
    if a.dtype != np.float32:
        return a * b + c
    return (a.astype(np.float64) * b.astype(np.float64) + c.astype(np.float64)).astype(np.float32)


# SLEEF's single-precision exp (expf_u10), which PyTorch's vectorised CPU kernels call.
_SLEEF_EXPF = tuple(np.float32(c) for c in (
    0.000198527617612853646278381, 0.00139304355252534151077271, 0.00833336077630519866943359,
    0.0416664853692054748535156, 0.166666671633720397949219, 0.5))


def vector_exp(x: np.ndarray) -> np.ndarray:
    """exp as PyTorch's vectorised kernels compute it: SLEEF's algorithm for float32, bit for bit;
    for other dtypes numpy's (correctly rounded in practice)."""
    if x.dtype != np.float32:
        return np.exp(x)
    with np.errstate(all="ignore"):
        q = np.rint(x * np.float32(1.442695040888963407359924681)).astype(np.int32)
        qf = q.astype(np.float32)
        s = _fused_multiply_add(qf, np.float32(-0.693145751953125), x)
        s = _fused_multiply_add(qf, np.float32(-1.428606765330187045e-06), s)
        u = np.full(x.shape, _SLEEF_EXPF[0], dtype=np.float32)
        for c in _SLEEF_EXPF[1:]:
            u = _fused_multiply_add(u, s, np.float32(c))
        u = np.float32(1) + _fused_multiply_add(s * s, u, s)
        half = q >> 1
        u = u * np.ldexp(np.float32(1), half).astype(np.float32) * np.ldexp(np.float32(1), q - half).astype(np.float32)
        u = np.where(x < -104, np.float32(0), u)
        return np.where(x > 100, np.float32(np.inf), u).astype(np.float32)


def kernel_exp(values: np.ndarray, inner_shape: tuple) -> np.ndarray:
    """exp in PyTorch's kernels along a dim that is not the last: `values` is laid out as
    (outer..., inner..., dim); whole registers of inner positions take the SIMD exp, the
    positions left over the C library's (correctly rounded in practice)."""
    inner = int(np.prod(inner_shape, dtype=np.int64))
    full = inner - inner % (VECTOR_BYTES // values.dtype.itemsize)
    simd = (np.arange(inner).reshape(inner_shape) < full)[..., None]
    scalar = np.exp(values.astype(np.float64)).astype(values.dtype)
    return np.where(simd, vector_exp(values), scalar)


def softmax_backward_data(grad: Tensor, output: Tensor, dim: int, log: bool) -> Tensor:
    """The gradient of (log_)softmax from its output: (g - sum(g * y)) * y, or g - exp(y) * sum(g),
    computed in the order of PyTorch's kernel, since it often is a difference of nearly equal numbers."""
    shape = output.shape
    op = LOG_SOFTMAX_BACKWARD_DATA if log else SOFTMAX_BACKWARD_DATA
    if output.numel() == 0:
        return record(op, (grad, output), np.zeros(shape, dtype=output._dtype.numpy), output._dtype, dim=dim)
    y = np.moveaxis(output._data.reshape(shape or (1,)), dim, -1)
    g = np.moveaxis(grad._data.astype(output._dtype.numpy, copy=False).reshape(shape or (1,)), dim, -1)
    last = dim == builtins.max(output.ndim - 1, 0)
    if last:
        total = lane_sum(g if log else g * y)[..., None]
    elif log:
        total = np.add.accumulate(g, axis=-1)[..., -1:]
    else:
        # a running sum of fused products along the softmax dim
        total = np.zeros(y.shape[:-1], dtype=y.dtype)
        for i in range(y.shape[-1]):
            total = _fused_multiply_add(g[..., i], y[..., i], total)
        total = total[..., None]
    if log:
        exp_y = vector_exp(y) if last else kernel_exp(y, shape[dim + 1:])
        out = _fused_multiply_add(-exp_y, total, g)
    else:
        out = (g - total) * y
    data = np.ascontiguousarray(np.moveaxis(out, -1, dim)).reshape(shape)
    return record(op, (grad, output), data, output._dtype, dim=dim)


# ---- norms, standard deviation and variance

NORM = defop("LinalgVectorNormBackward0", ("self",), None,
             self=lambda g, self, result, ord, dims, keepdim: _norm_grad(g, self, result, ord, dims, keepdim))
STD = defop("StdBackward0", ("self",), None,
            self=lambda g, self, result, dims, correction, keepdim: _var_grad(
                (g / (result * 2)).masked_fill(result == 0, 0), self, dims, correction, keepdim))
VAR = defop("VarBackward0", ("self",), None,
            self=lambda g, self, dims, correction, keepdim: _var_grad(g, self, dims, correction, keepdim))


def _unsqueeze_reduced(t: Tensor, dims: Optional[tuple], ndim: int, keepdim: bool) -> Tensor:
    """A reduction's result with its reduced dims put back (as size 1), to broadcast against its input."""
    if keepdim or dims is None or ndim == 0:
        return t
    for d in sorted(dims):
        t = t.unsqueeze(d)
    return t


def _norm_grad(g: Tensor, self: Tensor, result: Tensor, ord: float, dims: Optional[tuple], keepdim: bool) -> Tensor:
    # PyTorch's norm_backward, one branch per order
    g, result = (_unsqueeze_reduced(t, dims, self.ndim, keepdim) for t in (g, result))
    if ord == 0:
        return zeros_like(self)
    if ord == 1:
        return sgn(self) * g
    if ord == 2:
        return g * (self / result).masked_fill(result == 0, 0)
    if math.isinf(ord):
        self_abs = self.abs()
        mask = logical_or(self_abs == result, self_abs != self_abs)
        counts = mask.sum(dims, keepdim=True) if dims is not None else mask.sum()
        return sgn(self) * ((g / counts) * mask)
    if ord < 1:
        scaled = sgn(self) * self.abs().pow(ord - 1).masked_fill(self == 0, 0)
        return scaled * g * result.pow(1 - ord)
    scaled = sgn(self) * self.abs().pow(ord - 1) if ord < 2 else self * self.abs().pow(ord - 2)
    return scaled * (g / result.pow(ord - 1)).masked_fill(result == 0, 0)


def _var_grad(g: Tensor, self: Tensor, dims: Optional[tuple], correction: float, keepdim: bool) -> Tensor:
    # PyTorch's var_backward: (2 / (n - correction)) * grad * (self - mean)
    if self.ndim == 0 or dims is None:
        dof = self.numel() - correction
        if dof <= 0:
            return g * where(self == self.mean(), math.nan, math.inf)
        return (2.0 / dof) * g * (self - self.mean())
    if self.ndim > 1:
        g = _unsqueeze_reduced(g, dims, self.ndim, keepdim)
    count = int(np.prod([self.shape[d] for d in dims]))
    dof = count - correction
    scale = 2.0 / dof if dof else math.inf  # a C++ double division: no degrees of freedom give inf
    return scale * g * (self - self.mean(dims, keepdim=True))


def norm(a: Tensor, p: Any = "fro", dim: Any = None, keepdim: bool = False, dtype: Optional[DType] = None) -> Tensor:
    """torch.norm: a vector norm (p='fro' is the 2-norm), recorded as linalg.vector_norm."""
    if isinstance(p, str):
        if p != "fro" or (isinstance(dim, (tuple, list)) and len(dim) > 2):
            raise NotImplementedError(f"gradcalc supports vector norms only, not p='{p}'")
        p = 2
    return vector_norm(a, 2.0 if p is None else p, dim, keepdim, dtype=dtype)


def vector_norm(a: Tensor, ord: Any = 2, dim: Any = None, keepdim: bool = False, dtype: Optional[DType] = None) -> Tensor:
    if a._dtype.category < dtypes.FLOATING:
        raise RuntimeError("linalg.vector_norm: Expected a floating point or complex tensor as input. Got "
                           f"{_c10_short(a._dtype)}")
    out_dtype = dtype or (dtypes.float32 if a._dtype is dtypes.complex64 else
                          dtypes.float64 if a._dtype is dtypes.complex128 else a._dtype)
    dims = _normalize_dims(dim, a.ndim)
    axes = tuple(range(a.ndim)) if dims is None else dims
    magnitude = np.abs(a._data)
    ord = float(ord)
    reduced_shape = np.sum(magnitude, axis=axes, keepdims=keepdim).shape
    # the reduced elements of each output along the last axis, in the order the kernel visits them
    moved = np.moveaxis(magnitude, axes, range(-len(axes), 0)) if axes else magnitude[..., None]
    rows = moved.reshape(moved.shape[:moved.ndim - len(axes)] + (-1,)) if axes else moved
    if ord == 1 or (ord == 2 and magnitude.dtype.type is np.float32 and rows.shape[-1]):
        last = axes == (a.ndim - 1,) or len(axes) == a.ndim
        data = _norm2_rows(rows, contiguous=last and a.is_contiguous()) if ord == 2 else (
            np.cumsum(rows, axis=-1)[..., -1] if rows.shape[-1] else np.zeros(rows.shape[:-1], rows.dtype))
        data = data.reshape(reduced_shape)
    elif math.isinf(ord):
        reduce = np.max if ord > 0 else np.min
        data = reduce(magnitude, axis=axes, keepdims=keepdim) if magnitude.size else np.full(
            np.sum(magnitude, axis=axes, keepdims=keepdim).shape, 0.0 if ord > 0 else math.inf)
    elif ord == 0:
        data = np.sum(magnitude != 0, axis=axes, keepdims=keepdim)
    else:
        wide = magnitude.astype(np.float64)
        data = np.power(np.sum(np.power(wide, ord), axis=axes, keepdims=keepdim), 1.0 / ord)
    data = np.asarray(data, dtype=out_dtype.numpy)
    source = a if dtype is None or a._dtype is dtype else a.to(dtype)
    return record(NORM, (source,), data, out_dtype, ord=ord, dims=dims, keepdim=keepdim)


def _norm2_rows(rows: np.ndarray, contiguous: bool) -> np.ndarray:
    """The float32 2-norm of each row (last axis). Along contiguous memory PyTorch's kernel squares
    eight at a time into eight running sums, adds those in order, then fuses in the leftover
    squares; otherwise it keeps one running sum per output."""
    if not contiguous:
        total = np.zeros(rows.shape[:-1], rows.dtype)
        for k in range(rows.shape[-1]):
            total = total + rows[..., k] * rows[..., k]
        return np.sqrt(total)
    lanes, size = 8, rows.shape[-1]
    full = size - size % lanes
    acc = np.zeros(rows.shape[:-1] + (lanes,), rows.dtype)
    for start in range(0, full, lanes):
        block = rows[..., start:start + lanes]
        acc = acc + block * block
    total = acc[..., 0]
    for k in range(1, lanes):
        total = total + acc[..., k]
    for k in range(full, size):
        total = kernels.fused_multiply_add(rows[..., k], rows[..., k], total)
    return np.sqrt(total)


def _std_var(a: Tensor, dim: Any, unbiased: Any, keepdim: bool, correction: Any, take_sqrt: bool) -> Tensor:
    name = "std" if take_sqrt else "var"
    if isinstance(dim, bool):  # std(unbiased) and var(unbiased): the flag comes first
        dim, unbiased = None, dim
    if correction is None:
        correction = 0 if unbiased is False else 1
    if a._dtype.category < dtypes.FLOATING:
        raise RuntimeError("std and var only support floating point and complex dtypes")
    dims = _normalize_dims(dim, a.ndim)
    axes = tuple(range(a.ndim)) if dims is None else dims
    count = int(np.prod([a.shape[d] for d in axes])) if axes else 1
    if count - correction <= 0:
        warn("UserWarning", f"{name}(): degrees of freedom is <= 0. Correction should be strictly less than the "
                            "reduction factor (input numel divided by output numel).")
    wide = a._data.astype(np.float64)
    if len(axes) == a.ndim:
        # all dimensions: the tensor's own mean, then squared deviations summed in double precision
        deviation = wide - float(mean(a.detach()).item())
        squares = np.cumsum((deviation * deviation).reshape(-1))
        total = np.full(np.sum(wide, axis=axes, keepdims=keepdim).shape, squares[-1] if squares.size else 0.0)
    else:
        # Welford's running mean and sum of squared deviations, in double precision
        moved = np.moveaxis(wide, axes, range(-len(axes), 0))
        rows = moved.reshape(moved.shape[:moved.ndim - len(axes)] + (count,))  # not -1: sizes may be 0
        running, total = np.zeros(rows.shape[:-1]), np.zeros(rows.shape[:-1])
        for k in range(rows.shape[-1]):
            delta = rows[..., k] - running
            running = running + delta / (k + 1)
            total = total + delta * (rows[..., k] - running)
        total = total.reshape(np.sum(wide, axis=axes, keepdims=keepdim).shape)
    with np.errstate(all="ignore"):
        result = total / builtins.max(0, count - correction)
        data = np.asarray(np.sqrt(result) if take_sqrt else result, dtype=a._dtype.numpy)
    op = STD if take_sqrt else VAR
    return record(op, (a,), data, a._dtype, dims=dims, correction=correction, keepdim=keepdim)


def std(a: Tensor, dim: Any = None, unbiased: Any = None, keepdim: bool = False, *, correction: Any = None) -> Tensor:
    return _std_var(a, dim, unbiased, keepdim, correction, take_sqrt=True)


def var(a: Tensor, dim: Any = None, unbiased: Any = None, keepdim: bool = False, *, correction: Any = None) -> Tensor:
    return _std_var(a, dim, unbiased, keepdim, correction, take_sqrt=False)


def square(a: Tensor) -> Tensor:
    return pow(a, 2)


# ---- classification losses

LOG_SIGMOID = defop("LogSigmoidBackward0", ("self",), None, self=lambda g, self: g * _log_sigmoid_slope(self))
BCE = defop("BinaryCrossEntropyBackward0", ("self", "target"), None, freed=("weight",),
            self=lambda g, self, target, weight, reduction: _loss_scale(
                g * (self - target) / ((1 - self) * self).clamp_min(_BCE_EPSILON), weight, reduction, self),
            target=lambda g, self, target, weight, reduction: _loss_scale(
                (self / (1 - self)).log().neg() * g, weight, reduction, target))
BCE_WITH_LOGITS = defop(
    "BinaryCrossEntropyWithLogitsBackward0", ("self", "target"), None, freed=("weight", "pos_weight"),
    self=lambda g, self, target, weight, pos_weight, reduction: _loss_scale(
        _bce_logits_slope(self, target, pos_weight) * g, weight, reduction, self),
    target=lambda g, self, target, weight, pos_weight, reduction: _loss_scale(
        -self * g if pos_weight is None else (log_sigmoid(-self) - log_sigmoid(self) * pos_weight) * g,
        weight, reduction, target))
NLL_LOSS = defop("NllLossBackward0", ("self",), None, freed=("target", "weight", "total_weight"),
                 self=lambda g, self, target, weight, reduction, ignore_index, total_weight: _nll_grad(
                     g, self, target, weight, reduction, ignore_index, total_weight))

# PyTorch's lower bound on x (1 - x) in the gradient of binary cross-entropy
_BCE_EPSILON = 1e-12


def _log_sigmoid_slope(x: Tensor) -> Tensor:
    # d/dx log(sigmoid(x)) from z = exp(-|x|), as PyTorch's kernel writes it
    z = (-x.abs()).exp()
    ratio = z / (1 + z)
    return where(x < 0, 1 - ratio, ratio)


def _bce_logits_slope(x: Tensor, target: Tensor, pos_weight: Optional[Tensor]) -> Tensor:
    if pos_weight is None:
        return x.sigmoid() - target
    weighted = pos_weight * target
    return (weighted + 1 - target) * x.sigmoid() - weighted


def _loss_scale(grad: Tensor, weight: Optional[Tensor], reduction: str, like: Tensor) -> Tensor:
    """The steps every elementwise loss gradient ends with: the weight, then the mean's division."""
    if weight is not None:
        grad = grad * weight
    return grad / like.numel() if reduction == "mean" else grad


def _nll_grad(g: Tensor, self: Tensor, target: np.ndarray, weight: Optional[Tensor], reduction: str,
              ignore_index: int, total_weight: float) -> Tensor:
    """-weight[t] * grad at each row's target class (divided by the total weight for a mean), zero elsewhere."""
    rows = target.reshape(-1)
    kept = rows != ignore_index
    classes = np.where(kept, rows, 0)
    scale = (np.ones(rows.shape, self._dtype.numpy) if weight is None else weight._data[classes]) * kept
    scale = Tensor._make(np.asarray(scale, dtype=self._dtype.numpy), self._dtype)
    if reduction == "none" and self.ndim == 2:
        coefficient = -scale * g
    else:
        coefficient = scale * -(g / total_weight if reduction == "mean" else g)
    if self.ndim == 1:
        return scatter(zeros(self.shape, dtype=g.dtype), 0, classes, coefficient.reshape(1))
    return scatter(zeros(self.shape, dtype=g.dtype), 1, classes[:, None], coefficient.reshape(-1, 1))


def log_sigmoid(a: Tensor) -> Tensor:
    """log(sigmoid(x)) = min(x, 0) - log1p(exp(-|x|)), with SLEEF's exp as PyTorch's kernel."""
    x = a._data
    exp = vector_exp(-np.abs(x)) if x.dtype == np.float32 else np.exp(-np.abs(x))
    log1p = np.log1p(exp.astype(np.float64)).astype(x.dtype)
    return record(LOG_SIGMOID, (a,), np.asarray(np.minimum(x, 0) - log1p, dtype=x.dtype), a._dtype)


def _reduce_loss(loss: np.ndarray, reduction: str) -> np.ndarray:
    if reduction == "none":
        return loss
    total = _sum_data(loss, None, False)
    return total / np.asarray(loss.size, dtype=loss.dtype) if reduction == "mean" else total


def binary_cross_entropy(input: Tensor, target: Tensor, weight: Optional[Tensor], reduction: str) -> Tensor:
    x, t = input._data, target._data
    bad_input = ~((x >= 0) & (x <= 1))
    bad_target = ~((t >= 0) & (t <= 1))
    bad = np.flatnonzero((bad_input | bad_target).reshape(-1))
    if bad.size:
        which = "input" if bad_input.reshape(-1)[bad[0]] else "target"
        raise RuntimeError(f"all elements of {which} should be between 0 and 1")
    one, floor = x.dtype.type(1), x.dtype.type(-100)
    wide = x.astype(np.float64)
    log_x = np.maximum(np.log(wide).astype(x.dtype), floor)
    log_rest = np.maximum(np.log1p(-wide).astype(x.dtype), floor)
    loss = (t - one) * log_rest - t * log_x
    if weight is not None:
        loss = loss * weight._data
    data = np.asarray(_reduce_loss(loss, reduction), dtype=x.dtype)
    return record(BCE, (input, target), data, input._dtype, weight=weight, reduction=reduction)


def binary_cross_entropy_with_logits(input: Tensor, target: Tensor, weight: Optional[Tensor],
                                     pos_weight: Optional[Tensor], reduction: str) -> Tensor:
    with grad_mode.no_grad():
        log_sig = log_sigmoid(input)._data
        if pos_weight is not None:
            log_sig = log_sig * ((pos_weight._data - 1) * target._data + 1)
        loss = (1 - target._data) * input._data - log_sig
        if weight is not None:
            loss = loss * weight._data
    data = np.asarray(_reduce_loss(loss.astype(input._data.dtype, copy=False), reduction), dtype=input._dtype.numpy)
    return record(BCE_WITH_LOGITS, (input, target), data, input._dtype, weight=weight, pos_weight=pos_weight,
                  reduction=reduction)


def nll_loss(input: Tensor, target: Tensor, weight: Optional[Tensor], reduction: str, ignore_index: int) -> Tensor:
    """PyTorch's CPU nll_loss: -input[i, target[i]], summed by its eight-level cascade."""
    x = input._data if input.ndim == 2 else input._data.reshape(1, -1)
    rows = target._data.reshape(-1)
    classes = x.shape[1]
    kind = x.dtype.type
    for row in rows:
        if row != ignore_index and not 0 <= row < classes:
            raise IndexError(f"Target {row} is out of bounds.")
    kept = rows != ignore_index
    picked = x[np.arange(rows.size), np.where(kept, rows, 0)]
    weights = np.ones(rows.size, x.dtype) if weight is None else weight._data[np.where(kept, rows, 0)]
    if reduction == "none" and input.ndim == 2:
        data = np.where(kept, -picked * weights if weight is not None else -picked, kind(0))
        return record(NLL_LOSS, (input,), np.asarray(data, dtype=x.dtype), input._dtype, target=target._data,
                      weight=weight, reduction=reduction, ignore_index=ignore_index, total_weight=0.0)
    levels, power = 8, builtins.max(4, kernels.ceil_log2(rows.size) // 8)
    mask = (1 << power) - 1
    loss_sums, weight_sums = [kind(0)] * levels, [kind(0)] * levels
    for b in range(rows.size):
        if not kept[b]:
            continue
        if weight is None:
            loss_sums[0] = kind(loss_sums[0] - picked[b])
        else:
            loss_sums[0] = kind(loss_sums[0] - kind(picked[b] * weights[b]))
            weight_sums[0] = kind(weight_sums[0] + weights[b])
        for j in range(levels - 1):
            if b & (mask << (j * power)):
                break
            loss_sums[j + 1], loss_sums[j] = kind(loss_sums[j + 1] + loss_sums[j]), kind(0)
            weight_sums[j + 1], weight_sums[j] = kind(weight_sums[j + 1] + weight_sums[j]), kind(0)
    total = kind(0)
    total_weight = kind(int(kept.sum())) if weight is None else kind(0)
    for j in range(levels):
        total = kind(total + loss_sums[j])
        if weight is not None:
            total_weight = kind(total_weight + weight_sums[j])
    if reduction == "mean":
        with np.errstate(all="ignore"):
            total = kind(total / total_weight)
    return record(NLL_LOSS, (input,), np.asarray(total, dtype=x.dtype), input._dtype, target=target._data,
                  weight=weight, reduction=reduction, ignore_index=ignore_index, total_weight=float(total_weight))


# ---- rounding (piecewise constant: a zero gradient)

ROUND = defop("RoundBackward0", ("self",), None, self=lambda g: zeros_like(g))
ROUND_DECIMALS = defop("RoundBackward1", ("self",), None, self=lambda g: zeros_like(g))
FLOOR = defop("FloorBackward0", ("self",), None, self=lambda g: zeros_like(g))
CEIL = defop("CeilBackward0", ("self",), None, self=lambda g: zeros_like(g))


def round(a: Tensor, decimals: int = 0) -> Tensor:
    # halves to even, as nearbyint; with decimals, scaled by 10 ** decimals in the tensor's dtype and back
    x = a._data
    _check_not_bool("round_vml_cpu", a)
    if a._dtype.category < dtypes.FLOATING:
        return record(ROUND, (a,), x.copy(), a._dtype)
    if decimals == 0:
        return record(ROUND, (a,), np.rint(x), a._dtype)
    scale = np.asarray(10.0 ** builtins.abs(decimals), dtype=x.dtype)
    data = np.rint(x * scale) / scale if decimals > 0 else np.rint(x / scale) * scale
    return record(ROUND_DECIMALS, (a,), np.asarray(data, dtype=x.dtype), a._dtype, decimals=decimals)


def floor(a: Tensor) -> Tensor:
    _check_not_bool("floor_vml_cpu", a)
    return record(FLOOR, (a,), np.floor(a._data) if a._dtype.category >= dtypes.FLOATING else a._data.copy(), a._dtype)


def ceil(a: Tensor) -> Tensor:
    _check_not_bool("ceil_vml_cpu", a)
    return record(CEIL, (a,), np.ceil(a._data) if a._dtype.category >= dtypes.FLOATING else a._data.copy(), a._dtype)


TRUNC = defop("TruncBackward0", ("self",), None, self=lambda g: zeros_like(g))
FRAC = defop("FracBackward0", ("self",), None, self=lambda g: g)


def trunc(a: Tensor) -> Tensor:
    _check_not_bool("trunc_vml_cpu", a)
    return record(TRUNC, (a,), np.trunc(a._data) if a._dtype.category >= dtypes.FLOATING else a._data.copy(), a._dtype)


def frac(a: Tensor) -> Tensor:
    if a._dtype.category < dtypes.FLOATING:
        raise NotImplementedError(f'"frac_cpu" not implemented for \'{_c10_short(a._dtype)}\'')
    return record(FRAC, (a,), a._data - np.trunc(a._data), a._dtype)


def isnan(a: Tensor) -> Tensor:
    return Tensor._make(np.isnan(a._data) if a._dtype.category >= dtypes.FLOATING else np.zeros(a.shape, bool),
                        dtypes.bool_)


# cumsum's gradient is the reversed cumulative sum of the gradient, as PyTorch's cumsum_backward
CUMSUM = defop("CumsumBackward0", ("self",), None,
               self=lambda g, dim: g if g.numel() <= 1 or g.ndim == 0 or g.shape[dim] == 1
               else flip(cumsum(flip(g, dim), dim), dim))
FLIP = defop("FlipBackward0", ("self",), None, self=lambda g, dims: flip(g, dims))


def cumsum(a: Tensor, dim: int, dtype: Any = None) -> Tensor:
    d = _wrap_dim(dim, a.ndim)
    result = dtype or (dtypes.int64 if a._dtype.category <= dtypes.INTEGRAL else a._dtype)
    # PyTorch's CPU kernel accumulates floats in double, rounding each partial sum to the result dtype
    accumulate = np.float64 if result.category == dtypes.FLOATING else result.numpy
    data = np.cumsum(a._data.astype(accumulate), axis=d) if a.ndim else a._data.astype(accumulate)
    data = data + 0  # the running sum starts at 0, so no partial sum is -0.
    return record(CUMSUM, (a,), np.asarray(data, dtype=result.numpy), result, dim=d)


def flip(a: Tensor, *dims: Any) -> Tensor:
    if not dims:
        raise TypeError('flip() missing 1 required positional arguments: "dims"')
    wrapped = _normalize_dims(_shape_args(dims), a.ndim)
    return record(FLIP, (a,), np.flip(a._data, wrapped).copy() if a.ndim else a._data.copy(), a._dtype,
                  dims=wrapped)


EXP2 = defop("Exp2Backward0", ("self",), np.exp2, self=lambda g, result: g * result * math.log(2.0))
ERF = defop("ErfBackward0", ("self",), np.vectorize(math.erf, otypes=[np.float64]),
            self=lambda g, self: g * (-self * self).exp() * (2.0 / math.sqrt(math.pi)))
ATAN2 = defop("Atan2Backward0", ("self", "other"), np.arctan2,
              self=lambda g, self, other: g * other * (self * self + other * other).reciprocal(),
              other=lambda g, self, other: g * -self * (self * self + other * other).reciprocal())


def exp2(a: Tensor) -> Tensor:
    return _unary_float(EXP2, a)


def erf(a: Tensor) -> Tensor:
    return _unary_float(ERF, a)


def atan2(a: Tensor, other: Tensor) -> Tensor:
    _check_other_tensor(other, "atan2")
    dtype = dtypes.result_type([a, other])
    dtype = dtype if dtype.category >= dtypes.FLOATING else dtypes.get_default_dtype()
    _check_broadcast(a, other)
    # float32 through float64 and one rounding, as the other element-wise functions
    x, y = _arrays((a, other), dtypes.float64 if dtype in (dtypes.float32, dtypes.float16) else dtype)
    return record(ATAN2, (a, other), np.asarray(np.arctan2(x, y), dtype=dtype.numpy), dtype)


TRIL = defop("TrilBackward0", ("self",), None, self=lambda g, diagonal: tril(g, diagonal))
TRIU = defop("TriuBackward0", ("self",), None, self=lambda g, diagonal: triu(g, diagonal))


def tril(a: Tensor, diagonal: int = 0) -> Tensor:
    if a.ndim < 2:
        raise RuntimeError("tril: input tensor must have at least 2 dimensions")
    return record(TRIL, (a,), np.tril(a._data, diagonal), a._dtype, diagonal=diagonal)


def triu(a: Tensor, diagonal: int = 0) -> Tensor:
    if a.ndim < 2:
        raise RuntimeError("triu: input tensor must have at least 2 dimensions")
    return record(TRIU, (a,), np.triu(a._data, diagonal), a._dtype, diagonal=diagonal)


ROLL = defop("RollBackward0", ("self",), None,
             self=lambda g, shifts, dims: roll(g, tuple(-shift for shift in shifts), dims))


def roll(a: Tensor, shifts: Any, dims: Any = None) -> Tensor:
    shifts = tuple(shifts) if isinstance(shifts, (tuple, list)) else (shifts,)
    if dims is None:  # the flattened tensor rolls
        data = np.roll(a._data.reshape(-1), shifts).reshape(a.shape)
        return record(ROLL, (a,), data, a._dtype, shifts=shifts, dims=None)
    dims = tuple(dims) if isinstance(dims, (tuple, list)) else (dims,)
    wrapped = tuple(_wrap_dim(d, a.ndim) for d in dims)
    data = np.roll(a._data, shifts, wrapped) if a.ndim else a._data.copy()
    return record(ROLL, (a,), data, a._dtype, shifts=shifts, dims=wrapped)


def movedim(a: Tensor, source: Any, destination: Any) -> Tensor:
    """A permute (PyTorch records PermuteBackward0) that moves `source` dims to `destination`."""
    if a.ndim == 0:  # dims 0 and -1 name the tensor itself: nothing moves
        _wrap_dim(source if not isinstance(source, (tuple, list)) else 0, 0)
        return record(ALIAS, (a,), a._data.view(), a._dtype, view_of=a)
    sources = [_wrap_dim(d, a.ndim) for d in (source if isinstance(source, (tuple, list)) else (source,))]
    targets = [_wrap_dim(d, a.ndim) for d in (destination if isinstance(destination, (tuple, list)) else (destination,))]
    order = [d for d in range(a.ndim) if d not in sources]
    for target, source_dim in sorted(zip(targets, sources)):
        order.insert(target, source_dim)
    return permute(a, tuple(order))


def _repeat_grad(g: Tensor, repeats: tuple, self_shape: tuple) -> Tensor:
    """The sum of the gradient over the copies: each dim split into (copies, size), the copies summed."""
    padded = (1,) * (len(repeats) - len(self_shape)) + tuple(self_shape)
    split = tuple(n for pair in zip(repeats, padded) for n in pair)
    return g.reshape(split).sum(tuple(range(0, len(split), 2))).reshape(self_shape)


REPEAT = defop("RepeatBackward0", ("self",), None,
               self=lambda g, repeats, self_shape: _repeat_grad(g, repeats, self_shape))


def repeat(a: Tensor, *sizes: Any) -> Tensor:
    repeats = tuple(_shape_args(sizes))
    if len(repeats) < a.ndim:
        raise RuntimeError("Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor")
    padded = a._data.reshape((1,) * (len(repeats) - a.ndim) + a.shape)
    return record(REPEAT, (a,), np.tile(padded, repeats), a._dtype, repeats=repeats, self_shape=a.shape)


LOGSUMEXP = defop("LogsumexpBackward0", ("self",), None,
                  self=lambda g, self, result, dims, keepdim: _unsqueeze_reduced(g, dims, self.ndim, keepdim)
                  * (self - _unsqueeze_reduced(result, dims, self.ndim, keepdim)).exp())


def logsumexp(a: Tensor, dim: Any = None, keepdim: bool = False) -> Tensor:
    if dim is None:  # PyTorch's own wording for the missing argument
        raise TypeError('logsumexp() missing 1 required positional arguments: "dim"')
    dims = _normalize_dims(dim, a.ndim)
    dtype = a._dtype if a._dtype.category >= dtypes.FLOATING else dtypes.get_default_dtype()
    (x,) = _arrays((a,), dtype)
    # PyTorch's steps, each rounded in the dtype: the max (0 where infinite), exp of the
    # difference, its sum, then log plus the max
    axes = dims if a.ndim else ()
    peak = np.max(x, axis=axes, keepdims=True) if x.size else np.zeros((1,) * x.ndim, x.dtype)
    peak = np.where(np.isinf(peak), 0, peak).astype(x.dtype)
    with np.errstate(all="ignore"):
        shifted = np.exp(np.asarray(x - peak, dtype=np.float64)).astype(x.dtype)
        total = _sum_data(shifted, axes, keepdim=True)
        data = (np.log(np.asarray(total, dtype=np.float64)).astype(x.dtype) + peak).astype(x.dtype)
    if not keepdim:
        data = data.reshape(tuple(n for d, n in enumerate(x.shape) if d not in axes))
    return record(LOGSUMEXP, (a,), np.asarray(data), dtype, dims=dims, keepdim=keepdim)


# sort and topk pick values: their gradient goes back to where each value came from
SORT = defop("SortBackward0", ("self",), None, freed=("indices",),
             self=lambda g, self_shape, dim, indices: _scatter_back(g, self_shape, dim, True, indices))
SORT_STABLE = defop("SortBackward1", ("self",), None, freed=("indices",),
                    self=lambda g, self_shape, dim, indices: _scatter_back(g, self_shape, dim, True, indices))
TOPK = defop("TopkBackward0", ("self",), None, freed=("indices",),
             self=lambda g, self_shape, dim, indices: _scatter_back(g, self_shape, dim, True, indices))


def _sort_order(x: np.ndarray, dim: int, descending: bool) -> np.ndarray:
    """Stable order along dim, nan counted as the largest value (as PyTorch's sort)."""
    if not x.ndim:
        return np.zeros((), np.int64)
    moved = np.moveaxis(x, dim, -1)
    nan = np.isnan(moved) if moved.dtype.kind in "fc" else np.zeros(moved.shape, bool)
    value = np.where(nan, 0, moved) if moved.dtype.kind != "b" else moved.astype(np.int8)
    order = np.lexsort((-value, ~nan) if descending else (value, nan), axis=-1)
    return np.moveaxis(order, -1, dim)


def sort(a: Tensor, dim: int = -1, descending: bool = False, stable: bool = False) -> Any:
    d = _wrap_dim(dim, a.ndim)
    order = _sort_order(a._data, d, descending)
    values = np.take_along_axis(a._data, order, axis=d) if a.ndim else a._data.copy()
    out = record(SORT_STABLE if stable else SORT, (a,), values, a._dtype, self_shape=a.shape, dim=d, indices=order)
    return ReturnTypes("sort", out, Tensor._make(np.asarray(order, dtype=np.int64), dtypes.int64))


def argsort(a: Tensor, dim: int = -1, descending: bool = False, stable: bool = False) -> Tensor:
    order = _sort_order(a._data, _wrap_dim(dim, a.ndim), descending)
    return Tensor._make(np.asarray(order, dtype=np.int64), dtypes.int64)


def topk(a: Tensor, k: int, dim: int = -1, largest: bool = True, sorted: bool = True) -> Any:
    d = _wrap_dim(dim, a.ndim)
    size = a.shape[d] if a.ndim else 1
    if not 0 <= k <= size:
        raise RuntimeError(f"selected index k out of range")
    # the shape checks come first: the dtype is refused only by the CPU kernel
    if a._dtype is dtypes.bool_:
        raise RuntimeError("topk does not support bool dtypes on CPU")
    order = _sort_order(a._data, d, descending=largest)
    order = order[_slice_key(a.ndim, d, slice(0, k))] if a.ndim else order
    values = np.take_along_axis(a._data, order, axis=d) if a.ndim else a._data.copy()
    out = record(TOPK, (a,), values, a._dtype, self_shape=a.shape, dim=d, indices=order)
    return ReturnTypes("topk", out, Tensor._make(np.asarray(order, dtype=np.int64), dtypes.int64))


MEDIAN = defop("MedianBackward0", ("self",), None, self=lambda g, self, result: _evenly(g, self, result))
MEDIAN_DIM = defop("MedianBackward1", ("self",), None, freed=("indices",),
                   self=lambda g, self_shape, dim, keepdim, indices: _scatter_back(g, self_shape, dim, keepdim, indices))


def median(a: Tensor, dim: Optional[int] = None, keepdim: bool = False) -> Any:
    """The lower median; with a dim, its position in a stable sort (a nan, the first nan, wins)."""
    _one_dim("median", dim)
    if dim is None:
        _check_not_bool("median_cpu", a)
        flat = np.sort(a._data.reshape(-1))  # nan sorts last
        # nothing to choose from: nan, or for integers the smallest value, as PyTorch's kernel leaves it
        empty = np.nan if a._dtype.category >= dtypes.FLOATING else np.iinfo(a._dtype.numpy).min
        value = flat[(flat.size - 1) // 2] if flat.size else empty
        if flat.size and flat.dtype.kind == "f" and np.isnan(flat[-1]):
            value = np.nan
        return record(MEDIAN, (a,), np.asarray(value, dtype=a._dtype.numpy), a._dtype)
    _check_not_bool("median_out", a)
    d = _wrap_dim(dim, a.ndim)
    x = a._data if a.ndim else a._data.reshape(1)
    if x.shape[d] == 0:
        raise IndexError(f"median(): Expected reduction dim {d} to have non-zero size.")
    order = _sort_order(x, d, descending=False)
    size = x.shape[d]
    position = np.full(x.shape[:d] + (1,) + x.shape[d + 1:], (size - 1) // 2)
    if x.dtype.kind == "f":  # a row with nan: the first nan in the sorted order
        nans = np.isnan(x).sum(axis=d, keepdims=True)
        position = np.where(nans > 0, size - nans, position)
    indices = np.take_along_axis(order, position, axis=d)
    values = np.take_along_axis(x, indices, axis=d)
    if not keepdim or not a.ndim:
        indices, values = np.squeeze(indices, d), np.squeeze(values, d)
    if not a.ndim:
        indices, values = indices.reshape(()), values.reshape(())
    out = record(MEDIAN_DIM, (a,), np.array(values), a._dtype, self_shape=a.shape, dim=d, keepdim=keepdim,
                 indices=np.asarray(indices))
    return ReturnTypes("median", out, Tensor._make(np.asarray(indices, dtype=np.int64), dtypes.int64))


NANSUM = defop("NansumBackward0", ("self",), None,
               self=lambda g, self, dims, keepdim: _unsqueeze_reduced(g, dims, self.ndim, keepdim)
               * self.isnan().logical_not())


def nansum(a: Tensor, dim: Any = None, keepdim: bool = False) -> Tensor:
    out_dtype = _sum_dtype(a, None)
    dims = _normalize_dims(dim, a.ndim)
    (x,) = _arrays((a,), out_dtype)
    x = np.where(np.isnan(x), 0, x).astype(x.dtype) if x.dtype.kind == "f" else x
    data = np.asarray(_sum_data(x, dims, keepdim and dims is not None), dtype=out_dtype.numpy)
    return record(NANSUM, (a,), data, out_dtype, dims=dims, keepdim=keepdim)


def count_nonzero(a: Tensor, dim: Any = None) -> Tensor:
    dims = _normalize_dims(dim, a.ndim)
    return Tensor._make(np.asarray(np.count_nonzero(a._data, axis=dims), dtype=np.int64), dtypes.int64)


def _new(a: Tensor, make: Callable, dtype: Any, requires_grad: bool) -> Tensor:
    """x.new_ones(...) and its kin: a fresh tensor with x's dtype unless one is given."""
    return make(dtype if dtype is not None else a._dtype, requires_grad)


def numpy(a: Tensor, force: bool = False) -> Any:
    if a.requires_grad and not force:
        raise RuntimeError("Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.")
    # a program reaches gradcalc's own objects only, and a NumPy array is not one of them
    raise NotImplementedError("gradcalc has no NumPy arrays: use .tolist() or .item() to get Python numbers")


METHODS.update(norm=norm, std=std, var=var, square=square, round=round, floor=floor, ceil=ceil, numpy=numpy)


def _creation() -> Any:
    from . import creation  # creation imports tensor, which imports this module
    return creation


METHODS.update(
    trunc=trunc, frac=frac, isnan=isnan, cumsum=cumsum, flip=flip, exp2=exp2, erf=erf, atan2=atan2, tril=tril,
    triu=triu, roll=roll, movedim=movedim, repeat=repeat, logsumexp=logsumexp, sort=sort, argsort=argsort, topk=topk,
    median=median, nansum=nansum, count_nonzero=count_nonzero,
    new_ones=lambda a, *size, dtype=None, requires_grad=False, device=None: _new(
        a, lambda t, r: _creation().ones(*size, dtype=t, requires_grad=r), dtype, requires_grad),
    new_zeros=lambda a, *size, dtype=None, requires_grad=False, device=None: _new(
        a, lambda t, r: _creation().zeros(*size, dtype=t, requires_grad=r), dtype, requires_grad),
    new_full=lambda a, size, fill_value, dtype=None, requires_grad=False, device=None: _new(
        a, lambda t, r: _creation().full(size, fill_value, dtype=t, requires_grad=r), dtype, requires_grad),
    new_tensor=lambda a, data, dtype=None, requires_grad=False, device=None: _new(
        a, lambda t, r: _creation().tensor(data, dtype=t, requires_grad=r), dtype, requires_grad))
TORCH_FUNCTIONS.extend(["norm", "std", "var", "square", "round", "floor", "ceil"])
TORCH_FUNCTIONS.extend(["trunc", "frac", "isnan", "cumsum", "flip", "exp2", "erf", "atan2", "tril", "triu", "roll",
                        "movedim", "logsumexp", "sort", "argsort", "topk", "median", "nansum", "count_nonzero"])


# ---- more ops

# In-place random fills. The values carry no gradient: each fill is recorded as an op whose
# formulas give zeros, so that a filled tensor has PyTorch's grad_fn and version.
UNIFORM = defop("UniformBackward0", ("self",), None, self=lambda g: zeros_like(g))
NORMAL = defop("NormalBackward0", ("self",), None, self=lambda g: zeros_like(g))
BERNOULLI_FLOAT = defop("BernoulliBackward2", ("self",), None, self=lambda g: zeros_like(g))
BERNOULLI_TENSOR = defop("BernoulliBackward1", ("self", "p"), None, self=lambda g: zeros_like(g),
                         p=lambda g: zeros_like(g))
BERNOULLI = defop("BernoulliBackward0", ("self",), None, self=lambda g: zeros_like(g))
NORMAL_MEAN = defop("NormalBackward1", ("mean",), None, mean=lambda g: zeros_like(g))
NORMAL_STD = defop("NormalBackward2", ("std",), None, std=lambda g: zeros_like(g))
NORMAL_BOTH = defop("NormalBackward3", ("mean", "std"), None, mean=lambda g: zeros_like(g),
                    std=lambda g: zeros_like(g))


def _write_random(a: Tensor, data: np.ndarray, op: OpDef, *others: Tensor) -> Tensor:
    """Put freshly drawn `data` into `a`: recorded when `a` (or a tensor parameter) requires grad."""
    if grad_mode.is_grad_enabled() and builtins.any(t.requires_grad for t in (a, *others)):
        return commit_inplace(a, record(op, (a, *others), data, a._dtype))
    a._data[...] = data
    a._vc.value += 1
    return a


def uniform_(a: Tensor, from_: float = 0.0, to: float = 1.0, *, generator: Any = None) -> Tensor:
    check_inplace(a)  # before drawing: a refused fill leaves the random stream where it was
    return _write_random(a, rng.uniform_(a.shape, from_, to, a._dtype.name, generator), UNIFORM)


def normal_(a: Tensor, mean: float = 0.0, std: float = 1.0, *, generator: Any = None) -> Tensor:
    check_inplace(a)
    return _write_random(a, rng.normal_(a.shape, mean, std, a._dtype.name, generator), NORMAL)


def bernoulli_(a: Tensor, p: Any = 0.5, *, generator: Any = None) -> Tensor:
    check_inplace(a, p)
    if isinstance(p, Tensor):
        # one draw per element of a, from p broadcast to a's shape and read in p's dtype
        hits = rng.bernoulli(np.broadcast_to(p._data, a._data.shape), generator)
        return _write_random(a, hits.astype(a._dtype.numpy), BERNOULLI_TENSOR, p)
    return _write_random(a, rng.bernoulli_(a.shape, p, a._dtype.name, generator), BERNOULLI_FLOAT)


def bernoulli(p: Tensor, generator: Any = None) -> Tensor:
    return record(BERNOULLI, (p,), rng.bernoulli(p._data, generator), p._dtype)


def normal(mean: Any, std: Any = 1.0, size: Any = None, *, generator: Any = None, dtype: Any = None,
           requires_grad: bool = False) -> Tensor:
    """torch.normal: numbers and a size, or tensors. A tensor form draws N(0, std) and adds
    mean, or draws N(0, 1) and multiplies by std, then adds mean, as ATen's normal does."""
    if not isinstance(mean, Tensor) and not isinstance(std, Tensor):
        if size is None:
            raise TypeError("normal() missing required argument 'size'")
        out = _creation().empty(*size, dtype=dtype)
        out._data[...] = rng.normal_(out.shape, mean, std, out._dtype.name, generator)
        return out.requires_grad_(requires_grad)
    if isinstance(std, Tensor) and std.numel() and not bool(np.all(std._data >= 0)):
        raise RuntimeError("normal expects all elements of std >= 0.0")
    like = mean if isinstance(mean, Tensor) else std
    if isinstance(mean, Tensor) and isinstance(std, Tensor):
        _check_broadcast(mean, std)
    shape = _broadcast_shapes(tuple(mean.shape) if isinstance(mean, Tensor) else (),
                              tuple(std.shape) if isinstance(std, Tensor) else ())
    kind = like._dtype.numpy
    if isinstance(std, Tensor):
        noise = rng.normal_(shape, 0.0, 1.0, like._dtype.name, generator)
        data = noise * std._data.astype(kind) + np.asarray(mean._data if isinstance(mean, Tensor) else mean, kind)
    else:
        data = rng.normal_(shape, 0.0, std, like._dtype.name, generator) + mean._data
    data = np.asarray(data, dtype=kind)
    if isinstance(mean, Tensor) and isinstance(std, Tensor):
        return record(NORMAL_BOTH, (mean, std), data, like._dtype)
    if isinstance(mean, Tensor):
        return record(NORMAL_MEAN, (mean,), data, like._dtype)
    return record(NORMAL_STD, (std,), data, like._dtype)


# cumulative product: floats accumulate in double as PyTorch's CPU kernel does
CUMPROD = defop("CumprodBackward0", ("self",), None,
                self=lambda g, self, result, dim: _cumprod_grad(g, self, result, dim))


def cumprod(a: Tensor, dim: int, dtype: Any = None) -> Tensor:
    d = _wrap_dim(dim, a.ndim)
    result = dtype or (dtypes.int64 if a._dtype.category <= dtypes.INTEGRAL else a._dtype)
    accumulate = np.float64 if result.category == dtypes.FLOATING else result.numpy
    data = np.cumprod(a._data.astype(accumulate), axis=d) if a.ndim else a._data.astype(accumulate)
    source = a if result is a._dtype else to_dtype(a, result)
    return record(CUMPROD, (source,), np.asarray(data, dtype=result.numpy), result, dim=d)


def _cumprod_grad(g: Tensor, self: Tensor, result: Tensor, dim: int) -> Tensor:
    """d/dx_i of sum_k g_k prod_{j<=k} x_j, as PyTorch's cumprod_backward: without zeros a reversed
    cumsum divided by x; with a zero, for each i the products that leave x_i out, written in place."""
    if self.numel() <= 1 or self.shape[dim] == 1:
        return g
    if bool(np.all(self._data != 0)):
        return (g * result).flip(dim).cumsum(dim).flip(dim) / self
    n = self.shape[dim]
    grad_input = zeros(self.shape, g._dtype)
    ones = Tensor._make(np.ones(self.shape[:dim] + (1,) + self.shape[dim + 1:], dtype=g._dtype.numpy), g._dtype)
    for k in range(n):
        until_k = self.narrow(dim, 0, k).prod(dim, keepdim=True) if k else None
        from_k_plus_1 = self.narrow(dim, k + 1, n - k - 1).cumprod(dim) if k < n - 1 else None
        if until_k is None:
            omitted = cat([ones, from_k_plus_1], dim)
        elif from_k_plus_1 is None:
            omitted = until_k
        else:
            omitted = cat([until_k, until_k.expand_as(from_k_plus_1) * from_k_plus_1], dim)
        grad_input.select(dim, k).copy_((g.narrow(dim, k, n - k) * omitted).sum(dim))
    return grad_input


# diag: a vector onto a diagonal (DiagEmbed), or a matrix's diagonal copied out
DIAG_EMBED = defop("DiagEmbedBackward0", ("self",), None, self=lambda g, diagonal: diag(g, diagonal))
DIAGONAL_COPY = defop("DiagonalBackward0_copy", ("self",), None,
                      self=lambda g, self_shape, diagonal: diagonal_backward(g, self_shape, diagonal))
DIAGONAL_BACKWARD = defop("DiagonalBackwardBackward0", ("grad_output",), None,
                          grad_output=lambda g, diagonal: diag(g, diagonal))


def diag(a: Tensor, diagonal: int = 0) -> Tensor:
    if a.ndim == 1:
        return record(DIAG_EMBED, (a,), np.diag(a._data, diagonal), a._dtype, diagonal=diagonal)
    if a.ndim == 2:
        return record(DIAGONAL_COPY, (a,), np.diag(a._data, diagonal).copy(), a._dtype, self_shape=a.shape,
                      diagonal=diagonal)
    raise RuntimeError(f"diag(): Supports 1D or 2D tensors. Got {a.ndim}D")


def diagonal_backward(grad_output: Tensor, shape: tuple, diagonal: int) -> Tensor:
    """A zero matrix of `shape` holding grad_output on the diagonal."""
    data = np.zeros(shape, dtype=grad_output._dtype.numpy)
    index = np.arange(grad_output.shape[0])
    data[index + builtins.max(-diagonal, 0), index + builtins.max(diagonal, 0)] = grad_output._data
    return record(DIAGONAL_BACKWARD, (grad_output,), data, grad_output._dtype, diagonal=diagonal)


LERP = defop("LerpBackward0", ("self", "end"), None,
             self=lambda g, weight: g * (1 - weight), end=lambda g, weight: g * weight)
LERP_TENSOR = defop("LerpBackward1", ("self", "end", "weight"), None,
                    self=lambda g, weight: g * (1 - weight), end=lambda g, weight: g * weight,
                    weight=lambda g, self, end: g * (end - self))


def lerp(a: Tensor, end: Tensor, weight: Any) -> Tensor:
    for name, other in (("end", end), ("weight", weight)):
        if isinstance(other, Tensor) and other._dtype is not a._dtype and (name == "end" or other.ndim):
            raise RuntimeError(f"expected dtype {_c10_name(a._dtype)} for `{name}` but got dtype "
                               f"{_c10_name(other._dtype)}")
    _check_broadcast(a, end)
    # a 0-dim weight tensor takes part in type promotion; a number weight does not
    tensor_weight = isinstance(weight, Tensor)
    dtype = dtypes.result_type([a, weight]) if tensor_weight else a._dtype
    if not (dtype.is_floating_point or dtype.is_complex):
        kernel = "lerp_kernel_tensor" if tensor_weight else "lerp_kernel_scalar"
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{_c10_short(dtype)}'")
    start, stop = np.broadcast_arrays(a._data, end._data)
    if not tensor_weight:
        return record(LERP, (a, end), kernels.lerp(start, stop, weight), dtype, weight=weight)
    _check_broadcast(a, weight)
    start, stop, w = np.broadcast_arrays(start.astype(dtype.numpy), stop.astype(dtype.numpy),
                                         weight._data.astype(dtype.numpy))
    near = np.abs(w) < 0.5  # from the nearer end, as one fused multiply-add
    data = kernels._fused(np.where(near, w, w - 1), stop - start, np.where(near, start, stop))
    return record(LERP_TENSOR, (a, end, weight), np.asarray(data, dtype=dtype.numpy), dtype)


NAN_TO_NUM = defop("NanToNumBackward0", ("self",), None, self=lambda g, self: g * _finite(self))


def _finite(t: Tensor) -> Tensor:
    return Tensor._make(np.isfinite(t._data), dtypes.bool_)


def nan_to_num(a: Tensor, nan: Optional[float] = 0.0, posinf: Optional[float] = None,
               neginf: Optional[float] = None) -> Tensor:
    if a._dtype.category >= dtypes.FLOATING:
        info = np.finfo(a._dtype.numpy)
        data = np.nan_to_num(a._data, nan=0.0 if nan is None else nan,
                             posinf=info.max if posinf is None else posinf,
                             neginf=info.min if neginf is None else neginf)
    else:
        data = a._data.copy()
    return record(NAN_TO_NUM, (a,), np.asarray(data, dtype=a._dtype.numpy), a._dtype)


# clamp_min and clamp_max have grad_fns of their own in PyTorch (ClampMin/ClampMax, 0 for a number)
CLAMP_MIN = defop("ClampMinBackward0", ("self",), None,
                  self=lambda g, self, min: where(self >= min, g, zeros_like(g)))
CLAMP_MAX = defop("ClampMaxBackward0", ("self",), None,
                  self=lambda g, self, max: where(self <= max, g, zeros_like(g)))
CLAMP_MIN_TENSOR = defop("ClampMinBackward1", ("self", "min"), None,
                         self=lambda g, self, min: where(self >= min, g, zeros_like(g)),
                         min=lambda g, self, min: where(self < min, g, zeros_like(g)))
CLAMP_MAX_TENSOR = defop("ClampMaxBackward1", ("self", "max"), None,
                         self=lambda g, self, max: where(self <= max, g, zeros_like(g)),
                         max=lambda g, self, max: where(self > max, g, zeros_like(g)))


def clamp_min(a: Tensor, min: Any) -> Tensor:
    return _clamp_one(a, min, CLAMP_MIN, CLAMP_MIN_TENSOR, np.maximum, "min")


def clamp_max(a: Tensor, max: Any) -> Tensor:
    return _clamp_one(a, max, CLAMP_MAX, CLAMP_MAX_TENSOR, np.minimum, "max")


def _clamp_one(a: Tensor, bound: Any, op: OpDef, tensor_op: OpDef, pick: Callable, name: str) -> Tensor:
    dtype = dtypes.result_type([a, bound])
    if isinstance(bound, Tensor):
        _check_broadcast(a, bound)
        x, b = _arrays((a, bound), dtype)
        return record(tensor_op, (a, bound), np.asarray(pick(x, b), dtype=dtype.numpy), dtype)
    (x,) = _arrays((a,), dtype)
    # nan stays nan, as in clamp
    data = np.where(np.isnan(x), x, pick(x, bound)) if x.dtype.kind == "f" else pick(x, bound)
    return record(op, (a,), np.asarray(data, dtype=dtype.numpy), dtype, **{name: bound})


def outer(a: Tensor, vec2: Tensor) -> Tensor:
    for name, t in (("self", a), ("vec2", vec2)):
        if t.ndim != 1:
            raise RuntimeError(f"outer: Expected 1-D argument {name}, but got {t.ndim}-D")
    return reshape(a, (a.shape[0], 1)) * vec2


# activations (torch.nn.functional computes the forwards). Their backward functions are ops of
# their own, as in PyTorch, so a second derivative shows GeluBackwardBackward0 and its kin.
GELU = defop("GeluBackward0", ("self",), None,
             self=lambda g, self, approximate: gelu_backward(g, self, approximate))
SILU = defop("SiluBackward0", ("self",), None,
             self=lambda g, self: g * self.sigmoid() * (1 + self * (1 - self.sigmoid())))
SOFTPLUS = defop("SoftplusBackward0", ("self",), None,
                 self=lambda g, self, beta, threshold: softplus_backward(g, self, beta, threshold))
ELU = defop("EluBackward0", ("self",), None,
            self=lambda g, self, alpha: elu_backward(g, self, alpha, False))
ELU_INPLACE = defop("EluBackward1", ("self",), None,
                    self=lambda g, result, alpha: elu_backward(g, result, alpha, True))
HARDTANH = defop("HardtanhBackward0", ("self",), None,
                 self=lambda g, self, min_val, max_val: hardtanh_backward(g, self, min_val, max_val))
GELU_BACKWARD = defop("GeluBackwardBackward0", ("grad_output", "self"), None,
                      grad_output=lambda g, self, approximate: gelu_backward(g, self, approximate),
                      self=lambda g, grad_output, self, approximate: g * grad_output * _gelu_curvature(self, approximate))
SOFTPLUS_BACKWARD = defop(
    "SoftplusBackwardBackward0", ("grad_output", "self"), None,
    grad_output=lambda g, self, beta, threshold: softplus_backward(g, self, beta, threshold),
    self=lambda g, grad_output, self, beta, threshold: where(
        self * beta > threshold, zeros_like(g), g * grad_output * beta * (self * beta).sigmoid()
        * (1 - (self * beta).sigmoid())))
ELU_BACKWARD = defop(
    "EluBackwardBackward0", ("grad_output", "self_or_result"), None,
    grad_output=lambda g, self_or_result, alpha, is_result: elu_backward(g, self_or_result, alpha, is_result),
    self_or_result=lambda g, grad_output, self_or_result, alpha, is_result: where(
        self_or_result > 0, zeros_like(g),
        g * grad_output if is_result else g * grad_output * alpha * self_or_result.exp()))
HARDTANH_BACKWARD = defop("HardtanhBackwardBackward0", ("grad_output", "self"), None,
                          grad_output=lambda g, self, min_val, max_val: hardtanh_backward(g, self, min_val, max_val),
                          self=lambda g: zeros_like(g))
# PyTorch's constants, in the opmath type of the kernel
_GELU_BETA = math.sqrt(2.0) * (2.0 / math.sqrt(math.pi)) * 0.5  # M_SQRT2 * M_2_SQRTPI * 0.5
_GELU_KAPPA = 0.044715


def libm(function: Callable, x: np.ndarray) -> np.ndarray:
    """A C library function on float32 or float64 values: computed in double and rounded once,
    as glibc's float functions (nearly always correctly rounded) give."""
    return np.asarray(function(x.astype(np.float64)), dtype=x.dtype)


def _erf(x: np.ndarray) -> np.ndarray:
    return np.vectorize(math.erf, otypes=[np.float64])(x)


def gelu_forward(x: np.ndarray, approximate: str) -> np.ndarray:
    """PyTorch's scalar GELU kernel, step by step in the input's dtype."""
    kind = x.dtype.type
    if approximate == "tanh":
        inner = kind(_GELU_BETA) * (x + kind(_GELU_KAPPA) * (x * x * x))
        return kind(0.5) * x * (kind(1) + libm(np.tanh, inner))
    return x * kind(0.5) * (kind(1) + libm(_erf, x * kind(math.sqrt(0.5))))


def gelu_backward(grad_output: Tensor, self: Tensor, approximate: str) -> Tensor:
    x, dy = self._data, grad_output._data
    kind = x.dtype.type
    if approximate == "tanh":
        beta, kappa = kind(_GELU_BETA), kind(_GELU_KAPPA)
        inner = beta * (x + kappa * (x * x * x))
        t = libm(np.tanh, inner)
        left = kind(0.5) * x
        right = kind(1) + t
        left_derivative = kind(0.5) * right
        right_derivative = left * (kind(1) - t * t) * (beta * (kind(1) + kind(3) * kappa * (x * x)))
        data = dy * (left_derivative + right_derivative)
    else:
        cdf = kind(0.5) * (kind(1) + libm(_erf, x * kind(math.sqrt(0.5))))
        pdf = kind(2.0 / math.sqrt(math.pi) * math.sqrt(0.5) * 0.5) * libm(np.exp, x * x * kind(-0.5))
        data = dy * (cdf + x * pdf)
    return record(GELU_BACKWARD, (grad_output, self), np.asarray(data, dtype=x.dtype), grad_output._dtype,
                  approximate=approximate)


def _gelu_curvature(x: Tensor, approximate: str) -> Tensor:
    """The second derivative of gelu."""
    if approximate == "tanh":
        c = _GELU_BETA
        slope = c * (1 + 3 * _GELU_KAPPA * x * x)
        t = (c * (x + _GELU_KAPPA * x * x * x)).tanh()
        return (1 - t * t) * (slope - x * t * slope * slope + 3 * c * _GELU_KAPPA * x * x)
    return (-0.5 * x * x).exp() / math.sqrt(2 * math.pi) * (2 - x * x)


def softplus_forward(x: np.ndarray, beta: float, threshold: float) -> np.ndarray:
    kind = x.dtype.type
    scaled = x * kind(beta)
    return np.where(scaled > kind(threshold), x, libm(np.log1p, libm(np.exp, scaled)) / kind(beta))


def softplus_backward(grad_output: Tensor, self: Tensor, beta: float, threshold: float) -> Tensor:
    x, dy = self._data, grad_output._data
    kind = x.dtype.type
    z = libm(np.exp, x * kind(beta))
    data = np.where(x * kind(beta) > kind(threshold), dy, dy * z / (z + kind(1)))
    return record(SOFTPLUS_BACKWARD, (grad_output, self), np.asarray(data, dtype=x.dtype), grad_output._dtype,
                  beta=beta, threshold=threshold)


def elu_forward(x: np.ndarray, alpha: float) -> np.ndarray:
    kind = x.dtype.type
    return np.where(x <= 0, (libm(np.exp, x) - kind(1)) * kind(alpha), x)


def elu_backward(grad_output: Tensor, self_or_result: Tensor, alpha: float, is_result: bool) -> Tensor:
    x, dy = self_or_result._data, grad_output._data
    kind = x.dtype.type
    negative = dy * (x + kind(alpha)) if is_result else dy * libm(np.exp, x) * kind(alpha)
    data = np.where(x <= 0, negative, dy)
    return record(ELU_BACKWARD, (grad_output, self_or_result), np.asarray(data, dtype=x.dtype),
                  grad_output._dtype, alpha=alpha, is_result=is_result)


def hardtanh_backward(grad_output: Tensor, self: Tensor, min_val: float, max_val: float) -> Tensor:
    x = self._data
    data = np.where((x <= min_val) | (x >= max_val), np.zeros((), grad_output._data.dtype), grad_output._data)
    return record(HARDTANH_BACKWARD, (grad_output, self), data, grad_output._dtype, min_val=min_val,
                  max_val=max_val)


METHODS.update(uniform_=uniform_, normal_=normal_, bernoulli_=bernoulli_, bernoulli=bernoulli, cumprod=cumprod,
               diag=diag, lerp=lerp, nan_to_num=nan_to_num, clamp_min=clamp_min, clamp_max=clamp_max, outer=outer,
               ger=outer)
INPLACE.update(clamp_min=clamp_min, clamp_max=clamp_max, lerp=lerp, nan_to_num=nan_to_num)
TORCH_FUNCTIONS.extend(["bernoulli", "normal", "cumprod", "diag", "lerp", "nan_to_num", "clamp_min", "clamp_max",
                        "outer", "ger"])
ger = outer


install_methods(Tensor)
