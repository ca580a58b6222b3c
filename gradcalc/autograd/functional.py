"""torch.autograd.functional: vjp, jvp, vhp, hvp, jacobian and hessian, each built from
torch.autograd.grad as PyTorch builds them (jvp and hvp by the double backward trick), so that
values, graphs and errors (strict mode's included) are PyTorch's.

Forward mode (`strategy="forward-mode"`, `outer_jacobian_strategy="forward-mode"`) takes
PyTorch's checks, then computes the same numbers in reverse mode; `vectorize=True` computes
the rows one by one instead of in one batched backward, which gives the same values and the
same graph at the top (a view of the gradients).
"""
from __future__ import annotations

from typing import Any, Callable, Optional

from . import api, grad_mode
from .ops.common import zeros_like
from .ops.joining import stack
from .tensor import Tensor

__all__ = ["vjp", "jvp", "jacobian", "hessian", "hvp", "vhp"]

STRATEGIES = ("forward-mode", "reverse-mode")


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


def _unpack(result: Any, is_tuple: bool) -> Any:
    return result if is_tuple else result[0]


def _unpack_nested(result: Any, outer_tuple: bool, inner_tuple: bool) -> Any:
    # a tuple of tuples, unwrapped where the function's outputs or inputs were single tensors
    if not inner_tuple:
        result = tuple(item[0] for item in result)
    return result if outer_tuple else result[0]


def _grad_preprocess(inputs: tuple, create_graph: bool, need_graph: bool) -> tuple:
    """Fresh leaves to differentiate with respect to (views of the inputs when the result must stay differentiable)."""
    return tuple(t.view_as(t) if create_graph and t.requires_grad else t.detach().requires_grad_(need_graph)
                 for t in inputs)


def _grad_postprocess(values: tuple, create_graph: bool) -> tuple:
    if values and isinstance(values[0], Tensor):
        return values if create_graph else tuple(t.detach() for t in values)
    return tuple(_grad_postprocess(group, create_graph) for group in values)


def _validate_v(v: tuple, other: tuple, is_other_tuple: bool) -> None:
    if len(other) != len(v):
        if is_other_tuple:
            raise RuntimeError(f"v is a tuple of invalid length: should be {len(other)} but got {len(v)}.")
        raise RuntimeError("The given v should contain a single Tensor.")
    for index, (item, reference) in enumerate(zip(v, other)):
        if item.size() != reference.size():
            prefix = f"Entry {index} in " if is_other_tuple else ""
            raise RuntimeError(f"{prefix}v has invalid size: should be {reference.size()} but got {item.size()}.")


def _check_requires_grad(values: tuple, kind: str, strict: bool) -> None:
    """In strict mode, every value must depend on the inputs differentiably."""
    if not strict:
        return
    for index, value in enumerate(values):
        if value is None:
            raise RuntimeError(f"The output of the user-provided function is independent of input {index}. This is "
                               "not allowed in strict mode.")
        if value.requires_grad:
            continue
        if kind == "hessian":
            raise RuntimeError(
                f"The hessian of the user-provided function with respect to input {index} is independent of the "
                "input. This is not allowed in strict mode. You should ensure that your function is thrice "
                "differentiable and that the hessian depends on the inputs.")
        if kind == "jacobian":
            raise RuntimeError(
                "While computing the hessian, found that the jacobian of the user-provided function with respect to "
                f"input {index} is independent of the input. This is not allowed in strict mode. You should ensure "
                "that your function is twice differentiable and that the jacobian depends on the inputs (this would "
                "be violated by a linear function for example).")
        if kind == "grad_inputs":
            raise RuntimeError(f"The gradient with respect to input {index} is independent of the inputs of the "
                               "user-provided function. This is not allowed in strict mode.")
        raise RuntimeError(f"Output {index} of the user-provided function does not require gradients. The outputs "
                           "must be computed in a differentiable manner from the input when running in strict mode.")


