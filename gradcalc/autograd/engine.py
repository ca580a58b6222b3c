"""The graph and the engine that walks it backwards.

A Node is PyTorch's `grad_fn`: it points to the nodes of its inputs (`next_functions`) and
never back to the tensor it produced, so a dropped graph is freed by reference counting.
The engine counts each node's dependencies with an explicit stack, then runs a ready queue
ordered by creation (newest first), as PyTorch's engine does: no recursion anywhere.
"""
from __future__ import annotations

import itertools
import re
from functools import partial
from sys import getrefcount
from typing import TYPE_CHECKING, Any, Callable, Optional, Sequence

import numpy as np

from . import anomaly_mode, grad_mode, layout
from .dtypes import FLOATING
from .native import kernels as native
from ..display.names import torch_class, type_name
from ..warnings import warn

if TYPE_CHECKING:
    from .tensor import Tensor

NODE_SEQUENCE = itertools.count()  # the next node's _seq: later nodes run first
LAST = 2 ** 64 - 1  # the sequence number of every AccumulateGrad (UINT64_MAX in PyTorch)

FREED_MESSAGE = (
    "Trying to backward through the graph a second time (or directly access saved tensors after "
    "they have already been freed). Saved intermediate values of the graph are freed when you call "
    ".backward() or autograd.grad(). Specify retain_graph=True if you need to backward through the "
    "graph a second time or if you need to access saved tensors after calling backward."
)


class Node:
    """One recorded operation: `grad_fn` of the tensors it produced."""

    __slots__ = ("next_functions", "_seq", "_input_meta", "_tensor_hooks", "_retained", "_node_hooks", "_metadata",
                 "__weakref__")

    def __init__(self, next_functions: tuple = (), input_meta: Sequence = ()) -> None:
        self.next_functions = next_functions
        self._seq = next(NODE_SEQUENCE)
        self._input_meta = input_meta  # (shape, dtype) of each input, to check returned gradients
        self._tensor_hooks: Optional[dict] = None  # output_nr -> hooks registered on that output
        self._retained: Optional[dict] = None  # output_nr -> weakref of an output that retains grad
        self._node_hooks: Optional[NodeHooks] = None  # register_prehook and register_hook
        self._metadata: Optional[dict] = None

    def name(self) -> str:
        return type(self).__name__

    def apply(self, grads: list) -> list:
        raise NotImplementedError

    def release(self) -> None:
        """Free saved values once a backward without retain_graph has passed."""

    @property
    def metadata(self) -> dict:
        if self._metadata is None:
            self._metadata = {}
        return self._metadata

    def register_hook(self, fn: Callable) -> "RemovableHandle":
        """`fn(grad_inputs, grad_outputs)` after the node has run; it may replace grad_inputs."""
        return self._add_hook(fn, pre=False)

    def register_prehook(self, fn: Callable) -> "RemovableHandle":
        """`fn(grad_outputs)` before the node runs; it may replace grad_outputs."""
        return self._add_hook(fn, pre=True)

    def _add_hook(self, fn: Callable, pre: bool) -> "RemovableHandle":
        if self._node_hooks is None:
            self._node_hooks = NodeHooks()
        hooks = self._node_hooks.pre if pre else self._node_hooks.post
        hooks.append(fn)
        return RemovableHandle(lambda: remove_hook(hooks, fn))

    def __repr__(self) -> str:
        return f"<{type(self).__name__} object at {hex(id(self))}>"


class NodeHooks:
    """A node's own hooks: prehooks see and may replace its gradients before it runs, hooks
    see its results (and its gradients) after."""

    __slots__ = ("pre", "post")

    def __init__(self) -> None:
        self.pre: list = []
        self.post: list = []


@torch_class("torch.utils.hooks.RemovableHandle")
class RemovableHandle:
    """What register_hook returns: `handle.remove()` takes the hook away."""

    __slots__ = ("_remove",)

    def __init__(self, remove: Callable[[], None]) -> None:
        self._remove = remove

    def remove(self) -> None:
        self._remove()


def remove_hook(hooks: Optional[list], hook: Callable) -> None:
    if hooks and hook in hooks:
        hooks.remove(hook)


