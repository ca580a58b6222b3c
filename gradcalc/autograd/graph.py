"""torch.autograd.graph: the graph's nodes and edges, hooks on saved tensors and on several
tensors' gradients at once."""
from __future__ import annotations

import abc
import contextlib
import weakref
from typing import Any, Callable, Iterable, Iterator, NamedTuple

from . import engine, saved_variable
from .engine import RemovableHandle
from .tensor import Tensor
from ..display.names import torch_class

__all__ = ["Node", "GradientEdge", "get_gradient_edge", "saved_tensors_hooks", "save_on_cpu",
           "disable_saved_tensors_hooks", "register_multi_grad_hook", "allow_mutation_on_saved_tensors",
           "increment_version"]


@torch_class("torch.autograd.graph.Node")
class Node(abc.ABC):
    """What every grad_fn is an instance of (`isinstance(y.grad_fn, Node)`), as in PyTorch an
    abstract class its C nodes are registered with."""

    @abc.abstractmethod
    def name(self) -> str:
        raise NotImplementedError

    @property
    @abc.abstractmethod
    def next_functions(self) -> tuple:
        raise NotImplementedError

    @abc.abstractmethod
    def metadata(self) -> dict:
        raise NotImplementedError

    @property
    @abc.abstractmethod
    def _input_metadata(self) -> list:
        raise NotImplementedError

    @abc.abstractmethod
    def _register_hook_dict(self, tensor: Tensor) -> None:
        raise NotImplementedError

    @abc.abstractmethod
    def register_hook(self, fn: Callable) -> RemovableHandle:
        raise NotImplementedError

    @abc.abstractmethod
    def register_prehook(self, fn: Callable) -> RemovableHandle:
        raise NotImplementedError

    @abc.abstractmethod
    def _sequence_nr(self) -> int:
        raise NotImplementedError

    @classmethod
    def __subclasshook__(cls, subclass: type) -> Any:
        if cls is Node and issubclass(subclass, engine.Node):
            return True
        return NotImplemented


@torch_class("torch.autograd.graph.GradientEdge")
class GradientEdge(NamedTuple):
    """Where a gradient goes: a node and which of its inputs."""

    node: Any
    output_nr: int
    ownership_token: Any = None


# node -> {output_nr: (shape, dtype)} of the tensors whose edges were asked for: what PyTorch
# reads from the node's input metadata when an edge stands for an output (autograd.grad's
# implicit gradient of it)
EDGE_OUTPUTS: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def get_gradient_edge(tensor: Tensor) -> GradientEdge:
    if not tensor.requires_grad:
        raise RuntimeError("It is not possible to get the gradient edge for a Tensor that does not require gradients")
    edge = GradientEdge(*engine.gradient_edge(tensor))
    EDGE_OUTPUTS.setdefault(edge.node, {})[edge.output_nr] = (tuple(tensor.shape), tensor._dtype)
    return edge


@torch_class("torch.autograd.graph.saved_tensors_hooks")
class saved_tensors_hooks:
    """Within the context, every tensor saved for backward is kept as `pack_hook(tensor)`, and
    made a tensor again with `unpack_hook` when backward (or `_saved_x`) reads it."""

    def __init__(self, pack_hook: Callable, unpack_hook: Callable) -> None:
        self.pack_hook = pack_hook
        self.unpack_hook = unpack_hook

    def __enter__(self) -> None:
        saved_variable.check_hooks_enabled()
        saved_variable.default_hooks.append((self.pack_hook, self.unpack_hook))

    def __exit__(self, *exc_info: Any) -> None:
        saved_variable.default_hooks.pop()


@torch_class("torch.autograd.graph.save_on_cpu")
class save_on_cpu(saved_tensors_hooks):
    """Saved tensors kept on the CPU, brought back to their device when used."""

    def __init__(self, pin_memory: bool = False, device_type: str = "cuda") -> None:
        def pack_to_cpu(tensor: Tensor) -> tuple:
            # memory is pinned for an accelerator, if one is available: asked of the CPU, it fails
            if pin_memory and device_type == "cpu":
                raise RuntimeError("pin_memory=True requires a CUDA or other accelerator backend; no pinned memory "
                                   "allocator is available on this system.")
            return tensor.device, tensor.cpu()

        def unpack_from_cpu(packed: tuple) -> Tensor:
            device, tensor = packed
            return tensor.to(device)

        super().__init__(pack_to_cpu, unpack_from_cpu)


