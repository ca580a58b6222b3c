"""Where the REPL keeps its history, across sessions."""
from __future__ import annotations

import os
from pathlib import Path
from typing import Iterator, Optional

from prompt_toolkit.history import FileHistory, History, InMemoryHistory

# the history file, when neither --history-file nor this names another
HISTORY_VARIABLE = "GRADCALC_HISTORY"


def history_path(option: Optional[str] = None) -> Path:
    """--history-file, else $GRADCALC_HISTORY, else $XDG_DATA_HOME/gradcalc/history (by default
    ~/.local/share/gradcalc/history)."""
    chosen = option or os.environ.get(HISTORY_VARIABLE)
    if chosen:
        return Path(chosen).expanduser()
    base = os.environ.get("XDG_DATA_HOME", "")
    root = Path(base) if os.path.isabs(base) else Path.home() / ".local" / "share"
    return root / "gradcalc" / "history"


class SafeFileHistory(FileHistory):
    """A history file that never stops the REPL: unreadable or unwritable, it lives in memory.
    It is written between inputs, when no program code runs (the sandbox refuses writes then)."""

    def load_history_strings(self) -> Iterator[str]:
        try:
            yield from list(super().load_history_strings())
        except (OSError, UnicodeDecodeError):
            return

    def store_string(self, string: str) -> None:
        try:
            super().store_string(string)
        except OSError:
            pass


def open_history(option: Optional[str] = None) -> History:
    try:
        path = history_path(option)
        path.parent.mkdir(parents=True, exist_ok=True)
    except (OSError, RuntimeError):  # RuntimeError: no home directory to be found
        return InMemoryHistory()
    return SafeFileHistory(str(path))
