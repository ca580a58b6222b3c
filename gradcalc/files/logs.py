"""`logging` for a program: Python's loggers, handlers, filters and records, with a root logger
and a logger registry of each session's own, records formatted as Python formats them, to the
session's stderr or to files of its tree.

What differs from the host's module, and why: a logger finds the program's frame that logged
among the program's frames only (gradcalc's are not the program's); a `{`-style format goes
through the guard's str.format (a template walks attributes); an exception's traceback shows the
program's frames only, without source lines; a handler that fails reports it as Python does, with
the program's frames only; Logger.root and Logger.manager are the session's.
"""
from __future__ import annotations

import logging as host_logging
import math
import sys
import weakref
from typing import Any, Optional

from ..display.names import torch_class
from ..language import guard, limits
from . import os_module, streams
from . import tree as files



class _SessionPart:
    """Logger.root and Logger.manager: the session's, where the host's class keeps the process's
    (a logger made by a manager holds its own `manager`, which this does not shadow)."""

    def __init__(self, part: str) -> None:
        self.part = part

    def __get__(self, obj: Any, owner: Any = None) -> Any:
        return getattr(_registry(), self.part)


@torch_class("logging.Logger")
class Logger(host_logging.Logger):
    root = _SessionPart("root")
    manager = _SessionPart("manager")

    def findCaller(self, stack_info: bool = False, stacklevel: int = 1) -> tuple:  # noqa: N802
        """The program's frame that logged (the `stacklevel`-th of the program's frames outward):
        its file, line and function, as Python finds them; gradcalc's frames are not counted. Past
        the outermost one, Python keeps that one."""
        # Python's loop compares `stacklevel > 0` first: a stacklevel that is no number fails there, in
        # its words. Anything but an exact int (a program's `__ceil__` may return any object) is
        # compared here, before gradcalc's look at the frames, where no program code may run.
        if type(stacklevel) is float and not math.isfinite(stacklevel):  # (infinity has no ceil: every frame
            levels: Any = sys.maxsize if stacklevel > 0 else 0            # outward, or none, as Python's loop)
        else:
            levels = math.ceil(stacklevel) if isinstance(stacklevel, (int, float)) else stacklevel
        if type(levels) is not int:
            levels = int(bool(levels > 0))
        found = None
        with limits.reading_frames():  # gradcalc's own look: no program code runs here
            frame = limits.host_frame(1)
            while frame is not None and levels > 0:
                if "$program" in frame.f_globals:
                    found, levels = frame, levels - 1
                frame = frame.f_back
            if found is not None:
                return found.f_code.co_filename, found.f_lineno, found.f_code.co_name, None
        # a stacklevel below 1: Python's loop takes no step and reports findCaller's own frame, at
        # its last line (its return)
        code = host_logging.Logger.findCaller.__code__
        return code.co_filename, max(line for _, _, line in code.co_lines() if line), "findCaller", None


class _RootLogger(Logger):
    def __init__(self, level: int) -> None:
        super().__init__("root", level)

    def __reduce__(self) -> Any:
        raise TypeError("a logger cannot be pickled")


_RootLogger.__name__ = _RootLogger.__qualname__ = "RootLogger"
_RootLogger.__module__ = "logging"


class _GuardedBraceStyle(host_logging.StrFormatStyle):
    def _format(self, record: Any) -> str:
        defaults = self._defaults
        values = {**defaults, **record.__dict__} if defaults else record.__dict__
        return guard.format_template(self._fmt, (), values)


# Every formatter of this process, the host's class too (a program reaches it as a base class of
# Formatter's), formats a `{` template through the guard. (A process that loads this runs programs.)
host_logging._STYLES["{"] = (_GuardedBraceStyle, host_logging._STYLES["{"][1])


_CAUSE = "The above exception was the direct cause of the following exception:"
_CONTEXT = "During handling of the above exception, another exception occurred:"


def _traceback_lines(error: BaseException, trace: Any, seen: set) -> list:
    from ..session import format_error

    seen.add(id(error))
    lines = []
    cause, context = error.__cause__, error.__context__
    earlier = cause if cause is not None else None if error.__suppress_context__ else context
    if earlier is not None and id(earlier) not in seen:
        lines += [*_traceback_lines(earlier, earlier.__traceback__, seen), "",
                  _CAUSE if cause is not None else _CONTEXT, ""]
    if trace is not None:
        lines.append("Traceback (most recent call last):")
    while trace is not None:
        with limits.reading_frames():  # gradcalc's own look: no program code runs here
            code, ours = trace.tb_frame.f_code, "$program" in trace.tb_frame.f_globals
        if ours:
            lines.append(f'  File "{code.co_filename}", line {trace.tb_lineno}, in {code.co_name}')
        trace = trace.tb_next
    return [*lines, format_error(error)]


