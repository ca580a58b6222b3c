"""torch.autograd.backward and torch.autograd.grad: argument checks, then the engine."""
from __future__ import annotations

from typing import Any, Optional, Sequence

import numpy as np

from . import dtypes, graph, meta
from .engine import run_backward
from .graph import GradientEdge
from ..c_arguments import unsigned_byte
from ..display.names import type_name
from ..warnings import warn_once
from .tensor import Size, Tensor


CREATE_GRAPH_WARNING = (
    "Using backward() with create_graph=True will create a reference cycle between the parameter and its "
    "gradient which can cause a memory leak. We recommend using autograd.grad when creating the graph to avoid "
    "this. If you have to use this function, make sure to reset the .grad fields of your parameters to None "
    "after use to break the cycle and avoid the leak.")


def _as_tuple(value: Any) -> tuple:
    if value is None:
        return ()
    if isinstance(value, (Tensor, GradientEdge)):
        return (value,)
    return tuple(value)


def _gradients_as_tuple(value: Any) -> tuple:
    """torch's _tensor_or_tensors_to_tuple: a tensor alone, anything else as its items (a
    GradientEdge, a tuple, is its node and its output's number)."""
    return (value,) if isinstance(value, Tensor) else tuple(value)


def _edge_output(edge: GradientEdge) -> tuple:
    """(shape, dtype) of the output a GradientEdge stands for, which PyTorch reads from the node's
    metadata (gradcalc's, recorded when the edge was taken; a scalar of the default dtype else)."""
    shape, dtype = graph.EDGE_OUTPUTS.get(edge.node, {}).get(edge.output_nr, ((), None))
    return shape, dtype or dtypes.get_default_dtype()


def _edge_ones(edge: GradientEdge) -> Tensor:
    """The implicit gradient of an output given as its GradientEdge: ones, for a scalar."""
    shape, dtype = _edge_output(edge)
    if any(size != 1 for size in shape):
        raise RuntimeError("grad can be implicitly created only for scalar outputs")
    if not dtype.is_floating_point:
        raise RuntimeError(f"grad can be implicitly created only for real scalar outputs but got {dtype}")
    return Tensor._make(np.ones(shape, dtype=dtype._numpy), dtype)


def _make_grads(outputs: tuple, grad_outputs: tuple, is_grads_batched: bool = False) -> list:
    grads = []
    for output, grad in zip(outputs, grad_outputs):
        if not isinstance(output, (Tensor, GradientEdge)):  # torch's _make_grads asserts it first
            raise AssertionError("Expected output to be a torch.Tensor")
        if isinstance(output, GradientEdge) and grad is None:
            grads.append(_edge_ones(output))
            continue
        if grad is None:
            if output.requires_grad and output.numel() != 1:
                raise RuntimeError("grad can be implicitly created only for scalar outputs")
            if output.requires_grad and output._dtype.is_complex:
                raise RuntimeError(f"grad can be implicitly created only for real scalar outputs but got "
                                   f"{output.dtype}")
            if output.is_meta:  # a meta output's gradient is meta: every gradient after it too
                grads.append(meta.make_meta(output.shape, output._dtype))
            else:
                grads.append(Tensor._make(np.ones(output.shape, dtype=output._dtype._numpy), output._dtype))
            continue
        if not isinstance(grad, Tensor):
            # (torch's Python names the type by its __name__: `dtype`, not `torch.dtype`)
            raise TypeError(f"gradients can be either Tensors or None, but got {type(grad).__name__}")
        shape, dtype = _edge_output(output) if isinstance(output, GradientEdge) else (output.shape, output._dtype)
        if grad.shape != shape or grad._dtype.is_complex != dtype.is_complex:
            # torch's message finds each by list.index, which compares with == (and so may fail itself)
            grad_at, output_at = list(grad_outputs).index(grad), list(outputs).index(output)
            if grad.shape != shape:
                raise RuntimeError(f"Mismatch in shape: grad_output[{grad_at}] has a shape of {grad.shape} and "
                                   f"output[{output_at}] has a shape of {Size(shape)}.")
            raise RuntimeError("For complex Tensors, both grad_output and output are required to have the same "
                               f"dtype. Mismatch in dtype: grad_output[{grad_at}] has a dtype of {grad.dtype} and "
                               f"output[{output_at}] has a dtype of {dtype}.")
        if grad._dtype is not dtype and not grad.is_meta:  # the engine's validate_outputs converts a root's gradient
            grad = grad.to(dtype)
        grads.append(grad)
    return grads


