"""Tensor methods and torch functions, generated from the op declarations and PyTorch's recorded
signatures: each op gets the variants PyTorch has for its name and its aliases (`torch.exp`,
`x.exp()`, `x.exp_()`, `torch.exp_`, `out=`), each parsing its arguments as PyTorch does."""
from __future__ import annotations

import functools
from typing import Any, Callable, Optional

import numpy as np

from .. import forward_mode, grad_mode, meta
from ..grad_mode import FORWARD_LEVELS
from ..native import kernels
from ..tensor import DEVICE_CONTEXT, Size, Tensor
from ...display.names import c_arity, refuse_instances, torch_class
from ...warnings import warn
from .common import op_recursion, out_of_memory
from .inplace import batched_result, check_batched_operands, check_inplace, check_overlap, commit_inplace
from .parser import _parsers, has_signature, parser
from .registry import OPS, Op

_PARSER_NAMES = {"torch": "", "Tensor": "", "linalg": "linalg_", "special": "special_", "fft": "fft_", "nn": ""}


class _Call:
    """What BuiltinFunction's call is without the native module: its function's."""

    __slots__ = ("_function", "_entry")

    def __call__(self, /, *args: Any, **kwargs: Any) -> Any:
        return self._function(*args, **kwargs)


_CALL = kernels._Call if kernels is not None else _Call


@torch_class("builtin_function_or_method")
class BuiltinFunction(_CALL):  # type: ignore[misc, valid-type]
    """A function PyTorch writes in C, as programs see it: `<built-in method exp of type object at
    0x...>` for torch's, `<built-in function linalg_norm>` for its submodules'. Its call is the
    function's, or (the native module's _Call) the native call of make_function's entry, with no
    Python frame on the way."""

    __slots__ = ("__name__", "__qualname__", "_shown")

    def __repr__(self) -> str:
        return self._shown.replace("0x", hex(id(BuiltinFunction)), 1)

    def __copy__(self) -> BuiltinFunction:  # copy's, as of CPython's built-in functions: the function itself
        return self

    def __deepcopy__(self, memo: dict) -> BuiltinFunction:
        return self


refuse_instances(BuiltinFunction)  # (`type(torch.exp)(...)` in a program: CPython's refusal)


def builtin_function(name: str, function: Callable, shown: str) -> BuiltinFunction:
    """A BuiltinFunction (no `__init__` of its own: a program cannot make one over again)."""
    made = _CALL.__new__(BuiltinFunction)
    made._function, made._entry = function, _ENTRIES.get(function)
    made.__name__ = made.__qualname__ = name
    made._shown = shown
    return made


def _torch_function(name: str, function: Callable) -> BuiltinFunction:
    return builtin_function(name, function, f"<built-in method {name} of type object at 0x>")


def _module_function(parser_name: str, function: Callable) -> BuiltinFunction:
    return builtin_function(parser_name, function, f"<built-in function {parser_name}>")


# ------------------------------------------------------------------ out=

# the product kernels whose out= must have the result's dtype, each refusing another in its own words
_EXACT_OUT_DTYPE = {
    "mm": "structured", "bmm": "structured", "addmm": "structured", "addmv": "structured", "baddbmm": "structured",
    "addbmm": "structured", "mv": "addmv", "dot": "dot", "vdot": "dot",
    # (the norms check it first, in their own words: torch.norm's out= goes to one of them)
    "linalg.vector_norm": "structured", "linalg.norm": "norm", "linalg.matrix_norm": "norm"}


def _matmul_kernel(input: Tensor, other: Tensor) -> str:
    """The product at::matmul computes an out= with, by its operands' dimensions."""
    if input.ndim == 1 and other.ndim == 1:
        return "dot"
    if other.ndim == 1 and input.ndim >= 2:
        return "mv"
    return "mm" if input.ndim <= 2 and other.ndim == 2 else "bmm"


def _check_out_dtype(kernel: str, result: Tensor, out: Tensor) -> None:
    if result._dtype is out._dtype:
        return
    rule = _EXACT_OUT_DTYPE.get(kernel)
    if rule == "structured":
        raise RuntimeError(f"Expected out tensor to have dtype {result._dtype._cpp_name}, but got "
                           f"{out._dtype._cpp_name} instead")
    if rule == "addmv":
        given = result._dtype._scalar_name
        raise RuntimeError(f"addmv input tensors must have the same dtype, but got {out._dtype._scalar_name}, {given}, "
                           f"and {given}")
    if rule == "norm":
        raise RuntimeError(f"{kernel} expected out tensor dtype {result._dtype._scalar_name} but got: "
                           f"{out._dtype._scalar_name}")
    if rule == "dot":
        raise RuntimeError(f"result dtype {out._dtype._scalar_name} does not match input dtype "
                           f"{result._dtype._scalar_name}")
    if result._dtype.category > out._dtype.category:
        raise RuntimeError(f"result type {result._dtype._scalar_name} can't be cast to the desired output type "
                           f"{out._dtype._scalar_name}")


