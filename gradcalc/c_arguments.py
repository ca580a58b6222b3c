"""The arguments of a function CPython or numpy write in C, bound as their argument parsing
(PyArg_ParseTupleAndKeywords, Argument Clinic) binds them, with its errors: for gradcalc's Python
stand-ins of such functions, whose own errors would name a Python signature."""
from __future__ import annotations

import operator
from typing import Any, Optional


def unsigned_byte(value: Any) -> int:
    """An argument of PyArg's `b` format (a flag of torch's C functions): an index from 0 to 255,
    refused in CPython's words."""
    number = operator.index(value)
    if not -2 ** 63 <= number < 2 ** 63:
        raise OverflowError("Python int too large to convert to C long")
    if number < 0:
        raise OverflowError("unsigned byte integer is less than minimum")
    if number > 255:
        raise OverflowError("unsigned byte integer is greater than maximum")
    return number


def c_arguments(function: Optional[str], parameters: tuple, required: int, args: tuple, kwargs: dict,
                converters: Optional[dict] = None, clinic: bool = False) -> dict:
    """{name: value} of the arguments given to `function` (as its messages name it: "pow()"; None
    for a format without a name, which the messages call "function" or "this function"), whose
    parameters are `parameters` in order, the first `required` of them required. A parameter
    of `converters` takes the value its converter returns, in the parameters' order: each as it is
    bound, before the keywords left over are refused (PyArg_ParseTupleAndKeywords), or after all are
    bound and checked (`clinic`: Argument Clinic's parsing)."""
    keywords_of = function or "this function"
    function = function or "function"
    converters = converters or {}
    converting = {} if clinic else converters
    given = len(args) + len(kwargs)
    if given > len(parameters):
        bound = "at most" if clinic or required < len(parameters) else "exactly"
        # (Argument Clinic says "keyword" when none came by position)
        kind = "keyword " if clinic and not args else ""
        raise TypeError(f"{function} takes {bound} {len(parameters)} {kind}argument{'s' if len(parameters) != 1 else ''} "
                        f"({given} given)")
    bound_values = dict(zip(parameters, args))
    kwargs = dict(kwargs)
    for position, name in enumerate(parameters, 1):
        if name not in bound_values and name in kwargs:
            bound_values[name] = kwargs.pop(name)
        elif name not in bound_values and position <= required:
            raise TypeError(f"{function} missing required argument '{name}' (pos {position})")
        if name in bound_values and name in converting:
            bound_values[name] = converting[name](bound_values[name])
    for position, name in enumerate(parameters[:len(args)], 1):  # all given twice before any unknown
        if name in kwargs:
            raise TypeError(f"argument for {function} given by name ('{name}') and position ({position})")
    for key in kwargs:
        raise TypeError(f"'{key}' is an invalid keyword argument for {keywords_of}")
    if clinic:
        for name in parameters:
            if name in bound_values and name in converters:
                bound_values[name] = converters[name](bound_values[name])
    return bound_values


def pybind_mismatch(function: str, signature: str, args: tuple, kwargs: dict) -> TypeError:
    """pybind11's error for a call that fits none of a function's signatures (`signature`, its one),
    the arguments shown by their reprs as pybind11 shows them."""
    invoked = ", ".join(repr(value) for value in args)
    if kwargs:
        invoked += "; kwargs: " + ", ".join(f"{key}={value!r}" for key, value in kwargs.items())
    return TypeError(f"{function}(): incompatible function arguments. The following argument types are supported:\n"
                     f"    1. {signature}\n\nInvoked with: {invoked}")
