"""The arguments of a function CPython or numpy write in C, bound as their argument parsing
(PyArg_ParseTupleAndKeywords, Argument Clinic) binds them, with its errors: for gradcalc's Python
stand-ins of such functions, whose own errors would name a Python signature."""
from __future__ import annotations

from typing import Any


def c_arguments(function: str, parameters: tuple, required: int, args: tuple, kwargs: dict) -> dict:
    """{name: value} of the arguments given to `function` (as its messages name it: "pow()"),
    whose parameters are `parameters` in order, the first `required` of them required."""
    given = len(args) + len(kwargs)
    if given > len(parameters):
        bound = "at most" if required < len(parameters) else "exactly"
        raise TypeError(f"{function} takes {bound} {len(parameters)} argument{'s' if len(parameters) != 1 else ''} "
                        f"({given} given)")
    bound_values = dict(zip(parameters, args))
    kwargs = dict(kwargs)
    for position, name in enumerate(parameters, 1):
        if name in bound_values:
            continue
        if name in kwargs:
            bound_values[name] = kwargs.pop(name)
        elif position <= required:
            raise TypeError(f"{function} missing required argument '{name}' (pos {position})")
    for key in kwargs:
        if key in parameters:
            raise TypeError(f"argument for {function} given by name ('{key}') and position "
                            f"({parameters.index(key) + 1})")
        raise TypeError(f"'{key}' is an invalid keyword argument for {function}")
    return bound_values