def _autograd_grad(outputs: tuple, inputs: tuple, grad_outputs: Optional[tuple] = None, create_graph: bool = False,
                   retain_graph: Optional[bool] = None) -> tuple:
    """torch.autograd.grad of the outputs that require grad (None for every input if none does)."""
    if grad_outputs is None:
        grad_outputs = (None,) * len(outputs)
    kept = [(out, grad) for out, grad in zip(outputs, grad_outputs) if out is not None and out.requires_grad]
    if not kept:
        return (None,) * len(inputs)
    return api.grad([out for out, _ in kept], list(inputs), [grad for _, grad in kept], allow_unused=True,
                    create_graph=create_graph, retain_graph=retain_graph)


_ZERO_FILL_ERRORS = {
    "back": "The output of the user-provided function is independent of input {}. This is not allowed in strict mode.",
    "back_trick": "The gradient with respect to the input is independent of entry {} in the grad_outputs when using "
                  "the double backward trick to compute forward mode gradients. This is not allowed in strict mode.",
    "double_back": "The jacobian of the user-provided function is independent of input {}. This is not allowed in "
                   "strict mode.",
    "double_back_trick": "The hessian of the user-provided function is independent of entry {} in the grad_jacobian. "
                         "This is not allowed in strict mode as it prevents from using the double backward trick to "
                         "replace forward mode AD.",
}


def _fill_in_zeros(grads: tuple, references: tuple, strict: bool, create_graph: bool, stage: str) -> tuple:
    """Zeros where no gradient came (an error in strict mode)."""
    filled = []
    for index, grad in enumerate(grads):
        if grad is None:
            if strict:
                raise RuntimeError(_ZERO_FILL_ERRORS[stage].format(index))
            grad = zeros_like(references[index])
        elif strict and create_graph and not grad.requires_grad:
            what = "hessian" if "double" in stage else "jacobian"
            raise RuntimeError(f"The {what} of the user-provided function is independent of input {index}. This is "
                               "not allowed in strict mode when create_graph=True.")
        filled.append(grad)
    return tuple(filled)


def _prepare_v(v: Any, reference: tuple, is_reference_tuple: bool, create_graph: bool, function: str,
               missing: str) -> Optional[tuple]:
    if v is not None:
        _, v = _as_tuple(v, "v", function)
        v = _grad_preprocess(v, create_graph=create_graph, need_graph=False)
        _validate_v(v, reference, is_reference_tuple)
        return v
    if len(reference) != 1 or reference[0].nelement() != 1:
        raise RuntimeError(f"The vector v can only be None if {missing} a single Tensor with a single element.")
    return None


_OF_INPUT = "the input to the user-provided function is"


def vjp(func: Callable, inputs: Any, v: Any = None, create_graph: bool = False, strict: bool = False) -> tuple:
    with grad_mode.enable_grad():
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "vjp")
        inputs = _grad_preprocess(inputs, create_graph=create_graph, need_graph=True)
        is_outputs_tuple, outputs = _as_tuple(func(*inputs), "outputs of the user-provided function", "vjp")
        _check_requires_grad(outputs, "outputs", strict)
        v = _prepare_v(v, outputs, is_outputs_tuple, create_graph, "vjp",
                       "the user-provided function returns")
    with grad_mode.set_grad_enabled(True if create_graph else grad_mode.is_grad_enabled()):
        grads = _fill_in_zeros(_autograd_grad(outputs, inputs, v, create_graph=create_graph), inputs, strict,
                               create_graph, "back")
    return (_unpack(_grad_postprocess(outputs, create_graph), is_outputs_tuple),
            _unpack(_grad_postprocess(grads, create_graph), is_inputs_tuple))


