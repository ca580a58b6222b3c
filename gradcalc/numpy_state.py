"""numpy's process-wide settings: its floating-point error handling and what a program may change
(print options, error handling and its callback), put back between runs.

PyTorch computes inf and nan silently, numpy warns (or raises, or calls back): gradcalc's ops,
which compute with numpy, must stay silent while a program's own numpy code behaves as numpy.
So numpy's error handling as the program sets it (`np.seterr`, `np.errstate`, `np.seterrcall`)
is kept apart from numpy's own, and while a program runs numpy hands every floating-point error
it is not told to ignore to `_HANDLER`, which acts on it as the program asked only when numpy
was called from outside gradcalc's code. An op costs nothing more unless it computes an inf or a
nan, and none of gradcalc's code needs numpy's errors silenced around it.
"""
from __future__ import annotations

import contextvars
import sys
import warnings
from contextlib import contextmanager
from types import FunctionType
from typing import Any, Iterator

import numpy as np
from numpy._core import _ufunc_config, umath

from .language.limits import host_frame

_PRINT_OPTIONS = np.get_printoptions()
_NUMPY_STATE = umath._extobj_contextvar  # numpy's own: what its ufuncs act on
_CATEGORIES = ("divide", "over", "under", "invalid")
_CATEGORY_OF = {"divide by zero": "divide", "overflow": "over", "underflow": "under", "invalid value": "invalid"}
# numpy's defaults, whatever the host process has set
_DEFAULT = umath._make_extobj(divide="warn", over="warn", under="ignore", invalid="warn", call=None, bufsize=8192)

_LIBRARIES = sys.stdlib_module_names | {"numpy"}  # the modules between a caller and numpy's error
_running = False  # whether a program runs: numpy's own state then follows the program's


def quiet() -> None:
    """numpy's floating-point errors ignored: gradcalc used as a library, outside programs."""
    np.seterr(all="ignore")


def restore() -> None:
    """numpy's settings as they were before any program changed them."""
    np.set_printoptions(**_PRINT_OPTIONS)
    PROGRAM_STATE.set(_DEFAULT)


@contextmanager
def running_program() -> Iterator[None]:
    """numpy's error handling as the program has set it, while its code runs."""
    global _running
    token, outer = _NUMPY_STATE.set(_NUMPY_STATE.get()), _running
    _running = True
    try:
        _follow_program()
        yield
    finally:
        _running = outer
        _NUMPY_STATE.reset(token)


# ------------------------------------------------------------------ the program's error state

class _ProgramState:
    """numpy's `_extobj_contextvar` as the program's `np.seterr`, `np.errstate`, ... see it: the
    program's settings, numpy's own state following them."""

    __slots__ = ("_settings",)

    def __init__(self) -> None:
        self._settings: contextvars.ContextVar = contextvars.ContextVar("program_extobj")

    def get(self) -> Any:
        return self._settings.get(_DEFAULT)

    def set(self, extobj: Any) -> contextvars.Token:
        token = self._settings.set(extobj)
        _follow_program()
        return token

    def reset(self, token: contextvars.Token) -> None:
        self._settings.reset(token)
        _follow_program()


PROGRAM_STATE = _ProgramState()


def _in_program_state(function: Any, **kwargs: Any) -> Any:
    """numpy's `function` (which reads numpy's own state) applied to the program's state."""
    token = _NUMPY_STATE.set(PROGRAM_STATE.get())
    try:
        return function(**kwargs)
    finally:
        _NUMPY_STATE.reset(token)


def program_extobj_dict() -> dict:
    """numpy's `_get_extobj_dict` of the program's state."""
    return _in_program_state(umath._get_extobj_dict)


def make_program_extobj(**settings: Any) -> Any:
    """numpy's `_make_extobj`, changing the program's state (numpy's own checks and messages)."""
    return _in_program_state(umath._make_extobj, **settings)


def _follow_program() -> None:
    """numpy's own state after the program's: an error the program ignores is ignored, any other
    goes to `_HANDLER` ('call' to its `__call__`, which is given numpy's status flags; the rest to
    its `write`, which is given numpy's message)."""
    if not _running:
        return
    settings = program_extobj_dict()
    _HANDLER.settings = settings
    call = settings["call"]
    modes = {category: "ignore" if settings[category] == "ignore" else
             "call" if settings[category] == "call" and callable(call) else "log" for category in _CATEGORIES}
    _NUMPY_STATE.set(umath._make_extobj(call=_HANDLER, bufsize=settings["bufsize"], **modes))