def _program_stack() -> list:
    """The program's frames that led here, outermost first, as traceback.print_stack shows them
    (without source lines, as Python shows a program whose file it cannot read)."""
    lines = []
    with limits.reading_frames():  # gradcalc's own look: no program code runs here
        frame = limits.host_frame(1)
        while frame is not None:
            if "$program" in frame.f_globals:
                code = frame.f_code
                lines.append(f'  File "{code.co_filename}", line {frame.f_lineno}, in {code.co_name}')
            frame = frame.f_back
    return lines[::-1]


def handleError(handler: Any, record: Any) -> None:  # noqa: N802 (the method it stands for)
    """Handler.handleError as Python's prints a handler's failure on stderr: the error's traceback,
    the call stack that logged, the record's message and arguments; the frames shown are the
    program's (gradcalc's are not the program's)."""
    error = sys.exc_info()[1]
    stderr = sys.stderr
    stderr.write("\n".join(["--- Logging error ---", *_traceback_lines(error, error.__traceback__, set()),
                            "Call stack:", *_program_stack()]) + "\n")
    try:
        stderr.write("Message: %r\nArguments: %s\n" % (record.msg, record.args))
    except RecursionError:
        raise
    except Exception:
        stderr.write("Unable to print the message and arguments - possible formatting error.\nUse the traceback "
                     "above to help find the error.\n")


# every handler of this process, the host's classes too (a program's are made of them), reports its
# failures so (a process that loads this runs programs); named as the method it stands for
handleError.__qualname__, handleError.__module__ = "Handler.handleError", "logging"
host_logging.Handler.handleError = handleError


@torch_class("logging.Formatter")
class Formatter(host_logging.Formatter):
    def formatException(self, ei: Any) -> str:  # noqa: N802
        """Python's traceback of the error and the errors it was raised from, showing the program's
        own frames (gradcalc's are not the program's), without source lines (as Python shows a
        program whose file it cannot read)."""
        try:
            trace, error = ei[2], ei[1]  # Python's order; what it refuses (a short tuple) is the program's error
        except Exception as failure:
            raise failure.with_traceback(None)
        return "\n".join(_traceback_lines(error, trace, set()))

    def formatStack(self, stack_info: Any) -> str:  # noqa: N802
        return ""


@torch_class("logging.FileHandler")
class FileHandler(host_logging.StreamHandler):
    """A handler writing to a file of the program's tree."""

    def __init__(self, filename: Any, mode: str = "a", encoding: Optional[str] = None, delay: bool = False,
                 errors: Optional[str] = None) -> None:
        self.baseFilename = os_module.abspath(filename)
        self.mode, self.encoding, self.errors = mode, encoding, errors
        if delay:
            host_logging.Handler.__init__(self)
            self.stream = None
        else:
            super().__init__(self._open())

    def _open(self) -> Any:
        return streams.open_file(self.baseFilename, self.mode, encoding=self.encoding, errors=self.errors)

    def emit(self, record: Any) -> None:
        if self.stream is None:
            self.stream = self._open()
        super().emit(record)

    def close(self) -> None:
        try:
            if self.stream is not None:
                self.flush()
                self.stream.close()
                self.stream = None
        finally:
            host_logging.Handler.close(self)

    def __repr__(self) -> str:
        return f"<FileHandler {self.baseFilename} ({host_logging.getLevelName(self.level)})>"


class _Registry:
    """One session's root logger and the registry of its named loggers."""

    def __init__(self) -> None:
        self.root = _RootLogger(host_logging.WARNING)
        self.manager = host_logging.Manager(self.root)
        self.manager.setLoggerClass(Logger)
        self.root.manager = self.manager


_registries: "weakref.WeakKeyDictionary[files.FileTree, _Registry]" = weakref.WeakKeyDictionary()


def _registry() -> _Registry:
    tree = files.active()
    if tree not in _registries:
        _registries[tree] = _Registry()
    return _registries[tree]


