"""Source text to syntax tree: the Lark grammar, its layout post-lexer, the
tree builder and friendly syntax errors.

The parser is loaded from a cache on disk (see "grammar loading"); the Lark
object is created on the first parse so that importing this module stays cheap.
"""
from __future__ import annotations

import gc
import importlib
import os
import pickle
import re
import sys
import types
import unicodedata
import warnings
from typing import Optional

from . import ast

__all__ = ["parse", "is_complete", "GradcalcSyntaxError"]


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


# ------------------------------------------------------------ grammar loading
#
# Two ways to get the parser, the first whenever it is there:
#  - A wheel carries the output of Lark's stand-alone tool, generated at build
#    time (hatch_build.py): `_lark_runtime`, Lark's runtime without the lark
#    package, and `_lark_tables`, the LALR tables. The parser built from them is
#    pickled into the user's cache, since unpickling is several times cheaper
#    than building; the tables are imported only to build it.
#  - A source checkout or an editable install has no generated module and uses
#    the lark package with the grammar file and Lark's own cache.

_GRAMMAR_NAME = "gradcalc.lark"
_START_FILE = "file_input"
_START_FIELD = "fexpr"
# hatch_build.py generates the tables with the same options
_OPTIONS = dict(parser="lalr", lexer="basic", start=[_START_FILE, _START_FIELD], propagate_positions=True,
                maybe_placeholders=True)

_runtime = None  # the module providing Lark's classes: the generated one or the lark package
_lark = None  # the Lark object, built on the first parse


def _runtime_module() -> types.ModuleType:
    """The module whose Token, Tree and exceptions the parser uses."""
    global _runtime
    if _runtime is None:
        try:
            from . import _lark_runtime as module
        except ImportError:  # not a wheel install: see above
            import lark as module
        _runtime = module
    return _runtime


def _grammar_path() -> str:
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    # a wheel carries the grammar inside the package; a checkout keeps it at the top
    for candidate in (os.path.join(here, "grammar", _GRAMMAR_NAME),
                      os.path.join(os.path.dirname(here), "grammar", _GRAMMAR_NAME)):
        if os.path.isfile(candidate):
            return candidate
    raise FileNotFoundError(f"gradcalc grammar {_GRAMMAR_NAME} not found next to {here}")


def _cache_file(name: str) -> Optional[str]:
    """`name` in gradcalc's cache directory, or None when that directory cannot be written."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    directory = os.path.join(base, "gradcalc")
    try:
        os.makedirs(directory, exist_ok=True)
    except OSError:
        return None
    if not os.access(directory, os.W_OK | os.X_OK):
        return None
    return os.path.join(directory, name)


def _python_tag() -> str:
    return f"py{sys.version_info[0]}{sys.version_info[1]}"


def _get_lark():
    global _lark
    if _lark is None:
        # Loading makes a few hundred thousand objects that live as long as the
        # process: collections meanwhile would only walk them (and numpy's) again
        # and again. Once loaded, they and everything else alive at this point (the
        # modules imported at start) are frozen out of the collector's reach.
        collecting = gc.isenabled()
        gc.disable()
        try:
            runtime = _runtime_module()
            _lark = _load_lark(runtime) if runtime.__name__ == "lark" else _load_standalone(runtime)
        finally:
            if collecting:
                gc.freeze()
                gc.enable()
    return _lark


def _layout() -> _Layout:
    """The parser's post-lexer, whose state describes the last token stream."""
    return _get_lark().options.postlex


def _load_standalone(runtime: types.ModuleType):
    """The parser of the generated modules, unpickled from the cache or built and cached."""
    # the digest covers the tables and Lark's code; the pickle also depends on Python
    path = _cache_file(f"parser-{runtime.TABLES_DIGEST[:16]}-{_python_tag()}.pickle")
    if path is not None:
        try:
            with open(path, "rb") as handle:
                return pickle.load(handle)
        except Exception:  # missing, or unreadable by this gradcalc (truncated, renamed classes): rebuild
            pass
    from ._lark_tables import Lark_StandAlone

    parser = Lark_StandAlone(postlex=_Layout())
    if path is not None:
        _store(parser, path)
    return parser


class _Pickler(pickle.Pickler):
    def reducer_override(self, obj):
        # the lexer keeps the `re` module it compiles with; a module pickles as its name
        if isinstance(obj, types.ModuleType):
            return importlib.import_module, (obj.__name__,)
        return NotImplemented


def _store(parser, path: str) -> None:
    """Write the pickle beside its final name and rename it, so no reader sees half a file."""
    temporary = f"{path}.{os.getpid()}.tmp"
    try:
        with open(temporary, "wb") as handle:
            _Pickler(handle, protocol=pickle.HIGHEST_PROTOCOL).dump(parser)
        os.replace(temporary, path)
    except OSError:  # a full disk or a vanished directory only costs the next start a rebuild
        try:
            os.remove(temporary)
        except OSError:
            pass


def _load_lark(lark: types.ModuleType):
    """The parser built by the lark package from the grammar file, through Lark's cache."""
    with open(_grammar_path(), encoding="utf-8") as handle:
        grammar_text = handle.read()
    # Lark itself rebuilds when the cache file is unreadable and carries on when it cannot write it
    cache = _cache_file(_lark_cache_name(grammar_text, lark.__version__))
    return lark.Lark(grammar_text, cache=cache or False, postlex=_Layout(), **_OPTIONS)