def _check_outputs(outputs: tuple) -> None:
    for index, output in enumerate(outputs):
        if not isinstance(output, Tensor):
            raise TypeError(f"backward(): argument 'tensors' (position 1) must be tuple of Tensors, not "
                            f"{type_name(output)}")
        if not output.requires_grad:
            raise RuntimeError(f"element {index} of tensors does not require grad and does not have a grad_fn")


def backward(tensors: Any, grad_tensors: Any = None, retain_graph: Optional[bool] = None,
             create_graph: bool = False, inputs: Any = None) -> None:
    outputs = _as_tuple(tensors)
    # None alone stands for implicit gradients: an empty sequence is zero gradients, as in torch
    grad_outputs = (None,) * len(outputs) if grad_tensors is None else _gradients_as_tuple(grad_tensors)
    if inputs is not None and len(_as_tuple(inputs)) == 0:
        raise RuntimeError("`inputs` argument to `backward()` cannot be empty.")
    grads = _make_grads(outputs, grad_outputs)
    if retain_graph is None:
        retain_graph = create_graph
    # the engine's call parses its flags before it counts the gradients
    retain_graph, create_graph = _engine_flag(retain_graph), _engine_flag(create_graph)
    _check_counts(outputs, grads)
    _check_outputs(outputs)
    if create_graph:
        warn_once("UserWarning", CREATE_GRAPH_WARNING, at="torch/csrc/autograd/engine.cpp:1307")
    if inputs is not None:
        _check_inputs(_as_tuple(inputs))
        for tensor in _as_tuple(inputs):
            tensor.retain_grad()  # as PyTorch: a non-leaf input gets its .grad filled, from now on
    run_backward(list(outputs), grads, retain_graph=retain_graph, create_graph=create_graph,
                 inputs=list(_as_tuple(inputs)) if inputs is not None else None, accumulate=True)


def _engine_flag(value: Any) -> bool:
    """A flag of the engine's call, read as its PyArg_ParseTuple reads one ('b': an unsigned byte)."""
    return bool(unsigned_byte(value))


def _check_inputs(inputs: tuple) -> None:
    # torch checks the inputs only on handing them to its engine, after the outputs
    for tensor in inputs:
        if not isinstance(tensor, (Tensor, GradientEdge)):
            raise RuntimeError(f"all inputs have to be Tensors or GradientEdges, but got {type_name(tensor)}")


def _check_counts(outputs: tuple, grads: list) -> None:
    # surplus gradients are dropped before this check, as in PyTorch; missing ones are an error
    if len(grads) != len(outputs):
        raise RuntimeError(f"got {len(outputs)} tensors and {len(grads)} gradients")


def grad(outputs: Any, inputs: Any, grad_outputs: Any = None, retain_graph: Optional[bool] = None,
         create_graph: bool = False, only_inputs: bool = True, allow_unused: Optional[bool] = None,
         is_grads_batched: bool = False, materialize_grads: bool = False) -> tuple:
    outputs_t = _as_tuple(outputs)
    inputs_t = _as_tuple(inputs)
    if materialize_grads and allow_unused is False:
        raise ValueError("Expected allow_unused to be True or not passed when materialize_grads=True, "
                         "but got: allow_unused=False.")
    if allow_unused is None:
        allow_unused = materialize_grads
    if not inputs_t:
        raise RuntimeError("`inputs` argument to `grad()` cannot be empty.")
    grad_outputs_t = (None,) * len(outputs_t) if grad_outputs is None else _gradients_as_tuple(grad_outputs)
    grads = _make_grads(outputs_t, grad_outputs_t)
    if retain_graph is None:
        retain_graph = create_graph
    # the engine's call parses its flags before it counts the gradients
    retain_graph, create_graph = _engine_flag(retain_graph), _engine_flag(create_graph)
    allow_unused = _engine_flag(allow_unused)
    _check_counts(outputs_t, grads)
    _check_outputs(tuple(t for t in outputs_t if not isinstance(t, GradientEdge)))  # an edge names its node
    _check_inputs(inputs_t)
    for tensor in inputs_t:
        if isinstance(tensor, Tensor) and not tensor.requires_grad:
            raise RuntimeError("One of the differentiated Tensors does not require grad")
    results = run_backward(list(outputs_t), grads, retain_graph=retain_graph, create_graph=create_graph,
                           inputs=list(inputs_t), accumulate=False)
    for index, result in enumerate(results):
        if result is None and not allow_unused:
            raise RuntimeError(f"The differentiated Tensor at index {index} appears to not have been used in the "
                               "graph. Set allow_unused=True if this is the desired behavior.")
    if materialize_grads:
        results = [r if r is not None else Tensor._make(np.zeros(t.shape, dtype=t._dtype._numpy), t._dtype)
                   for r, t in zip(results, inputs_t)]
    return tuple(results)
