"""Python's "Did you mean: 'tensor'?" after a NameError or an AttributeError, in the REPL only
(a script prints exactly what PyTorch's run prints, and that has no hints).

The candidates are what the program can reach: the names in scope (never the compiler's
temporaries) and the attributes the policy lets it read. The choice among them is Python's own,
made by the interpreter.
"""
from __future__ import annotations

import io
import re
import sys
from typing import Any

from ..language import limits
from ..session import Session, format_error
from .completion import attribute_names, scope_names

_HINT = re.compile(r"\. Did you mean: '(?P<name>[^']*)'\?$")


def describe(session: Session, error: BaseException) -> str:
    """The error's line as the REPL shows it: with a hint when Python would give one."""
    text = format_error(error)
    name = getattr(error, "name", None)
    if not isinstance(error, (NameError, AttributeError)) or not isinstance(name, str) or text.startswith("gradcalc:"):
        return text
    if isinstance(error, AttributeError):
        candidates = attribute_names(getattr(error, "obj", None))
    else:
        candidates = _local_names(error) + scope_names(session)
    suggestion = _pythons_choice(name, candidates)
    if suggestion is None:
        return text
    lines = text.split("\n")
    notes = getattr(error, "__notes__", None)
    message_end = len(lines) - (len(notes) if isinstance(notes, list) else 0)
    lines[message_end - 1] += f". Did you mean: '{suggestion}'?"
    return "\n".join(lines)


def _local_names(error: BaseException) -> list[str]:
    """The local names of the program's function where a NameError happened (Python offers them first)."""
    trace = error.__traceback__
    if trace is None:
        return []
    while trace.tb_next is not None:
        trace = trace.tb_next
    with limits.reading_frames():  # the error's line is made behind the wall: gradcalc's own look
        frame = trace.tb_frame
        return [] if frame.f_locals is frame.f_globals else list(frame.f_locals)


class _Listing:
    """An object whose dir() is the candidates: how Python is asked to choose among them."""

    def __init__(self, names: list[str]) -> None:
        self._names = names

    def __dir__(self) -> list[str]:
        return self._names


def _pythons_choice(wrong: str, candidates: list[str]) -> Any:
    """Python's own pick (its interpreter's, whose suggestions Python 3.11's traceback module
    lacks): the hint it prints for an AttributeError on an object with these attributes."""
    stand_in = AttributeError(name=wrong, obj=_Listing(list(dict.fromkeys(candidates))))
    shown, saved = io.StringIO(), sys.stderr
    sys.stderr = shown
    try:
        sys.__excepthook__(AttributeError, stand_in, None)
    finally:
        sys.stderr = saved
    match = _HINT.search(shown.getvalue().rstrip("\n"))
    return match.group("name") if match else None
