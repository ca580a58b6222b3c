"""The graph's bookkeeping in the native module (csrc/graph.c, csrc/engine.c) against the Python
code it stands in for: the same fields written, the same nodes in the same order, the same
gradients; every other call reaches the Python code."""
from __future__ import annotations

import numpy as np
import pytest

from gradcalc.autograd import native

_native = native.kernels
needs_native = pytest.mark.skipif(_native is None, reason="gradcalc's native kernels are not built here")
_RNG = np.random.default_rng(20261207)


def _same_bits(x: np.ndarray, y: np.ndarray) -> bool:
    x, y = np.ascontiguousarray(x), np.ascontiguousarray(y)
    return x.shape == y.shape and x.dtype == y.dtype and np.array_equal(x.view(np.uint8), y.view(np.uint8))


def _fields(tensor: object) -> dict:
    """Every slot of a tensor (unset ones as absent), its data by value, its counter by value."""
    from gradcalc.autograd.tensor import Tensor

    names = [name for name in Tensor.__slots__ if name not in ("__weakref__", "__dict__")]
    fields = {name: getattr(tensor, name, "<absent>") for name in names}
    data = fields.pop("_data")
    counter = fields.pop("_vc")
    return {**fields, "data": (data.__class__, data.dtype, data.tolist()), "counter": (type(counter), counter.value),
            "class": type(tensor), "dict": getattr(tensor, "__dict__", None) or None}


@needs_native
def test_tensors_made_natively_are_made_as_the_method_makes_them():
    """Tensor._make's native common cases write every field as the Python method does, views'
    shared counters and roots included; the other calls reach the method."""
    from gradcalc.autograd import dtypes, grad_mode
    from gradcalc.autograd.tensor import VIEW_NO_GRAD, Tensor, python_make
    from gradcalc.nn.parameter import Parameter

    assert Tensor.__dict__["_make"].__func__ is _native.make_tensor
    data = np.ones((2, 3), np.float32)
    leaf = Tensor._make(data, dtypes.float32, requires_grad=True)
    view = Tensor._make(data[0], dtypes.float32, base=leaf, view_kind=VIEW_NO_GRAD)
    leaf._vc.value = 3
    grad_mode._set_inference(True)
    try:
        frozen = Tensor._make(data, dtypes.float32)
        in_inference = _native.make_tensor(Tensor, data, dtypes.float32), python_make(Tensor, data, dtypes.float32)
    finally:
        grad_mode._set_inference(False)
    assert _fields(in_inference[0]) == _fields(in_inference[1])
    cases = [((Tensor, data, dtypes.float32), {}), ((Parameter, data, dtypes.float32), {}),
             ((Tensor, data, dtypes.float64), {"requires_grad": True}),
             ((Tensor, data[1], dtypes.float32), {"base": leaf}), ((Tensor, data[1], dtypes.float32), {"base": view}),
             ((Tensor, data[1], dtypes.float32), {"base": view, "view_kind": VIEW_NO_GRAD}),
             ((Tensor, data[1], dtypes.float32), {"base": frozen}),
             ((Tensor, np.float32(2), dtypes.float32), {}), ((Tensor, data + 0.001, dtypes.bfloat16), {})]
    for args, options in cases:
        made, expected = _native.make_tensor(*args, **options), python_make(*args, **options)
        assert _fields(made) == _fields(expected), (args, options)
        assert (made._data is args[1]) == (expected._data is args[1])
        if "base" in options:
            assert made._vc is expected._vc and made._base is expected._base
        else:
            assert made._vc is not expected._vc


def _node_fields(node: object) -> dict:
    from gradcalc.autograd.engine import Node
    from gradcalc.autograd.ops.registry import OpNode

    names = [name for name in (*Node.__slots__, *OpNode.__slots__) if name not in ("__weakref__", "_seq")]
    return {**{name: getattr(node, name, "<absent>") for name in names}, "class": type(node)}


