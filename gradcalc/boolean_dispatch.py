"""torch._jit_internal.boolean_dispatch for gradcalc's stand-ins of the functions torch builds with it
(torch.unique, F.max_pool2d, ...): a call goes to one of two functions by a flag argument, and a call
that fits neither fails in Python's words naming the function it went to (`_max_pool2d() got an
unexpected keyword argument 'foo'`); the dispatcher shows as torch's, `<function
boolean_dispatch.<locals>.fn at 0x...>`."""
from __future__ import annotations

import types
from typing import Any, Callable


def boolean_dispatch(arg_name: str, arg_index: int, default: bool, if_true: Callable, if_false: Callable,
                     module_name: str, func_name: str) -> Callable:
    """`if_true(*args, **kwargs)` when the flag (`arg_name` given by name, else the `arg_index`-th
    argument, else `default`) is true, else `if_false(*args, **kwargs)`."""

    def fn(*args: Any, **kwargs: Any) -> Any:
        dispatch_flag = default
        if arg_name in kwargs:
            dispatch_flag = kwargs[arg_name]
        elif arg_index < len(args):
            dispatch_flag = args[arg_index]
        if dispatch_flag:
            return if_true(*args, **kwargs)
        return if_false(*args, **kwargs)

    fn.__module__ = module_name
    fn.__name__ = func_name
    return fn


def renamed(function: Callable, name: str, module_name: str) -> Callable:
    """A copy of `function` named `name` (its code too): Python's errors for its arguments name it so."""
    code = function.__code__.replace(co_name=name, co_qualname=name)
    copy = types.FunctionType(code, function.__globals__, name, function.__defaults__, function.__closure__)
    copy.__kwdefaults__ = function.__kwdefaults__
    copy.__qualname__ = name
    copy.__module__ = module_name
    return copy
