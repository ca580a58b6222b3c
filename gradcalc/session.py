"""One place where source text runs: the REPL, `-e`, script files and tests all come here.

A Session keeps the program's variables between calls to `run` (the REPL's inputs) and
reports everything through an Output: stdout text, echoed values, warnings and errors.
Each top-level statement is compiled (language/compiler.py) and run as Python's interactive
interpreter runs it, in the session's namespace, behind the sandbox's policy and its wall.
"""
from __future__ import annotations

import linecache
import os
import sys
import warnings as python_warnings
from contextlib import contextmanager
from typing import Any, Callable, Iterator, Optional

from . import numpy_state, warnings
from .display.names import torch_class, type_name
from .files import tree as file_tree
from .language import compiler, guard, limits, policy
from .language.builtins import make_builtins, prelude
from .language.compiler import PolicyError, compile_statement
from .language.modules import ModuleTable, guarded_helpers
from .language.parser import GradcalcSyntaxError, parse
from .language.syntax_errors import make_error
from .torch_code import is_copied
from .output import Output, TextOutput  # noqa: F401  (TextOutput: where sessions are made)


@torch_class("_io.TextIOWrapper", c_type=True)  # its methods refuse other calls in the C type's words
class OutputStream:
    """`sys.stdout` and `sys.stderr` as a program (and `print`) sees them: text to the session's output."""

    encoding = "utf-8"

    def __init__(self, write: Any, name: str) -> None:
        self._write = write
        self.name = name

    def write(self, text: str) -> int:
        if not isinstance(text, str):
            raise TypeError(f"write() argument must be str, not {type_name(text)}")
        # a str subclass's own str (no method of the program's runs): what is handed on, perhaps to
        # another thread, holds no object of the program's, whose finaliser would run there
        text = str.__getitem__(text, slice(None))
        self._write(text)
        return str.__len__(text)

    def writelines(self, lines: Any) -> None:
        for line in lines:
            self.write(line)

    def flush(self) -> None:
        pass

    def isatty(self) -> bool:
        return False

    def __repr__(self) -> str:
        return f"<_io.TextIOWrapper name='{self.name}' mode='w' encoding='utf-8'>"


# ------------------------------------------------------------------ error lines

_PACKAGE = os.path.dirname(os.path.abspath(__file__)) + os.sep
# the guard and the builtins do what the program asked (`x.y`, `a ** b`): their errors are the program's
_LANGUAGE = os.path.join(_PACKAGE, "language") + os.sep
# errors that, raised by gradcalc's own code other than by a `raise`, are gradcalc's faults
_FAULTS = (AttributeError, KeyError, IndexError, NameError, AssertionError, ZeroDivisionError)


def _exception_line(error: BaseException) -> str:
    """The last lines of a traceback, as Python 3.11's traceback module prints them."""
    cls = type(error)
    name = cls.__qualname__
    module = cls.__module__
    if module not in ("__main__", "builtins"):
        name = f"{module if isinstance(module, str) else '<unknown>'}.{name}"
    try:
        text = str(error)
    except Exception:  # a program's __str__ may fail too
        text = "<exception str() failed>"
    lines = [f"{name}: {text}" if text else name]
    notes = getattr(error, "__notes__", None)
    if isinstance(notes, (list, tuple)):
        for note in notes:
            try:
                lines.append(str(note))
            except Exception:
                lines.append("<note str() failed>")
    elif notes is not None:
        lines.append(repr(notes))
    return "\n".join(lines).rstrip("\n")


def _is_fault(error: BaseException) -> bool:
    """Whether gradcalc's own code failed: an error of the kinds above, or one of numpy's, raised
    in gradcalc's code by something other than a `raise` statement."""
    if not (isinstance(error, _FAULTS) or _from_numpy(error)):
        return False
    trace = error.__traceback__
    if trace is None:
        return False
    while trace.tb_next is not None:
        trace = trace.tb_next
    with limits.reading_frames():  # gradcalc's own look: no program code runs here
        code = trace.tb_frame.f_code
    filename = code.co_filename
    if filename.startswith(_LANGUAGE) or is_copied(code):
        return False
    if not filename.startswith(_PACKAGE):
        return _from_numpy(error) and _raised_in_gradcalc(error)
    return not linecache.getline(filename, trace.tb_lineno).lstrip().startswith("raise")


def _from_numpy(error: BaseException) -> bool:
    module = type(error).__module__
    return type(module) is str and module.startswith("numpy")  # a program's class may name any object


