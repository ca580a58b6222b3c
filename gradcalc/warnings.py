"""Warnings a program raises, shown one line each as `UserWarning: message`.

The runner decides where they go (stderr, coloured or not); the autograd core only calls `warn`.
"""
from __future__ import annotations

import sys
from typing import Callable, Optional

_sink: Optional[Callable[[str, str], None]] = None


def warn(category: str, message: str) -> None:
    if _sink is not None:
        _sink(category, message)
    else:
        sys.stderr.write(f"{category}: {message}\n")


def set_sink(sink: Optional[Callable[[str, str], None]]) -> None:
    global _sink
    _sink = sink
