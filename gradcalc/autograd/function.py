"""torch.autograd.Function: operations a program defines with its own forward and backward.

As in PyTorch, the `ctx` a forward receives is the grad_fn of its outputs: an object of a
class made for each Function (`MyCubeBackward`), which is a FunctionCtx (save_for_backward,
mark_dirty, ...) and a Node the engine runs by calling the program's backward.
"""
from __future__ import annotations

import functools
import itertools
import inspect
from typing import Any, Callable, Optional

import numpy as np

from . import grad_mode
from .engine import FREED_MESSAGE, Node, gradient_edge
from .forward_mode import NO_JVP, BatchLevel, set_tangent, tangent_of
from .grad_mode import FORWARD_LEVELS, functorch_active
from .saved_variable import SavedTensor
from .tensor import Tensor
from ..display.names import torch_class, type_name
from ..warnings import deprecated, warn

ONCE_DIFFERENTIABLE_MESSAGE = "trying to differentiate twice a function that was marked with @once_differentiable"


@torch_class("torch.autograd.function.FunctionCtx")
class FunctionCtx:
    """What a Function's forward (or setup_context) tells its backward."""

    def save_for_backward(self, *tensors: Any) -> None:
        self.to_save = tensors

    def save_for_forward(self, *tensors: Any) -> None:
        self.saved_for_forward = tensors

    def mark_dirty(self, *args: Any) -> None:
        self.dirty_tensors = args

    @deprecated("FutureWarning", "`mark_shared_storage` is deprecated. Tensors with shared storages are "
                                 "automatically tracked. Note that calls to `set_()` are not tracked")
    def mark_shared_storage(self, *pairs: Any) -> None:
        pass

    def mark_non_differentiable(self, *args: Any) -> None:
        self.non_differentiable = args

    def set_materialize_grads(self, value: bool) -> None:
        self.materialize_grads = value


def _function_base_method(method: Callable) -> Callable:
    """A method the grad_fn of a Function has from torch's C type _FunctionBase (METH_NOARGS or
    METH_O): a call that does not fit fails in CPython's words, naming that type."""
    shown = f"_FunctionBase.{method.__name__}()"
    takes = method.__code__.co_argcount - 1  # besides self
    words = "takes no arguments" if takes == 0 else "takes exactly one argument"

    @functools.wraps(method)
    def checked(self: Any, *args: Any, **kwargs: Any) -> Any:
        if kwargs:
            raise TypeError(f"{shown} takes no keyword arguments")
        if len(args) != takes:
            raise TypeError(f"{shown} {words} ({len(args)} given)")
        return method(self, *args)

    return checked


@torch_class("torch.autograd.function.BackwardCFunction")
class BackwardCFunction(Node, FunctionCtx):
    """The grad_fn of a Function's outputs, which is also the forward's ctx."""

    _forward_cls: type
    # per forward argument: whether it was a tensor; per output: (shape, dtype) of a tensor, or None
    _variable_inputs: tuple = ()
    _outputs: tuple = ()
    _saved_values: Optional[tuple] = None
    _released = False

    def __setattr__(self, name: str, value: Any) -> None:
        # the engine's entry points stay the class's: a program's `ctx.apply = ...` must not replace them
        if name in _ENGINE_METHODS:
            raise AttributeError(f"'{type_name(self)}' object attribute '{name}' cannot be set in gradcalc")
        object.__setattr__(self, name, value)

    def __repr__(self) -> str:
        return f"<torch.autograd.function.{type(self).__name__} object at {hex(id(self))}>"

    @_function_base_method
    def name(self) -> str:
        return type(self).__name__

    register_hook = _function_base_method(Node.register_hook)
    register_prehook = _function_base_method(Node.register_prehook)

    @property
    def saved_tensors(self) -> tuple:
        if self._released:
            raise RuntimeError(FREED_MESSAGE)
        if self._saved_values is None:
            return tuple(getattr(self, "to_save", ()))  # during forward: what it was given so far
        return tuple(saved.unpack(self) if saved is not None else None for saved in self._saved_values)

    @property
    def saved_variables(self) -> tuple:
        warn("DeprecationWarning", "'saved_variables' is deprecated; use 'saved_tensors'")
        return self.saved_tensors

    def apply(self, grads: list) -> list:
        """The engine's call: the program's backward on the outputs' gradients."""
        grads = list(grads) + [None] * (len(self._outputs) - len(grads))
        materialize = getattr(self, "materialize_grads", True)
        for index, meta in enumerate(self._outputs):
            if meta is None:
                grads[index] = None
            elif grads[index] is None and materialize:
                shape, dtype = meta
                grads[index] = Tensor._make(np.zeros(shape, dtype=dtype._numpy), dtype)
        forward_cls = self._forward_cls
        backward, vjp = forward_cls.backward, forward_cls.vjp
        if backward is not Function.backward and vjp is not Function.vjp:
            raise RuntimeError("Implementing both 'backward' and 'vjp' for a custom Function is not allowed. You "
                               "should only implement one of them.")
        user_backward = vjp if vjp is not Function.vjp else backward
        result = user_backward(self, *grads)
        return self._input_gradients(result if isinstance(result, tuple) else (result,))

    def _input_gradients(self, result: tuple) -> list:
        """The gradients for the tensor inputs, checked as PyTorch checks a backward's result."""
        expected = len(self._variable_inputs)
        if len(result) > expected and all(grad is None for grad in result[expected:]):
            result = result[:expected]  # surplus Nones are allowed
        if len(result) != expected:
            raise RuntimeError(f"function {self.name()} returned an incorrect number of gradients (expected "
                               f"{expected}, got {len(result)})")
        grads = []
        for position, (is_tensor, grad) in enumerate(zip(self._variable_inputs, result)):
            if not is_tensor:
                if grad is not None:
                    raise RuntimeError(f"function {self.name()} returned a gradient different than None at "
                                       f"position {position + 1}, but the corresponding forward input was not a "
                                       "Variable")
                continue
            if grad is not None and not isinstance(grad, Tensor):
                raise RuntimeError(f"expected Variable or None (got {type_name(grad)})")
            grads.append(grad)
        return grads

    def release(self) -> None:
        if self._saved_values:
            object.__setattr__(self, "_saved_values", ())
            object.__setattr__(self, "_released", True)


