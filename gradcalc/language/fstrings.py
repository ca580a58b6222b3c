"""f-strings: one STRING token split into literal text and `ast.FormattedValue` fields.

Each field's expression is parsed with the same grammar (start symbol `fexpr`), wrapped in
parentheses as Python does, and its positions are moved to where it sits in the file.
"""
from __future__ import annotations

import ast
import re
import unicodedata
from typing import Any, Callable

from .syntax_errors import GradcalcSyntaxError, make_error

_CONVERSIONS = {None: -1, "s": ord("s"), "r": ord("r"), "a": ord("a")}
_SIMPLE_ESCAPES = {"\\": "\\", "'": "'", '"': '"', "a": "\a", "b": "\b", "f": "\f",
                   "n": "\n", "r": "\r", "t": "\t", "v": "\v", "\n": ""}
_TRUNCATED = {"x": "\\xXX", "u": "\\uXXXX", "U": "\\UXXXXXXXX", "N": "\\N{...}"}
_ESCAPE = re.compile(r"\\(N\{[^}]*\}|x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|[0-7]{1,3}|.)", re.S)


def string_prefix(token: str) -> str:
    index = 0
    while token[index] not in "'\"":
        index += 1
    return token[:index].lower()


def _decode_escapes(text: str, found: list) -> str:
    """Python's backslash escapes in the literal text of a non-raw f-string.

    Raises ValueError, with Python's wording, for a truncated escape. An invalid one stays as
    written and, as in Python, the first of the text adds a DeprecationWarning to `found`.
    """
    invalid: list = []

    def warn(message: str) -> None:
        if not invalid:
            invalid.append(message)
            found.append(("DeprecationWarning", message))

    def replace(match: re.Match) -> str:
        code = match.group(1)
        if code in _SIMPLE_ESCAPES:
            return _SIMPLE_ESCAPES[code]
        if code in _TRUNCATED:
            raise ValueError(f"(unicode error) truncated {_TRUNCATED[code]} escape")
        if code[0] == "N":
            try:
                return unicodedata.lookup(code[2:-1])
            except KeyError:
                raise ValueError("(unicode error) unknown Unicode character name") from None
        if code[0] in "xuU":
            return chr(int(code[1:], 16))
        if code[0] in "01234567":
            if int(code, 8) > 0o377:
                warn(f"invalid octal escape sequence '\\{code}'")
            return chr(int(code, 8))
        warn(f"invalid escape sequence '\\{code}'")
        return match.group(0)  # an unknown escape keeps its backslash, as in Python

    return _ESCAPE.sub(replace, text)


def _merge_text(parts: list) -> list:
    """Join neighbouring literal pieces and drop empty ones."""
    merged: list = []
    for part in parts:
        if isinstance(part, str):
            if not part:
                continue
            if merged and isinstance(merged[-1], str):
                merged[-1] += part
                continue
        merged.append(part)
    return merged


