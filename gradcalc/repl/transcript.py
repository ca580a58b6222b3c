"""Pasted transcripts in, saved scripts out.

A paste whose first line starts with Python's `>>> ` prompt (PyTorch's docstrings, Python's docs,
forum posts) runs as the code it shows, as IPython does: `>>> ` and `... ` taken off, the output
lines between them left out. `:save` writes what the session ran as a script that reproduces it.
"""
from __future__ import annotations

import re

from .. import __version__

_PROMPT = re.compile(r"(>>>|\.\.\.)(?: |$)")


def strip_prompts(text: str) -> str:
    """The code of a transcript; any other text as it is."""
    lines = text.split("\n")
    first = next((line for line in lines if line.strip()), "")
    margin = len(first) - len(first.lstrip(" "))
    if not first[margin:].startswith(">>>") or not _PROMPT.match(first, margin):
        return text
    code = []
    for line in lines:
        prompt = _PROMPT.match(line, margin) if line[:margin].strip() == "" else None
        if prompt is not None:
            code.append(line[prompt.end():])
    return "\n".join(code)


class InputLog:
    """The inputs a session ran, for `:save`. An input that ended in an error keeps the statements
    that ran before it; the rest is kept as comments, so that the script runs to its end."""

    def __init__(self) -> None:
        self.parts: list[str] = []

    def add(self, source: str, ok: bool, statements_done: int) -> None:
        source = source.strip("\n")
        if ok:
            self.parts.append(source)
            return
        ran, rest = _split_at_statement(source, statements_done)
        if ran:
            self.parts.append(ran)
        self.parts.append("# ended in an error (left out):\n" + "\n".join("# " + line for line in rest.split("\n")))

    def script(self) -> str:
        header = f"# a gradcalc {__version__} session, saved by :save\n"
        return header + "".join(part + "\n" for part in self.parts)


def _split_at_statement(source: str, index: int) -> tuple[str, str]:
    """(the text of the first `index` top-level statements, the rest)."""
    from ..language.parser import GradcalcSyntaxError, parse

    try:
        body = parse(source).module.body
    except GradcalcSyntaxError:
        return "", source
    if index >= len(body):
        return source, ""
    statement = body[index]
    decorators = getattr(statement, "decorator_list", None)
    line, column = (min(d.lineno for d in decorators), 0) if decorators else (statement.lineno, statement.col_offset)
    lines = source.split("\n")
    # ast's columns count UTF-8 bytes
    offset = sum(len(text) + 1 for text in lines[:line - 1]) + len(lines[line - 1].encode()[:column].decode())
    return source[:offset].rstrip().rstrip(";").rstrip(), source[offset:]
