"""`:graph NAME` and `gradcalc --graph NAME`: the autograd graph behind a tensor, in the terminal.

Each node shows PyTorch's name (`grad_fn.name()`), the session's tensors it is the grad_fn of,
what it saved (its `_saved_*` attributes, or that backward freed them), hooks and retained
grads; an `AccumulateGrad` shows its leaf. A node's inputs (`next_functions`) are drawn below
it: one input straight below, several as a fork (├─ └─), so a long chain stays a column; the
None among them (inputs that need no gradient) are only counted (`+1 None`). A node
reached twice is drawn once, numbered, and referred to after that. A straight run of MIN_RUN or
more nodes whose lines would read the same (`y = y * 2` in a loop) is drawn as one line,
`MulBackward0 ×10,000`. A big graph is cut after MAX_SHOWN lines and summarised: how many more
nodes of each kind, and the leaves it reaches.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Optional

from ..autograd.engine import AccumulateGrad, Node
from ..autograd.tensor import Tensor
from . import inspection
from .inspection import reading_program, tensor_property

MAX_SHOWN = 50  # lines of nodes drawn before the cut (a collapsed run is one)
MIN_RUN = 3  # two equal lines read better than `×2`
MAX_LEAVES_LISTED = 12
FREED = "freed by backward"


@dataclass
class Leaf:
    """The tensor an AccumulateGrad adds gradients into."""

    names: list[str]
    description: str  # shape and dtype
    grad: str
    hooks: int


@dataclass
class GraphNode:
    name: str
    inputs: list[tuple[Optional[int], int]]  # (index of the input's node or None, output_nr), as next_functions
    saved: list[tuple[str, str]] = field(default_factory=list)  # (name after `_saved_`, value or FREED)
    tensors: list[str] = field(default_factory=list)  # the session's tensors this node is the grad_fn of
    retained: list[str] = field(default_factory=list)  # outputs that retain their grad, with it
    hooks: int = 0
    leaf: Optional[Leaf] = None
    uses: int = 0  # edges of the graph that reach this node


@dataclass
class Graph:
    """What `:graph` shows: a title, and either the nodes (the root first) or why there are none."""

    title: str
    nodes: list[GraphNode]
    remark: str = ""


class GraphError(Exception):
    """NAME names nothing that has a graph: the message says why."""


# ------------------------------------------------------------------ collecting

_DOTTED_NAME = re.compile(r"[^\W\d]\w*(?:\.[^\W\d]\w*)*")


def lookup_tensor(namespace: dict, builtins: dict, dotted: str) -> Any:
    """The value `:graph NAME` draws: a name or a dotted chain (`model.weight`), read as the program reads it."""
    if not _DOTTED_NAME.fullmatch(dotted):
        raise GraphError(f"'{dotted}' is not a name (a name or a dotted chain of names, as in y or model.weight)")
    try:
        return inspection.lookup(namespace, builtins, dotted)
    except KeyError:
        raise GraphError(f"name '{dotted.split('.')[0]}' is not defined") from None
    except Exception as error:  # the guard's AttributeError, or a property that failed
        with reading_program():  # the message of a program's exception is the program's code
            message = inspection.error_line(error)
        raise GraphError(message) from None


def collect(value: Any, label: str, namespace: dict) -> Graph:
    """The graph behind `value` (a tensor or a grad_fn), read from the program's objects."""
    with reading_program():
        if isinstance(value, Tensor):
            root = tensor_property(value, "grad_fn")
            title = f"{label}: {_describe_tensor(value, root)}"
            if root is None:
                return Graph(title, [], _why_no_graph(label, value))
        elif isinstance(value, Node):
            root, title = value, f"{label}: {inspection.node_name(value)}"
        else:
            raise GraphError(f"'{label}' is a {type(value).__name__}, not a tensor: :graph draws the graph behind a "
                             "tensor")
        return Graph(title, _Reader(namespace).walk(root))