@torch_class("AccumulateGrad", c_type=True)
class AccumulateGrad(Node):
    """The node of a leaf that requires grad: adds the incoming gradient into `leaf.grad`."""

    __slots__ = ("variable",)

    def __init__(self, variable: "Tensor") -> None:
        super().__init__(())
        self._seq = LAST  # as in PyTorch: a leaf's gradient is accumulated as soon as it is ready
        self.variable = variable
        self._input_meta = [(variable.shape, variable.dtype)]

    def name(self) -> str:
        return "torch::autograd::AccumulateGrad"

    def accumulate(self, grad: "Tensor", create_graph: bool) -> None:
        leaf = self.variable
        if leaf._grad is None:
            # with create_graph, PyTorch copies into a fresh tensor: the copy is part of the graph;
            # otherwise it takes a gradient nothing else holds as it is (AccumulateGrad's steal)
            if create_graph:
                grad = grad.detach().clone().copy_(grad)
            elif not _unshared(grad):
                grad = grad._copy()
            if not leaf._data.flags.c_contiguous:
                grad._data = layout.as_gradient_of(grad._data, leaf._data)
            leaf._grad = grad
        elif create_graph or grad_mode.is_grad_enabled():
            leaf._grad = leaf._grad + grad
        else:
            leaf._grad.add_(grad)


def _unshared(grad: "Tensor") -> bool:
    """Whether no one but the caller (AccumulateGrad.accumulate, called by the engine with the
    gradient taken out of its buffers) holds `grad` or its values: a plain tensor with no
    history whose array (or the array it is a reshaped view of, as a summed gradient is) is
    referenced only by it. Counted: accumulate's name, this call's and getrefcount's arguments;
    the array: the tensor, `data` and getrefcount; its base: the array, `base` and getrefcount."""
    data = grad._data
    if getrefcount(grad) != 3 or getrefcount(data) != 3 or grad._node is not None or grad._requires_grad \
            or grad._base is not None or grad._fw is not None or not data.flags.c_contiguous:
        return False  # (a copy is C-contiguous: the layout a stolen gradient must have already)
    base = data.base
    return base is None or (base.base is None and type(base) is np.ndarray and getrefcount(base) == 3)


def forward_name(node: Node) -> str:
    return re.sub(r"Backward\d*$", "", node.name())


NO_EDGE = (None, 0)  # the edge of an input that takes no gradient, one tuple for all nodes


def gradient_edge(tensor: "Tensor") -> tuple:
    """Where a gradient for `tensor` goes: its grad_fn, or its leaf accumulator."""
    # a view's grad_fn may need refreshing after an in-place change (Tensor._grad_fn); others' is _node
    node = tensor._node if tensor._base is None else tensor._grad_fn
    if node is not None:
        return (node, tensor._output_nr)
    if tensor._requires_grad:
        return (tensor._grad_accumulator(), 0)
    return NO_EDGE


def run_backward(roots: list, grad_roots: list, *, retain_graph: bool, create_graph: bool,
                 inputs: Optional[list] = None, accumulate: bool = True) -> Optional[list]:
    """Backpropagate `grad_roots` from `roots`. With `accumulate`, leaf gradients go into
    `.grad` (only of `inputs`, when given); without it, the gradients reaching `inputs`
    are returned instead (torch.autograd.grad)."""
    # (a GradientEdge, a tuple, names its node and output itself)
    root_edges = [tuple(t[:2]) if isinstance(t, tuple) else gradient_edge(t) for t in roots]
    root_nodes = list(dict.fromkeys(node for node, _ in root_edges if node is not None))
    # node -> how many edges lead to it; its keys are the nodes reached
    dependencies: dict = dict.fromkeys(root_nodes, 0)
    # node -> nodes that send it a gradient, to prune what grad() needn't run
    parents: Optional[dict] = {} if inputs is not None else None
    stack = list(root_nodes)
    while stack:
        node = stack.pop()
        for child, _ in node.next_functions:
            if child is None:
                continue
            if child in dependencies:
                dependencies[child] += 1
            else:
                dependencies[child] = 1
                stack.append(child)
            if parents is not None:
                parents.setdefault(child, []).append(node)

    captures: dict = {}  # (node, output_nr) -> indices into inputs (an input may be given twice)
    if inputs is not None:
        for index, tensor in enumerate(inputs):
            # a GradientEdge (torch.autograd.graph) names its node itself
            edge = tuple(tensor[:2]) if isinstance(tensor, tuple) else gradient_edge(tensor)
            captures.setdefault(edge, []).append(index)
    targets = {node for node, _ in captures}
    needed = _nodes_leading_to(targets, parents) if parents is not None else None
    captured: list = [None] * len(inputs or ())

    buffers: dict = {}
    ready = _ReadyQueue()
    heap = ready.heap
    for (node, output_nr), grad in zip(root_edges, grad_roots):
        if node is not None:
            _add_to_buffer(buffers, node, output_nr, grad)
    for node in root_nodes:
        if dependencies[node] == 0:
            ready.push(node)

    previous_mode = grad_mode.is_grad_enabled()
    grad_mode._set_enabled(create_graph)
    running_tasks.append(GraphTask(dependencies, needed, targets))
    run = _Run(buffers, dependencies, ready, needed, targets, captures, captured, accumulate, create_graph,
               retain_graph)
    try:
        if native is not None and needed is None and not captures:  # the loop in C, each plain node's turn too
            native.run_ready(_turn, run, heap, buffers, dependencies, retain_graph)
        else:
            while heap:
                # a chain keeps one node ready at a time: no heap to reorder
                _turn(run, heap.pop() if len(heap) == 1 else ready.pop())
    finally:
        grad_mode._set_enabled(previous_mode)
        running_tasks.pop()
    return None if accumulate else captured


