"""Where a session's output goes: the Output protocol, and plain text on two streams. Apart from
session.py, so that a front end draws its own messages without loading what a session loads."""
from __future__ import annotations

import sys
from typing import Any, Protocol


class Output(Protocol):
    def write(self, text: str) -> None:
        """Text a program prints on stdout."""

    def write_stderr(self, text: str) -> None:
        """Text a program writes to sys.stderr."""

    def echo(self, value: Any) -> None:
        """A value echoed by an expression statement."""

    def warning(self, category: str, message: str) -> None:
        """A warning raised while running."""

    def error(self, text: str) -> None:
        """The error that ended a run: `ErrorType: message` (a syntax error adds where and why)."""


class TextOutput:
    """Plain text on two streams: what a script or a pipe gets, byte for byte PyTorch's."""

    def __init__(self, stdout: Any = None, stderr: Any = None) -> None:
        self.stdout = stdout or sys.stdout
        self.stderr = stderr or sys.stderr

    def write(self, text: str) -> None:
        self.stdout.write(text)

    def write_stderr(self, text: str) -> None:
        self.stdout.flush()
        self.stderr.write(text)
        self.stderr.flush()

    def echo(self, value: Any) -> None:
        self.stdout.write(repr(value) + "\n")

    def warning(self, category: str, message: str) -> None:
        self.stdout.flush()
        self.stderr.write(f"{category}: {message}\n")
        self.stderr.flush()

    def error(self, text: str) -> None:
        self.stdout.flush()
        self.stderr.write(text + "\n")
        self.stderr.flush()