def _describe_tensor(tensor: Tensor, grad_fn: Any) -> str:
    text = f"tensor {inspection.describe_shape(tensor)} {inspection.describe_dtype(tensor)}"
    if grad_fn is not None:
        return f"{text}, grad_fn=<{inspection.node_name(grad_fn)}>"
    return f"{text}, requires_grad={tensor_property(tensor, 'requires_grad')}"


def _why_no_graph(label: str, tensor: Tensor) -> str:
    if not tensor_property(tensor, "requires_grad"):
        return f"{label} does not require grad: no graph is recorded for it"
    grad = inspection.grad_of(tensor)
    shown = inspection.short_value(grad) if grad is not None else "None"
    return f"{label} is a leaf: backward() accumulates its gradient into {label}.grad (now {shown})"


class _Reader:
    def __init__(self, namespace: dict) -> None:
        self.names_of_tensor: dict[int, list[str]] = {}
        self.names_of_node: dict[int, list[str]] = {}
        for name, value in inspection.variables(namespace):
            if isinstance(value, Tensor):
                self.names_of_tensor.setdefault(id(value), []).append(name)
                grad_fn = tensor_property(value, "grad_fn")
                if grad_fn is not None:
                    self.names_of_node.setdefault(id(grad_fn), []).append(name)

    def walk(self, root: Any) -> list[GraphNode]:
        """Every node reachable from `root`, numbered in the order of a depth-first walk (no recursion:
        a chain may be a million nodes deep)."""
        index: dict[int, int] = {}
        order: list[Any] = []
        stack = [root]
        while stack:
            node = stack.pop()
            if id(node) in index:
                continue
            index[id(node)] = len(order)
            order.append(node)
            stack.extend(reversed([edge[0] for edge in _next_functions(node) if edge[0] is not None]))
        nodes = []
        for node in order:
            inputs = [(index[id(target)] if target is not None else None, nr) for target, nr in _next_functions(node)]
            nodes.append(self._read(node, inputs))
        for node in nodes:
            for target, _ in node.inputs:
                if target is not None:
                    nodes[target].uses += 1
        return nodes

    def _read(self, node: Any, inputs: list) -> GraphNode:
        shown = GraphNode(inspection.node_name(node), inputs, tensors=self.names_of_node.get(id(node), []))
        shown.saved = [(name, self._saved_value(node, name)) for name in _saved_names(node)]
        shown.hooks, retained = _hooks_and_retained(node)
        shown.retained = [self._retained_text(tensor) for tensor in retained]
        if isinstance(node, AccumulateGrad):
            shown.leaf = self._leaf(node.variable)
        return shown

    def _saved_value(self, node: Any, name: str) -> str:
        try:
            value = getattr(node, "_saved_" + name)
        except RuntimeError as error:
            return FREED if "backward through the graph a second time" in str(error) else "unreadable"
        if isinstance(value, Tensor):
            names = self.names_of_tensor.get(id(value))
            return names[0] if names else inspection.short_value(value)
        return inspection.safe_repr(value)

    def _leaf(self, tensor: Tensor) -> Leaf:
        grad = inspection.grad_of(tensor)
        return Leaf(self.names_of_tensor.get(id(tensor), []),
                    f"{inspection.describe_shape(tensor)} {inspection.describe_dtype(tensor)}",
                    inspection.short_value(grad) if grad is not None else "None",
                    _leaf_hooks(tensor))

    def _retained_text(self, tensor: Tensor) -> str:
        names = self.names_of_tensor.get(id(tensor))
        grad = inspection.grad_of(tensor)
        shown = inspection.short_value(grad) if grad is not None else "None"
        return f"{names[0] if names else 'output'}.grad = {shown}"


def _next_functions(node: Any) -> tuple:
    edges = getattr(node, "next_functions", ())
    return edges if isinstance(edges, tuple) else ()


