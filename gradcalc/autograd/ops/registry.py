"""The op registry: every operation declared once.

Two kinds of declaration live here, as in PyTorch's native_functions.yaml and derivatives.yaml:

* `node(...)` declares the grad_fn of one overload: PyTorch's class name (`SumBackward1`), its
  differentiable inputs, what it saves (PyTorch's choice, which decides which double backward
  fails and which in-place change is caught), one backward formula per input and a forward-mode
  formula (jvp). The `_saved_<name>` and `_raw_saved_<name>` attributes of the grad_fn are
  generated from it.
* `@op(...)` declares an operation as programs reach it: its name, its implementation, the
  nodes it records, its aliases, and which variants it has (`torch.` function, Tensor method,
  in-place `_`, `out=`; by default those PyTorch has, read from the recorded signatures).
  `generate.py` makes the functions and methods from these declarations.

A backward formula is a function `(grad, <names>...) -> Tensor` written with Tensor
operations, so that with `create_graph=True` the backward pass records a graph of its own. The
names after `grad` say what it needs: an input's name or `result` (saved tensors, freed after
backward) or a saved non-tensor value; names starting with `_` are values the formula needs
that PyTorch does not show. Summing a broadcast gradient back to its input's shape is the
engine's job, not the formula's.
"""
from __future__ import annotations

from operator import attrgetter
from typing import Any, Callable, Optional, Sequence

import numpy as np

from .. import dtypes, grad_mode, layout, meta
from ..dtypes import DType
from ...c_arguments import pybind_mismatch
from ..engine import FREED_MESSAGE, LAST, NO_EDGE, NODE_SEQUENCE, AccumulateGrad, Node, gradient_edge
from ..native import kernels
from ..saved_variable import SavedTensor, default_hooks, hooked_order
# the forward-formula markers the op modules declare with, re-exported
from ..forward_mode import ELEMENT_WISE as ELEMENT_WISE, LINEAR as LINEAR, propagate
from ..grad_mode import FORWARD_LEVELS
from ..tensor import VIEW_DEFAULT, VIEW_INFERENCE, VIEW_MULTI_OUTPUT, VIEW_NO_GRAD, Size, Tensor
from ...display.names import torch_class



class NodeDef:
    """The grad_fn of one overload of an op."""

    __slots__ = ("name", "shown_name", "inputs", "formulas", "formula_args", "jvp", "saved", "saved_tensors",
                 "multi_output", "variadic", "forward", "element_wise", "_node_class", "_save_plans")

    def __init__(self, name: str, inputs: tuple, formulas: dict, *, jvp: Any = None, saved: tuple = (),
                 saved_tensors: tuple = (), multi_output: bool = False, forward: Optional[Callable] = None,
                 shown_name: Optional[str] = None, element_wise: Optional[bool] = None) -> None:
        self.name = name
        self.shown_name = shown_name or name
        self.inputs = inputs
        self.variadic = inputs == ("tensors",)
        self.multi_output = multi_output
        self.forward = forward
        self.formulas = [formulas.get(name) for name in inputs]
        self.formula_args = [f.__code__.co_varnames[1:f.__code__.co_argcount] if f else () for f in self.formulas]
        self.jvp = jvp
        # a TensorIterator op: its result is laid out in its operands' order of strides (by
        # default, an op whose forward derivative is element-wise)
        self.element_wise = (jvp == ELEMENT_WISE if element_wise is None else element_wise) and not multi_output
        # the tensors it keeps besides its inputs and result (indices, masks), freed after backward too
        self.saved_tensors = saved_tensors
        shown = dict.fromkeys(saved)
        for names in self.formula_args:
            shown.update((name, None) for name in names if not name.startswith("_"))
        self.saved = tuple(shown)
        self._node_class: Optional[type] = None
        self._save_plans: dict = {}

    def save_plan(self, needs_grad: tuple) -> tuple:
        """The tensors a node saves when `needs_grad` says which inputs need a gradient: (name,
        index of the input or -1 for the result) for each one its formulas ask for, in the order
        PyTorch saves them (which pack hooks see), made once per combination."""
        plan = self._save_plans.get(needs_grad)
        if plan is None:
            needed: dict = {}
            # a variadic op's one formula serves all its inputs
            flagged = ((True, self.formula_args[0]),) if self.variadic else zip(needs_grad, self.formula_args)
            for flag, names in flagged:
                if flag:
                    needed.update(dict.fromkeys(names))
            plan = self._save_plans[needs_grad] = tuple(
                (name, -1 if name == "result" else self.inputs.index(name))
                for name in hooked_order(needed) if name == "result" or name in self.inputs)
        return plan

    def is_tensor(self, name: str) -> bool:
        return name in self.inputs or name == "result" or name in self.saved_tensors

    @property
    def node_class(self) -> type:
        """The grad_fn class, made on first use: making hundreds of classes at every start costs milliseconds."""
        if self._node_class is None:
            members: dict = {"__slots__": (), "_op": self}
            for name in self.saved:
                members[f"_saved_{name}"] = property(_saved_getter(name))
                if self.is_tensor(name):
                    members[f"_raw_saved_{name}"] = property(_raw_saved_getter(name))
            cls = type(self.name, (OpNode,), members)
            self._node_class = torch_class(self.name, c_type=True)(cls)  # <class 'MulBackward0'>
        return self._node_class

    def __repr__(self) -> str:
        return f"<node declaration {self.name}>"