def write_out(name: str, result: Any, out: Any, kernel: Optional[str] = None, resized_as: tuple = ()) -> Any:
    """Copy `result` into the tensor(s) given as `out=`, resized as PyTorch resizes them (`kernel`: the one that
    writes it, when not `name`'s; `resized_as`: the shape that kernel resizes it to, when not the result's)."""
    if isinstance(out, (tuple, list)):
        return type(result)(*(write_out(name, r, o) for r, o in zip(result, out))) if hasattr(result, "_fields") \
            else tuple(write_out(name, r, o) for r, o in zip(result, out))
    if out.requires_grad and grad_mode.is_grad_enabled():
        raise RuntimeError(f"{name}(): functions with out=... arguments don't support automatic differentiation, "
                           "but one of the arguments requires grad.")
    if meta.state["made"] and (meta.is_meta(result) or meta.is_meta(out)):
        return meta.write_out(result, out)
    _check_out_dtype(kernel or name, result, out)
    required = resized_as or tuple(result.shape)
    if tuple(out.shape) != required:
        if out._data.size:
            warn("UserWarning", f"An output with one or more elements was resized since it had shape "
                                f"[{', '.join(map(str, out.shape))}], which does not match the required output shape "
                                f"[{', '.join(map(str, required))}]. This behavior is deprecated, and in a future "
                                "PyTorch release outputs will not be resized unless they have zero elements. You can "
                                "explicitly reuse an out tensor t by resizing it, inplace, to zero elements with "
                                "t.resize_(0).", at="aten/src/ATen/native/Resize.cpp:30")
    if out._data.shape != result._data.shape:  # (a matmul of a vector squeezes the rows it resized it to)
        out._data = np.empty(result._data.shape, dtype=out._dtype._numpy)
    out._data[...] = result._data.astype(out._dtype._numpy, copy=False)
    out._vc.value += 1
    return out


# the factories that make their values in the `out=` tensor's dtype and resize it without the
# deprecation warning (arange warns in words of its own)
_FACTORIES = frozenset({"arange", "range", "linspace", "logspace", "zeros", "ones", "empty", "full", "eye", "rand",
                        "randn", "randint", "randperm"})


def _factory_out(name: str, impl: Callable, bound: dict, out: Tensor) -> Tensor:
    if bound.get("dtype") is None:
        bound["dtype"] = out._dtype
    result = impl(**bound)
    if out.requires_grad and grad_mode.is_grad_enabled():
        return write_out(name, result, out)  # its error
    if name == "arange" and 0 < out.numel() != result.numel():
        warn("UserWarning", f"The number of elements in the out tensor of shape [{', '.join(map(str, out.shape))}] is "
                            f"{out.numel()} which does not match the computed number of elements {result.numel()}. "
                            "Note that this may occur as a result of rounding error. The out tensor will be resized "
                            f"to a tensor of shape ({result.numel()},).",
                            at="aten/src/ATen/native/RangeFactories.cpp:199")
    if out.numel() != result.numel() or name not in ("arange", "range", "linspace", "logspace"):
        out._data = np.empty(result._data.shape, dtype=out._dtype._numpy)
    out._data.reshape(-1)[...] = result._data.reshape(-1).astype(out._dtype._numpy, copy=False)
    out._vc.value += 1
    if bound.get("requires_grad"):  # the binding sets it on what it returns: the out tensor
        out._set_requires_grad(True)
    return out


def _with_out(name: str, impl: Callable, bound: dict, kernel: Optional[str] = None) -> Any:
    out = bound.pop("out")
    if out is None:
        return impl(**bound)
    if name in _FACTORIES and isinstance(out, Tensor):
        return _factory_out(name, impl, bound, out)
    if grad_mode.is_grad_enabled() and any(isinstance(v, Tensor) and v.requires_grad for v in bound.values()):
        raise RuntimeError(f"{name}(): functions with out=... arguments don't support automatic differentiation, "
                           "but one of the arguments requires grad.")
    if FORWARD_LEVELS and any(isinstance(v, Tensor) and forward_mode.batched(v) for v in (out, *bound.values())):
        raise RuntimeError(f"Batching rule not implemented for aten::{name}.out; the fallback path doesn't work on "
                           "out= or view ops.")
    result = impl(**bound)
    if name == "matmul" and isinstance(out, Tensor):
        kernel = _matmul_kernel(bound["input"], bound["other"])
        # a vector times a matrix: mm_out on the vector as one row
        rows = (1, *result.shape) if kernel == "mm" and bound["input"].ndim == 1 else ()
        return write_out(name, result, out, kernel, rows)
    return write_out(name, result, out, kernel)