@needs_native
def test_grad_fns_made_natively_are_made_as_new_node_makes_them():
    """registry.new_node's native version: the same edges (a leaf's accumulator, a view's refreshed
    history, none), the same shared input metas, the next sequence number."""
    from gradcalc.autograd import dtypes
    from gradcalc.autograd.ops import registry
    from gradcalc.autograd.ops.arithmetic import ADD, MUL
    from gradcalc.autograd.tensor import Tensor

    assert registry.new_node is _native.new_node
    data = np.ones((2, 3), np.float32)
    leaf = Tensor._make(data, dtypes.float32, requires_grad=True)
    plain = Tensor._make(data, dtypes.float64)
    inner = registry.record(MUL, (leaf, leaf), data * 2, dtypes.float32)
    view = registry.record(registry.NODES["ViewBackward0"], (inner,), inner._data.reshape(6), dtypes.float32,
                           view_of=inner, self_sym_sizes=(2, 3))
    params = {"alpha": 1}
    for inputs in [(leaf, plain), (inner, leaf), (view, plain), (plain,), [leaf, inner]]:
        made, expected = _native.new_node(ADD, inputs, params), registry.python_new_node(ADD, inputs, params)
        assert _node_fields(made) == _node_fields(expected)
        assert made._input_meta is expected._input_meta and made._params is params
        assert made._saved is not expected._saved
        assert inner._node._seq < made._seq and expected._seq == made._seq + 1


@needs_native
@pytest.mark.parametrize("watched", [True, False], ids=["formulas watched", "native apply"])
def test_the_native_loop_runs_the_nodes_in_the_python_loops_order_with_its_results(monkeypatch, watched):
    """engine.run_backward's native loop (csrc/engine.c) against its Python loop on a graph with
    shared inputs, a view, a broadcast and a node whose output is used twice: the same formulas
    called in the same order (watched by wrapping OpNode.apply, which the loop then calls), the
    same gradients bit for bit (with the native apply too), a retained graph run again the same."""
    from gradcalc.autograd import dtypes, engine
    from gradcalc.autograd.ops import registry
    from gradcalc.autograd.tensor import Tensor

    order: list = []
    apply = registry.OpNode.apply
    if watched:
        monkeypatch.setattr(registry.OpNode, "apply",
                            lambda node, grads: order.append(node.name()) or apply(node, grads))

    def run(native_loop: object) -> tuple:
        monkeypatch.setattr(engine, "native", native_loop)
        order.clear()
        x = Tensor._make(_RNG.standard_normal((3, 4)).astype(np.float32), dtypes.float32, requires_grad=True)
        w = Tensor._make(_RNG.standard_normal(4).astype(np.float32), dtypes.float32, requires_grad=True)
        a = x * w
        b = a.tanh()
        loss = (a + b).sum() + (b.view(12).exp() * w.sum()).sum()
        loss.backward(retain_graph=True)
        first = (x.grad._data.copy(), w.grad._data.copy(), list(order))
        loss.backward()
        return first, (x.grad._data, w.grad._data, list(order))

    state = _RNG.bit_generator.state
    native_runs = run(_native)
    _RNG.bit_generator.state = state
    python_runs = run(None)
    assert len(native_runs[0][2]) == (10 if watched else 0)  # every node of the graph ran
    for native_run, python_run in zip(native_runs, python_runs):
        assert native_run[2] == python_run[2]
        assert _same_bits(native_run[0], python_run[0]) and _same_bits(native_run[1], python_run[1])


def _saved_fields(node: object) -> dict:
    """What a node keeps, each saved tensor by its fields (its tensor by identity, an output's alias by its data)."""
    from gradcalc.autograd.saved_variable import SavedTensor

    kept = {}
    for name, saved in node._saved.items():
        if type(saved) is SavedTensor:
            tensor = saved.tensor
            kept[name] = (saved.version, saved.is_output, saved.output_nr, saved.unpack_hook,
                          tensor._data.tolist() if saved.is_output else id(tensor))
        else:
            kept[name] = saved
    return kept


