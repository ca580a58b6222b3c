"""Functions that copy PyTorch's own Python code statement for statement.

An error Python raises inside one of them (an attribute the program's argument lacks, an index
past the end of a tuple the program left empty) is the error PyTorch's code raises there: the
program's, not a fault of gradcalc's, and reported as Python reports it (session.py asks).
"""
from __future__ import annotations

from types import CodeType
from typing import Callable, TypeVar

Function = TypeVar("Function", bound=Callable)
_COPIED: set = set()


def copied_from_torch(function: Function) -> Function:
    _COPIED.add(function.__code__)
    return function


def is_copied(code: CodeType) -> bool:
    return code in _COPIED
