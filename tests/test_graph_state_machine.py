"""Random graphs, random orders: the engine against a tiny scalar reference.

A hypothesis state machine builds graphs of scalar operations (with diamonds and reused
non-leaves), marks nodes with retain_grad, calls backward from any node (several times, with
retain_graph) and resets gradients, checking every `.grad` against a reference written with
plain Python floats and the chain rule.
"""
from __future__ import annotations

import math

import numpy as np
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import Bundle, RuleBasedStateMachine, invariant, rule

from gradcalc.autograd import api, dtypes
from gradcalc.autograd.tensor import Tensor


class Reference:
    """A scalar node: its value and, for each input, (input, local derivative)."""

    def __init__(self, value: float, inputs: tuple = ()) -> None:
        self.value = value
        self.inputs = inputs
        self.grad: float | None = None

    def backward(self, leaves_and_retained: set) -> None:
        order, seen = [], set()
        stack = [(self, False)]
        while stack:  # iterative post-order: a topological order of the graph
            node, expanded = stack.pop()
            if expanded:
                order.append(node)
                continue
            if id(node) in seen:
                continue
            seen.add(id(node))
            stack.append((node, True))
            stack.extend((parent, False) for parent, _ in node.inputs)
        grads = {id(self): 1.0}
        for node in reversed(order):
            grad = grads.get(id(node), 0.0)
            if node in leaves_and_retained:
                node.grad = grad if node.grad is None else node.grad + grad
            for parent, local in node.inputs:
                grads[id(parent)] = grads.get(id(parent), 0.0) + grad * local


def scalar(value: float) -> Tensor:
    return Tensor._make(np.array(value, dtype=np.float64), dtypes.float64, requires_grad=True)


values = st.floats(min_value=-2.0, max_value=2.0, allow_nan=False)


class GraphMachine(RuleBasedStateMachine):
    nodes = Bundle("nodes")

    def __init__(self) -> None:
        super().__init__()
        self.leaves: list = []  # (tensor, reference)
        self.retained: list = []

    @rule(target=nodes, value=values)
    def leaf(self, value: float) -> tuple:
        pair = (scalar(value), Reference(value))
        self.leaves.append(pair)
        return pair

    @rule(target=nodes, a=nodes, b=nodes, kind=st.sampled_from(["add", "sub", "mul"]))
    def binary(self, a: tuple, b: tuple, kind: str) -> tuple:
        (ta, ra), (tb, rb) = a, b
        if kind == "add":
            return ta + tb, Reference(ra.value + rb.value, ((ra, 1.0), (rb, 1.0)))
        if kind == "sub":
            return ta - tb, Reference(ra.value - rb.value, ((ra, 1.0), (rb, -1.0)))
        return ta * tb, Reference(ra.value * rb.value, ((ra, rb.value), (rb, ra.value)))

    @rule(target=nodes, a=nodes, kind=st.sampled_from(["tanh", "scale", "square"]))
    def unary(self, a: tuple, kind: str) -> tuple:
        ta, ra = a
        if kind == "tanh":
            value = math.tanh(ra.value)
            return ta.tanh(), Reference(value, ((ra, 1.0 - value * value),))
        if kind == "scale":
            return ta * 0.5, Reference(ra.value * 0.5, ((ra, 0.5),))
        return ta ** 2, Reference(ra.value ** 2, ((ra, 2.0 * ra.value),))

    @rule(node=nodes)
    def retain(self, node: tuple) -> None:
        tensor, reference = node
        if tensor.grad_fn is not None and not tensor.retains_grad:
            tensor.retain_grad()
            self.retained.append(node)

    @rule(node=nodes)
    def backward(self, node: tuple) -> None:
        tensor, reference = node
        api.backward(tensor, retain_graph=True)
        reference.backward({r for _, r in self.leaves} | {r for _, r in self.retained})

    @rule(node=nodes)
    def reset(self, node: tuple) -> None:
        tensor, reference = node
        if tensor.is_leaf or tensor.retains_grad:
            tensor.grad = None
            reference.grad = None

    @invariant()
    def gradients_agree(self) -> None:
        for tensor, reference in self.leaves + self.retained:
            got = tensor._grad
            if reference.grad is None:
                assert got is None
            else:
                assert got is not None
                assert math.isclose(got.item(), reference.grad, rel_tol=1e-9, abs_tol=1e-9)


GraphMachine.TestCase.settings = settings(max_examples=150, stateful_step_count=30, deadline=None)
TestGraphMachine = GraphMachine.TestCase
