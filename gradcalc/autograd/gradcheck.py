"""torch.autograd.gradcheck and gradgradcheck: analytical Jacobians (one backward pass per
output element) against central finite differences, with PyTorch's checks and messages.

Fast mode projects the Jacobians on random vectors in PyTorch; here it runs the full (slow)
comparison, which passes and fails on the same functions but shows the full Jacobians.
"""
from __future__ import annotations

import itertools
from typing import Any, Callable, Optional

import numpy as np

from ..display.names import type_name
from . import api, dtypes
from .forward_ad import dual_level, make_dual, unpack_dual
from .ops.common import zeros_like
from .ops.comparison import allclose
from .ops.parser import parser
from .tensor import Tensor
from ..warnings import warn

__all__ = ["gradcheck", "gradgradcheck", "GradcheckError"]


class GradcheckError(RuntimeError):
    """Raised when a gradient check fails."""


GradcheckError.__module__ = "torch.autograd.gradcheck"

_UNDEFINED_GRAD_NOTE = ('Please look at "Notes about undefined output gradients" in '
                        '"tools/autograd/derivatives.yaml"')
_BC_WARNING = ("Backwards compatibility: New undefined gradient support checking feature is enabled by default, but "
               "it may break existing callers of this function. If this is true for you, you can call this function "
               'with "check_undefined_grad=False" to disable the feature')


def _as_tuple(value: Any) -> tuple:
    if isinstance(value, tuple):
        return value
    if isinstance(value, list):
        return tuple(value)
    return (value,)


def _differentiable_outputs(value: Any) -> tuple:
    for out in _as_tuple(value):
        if not isinstance(out, Tensor):  # what torch's `out.requires_grad` meets there
            raise AttributeError(f"'{type_name(out)}' object has no attribute 'requires_grad'")
    return tuple(out for out in _as_tuple(value) if out.requires_grad)


def _diff_inputs(inputs: tuple) -> list:
    return [t for t in inputs if isinstance(t, Tensor) and t.requires_grad]


def _check_inputs(inputs: tuple) -> None:
    found = False
    for index, inp in enumerate(inputs):
        if isinstance(inp, Tensor) and inp.requires_grad:
            if inp.dtype not in (dtypes.float64, dtypes.complex128):
                warn("UserWarning", f"Input #{index} requires gradient and is not a double precision floating point "
                                    "or complex. This check will likely fail if all the inputs are not of double "
                                    "precision floating point or complex. ")
            if not all(stride > 0 or size <= 1 for stride, size in zip(inp.stride(), inp.shape)):
                raise RuntimeError(f"The {index}th input has a dimension with stride 0. gradcheck only supports "
                                   "inputs that are non-overlapping to be able to compute the numerical gradients "
                                   "correctly. You should call .contiguous on the input before passing it to "
                                   "gradcheck.")
            found = True
    if not found:
        raise ValueError("gradcheck expects at least one input tensor to require gradient, but none of them have "
                         "requires_grad=True.")


def _numerical_jacobians(func: Callable, inputs: tuple, outputs: tuple, eps: float) -> list:
    """Per differentiable input, per output: the (input numel, output numel) Jacobian by
    central differences, perturbing the input's storage in place."""
    jacobians = []
    delta = eps[0] if isinstance(eps, tuple) else eps  # the step; eps itself divides, as torch's (b - a) / (2 * eps)
    for inp in _diff_inputs(inputs):
        data = inp.data
        columns = [Tensor._make(np.zeros((inp.numel(), out.numel()), dtype=out.dtype._numpy), out.dtype)
                   for out in outputs]
        for flat, index in enumerate(itertools.product(*[range(size) for size in inp.shape])):
            entry = data[index]
            original = entry.clone()
            entry.copy_(original - delta)
            below = tuple(out.clone() for out in _as_tuple(func(*inputs)))
            entry.copy_(original + delta)
            above = tuple(out.clone() for out in _as_tuple(func(*inputs)))
            entry.copy_(original)
            for column, low, high in zip(columns, below, above):
                _check_same_dtype_and_shape(low, high, eps, index)
                column[flat] = ((high - low) / (2 * eps)).detach().reshape(-1)
        jacobians.append(columns)
    return jacobians


def _check_same_dtype_and_shape(first: Tensor, second: Tensor, eps: float, index: tuple) -> None:
    if first.shape != second.shape:
        raise AssertionError(f"Expected `func` to return outputs with the same shape when inputs are perturbed on "
                             f"index {index} by {eps}, but got: shapes {first.shape} and {second.shape}.")
    if first.dtype != second.dtype:
        raise AssertionError(f"Expected `func` to return outputs with the same dtype when inputs are perturbed on "
                             f"index {index} by {eps}, but got: dtypes {first.dtype} and {second.dtype}.")