def _saved_names(node: Any) -> list[str]:
    """The `_saved_<name>` attributes the node's class declares, in declaration order (read from the
    classes, so that nothing runs)."""
    names: dict[str, None] = {}
    for cls in reversed(type(node).__mro__):
        names.update((attribute.removeprefix("_saved_"), None) for attribute in vars(cls)
                     if attribute.startswith("_saved_"))
    return list(names)


# PyTorch has no public reader for a tensor's hooks or a node's retained outputs: these two read
# where gradcalc keeps them (a tensor's `_hooks`; a node's `_tensor_hooks`, `_node_hooks` and
# `_retained`), through gradcalc's own slots, whatever a program's subclass defines.

def _leaf_hooks(tensor: Tensor) -> int:
    return len(Tensor._hooks.__get__(tensor, Tensor) or ())


def _hooks_and_retained(node: Any) -> tuple[int, list[Tensor]]:
    """How many hooks wait on the node and its outputs, and its outputs that retain their grad."""
    if not isinstance(node, Node):
        return 0, []
    hooks = sum(len(entries) for entries in (Node._tensor_hooks.__get__(node, Node) or {}).values())
    own = Node._node_hooks.__get__(node, Node)  # the node's register_prehook and register_hook
    if own is not None:
        hooks += len(own.pre) + len(own.post)
    retained = [ref() for ref in (Node._retained.__get__(node, Node) or {}).values()]
    return hooks, [tensor for tensor in retained if tensor is not None]


# ------------------------------------------------------------------ drawing

def render(graph: Graph) -> Any:
    """A Rich Text: the title, the drawing (or why there is none), a summary when cut."""
    from rich.text import Text

    text = Text()
    text.append(graph.title, style="bold")
    if not graph.nodes:
        text.append("\n" + graph.remark, style="dim")
        return text
    leaves = [node for node in graph.nodes if node.leaf is not None]
    text.append(f"\n{_count(len(graph.nodes), 'node')}, {_count(len(leaves), 'leaf', 'leaves')}", style="dim")
    shown = _draw(graph.nodes, text)
    hidden = [node for position, node in enumerate(graph.nodes) if position not in shown]
    if hidden:
        _summarise(hidden, leaves, text)
    return text


def _draw(nodes: list[GraphNode], text: Any) -> set:
    """The tree, depth-first from the root, at most MAX_SHOWN lines of nodes; returns the positions drawn."""
    numbers: dict[int, int] = {}  # position -> #number, for nodes reached more than once
    drawn: set = set()
    lines = 0  # a collapsed run is many nodes on one line
    # (input edge, prefix of its line, prefix of the lines below it)
    stack: list[tuple[tuple[int, int], str, str]] = [((0, 0), "", "")]
    while stack:
        (position, output_nr), line_prefix, below = stack.pop()
        text.append("\n" + line_prefix, style="dim")
        node = nodes[position]
        if position in drawn:
            text.append(f"{node.name} #{numbers[position]}", style="magenta")
            text.append("  (drawn above)", style="dim")
            continue
        if lines == MAX_SHOWN:
            text.append("...", style="dim")
            stack.clear()
            break
        lines += 1
        run = straight_run(nodes, position, output_nr, drawn)
        if len(run) >= MIN_RUN:
            drawn.update(run)
            _label(node, None, output_nr, text, len(run))
            stack.append((single_input(nodes[run[-1]]), below, below))
            continue
        drawn.add(position)
        if node.uses > 1:
            numbers[position] = len(numbers) + 1
        _label(node, numbers.get(position), output_nr, text)
        inputs = [edge for edge in node.inputs if edge[0] is not None]
        if len(inputs) == 1:
            stack.append((inputs[0], below, below))
            continue
        for i in reversed(range(len(inputs))):
            last = i == len(inputs) - 1
            stack.append((inputs[i], below + ("└─ " if last else "├─ "), below + ("   " if last else "│  ")))
    return drawn


