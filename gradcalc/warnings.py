"""Warnings, shown one line each as `UserWarning: message`.

They go through Python's warnings machinery, as PyTorch's do, so a program's
`warnings.filterwarnings(...)` and `warnings.catch_warnings()` act on them; the runner decides
where the shown ones go (stderr, coloured or not).
"""
from __future__ import annotations

import functools
import re
import warnings as python_warnings
from typing import Any, Callable, Optional

_CATEGORIES = {cls.__name__: cls for cls in (
    UserWarning, DeprecationWarning, FutureWarning, RuntimeWarning, SyntaxWarning, PendingDeprecationWarning,
    ResourceWarning, ImportWarning, UnicodeWarning, BytesWarning, Warning)}
_shown_once: set = set()  # warnings PyTorch gives once per process (TORCH_WARN_ONCE)
_DEFAULT_SHOWWARNING = python_warnings.showwarning


# the folder PyTorch 2.13's wheel was built in, as its C++ warnings name their sources
_BUILD_ROOT = "/__w/pytorch/pytorch/"
# what PyTorch's C++ warnings end with, which a shown warning leaves out (the reference runner's rule)
_TRIGGERED = re.compile(r"\s*\(Triggered internally at [^)]*\)\s*$")


def _located(message: str, at: Optional[str]) -> str:
    return message if at is None else f"{message} (Triggered internally at {_BUILD_ROOT}{at}.)"


def warn(category: str, message: str, at: Optional[str] = None) -> None:
    """Warn as PyTorch does; `at`: where in PyTorch's C++ sources the warning is raised (`aten/src/ATen/native/
    Resize.cpp:30`), which its message then names as PyTorch's C++ warnings do."""
    python_warnings.warn(_located(message, at), _CATEGORIES.get(category, UserWarning), stacklevel=2)


def warn_once(category: str, message: str, at: Optional[str] = None) -> None:
    if message not in _shown_once:
        _shown_once.add(message)
        python_warnings.warn(_located(message, at), _CATEGORIES.get(category, UserWarning), stacklevel=2)


def deprecated(category: str, message: str) -> Callable[[Callable], Callable]:
    """Decorator: the function warns at each call before its arguments are bound, as
    typing_extensions.deprecated, which torch puts on its deprecated functions, warns."""
    def decorate(function: Callable) -> Callable:
        @functools.wraps(function)
        def warned(*args: Any, **kwargs: Any) -> Any:
            python_warnings.warn(message, _CATEGORIES.get(category, UserWarning), stacklevel=2)
            return function(*args, **kwargs)

        return warned

    return decorate


def first_time(key: str) -> bool:
    """Whether `key` (an event PyTorch reports once per process) happens for the first time."""
    if key in _shown_once:
        return False
    _shown_once.add(key)
    return True


def forget_once() -> None:
    """A fresh run shows the once-only warnings again."""
    _shown_once.clear()


def showing_through(sink: Callable[[str, str], None]) -> Callable[..., None]:
    """A `warnings.showwarning` that hands each warning to `sink(category, message)`."""

    def show(message: Any, category: type, filename: Any = None, lineno: Any = None, file: Any = None,
             line: Any = None) -> None:
        sink(category.__name__, _TRIGGERED.sub("", str(message)))

    return show


def set_sink(sink: Optional[Callable[[str, str], None]]) -> None:
    """Show every warning (as the reference runner does) through `sink`; None: Python's default."""
    python_warnings.resetwarnings()
    if sink is None:
        python_warnings.showwarning = _DEFAULT_SHOWWARNING
        return
    python_warnings.simplefilter("always")
    python_warnings.showwarning = showing_through(sink)
