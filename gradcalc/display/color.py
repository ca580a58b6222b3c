"""Whether to colour: decided once, from the command line, the environment and the stream.

Kept apart from console.py so that deciding costs no import of Rich or of the session.
"""
from __future__ import annotations

import os
import sys
from typing import Any, Optional


def use_color(color: Optional[bool], stream: Any = None) -> bool:
    """--color/--no-color first; then NO_COLOR and FORCE_COLOR as Rich reads them (a non-empty
    NO_COLOR turns colour off, FORCE_COLOR set turns it on unless empty); else only on a terminal."""
    if color is not None:
        return color
    if os.environ.get("NO_COLOR", "") != "":
        return False
    force = os.environ.get("FORCE_COLOR")
    if force is not None:
        return force != ""
    stream = stream or sys.stdout
    try:
        return hasattr(stream, "isatty") and stream.isatty()
    except ValueError:  # a closed stream
        return False