def jvp(func: Callable, inputs: Any, v: Any = None, create_graph: bool = False, strict: bool = False) -> tuple:
    """By the double backward trick: the vjp's gradient with respect to its vector, as PyTorch computes it."""
    with grad_mode.enable_grad():
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jvp")
        inputs = _grad_preprocess(inputs, create_graph=create_graph, need_graph=True)
        v = _prepare_v(v, inputs, is_inputs_tuple, create_graph, "jvp", _OF_INPUT)
        is_outputs_tuple, outputs = _as_tuple(func(*inputs), "outputs of the user-provided function", "jvp")
        _check_requires_grad(outputs, "outputs", strict)
        grad_outputs = tuple(zeros_like(out).requires_grad_(True) for out in outputs)
        grad_inputs = _autograd_grad(outputs, inputs, grad_outputs, create_graph=True)
        _check_requires_grad(grad_inputs, "grad_inputs", strict)
    with grad_mode.set_grad_enabled(True if create_graph else grad_mode.is_grad_enabled()):
        grads = _fill_in_zeros(_autograd_grad(grad_inputs, grad_outputs, v, create_graph=create_graph), outputs,
                               strict, create_graph, "back_trick")
    return (_unpack(_grad_postprocess(outputs, create_graph), is_outputs_tuple),
            _unpack(_grad_postprocess(grads, create_graph), is_outputs_tuple))


def _single_output(outputs: tuple, is_outputs_tuple: bool, function: str) -> None:
    if is_outputs_tuple or not isinstance(outputs[0], Tensor):
        raise RuntimeError(f"The function given to {function} should return a single Tensor")
    if outputs[0].nelement() != 1:
        raise RuntimeError(f"The Tensor returned by the function given to {function} should contain a single element")


def _first_derivatives(func: Callable, inputs: Any, v: Any, create_graph: bool, strict: bool, function: str) -> tuple:
    """What vhp and hvp start from, under enable_grad: the inputs, v, the function's single
    output and its gradient with a graph of its own."""
    is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", function)
    inputs = _grad_preprocess(inputs, create_graph=create_graph, need_graph=True)
    v = _prepare_v(v, inputs, is_inputs_tuple, create_graph, function, _OF_INPUT)
    is_outputs_tuple, outputs = _as_tuple(func(*inputs), "outputs of the user-provided function", function)
    _check_requires_grad(outputs, "outputs", strict)
    _single_output(outputs, is_outputs_tuple, function)
    jac = _autograd_grad(outputs, inputs, create_graph=True)
    _check_requires_grad(jac, "jacobian", strict)
    return is_inputs_tuple, inputs, v, is_outputs_tuple, outputs, jac


def vhp(func: Callable, inputs: Any, v: Any = None, create_graph: bool = False, strict: bool = False) -> tuple:
    with grad_mode.enable_grad():
        is_inputs_tuple, inputs, v, is_outputs_tuple, outputs, jac = _first_derivatives(
            func, inputs, v, create_graph, strict, "vhp")
    with grad_mode.set_grad_enabled(True if create_graph else grad_mode.is_grad_enabled()):
        grads = _fill_in_zeros(_autograd_grad(jac, inputs, v, create_graph=create_graph), inputs, strict,
                               create_graph, "double_back")
    return (_unpack(_grad_postprocess(outputs, create_graph), is_outputs_tuple),
            _unpack(_grad_postprocess(grads, create_graph), is_inputs_tuple))


def hvp(func: Callable, inputs: Any, v: Any = None, create_graph: bool = False, strict: bool = False) -> tuple:
    """By the double backward trick, as PyTorch computes it."""
    with grad_mode.enable_grad():
        is_inputs_tuple, inputs, v, is_outputs_tuple, outputs, jac = _first_derivatives(
            func, inputs, v, create_graph, strict, "hvp")
        grad_jac = tuple(zeros_like(t).requires_grad_(True) for t in inputs)
        double_back = _autograd_grad(jac, inputs, grad_jac, create_graph=True)
        _check_requires_grad(jac, "hessian", strict)
    with grad_mode.set_grad_enabled(True if create_graph else grad_mode.is_grad_enabled()):
        grads = _fill_in_zeros(_autograd_grad(double_back, grad_jac, v, create_graph=create_graph), inputs, strict,
                               create_graph, "double_back_trick")
    return (_unpack(_grad_postprocess(outputs, create_graph), is_outputs_tuple),
            _unpack(_grad_postprocess(grads, create_graph), is_inputs_tuple))