_ENGINE_METHODS = frozenset({"apply", "release", "name"})


@torch_class("torch.autograd.function.Function")
class Function:
    """Base class of a program's autograd Functions: `MyFn.apply(*args)` runs its forward and
    records one node whose backward is the program's."""

    _backward_cls: Optional[type] = None

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        node_class = type(cls.__name__ + "Backward", (BackwardCFunction,), {"_forward_cls": cls})
        node_class.__module__ = "torch.autograd.function"
        cls._backward_cls = node_class

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        warn("DeprecationWarning", f"{type(self)} should not be instantiated. Methods on autograd functions are all "
                                   "static, so you should invoke them on the class itself. Instantiating an autograd "
                                   "function will raise an error in a future version of PyTorch.")

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("Legacy autograd function with non-static forward method is deprecated. Please use "
                           "new-style autograd function with static forward method. (Example: "
                           "https://pytorch.org/docs/stable/autograd.html#torch.autograd.Function)")

    @staticmethod
    def forward(*args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError("You must implement the forward function for custom autograd.Function.")

    @staticmethod
    def setup_context(ctx: Any, inputs: tuple, output: Any) -> Any:
        raise NotImplementedError("setup_context is not implemented.")

    @staticmethod
    def backward(ctx: Any, *grad_outputs: Any) -> Any:
        raise NotImplementedError("You must implement either the backward or vjp method for your custom "
                                  "autograd.Function to use it with backward mode AD.")

    vjp = backward

    @staticmethod
    def jvp(ctx: Any, *grad_inputs: Any) -> Any:
        raise NotImplementedError(NO_JVP)

    @classmethod
    def apply(cls, *args: Any, **kwargs: Any) -> Any:
        with_setup = cls.setup_context is not Function.setup_context
        if functorch_active():
            _check_functorch(cls, with_setup)
        if with_setup:
            bound = inspect.signature(cls.forward).bind(*args, **kwargs)
            bound.apply_defaults()
            args, kwargs = bound.args, {}
        if kwargs:
            args = _keywords_as_positions(cls.forward, args, kwargs)
        return _apply(cls, args, with_setup)


def _keywords_as_positions(forward: Callable, args: tuple, kwargs: dict) -> tuple:
    """PyTorch's apply places keyword arguments at the positions of forward's parameters (after
    ctx) of those names: none may be a keyword-only one, and each position before the last one
    given needs its argument (a default does not fill it)."""
    try:
        parameters = list(inspect.signature(forward).parameters.values())[1:]
    except (TypeError, ValueError):  # no signature to read
        parameters = []
    names = [p.name for p in itertools.takewhile(
        lambda p: p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD), parameters)]
    for name in kwargs:
        if name not in names:
            raise TypeError(f"forward() got an unexpected keyword argument '{name}'")
        if names.index(name) < len(args):
            raise TypeError(f"forward() got multiple values for argument '{name}'")
    last = max(names.index(name) for name in kwargs)
    placed = list(args)
    for position in range(len(args), last + 1):
        if names[position] not in kwargs:
            raise TypeError(f"forward() missing required argument: '{names[position]}' (position {position})")
        placed.append(kwargs[names[position]])
    return tuple(placed)