def _analytical_rows(output: Tensor, diff_inputs: list) -> list:
    """The Jacobian of `output` by one backward pass per element: (input numel, output numel) each."""
    grad_out = zeros_like(output)
    flat = grad_out.view(-1)
    jacobians = [Tensor._make(np.zeros((t.numel(), output.numel()), dtype=t.dtype._numpy), t.dtype)
                 for t in diff_inputs]
    sizes_ok = True
    for j in range(flat.numel()):
        flat.zero_()
        flat[j] = 1.0
        grads = api.grad(output, diff_inputs, grad_out, retain_graph=True, allow_unused=True)
        for jacobian, grad, inp in zip(jacobians, grads, diff_inputs):
            if grad is None:
                continue
            if grad.shape != inp.shape:
                sizes_ok = False
                continue
            jacobian[:, j] = grad.clone().reshape(-1)
    return jacobians, sizes_ok


def _analytical_jacobians(inputs: tuple, output: Tensor, nondet_tol: float) -> list:
    diff_inputs = _diff_inputs(inputs)
    first, sizes_ok = _analytical_rows(output, diff_inputs)
    second, _ = _analytical_rows(output, diff_inputs)
    if not sizes_ok:
        raise GradcheckError("Analytical gradient has incorrect size")
    for a, b in zip(first, second):
        if a.numel() and (a - b).abs().max() > nondet_tol:
            raise GradcheckError(
                "Backward is not reentrant, i.e., running backward with same input and grad_output multiple times "
                "gives different values, although analytical gradient matches numerical gradient.The tolerance for "
                f"nondeterminism was {nondet_tol}.")
    return first


def _allclose(a: Tensor, b: Tensor, rtol: float, atol: float) -> bool:
    bound = parser("torch", "allclose").parse((a, b, rtol, atol), {})[1]  # torch.allclose's arguments
    promoted = dtypes.promote_types(a.dtype, b.dtype)
    return allclose(a.to(promoted), b.to(promoted), bound["rtol"], bound["atol"])  # and its checks of them


def _check_jacobians(func: Callable, func_out: Any, inputs: tuple, outputs: tuple, eps: float, rtol: float,
                     atol: float, nondet_tol: float) -> None:
    func_out = _as_tuple(func_out)
    numerical = _numerical_jacobians(func, inputs, func_out, eps)
    if not outputs:
        if any(bool((jacobian != 0).sum() > 0) for per_input in numerical for jacobian in per_input):
            raise GradcheckError("Numerical gradient for function expected to be zero")
        return
    # per output (differentiable ones only), per input
    per_output = [[per_input[k] for per_input in numerical] for k, out in enumerate(func_out) if out.requires_grad]
    for i, output in enumerate(outputs):
        for j, (a, n) in enumerate(zip(_analytical_jacobians(inputs, output, nondet_tol), per_output[i])):
            if not _allclose(a, n, rtol, atol):
                raise GradcheckError(f"Jacobian mismatch for output {i:d} with respect to input {j:d},\n"
                                     f"numerical:{n}\nanalytical:{a}\n")


def _dual_inputs(inputs: tuple, tangents: list) -> list:
    """The inputs with a dual of each differentiable one (its tangent from `tangents`, in order)."""
    given = iter(tangents)
    return [make_dual(inp.detach(), next(given)) if isinstance(inp, Tensor) and inp.requires_grad else inp
            for inp in inputs]


def _forward_columns(func: Callable, inputs: tuple, tangents: list) -> list:
    """The output tangents of one forward pass (None for an output without one)."""
    with dual_level():
        raw = _as_tuple(func(*_dual_inputs(inputs, tangents)))
        return [unpack_dual(out).tangent for out in raw
                if isinstance(out, Tensor) and (out.is_floating_point() or out.is_complex())]