def _raised_in_gradcalc(error: BaseException) -> bool:
    """Whether gradcalc's code (not the runner, the language or the program) called what raised it."""
    trace = error.__traceback__
    in_program = False
    while trace is not None:
        with limits.reading_frames():
            filename = trace.tb_frame.f_code.co_filename
        if not filename.startswith(_PACKAGE):
            in_program = True
        elif in_program and not filename.startswith(_LANGUAGE):
            return True
        trace = trace.tb_next
    return False


def format_error(error: BaseException) -> str:
    """`ErrorType: message`, as Python's interpreter prints the last line of a traceback."""
    if isinstance(error, GradcalcSyntaxError):
        if error.type_name != "SyntaxError":
            # only a SyntaxError may tell more than Python (SPEC §1): an IndentationError is Python's line
            return f"{error.type_name}: {error}"
        return f"{error.type_name}: {error}\n{error.detail()}"
    if isinstance(error, RecursionError) and "during compilation" not in str(error):
        return _exception_line(error)
    if isinstance(error, MemoryError) and (not _from_numpy(error) or _raised_in_gradcalc(error)):
        # the memory ran out in gradcalc's code, or numpy's called by it: PyTorch's allocator's
        # words (numpy called by the program keeps its own)
        from .autograd.ops.common import out_of_memory

        return _exception_line(out_of_memory(error))
    if _is_fault(error):
        return f"gradcalc: internal error: {_exception_line(error)}"
    return _exception_line(error)


def reset_global_state() -> None:
    """Back to a fresh start: grad mode on, float32 default, default print options, reseeded RNG."""
    from . import serialization
    from .autograd import anomaly_mode, dtypes, grad_mode, random as torch_random
    from .display import tensor_repr

    grad_mode._set_enabled(True)
    grad_mode._set_inference(False)
    anomaly_mode.reset()
    dtypes.set_default_dtype(dtypes.float32)
    tensor_repr.set_printoptions(profile="default")
    torch_random.seed()
    warnings.forget_once()
    numpy_state.restore()
    serialization.forget_files()
    distributions = sys.modules.get("gradcalc.distributions")
    if distributions is not None:  # loaded by a program that used it, whose changes end with it
        distributions.reset()


def warm_up() -> None:
    """Load now what a program's first line would load from outside gradcalc's installation (the
    parser, from its cache under ~/.cache): the sandbox's jail lets a program read nothing else."""
    from .language.parser import parse_with_lark

    # by the grammar: CPython's parser takes most programs, but the grammar words every syntax error
    parse_with_lark("x = 1\n")


# ------------------------------------------------------------------ the session