@needs_native
def test_ops_recorded_natively_are_recorded_as_record_records_them():
    """registry.record's native version: the same output, grad_fn and saved values as the Python
    record for inputs, results and numbers kept, views, no grad mode; its refusals the same."""
    from gradcalc.autograd import dtypes, grad_mode
    from gradcalc.autograd.ops import registry
    from gradcalc.autograd.ops.arithmetic import MUL
    from gradcalc.autograd.tensor import Tensor

    assert registry.record is _native.record
    data = np.arange(1, 7, dtype=np.float32).reshape(2, 3)
    leaf = Tensor._make(data, dtypes.float32, requires_grad=True)
    plain = Tensor._make(data * 2, dtypes.float32)
    number = Tensor._wrap_number(2.5)
    tanh, view = registry.NODES["TanhBackward0"], registry.NODES["ViewBackward0"]
    calls = [((MUL, (leaf, plain), data * data, dtypes.float32), {}), ((MUL, (plain, leaf), data, dtypes.float32), {}),
             ((MUL, (leaf, number), data, dtypes.float32), {}), ((tanh, (leaf,), np.tanh(data), dtypes.float32), {}),
             ((view, (leaf,), data.reshape(6), dtypes.float32), {"view_of": leaf, "self_sym_sizes": (2, 3)}),
             ((MUL, (plain, plain), data, dtypes.float32), {})]
    for args, options in calls:
        for mode in (True, False):
            grad_mode._set_enabled(mode)
            try:
                made, expected = _native.record(*args, **options), registry.python_record(*args, **options)
            finally:
                grad_mode._set_enabled(True)
            assert _fields(made) == {**_fields(expected), "_node": _fields(made)["_node"]}
            assert (made._node is None) == (expected._node is None) and (made._base is expected._base)
            if made._node is not None:
                assert _node_fields(made._node) == {**_node_fields(expected._node), "_saved": made._node._saved}
                assert _saved_fields(made._node) == _saved_fields(expected._node)
    integers = Tensor._make(np.arange(3), dtypes.int64)
    with pytest.raises(RuntimeError, match="Autograd not support dtype: Long"):
        _native.record(MUL, (leaf, integers), np.arange(3), dtypes.int64)


@needs_native
def test_grad_accumulators_made_natively_are_made_as_the_method_makes_them():
    """Tensor._grad_accumulator's native version: the same node (no edges, the last sequence number,
    the leaf's shape and dtype as its input, the leaf), a sequence number taken as Node.__init__
    takes one, and the living accumulator given again (held weakly, as the method holds it)."""
    from gradcalc.autograd import dtypes, engine
    from gradcalc.autograd.tensor import Tensor

    leaves = [Tensor._make(np.ones((2, 3), np.float32), dtypes.float32, requires_grad=True) for _ in range(2)]
    before = next(engine.NODE_SEQUENCE)
    made = _native.grad_accumulator(leaves[0])
    between = next(engine.NODE_SEQUENCE)
    expected = leaves[1]._grad_accumulator()
    assert between == before + 2 and next(engine.NODE_SEQUENCE) == between + 2
    assert type(made) is engine.AccumulateGrad and made.variable is leaves[0]
    assert _node_fields(made) == _node_fields(expected) and made._seq == expected._seq == engine.LAST
    assert type(made._input_meta[0][0]) is type(expected._input_meta[0][0])
    assert _native.grad_accumulator(leaves[0]) is made and leaves[0]._grad_accumulator() is made
    assert leaves[0]._accumulator() is made
    del made
    again = _native.grad_accumulator(leaves[0])
    assert leaves[0]._accumulator() is again and again.variable is leaves[0]
    with pytest.raises(TypeError):
        _native.grad_accumulator(np.ones(2))


@needs_native
def test_saved_tensors_unpacked_natively_are_unpacked_as_the_method_unpacks_them():
    """SavedTensor.unpack's native version (what the native loop's formulas read): a saved input as
    it is, a saved result as an alias with the node as its history, the same error once either was
    modified in place, a hook's and a kept number's by the method."""
    from gradcalc.autograd import dtypes
    from gradcalc.autograd.saved_variable import SavedTensor
    from gradcalc.autograd.tensor import Tensor

    x = Tensor._make(np.linspace(-1, 1, 6, dtype=np.float32).reshape(2, 3), dtypes.float32, requires_grad=True)
    y = x * x
    z = y.exp()
    cases = [(y._node._saved["self"], y._node), (z._node._saved["result"], z._node),
             (SavedTensor.of_number(2.5), y._node)]
    for saved, node in cases:
        unpacked, expected = _native.unpack_saved(saved, node), saved.unpack(node)
        assert _fields(unpacked) == _fields(expected)
        assert unpacked._vc is expected._vc and (unpacked is expected) == (saved.is_output is False)
    with_hook = SavedTensor(x)
    with_hook.pack(x, lambda tensor: tensor * 1, lambda packed: packed + 1)
    assert _native.unpack_saved(with_hook, y._node)._data.tolist() == with_hook.unpack(y._node)._data.tolist()
    x._vc.value += 1  # (as an in-place change moves them)
    z._vc.value += 1
    for saved, node in cases[:2]:
        with pytest.raises(RuntimeError) as native_error:
            _native.unpack_saved(saved, node)
        with pytest.raises(RuntimeError) as python_error:
            saved.unpack(node)
        assert str(native_error.value) == str(python_error.value)


