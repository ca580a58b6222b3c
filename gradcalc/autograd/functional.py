"""torch.autograd.functional: jacobian and hessian, by one backward pass per output element
(PyTorch's default, non-vectorized reverse mode), so the graphs and values are its own."""
from __future__ import annotations

from typing import Any, Callable

from . import api
from .ops.common import zeros_like
from .ops.joining import stack
from .tensor import Tensor

__all__ = ["jacobian", "hessian"]


def _as_tuple(value: Any, what: str, function: str) -> tuple:
    is_tuple = isinstance(value, tuple)
    values = value if is_tuple else (value,)
    for index, item in enumerate(values):
        if not isinstance(item, Tensor):
            if is_tuple:
                raise TypeError(f"The {what} given to {function} must be either a Tensor or a tuple of Tensors but "
                                f"the value at index {index} has type {type(item)}.")
            raise TypeError(f"The {what} given to {function} must be either a Tensor or a tuple of Tensors but the "
                            f"given {what} has type {type(item)}.")
    return is_tuple, values


def _postprocess(result: Any, outer_tuple: bool, inner_tuple: bool) -> Any:
    # a tuple of tuples, unwrapped where the function's outputs or inputs were single tensors
    if not inner_tuple:
        result = tuple(item[0] for item in result)
    return result if outer_tuple else result[0]


def jacobian(func: Callable, inputs: Any, create_graph: bool = False, strict: bool = False,
             vectorize: bool = False, strategy: str = "reverse-mode") -> Any:
    if strategy != "reverse-mode" or vectorize:
        raise NotImplementedError("gradcalc computes jacobian in reverse mode, one output element at a time")
    is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jacobian")
    # fresh leaves that require grad (views of the inputs when the result must stay differentiable)
    inputs = tuple(t.view_as(t) if create_graph and t.requires_grad else t.detach().requires_grad_(True)
                   for t in inputs)
    is_outputs_tuple, outputs = _as_tuple(func(*inputs), "outputs of the user-provided function", "jacobian")
    result = []
    for out in outputs:
        rows: list = [[] for _ in inputs]
        for index in range(out.numel()):
            if out.requires_grad:
                grads = api.grad([out.reshape(-1)[index]], list(inputs), retain_graph=True,
                                 create_graph=create_graph, allow_unused=True)
            else:
                grads = (None,) * len(inputs)
            for row, grad, inp in zip(rows, grads, inputs):
                row.append(grad if grad is not None else zeros_like(inp))
        result.append(tuple(stack(row, 0).view(*(tuple(out.shape) + tuple(inp.shape)))
                            for row, inp in zip(rows, inputs)))
    if not create_graph:
        result = [tuple(t.detach() for t in row) for row in result]
    return _postprocess(tuple(result), is_outputs_tuple, is_inputs_tuple)


def hessian(func: Callable, inputs: Any, create_graph: bool = False, strict: bool = False,
            vectorize: bool = False, outer_jacobian_strategy: str = "reverse-mode") -> Any:
    is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "hessian")

    def single_output(*values: Tensor) -> Tensor:
        out = func(*values)
        if isinstance(out, tuple) or not isinstance(out, Tensor):
            raise RuntimeError("The function given to hessian should return a single Tensor")
        if out.numel() != 1:
            raise RuntimeError("The Tensor returned by the function given to hessian should contain a single element")
        return out.squeeze()

    def gradient(*values: Tensor) -> Any:
        return jacobian(single_output, values, create_graph=True)

    result = jacobian(gradient, inputs, create_graph=create_graph, strict=strict, vectorize=vectorize,
                      strategy=outer_jacobian_strategy)
    return _postprocess(result, is_inputs_tuple, is_inputs_tuple)
