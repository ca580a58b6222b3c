"""Warnings a program raises, shown one line each as `UserWarning: message`.

The runner decides where they go (stderr, coloured or not); the autograd core only calls `warn`.
"""
from __future__ import annotations

import sys
from typing import Callable, Optional

_sink: Optional[Callable[[str, str], None]] = None
_shown_once: set = set()  # warnings PyTorch gives once per process (TORCH_WARN_ONCE)


def warn(category: str, message: str) -> None:
    if _sink is not None:
        _sink(category, message)
    else:
        sys.stderr.write(f"{category}: {message}\n")


def warn_once(category: str, message: str) -> None:
    if message not in _shown_once:
        _shown_once.add(message)
        warn(category, message)


def forget_once() -> None:
    """A fresh run shows the once-only warnings again."""
    _shown_once.clear()


def set_sink(sink: Optional[Callable[[str, str], None]]) -> None:
    global _sink
    _sink = sink