# ------------------------------------------------------------------ the generated callables

def _call(impl: Callable, bound: dict, by_position: bool, name: str, kernel: Optional[str] = None) -> Any:
    try:
        if by_position:
            return impl(bound.pop("input"), **bound)
        if "out" in bound:
            return _with_out(name, impl, bound, kernel)
        return impl(**bound)
    except MemoryError as error:
        raise out_of_memory(error) from None


def _translate(error: BaseException) -> None:
    """The native call's MemoryError or RecursionError, raised as the Python functions raise it."""
    if isinstance(error, MemoryError):
        raise out_of_memory(error) from None
    raise op_recursion(error) from None


# make_function's native functions -> their entries, which BuiltinFunction's native call takes
_ENTRIES: dict = {}
if kernels is not None:
    kernels.prepare_dispatch(_parsers, DEVICE_CONTEXT, Size, _translate, _call)
_native_method = kernels.call_method if kernels is not None else None
_native_function = kernels.call_function if kernels is not None else None


def make_function(namespace: str, name: str, impl: Callable) -> Callable:
    """`torch.name(...)`: PyTorch's argument parsing, then the implementation."""
    key = (namespace, name)
    # a Tensor method declared as an op (`numel`) names its tensor `self`, PyTorch's function `input`
    by_position = impl.__code__.co_varnames[:1] == ("self",)
    kernel = f"{namespace}.{name}" if f"{namespace}.{name}" in _EXACT_OUT_DTYPE else None

    def function(*args: Any, **kwargs: Any) -> Any:
        try:
            found = _parsers.get(key) or parser(*key)
            bound = found.parse(args, kwargs)[1]
            if meta.state["made"] and meta.any_meta(bound.values()):
                device = bound.get("device")  # a factory from a meta tensor asked for another device (`zeros_like`)
                result = _call(impl, bound, by_position, name, kernel)
                return result if device is not None and not meta.wants_meta(device) else meta.marked(result)
            return _call(impl, bound, by_position, name, kernel)
        except RecursionError as error:
            raise op_recursion(error) from None

    function.__name__ = function.__qualname__ = name
    if _native_function is not None:  # a remembered binding's call in C (csrc/dispatch.c), else the above
        entry = (key, impl, by_position, name, kernel, function)

        def native(*args: Any, **kwargs: Any) -> Any:
            return _native_function(entry, None, args, kwargs)

        native.__name__ = native.__qualname__ = name
        _ENTRIES[native] = entry
        return native
    return function


def make_inplace_function(name: str, impl: Callable) -> Callable:
    """`torch.name_(input, ...)`: the in-place form as a function."""
    key = ("torch", name)

    def function(*args: Any, **kwargs: Any) -> Any:
        try:
            found = _parsers.get(key) or parser(*key)
            bound = found.parse(args, kwargs)[1]
            target = bound.pop("input")
            return impl(target, **bound)
        except MemoryError as error:
            raise out_of_memory(error) from None
        except RecursionError as error:
            raise op_recursion(error) from None

    function.__name__ = function.__qualname__ = name
    return function


def _call_method(impl: Callable, self: Tensor, bound: dict, positional: bool, self_name: str) -> Any:
    try:
        if positional:
            return impl(self, **bound)
        bound[self_name] = self
        return impl(**bound)
    except MemoryError as error:
        raise out_of_memory(error) from None


def make_method(name: str, impl: Callable, self_name: str) -> Callable:
    """`x.name(...)`: the tensor binds to `self_name` ("input" for most ops)."""
    key = ("Tensor", name)
    positional = impl.__code__.co_varnames[:1] in ((self_name,), ("self",))

    def method(self: Tensor, /, *args: Any, **kwargs: Any) -> Any:
        try:
            found = _parsers.get(key) or parser(*key)
            bound = found.parse(args, kwargs)[1]
            if meta.state["made"] and (meta.is_meta(self) or meta.any_meta(bound.values())):
                result = _call_method(impl, self, bound, positional, self_name)
                return result if result is self else meta.marked(result)  # in place: the tensor keeps its device
            return _call_method(impl, self, bound, positional, self_name)
        except RecursionError as error:
            raise op_recursion(error) from None

    method.__name__ = name
    method.__qualname__ = f"Tensor.{name}"
    if _native_method is not None:  # a remembered binding's call in C (csrc/dispatch.c), else the above
        entry = (key, impl, positional, self_name, method)

        def native(self: Tensor, /, *args: Any, **kwargs: Any) -> Any:
            return _native_method(entry, self, args, kwargs)

        native.__name__ = name
        native.__qualname__ = f"Tensor.{name}"
        return native
    return method