class _Run:
    """One backward pass's state, which each node's turn reads and updates."""

    __slots__ = ("buffers", "dependencies", "ready", "needed", "targets", "captures", "captured", "accumulate",
                 "create_graph", "retain_graph")

    def __init__(self, buffers: dict, dependencies: dict, ready: "_ReadyQueue", needed: Optional[set], targets: set,
                 captures: dict, captured: list, accumulate: bool, create_graph: bool, retain_graph: bool) -> None:
        self.buffers, self.dependencies, self.ready = buffers, dependencies, ready
        self.needed, self.targets, self.captures, self.captured = needed, targets, captures, captured
        self.accumulate, self.create_graph, self.retain_graph = accumulate, create_graph, retain_graph


def _turn(run: _Run, node: Node) -> None:
    """NODE's turn: the gradients buffered for it, its hooks, its formula (or a leaf's
    accumulation), its results into the buffers of the nodes it feeds, those now ready queued.
    (The native loop takes these steps itself for a node with no hooks: csrc/engine.c.)"""
    needed, buffers, dependencies = run.needed, run.buffers, run.dependencies
    if needed is not None and node not in needed and node not in run.targets:
        return  # leads to no input: not run, its hooks do not fire
    grads = buffers.pop(node, None) or {}
    is_leaf = node.__class__ is AccumulateGrad
    if node._tensor_hooks or node._retained or (is_leaf and node.variable._hooks):
        grads = _run_pre_hooks(node, grads)
    if run.captures:
        for output_nr, grad in grads.items():
            for index in run.captures.get((node, output_nr), ()):
                run.captured[index] = grad
    if is_leaf:
        if run.accumulate and 0 in grads:
            node.accumulate(grads.pop(0), run.create_graph)
            if node.variable._hooks:
                _run_post_accumulate_hooks(node.variable)
        return
    if needed is not None and node not in needed:
        return
    try:
        if len(grads) == 1 and 0 in grads:  # one output, the common case
            grad_outputs = [grads[0]]
        else:
            grad_outputs = [grads.get(i) for i in range(max(grads, default=0) + 1)]
        if node._node_hooks is not None:
            grad_outputs = _run_node_hooks(node, node._node_hooks.pre, (grad_outputs,))
        input_grads = node.apply(grad_outputs)
        if node._node_hooks is not None and node._node_hooks.post:
            input_grads = _run_node_hooks(node, node._node_hooks.post, (input_grads, grad_outputs))
        if anomaly_mode._enabled and anomaly_mode._check_nan:
            _check_nan(node, input_grads)
    except Exception:
        if anomaly_mode._enabled:
            warn("UserWarning", f"Error detected in {node.name()}. Traceback of forward call that caused "
                                "the error:")
        raise
    if not run.retain_graph:
        node.release()
    meta = node._input_meta
    heap = run.ready.heap
    for i, ((child, output_nr), grad) in enumerate(zip(node.next_functions, input_grads)):
        if child is None:
            continue
        if grad is not None:
            shape, dtype = meta[i]
            if grad._dtype is not dtype or grad._data.shape != shape:
                grad = _validate(node, i, grad)
            slot = buffers.get(child)
            if slot is None:
                buffers[child] = {output_nr: grad}
            else:
                previous = slot.get(output_nr)
                slot[output_nr] = grad if previous is None else previous + grad
        remaining = dependencies[child] - 1
        dependencies[child] = remaining
        if remaining == 0:
            if heap:
                run.ready.push(child)
            else:
                heap.append(child)