def _check_forward_jacobians(func: Callable, func_out: Any, inputs: tuple, outputs: tuple, eps: float, rtol: float,
                             atol: float) -> None:
    """_get_analytical_jacobian_forward_ad: the Jacobian column by column, one unit tangent at a time."""
    func_out = _as_tuple(func_out)
    numerical = _numerical_jacobians(func, inputs, func_out, eps)
    per_output = [[per_input[k] for per_input in numerical] for k, out in enumerate(func_out) if out.requires_grad]
    diff_inputs = _diff_inputs(inputs)
    for j, inp in enumerate(diff_inputs):
        columns = [Tensor._make(np.zeros((inp.numel(), out.numel()), dtype=out.dtype._numpy), out.dtype)
                   for out in outputs]
        for flat in range(inp.numel()):
            tangents = [zeros_like(t) for t in diff_inputs]
            tangents[j].view(-1)[flat] = 1.0
            for column, tangent in zip(columns, _forward_columns(func, inputs, tangents)):
                if tangent is not None:
                    column[flat] = tangent.detach().reshape(-1)
        for i, (a, n) in enumerate(zip(columns, (per[j] for per in per_output))):
            if not _allclose(a, n, rtol, atol):
                raise GradcheckError(f"Jacobian computed with forward mode mismatch for output {i:d} with respect "
                                     f"to input {j:d},\nnumerical:{n}\nanalytical:{a}\n")


def _check_undefined_forward_grad(func: Callable, inputs: tuple) -> None:
    """_test_undefined_forward_mode: an input without a tangent gives what a zero tangent gives."""
    positions = [i for i, inp in enumerate(inputs) if isinstance(inp, Tensor) and inp.requires_grad]
    with dual_level():
        duals = _dual_inputs(inputs, [inputs[i].detach().clone().fill_(1.0) for i in positions])
        for position in positions:
            kept = duals[position]
            duals[position] = make_dual(inputs[position].detach(), zeros_like(inputs[position]))
            with_zero = [unpack_dual(out).tangent for out in _as_tuple(func(*duals))]
            duals[position] = inputs[position].detach()
            without = [unpack_dual(out).tangent for out in _as_tuple(func(*duals))]
            duals[position] = kept
            for index, (first, second) in enumerate(zip(with_zero, without)):
                if first is not None and second is not None and not _allclose(first, second, 1e-5, 1e-8):
                    # PyTorch gives the pieces as separate arguments: the message shows them as a tuple
                    raise GradcheckError("Mismatch in tangent values for output with index: ", index, " when input: ",
                                         inputs[position], " has an undefined tangent value. ", " Got: ", first,
                                         " but expected: ", second)


def _check_backward_mul_by_grad_output(outputs: tuple, inputs: tuple) -> None:
    diff_inputs = _diff_inputs(inputs)
    grads = api.grad(outputs, diff_inputs, [zeros_like(o) for o in outputs], allow_unused=True)
    for grad, inp in zip(grads, diff_inputs):
        if grad is None:
            continue
        if not bool(grad.eq(0).all()):
            raise GradcheckError("backward not multiplied by grad_output")
        if grad.dtype != inp.dtype:
            raise GradcheckError("grad is incorrect type")
        if grad.shape != inp.shape:
            raise GradcheckError("grad is incorrect size")


def _check_undefined_grad(func: Callable, outputs: tuple, inputs: tuple) -> None:
    """Backward given no gradient for the outputs must give none, or zeros, for the inputs."""
    diff_inputs = _diff_inputs(inputs)
    checks = [_differentiable_outputs(func(*inputs))]
    if len(checks[0]) > 1:
        checks += [_differentiable_outputs(func(*inputs)) for _ in outputs]
    for outs in checks:
        try:
            grads = api.grad(outs, diff_inputs, [zeros_like(o) for o in outs], allow_unused=True)
        except RuntimeError as error:
            warn("UserWarning", _BC_WARNING)
            raise GradcheckError("Expected backward function to handle undefined output grads. "
                                 + _UNDEFINED_GRAD_NOTE) from error
        if any(grad is not None and not bool(grad.eq(0).all()) for grad in grads):
            warn("UserWarning", _BC_WARNING)
            raise GradcheckError("Expected all input grads to be undefined or zero when all output grads are "
                                 "undefined or zero. " + _UNDEFINED_GRAD_NOTE)


def gradcheck(func: Callable, inputs: Any, *, eps: float = 1e-6, atol: float = 1e-5, rtol: float = 1e-3,
              raise_exception: bool = True, nondet_tol: float = 0.0, check_undefined_grad: bool = True,
              check_grad_dtypes: bool = False, check_batched_grad: bool = False,
              check_batched_forward_grad: bool = False, check_forward_ad: bool = False,
              check_backward_ad: bool = True, fast_mode: bool = False, masked: Optional[bool] = None) -> bool:
    if not (check_forward_ad or check_backward_ad):
        raise AssertionError("Expected at least one of check_forward_ad or check_backward_ad to be True")
    if check_batched_grad and not check_backward_ad:
        raise AssertionError("Setting check_batched_grad=True requires check_backward_ad to be True")
    if check_batched_forward_grad and not check_forward_ad:
        raise AssertionError("Setting check_batched_forward_grad=True requires check_forward_ad to be True")
    if raise_exception:  # (torch's `if not raise_exception:` reads it first, a tensor's truth too)
        return _gradcheck(func, inputs, eps, atol, rtol, nondet_tol, check_undefined_grad, check_forward_ad,
                          check_backward_ad)
    try:
        return _gradcheck(func, inputs, eps, atol, rtol, nondet_tol, check_undefined_grad, check_forward_ad,
                          check_backward_ad)
    except GradcheckError:
        return False