def jacobian(func: Callable, inputs: Any, create_graph: bool = False, strict: bool = False,
             vectorize: bool = False, strategy: str = "reverse-mode") -> Any:
    if strategy not in STRATEGIES:
        raise AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode". Hint: If your '
                             'function has more outputs than inputs, "forward-mode" tends to be more performant. '
                             'Otherwise, prefer to use "reverse-mode".')
    if strategy == "forward-mode":
        if create_graph:
            raise NotImplementedError(
                'torch.autograd.functional.jacobian: `create_graph=True` and `strategy="forward-mode"` are not '
                'supported together (yet). Please either set `create_graph=False` or `strategy="reverse-mode"`.')
        if strict:
            raise RuntimeError(
                'torch.autograd.functional.jacobian: `strict=True` and `strategy="forward-mode"` are not supported '
                'together (yet). Please either set `strict=False` or `strategy="reverse-mode"`.')
        _as_tuple(inputs, "inputs", "jacobian")
        if not vectorize:
            raise NotImplementedError("Computing Jacobian using forward-AD or forward-over-reverse Hessian is"
                                      "only implemented for `vectorize=True`.")
    with grad_mode.enable_grad():
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jacobian")
        inputs = _grad_preprocess(inputs, create_graph=create_graph, need_graph=True)
        is_outputs_tuple, outputs = _as_tuple(func(*inputs), "outputs of the user-provided function", "jacobian")
        _check_requires_grad(outputs, "outputs", strict)
        if vectorize and strict:
            raise RuntimeError("torch.autograd.functional.jacobian: `strict=True` and `vectorized=True` are not "
                               "supported together. Please either set `strict=False` or `vectorize=False`.")
        result = []
        for out_index, out in enumerate(outputs):
            rows: list = [[] for _ in inputs]
            for element in range(out.nelement()):
                grads = _autograd_grad((out.reshape(-1)[element],), inputs, retain_graph=True,
                                       create_graph=create_graph)
                for in_index, (row, grad, inp) in enumerate(zip(rows, grads, inputs)):
                    if grad is not None:
                        if strict and create_graph and not grad.requires_grad:
                            raise RuntimeError(f"The jacobian of the user-provided function is independent of input "
                                               f"{out_index}. This is not allowed in strict mode when "
                                               "create_graph=True.")
                        row.append(grad)
                    else:
                        if strict:
                            raise RuntimeError(f"Output {out_index} of the user-provided function is independent of "
                                               f"input {in_index}. This is not allowed in strict mode.")
                        row.append(zeros_like(inp))
            result.append(tuple(stack(row, 0).view(out.size() + inp.size()) for row, inp in zip(rows, inputs)))
        if strategy == "forward-mode":  # PyTorch's forward mode gives lists
            return _unpack_nested([list(row) for row in _grad_postprocess(tuple(result), False)], is_outputs_tuple,
                                  is_inputs_tuple)
        return _unpack_nested(_grad_postprocess(tuple(result), create_graph), is_outputs_tuple, is_inputs_tuple)


def hessian(func: Callable, inputs: Any, create_graph: bool = False, strict: bool = False,
            vectorize: bool = False, outer_jacobian_strategy: str = "reverse-mode") -> Any:
    is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "hessian")
    if outer_jacobian_strategy not in STRATEGIES:
        raise AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode".')

    def single_output(*values: Tensor) -> Tensor:
        out = func(*values)
        is_out_tuple, outs = _as_tuple(out, "outputs of the user-provided function", "hessian")
        _check_requires_grad(outs, "outputs", strict)
        if is_out_tuple or not isinstance(out, Tensor):
            raise RuntimeError("The function given to hessian should return a single Tensor")
        if out.nelement() != 1:
            raise RuntimeError("The Tensor returned by the function given to hessian should contain a single element")
        return out.squeeze()

    def gradient(*values: Tensor) -> Any:
        if outer_jacobian_strategy == "forward-mode":
            values = tuple(t.requires_grad_(True) for t in values)
        jac = jacobian(single_output, values, create_graph=True)
        _check_requires_grad(jac, "jacobian", strict)
        return jac

    result = jacobian(gradient, inputs, create_graph=create_graph, strict=strict, vectorize=vectorize,
                      strategy=outer_jacobian_strategy)
    return _unpack_nested(result, is_inputs_tuple, is_inputs_tuple)