class GraphTask:
    """One backward pass, as its hooks may ask about it (torch.autograd.graph.register_multi_grad_hook)."""

    __slots__ = ("reachable", "needed", "targets", "__weakref__")

    def __init__(self, reachable: Any, needed: Optional[set], targets: set) -> None:
        self.reachable = reachable
        self.needed = needed
        self.targets = targets

    def will_execute(self, node: Optional[Node]) -> bool:
        if node is None or node not in self.reachable:
            return False
        if self.needed is None:
            return True
        return node in self.targets if isinstance(node, AccumulateGrad) else node in self.needed


running_tasks: list = []  # the backward passes under way, innermost last (a hook may run a backward)


def _run_node_hooks(node: Node, hooks: list, arguments: tuple) -> list:
    """Each hook sees the gradients as tuples; what it returns (a tuple as long) replaces the first."""
    values = list(arguments[0])
    for hook in list(hooks):
        result = hook(*[tuple(values)] + [tuple(rest) for rest in arguments[1:]])
        if result is None:
            continue
        result = result if isinstance(result, (tuple, list)) else (result,)
        if len(result) != len(values):
            raise RuntimeError(f"hook '{getattr(hook, '__name__', type(hook).__name__)}' has returned an incorrect "
                               f"number of values (got {len(result)}, but expected {len(values)})")
        for original, value in zip(values, result):
            if value is not None:
                if original is None:
                    raise RuntimeError("can't replace a None gradient with a non-None value")
                _check_hook_result(hook, original, value)
        values = list(result)
    return values


def _check_nan(node: Node, grads: list) -> None:
    for index, grad in enumerate(grads):
        if grad is not None and grad._dtype.category >= FLOATING and grad.isnan().any():
            raise RuntimeError(f"Function '{node.name()}' returned nan values in its {index}th output.")


def _nodes_leading_to(targets: set, parents: dict) -> set:
    """The nodes with a path to a target; a target itself runs only if it leads to another."""
    needed: set = set()
    stack = list(targets)
    while stack:
        for parent in parents.get(stack.pop(), ()):
            if parent not in needed:
                needed.add(parent)
                stack.append(parent)
    return needed


def _add_to_buffer(buffers: dict, node: Node, output_nr: int, grad: "Tensor") -> None:
    slot = buffers.setdefault(node, {})
    previous = slot.get(output_nr)
    slot[output_nr] = grad if previous is None else previous + grad


class _ReadyQueue:
    """PyTorch's ready queue: a std::priority_queue of nodes, latest created first. Its heap
    steps are libstdc++'s, so that nodes of equal priority (leaves' AccumulateGrad) come out
    in the same order as in PyTorch. (The native module takes the same steps: csrc/heap.c.)"""

    def __init__(self) -> None:
        self.heap: list = []
        if native is not None:
            heap = self.heap
            self.push = partial(native.heap_push, heap)
            self.pop = partial(native.heap_pop, heap)

    def push(self, node: Node) -> None:
        self.heap.append(node)
        self._sift_up(len(self.heap) - 1, 0, node)

    def pop(self) -> Node:
        heap = self.heap
        top, last = heap[0], heap.pop()
        if heap:
            # libstdc++'s __adjust_heap: move the hole down to a leaf, then sift `last` up
            length, hole, child = len(heap), 0, 0
            while child < (length - 1) // 2:
                child = 2 * (child + 1)
                if heap[child]._seq < heap[child - 1]._seq:
                    child -= 1
                heap[hole] = heap[child]
                hole = child
            if length % 2 == 0 and child == (length - 2) // 2:
                child = 2 * (child + 1)
                heap[hole] = heap[child - 1]
                hole = child - 1
            self._sift_up(hole, 0, last)
        return top

    def _sift_up(self, hole: int, top: int, node: Node) -> None:
        heap = self.heap
        parent = (hole - 1) // 2
        while hole > top and heap[parent]._seq < node._seq:
            heap[hole] = heap[parent]
            hole = parent
            parent = (hole - 1) // 2
        heap[hole] = node


