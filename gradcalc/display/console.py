"""Where output goes: plain text when piped (byte for byte PyTorch's), Rich colour on a terminal.

Colour never changes a character: the same text is printed, with styles laid over it.
"""
from __future__ import annotations

import os
import re
import sys
from typing import Any, Optional

from ..session import TextOutput

# Styles over PyTorch's text; the first group that matches a span wins.
_SPANS = re.compile(
    r"(?P<suffix>grad_fn=<[^>]*>|requires_grad=True|dtype=torch\.\w+|size=\([^)]*\))"
    r"|(?P<head>\btensor\(|Parameter containing:|torch\.Size|torch\.return_types\.\w+)"
    r"|(?P<special>\b(?:nan|inf|True|False|None)\b)"
    r"|(?P<number>(?<![\w.])-?\d+(?:\.\d*)?(?:e[+-]?\d+)?(?:[+-]\d*\.?\d*(?:e[+-]?\d+)?j)?)"
    r"|(?P<string>'[^'\n]*')"
)
_STYLES = {"suffix": "magenta", "head": "bold", "special": "yellow", "number": "cyan", "string": "green"}


def use_color(color: Optional[bool], stream: Any = None) -> bool:
    """Colour only on a terminal, never with NO_COLOR set, unless asked for explicitly."""
    if color is not None:
        return color
    if os.environ.get("NO_COLOR"):
        return False
    stream = stream or sys.stdout
    return hasattr(stream, "isatty") and stream.isatty()


def highlight(text: str) -> Any:
    """A rich Text of `text`, styled span by span."""
    from rich.text import Text

    styled = Text(text)
    for match in _SPANS.finditer(text):
        styled.stylize(_STYLES[match.lastgroup], match.start(), match.end())
    return styled


class RichOutput(TextOutput):
    """The same text as TextOutput, coloured by Rich."""

    def __init__(self) -> None:
        super().__init__()
        from rich.console import Console

        # Built here, not at import: a module-level Console would leak colour into captured output.
        self.out = Console(file=sys.stdout, markup=False, highlight=False, soft_wrap=True, force_terminal=True)
        self.err = Console(file=sys.stderr, markup=False, highlight=False, soft_wrap=True, force_terminal=True)

    def write(self, text: str) -> None:
        self.out.print(text, end="")

    def echo(self, value: Any) -> None:
        self.out.print(highlight(repr(value)))

    def warning(self, category: str, message: str) -> None:
        self.err.print(f"{category}: {message}", style="yellow")

    def error(self, text: str) -> None:
        self.err.print(text, style="bold red")


def make_output(color: Optional[bool] = None) -> TextOutput:
    return RichOutput() if use_color(color) else TextOutput()
