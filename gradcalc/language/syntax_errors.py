"""Syntax errors as Python words them, with more help: where (a caret under the spot) and
what could have come there.

The parser (parser.py) hands over Lark's failures; `parser_error` and `lexer_error` turn them
into a GradcalcSyntaxError whose one-line message is Python's.
"""
from __future__ import annotations

import re
from typing import Any, Callable, Optional

# --------------------------------------------------------------------- errors

class GradcalcSyntaxError(Exception):
    """A program that does not parse.

    `str(error)` is the one-line message Python would print after
    "SyntaxError: "; `detail()` adds where and what was expected.
    """

    def __init__(self, message: str, line: int, column: int, source_line: str = "", *,
                 filename: str = "<string>", expected: tuple[str, ...] = (),
                 type_name: str = "SyntaxError") -> None:
        super().__init__(message)
        self.message = message
        self.line = line
        self.column = column
        self.source_line = source_line
        self.filename = filename
        # plain-words descriptions of what could have come at the spot
        self.expected = tuple(expected)
        # "SyntaxError" or "IndentationError", the class Python would raise
        self.type_name = type_name
        # Set when the input merely stopped too early: "open" inside a bracket
        # or a triple-quoted string, "eof" in the middle of a statement.
        self.input_ended: Optional[str] = None

    def __str__(self) -> str:
        return self.message

    def detail(self) -> str:
        """Where the error is (line, column, the line with a caret) and what was expected."""
        where = f"line {self.line}, column {self.column}"
        if not self.filename.startswith("<"):
            where = f"{self.filename}, {where}"
        out = [where]
        if self.source_line.strip():
            text = self.source_line.rstrip("\r\n")
            # the caret must land under the same character even when tabs are used
            prefix = text[:max(self.column - 1, 0)].expandtabs(8)
            out.append("    " + text.expandtabs(8))
            out.append("    " + " " * len(prefix) + "^")
        if self.expected:
            out.append("expected " + _join_or(self.expected))
        return "\n".join(out)


def _join_or(items: tuple[str, ...]) -> str:
    if len(items) == 1:
        return items[0]
    return ", ".join(items[:-1]) + " or " + items[-1]



def make_error(text: str, filename: str, message: str, line: int, column: int, *,
               expected: tuple[str, ...] = (), type_name: str = "SyntaxError",
               input_ended: Optional[str] = None) -> GradcalcSyntaxError:
    lines = text.split("\n")
    source_line = lines[line - 1] if 0 < line <= len(lines) else ""
    error = GradcalcSyntaxError(message, line, column, source_line, filename=filename,
                                expected=expected, type_name=type_name)
    error.input_ended = input_ended
    return error


# ------------------------------------------------------ tokenizer-level errors

_STRING_PREFIX = re.compile(r"(?<!\w)(?i:rf|fr|rb|br|[urfb])$")


def lexer_error(text: str, filename: str, pos: int, line: int, column: int) -> GradcalcSyntaxError:
    """The lexer found no token at `pos`: an unterminated string or a stray character."""
    char = text[pos]
    if char in "'\"":
        quote = text[pos:pos + 3] if text[pos:pos + 3] in ('"""', "'''") else char
        # a string prefix lexed as a name; the literal starts with it
        prefix = _STRING_PREFIX.search(text[max(pos - 3, 0):pos])
        if prefix is not None:
            column -= len(prefix.group(0))
        if len(quote) == 3:
            last_line = text.count("\n")  # the text ends with the newline we ensured
            return make_error(text, filename,
                              f"unterminated triple-quoted string literal (detected at line {last_line})",
                              line, column, expected=(f"the closing {quote}",), input_ended="open")
        return make_error(text, filename, f"unterminated string literal (detected at line {line})",
                      line, column, expected=(f"the closing {quote} on the same line",))
    if re.match(r"0[0-9_]*[1-9]", text[pos:]):
        return make_error(text, filename, "leading zeros in decimal integer literals are not permitted; "
                      "use an 0o prefix for octal integers", line, column)
    if char == "\\":
        return make_error(text, filename, "unexpected character after line continuation character",
                      line, column, expected=("a line break right after '\\'",))
    if not char.isascii():
        return make_error(text, filename, f"invalid character '{char}' (U+{ord(char):04X})", line, column)
    return make_error(text, filename, "invalid syntax", line, column)


# ---------------------------------------------------------- parser-level errors