@contextlib.contextmanager
def disable_saved_tensors_hooks(error_message: str) -> Iterator[None]:
    """Saved tensor hooks raise `error_message` within the context (registering them, or saving while some are on)."""
    previous = saved_variable.disabled_message
    try:
        saved_variable.disable_hooks(error_message)
        yield
    finally:
        saved_variable.disable_hooks(previous)


@torch_class("torch.autograd.graph._MultiHandle")
class _MultiHandle:
    """What register_multi_grad_hook returns: `remove()` takes away the hook on every tensor."""

    __slots__ = ("handles",)

    def __init__(self, handles: tuple) -> None:
        self.handles = handles

    def remove(self) -> None:
        for handle in self.handles:
            handle.remove()


def register_multi_grad_hook(tensors: Iterable[Tensor], fn: Callable, *, mode: str = "all") -> _MultiHandle:
    """`fn` once per backward: with mode "all", given the list of the tensors' gradients (None
    where none is computed) once all that backward computes are in; with "any", given the first."""
    if mode not in ("all", "any"):
        raise ValueError(f"Expects mode to be one of ('all', 'any') but got {mode}")
    tensors = tuple(tensors)
    if mode == "any":
        fired: weakref.WeakSet = weakref.WeakSet()  # the backward passes in which fn has run

        def on_first(grad: Tensor) -> None:
            task = engine.running_tasks[-1]
            if task not in fired:
                fired.add(task)
                fn(grad)

        return _MultiHandle(tuple(tensor.register_hook(on_first) for tensor in tensors if tensor.requires_grad))

    nodes = [engine.gradient_edge(tensor)[0] for tensor in tensors]
    if None in nodes:
        raise AssertionError("Expected gradient function to be set")  # torch's _get_grad_fn_or_grad_acc
    # per backward pass: the gradients so far and how many hooks have run
    pending: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()

    def hook_for(index: int) -> Callable:
        def collect(grad: Tensor) -> None:
            task = engine.running_tasks[-1]
            if task not in pending:
                pending[task] = [[None] * len(tensors), 0, sum(map(task.will_execute, nodes))]
            state = pending[task]
            state[0][index] = grad
            state[1] += 1
            if state[1] == state[2]:
                del pending[task]
                fn(state[0])

        return collect

    return _MultiHandle(tuple(tensor.register_hook(hook_for(index)) for index, tensor in enumerate(tensors)))


@torch_class("torch.autograd.graph._AllowMutationOnSavedContext")
class _AllowMutationOnSavedContext:
    """What `allow_mutation_on_saved_tensors()` gives: whether its context is still open."""

    __slots__ = ("_open",)

    def __init__(self) -> None:
        self._open = True


_mutation_contexts: list = []


@contextlib.contextmanager
def allow_mutation_on_saved_tensors() -> Iterator[_AllowMutationOnSavedContext]:
    """Tensors saved within the context may be changed in place afterwards: backward uses
    their values from when they were saved (kept as copies)."""
    if _mutation_contexts:
        raise RuntimeError("allow_mutation_on_saved_tensors contexts cannot be nested")
    context = _AllowMutationOnSavedContext()

    def keep_copy(tensor: Tensor) -> Tensor:
        return tensor.detach().clone()

    def give_copy(copy: Tensor) -> Tensor:
        if not context._open:
            raise AssertionError("Trying to backward outside of the 'allow_mutation_on_saved_tensors' context"
                                 "in which the graph was originally recorded.")
        return copy

    _mutation_contexts.append(context)
    try:
        with saved_tensors_hooks(keep_copy, give_copy):
            yield context
    finally:
        context._open = False
        _mutation_contexts.pop()


def increment_version(tensor: Any) -> None:
    """Count an in-place change of `tensor` (or of each of an iterable of tensors) made behind autograd's back."""
    for each in (tensor,) if isinstance(tensor, Tensor) else tensor:
        each._vc.value += 1