def _lark_cache_name(grammar_text: str, lark_version: str) -> str:
    """A name for Lark's cache file that changes with the grammar, Lark and Python."""
    import hashlib

    key = f"{grammar_text}\0{lark_version}\0{_python_tag()}"
    return f"parser-{hashlib.sha256(key.encode('utf-8')).hexdigest()[:16]}.lark-cache"


# ------------------------------------------------------------ layout (indent)

_OPENERS = {"LPAR": "(", "LSQB": "[", "LBRACE": "{"}
_CLOSERS = {"RPAR": "(", "RSQB": "[", "RBRACE": "{"}


def _indent_width(text: str) -> int:
    width = 0
    for char in text:
        width = (width // 8 + 1) * 8 if char == "\t" else width + 1
    return width


class _LayoutError(Exception):
    """Raised inside the token stream; turned into a GradcalcSyntaxError by the caller."""

    def __init__(self, message: str, line: int, column: int, type_name: str = "SyntaxError") -> None:
        super().__init__(message)
        self.message, self.line, self.column, self.type_name = message, line, column, type_name


class _Layout:
    """Python's layout rules on top of Lark's tokens (Lark's `postlex` hook).

    Newlines inside brackets vanish, indentation changes become _INDENT and
    _DEDENT tokens, and bracket mismatches are reported as Python does. The
    state of the last stream stays readable for error reports, so one parse
    runs at a time.
    """

    always_accept: tuple = ()  # only the contextual lexer would need this

    def __init__(self) -> None:
        self.reset()

    def __reduce__(self):
        # a pickled parser gets a fresh post-lexer, whatever this class holds by then
        return _Layout, ()

    def reset(self) -> None:
        self.brackets: list = []  # open bracket tokens, innermost last
        self.indents: list[int] = [0]
        self.tokens: list = []  # the significant tokens handed out so far
        self.line_heads: list = []  # the first token of each logical line

    def process(self, stream):
        self.reset()
        return self._process(stream)

    def _process(self, stream):
        Token = _runtime_module().Token
        line_start = True
        last = None
        for token in stream:
            if token.type == "_NEWLINE":
                if self.brackets:
                    continue
                yield token
                yield from self._indentation(token, Token)
                line_start = True
                continue
            if line_start:
                if last is None and token.column > 1:
                    raise _LayoutError("unexpected indent", token.line, token.column, "IndentationError")
                self.line_heads.append(token)
                line_start = False
            if token.type in _OPENERS:
                self.brackets.append(token)
            elif token.type in _CLOSERS:
                self._close(token)
            self.tokens.append(token)
            last = token
            yield token
        while len(self.indents) > 1:
            self.indents.pop()
            if last is None:
                yield Token("_DEDENT", "", 0, 1, 1, 1, 1, 0)
            else:
                yield Token("_DEDENT", "", last.end_pos, last.end_line, last.end_column,
                            last.end_line, last.end_column, last.end_pos)

    def _indentation(self, newline, Token):
        indent_text = newline.value.rsplit("\n", 1)[-1]
        width = _indent_width(indent_text)
        # the synthetic tokens sit where the next line's code starts
        where = (newline.end_pos, newline.end_line, newline.end_column,
                 newline.end_line, newline.end_column, newline.end_pos)
        if width > self.indents[-1]:
            self.indents.append(width)
            yield Token("_INDENT", indent_text, *where)
            return
        while width < self.indents[-1]:
            self.indents.pop()
            yield Token("_DEDENT", indent_text, *where)
        if width != self.indents[-1]:
            raise _LayoutError("unindent does not match any outer indentation level",
                               newline.end_line, newline.end_column, "IndentationError")

    def _close(self, token) -> None:
        if not self.brackets:
            raise _LayoutError(f"unmatched '{token.value}'", token.line, token.column)
        opener = self.brackets.pop()
        if opener.value != _CLOSERS[token.type]:
            message = (f"closing parenthesis '{token.value}' does not match "
                       f"opening parenthesis '{opener.value}'")
            if opener.line != token.line:
                message += f" on line {opener.line}"
            raise _LayoutError(message, token.line, token.column)


# ------------------------------------------------------------------ public API

def parse(source: str, filename: str = "<string>") -> ast.Module:
    """Parse a whole program into an ast.Module; raise GradcalcSyntaxError if it is not valid."""
    text = _normalise(source)
    tree = _parse_tree(text, _START_FILE, filename)
    return _build(tree, text, filename)


def is_complete(source: str) -> bool:
    """For a REPL: False while the input only fails because it ended too early.

    Lines are expected joined by "\\n" as typed, so a final empty line shows
    as a trailing newline. As in Python's REPL, a compound statement is only
    finished by an empty line, while an open bracket or triple-quoted string
    always waits for more.
    """
    if not source.strip():
        return True
    last_line_blank = "\n" in source and not source.rsplit("\n", 1)[-1].strip()
    try:
        module = parse(source)
    except GradcalcSyntaxError as error:
        if error.input_ended == "open":
            return False
        if error.input_ended == "eof":
            return last_line_blank
        return True
    compound = (ast.If, ast.While, ast.For, ast.With, ast.FunctionDef, ast.ClassDef)
    if module.body and isinstance(module.body[-1], compound):
        return last_line_blank
    return True


def _normalise(source: str) -> str:
    text = source.removeprefix("\ufeff").replace("\r\n", "\n").replace("\r", "\n")
    # Python's tokenizer ends the last line itself; the grammar wants the newline
    return text if text.endswith("\n") else text + "\n"


def _parse_tree(text: str, start: str, filename: str):
    parser = _get_lark()
    runtime = _runtime_module()
    try:
        return parser.parse(text, start=start)
    except _LayoutError as error:
        raise _error(text, filename, error.message, error.line, error.column,
                     type_name=error.type_name) from None
    except runtime.UnexpectedCharacters as error:
        raise _lexer_error(text, filename, error.pos_in_stream, error.line, error.column) from None
    except runtime.UnexpectedToken as error:
        raise _parser_error(text, filename, error) from None


def _error(text: str, filename: str, message: str, line: int, column: int, *,
           expected: tuple[str, ...] = (), type_name: str = "SyntaxError",
           input_ended: Optional[str] = None) -> GradcalcSyntaxError:
    lines = text.split("\n")
    source_line = lines[line - 1] if 0 < line <= len(lines) else ""
    error = GradcalcSyntaxError(message, line, column, source_line, filename=filename,
                                expected=expected, type_name=type_name)
    error.input_ended = input_ended
    return error


# ------------------------------------------------------ tokenizer-level errors

_STRING_PREFIX = re.compile(r"(?<!\w)(?i:rf|fr|[urf])$")


def _lexer_error(text: str, filename: str, pos: int, line: int, column: int) -> GradcalcSyntaxError:
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
            return _error(text, filename, f"unterminated triple-quoted string literal (detected at line {last_line})",
                          line, column, expected=(f"the closing {quote}",), input_ended="open")
        return _error(text, filename, f"unterminated string literal (detected at line {line})",
                      line, column, expected=(f"the closing {quote} on the same line",))
    if re.match(r"0[0-9_]*[1-9]", text[pos:]):
        return _error(text, filename, "leading zeros in decimal integer literals are not permitted; "
                      "use an 0o prefix for octal integers", line, column)
    if char == "\\":
        return _error(text, filename, "unexpected character after line continuation character",
                      line, column, expected=("a line break right after '\\'",))
    if not char.isascii():
        return _error(text, filename, f"invalid character '{char}' (U+{ord(char):04X})", line, column)
    return _error(text, filename, "invalid syntax", line, column)


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
_STARTERS = {"(", "[", "{", "None", "True", "False", "lambda", "..."}
_ENDERS = {")", "]", "}", "None", "True", "False", "..."}
# Binary operators and other ways to continue an expression after an operand.
_OPERATOR_VALUES = {"+", "-", "*", "/", "//", "%", "**", "@", "|", "^", "&", "<<", ">>",
                    "<", ">", "==", ">=", "<=", "!=", "in", "not", "is", "and", "or", "if",
                    "for", ".", "(", "["}
_PREFIX_OPERATORS = {"*", "**", "-", "+", "~", "not"}
_AUGMENTED = {"+=", "-=", "*=", "/=", "//=", "%=", "**=", "@=", "&=", "|=", "^=", "<<=", ">>="}
# What can start a statement (besides an expression), in one phrase where all of it could come.
_STATEMENT_WORDS = {"assert", "break", "class", "continue", "def", "del", "for", "from", "global", "if", "import",
                    "nonlocal", "pass", "raise", "return", "while", "with", "@"}
# Python keywords outside gradcalc's language; the lexer sees them as names.
_UNSUPPORTED_KEYWORDS = {"try", "except", "finally", "yield", "async", "await"}


def _unsupported(word: str) -> str:
    return f"'{word}' is not supported in gradcalc"


# What each block header is called in "expected an indented block after ...".
_BLOCK_NAMES = {"if": "'if' statement", "elif": "'elif' statement", "else": "'else' statement",
                "while": "'while' statement", "for": "'for' statement", "with": "'with' statement",
                "def": "function definition", "class": "class definition"}


# Punctuation that usually ends or separates something is listed first, in this order.
_CLOSER_ORDER = ")]}:,="


def _terminal_text(name: str) -> Optional[str]:
    """The literal text of a keyword or punctuation terminal, None for the others."""
    try:
        pattern = _get_lark().get_terminal(name).pattern
    except KeyError:
        return None
    return pattern.value if pattern.type == "str" else None


def _describe_expected(names: set[str]) -> tuple[str, ...]:
    """Plain words for a set of terminal names, most useful first.

    Whole families collapse into one phrase: every way to start an operand
    is "an expression", every binary operator "an operator".
    """
    texts = {name: _terminal_text(name) for name in names}
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


def _acceptable(error) -> set[str]:
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


def _parser_error(text: str, filename: str, error) -> GradcalcSyntaxError:
    layout = _layout()
    token = error.token
    expected = _acceptable(error)
    brackets = layout.brackets
    # the last real token before the one that failed
    tokens = layout.tokens
    before = -2 if tokens and tokens[-1] is token else -1
    previous = tokens[before] if len(tokens) >= -before else None
    words = _describe_expected(expected)
    # the dedents that close open blocks at the end of the input count as its end too
    at_end = token.type == "$END" or (token.type == "_DEDENT" and not text[token.start_pos:].strip())
    line, column = _end_position(text) if at_end else (token.line, token.column)

    if at_end and brackets:
        return _never_closed(text, filename, brackets[-1], input_ended="open")

    if token.type == "_INDENT":
        found = _error(text, filename, "unexpected indent", token.line, token.column,
                       expected=("a statement at the same indentation as the line before",),
                       type_name="IndentationError")
    elif "_INDENT" in expected:
        heads = [head for head in layout.line_heads if head is not token]
        header = heads[-1] if heads else None
        what = _BLOCK_NAMES.get(header.value if header is not None else "", "a block header")
        header_line = header.line if header is not None else line
        found = _error(text, filename, f"expected an indented block after {what} on line {header_line}",
                       line, column, expected=("an indented block",), type_name="IndentationError",
                       input_ended="eof" if at_end else None)
    elif at_end:
        found = _error(text, filename, "unexpected EOF while parsing", line, column,
                       expected=words, input_ended="eof")
    elif previous is not None and previous.type == "NAME" and previous.value in _UNSUPPORTED_KEYWORDS:
        found = _error(text, filename, _unsupported(previous.value), previous.line, previous.column)
    elif token.value == ":" and text[token.end_pos:token.end_pos + 1] == "=":
        found = _error(text, filename, _unsupported(":="), token.line, token.column)
    elif (token.value == "=" and previous is not None and previous.value == ":"
          and previous.end_pos == token.start_pos):  # `if n := 10:` fails only at the '='
        found = _error(text, filename, _unsupported(":="), previous.line, previous.column)
    elif token.type == "_NEWLINE" and "COLON" in expected and previous is not None:
        found = _error(text, filename, "expected ':'", previous.end_line, previous.end_column,
                       expected=("':'",))
    elif (previous is not None and previous.type in _NUMBERS and token.type == "NAME"
          and previous.end_pos == token.start_pos):
        # `0x`, `0o`, `0b` without digits lex as a 0 and a name
        base = {"x": "hexadecimal", "o": "octal", "b": "binary"}.get(token.value[:1].lower()) \
            if previous.value == "0" else None
        found = _error(text, filename, f"invalid {base or 'decimal'} literal", previous.line, previous.column)
    elif (previous is not None and previous.type == "NAME" and previous.value == "print"
          and layout.line_heads and layout.line_heads[-1] is previous and _starts_operand(token)):
        found = _error(text, filename, "Missing parentheses in call to 'print'. Did you mean print(...)?",
                       previous.line, previous.column)
    elif _unparenthesised_generator(layout, token, expected):
        found = _error(text, filename, "Generator expression must be parenthesized", token.line, token.column,
                       expected=("brackets around the generator expression",))
    elif brackets and previous is not None and _ends_operand(previous) and _starts_operand(token):
        found = _error(text, filename, "invalid syntax. Perhaps you forgot a comma?", token.line, token.column,
                       expected=words)
    else:
        found = _error(text, filename, "invalid syntax", line, column, expected=words)
    return _check_rest(text, filename, found)


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


def _check_rest(text: str, filename: str, found: GradcalcSyntaxError) -> GradcalcSyntaxError:
    """Tokenize the whole source, as Python does after a parser error.

    A tokenizer error anywhere (a bad bracket, an unterminated string) takes
    precedence, and so does a bracket still open at the end of the input when
    it was opened on a line before the error.
    """
    parser = _get_lark()
    try:
        for _ in parser.lex(text):
            pass
    except _LayoutError as error:
        return _error(text, filename, error.message, error.line, error.column, type_name=error.type_name)
    except _runtime_module().UnexpectedCharacters as error:
        return _lexer_error(text, filename, error.pos_in_stream, error.line, error.column)
    brackets = _layout().brackets
    if brackets and brackets[-1].line < found.line:
        return _never_closed(text, filename, brackets[-1])
    return found


def _never_closed(text: str, filename: str, opener, input_ended: Optional[str] = None) -> GradcalcSyntaxError:
    closer = {"(": ")", "[": "]", "{": "}"}[opener.value]
    return _error(text, filename, f"'{opener.value}' was never closed", opener.line, opener.column,
                  expected=(f"a matching '{closer}'",), input_ended=input_ended)


# --------------------------------------------------------------- tree building

def _build(tree, text: str, filename: str):
    return _Builder(text, filename).transform(tree)


def _pos(meta) -> dict:
    if meta.empty:
        return {"line": 1, "column": 1}
    return {"line": meta.line, "column": meta.column}


def _tpos(token) -> dict:
    return {"line": token.line, "column": token.column}


class _Builder:
    """Builds ast.py nodes from the Lark tree, checking what the grammar leaves open.

    Each grammar rule (or alias) has a method of the same name, called
    with the rule's position and its already built children.
    """

    def __init__(self, text: str, filename: str) -> None:
        self.text = text
        self.filename = filename
        self.warnings: list = []  # (category, message) of Python's tokenizer: invalid escapes

    def transform(self, root):
        # an explicit stack: long operator chains make deep trees
        Tree = _runtime_module().Tree
        results: list = []
        stack = [(root, False)]
        while stack:
            node, ready = stack.pop()
            if not isinstance(node, Tree):
                results.append(node)
            elif ready:
                count = len(node.children)
                children = results[len(results) - count:]
                del results[len(results) - count:]
                results.append(getattr(self, node.data)(node.meta, children))
            else:
                stack.append((node, True))
                stack.extend((child, False) for child in reversed(node.children))
        return results[0]

    def fail(self, message: str, node_or_token, **extra) -> GradcalcSyntaxError:
        return _error(self.text, self.filename, message, node_or_token.line, node_or_token.column, **extra)

    # ---- module and statements

    def file_input(self, meta, children):
        return ast.Module(_flatten(children), tuple(self.warnings), **_pos(meta))

    def fexpr(self, meta, children):
        return children[0]

    def simple_stmt(self, meta, children):
        return children  # a list: `a; b` holds several statements

    def suite(self, meta, children):
        return _flatten(children)

    def expr_stmt(self, meta, children):
        return ast.ExprStmt(children[0], **_pos(meta))

    def assign_stmt(self, meta, children):
        *targets, value = children
        targets = [self.target(t, "assign", top=True) for t in targets]
        return ast.Assign(targets, value, **_pos(meta))

    def augassign_stmt(self, meta, children):
        target, op, value = children
        if not isinstance(target, (ast.Name, ast.Attribute, ast.Subscript)):
            raise self.fail(f"'{_describe(target)}' is an illegal expression for augmented assignment", target)
        return ast.AugAssign(target, op, value, **_pos(meta))

    def augassign_op(self, meta, children):
        return str(children[0])[:-1]

    def del_stmt(self, meta, children):
        target = children[0]
        # `del a, b` and `del (a, b)` both delete a and b
        targets = target.elts if isinstance(target, ast.TupleExpr) else [target]
        return ast.Delete([self.target(t, "del") for t in targets], **_pos(meta))

    def pass_stmt(self, meta, children):
        return ast.Pass(**_pos(meta))

    def break_stmt(self, meta, children):
        return ast.Break(**_pos(meta))

    def continue_stmt(self, meta, children):
        return ast.Continue(**_pos(meta))

    def return_stmt(self, meta, children):
        return ast.Return(children[0], **_pos(meta))

    def raise_stmt(self, meta, children):
        return ast.Raise(children[0], **_pos(meta))

    def global_stmt(self, meta, children):
        return ast.Global([str(t) for t in children], **_pos(meta))

    def nonlocal_stmt(self, meta, children):
        return ast.Nonlocal([str(t) for t in children], **_pos(meta))

    def assert_stmt(self, meta, children):
        return ast.Assert(children[0], children[1], **_pos(meta))

    def import_name(self, meta, children):
        return ast.Import(children, **_pos(meta))

    def dotted_as_name(self, meta, children):
        name, asname = children
        return ast.Alias(name, None if asname is None else str(asname), **_pos(meta))

    def dotted_name(self, meta, children):
        return ".".join(str(t) for t in children)

    def import_from(self, meta, children):
        module, *names = children
        return ast.ImportFrom(module, names, **_pos(meta))

    def import_star(self, meta, children):
        return ast.Alias("*", None, **_pos(meta))

    def import_as_name(self, meta, children):
        name, asname = children
        return ast.Alias(str(name), None if asname is None else str(asname), **_pos(meta))

    def if_stmt(self, meta, children):
        test, body, *elifs, orelse = children
        orelse = orelse or []
        # `elif` chains become nested Ifs, each alone in its parent's orelse
        for clause in reversed(elifs):
            clause.orelse = orelse
            orelse = [clause]
        return ast.If(test, body, orelse, **_pos(meta))

    def elif_clause(self, meta, children):
        return ast.If(children[0], children[1], [], **_pos(meta))

    def else_clause(self, meta, children):
        return children[0]

    def while_stmt(self, meta, children):
        test, body, orelse = children
        return ast.While(test, body, orelse or [], **_pos(meta))

    def for_stmt(self, meta, children):
        target, iterable, body, orelse = children
        return ast.For(self.target(target, "for"), iterable, body, orelse or [], **_pos(meta))

    def with_stmt(self, meta, children):
        *items, body = children
        return ast.With(items, body, **_pos(meta))

    def with_item(self, meta, children):
        context, target = children
        if target is not None:
            target = self.target(target, "with")
        return ast.WithItem(context, target, **_pos(meta))

    def decorated(self, meta, children):
        *decorators, function = children
        if isinstance(function, ast.ClassDef):
            raise self.fail("class decorators are not supported in gradcalc", decorators[0])
        function.decorators = decorators
        return function

    def decorator(self, meta, children):
        return children[0]

    def funcdef(self, meta, children):
        name, params, body = children
        return ast.FunctionDef(str(name), params or [], body, [], **_pos(meta))

    def classdef(self, meta, children):
        name, arguments, body = children
        args, keywords = arguments if arguments is not None else ([], [])
        if keywords:  # metaclass= and __init_subclass__ arguments would run code inside Python's protocols
            raise self.fail("keyword arguments in a class definition (such as metaclass=) are not "
                            "supported in gradcalc", keywords[0])
        if len(args) > 1 or any(isinstance(arg, ast.Starred) for arg in args):
            raise self.fail("more than one base class is not supported in gradcalc", args[-1])
        for statement in body:
            self.check_class_statement(statement)
        return ast.ClassDef(str(name), args[0] if args else None, body, **_pos(meta))

    def check_class_statement(self, statement: ast.Node) -> None:
        """A class body holds methods, class attributes, docstrings and `pass`; of the dunder
        names only `__init__`, so that no program code runs inside Python's own protocols."""
        if isinstance(statement, ast.FunctionDef):
            names = [statement.name]
        elif isinstance(statement, ast.Assign) and all(isinstance(t, ast.Name) for t in statement.targets):
            names = [target.id for target in statement.targets]
        elif isinstance(statement, ast.Pass) or (isinstance(statement, ast.ExprStmt)
                                                 and isinstance(statement.value, ast.Constant)):
            return
        else:
            raise self.fail("a class body in gradcalc holds only methods, class attributes, docstrings "
                            "and 'pass'", statement)
        for name in names:
            if name.startswith("__") and name != "__init__":
                raise self.fail(f"defining '{name}' in a class is not supported in gradcalc (of the "
                                "double-underscore names, only '__init__' is)", statement)

    def parameters(self, meta, children):
        return self.check_params(children)

    def param(self, meta, children):
        name, default = children
        return ast.Param(str(name), default, "normal", **_pos(meta))

    def star_param(self, meta, children):
        name = children[0]
        # a bare `*` only marks where keyword-only parameters start
        return ast.Param("" if name is None else str(name), None, "varargs", **_pos(meta))

    def dstar_param(self, meta, children):
        return ast.Param(str(children[0]), None, "kwargs", **_pos(meta))

    def check_params(self, params: list) -> list:
        result, seen_default, seen_star, bare_star = [], False, None, None
        for param in params:
            if result and result[-1].kind == "kwargs":
                raise self.fail("arguments cannot follow var-keyword argument", param)
            if param.kind == "varargs":
                if seen_star is not None:
                    raise self.fail("* argument may appear only once", param)
                seen_star = param
                if not param.name:
                    bare_star = param
                    continue
            elif param.kind == "normal":
                if seen_star is not None:
                    param.kind = "kwonly"
                elif param.default is not None:
                    seen_default = True
                elif seen_default:
                    raise self.fail("non-default argument follows default argument", param)
            if bare_star is not None and param.kind != "kwonly":
                raise self.fail("named arguments must follow bare *", bare_star)
            bare_star = None
            result.append(param)
        if bare_star is not None:
            raise self.fail("named arguments must follow bare *", bare_star)
        return result

    # ---- assignment targets

    def target(self, node, context: str, top: bool = False):
        """Check that `node` can be assigned to (or deleted) and return it."""
        if isinstance(node, (ast.Name, ast.Attribute, ast.Subscript)):
            return node
        if isinstance(node, (ast.TupleExpr, ast.ListExpr)):
            for item in node.elts:
                self.target(item, context)
            return node
        if isinstance(node, ast.Starred) and context != "del":
            # a lone starred target is reported by Python's compiler, so by the interpreter
            self.target(node.value, context)
            return node
        what = _describe_target(node)
        if context == "del":
            raise self.fail(f"cannot delete {what}", node)
        if context == "assign" and top and what not in ("None", "True", "False"):
            raise self.fail(f"cannot assign to {what} here. Maybe you meant '==' instead of '='?", node)
        raise self.fail(f"cannot assign to {what}", node)

    # ---- expressions

    def tuple(self, meta, children):
        return ast.TupleExpr(list(children), **_pos(meta))

    def list(self, meta, children):
        return ast.ListExpr(list(children), **_pos(meta))

    def set(self, meta, children):
        return ast.SetExpr(list(children), **_pos(meta))

    def dict(self, meta, children):
        keys = [key for key, _ in children]
        values = [value for _, value in children]
        return ast.DictExpr(keys, values, **_pos(meta))

    def key_value(self, meta, children):
        return (children[0], children[1])

    def dict_unpack(self, meta, children):
        return (None, children[0])

    def star_expr(self, meta, children):
        return ast.Starred(children[0], **_pos(meta))

    def paren_star(self, meta, children):
        raise self.fail("cannot use starred expression here", children[0])

    def ifexp(self, meta, children):
        body, test, orelse = children
        return ast.IfExp(test, body, orelse, **_pos(meta))

    def lambdef(self, meta, children):
        params, body = children
        return ast.Lambda(params or [], body, **_pos(meta))

    def or_op(self, meta, children):
        return self.boolop("or", meta, children)

    def and_op(self, meta, children):
        return self.boolop("and", meta, children)

    def boolop(self, op: str, meta, children):
        left, right = children
        # `a or b or c` is one BoolOp with three values, as in Python, but not
        # `(a or b) or c`: a bracketed left operand starts after this node does
        if isinstance(left, ast.BoolOp) and left.op == op and _starts_with(left, meta):
            return ast.BoolOp(op, left.values + [right], **_pos(meta))
        return ast.BoolOp(op, [left, right], **_pos(meta))

    def not_op(self, meta, children):
        return ast.UnaryOp("not", children[0], **_pos(meta))

    def compare(self, meta, children):
        return ast.Compare(children[0], list(children[1::2]), list(children[2::2]), **_pos(meta))

    def comp_op(self, meta, children):
        return " ".join(str(t) for t in children)

    def binop(self, meta, children):
        left, op, right = children
        return ast.BinOp(str(op), left, right, **_pos(meta))

    def unaryop(self, meta, children):
        op, operand = children
        return ast.UnaryOp(str(op), operand, **_pos(meta))

    def attribute(self, meta, children):
        value, name = children
        return ast.Attribute(value, str(name), **_pos(meta))

    def call(self, meta, children):
        func, arguments = children
        args, keywords = arguments if arguments is not None else ([], [])
        return ast.Call(func, args, keywords, **_pos(meta))

    def arguments(self, meta, children):
        args, keywords = [], []
        seen_keyword = seen_dstar = False
        for item in children:
            if isinstance(item, ast.Keyword):
                if item.name is None:
                    seen_dstar = True
                else:
                    seen_keyword = True
                keywords.append(item)
                continue
            if isinstance(item, ast.Starred):
                if seen_dstar:
                    raise self.fail("iterable argument unpacking follows keyword argument unpacking", item)
            elif seen_dstar:
                raise self.fail("positional argument follows keyword argument unpacking", item)
            elif seen_keyword:
                raise self.fail("positional argument follows keyword argument", item)
            args.append(item)
        return args, keywords

    def genexp_arguments(self, meta, children):
        elt, generators = children[0]
        return [ast.GeneratorExp(elt, generators, **_pos(meta))], []

    def keyword(self, meta, children):
        name, value = children
        if not isinstance(name, ast.Name) or not _starts_with(name, meta):
            raise self.fail('expression cannot contain assignment, perhaps you meant "=="?', name)
        return ast.Keyword(name.id, value, **_pos(meta))

    def star_arg(self, meta, children):
        return ast.Starred(children[0], **_pos(meta))

    def dstar_arg(self, meta, children):
        return ast.Keyword(None, children[0], **_pos(meta))

    def subscript(self, meta, children):
        value, index = children
        return ast.Subscript(value, index, **_pos(meta))

    def slice(self, meta, children):
        lower, upper, step = (list(children) + [None])[:3]
        return ast.Slice(lower, upper, step, **_pos(meta))

    def comprehension(self, meta, children):
        elt, *generators = children
        if isinstance(elt, ast.Starred):
            raise self.fail("iterable unpacking cannot be used in comprehension", elt)
        return elt, generators

    def dict_comprehension(self, meta, children):
        key, value, *generators = children
        return key, value, generators

    def comp_for(self, meta, children):
        target, iterable, *ifs = children
        return ast.Comprehension(self.target(target, "for"), iterable, ifs, **_pos(meta))

    def comp_if(self, meta, children):
        return children[0]

    def genexp(self, meta, children):
        elt, generators = children[0]
        return ast.GeneratorExp(elt, generators, **_pos(meta))

    def listcomp(self, meta, children):
        elt, generators = children[0]
        return ast.ListComp(elt, generators, **_pos(meta))

    def setcomp(self, meta, children):
        elt, generators = children[0]
        return ast.SetComp(elt, generators, **_pos(meta))

    def dictcomp(self, meta, children):
        key, value, generators = children[0]
        return ast.DictComp(key, value, generators, **_pos(meta))

    # ---- atoms

    def name(self, meta, children):
        if children[0] in _UNSUPPORTED_KEYWORDS:
            raise self.fail(_unsupported(children[0]), children[0])
        return ast.Name(str(children[0]), **_pos(meta))

    def number(self, meta, children):
        token = children[0]
        digits = token.replace("_", "")
        if token.type == "IMAG_NUMBER":
            value = complex(0, float(digits[:-1]))
        elif token.type == "FLOAT_NUMBER":
            value = float(digits)
        else:
            value = int(digits, 0)
        return ast.Constant(value, **_tpos(token))

    def ellipsis(self, meta, children):
        return ast.Constant(Ellipsis, **_pos(meta))

    def const_none(self, meta, children):
        return ast.Constant(None, **_pos(meta))

    def const_true(self, meta, children):
        return ast.Constant(True, **_pos(meta))

    def const_false(self, meta, children):
        return ast.Constant(False, **_pos(meta))

    def strings(self, meta, children):
        parts: list = []
        formatted = False
        for token in children:
            if _string_prefix(token).count("f"):
                formatted = True
                parts.extend(_FStringReader(token, self.text, self.filename, self.warnings).read())
            else:
                parts.append(self.plain_string(token))
        if not formatted:
            return ast.Constant("".join(parts), **_pos(meta))
        return ast.FString(_merge_text(parts), **_pos(meta))

    def plain_string(self, token) -> str:
        # the token is exactly a Python string literal, so Python may decode it
        import ast as python_ast

        try:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                value = python_ast.literal_eval(str(token))
        except (SyntaxError, ValueError) as error:
            message = getattr(error, "msg", None) or str(error)
            raise self.fail(message, token)
        self.warnings.extend((warning.category.__name__, str(warning.message)) for warning in caught)
        return value


def _starts_with(node, meta) -> bool:
    """Whether a child node starts where its parent rule does (it is not in brackets)."""
    return (node.line, node.column) == (meta.line, meta.column)


def _flatten(children) -> list:
    out = []
    for child in children:
        if isinstance(child, list):
            out.extend(child)
        elif child is not None:
            out.append(child)
    return out


_TARGET_WORDS = [
    (ast.Call, "function call"), (ast.BinOp, "expression"), (ast.UnaryOp, "expression"),
    (ast.BoolOp, "expression"), (ast.Compare, "comparison"), (ast.IfExp, "conditional expression"),
    (ast.Lambda, "lambda"), (ast.DictExpr, "dict literal"), (ast.SetExpr, "set display"),
    (ast.ListComp, "list comprehension"), (ast.SetComp, "set comprehension"),
    (ast.DictComp, "dict comprehension"), (ast.GeneratorExp, "generator expression"),
    (ast.FString, "f-string expression"), (ast.Starred, "starred"),
]


def _describe_target(node) -> str:
    if isinstance(node, ast.Constant):
        if node.value is None or isinstance(node.value, bool):
            return str(node.value)
        return "ellipsis" if node.value is Ellipsis else "literal"
    for kind, words in _TARGET_WORDS:
        if isinstance(node, kind):
            return words
    return "expression"


def _describe(node) -> str:
    """The name Python uses for a node in augmented-assignment errors."""
    if isinstance(node, ast.TupleExpr):
        return "tuple"
    if isinstance(node, ast.ListExpr):
        return "list"
    return _describe_target(node)


def _string_prefix(token: str) -> str:
    index = 0
    while token[index] not in "'\"":
        index += 1
    return token[:index].lower()


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


# ------------------------------------------------------------------- f-strings

_SIMPLE_ESCAPES = {"\\": "\\", "'": "'", '"': '"', "a": "\a", "b": "\b", "f": "\f",
                   "n": "\n", "r": "\r", "t": "\t", "v": "\v", "\n": ""}
_TRUNCATED = {"x": "\\xXX", "u": "\\uXXXX", "U": "\\UXXXXXXXX", "N": "\\N{...}"}
_ESCAPE = re.compile(r"\\(N\{[^}]*\}|x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|[0-7]{1,3}|.)", re.S)


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


class _FStringReader:
    """Splits one f-string token into literal text and FormattedValue fields.

    Each field's expression is parsed with the same grammar (start symbol
    `fexpr`), wrapped in parentheses as Python does, and its positions are
    moved to where it sits in the file.
    """

    def __init__(self, token, text: str, filename: str, warnings: list) -> None:
        self.token = token
        self.text = text
        self.filename = filename
        self.warnings = warnings
        prefix = _string_prefix(token)
        self.raw = "r" in prefix
        quote_len = 3 if token[len(prefix):len(prefix) + 3] in ('"""', "'''") else 1
        self.start = len(prefix) + quote_len  # index of the body in the token
        self.body = str(token)[self.start:len(token) - quote_len]

    def read(self) -> list:
        parts, _ = self.literal(0, nested=False)
        return parts

    # positions -----------------------------------------------------------

    def where(self, index: int) -> tuple[int, int]:
        """(line, column) in the file of body[index]."""
        offset = self.start + index
        before = self.token[:offset]
        newlines = before.count("\n")
        if newlines == 0:
            return self.token.line, self.token.column + offset
        return self.token.line + newlines, offset - before.rfind("\n")

    def fail(self, message: str, index: int) -> GradcalcSyntaxError:
        line, column = self.where(min(index, len(self.body)))
        return _error(self.text, self.filename, message, line, column)

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
                field, index = self.field(index + 1)
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

    def field(self, index: int) -> tuple[ast.FormattedValue, int]:
        """One `{...}` field; `index` is just after the '{'. Returns the field and the index after '}'."""
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
            line, column = self.where(index + 1)
            spec_parts, index = self.literal(index + 1, nested=True)
            format_spec = ast.FString(spec_parts, line=line, column=column)
        if not body.startswith("}", index):
            raise self.fail("f-string: expecting '}'", index)
        if debug_text is not None and conversion is None and format_spec is None:
            conversion = "r"  # `{x=}` shows repr(x) unless a conversion or spec says otherwise
        line, column = self.where(start - 1)
        value = self.expression(expr_text, start)
        return ast.FormattedValue(value, conversion, format_spec, debug_text, line=line, column=column), index + 1

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

    def expression(self, expr_text: str, index: int):
        """Parse one field's expression and move its positions into the file."""
        line, column = self.where(index)
        try:
            node = _build(_parse_tree("(" + expr_text + ")", _START_FIELD, self.filename),
                          "(" + expr_text + ")", self.filename)
        except GradcalcSyntaxError as error:
            error_line, error_column = _shift(error.line, max(error.column, 2), line, column)
            message = error.message if error.message.startswith("f-string") else "f-string: " + error.message
            raise _error(self.text, self.filename, message, error_line, error_column,
                         expected=error.expected) from None
        _move(node, line, column)
        return node


def _shift(line: int, column: int, base_line: int, base_column: int) -> tuple[int, int]:
    """Map a position in "(" + expression + ")" to the file, given where the expression starts."""
    if line == 1:
        return base_line, base_column + column - 2
    return base_line + line - 1, column


def _move(node, base_line: int, base_column: int) -> None:
    if isinstance(node, list):
        for item in node:
            _move(item, base_line, base_column)
        return
    if not isinstance(node, ast.Node):
        return
    node.line, node.column = _shift(node.line, node.column, base_line, base_column)
    for name in node._fields:
        _move(getattr(node, name), base_line, base_column)