# How terminals read in messages: punctuation and keywords as written, the rest in words.
_TERMINAL_WORDS = {
    "NAME": "a name",
    "STRING": "a string",
    "DEC_NUMBER": "a number", "HEX_NUMBER": "a number", "OCT_NUMBER": "a number",
    "BIN_NUMBER": "a number", "FLOAT_NUMBER": "a number", "IMAG_NUMBER": "a number",
    "_NEWLINE": "the end of the line",
    "$END": "the end of the input",
    "_INDENT": "an indented block",
    "_DEDENT": "the end of the block",
}
_NUMBERS = {"DEC_NUMBER", "HEX_NUMBER", "OCT_NUMBER", "BIN_NUMBER", "FLOAT_NUMBER", "IMAG_NUMBER"}
_OPERANDS = _NUMBERS | {"NAME", "STRING"}
# Keywords and punctuation that start an operand, and those that end one.
_STARTERS = {"(", "[", "{", "None", "True", "False", "lambda", "...", "yield"}
_ENDERS = {")", "]", "}", "None", "True", "False", "..."}
# Binary operators and other ways to continue an expression after an operand.
_OPERATOR_VALUES = {"+", "-", "*", "/", "//", "%", "**", "@", "|", "^", "&", "<<", ">>",
                    "<", ">", "==", ">=", "<=", "!=", "in", "not", "is", "and", "or", "if",
                    "for", ".", "(", "["}
_PREFIX_OPERATORS = {"*", "**", "-", "+", "~", "not"}
_AUGMENTED = {"+=", "-=", "*=", "/=", "//=", "%=", "**=", "@=", "&=", "|=", "^=", "<<=", ">>="}
# What can start a statement (besides an expression), in one phrase where all of it could come.
_STATEMENT_WORDS = {"assert", "break", "class", "continue", "def", "del", "for", "from", "global", "if", "import",
                    "nonlocal", "pass", "raise", "return", "try", "while", "with", "yield", "@"}
# Python keywords outside gradcalc's language; the lexer sees them as names.
UNSUPPORTED_KEYWORDS = {"async", "await"}


def unsupported(word: str) -> str:
    return f"'{word}' is not supported in gradcalc"


# What each block header is called in "expected an indented block after ...".
_BLOCK_NAMES = {"if": "'if' statement", "elif": "'elif' statement", "else": "'else' statement",
                "while": "'while' statement", "for": "'for' statement", "with": "'with' statement",
                "def": "function definition", "class": "class definition", "try": "'try' statement",
                "except": "'except' statement", "finally": "'finally' statement"}


# Punctuation that usually ends or separates something is listed first, in this order.
_CLOSER_ORDER = ")]}:,="


def _describe_expected(names: set[str], terminal_text: Callable[[str], Optional[str]]) -> tuple[str, ...]:
    """Plain words for a set of terminal names, most useful first.

    Whole families collapse into one phrase: every way to start an operand
    is "an expression", every binary operator "an operator".
    """
    texts = {name: terminal_text(name) for name in names}
    literals = {text for text in texts.values() if text}
    operand_state = {"+", "*", "."} <= literals
    start_state = {"NAME", "DEC_NUMBER", "LPAR"} <= names
    statement_state = start_state and {"pass", "def", "if"} <= literals
    augmented = "+=" in literals
    closers, others, words = [], [], []
    for name in sorted(names, key=lambda n: (_CLOSER_ORDER.find(texts[n] or "~"), n)):
        literal = texts[name]
        if operand_state and literal in _OPERATOR_VALUES:
            continue
        if start_state and (name in _OPERANDS or literal in _STARTERS or literal in _PREFIX_OPERATORS):
            continue
        if augmented and literal in _AUGMENTED:
            continue
        if statement_state and literal in _STATEMENT_WORDS:
            continue
        if literal is not None:
            (closers if len(literal) == 1 and literal in _CLOSER_ORDER else others).append(f"'{literal}'")
        elif name in _TERMINAL_WORDS and _TERMINAL_WORDS[name] not in words:
            words.append(_TERMINAL_WORDS[name])
    result = closers + others
    if augmented:
        result.append("an augmented assignment like '+='")
    result += words
    if start_state:
        result.append("a statement" if statement_state else "an expression")
    if operand_state:
        result.append("an operator")
    return tuple(result)


def _acceptable(error: Any) -> set[str]:
    """The terminals that could really come next (the table's own set is merged across contexts)."""
    return set(error.interactive_parser.accepts())


def _starts_operand(token) -> bool:
    return token.type in _OPERANDS or token.value in _STARTERS


def _ends_operand(token) -> bool:
    return token.type in _OPERANDS or token.value in _ENDERS


def _end_position(text: str) -> tuple[int, int]:
    lines = text.split("\n")
    # the text ends with a newline, so the last real line is the one before ""
    line = max(len(lines) - 1, 1)
    return line, len(lines[line - 1]) + 1