def _from_program() -> bool:
    """Whether the code that called numpy (past numpy's and Python's own modules) is the
    program's, or gradcalc's builtins and modules acting for it, rather than gradcalc's. (Read
    from the frames' globals: a frame's code is behind an audit event, which costs more.)"""
    frame = host_frame(2)  # past the handler's method, to what called numpy
    while frame is not None:
        names = frame.f_globals
        if "$program" in names:
            return True
        module = names.get("__name__", "")
        if module.startswith("gradcalc."):
            return module.startswith("gradcalc.language.")
        if module.partition(".")[0] not in _LIBRARIES:
            return True
        frame = frame.f_back
    return True


class _ErrorHandler:
    """numpy's error callback (for 'call') and log (for the other modes) while a program runs."""

    __slots__ = ("settings",)

    def __init__(self) -> None:
        self.settings: dict = {}

    def __call__(self, kind: str, flags: int) -> None:
        if _from_program():
            self.settings["call"](kind, flags)

    def write(self, message: str) -> None:
        """Act on numpy's "Warning: divide by zero encountered in divide\\n" as numpy would."""
        if not _from_program():
            return
        text = message.removeprefix("Warning: ").rstrip("\n")
        kind, _, name = text.partition(" encountered in ")
        mode, call = self.settings[_CATEGORY_OF[kind]], self.settings["call"]
        if mode == "warn":
            warnings.warn(text, RuntimeWarning, stacklevel=2)
        elif mode == "raise":
            raise FloatingPointError(text)
        elif mode == "print":
            sys.stdout.write(message)
        elif call is None:
            raise NameError(f"log specified for {kind} (in {name}) but no object with write method found."
                            if mode == "log" else
                            f"python callback specified for {kind} (in  {name}) but no function found.")
        elif mode == "log":
            call.write(message)
        else:  # 'call' with a callback that is not callable: numpy's own TypeError
            call(kind, 0)


_HANDLER = _ErrorHandler()


# ------------------------------------------------------------------ what the program calls

def _on_program_state(function: FunctionType, namespace: dict) -> FunctionType:
    """numpy's `function`, its globals (numpy's error state) replaced by `namespace`'s."""
    copy = FunctionType(function.__code__, namespace, function.__name__, function.__defaults__, function.__closure__)
    copy.__kwdefaults__, copy.__qualname__ = function.__kwdefaults__, function.__qualname__
    copy.__module__, copy.__doc__ = function.__module__, function.__doc__
    return copy


def _program_functions() -> dict:
    """`np.seterr`, `geterr`, `seterrcall`, `geterrcall` and `errstate`: numpy's own code, acting on
    the program's error state instead of numpy's. Made at start: the wall refuses making functions
    while a program runs."""
    namespace = dict(vars(_ufunc_config), _extobj_contextvar=PROGRAM_STATE, _get_extobj_dict=program_extobj_dict,
                     _make_extobj=make_program_extobj)
    members = {name: _on_program_state(getattr(_ufunc_config, name), namespace)
               for name in ("seterr", "geterr", "seterrcall", "geterrcall")}
    numpy_errstate = _ufunc_config.errstate
    members["errstate"] = type("errstate", (), {
        name: _on_program_state(value, namespace) if isinstance(value, FunctionType) else value
        for name, value in vars(numpy_errstate).items() if name not in numpy_errstate.__slots__})
    return members


PROGRAM_FUNCTIONS = _program_functions()


# ------------------------------------------------------------------ what numpy's own code reads

_numpy_geterr = np.geterr


def _geterr_as_called() -> dict:
    """`numpy.geterr` as numpy's own Python code reads it (isclose, which warns of tolerances that are not finite
    when the mode of 'invalid' is 'warn'): the program's settings when a program called numpy, numpy's own
    state otherwise (whose modes keep gradcalc's computations silent)."""
    if _running and _from_program():
        return PROGRAM_FUNCTIONS["geterr"]()
    return _numpy_geterr()


np.geterr = _geterr_as_called
