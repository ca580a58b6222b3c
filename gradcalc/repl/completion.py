"""Tab completion in the editor: the candidates come from the worker, where the program's
objects are (display/completion.py computes them); the REPL's own commands are completed here."""
from __future__ import annotations

import re
from typing import Callable, Iterator

from prompt_toolkit.completion import CompleteEvent, Completer, Completion
from prompt_toolkit.document import Document


class SessionCompleter(Completer):
    """prompt_toolkit's side of completion: `candidates(text before the cursor)` asks the worker."""

    def __init__(self, candidates: Callable[[str], list[str]]) -> None:
        self.candidates = candidates

    def get_completions(self, document: Document, complete_event: CompleteEvent) -> Iterator[Completion]:
        before = document.current_line_before_cursor
        command, space, argument = before.lstrip().partition(" ")
        if command.startswith(":") and not space:
            yield from _command_completions(command)
            return
        if command.startswith(":"):
            if command != ":graph":  # the other commands take a file name, or nothing
                return
            before = argument
        word = re.search(r"\w*$", before).group()
        for name in self.candidates(before):
            yield Completion(name, start_position=-len(word))


def _command_completions(typed: str) -> Iterator[Completion]:
    from .commands import COMMANDS

    for name in COMMANDS:
        if name.startswith(typed):
            yield Completion(name, start_position=-len(typed))