def parser_error(text: str, filename: str, error: Any, layout: Any,
                 terminal_text: Callable[[str], Optional[str]]) -> GradcalcSyntaxError:
    """What Python would say about Lark's UnexpectedToken `error`; `layout` is the post-lexer's
    state after the failed parse. The caller still checks the rest of the input (see parser.py)."""
    token = error.token
    expected = _acceptable(error)
    brackets = layout.brackets
    # the last real token before the one that failed
    tokens = layout.tokens
    before = -2 if tokens and tokens[-1] is token else -1
    previous = tokens[before] if len(tokens) >= -before else None
    words = _describe_expected(expected, terminal_text)
    # the dedents that close open blocks at the end of the input count as its end too
    at_end = token.type == "$END" or (token.type == "_DEDENT" and not text[token.start_pos:].strip())
    line, column = _end_position(text) if at_end else (token.line, token.column)

    if at_end and brackets:
        return never_closed(text, filename, brackets[-1], input_ended="open")

    if token.type == "_INDENT":
        found = make_error(text, filename, "unexpected indent", token.line, token.column,
                       expected=("a statement at the same indentation as the line before",),
                       type_name="IndentationError")
    elif "_INDENT" in expected:
        heads = [head for head in layout.line_heads if head is not token]
        header = heads[-1] if heads else None
        what = _BLOCK_NAMES.get(header.value if header is not None else "", "a block header")
        header_line = header.line if header is not None else line
        found = make_error(text, filename, f"expected an indented block after {what} on line {header_line}",
                       line, column, expected=("an indented block",), type_name="IndentationError",
                       input_ended="eof" if at_end else None)
    elif at_end:
        found = make_error(text, filename, "unexpected EOF while parsing", line, column,
                       expected=words, input_ended="eof")
    elif previous is not None and previous.type == "NAME" and previous.value in UNSUPPORTED_KEYWORDS:
        found = make_error(text, filename, unsupported(previous.value), previous.line, previous.column)
    elif _statement_head(layout, token, "match"):
        found = make_error(text, filename, unsupported("match"), layout.line_heads[-1].line,
                           layout.line_heads[-1].column)
    elif token.type == "_NEWLINE" and "COLON" in expected and previous is not None:
        found = make_error(text, filename, "expected ':'", previous.end_line, previous.end_column,
                       expected=("':'",))
    elif (previous is not None and previous.type in _NUMBERS and token.type == "NAME"
          and previous.end_pos == token.start_pos):
        # `0x`, `0o`, `0b` without digits lex as a 0 and a name
        base = {"x": "hexadecimal", "o": "octal", "b": "binary"}.get(token.value[:1].lower()) \
            if previous.value == "0" else None
        found = make_error(text, filename, f"invalid {base or 'decimal'} literal", previous.line, previous.column)
    elif (previous is not None and previous.type == "NAME" and previous.value == "print"
          and layout.line_heads and layout.line_heads[-1] is previous and _starts_operand(token)):
        found = make_error(text, filename, "Missing parentheses in call to 'print'. Did you mean print(...)?",
                       previous.line, previous.column)
    elif _unparenthesised_generator(layout, token, expected):
        found = make_error(text, filename, "Generator expression must be parenthesized", token.line, token.column,
                       expected=("brackets around the generator expression",))
    elif brackets and previous is not None and _ends_operand(previous) and _starts_operand(token):
        found = make_error(text, filename, "invalid syntax. Perhaps you forgot a comma?", token.line, token.column,
                       expected=words)
    else:
        found = make_error(text, filename, "invalid syntax", line, column, expected=words)
    return found


def _statement_head(layout: Any, token: Any, word: str) -> bool:
    """Whether the failing line starts with the soft keyword `word` (`match x:`)."""
    heads = layout.line_heads
    return bool(heads) and heads[-1].value == word and heads[-1] is not token and token.line == heads[-1].line


def _unparenthesised_generator(layout, token, expected: set) -> bool:
    """A generator expression beside other arguments of a call: `f(x for x in y, 1)`, `f(1, x for x in y)`."""
    if not layout.brackets or layout.brackets[-1].value != "(":
        return False
    tokens = layout.tokens
    opener = next(i for i in range(len(tokens) - 1, -1, -1) if tokens[i] is layout.brackets[-1])
    if opener == 0 or not (tokens[opener - 1].type == "NAME" or tokens[opener - 1].value in (")", "]")):
        return False  # brackets of a tuple or a generator, not of a call
    if token.value == ",":
        return "FOR" in expected
    depth, comma = 0, False
    for inside in tokens[opener + 1:]:
        depth += (inside.value in "([{") - (inside.value in ")]}")
        comma = comma or (depth == 0 and inside.value == ",")
    return token.value == "for" and comma


def never_closed(text: str, filename: str, opener, input_ended: Optional[str] = None) -> GradcalcSyntaxError:
    closer = {"(": ")", "[": "]", "{": "}"}[opener.value]
    return make_error(text, filename, f"'{opener.value}' was never closed", opener.line, opener.column,
                  expected=(f"a matching '{closer}'",), input_ended=input_ended)