def _check_functorch(cls: type, with_setup: bool) -> None:
    """What torch.func asks of a Function: a setup_context, and under vmap a rule for batches (gradcalc runs
    the examples one by one, so a rule given is not needed, but one missing is PyTorch's error)."""
    if not with_setup:
        raise RuntimeError("In order to use an autograd.Function with functorch transforms (vmap, grad, jvp, jacrev, "
                           "...), it must override the setup_context staticmethod. For more details, please see "
                           "https://pytorch.org/docs/main/notes/extending.func.html")
    batched = any(type(level) is BatchLevel for level in FORWARD_LEVELS)
    if batched and not getattr(cls, "generate_vmap_rule", False) and "vmap" not in _own_attributes(cls):
        raise RuntimeError(f"You tried to vmap over {cls.__name__}, but it does not have vmap support. Please override "
                           "and implement the vmap staticmethod or set generate_vmap_rule=True. For more details, "
                           "please see https://pytorch.org/docs/main/notes/extending.func.html")


def _own_attributes(cls: type) -> set:
    """The names the program's Function classes define (not gradcalc's Function)."""
    return {name for base in cls.__mro__ if base is not Function and issubclass(base, Function) for name in vars(base)}


def _apply(cls: type, args: tuple, with_setup: bool) -> Any:
    inputs = [arg for arg in args if isinstance(arg, Tensor)]
    is_executable = grad_mode.is_grad_enabled() and any(t.requires_grad for t in inputs)
    ctx = cls._backward_cls(tuple(gradient_edge(t) for t in inputs) if is_executable else ())
    object.__setattr__(ctx, "_variable_inputs", tuple(isinstance(arg, Tensor) for arg in args))
    ctx._input_meta = [(t._data.shape, t._dtype) for t in inputs]
    ctx.needs_input_grad = tuple(isinstance(arg, Tensor) and arg.requires_grad for arg in args)
    previous = grad_mode.is_grad_enabled()
    grad_mode._set_enabled(False)
    # the forward runs without forward AD (vmap's levels stay): the program's jvp gives the tangents
    levels = list(FORWARD_LEVELS)
    FORWARD_LEVELS[:] = [level for level in levels if type(level) is BatchLevel]
    try:
        if with_setup:
            output = cls.forward(*args)
            cls.setup_context(ctx, args, output)
        else:
            output = cls.forward(ctx, *args)
    finally:
        grad_mode._set_enabled(previous)
        FORWARD_LEVELS[:] = levels
    is_tuple = isinstance(output, tuple)
    outputs = _wrap_outputs(ctx, inputs, output if is_tuple else (output,), is_executable)
    if is_executable:
        _save_variables(ctx)
    _forward_tangents(cls, ctx, args, outputs)
    return outputs if is_tuple else outputs[0]


def _forward_tangents(cls: type, ctx: BackwardCFunction, args: tuple, outputs: tuple) -> None:
    """_process_forward_mode_AD: at each dual level an input has a tangent at, the program's jvp
    (run with forward AD off and grad mode as the call found it) gives the outputs' tangents."""
    levels = list(FORWARD_LEVELS)
    for level in levels:
        if type(level) is BatchLevel:
            continue
        tangents = [tangent_of(arg, level) if isinstance(arg, Tensor) else None for arg in args]
        if all(tangent is None for tangent in tangents):
            continue
        FORWARD_LEVELS[:] = [other for other in levels if type(other) is BatchLevel]
        try:
            results = cls.jvp(ctx, *tangents)
        finally:
            FORWARD_LEVELS[:] = levels
        results = results if isinstance(results, tuple) else (results,)
        if len(results) != len(outputs):
            raise RuntimeError(f"Function's jvp returned an invalid number of forward gradients (expected "
                               f"{len(outputs)} but got {len(results)})")
        for out, tangent in zip(outputs, results):
            if isinstance(out, Tensor) and isinstance(tangent, Tensor):
                set_tangent(out, level, tangent)


