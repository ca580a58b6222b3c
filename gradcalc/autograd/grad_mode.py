"""Grad modes: whether operations record a graph (torch.no_grad and friends)."""
from __future__ import annotations

import functools
from typing import Any, Callable, Optional

_enabled = True
_inference = False
# the forward-AD levels whose tangents ops propagate now, outermost first (see forward_mode.py);
# the op path only asks whether it is empty
FORWARD_LEVELS: list = []


class TransformDepth:
    """How many of torch.func's transforms are running, outermost first: only the outermost detaches
    (_functorch), and a custom Function must then have a setup_context (function.py)."""

    value = 0


def functorch_active() -> bool:
    """torch._C._are_functorch_transforms_active: a grad, vjp, jvp or vmap of torch.func running (a
    vmap's level is a forward_mode.BatchLevel, a forward-AD level an int)."""
    return TransformDepth.value > 0 or any(type(level) is not int for level in FORWARD_LEVELS)


def is_grad_enabled() -> bool:
    return _enabled


def is_inference_mode_enabled() -> bool:
    return _inference


def _set_inference(mode: bool) -> None:
    global _inference
    _inference = bool(mode)


def _set_enabled(mode: bool) -> None:
    global _enabled
    _enabled = bool(mode)


_GENERATOR = 0x20  # inspect.CO_GENERATOR, without importing inspect


class _GradMode:
    """A context manager that is also a decorator, as torch's grad modes are."""

    mode = True
    inference: Optional[bool] = None  # inference mode to set too (None: leave it as it is)

    def __init_subclass__(cls) -> None:
        # the grad modes are Python classes of this module in torch: <class 'torch.autograd.grad_mode.no_grad'>
        cls.__module__ = "torch.autograd.grad_mode"

    def __enter__(self) -> None:
        self._previous = _enabled
        self._previous_inference = _inference
        _set_enabled(self.mode)
        if self.inference is not None:
            _set_inference(self.inference)

    def __exit__(self, *exc_info: Any) -> bool:
        _set_enabled(self._previous)
        if self.inference is not None:
            _set_inference(self._previous_inference)
        return False

    def __call__(self, function: Callable) -> Callable:
        mode_type, mode, inference = type(self), self.mode, self.inference

        def fresh() -> "_GradMode":
            context = mode_type.__new__(mode_type)
            context.mode, context.inference = mode, inference
            return context

        if getattr(getattr(function, "__code__", None), "co_flags", 0) & _GENERATOR:
            @functools.wraps(function)
            def generate_in_mode(*args: Any, **kwargs: Any) -> Any:
                # each step of the generator runs in the mode, as torch's decorator does
                generator = function(*args, **kwargs)
                try:
                    with fresh():
                        response = generator.send(None)
                    while True:
                        try:
                            request = yield response
                        except GeneratorExit:
                            with fresh():
                                generator.close()
                            raise
                        except BaseException as error:
                            with fresh():
                                response = generator.throw(error)
                        else:
                            with fresh():
                                response = generator.send(request)
                except StopIteration as stop:
                    return stop.value

            return generate_in_mode

        @functools.wraps(function)
        def run_in_mode(*args: Any, **kwargs: Any) -> Any:
            with fresh():
                return function(*args, **kwargs)

        return run_in_mode


class _NoParamDecoratorContextManager(_GradMode):
    """torch's base of the grad modes that may decorate bare, `@torch.no_grad`."""

    def __new__(cls, orig_func: Any = None) -> Any:
        if orig_func is None:
            return super().__new__(cls)
        return cls()(orig_func)

    # torch's name for it, which Python's messages about its arguments give
    __new__.__qualname__ = "_NoParamDecoratorContextManager.__new__"


class no_grad(_NoParamDecoratorContextManager):
    mode = False


class enable_grad(_NoParamDecoratorContextManager):
    mode = True


class inference_mode(_GradMode):
    # the class defaults serve `@torch.inference_mode` used bare
    mode = False
    inference = True

    def __new__(cls, mode: Any = True) -> Any:
        if isinstance(mode, bool):
            return super().__new__(cls)
        return cls()(mode)  # used bare as a decorator: `mode` is the function

    def __init__(self, mode: bool = True) -> None:
        self.mode = not mode  # leaving inference mode turns grad mode on, as in torch
        self.inference = bool(mode)


class set_grad_enabled(_GradMode):
    """Takes effect at once when called, so it also works as a plain statement."""

    # torch._C._set_grad_enabled's argument parser, set by the op registry (ops/__init__.py)
    _parse_arguments: Callable[[tuple, dict], dict]

    def __init__(self, mode: bool) -> None:
        self._parse_arguments((mode,), {})
        self._previous = _enabled
        self.mode = bool(mode)
        _set_enabled(self.mode)

    def __enter__(self) -> None:
        if not hasattr(self, "_previous"):  # entered from a decorated call
            self._previous = _enabled
        _set_enabled(self.mode)

    def __call__(self, function: Callable) -> Callable:
        _set_enabled(self._previous)  # as a decorator it must not change the mode where it is written
        return super().__call__(function)

    def __repr__(self) -> str:
        return f"torch.autograd.grad_mode.set_grad_enabled(mode={self.mode})"