class FStringReader:
    """Reads one f-string token; `parse_field(text)` parses "(expression)" with the `fexpr` start."""

    def __init__(self, token: Any, text: str, filename: str, warnings: list,
                 parse_field: Callable[[str], ast.expr]) -> None:
        self.token = token
        self.text = text
        self.filename = filename
        self.warnings = warnings
        self.parse_field = parse_field
        prefix = string_prefix(token)
        self.raw = "r" in prefix
        quote_len = 3 if token[len(prefix):len(prefix) + 3] in ('"""', "'''") else 1
        self.start = len(prefix) + quote_len  # index of the body in the token
        self.body = str(token)[self.start:len(token) - quote_len]

    def read(self) -> list:
        """Literal strings and FormattedValue nodes, in order."""
        parts, _ = self.literal(0, nested=False)
        return parts

    # positions -----------------------------------------------------------

    def where(self, index: int) -> tuple[int, int]:
        """(line, column) in the file of body[index], both from 1."""
        offset = self.start + index
        before = self.token[:offset]
        newlines = before.count("\n")
        if newlines == 0:
            return self.token.line, self.token.column + offset
        return self.token.line + newlines, offset - before.rfind("\n")

    def fail(self, message: str, index: int) -> GradcalcSyntaxError:
        line, column = self.where(min(index, len(self.body)))
        return make_error(self.text, self.filename, message, line, column)

    def _place(self, node: ast.AST, index: int) -> ast.AST:
        line, column = self.where(index)
        node.lineno, node.col_offset, node.end_lineno, node.end_col_offset = line, column - 1, line, column - 1
        return node

    # scanning ------------------------------------------------------------

    def literal(self, index: int, nested: bool) -> tuple[list, int]:
        """Literal text and fields from `index`; inside a format spec, up to the closing '}'."""
        body = self.body
        parts: list = []
        chunk_start = index
        chunk: list[str] = []

        def flush(stop: int) -> None:
            piece = body[chunk_start:stop]
            try:
                chunk.append(piece if self.raw else _decode_escapes(piece, self.warnings))
            except ValueError as error:
                raise self.fail(str(error), chunk_start) from None

        while index < len(body):
            char = body[index]
            if char == "\\" and not self.raw:
                # `\N{...}` is an escape, not a field
                if body.startswith("N{", index + 1):
                    close = body.find("}", index)
                    index = close + 1 if close >= 0 else len(body)
                else:
                    index += 2 if body[index + 1:index + 2] not in ("{", "}") else 1
                continue
            if char == "{":
                if not nested and body.startswith("{{", index):
                    flush(index + 1)
                    index += 2
                    chunk_start = index
                    continue
                flush(index)
                parts.append("".join(chunk))
                chunk.clear()
                field, debug_text, index = self.field(index + 1)
                if debug_text is not None:
                    parts.append(debug_text)
                parts.append(field)
                chunk_start = index
                continue
            if char == "}":
                if nested:
                    break
                if body.startswith("}}", index):
                    flush(index + 1)
                    index += 2
                    chunk_start = index
                    continue
                raise self.fail("f-string: single '}' is not allowed", index)
            index += 1
        flush(index)
        parts.append("".join(chunk))
        return _merge_text(parts), index

    def field(self, index: int) -> tuple[ast.FormattedValue, Any, int]:
        """One `{...}` field; `index` is just after the '{'. Returns the field, the text a
        `{x=}` field shows before its value (or None), and the index after the '}'."""
        body = self.body
        start = index
        end = self.expression_end(index)
        expr_text = body[start:end]
        if not expr_text.strip():
            raise self.fail("f-string: empty expression not allowed", end)
        index = end
        debug_text = None
        if body.startswith("=", index):
            index += 1
            while index < len(body) and body[index] in " \t\n":
                index += 1
            debug_text = body[start:index]
        conversion = None
        if body.startswith("!", index):
            conversion = body[index + 1:index + 2]
            if conversion not in ("r", "s", "a"):
                raise self.fail("f-string: invalid conversion character: expected 's', 'r', or 'a'", index + 1)
            index += 2
        format_spec = None
        if body.startswith(":", index):
            spec_start = index + 1
            spec_parts, index = self.literal(spec_start, nested=True)
            format_spec = self._joined(spec_parts, spec_start)
        if not body.startswith("}", index):
            raise self.fail("f-string: expecting '}'", index)
        if debug_text is not None and conversion is None and format_spec is None:
            conversion = "r"  # `{x=}` shows repr(x) unless a conversion or spec says otherwise
        value = self.expression(expr_text, start)
        node = ast.FormattedValue(value=value, conversion=_CONVERSIONS[conversion], format_spec=format_spec)
        return self._place(node, start - 1), debug_text, index + 1

    def _joined(self, parts: list, index: int) -> ast.JoinedStr:
        values = [self._place(ast.Constant(value=part), index) if isinstance(part, str) else part for part in parts]
        return self._place(ast.JoinedStr(values=values), index)

    def expression_end(self, index: int) -> int:
        """Where the field's expression stops: at '=', '!', ':' or '}' outside brackets and strings."""
        body = self.body
        depth = 0
        while index < len(body):
            char = body[index]
            two = body[index:index + 2]
            if char in "'\"":
                index = self.skip_string(index)
                continue
            if char == "\\":
                raise self.fail("f-string expression part cannot include a backslash", index)
            if char == "#":
                raise self.fail("f-string expression part cannot include '#'", index)
            if char in "([{":
                depth += 1
            elif char in ")]}":
                if depth == 0:
                    if char == "}":
                        return index
                    raise self.fail(f"f-string: unmatched '{char}'", index)
                depth -= 1
            elif two in ("==", "!=", "<=", ">="):
                index += 2
                continue
            elif depth == 0 and char in "=!:":
                return index
            index += 1
        raise self.fail("f-string: expecting '}'", index)

    def skip_string(self, index: int) -> int:
        body = self.body
        quote = body[index:index + 3] if body[index:index + 3] in ('"""', "'''") else body[index]
        index += len(quote)
        while index < len(body):
            if body[index] == "\\":
                index += 2
                continue
            if body.startswith(quote, index):
                return index + len(quote)
            index += 1
        raise self.fail("f-string: unterminated string", index)

    def expression(self, expr_text: str, index: int) -> ast.expr:
        """Parse one field's expression and move its positions into the file."""
        line, column = self.where(index)
        try:
            node = self.parse_field("(" + expr_text + ")")
        except GradcalcSyntaxError as error:
            error_line, error_column = _shift(error.line, max(error.column, 2), line, column)
            message = error.message if error.message.startswith("f-string") else "f-string: " + error.message
            raise make_error(self.text, self.filename, message, error_line, error_column,
                             expected=error.expected) from None
        for inner in ast.walk(node):
            if "lineno" in inner._attributes and hasattr(inner, "lineno"):
                inner.lineno, column_from_1 = _shift(inner.lineno, inner.col_offset + 1, line, column)
                inner.col_offset = column_from_1 - 1
                inner.end_lineno, end_from_1 = _shift(inner.end_lineno, inner.end_col_offset + 1, line, column)
                inner.end_col_offset = end_from_1 - 1
        return node


def _shift(line: int, column: int, base_line: int, base_column: int) -> tuple[int, int]:
    """Map a position in "(" + expression + ")" to the file, given where the expression starts."""
    if line == 1:
        return base_line, base_column + column - 2
    return base_line + line - 1, column