NODES: dict = {}


def node(name: str, inputs: Sequence[str], *, jvp: Any = None, saved: tuple = (), saved_tensors: tuple = (),
         multi_output: bool = False, forward: Optional[Callable] = None, shown_name: Optional[str] = None,
         element_wise: Optional[bool] = None, **formulas: Callable) -> NodeDef:
    """Declare a grad_fn: `node("MulBackward0", ("self", "other"), self=..., other=..., jvp=...)`.
    `element_wise`: whether its result is laid out as TensorIterator's (default: a jvp of ELEMENT_WISE)."""
    declared = NodeDef(name, tuple(inputs), formulas, jvp=jvp, saved=saved, saved_tensors=saved_tensors,
                       multi_output=multi_output, forward=forward, shown_name=shown_name, element_wise=element_wise)
    NODES[name] = declared
    return declared


def _not_implemented(grad: "Tensor", _aten: str) -> list:
    raise RuntimeError(f"derivative for aten::{_aten} is not implemented")


# an op PyTorch records without a derivative formula (floor_divide, Scalar % Tensor): the
# output requires grad, and backward through it fails
NOT_IMPLEMENTED = node("NotImplemented", ("tensors",), shown_name="torch::autograd::NotImplemented",
                       tensors=_not_implemented)


def _saved_getter(name: str) -> Callable:
    def getter(node: "OpNode") -> Any:
        return node._shown_value(name)

    return getter


def _raw_saved_getter(name: str) -> Callable:
    def getter(node: "OpNode") -> "SavedTensorHandle":
        return SavedTensorHandle(node, name)

    return getter


@torch_class("torch._C._autograd.SavedTensor", c_type=True)
class SavedTensorHandle:
    """What `grad_fn._raw_saved_<name>` gives: the saved tensor itself, not unpacked."""

    __slots__ = ("_node", "_name")

    def __init__(self, node: "OpNode", name: str) -> None:
        self._node = node
        self._name = name

    def register_hooks(self, *args: Any, **kwargs: Any) -> None:
        if kwargs or len(args) != 2 or not all(callable(hook) for hook in args):  # bound by pybind11, as torch's
            raise pybind_mismatch("register_hooks", "(self: torch._C._autograd.SavedTensor, arg0: "
                                  "collections.abc.Callable, arg1: collections.abc.Callable) -> None", (self, *args),
                                  kwargs)
        pack_hook, unpack_hook = args
        node = self._node
        saved = node._kept(self._name)
        if saved is None and not node._released:
            raise RuntimeError("Calling register_hooks on a saved tensor with value None is forbidden")
        if saved is None:
            saved = SavedTensor.__new__(SavedTensor)  # freed: only its error remains
            saved.unpack_hook = None
        saved.register_hooks(pack_hook, unpack_hook, node, node._released)


