"""torch.utils.checkpoint: activation checkpointing, as a CPU-only PyTorch runs it.

gradcalc keeps every tensor in memory anyway, so what a program can see is what matters: the
reentrant variant (`use_reentrant=True`, the default when none is given, with PyTorch's warning)
records one CheckpointFunctionBackward node and reruns the function in the backward pass, with
the random state of the forward; the non-reentrant variant leaves the function's own graph, as
PyTorch's does (it only recomputes what that graph saved).
"""
from __future__ import annotations

from typing import Any, Callable, Iterable

from ..autograd import api, engine, grad_mode, random
from ..autograd.function import Function
from ..autograd.tensor import Tensor
from ..cuda import fork_rng
from ..nn.modules import Sequential
from ..warnings import warn

__all__ = ["checkpoint", "checkpoint_sequential", "check_backward_validity", "detach_variable",
           "CheckpointFunction", "noop_context_fn"]

_REENTRANT_WARNING = (
    "torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly. Starting in PyTorch 2.9, "
    "calling checkpoint without use_reentrant will raise an exception. use_reentrant=False is recommended, but if "
    "you need to preserve the current default behavior, you can pass use_reentrant=True. Refer to docs for more "
    "details on the differences between the two variants.")
_SEQUENTIAL_WARNING = (
    "torch.utils.checkpoint.checkpoint_sequential: the use_reentrant parameter should be passed explicitly. In "
    "version 2.9 we will raise an exception if use_reentrant is not passed. use_reentrant=False is recommended, but "
    "if you need to preserve the current default behavior, you can pass use_reentrant=True. Refer to docs for more "
    "details on the differences between the two variants.")


def detach_variable(inputs: tuple) -> tuple:
    if not isinstance(inputs, tuple):
        raise RuntimeError(f"Only tuple of tensors is supported. Got Unsupported input type: {type(inputs).__name__}")
    out = []
    for inp in inputs:
        if not isinstance(inp, Tensor):
            out.append(inp)
            continue
        x = inp.detach()
        x.requires_grad = inp.requires_grad
        out.append(x)
    return tuple(out)


def check_backward_validity(inputs: Iterable[Any]) -> None:
    if not any(inp.requires_grad for inp in inputs if isinstance(inp, Tensor)):
        warn("UserWarning", "None of the inputs have requires_grad=True. Gradients will be None")


def _is_checkpoint_valid() -> bool:
    """Whether the backward under way is a plain one (not torch.autograd.grad, nor given `inputs`)."""
    return not engine.running_tasks or engine.running_tasks[-1].needed is None


class CheckpointFunction(Function):
    __module__ = "torch.utils.checkpoint"

    @staticmethod
    def forward(ctx: Any, run_function: Callable, preserve_rng_state: bool, *args: Any) -> Any:
        check_backward_validity(args)
        ctx.run_function = run_function
        ctx.preserve_rng_state = preserve_rng_state
        if preserve_rng_state:
            ctx.fwd_cpu_state = random.get_rng_state()
        ctx.inputs = []
        ctx.tensor_indices = []
        tensor_inputs = []
        for i, arg in enumerate(args):
            if isinstance(arg, Tensor):
                tensor_inputs.append(arg)
                ctx.tensor_indices.append(i)
                ctx.inputs.append(None)
            else:
                ctx.inputs.append(arg)
        ctx.save_for_backward(*tensor_inputs)
        with grad_mode.no_grad():
            return run_function(*args)

    @staticmethod
    def backward(ctx: Any, *args: Any) -> tuple:
        if not _is_checkpoint_valid():
            raise RuntimeError("When use_reentrant=True, torch.utils.checkpoint is incompatible with .grad() or "
                               "passing an `inputs` parameter to .backward(). To resolve this error, you can either "
                               "set use_reentrant=False, or call .backward() without passing the `inputs` argument.")
        inputs = list(ctx.inputs)
        for i, idx in enumerate(ctx.tensor_indices):
            inputs[idx] = ctx.saved_tensors[i]
        with fork_rng(devices=[], enabled=ctx.preserve_rng_state):
            if ctx.preserve_rng_state:
                random.set_rng_state(ctx.fwd_cpu_state)
            detached_inputs = detach_variable(tuple(inputs))
            with grad_mode.enable_grad():
                outputs = ctx.run_function(*detached_inputs)
        if isinstance(outputs, Tensor):
            outputs = (outputs,)
        outputs_with_grad, args_with_grad = [], []
        for i in range(len(outputs)):
            if isinstance(outputs[i], Tensor) and outputs[i].requires_grad:
                outputs_with_grad.append(outputs[i])
                args_with_grad.append(args[i])
        if not outputs_with_grad:
            raise RuntimeError("none of output has requires_grad=True, this checkpoint() is not necessary")
        api.backward(outputs_with_grad, args_with_grad)
        grads = tuple(inp.grad if isinstance(inp, Tensor) else None for inp in detached_inputs)
        return (None, None) + grads


def noop_context_fn() -> tuple:
    import contextlib

    return contextlib.nullcontext(), contextlib.nullcontext()


noop_context_fn.__module__ = "torch.utils.checkpoint"


def checkpoint(function: Callable, *args: Any, use_reentrant: Any = None, context_fn: Callable = noop_context_fn,
               determinism_check: str = "default", debug: bool = False, early_stop: bool = True,
               **kwargs: Any) -> Any:
    if use_reentrant is None:
        warn("UserWarning", _REENTRANT_WARNING)
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs and use_reentrant:
        raise ValueError("Unexpected keyword arguments: " + ",".join(arg for arg in kwargs))
    if use_reentrant:
        if context_fn is not noop_context_fn or debug is not False:
            raise ValueError("Passing `context_fn` or `debug` is only supported when use_reentrant=False.")
        return CheckpointFunction.apply(function, preserve, *args)
    # the non-reentrant variant's graph is the function's own: only its memory differs
    with context_fn()[0]:
        return function(*args, **kwargs)


checkpoint.__module__ = "torch.utils.checkpoint"


def checkpoint_sequential(functions: Any, segments: int, input: Any, use_reentrant: Any = None,
                          **kwargs: Any) -> Any:
    if use_reentrant is None:
        warn("UserWarning", _SEQUENTIAL_WARNING)
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs:
        raise ValueError("Unexpected keyword arguments: " + ",".join(arg for arg in kwargs))

    def run_function(start: int, end: int, functions: list) -> Callable:
        def forward(input: Any) -> Any:
            for j in range(start, end + 1):
                input = functions[j](input)
            return input
        return forward

    if isinstance(functions, Sequential):
        functions = list(functions.children())
    segment_size = len(functions) // segments
    end = -1
    for start in range(0, segment_size * (segments - 1), segment_size):
        end = start + segment_size - 1
        input = checkpoint(run_function(start, end, functions), input, use_reentrant=use_reentrant,
                           preserve_rng_state=preserve)
    return run_function(end + 1, len(functions) - 1, functions)(input)


checkpoint_sequential.__module__ = "torch.utils.checkpoint"
