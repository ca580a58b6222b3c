"""One place where source text runs: the REPL, `-e`, script files and tests all come here.

A Session keeps the program's variables between calls to `run` (the REPL's inputs) and
reports everything through an Output: stdout text, echoed values, warnings and errors.
"""
from __future__ import annotations

import sys
import traceback
from typing import Any, Protocol

from . import warnings
from .language.builtins import make_builtins, prelude
from .language.compile_checks import CompileError, check
from .language.interpreter import Interpreter
from .language.modules import modules
from .language.parser import GradcalcSyntaxError, parse

# Each call of a user function costs the interpreter a dozen or so Python frames, and Python's
# default limit of 1000 would stop user recursion early: the depth of user calls is limited by
# the interpreter's MAX_CALL_DEPTH instead. Much higher, C-level recursion (the repr of a
# deeply nested list) could overflow the host's stack before Python's check stops it.
RECURSION_LIMIT = 20_000


class Output(Protocol):
    def write(self, text: str) -> None:
        """Text a program prints on stdout."""

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


def format_error(error: BaseException) -> str:
    """`ErrorType: message`, as Python's interpreter prints the last line of a traceback."""
    if isinstance(error, GradcalcSyntaxError):
        if error.type_name != "SyntaxError":
            # only a SyntaxError may tell more than Python (SPEC §1): an IndentationError is Python's line
            return f"{error.type_name}: {error}"
        return f"{error.type_name}: {error}\n{error.detail()}"
    if isinstance(error, RecursionError):
        return "RecursionError: maximum recursion depth exceeded"
    return "".join(traceback.format_exception_only(type(error), error)).rstrip("\n")


def reset_global_state() -> None:
    """Back to a fresh start: grad mode on, float32 default, default print options, reseeded RNG."""
    from .autograd import dtypes, grad_mode, random
    from .display import tensor_repr

    grad_mode._set_enabled(True)
    grad_mode._set_inference(False)
    dtypes.set_default_dtype(dtypes.float32)
    tensor_repr.set_printoptions(profile="default")
    random.seed()
    warnings.forget_once()


class Session:
    def __init__(self, output: Output) -> None:
        self.output = output
        sys.setrecursionlimit(max(sys.getrecursionlimit(), RECURSION_LIMIT))
        namespace = {"__name__": "__main__"}
        namespace.update(prelude(modules()))
        self.interpreter = Interpreter(namespace, make_builtins(output.write), output.echo)

    @property
    def namespace(self) -> dict:
        return self.interpreter.globals

    def run(self, source: str, filename: str = "<string>") -> bool:
        """Run a whole program (or one REPL input); False if it ended in an error."""
        warnings.set_sink(self.output.warning)
        try:
            module = parse(source, filename)
        except GradcalcSyntaxError as error:
            self.output.error(format_error(error))
            return False
        for category, message in module.warnings:
            warnings.warn(category, message)
        for statement in module.body:
            try:
                # compiled just before it runs, as in Python's interactive interpreter
                check(statement, _syntax_warning)
                self.interpreter.run_statement(statement)
            except CompileError as error:
                lines = source.splitlines()
                source_line = lines[error.line - 1] if 0 < error.line <= len(lines) else ""
                located = GradcalcSyntaxError(error.message, error.line, error.column, source_line, filename=filename)
                self.output.error(format_error(located))
                return False
            except Exception as error:  # every error of a program is shown, never a traceback
                self.output.error(format_error(error))
                return False
        return True


def _syntax_warning(message: str) -> None:
    warnings.warn("SyntaxWarning", message)