def single_input(node: GraphNode) -> tuple[int, int]:
    """The edge to the one input of a node that has exactly one."""
    (edge,) = [edge for edge in node.inputs if edge[0] is not None]
    return edge


def straight_run(nodes: list[GraphNode], position: int, output_nr: int, drawn: set) -> list[int]:
    """The straight chain that starts at `position` and whose lines would all read the same: each
    node reached once, the only input of the one above, with a single input of its own, and none
    with a mark of its own (a session's name, a retained grad, a hook, a leaf). Only such a run is
    drawn as one line: collapsing it hides nothing the lines would have shown."""
    def plain(node: GraphNode) -> bool:
        return (node.uses <= 1 and not node.tensors and not node.retained and not node.hooks
                and node.leaf is None and sum(target is not None for target, _ in node.inputs) == 1)

    def looks(node: GraphNode, nr: int) -> tuple:
        return node.name, nr, node.inputs.count((None, 0)), tuple(node.saved)

    first = nodes[position]
    if not plain(first):
        return [position]
    run, seen, key = [position], {position}, looks(first, output_nr)
    while True:
        target, nr = single_input(nodes[run[-1]])
        following = nodes[target]
        if target in drawn or target in seen or not plain(following) or looks(following, nr) != key:
            return run
        run.append(target)
        seen.add(target)


def _label(node: GraphNode, number: Optional[int], output_nr: int, text: Any, repeated: int = 1) -> None:
    text.append(node.name, style="bold green" if node.leaf else "bold magenta")
    if repeated > 1:
        text.append(f" ×{repeated:,}", style="bold cyan")
    if number is not None:
        text.append(f" #{number}", style="magenta")
    if output_nr:
        text.append(f" (output {output_nr})", style="dim")
    constants = sum(1 for target, _ in node.inputs if target is None)
    if constants:
        text.append(f"  +{constants} None", style="dim")
    if node.tensors:
        text.append(f"  grad_fn of {', '.join(node.tensors)}", style="bold")
    if node.leaf is not None:
        leaf = node.leaf
        names = ", ".join(leaf.names) if leaf.names else "a leaf the session has no name for"
        text.append(f"  {names}", style="bold green")
        text.append(f" {leaf.description}, grad={leaf.grad}")
        if leaf.hooks:
            text.append(f"  {_count(leaf.hooks, 'hook')}", style="yellow")
    if node.saved:
        text.append("  saved: ", style="dim")
        for i, (name, value) in enumerate(node.saved):
            text.append(", " if i else "")
            text.append(f"{name}=")
            text.append(value, style="red" if value == FREED else "cyan")
    for retained in node.retained:
        text.append(f"  retains grad: {retained}", style="yellow")
    if node.hooks:
        text.append(f"  {_count(node.hooks, 'hook')}", style="yellow")


def _summarise(hidden: list[GraphNode], leaves: list[GraphNode], text: Any) -> None:
    kinds: dict[str, int] = {}
    for node in hidden:
        kinds[node.name] = kinds.get(node.name, 0) + 1
    listed = ", ".join(f"{name} ×{count:,}" for name, count in sorted(kinds.items(), key=lambda item: -item[1]))
    text.append(f"\n{_count(len(hidden), 'more node')} not drawn: {listed}", style="bold")
    text.append(f"\nleaves reached ({len(leaves):,}):", style="bold")
    for node in leaves[:MAX_LEAVES_LISTED]:
        text.append("\n  ")
        _label(node, None, 0, text)
    if len(leaves) > MAX_LEAVES_LISTED:
        text.append(f"\n  ... {len(leaves) - MAX_LEAVES_LISTED:,} more", style="dim")


def _count(number: int, singular: str, plural: Optional[str] = None) -> str:
    return f"{number:,} {singular if number == 1 else plural or singular + 's'}"