def make_inplace(impl: Callable, overlap_checked: bool = True, name: str = "") -> Callable:
    """The in-place form of an out-of-place implementation: `x.add_(y)` from `add` (`name`, the
    in-place op's, for vmap's refusals)."""

    def inplace(input: Tensor, **bound: Any) -> Tensor:
        others = tuple(bound.values())
        check_inplace(input, *others)
        if overlap_checked:
            check_overlap(input, *others)
        if FORWARD_LEVELS and name:
            check_batched_operands(name, input, bound)
        if meta.state["made"] and meta.any_meta((input, *others)):
            return meta.in_place(input, lambda: impl(input, **bound), commit_inplace)
        out = impl(input, **bound)
        if FORWARD_LEVELS and name and out._data.shape != input._data.shape:
            out = batched_result(name, input, out, bound)
        return commit_inplace(input, out)

    return inplace


def python_method(name: str, function: Callable) -> Callable:
    """A method PyTorch writes in Python: CPython's own messages name it `Tensor.name()`."""
    function.__code__ = function.__code__.replace(co_name=name, co_qualname=f"Tensor.{name}")
    function.__name__ = name
    function.__qualname__ = f"Tensor.{name}"
    return function


def _python_function(name: str, function: Callable, module: str) -> Callable:
    if function.__name__ != name:  # (a boolean_dispatch is named already, its qualname as torch's)
        function.__code__ = function.__code__.replace(co_name=name, co_qualname=name)
        function.__name__ = function.__qualname__ = name
    function.__module__ = module
    return function


# ------------------------------------------------------------------ installing

def install(cls: type) -> None:
    """Put every declared op's methods on Tensor."""
    for op in OPS.values():
        if op.module != "torch":
            continue
        for name in (op.name,) + op.aliases:
            _install_methods(cls, op, name)


def _install_methods(cls: type, op: Op, name: str) -> None:
    if callable(op.method):
        setattr(cls, name, python_method(name, op.method))
    elif op.method is None and has_signature("Tensor", name):
        setattr(cls, name, make_method(name, op.impl, op.self_name))
    if op.inplace is False or not has_signature("Tensor", name + "_") or ("torch", name + "_") in OPS:
        return  # an op declared under the in-place name is its own
    inplace = op.inplace if callable(op.inplace) else make_inplace(op.impl, name=name + "_")
    setattr(cls, name + "_", make_method(name + "_", inplace, "input"))


def namespace_members(module: str) -> dict:
    """The functions of one of torch's namespaces ("torch", "linalg", "special", "fft"), as
    programs see them."""
    members: dict = {}
    for op in OPS.values():
        if op.module != module or op.function is False:
            continue
        for name in (op.name,) + op.aliases:
            function = _namespace_member(module, name, op)
            if function is not None:
                members[name] = function
            if (module == "torch" and op.inplace is not False and has_signature("torch", name + "_")
                    and ("torch", name + "_") not in OPS):
                members[name + "_"] = _torch_inplace_member(name + "_", op)
    return members


def builtin(module: str, name: str) -> Callable:
    """What a program calls as torch's `module`.`name`, for PyTorch's Python code that calls it
    (its parser checks the arguments)."""
    return _namespace_member(module, name, OPS[(module, name)])


# made once: every namespace that shares a builtin holds the same one (`F.conv2d is torch.conv2d`)
@functools.cache
def _namespace_member(module: str, name: str, op: Op) -> Optional[Callable]:
    if op.python is not None:
        return _python_function(name, op.impl, op.python) if name == op.name else op.impl
    if has_signature(module, name):
        function = make_function(module, name, op.impl)
        return (_torch_function(name, function) if module == "torch"
                else _module_function(_PARSER_NAMES[module] + name, function))
    return None


@functools.cache
def _torch_inplace_member(name: str, op: Op) -> Callable:
    inplace = op.inplace if callable(op.inplace) else make_inplace(op.impl, name=name)
    return _torch_function(name, make_inplace_function(name, inplace))


def shown_function(name: str, function: Callable, module_level: bool = False) -> BuiltinFunction:
    """Any other C function of torch, shown as torch shows its own: a method of its functions'
    class, or (`module_level`) a function of torch._C."""
    checked = c_arity(f"torch.{name}" if module_level else f"torch._VariableFunctionsClass.{name}", function)
    return _module_function(name, checked) if module_level else _torch_function(name, checked)