class OpNode(Node):
    """A grad_fn made from a node declaration; each declaration has its own subclass, so the
    class name is PyTorch's (`MulBackward0`)."""

    __slots__ = ("_saved", "_params", "_released")
    _op: NodeDef

    def __init__(self, next_functions: tuple, input_meta: tuple, params: dict) -> None:
        super().__init__(next_functions, input_meta)
        self._params = params
        self._released = False
        self._saved: dict = {}

    def apply(self, grads: list) -> list:
        op = self._op
        if not (op.multi_output or op.variadic):  # the common case, kept short: it runs once per node
            grad, nexts = grads[0], self.next_functions
            if grad is None:
                return [None] * len(nexts)
            return [formula(grad, *[self._value(name) for name in names])
                    if formula is not None and nexts[index][0] is not None else None
                    for index, (formula, names) in enumerate(zip(op.formulas, op.formula_args))]
        # a multi-output op's formula takes the list of its outputs' gradients (None where none came)
        grad = grads if op.multi_output and any(g is not None for g in grads) else grads[0]
        results = []
        for index, (formula, names) in enumerate(zip(op.formulas, op.formula_args)):
            # a variadic op's one formula serves all its inputs: needed if any of them needs a gradient
            edges = self.next_functions if op.variadic else self.next_functions[index:index + 1]
            if formula is None or grad is None or all(node is None for node, _ in edges):
                results.append(None)
                continue
            results.append(formula(grad, *[self._value(name) for name in names]))
        if op.variadic:
            return results[0] if results[0] is not None else [None] * len(self.next_functions)
        return results

    def _value(self, name: str) -> Any:
        params = self._params
        if name in params and name not in self._op.saved_tensors:
            return params[name]
        if self._released:
            raise RuntimeError(FREED_MESSAGE)
        if name in params:
            return params[name]
        saved = self._saved[name]
        # a Python number kept as the number is wrapped again for the formula
        return saved.unpack(self) if saved.__class__ is SavedTensor else Tensor._wrap_number(saved)

    def _kept(self, name: str) -> Optional[SavedTensor]:
        """The SavedTensor kept under `name` (None if none), made now if a Python number was kept."""
        saved = self._saved.get(name)
        if saved is not None and saved.__class__ is not SavedTensor:
            saved = self._saved[name] = SavedTensor.of_number(saved)
        return saved

    def _shown_value(self, name: str) -> Any:
        """A saved value as `_saved_<name>` shows it: tensors as tensors (None if not saved),
        sizes as tuples of ints."""
        op = self._op
        if op.is_tensor(name):
            if self._released:
                raise RuntimeError(FREED_MESSAGE)
            if name in self._saved:
                return self._kept(name).unpack(self)
            value = self._params.get(name)
            return _as_tensor_value(value)
        value = _as_plain_value(self._params.get(name))
        return _as_unsigned(value) if name in _INT64_SAVED else value

    def release(self) -> None:
        if self._saved or self._op.saved_tensors:
            self._saved = {}
            self._released = True

    def name(self) -> str:
        return self._op.shown_name


# the saved values PyTorch types int64_t or SymInt: its getters show a negative one as the
# unsigned 64-bit number with the same bits (dim=-1 as 18446744073709551615)
_INT64_SAVED = frozenset({"dim", "dim0", "dim1", "dim2", "dims", "dimension", "start", "end", "index", "ignore_index",
                          "offset", "diagonal", "shifts", "source_dim", "padding_idx"})


def _as_unsigned(value: Any) -> Any:
    if isinstance(value, tuple):
        return tuple(_as_unsigned(v) for v in value)
    return value + 2 ** 64 if type(value) is int and value < 0 else value


def _as_tensor_value(value: Any) -> Any:
    if isinstance(value, np.ndarray):
        return Tensor._make(value.astype(np.int64) if value.dtype.kind in "iu" else value, dtypes.from_numpy(
            value.dtype) if value.dtype.kind not in "iu" else dtypes.int64)
    if isinstance(value, tuple) and value and all(isinstance(v, np.ndarray) for v in value):
        return tuple(_as_tensor_value(v) for v in value)
    return value


def _as_plain_value(value: Any) -> Any:
    """What programs may hold: Python numbers, tuples, dtypes; never numpy objects."""
    if isinstance(value, tuple):
        return tuple(_as_plain_value(v) for v in value)
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return _as_tensor_value(value)
    return value


# ------------------------------------------------------------------ recording

