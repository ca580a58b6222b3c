"""A notebook cell, run in the worker as IPython runs a cell: only the last top-level statement,
if it is an expression not ended by `;`, shows its value (as the cell's result, laid out by
pretty.py); a warning names the cell's line and quotes it, as Python's warnings module does."""
from __future__ import annotations

import ast
import re
from typing import TYPE_CHECKING, Any, Callable, NamedTuple, Optional

from .pretty import pretty

if TYPE_CHECKING:
    from ..session import Output, Session, TextOutput

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


class Streamer:
    """A cell's stdout and stderr sent to the front end while it runs, as `{"stream": "stdout",
    "text": ...}` messages, so that a long loop's prints show as they come (as ipykernel's own
    streams, batched every FLUSH_SECONDS). Only this thread's sender writes to the reply pipe while
    the program runs: a KeyboardInterrupt, which the main thread gets, never cuts a message in two.
    `finish()`, called once the program has ended, sends what is left before the reply."""

    FLUSH_SECONDS = 0.1

    def __init__(self, send: Callable[[dict], None]) -> None:
        import threading

        self._send = send
        self._lock = threading.Lock()
        self._segments: list[list[str]] = []  # [name, text], in the order written
        self._active = True
        threading.Thread(target=self._run, name="gradcalc-cell-streams", daemon=True).start()

    def output(self) -> TextOutput:
        """The session's output for the cell: its two streams go out through this streamer."""
        from ..session import TextOutput

        return TextOutput(_Side(self, "stdout"), _Side(self, "stderr"))

    def write(self, name: str, text: str) -> None:
        with self._lock:
            if self._segments and self._segments[-1][0] == name:
                self._segments[-1][1] += text
            else:
                self._segments.append([name, text])

    def _run(self) -> None:
        import time

        while self._active:
            time.sleep(self.FLUSH_SECONDS)
            with self._lock:
                if self._active:
                    self._flush()

    def _flush(self) -> None:
        segments, self._segments = self._segments, []
        for name, text in segments:
            if text:
                self._send({"stream": name, "text": text})

    def finish(self) -> None:
        with self._lock:
            self._active = False
            self._flush()


class _Side:
    """One of the two streams, as TextOutput writes to it."""

    def __init__(self, streamer: Streamer, name: str) -> None:
        self.streamer = streamer
        self.name = name

    def write(self, text: str) -> None:
        self.streamer.write(self.name, text)

    def flush(self) -> None:
        pass

    def getvalue(self) -> str:
        return ""  # all of it went out as stream messages
