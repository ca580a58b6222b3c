"""Where output goes: plain text when piped (byte for byte PyTorch's), Rich colour on a terminal.

Colour never changes a character: the same text is printed, with styles laid over it. Rich is
imported only when colour is used, so `gradcalc -e` in a pipe never pays for it.
"""
from __future__ import annotations

import re
from typing import Any, Iterator, Optional

from ..output import TextOutput
from .color import use_color

# Spans of PyTorch's text worth a colour. At each position the first group that matches wins,
# so a quoted string is taken whole before anything inside it could match. Compiled (and kept in
# re's cache) when colour is first used: a pipe never needs it.
_SPANS = (
    r"(?P<string>'(?:[^'\\\n]|\\.)*'|\"(?:[^\"\\\n]|\\.)*\")"
    r"|(?P<autograd>grad_fn=<[^>\n]*>|requires_grad=True|<\w+ object at 0x[0-9a-fA-F]+>)"
    r"|(?P<meta>(?:dtype=)?torch\.(?:u?int\d*|float\d*|bfloat16|half|double|long|short|bool"
    r"|complex\d*|cfloat|cdouble|chalf)\b|size=\([^)\n]*\)|device='[^'\n]*')"
    r"|(?P<head>\btensor(?=\()|^Parameter containing:|torch\.Size\b|torch\.return_types\.\w+)"
    r"|(?P<constant>\b(?:True|False|None)\b)"
    r"|(?P<number>(?<![\w.])-?(?:inf|nan|\d+\.?\d*(?:e[+-]?\d+)?(?:[+-]\d*\.?\d*(?:e[+-]?\d+)?j)?)(?![\w.]))"
)

STYLES = {
    "string": "green",
    "autograd": "magenta",
    "meta": "bright_blue",
    "head": "bold",
    "constant": "yellow",
    "number": "cyan",
    "error_type": "bold red",
    "error": "red",
    "warning_type": "bold yellow",
    "warning": "yellow",
}


def spans(text: str, strings: bool = True) -> Iterator[tuple[str, Optional[str]]]:
    """`text` cut into (piece, style name or None); the pieces join back to `text` exactly.

    With strings=False a quoted span is left plain: in what a program prints, a quote is
    as likely an apostrophe of prose as the start of a string.
    """
    end = 0
    for match in re.finditer(_SPANS, text, re.MULTILINE):
        if match.start() > end:
            yield text[end:match.start()], None
        kind = match.lastgroup
        yield match.group(), None if kind == "string" and not strings else kind
        end = match.end()
    if end < len(text):
        yield text[end:], None


def _labelled(text: str, kind: str) -> list[tuple[str, Optional[str]]]:
    """`Category: message` with the category stronger than the rest (errors, warnings)."""
    head, colon, rest = text.partition(":")
    if not colon or not re.fullmatch(r"\w+", head):
        return [(text, kind)]
    return [(head, kind + "_type"), (colon + rest, kind)]


class RichOutput(TextOutput):
    """The same characters as TextOutput, coloured by Rich."""

    def __init__(self, stdout: Any = None, stderr: Any = None) -> None:
        super().__init__(stdout, stderr)
        from rich.console import Console
        from rich.segment import Segment
        from rich.style import Style

        self._segment = Segment
        self._styles = {name: Style.parse(spec) for name, spec in STYLES.items()}
        # Built here, not at import: a module-level Console would bind the streams too early.
        # no_color=False: colour was decided by use_color (which honours NO_COLOR unless --color).
        options = dict(markup=False, highlight=False, emoji=False, soft_wrap=True, force_terminal=True,
                       no_color=False)
        self.out = Console(file=self.stdout, **options)
        self.err = Console(file=self.stderr, **options)

    def _print(self, console: Any, pieces: Any) -> None:
        # Rich's own text path expands tabs and drops control characters; segments go out as they are.
        segments = [self._segment(piece, self._styles[kind] if kind else None) for piece, kind in pieces]
        console.print(_Segments(segments), end="")

    def write(self, text: str) -> None:
        self._print(self.out, spans(text, strings=False))

    def echo(self, value: Any) -> None:
        self._print(self.out, [*spans(repr(value)), ("\n", None)])

    def warning(self, category: str, message: str) -> None:
        self.stdout.flush()
        self._print(self.err, [*_labelled(f"{category}: {message}", "warning"), ("\n", None)])

    def error(self, text: str) -> None:
        self.stdout.flush()
        self._print(self.err, [*_labelled(text, "error"), ("\n", None)])


class _Segments:
    """A Rich renderable of ready-made segments."""

    def __init__(self, segments: list) -> None:
        self.segments = segments

    def __rich_console__(self, console: Any, options: Any) -> Any:
        return iter(self.segments)


def make_output(color: Optional[bool] = None) -> TextOutput:
    return RichOutput() if use_color(color) else TextOutput()


def show(renderable: Any, stream: Any, color: bool, width: Optional[int] = None, whole_lines: bool = False) -> None:
    """Print one of gradcalc's own views (a Rich renderable) on `stream`: coloured or plain text.
    `whole_lines`: text lines are not wrapped at `width` (a terminal wraps them, a file keeps them)."""
    from rich.console import Console

    console = Console(file=stream, force_terminal=color, no_color=not color, color_system="auto" if color else None,
                      markup=False, highlight=False, emoji=False, width=width or 80)
    console.print(renderable, soft_wrap=whole_lines)