def getLogger(name: Optional[str] = None) -> Logger:  # noqa: N802
    registry = _registry()
    if not name or isinstance(name, str) and name == registry.root.name:
        return registry.root
    return registry.manager.getLogger(name)


def basicConfig(**kwargs: Any) -> None:  # noqa: N802
    """logging.basicConfig, as Python writes it, on the session's root logger."""
    root = _registry().root
    force = kwargs.pop("force", False)
    encoding = kwargs.pop("encoding", None)
    errors = kwargs.pop("errors", "backslashreplace")
    if force:
        for handler in root.handlers[:]:
            root.removeHandler(handler)
            handler.close()
    if root.handlers:
        return
    handlers = kwargs.pop("handlers", None)
    if handlers is None and "stream" in kwargs and "filename" in kwargs:
        raise ValueError("'stream' and 'filename' should not be specified together")
    if handlers is not None and ("stream" in kwargs or "filename" in kwargs):
        raise ValueError("'stream' or 'filename' should not be specified together with 'handlers'")
    if handlers is None:
        filename = kwargs.pop("filename", None)
        mode = kwargs.pop("filemode", "a")
        if filename:
            handler = FileHandler(filename, mode, encoding=encoding, errors=None if "b" in mode else errors)
        else:
            handler = host_logging.StreamHandler(kwargs.pop("stream", None))
        handlers = [handler]
    datefmt = kwargs.pop("datefmt", None)
    style = kwargs.pop("style", "%")
    if style not in host_logging._STYLES:
        raise ValueError("Style must be one of: %s" % ",".join(host_logging._STYLES.keys()))
    formatter = Formatter(kwargs.pop("format", host_logging._STYLES[style][1]), datefmt, style)
    for handler in handlers:
        if handler.formatter is None:
            handler.setFormatter(formatter)
        root.addHandler(handler)
    level = kwargs.pop("level", None)
    if level is not None:
        root.setLevel(level)
    if kwargs:
        raise ValueError("Unrecognised argument(s): %s" % ", ".join(kwargs.keys()))


def _root_call(method: str) -> Any:
    """logging.info and its kin: the session's root logger's method, configured first if bare."""

    def call(msg: Any, *args: Any, **kwargs: Any) -> None:
        root = _registry().root
        if not root.handlers:
            basicConfig()
        getattr(root, method)(msg, *args, **kwargs)

    call.__name__ = call.__qualname__ = method
    return call


def log(level: int, msg: Any, *args: Any, **kwargs: Any) -> None:
    root = _registry().root
    if not root.handlers:
        basicConfig()
    root.log(level, msg, *args, **kwargs)


def disable(level: int = host_logging.CRITICAL) -> None:
    manager = _registry().manager
    manager.disable = host_logging._checkLevel(level)
    manager._clear_cache()


def logging_members() -> dict:
    members = {name: getattr(host_logging, name) for name in (
        "CRITICAL", "FATAL", "ERROR", "WARNING", "WARN", "INFO", "DEBUG", "NOTSET", "Handler", "StreamHandler",
        "NullHandler", "Filter", "LoggerAdapter", "LogRecord", "getLevelName", "BASIC_FORMAT")}
    members.update(Logger=Logger, Formatter=Formatter, FileHandler=FileHandler, getLogger=getLogger,
                   basicConfig=basicConfig, log=log, disable=disable,
                   **{name: _root_call(name) for name in ("debug", "info", "warning", "warn", "error",
                                                          "exception", "critical", "fatal")})
    return members


LogRecord = host_logging.LogRecord
TYPES = (Logger, _RootLogger, Formatter, FileHandler, host_logging.Handler, host_logging.StreamHandler,
         host_logging.NullHandler, host_logging.Filter, host_logging.LoggerAdapter, LogRecord,
         host_logging.Manager, host_logging.PlaceHolder)
_HANDLER_SETTINGS = ("formatter", "name", "level", "terminator")
# what programs set on these objects by assignment (a record takes any attribute, as filters add them)
WRITABLE = {Logger: ("propagate", "disabled", "level"), _RootLogger: ("propagate", "disabled", "level"),
            Formatter: ("default_time_format", "default_msec_format", "converter", "datefmt"),
            FileHandler: _HANDLER_SETTINGS, host_logging.Handler: _HANDLER_SETTINGS,
            host_logging.StreamHandler: _HANDLER_SETTINGS, host_logging.NullHandler: _HANDLER_SETTINGS,
            host_logging.LoggerAdapter: ("extra",)}