class Session:
    def __init__(self, output: Output) -> None:
        self.output = output
        self.exit_status: Optional[int] = None  # set when the program calls sys.exit()
        self.statements_done = 0  # top-level statements of the last run that ended without an error
        # the line an error of the program prints; the REPL adds Python's "Did you mean" hints
        self.describe_error: Callable[[BaseException], str] = format_error
        self.stdout = OutputStream(lambda text: self.output.write(text), "<stdout>")
        self.stderr = OutputStream(lambda text: self.output.write_stderr(text), "<stderr>")
        self.files = file_tree.FileTree()  # the program's own files, empty at the start
        self.modules = ModuleTable(self._module_members)
        self.namespace: dict = {"__name__": "__main__", "$program": True}
        self._room_matched = False  # the recursion room at the program's top level (limits.REFERENCE_ROOM)
        self.builtins = make_builtins(self.namespace, self.modules, lambda value: self.output.echo(value))
        self.namespace["__builtins__"] = self.builtins
        self.namespace.update(prelude(self.modules.get))
        policy.install()  # the rules of what is loaded now; the rest as their modules load
        self.fast_reads = guard.FastReads()
        self.fast_reads.start()  # (of the rules just installed)
        self.builtins[compiler.FAST] = self.fast_reads.table
        guarded_helpers.install()  # copy and Enum act through the guard on the program's objects
        python_warnings.resetwarnings()
        python_warnings.simplefilter("always")

    def _module_members(self, name: str) -> dict:
        # not at start: few programs import these
        if name in ("random", "sys"):
            from .language.modules.stdlib import session_members

            return session_members(name, self.stdout, self.stderr)
        if name == "numpy.random":
            from .language.modules.numpy import session_random_members

            return session_random_members()
        return {}

    @contextmanager
    def _running(self) -> Iterator[None]:
        """The host's streams, warnings and report of errors nothing can catch (a generator's
        `finally` failing as it is collected) point at this session while its program runs."""
        saved = sys.stdout, sys.stderr, python_warnings.showwarning, sys.unraisablehook
        sys.stdout, sys.stderr = self.stdout, self.stderr
        python_warnings.showwarning = warnings.showing_through(self.output.warning)
        sys.unraisablehook = self._unraisable
        try:
            with numpy_state.running_program(), file_tree.using(self.files):
                yield
        finally:
            sys.stdout, sys.stderr, python_warnings.showwarning, sys.unraisablehook = saved

    def _unraisable(self, report: Any) -> None:
        """Python's `Exception ignored in: ...` report, its traceback showing the program's own
        lines only (as Python shows a program's; gradcalc's frames are not the program's)."""
        try:
            shown = repr(report.object)
        except Exception:  # a program's __repr__ may fail too
            shown = object.__repr__(report.object)
        lines = [f"{report.err_msg or 'Exception ignored in'}: {shown}"]
        program = []
        trace = report.exc_traceback
        while trace is not None:
            with limits.reading_frames():  # gradcalc's own look: no program code runs here
                frame = trace.tb_frame
                code, ours = frame.f_code, "$program" in frame.f_globals
            if ours:
                program.append(f'  File "{code.co_filename}", line {trace.tb_lineno}, in {code.co_name}')
            trace = trace.tb_next
        if report.exc_traceback is not None:  # (its header too when no frame is the program's)
            lines += ["Traceback (most recent call last):", *program]
        if report.exc_value is not None:
            lines.append(_exception_line(report.exc_value))
        self.output.write_stderr("\n".join(lines) + "\n")

    def run(self, source: str, filename: str = "<string>") -> bool:
        """Run a whole program (or one REPL input); False if it ended in an error or an exit."""
        self.statements_done = 0
        with self._running():
            try:
                parsed = parse(source, filename)
            except GradcalcSyntaxError as error:
                self.output.error(format_error(error))
                return False
            for category, message in parsed.warnings:
                self.output.warning(category, message)
            for statement in parsed.statements():
                if not self._run_statement(statement, source, filename):
                    return False
                self.statements_done += 1
        return True

    def _run_statement(self, statement: Any, source: str, filename: str) -> bool:
        try:
            code, fast_names = compile_statement(statement, filename)
        except SyntaxError as error:  # what Python's compiler finds: `return` outside a function, ...
            self.output.error(format_error(make_error(source, filename, error.msg, error.lineno or 1,
                                                      error.offset or 1)))
            return False
        except PolicyError as error:
            self.output.error(format_error(make_error(source, filename, error.message, error.node.lineno,
                                                      error.node.col_offset + 1)))
            return False
        except RecursionError as error:
            self.output.error(format_error(error))
            return False
        if not self._room_matched:
            room: dict = {}
            exec(limits.ROOM_PROBE, room)  # measured from where the statements run
            limits.match_reference_room(room["room"])
            self._room_matched = True
        self.fast_reads.cover(fast_names)
        guard.running_fast_reads[0] = self.fast_reads
        # the error's line is made, and the error (with the frames and generators its traceback
        # holds, whose `finally` blocks run as they are freed) dropped, behind the wall: its
        # __str__, its notes and sys.exit's argument are the program's code
        with limits.wall_up():
            try:
                exec(code, self.namespace)
            except SystemExit as exit:
                self._exit(exit.code)
                return False
            except KeyboardInterrupt:
                raise
            except BaseException as error:  # every error of a program is shown, never a traceback
                if isinstance(error, MemoryError):
                    limits.release_reserve()
                self.output.error(self.describe_error(error))
                return False
            finally:
                limits.keep_reserve()
        return True

    def _exit(self, code: Any) -> None:
        """`sys.exit(code)`, as Python ends: None is 0, an int is itself, anything else is printed."""
        if code is None:
            self.exit_status = 0
        elif isinstance(code, int):
            # the low byte of a C long; one no long holds fails to convert: -1, so 255
            self.exit_status = code & 0xFF if -2 ** 63 <= code < 2 ** 63 else 0xFF
        else:
            try:
                text = str(code)
            except Exception:  # a program's __str__ may fail: Python prints the object's repr then
                text = object.__repr__(code)
            self.output.write_stderr(f"{text}\n")
            self.exit_status = 1