def _binary_operands() -> list:
    from gradcalc.autograd import dtypes
    from gradcalc.autograd.tensor import Tensor

    def tensor(values: np.ndarray, dtype: object, requires_grad: bool = False) -> Tensor:
        return Tensor._make(values.astype(dtype._numpy), dtype, requires_grad=requires_grad)

    values = np.linspace(-1.5, 2.5, 6).reshape(2, 3)
    pairs = []
    for dtype in (dtypes.float32, dtypes.float64):
        leaf, plain = tensor(values, dtype, True), tensor(values[::-1] + 0.1, dtype)
        inner = leaf * 2  # (a grad_fn of its own)
        pairs += [(leaf, plain), (plain, leaf), (inner, leaf), (plain, plain), (leaf, 0.1), (plain, 0.1),
                  (inner, 3), (leaf, -(2 ** 24)), (leaf, 2 ** 24 + 1), (plain, 2 ** 40), (leaf, True),
                  (tensor(values[0, 0], dtype, True), tensor(values[1, 1], dtype)),  # 0-d
                  (leaf.t(), plain.t()), (leaf[0], plain[1]), (plain[0], 2.5),  # views, non-contiguous
                  (leaf, plain[0]), (leaf, tensor(values, dtypes.float16)), (leaf, Tensor._wrap_number(2.0))]
    integers = tensor(values * 10, dtypes.int64)
    pairs += [(integers, integers), (integers, 2.5), (integers, 3), (tensor(values, dtypes.float16), 2.0)]
    return pairs


@needs_native
@pytest.mark.parametrize("grad_enabled", [True, False])
def test_operators_computed_natively_give_what_the_ops_give(grad_enabled, monkeypatch):
    """`a + b`, `a - b`, `a * b`, `a / b` through the native module's tensor_binary against the ops'
    Python (arithmetic.binary): the same result, grad_fn, saved values and gradients, with a tensor
    of one dtype and shape or a number as the other operand; every other pair is the ops'."""
    from gradcalc.autograd import grad_mode, meta
    from gradcalc.autograd.ops import arithmetic
    from gradcalc.autograd.ops.tensor_members import OPERATORS

    monkeypatch.setitem(meta.state, "made", False)  # (an earlier test's meta tensor sends every op to Python)

    ops = {"__add__": arithmetic.add, "__sub__": arithmetic.sub, "__mul__": arithmetic.mul,
           "__truediv__": arithmetic.div, "__radd__": arithmetic.add, "__rmul__": arithmetic.mul}
    handled = 0
    for a, b in _binary_operands():
        for name, op in ops.items():
            grad_mode._set_enabled(grad_enabled)
            try:
                taken = _native.tensor_binary(*_closed(OPERATORS[name], "same"), a, b) is not None
                made, expected = _result(OPERATORS[name], a, b), _result(op, a, b)
            finally:
                grad_mode._set_enabled(True)
            handled += taken
            if isinstance(expected, Exception):
                assert not taken and repr(made) == repr(expected)
                continue
            assert _fields(made) == {**_fields(expected), "_node": _fields(made)["_node"]}, (name, a, b)
            assert (made._node is None) == (expected._node is None)
            if made._node is not None:
                assert _node_fields(made._node) == {**_node_fields(expected._node), "_saved": made._node._saved}
                assert _saved_fields(made._node) == _saved_fields(expected._node)
                grads = [_gradients(result) for result in (made, expected)]
                assert all(_same_bits(x, y) for x, y in zip(*grads))
    assert handled == 2 * 12 * len(ops)  # (per dtype: the pairs of one dtype and shape, and with small numbers)


def _result(op: object, a: object, b: object) -> object:
    try:
        return op(a, b)
    except RuntimeError as error:
        return error


def _closed(function: object, name: str) -> object:
    """The value a closure holds under `name`."""
    return function.__closure__[function.__code__.co_freevars.index(name)].cell_contents


def _gradients(result: object) -> list:
    """The gradients of result.sum() for the leaves it depends on (their .grad put back after)."""
    from gradcalc.autograd import api

    leaves = [edge[0].variable for edge in result._node.next_functions
              if edge[0] is not None and hasattr(edge[0], "variable")]
    grads = api.grad([result.sum()], leaves, retain_graph=True, allow_unused=True) if leaves else []
    return [grad._data for grad in grads if grad is not None]