def record(op: NodeDef, inputs: Sequence[Tensor], data: np.ndarray, dtype: DType,
           view_of: Optional[Tensor] = None, **params: Any) -> Tensor:
    """The output tensor of `op` on `inputs` (a view sharing storage with `view_of`, if given),
    with a grad_fn when the graph is being recorded."""
    if op.element_wise and data.ndim > 1:
        for tensor in inputs:
            if not tensor._data.flags.c_contiguous:  # else numpy's layout is ATen's
                data = layout.element_wise_result(data, [t._data for t in inputs])
                break
    out = (Tensor._make(data, dtype) if view_of is None
           else Tensor._make(data, dtype, base=view_of, view_kind=view_kind(VIEW_DEFAULT)))
    if meta.state["made"] and meta.any_meta(inputs):
        meta.mark(out)
    if FORWARD_LEVELS:
        propagate(op, inputs, (out,), params)
    if not grad_mode._enabled:
        return out
    # Tensor.requires_grad, read without a call per input (this runs for every op)
    needs_grad = tuple([t._requires_grad or t._node is not None or (t._base is not None and t._base.requires_grad)
                        for t in inputs])
    if True not in needs_grad:
        return out
    if dtype.category < dtypes.FLOATING:  # set_history's check: an integer or bool output has no gradient
        raise RuntimeError(f"Autograd not support dtype: {dtype._scalar_name}")
    node = new_node(op, inputs, params)
    out._node = node  # before saving: a pack hook sees the output with its grad_fn
    saved = node._saved
    plan = op._save_plans.get(needs_grad)
    for name, index in plan if plan is not None else op.save_plan(needs_grad):
        if index < 0:
            saved[name] = SavedTensor(out, is_output=True)
        elif name not in params:
            tensor = inputs[index]
            # a Python number is kept as the number (see OpNode._kept), with no hooks to
            # pack it: a dict of numbers is not tracked by the garbage collector, which then has
            # two objects fewer to walk for each node of `y * 1.00001`
            saved[name] = tensor._data.item() if tensor._wrapped and not default_hooks else SavedTensor(tensor)
    return out


python_record = record  # as written: the native one hands it the calls it does not take


def save_before_kernel(op: NodeDef, inputs: Sequence[Tensor], params: dict) -> None:
    """Autograd's saving of an op's inputs, which comes before the kernel's own checks: for a
    kernel that then fails, an inference tensor among them is refused and the pack hooks have run."""
    needs_grad = tuple([t.requires_grad for t in inputs])
    if True not in needs_grad:
        return
    for name, index in op.save_plan(needs_grad):
        if index >= 0 and name not in params:
            SavedTensor(inputs[index])


def recording_not_needed() -> bool:
    """Whether a backward formula may compute its values with numpy rather than with tensor ops:
    no graph is being recorded (create_graph is off), and no forward-mode level or meta tensor
    would see the ops."""
    return not grad_mode._enabled and not FORWARD_LEVELS and not meta.state["made"]


def untracked(tensor: Tensor) -> bool:
    """Whether an op on `tensor` (and Python numbers) leaves nothing but its result: no graph
    (grad mode off, or no gradient wanted for `tensor`), no forward-mode level, no meta tensor."""
    return not FORWARD_LEVELS and not meta.state["made"] and not (grad_mode._enabled and (
        tensor._requires_grad or tensor._node is not None
        or (tensor._base is not None and tensor._base.requires_grad)))


# the (shape, dtype) of each input of a node, one tuple for all nodes with the same: a graph of a
# million nodes then holds a million fewer objects for the memory and the garbage collector
_INPUT_METAS: dict = {}
_INPUT_METAS_KEPT = 4096


def new_node(op: NodeDef, inputs: Sequence[Tensor], params: dict) -> OpNode:
    """A grad_fn of `op` on `inputs`, before anything is saved in it."""
    meta = tuple(map(_SHAPE_AND_DTYPE, inputs))
    shared = _INPUT_METAS.get(meta)
    if shared is None:
        if len(_INPUT_METAS) >= _INPUT_METAS_KEPT:
            _INPUT_METAS.clear()
        shared = _INPUT_METAS[meta] = meta
    return (op._node_class or op.node_class)(tuple(map(gradient_edge, inputs)), shared, params)


python_new_node = new_node  # as written: the native one hands it the calls it does not take
if kernels is not None:  # without a Python frame per node and input (csrc/graph.c)
    kernels.prepare_nodes(Node, OpNode, NODE_SEQUENCE, _INPUT_METAS, _INPUT_METAS_KEPT, NO_EDGE, gradient_edge,
                          python_new_node, AccumulateGrad, LAST, Size)
    new_node = kernels.new_node  # noqa: F811
    kernels.prepare_record(python_record, SavedTensor, meta.state, FORWARD_LEVELS, default_hooks, VIEW_NO_GRAD,
                           dtypes.FLOATING)
    kernels.prepare_binary(np.asarray, (dtypes.float32, dtypes.float64), dtypes.float64, dtypes.int64)
    record = kernels.record  # noqa: F811
    kernels.prepare_apply(OpNode.apply, FREED_MESSAGE)


_SHAPE_AND_DTYPE = attrgetter("_data.shape", "_dtype")  # in C: no Python frame per input