def _gradcheck(func: Callable, inputs: Any, eps: float, atol: float, rtol: float, nondet_tol: float,
               check_undefined_grad: bool, check_forward_ad: bool, check_backward_ad: bool) -> bool:
    inputs = _as_tuple(inputs)
    _check_inputs(inputs)
    func_out = func(*inputs)
    outputs = _differentiable_outputs(func_out)
    if check_backward_ad:
        _check_jacobians(func, func_out, inputs, outputs, eps, rtol, atol, nondet_tol)
    if check_forward_ad:
        _check_forward_jacobians(func, func_out, inputs, outputs, eps, rtol, atol)
        if check_undefined_grad:
            _check_undefined_forward_grad(func, inputs)
    if not check_backward_ad:  # what remains needs backward mode
        return True
    if not _diff_inputs(inputs):
        raise GradcheckError("no Tensors requiring grad found in input")
    _check_backward_mul_by_grad_output(outputs, inputs)
    if check_undefined_grad:
        _check_undefined_grad(func, outputs, inputs)
    return True


def _random_grad_output(output: Tensor) -> Tensor:
    """A gradient for `output` drawn as torch.testing.make_tensor draws it: uniform in [-1, 1)."""
    dtype = output.dtype if output.is_floating_point() or output.is_complex() else dtypes.float64
    return Tensor._make(np.empty(output.shape, dtype=dtype._numpy), dtype).uniform_(-1, 1).requires_grad_()


def gradgradcheck(func: Callable, inputs: Any, grad_outputs: Any = None, *, eps: float = 1e-6, atol: float = 1e-5,
                  rtol: float = 1e-3, gen_non_contig_grad_outputs: bool = False, raise_exception: bool = True,
                  nondet_tol: float = 0.0, check_undefined_grad: bool = True, check_grad_dtypes: bool = False,
                  check_batched_grad: bool = False, check_fwd_over_rev: bool = False,
                  check_rev_over_rev: bool = True, fast_mode: bool = False, masked: bool = False) -> bool:
    if not (check_fwd_over_rev or check_rev_over_rev):
        raise AssertionError("Expected at least one of check_fwd_over_rev or check_rev_over_rev to be True")
    if check_undefined_grad and not check_rev_over_rev:
        raise AssertionError("Setting check_undefined_grad=True requires check_rev_over_rev to be True")
    if check_batched_grad and not check_rev_over_rev:
        raise AssertionError("Setting check_batched_grad=True requires check_rev_over_rev to be True")
    inputs = _as_tuple(inputs)
    if grad_outputs is None:
        grad_outputs = tuple(_random_grad_output(out) for out in _differentiable_outputs(func(*inputs)))
    else:
        grad_outputs = _as_tuple(grad_outputs)
    count = len(grad_outputs)
    diff_input_indices = {i for i, x in enumerate(inputs) if isinstance(x, Tensor) and x.requires_grad}
    diff_grad_indices = {i for i, x in enumerate(grad_outputs) if x.requires_grad}

    def first_derivatives(*args: Any) -> tuple:
        input_args = tuple(x.requires_grad_() if i in diff_input_indices else x
                           for i, x in enumerate(args[:-count]))
        outputs = _differentiable_outputs(func(*input_args))
        grads = tuple(x.requires_grad_() if i in diff_grad_indices else x for i, x in enumerate(args[-count:]))
        diff_inputs = tuple(x for i, x in enumerate(input_args) if i in diff_input_indices)
        results = api.grad(outputs, diff_inputs, grads, create_graph=True, allow_unused=True)
        return tuple(g for g in results if g is not None)

    return gradcheck(first_derivatives, inputs + grad_outputs, eps=eps, atol=atol, rtol=rtol,
                     raise_exception=raise_exception, nondet_tol=nondet_tol,
                     check_undefined_grad=check_undefined_grad, check_grad_dtypes=check_grad_dtypes,
                     check_batched_grad=check_batched_grad, fast_mode=fast_mode,
                     check_forward_ad=check_fwd_over_rev, check_backward_ad=check_rev_over_rev, masked=masked)


for _function in (gradcheck, gradgradcheck):
    _function.__module__ = "torch.autograd.gradcheck"