def _wrap_outputs(ctx: BackwardCFunction, inputs: list, outputs: tuple, is_executable: bool) -> tuple:
    """The outputs as the program gets them: differentiable ones with `ctx` as grad_fn, inputs
    returned unchanged as views of themselves, in-place modified inputs rebased onto `ctx`."""
    dirty = _tensor_ids(getattr(ctx, "dirty_tensors", ()))
    non_differentiable = _tensor_ids(getattr(ctx, "non_differentiable", ()))
    input_ids = {id(t) for t in inputs}
    for tensor in getattr(ctx, "dirty_tensors", ()):  # _mark_dirty: each counts as changed in place
        if isinstance(tensor, Tensor):
            tensor._vc.value += 1
    for tensor in getattr(ctx, "dirty_tensors", ()):
        if isinstance(tensor, Tensor) and not any(tensor is out for out in outputs):
            raise RuntimeError("Some elements marked as dirty during the forward method were not returned as "
                               "output. The inputs that are modified inplace must all be outputs of the Function.")
    wrapped, metas = [], []
    for index, out in enumerate(outputs):
        if not isinstance(out, Tensor):
            wrapped.append(out)
            metas.append(None)
            continue
        metas.append((out._data.shape, out._dtype))
        is_input, is_modified = id(out) in input_ids, id(out) in dirty
        differentiable = (is_executable and id(out) not in non_differentiable
                          and (out._dtype.is_floating_point or out._dtype.is_complex))
        if not differentiable:
            if not out.requires_grad:
                if is_input and not is_modified:
                    out = _view_of_self(out)
            elif is_input:
                out = out.detach()
            elif out._base is None:
                out.detach_()
        elif is_modified:
            if out.is_leaf and out.requires_grad:
                raise RuntimeError("a leaf Variable that requires grad has been used in an in-place operation.")
            out._set_history(ctx, index)
        elif is_input:
            out = _view_of_self(out)
            out._grad_fn, out._output_nr = ctx, index
        else:
            out._grad_fn, out._output_nr = ctx, index
        wrapped.append(out)
    object.__setattr__(ctx, "_outputs", tuple(metas))
    return tuple(wrapped)


def _view_of_self(tensor: Tensor) -> Tensor:
    previous = grad_mode.is_grad_enabled()
    grad_mode._set_enabled(False)
    try:
        return tensor.view_as(tensor)
    finally:
        grad_mode._set_enabled(previous)


def _tensor_ids(values: Any) -> set:
    return {id(value) for value in values if isinstance(value, Tensor)}


def _save_variables(ctx: BackwardCFunction) -> None:
    """What save_for_backward was given, kept with its version (an output without its grad_fn)."""
    saved = []
    for position, value in enumerate(getattr(ctx, "to_save", ())):
        if value is None:
            saved.append(None)
        elif isinstance(value, Tensor):
            is_output = value._grad_fn is ctx
            saved.append(SavedTensor(value, is_output=is_output, output_nr=value._output_nr if is_output else 0))
        else:
            raise TypeError(f"save_for_backward can only save variables, but argument {position} is of type "
                            f"{type_name(value)}")
    object.__setattr__(ctx, "_saved_values", tuple(saved))


@torch_class("Error", c_type=True)
class DelayedError(Node):
    """The grad_fn once_differentiable gives a backward's results under create_graph: it fails
    if a second derivative goes through it."""

    __slots__ = ("_message",)

    def __init__(self, message: str, inputs: list) -> None:
        super().__init__(tuple(gradient_edge(t) for t in inputs))
        self._message = message
        self._input_meta = [(t._data.shape, t._dtype) for t in inputs]

    def name(self) -> str:
        return "torch::autograd::Error"

    def apply(self, grads: list) -> list:
        raise RuntimeError(self._message)


def once_differentiable(fn: Callable) -> Callable:
    """A backward that runs without recording a graph: a second derivative through it fails."""

    @functools.wraps(fn)
    def wrapper(ctx: Any, *args: Any) -> Any:
        previous = grad_mode.is_grad_enabled()
        grad_mode._set_enabled(False)
        try:
            outputs = fn(ctx, *args)
        finally:
            grad_mode._set_enabled(previous)
        if not previous or not any(isinstance(arg, Tensor) and arg.requires_grad for arg in args):
            return outputs
        outputs = outputs if isinstance(outputs, tuple) else (outputs,)
        aliases = [out.detach()._set_requires_grad() if isinstance(out, Tensor) else out for out in outputs]
        node = DelayedError(ONCE_DIFFERENTIABLE_MESSAGE, [t for t in aliases if isinstance(t, Tensor)])
        results = []
        for out in aliases:
            if isinstance(out, Tensor):
                out = out._alias(grad_fn=node, output_nr=len([r for r in results if isinstance(r, Tensor)]))
            results.append(out)
        return tuple(results)

    return wrapper


once_differentiable.__module__ = "torch.autograd.function"
class InplaceFunction(Function):
    """Kept by PyTorch for old code that subclasses it: a Function told whether to work in place."""

    __module__ = "torch.autograd.function"

    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace


__all__ = ["Function", "FunctionCtx", "BackwardCFunction", "InplaceFunction", "once_differentiable"]