class PostAccumulateGradHook:
    """A leaf's hook that runs after its .grad is updated (kept with the leaf's other hooks)."""

    __slots__ = ("hook",)

    def __init__(self, hook: Callable) -> None:
        self.hook = hook


def _run_post_accumulate_hooks(leaf: "Tensor") -> None:
    for hook in list(leaf._hooks or ()):
        if isinstance(hook, PostAccumulateGradHook):
            hook.hook(leaf)


def _run_pre_hooks(node: Node, grads: dict) -> dict:
    """Hooks registered on the tensor (a leaf's are kept on it), then retain_grad, run before
    the node: they see the gradient first and may replace it."""
    if isinstance(node, AccumulateGrad) and node.variable._hooks and grads.get(0) is not None:
        for hook in list(node.variable._hooks):
            if not isinstance(hook, PostAccumulateGradHook):
                grads[0] = _call_hook(hook, grads[0])
    if node._tensor_hooks:
        for output_nr, hooks in node._tensor_hooks.items():
            for hook in list(hooks):
                if grads.get(output_nr) is not None:
                    grads[output_nr] = _call_hook(hook, grads[output_nr])
    if node._retained:
        for output_nr, ref in node._retained.items():
            tensor = ref()
            grad = grads.get(output_nr)
            if tensor is None or grad is None:
                continue
            # recorded when create_graph is on, as PyTorch's retain_grad hook does
            tensor._grad = grad.clone() if tensor._grad is None else tensor._grad + grad
    return grads


def _call_hook(hook: Callable, grad: "Tensor") -> "Tensor":
    """A tensor hook's replacement gradient, checked as PyTorch checks it."""
    result = hook(grad)
    if result is None:
        return grad
    _check_hook_result(hook, grad, result)
    return result


def _check_hook_result(hook: Callable, grad: "Tensor", result: Any) -> None:
    """PyTorch's check of a gradient a hook returns in place of `grad`: a tensor of its type and size."""
    if not isinstance(result, type(grad)):
        raise TypeError(f"expected Variable, but hook returned '{type_name(result)}'")
    name = getattr(hook, "__name__", type(hook).__name__)
    if result.dtype is not grad.dtype:
        raise RuntimeError(f"hook '{name}' has changed the type of value (was torch.{grad.dtype.tensor_type} got "
                           f"torch.{result.dtype.tensor_type})")
    if result.shape != grad.shape:
        raise RuntimeError(f"hook '{name}' has changed the size of value")


def _validate(node: Node, index: int, grad: "Tensor") -> "Tensor":
    """Sum a broadcast gradient back to its input's shape and give it the input's dtype."""
    shape, dtype = node._input_meta[index]
    if grad._data.shape != shape:
        if not _expandable(shape, grad._data.shape):
            raise RuntimeError(
                f"Function {node.name()} returned an invalid gradient at index {index} - got "
                f"[{', '.join(map(str, grad.shape))}] but expected shape compatible with "
                f"[{', '.join(map(str, shape))}]")
        grad = sum_to_size(grad, shape)
    if grad._dtype is not dtype and not (dtype.is_complex and not grad._dtype.is_complex):
        if grad.dtype.is_complex:  # a real input's gradient is the real part of a complex one
            grad = grad.real
        grad = grad.to(dtype) if grad.dtype is not dtype else grad
    return grad


# Tensor.sum_to_size's implementation, called without its argument parsing: set by the op
# registry (ops/reduction.py), which imports this module
sum_to_size: Callable[["Tensor", tuple], "Tensor"]


def _expandable(shape: tuple, target: tuple) -> bool:
    if len(shape) > len(target):
        return False
    for size, target_size in zip(reversed(shape), reversed(target)):
        if size != target_size and size != 1:
            return False
    return True


if native is not None:  # what the native loop reads (csrc/graph.c)
    native.prepare_engine(Node, AccumulateGrad, _validate, vars(anomaly_mode))
