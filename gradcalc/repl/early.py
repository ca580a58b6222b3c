"""The banner and the first `>>> `, shown before the line editor is loaded.

prompt_toolkit takes longer to import than the rest of the REPL's start put together. So the
banner and the prompt are written as soon as the process runs, and the terminal is set to keep
what is typed without showing it (no echo, no line editing of its own) until the editor takes
over: it draws the same prompt over this one and reads the keys that wait for it. Ctrl-C still
interrupts. This module imports nothing but the standard library's terminal modules.
"""
from __future__ import annotations

import os
import sys

from .. import __version__

TYPE_CHECKING = False  # typing itself costs as much as the rest of this module
if TYPE_CHECKING:
    from typing import Any, Optional

BANNER = f'gradcalc {__version__} (PyTorch 2.13 semantics). Type ":help" for help, Ctrl-D to leave.'


class EarlyPrompt:
    """A `>>> ` on the terminal, and the terminal's settings to give back to the editor."""

    def __init__(self, terminal: Any, fd: int, saved: list) -> None:
        self._terminal = terminal
        self._fd = fd
        self._saved: Optional[list] = saved

    def hand_over(self) -> None:
        """Give the terminal back as it was (keeping the keys typed meanwhile), with the cursor at the
        start of the prompt's line, where the editor draws its own prompt."""
        self.restore()
        try:
            self._terminal.write("\r")
            self._terminal.flush()
        except (OSError, ValueError):
            pass

    def restore(self) -> None:
        if self._saved is None:
            return
        import termios

        try:
            termios.tcsetattr(self._fd, termios.TCSANOW, self._saved)
        except (termios.error, OSError):
            pass
        self._saved = None


def show_first_prompt() -> Optional[EarlyPrompt]:
    """Write the banner (on stderr, as Python's REPL does) and, on a terminal that allows it, the
    first prompt; None when there is no prompt to hand over (the editor then draws the first)."""
    sys.stderr.write(BANNER + "\n")
    sys.stderr.flush()
    # the terminal the editor will draw on: stdout, or stderr when stdout is redirected
    terminal = next((stream for stream in (sys.stdout, sys.stderr) if stream is not None and stream.isatty()), None)
    if terminal is None or os.environ.get("TERM") == "dumb":
        return None
    try:
        import termios
    except ImportError:  # not a POSIX terminal
        return None
    fd = sys.stdin.fileno()
    try:
        saved = termios.tcgetattr(fd)
        quiet = termios.tcgetattr(fd)
        quiet[3] &= ~(termios.ECHO | termios.ICANON)  # lflags; ISIG stays, so Ctrl-C interrupts
        termios.tcsetattr(fd, termios.TCSANOW, quiet)
    except (termios.error, OSError):
        return None
    early = EarlyPrompt(terminal, fd, saved)
    try:
        terminal.write("\x1b[1m>>> \x1b[0m")  # bold, as the editor's prompt
        terminal.flush()
    except (OSError, ValueError):
        early.restore()
        return None
    return early
