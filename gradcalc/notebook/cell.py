"""A notebook cell, run in the worker as IPython runs a cell: only the last top-level statement,
if it is an expression not ended by `;`, shows its value (as the cell's result, laid out by
pretty.py); a warning names the cell's line and quotes it, as Python's warnings module does."""
from __future__ import annotations

import ast
import re
from typing import TYPE_CHECKING, Any, NamedTuple, Optional

from .pretty import pretty

if TYPE_CHECKING:
    from ..session import Output, Session

CELL_FILENAME = "<cell>"
# IPython's test for a cell whose value is not shown: its last line (comments aside) ends with `;`
_COMMENT = re.compile(r"#.*$")


class _CellOutput:
    """The session's output during a cell: everything goes on to `inner` but the echoed values,
    of which only the last statement's is kept, as the cell's result."""

    def __init__(self, inner: Output, session: Session, body: list, source: str) -> None:
        self.inner = inner
        self.session = session
        self.body = body
        self.lines = source.splitlines()
        self.shows_last = bool(body) and isinstance(body[-1], ast.Expr) and not _ends_with_semicolon(source)
        self.result: Optional[str] = None
        self.error_text: Optional[str] = None

    def write(self, text: str) -> None:
        self.inner.write(text)

    def write_stderr(self, text: str) -> None:
        self.inner.write_stderr(text)

    def echo(self, value: Any) -> None:
        if self.shows_last and self.session.statements_done == len(self.body) - 1:
            self.result = pretty(value)

    def warning(self, category: str, message: str) -> None:
        done = self.session.statements_done
        if done < len(self.body):
            line = self.body[done].lineno
            quoted = self.lines[line - 1].strip() if line <= len(self.lines) else ""
            self.inner.write_stderr(f"{CELL_FILENAME}:{line}: {category}: {message}\n  {quoted}\n")
        else:
            self.inner.write_stderr(f"{category}: {message}\n")

    def error(self, text: str) -> None:
        # kept apart from stderr: the kernel shows it as the cell's error message
        self.error_text = text


def _ends_with_semicolon(source: str) -> bool:
    lines = [_COMMENT.sub("", line).rstrip() for line in source.splitlines()]
    lines = [line for line in lines if line]
    return bool(lines) and lines[-1].endswith(";")


class CellRun(NamedTuple):
    ok: bool  # ended without an error or an exit
    result: Optional[str]  # the text/plain of the last expression's value, if it shows
    error: Optional[str]  # the error that ended it, `ErrorType: message`


def run_cell(session: Session, source: str) -> CellRun:
    """Run a cell in `session` (its stdout and stderr go to the session's output)."""
    from ..language.parser import GradcalcSyntaxError, parse

    try:
        body = parse(source, CELL_FILENAME).module.body
    except GradcalcSyntaxError:
        body = []  # session.run reports it
    inner = session.output
    output = _CellOutput(inner, session, body, source)
    session.output = output
    try:
        ok = session.run(source, CELL_FILENAME)
    finally:
        session.output = inner
    return CellRun(ok, output.result, output.error_text)