def view_kind(recorded: str) -> str:
    """How a view made now is marked: `recorded` when grad mode is on."""
    if grad_mode.is_inference_mode_enabled():
        return VIEW_INFERENCE
    return recorded if grad_mode.is_grad_enabled() else VIEW_NO_GRAD


def record_outputs(op: NodeDef, inputs: Sequence[Tensor], outputs: Sequence[tuple], names: Sequence[Optional[str]],
                   **params: Any) -> tuple:
    """The outputs of one multi-output op (`(data, dtype)` each) sharing one grad_fn. `names` are
    PyTorch's names of the differentiable outputs (None for pivots, infos, ranks: no grad_fn),
    under which the backward formulas ask for them."""
    outs = tuple(Tensor._make(data, dtype) for data, dtype in outputs)
    if meta.state["made"] and meta.any_meta(inputs):
        meta.marked(outs)
    if FORWARD_LEVELS:
        propagate(op, inputs, [out if name is not None else None for out, name in zip(outs, names)], params,
                  {name: out for out, name in zip(outs, names) if name is not None})
    if not grad_mode._enabled or not any(t.requires_grad for t in inputs):
        return outs
    node = new_node(op, inputs, params)
    needed: set = set()
    for tensor, formula_names in zip(inputs, op.formula_args):
        if tensor.requires_grad:
            needed.update(formula_names)
    for index, (out, name) in enumerate(zip(outs, names)):
        if name is not None:
            out._node, out._output_nr = node, index
    for name in hooked_order(needed) if default_hooks else needed:
        if name in op.inputs and name not in params:
            node._saved[name] = SavedTensor(inputs[op.inputs.index(name)])
    for index, (out, name) in enumerate(zip(outs, names)):
        if name is not None and name in needed:
            node._saved[name] = SavedTensor(out, is_output=True, output_nr=index)
    return outs


def record_views(op: NodeDef, a: Tensor, datas: Sequence[np.ndarray], **params: Any) -> tuple:
    """The views of `a` that one multi-output op (unbind, split) makes, sharing one grad_fn."""
    kind = view_kind(VIEW_MULTI_OUTPUT)
    outs = tuple(Tensor._make(data, a._dtype, base=a, view_kind=kind) for data in datas)
    if meta.state["made"] and meta.is_meta(a):
        meta.marked(outs)
    if FORWARD_LEVELS:
        propagate(op, (a,), outs, params)
    if grad_mode.is_grad_enabled() and a.requires_grad:
        node = new_node(op, (a,), params)
        for index, out in enumerate(outs):
            out._node, out._output_nr = node, index
    return outs


# ------------------------------------------------------------------ op declarations

class Op:
    """An operation as programs reach it. Its variants are those PyTorch has for its name and
    its aliases (read from the recorded signatures) unless the declaration says otherwise."""

    __slots__ = ("name", "impl", "nodes", "aliases", "function", "method", "inplace", "python", "self_name",
                 "module")

    def __init__(self, name: str, impl: Callable, nodes: tuple, aliases: tuple, function: Any, method: Any,
                 inplace: Any, python: Optional[str], self_name: str, module: str) -> None:
        self.name = name
        self.module = module  # where its function lives: "torch", "linalg", "special" or "fft"
        self.impl = impl
        self.nodes = nodes
        self.aliases = aliases
        self.function = function  # None: as PyTorch has it; False: none; a callable: this one
        self.method = method
        self.inplace = inplace
        self.python = python  # the module of a function torch writes in Python (`torch.functional`)
        self.self_name = self_name  # the parameter a method's tensor binds to

    def __repr__(self) -> str:
        return f"<op {self.name}>"


OPS: dict = {}  # (module, name) -> Op


def op(name: Optional[str] = None, *, nodes: Sequence[NodeDef] = (), aliases: Sequence[str] = (),
       function: Any = None, method: Any = None, inplace: Any = None, python: Optional[str] = None,
       self_name: str = "input", module: str = "torch") -> Callable:
    """Declare the decorated function as the implementation of an operation.

    `function`, `method` and `inplace` default to what PyTorch has; False leaves a variant out and
    a callable gives it its own implementation (an in-place op that is more than the out-of-place
    one written back). `python` names the module of an op PyTorch writes in Python: programs then
    get the implementation itself, whose Python signature must be PyTorch's."""

    def declare(impl: Callable) -> Callable:
        declared = Op(name or impl.__name__, impl, tuple(nodes), tuple(aliases), function, method, inplace, python,
                      self_name, module)
        OPS[(module, declared.name)] = declared
        return impl

    return declare
