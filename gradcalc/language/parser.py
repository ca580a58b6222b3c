"""Source text to Python's `ast`: the Lark grammar, its layout post-lexer and the tree
builder (builder.py); syntax errors as syntax_errors.py words them.

The parser is loaded from a cache on disk (see "grammar loading"); the Lark object is created
on the first parse so that importing this module stays cheap.
"""
from __future__ import annotations

import _sre
import ast
import gc
import importlib
import os
import pickle
import re
import sys
import types
import warnings
from contextlib import contextmanager
from re import _compiler, _parser
from typing import Any, Iterator, Optional

from .builder import Builder
from .syntax_errors import GradcalcSyntaxError, lexer_error, make_error, never_closed, parser_error

__all__ = ["parse", "parse_with_lark", "is_complete", "GradcalcSyntaxError", "Parsed"]

# Python's tokenizer refuses deeper bracket nesting with this message (its MAXLEVEL)
_MAX_BRACKET_DEPTH = 200

# ------------------------------------------------------------ grammar loading
#
# Two ways to get the parser, the first whenever it is there:
#  - A wheel carries the output of Lark's stand-alone tool, generated at build
#    time (hatch_build.py): `_lark_runtime`, Lark's runtime without the lark
#    package, and `_lark_tables`, the LALR tables. The parser built from them is
#    pickled into the user's cache, since unpickling is several times cheaper
#    than building; the tables are imported only to build it, the runtime only
#    when a program first needs the parser (`_lark_digest` names the cache).
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
_stored_parser: Optional[bytes] = None  # its pickle, read by preload() ahead of that parse


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
            _lark = _load_lark(runtime) if runtime.__name__ == "lark" else _load_standalone()
        finally:
            if collecting:
                gc.freeze()
                gc.enable()
    return _lark


def _layout() -> _Layout:
    """The parser's post-lexer, whose state describes the last token stream."""
    return _get_lark().options.postlex


def preload() -> None:
    """Make ready to load the grammar's parser when it is first needed (a syntax error, what the
    language leaves out: most programs never need it) without reading outside gradcalc's
    installation then, where the sandbox's jail keeps the cache out: the cached parser is read now
    and unpickled then. Where there is no cache to read (the lark package's own), it is loaded now."""
    global _stored_parser
    path = _standalone_cache_path()  # (Lark's runtime is imported when the parser is first needed)
    if path is not None and _lark is None:
        try:
            with open(path, "rb") as handle:
                _stored_parser = handle.read()
            return
        except OSError:  # not cached yet: built (and stored) now
            pass
    _get_lark()


def _standalone_cache_path() -> Optional[str]:
    """The cache file of the generated parser; None where there is none (not a wheel install) or
    no cache directory can be written."""
    try:
        from ._lark_digest import TABLES_DIGEST
    except ImportError:
        return None
    # the digest covers the tables and Lark's code; the pickle also depends on Python and on the
    # format of its compiled regular expressions
    return _cache_file(f"parser-{TABLES_DIGEST[:16]}-{_python_tag()}-sre{_sre.MAGIC}.pickle")


def _load_standalone():
    """The parser of the generated modules, unpickled from the cache (read by preload, or now) or
    built and cached."""
    global _stored_parser
    path = _standalone_cache_path()
    stored, _stored_parser = _stored_parser, None
    try:
        if stored is None and path is not None:
            with open(path, "rb") as handle:
                stored = handle.read()
        if stored is not None:
            return pickle.loads(stored)
    except Exception:  # missing, or unreadable by this gradcalc (truncated, renamed classes): rebuild
        pass
    from ._lark_tables import Lark_StandAlone

    parser = Lark_StandAlone(postlex=_Layout())
    if path is not None:
        _prepare_to_store(parser)
        if _store(parser, path):
            _remove_stale(path)
    return parser


def _prepare_to_store(parser) -> None:
    """Do once, before pickling, what every start would otherwise do: build the lexer's scanner
    (compile its regular expressions), and make the parse table's equal actions one object, which
    the pickle then stores and loads once (a few hundred instead of thirteen thousand)."""
    parser.parser.lexer.lexer.scanner  # a property: builds the scanner on first access
    shared: dict = {}
    for actions in parser.parser.parser.parser.parse_table.states.values():
        for token, action in actions.items():
            actions[token] = shared.setdefault(action, action)


class _Pickler(pickle.Pickler):
    def reducer_override(self, obj):
        # the lexer keeps the `re` module it compiles with; a module pickles as its name
        if isinstance(obj, types.ModuleType):
            return importlib.import_module, (obj.__name__,)
        if isinstance(obj, re.Pattern):
            return _compiled_pattern(obj)
        return NotImplemented


def _compiled_pattern(pattern: re.Pattern) -> Any:
    """A compiled regular expression pickled as its compiled program, so loading it does not
    compile it again (re's own pickling does, at the cost of most of a start's parsing). The cache
    file's name has the program format's number (_sre.MAGIC); a program that does not give back the
    same expression here is pickled as re pickles it."""
    try:
        code = [int(op) for op in _compiler._code(_parser.parse(pattern.pattern, pattern.flags), pattern.flags)]
        names = [None] * (pattern.groups + 1)
        for name, index in pattern.groupindex.items():
            names[index] = name
        arguments = (pattern.pattern, pattern.flags, code, pattern.groups, dict(pattern.groupindex), tuple(names))
        if _sre.compile(*arguments) == pattern:
            return _sre.compile, arguments
    except Exception:  # another Python's compiler internals
        pass
    return NotImplemented


def _store(parser, path: str) -> bool:
    """Write the pickle beside its final name and rename it, so no reader sees half a file."""
    temporary = f"{path}.{os.getpid()}.tmp"
    try:
        with open(temporary, "wb") as handle:
            _Pickler(handle, protocol=pickle.HIGHEST_PROTOCOL).dump(parser)
        os.replace(temporary, path)
        return True
    except OSError:  # a full disk or a vanished directory only costs the next start a rebuild
        try:
            os.remove(temporary)
        except OSError:
            pass
        return False


def _remove_stale(path: str) -> None:
    """Remove the parsers other builds of gradcalc pickled for this Python: an upgrade or a
    reinstall with another grammar would otherwise leave one more in the cache each time."""
    directory, current = os.path.split(path)
    # this Python's, whatever the build and the format of compiled expressions (older builds had none)
    ours = re.compile(rf"parser-[0-9a-f]+-{_python_tag()}(-sre\d+)?\.pickle")
    try:
        names = os.listdir(directory)
    except OSError:
        return
    for name in names:
        if ours.fullmatch(name) and name != current:
            try:
                os.remove(os.path.join(directory, name))
            except OSError:  # another process removed it first, or it is not ours to remove
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


def _indent_widths(text: str) -> tuple[int, int]:
    """The indentation's width with tabs to multiples of 8 and, as CPython's tokenizer also
    measures it to find inconsistent tabs, with a tab as one column."""
    width = alternative = 0
    for char in text:
        if char == "\f":
            width = alternative = 0
        else:
            width = (width // 8 + 1) * 8 if char == "\t" else width + 1
            alternative += 1
    return width, alternative


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
        self.recording = True  # whether the tokens are kept, for an error's report
        self.reset()

    def __reduce__(self):
        # a pickled parser gets a fresh post-lexer, whatever this class holds by then
        return _Layout, ()

    def reset(self) -> None:
        self.brackets: list = []  # open bracket tokens, innermost last
        self.indents: list[int] = [0]
        self.alternative_indents: list[int] = [0]  # the same, a tab counted as one column
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
                if self.recording:
                    self.line_heads.append(token)
                line_start = False
            if token.type in _OPENERS:
                if len(self.brackets) >= _MAX_BRACKET_DEPTH:
                    raise _LayoutError("too many nested parentheses", token.line, token.column)
                self.brackets.append(token)
            elif token.type in _CLOSERS:
                self._close(token)
            if self.recording:
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
        width, alternative = _indent_widths(indent_text)
        # the synthetic tokens sit where the next line's code starts
        where = (newline.end_pos, newline.end_line, newline.end_column,
                 newline.end_line, newline.end_column, newline.end_pos)
        if width > self.indents[-1]:
            if alternative <= self.alternative_indents[-1]:
                raise self._tab_error(newline)
            self.indents.append(width)
            self.alternative_indents.append(alternative)
            yield Token("_INDENT", indent_text, *where)
            return
        while width < self.indents[-1]:
            self.indents.pop()
            self.alternative_indents.pop()
            yield Token("_DEDENT", indent_text, *where)
        if width != self.indents[-1]:
            raise _LayoutError("unindent does not match any outer indentation level",
                               newline.end_line, newline.end_column, "IndentationError")
        if alternative != self.alternative_indents[-1]:
            raise self._tab_error(newline)

    @staticmethod
    def _tab_error(newline) -> _LayoutError:
        # where the widths with tabs as 8 and as 1 column disagree, as CPython's tokenizer checks
        return _LayoutError("inconsistent use of tabs and spaces in indentation", newline.end_line,
                            newline.end_column, "TabError")

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
#
# A program is parsed a piece at a time, a piece being a run of whole top-level statements of
# about _PIECE_CHARS characters: Python's grammar treats top-level statements independently, so
# the pieces' statements are the program's, and the trees of only one piece need to be alive at
# once (those of a whole 5 MB source take gigabytes). A syntax error anywhere stops the program
# before it runs, so every piece is parsed first; the statements of the first pieces are kept,
# those of the rest are made again as they are run.

_PIECE_CHARS = 1 << 16
_KEPT_CHARS = 1 << 18  # beyond this much source, a piece's trees are made again when run
# Where a piece may end: a line at column 0 that starts a statement unless it is inside a string
# or brackets, or after a backslash. A wrong guess only makes the piece fail to parse, and it is
# then parsed with more of the source after it; a clause that continues a statement (`else`, ...)
# is never taken, since a piece starting with it would fail for good.
_PIECE_START = re.compile(r"(?<!\\)\n(?![ \t\f\n#)\]}]|(?:else|elif|except|finally)\b)")


class _Piece:
    """A run of whole top-level statements: where it is in the source and which parser took it;
    its statements while they are kept."""

    __slots__ = ("text", "start", "end", "line", "filename", "by_grammar", "kept")

    def __init__(self, text: str, start: int, end: int, line: int, filename: str, by_grammar: bool) -> None:
        self.text, self.start, self.end, self.line, self.filename = text, start, end, line, filename
        self.by_grammar = by_grammar
        self.kept: Optional[list] = None

    def statements(self) -> list:
        if self.kept is not None:
            return self.kept
        with _collector_off():
            if self.by_grammar:
                statements, _ = _by_grammar(self.text, self.start, self.end, self.filename)
            else:
                statements, _ = _by_python(self.text, self.start, self.end, self.line, self.filename)
        return statements


class Parsed:
    """A parsed program: its top-level statements and the warnings Python's tokenizer would give."""

    __slots__ = ("_pieces", "warnings")

    def __init__(self, pieces: list, warnings: list) -> None:
        self._pieces = pieces
        self.warnings = warnings  # (category, message) pairs: invalid escape sequences

    def statements(self) -> Iterator[ast.stmt]:
        """The top-level statements in order, a large program's made as they are reached."""
        for piece in self._pieces:
            yield from piece.statements()

    @property
    def module(self) -> ast.Module:
        """The whole program's tree (for small inputs: a large program's is large)."""
        return ast.Module(body=list(self.statements()), type_ignores=[])


def parse(source: str, filename: str = "<string>") -> Parsed:
    """Parse a whole program; raise GradcalcSyntaxError if it is not valid Python."""
    text = _normalise(source)
    pieces: list = []
    found: list = []
    start, line, kept_chars = 0, 1, 0
    with _collector_off():
        while start < len(text):
            piece, statements, piece_warnings = _next_piece(text, start, line, filename)
            if kept_chars < _KEPT_CHARS:
                piece.kept = statements
                kept_chars += piece.end - piece.start
            pieces.append(piece)
            found += piece_warnings
            line += text.count("\n", piece.start, piece.end)
            start = piece.end
    return Parsed(pieces, found)


@contextmanager
def _collector_off() -> Iterator[None]:
    """Parsing makes many objects and no garbage cycles: collections meanwhile would only walk the
    trees kept so far, and the rest of the heap, again and again (most of a large source's time)."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if collecting:
            gc.enable()


def parse_with_lark(source: str, filename: str = "<string>") -> Parsed:
    """`parse` by gradcalc's own grammar alone, whatever the host Python (the tests compare it with
    CPython's parser)."""
    text = _normalise(source)
    piece = _Piece(text, 0, len(text), 1, filename, by_grammar=True)
    piece.kept, found = _by_grammar(text, 0, len(text), filename)
    return Parsed([piece], found)


def _next_piece(text: str, start: int, line: int, filename: str) -> tuple[_Piece, list, list]:
    """The piece starting at `start` (a statement's start), its statements and warnings; raise the
    program's syntax error if it is there."""
    end = _piece_end(text, start + _PIECE_CHARS)
    while True:
        try:
            statements, found = _by_python(text, start, end, line, filename)
            return _Piece(text, start, end, line, filename, by_grammar=False), statements, found
        except _LeftOut:
            try:
                statements, found = _by_grammar(text, start, end, filename)
                return _Piece(text, start, end, line, filename, by_grammar=True), statements, found
            except GradcalcSyntaxError:
                if end == len(text):
                    raise
                end = len(text)  # the grammar words the error as the whole rest of the source gives it
        except SyntaxError as error:
            if end == len(text):
                # raises the error in the grammar's words (or parses what only CPython refuses)
                statements, found = _by_grammar(text, start, end, filename, (error.lineno, error.offset))
                return _Piece(text, start, end, line, filename, by_grammar=True), statements, found
            end = _piece_end(text, start + 2 * (end - start))  # a wrong guess of the end, or the error


def _piece_end(text: str, position: int) -> int:
    """The first place a piece may end at or after `position`."""
    if position >= len(text):
        return len(text)
    found = _PIECE_START.search(text, position - 1)  # the newline before a piece's first line
    return found.end() if found else len(text)


# CPython 3.11's parser is gradcalc's language's own parser and builds the very tree the grammar
# builds (tests/test_parser.py compares them), at C speed and in linear time and memory, where the
# Lark parser takes a minute and gigabytes for a few megabytes of source. It is used on a 3.11 host
# for pieces without the words that start what gradcalc leaves out (`async`, `await`, a `match`
# statement, a bracketed `with`); everything else, and every syntax error, goes to the grammar,
# which words the errors as gradcalc does.
_HOST_IS_THE_LANGUAGE = sys.version_info[:2] == (3, 11)
# (as two expressions that each start with what the regular expression engine looks for fast: a
# first letter, a newline; as one they took a tenth of a large source's parse)
_LEFT_OUT = re.compile(r"(?=[aw])\b(?:async\b|await\b|with[ \t\f\\\n]*\()")
_MATCH_LINE = re.compile(r"(?:\n|^)[ \t\f]*match\b")
# The statements the grammar leaves out, as CPython builds them: the words above are only a quick
# look for a soft keyword (a form feed before `match` once passed it), the tree decides (a class
# pattern reads attributes by the names it is given, past the guard). An `await` expression needs
# no look at the tree: `async` and `await` are hard keywords, tokens only where the words stand.
_LEFT_OUT_STATEMENTS = (ast.Match, ast.AsyncFunctionDef, ast.AsyncFor, ast.AsyncWith)
_BLOCKS = ("body", "orelse", "finalbody", "handlers")


class _LeftOut(Exception):
    """The piece may hold what the language leaves out: the grammar decides."""


def _by_python(text: str, start: int, end: int, line: int, filename: str) -> tuple[list, list]:
    """The statements and escape warnings of text[start:end] as CPython's parser builds them, the
    piece starting on line `line`; raise _LeftOut where the grammar must decide, or SyntaxError."""
    piece = text[start:end]
    if not _HOST_IS_THE_LANGUAGE or _LEFT_OUT.search(piece) or _MATCH_LINE.search(piece):
        raise _LeftOut
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            # the blank lines put the piece's lines at their numbers in the program
            module = ast.parse("\n" * (line - 1) + piece, filename)
        except (ValueError, RecursionError, MemoryError) as error:  # the grammar says why
            raise SyntaxError(str(error)) from None
    if _holds_left_out(module.body):
        raise _LeftOut
    # the escape sequences' warnings, as the grammar's builder gives them (not the tokenizer's others)
    found = [(w.category.__name__, str(w.message)) for w in caught if w.category is DeprecationWarning]
    return module.body, found


def _holds_left_out(statements: list) -> bool:
    """Whether a left-out statement is among `statements` or in their blocks (statements are
    never inside expressions: the blocks are all there is to look at)."""
    stack = list(statements)
    while stack:
        node = stack.pop()
        if isinstance(node, _LEFT_OUT_STATEMENTS):
            return True
        for block in _BLOCKS:
            stack += getattr(node, block, ())
    return False


def _by_grammar(text: str, start: int, end: int, filename: str,
                host_error: Optional[tuple] = None) -> tuple[list, list]:
    """The statements and escape warnings of text[start:end] by the grammar, its lines numbered in
    the whole text; raise GradcalcSyntaxError if it does not parse. `host_error`: the (line,
    column) of CPython's syntax error for the same text, if it gave one."""
    _get_lark()  # loaded first: loading freezes what it makes, when the collector runs
    with _collector_off():
        builder = Builder(text, filename, lambda field: _parse_field(field, text, filename, builder))
        tree = _parse_tree(text, _START_FILE, filename, start, end, host_error)
        module = builder.transform(tree, _runtime_module().Tree)
    return module.body, builder.warnings


def _parse_field(field_text: str, text: str, filename: str, builder: Builder) -> Any:
    """One f-string field's "(expression)", built with the program's builder (and its warnings)."""
    inner = Builder(field_text, filename, builder.parse_field)
    inner.warnings = builder.warnings
    return inner.transform(_parse_tree(field_text, _START_FIELD, filename), _runtime_module().Tree)


_COMPOUND = (ast.If, ast.While, ast.For, ast.Try, ast.With, ast.FunctionDef, ast.ClassDef)


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
        body = parse(source).module.body
    except GradcalcSyntaxError as error:
        if error.input_ended == "open":
            return False
        if error.input_ended == "eof":
            return last_line_blank
        return True
    if body and isinstance(body[-1], _COMPOUND):
        return last_line_blank
    return True


def _normalise(source: str) -> str:
    text = source.removeprefix("\ufeff").replace("\r\n", "\n").replace("\r", "\n")
    # Python's tokenizer ends the last line itself; the grammar wants the newline
    return text if text.endswith("\n") else text + "\n"


def _parse_tree(text: str, start: str, filename: str, begin: int = 0, end: Optional[int] = None,
                host_error: Optional[tuple] = None) -> Any:
    """Lark's tree of text[begin:end] (whole lines), its positions those in the whole text.
    `host_error`: where CPython's parser, which looks through the rest for a tokenizer error as
    Python does, put its error; where it is the grammar's, the rest needs no look from Lark's
    lexer (in Python: seconds for megabytes)."""
    parser = _get_lark()
    runtime = _runtime_module()
    try:
        return parser.parse(runtime.TextSlice(text, begin, end), start=start)
    except _LayoutError as error:
        raise make_error(text, filename, error.message, error.line, error.column,
                         type_name=error.type_name) from None
    except runtime.UnexpectedCharacters as error:
        raise lexer_error(text, filename, error.pos_in_stream, error.line, error.column) from None
    except runtime.UnexpectedToken as error:
        found = parser_error(text, filename, error, _layout(), _terminal_text)
        if host_error == (found.line, found.column):
            raise found from None
        raise _check_rest(text, filename, found, begin, end) from None


def _terminal_text(name: str) -> Optional[str]:
    """The literal text of a keyword or punctuation terminal, None for the others."""
    try:
        pattern = _get_lark().get_terminal(name).pattern
    except KeyError:
        return None
    return pattern.value if pattern.type == "str" else None


def _check_rest(text: str, filename: str, found: GradcalcSyntaxError, begin: int,
                end: Optional[int]) -> GradcalcSyntaxError:
    """Tokenize the whole source (text[begin:end], from a statement's start), as Python does after
    a parser error.

    A tokenizer error anywhere (a bad bracket, an unterminated string) takes
    precedence, and so does a bracket still open at the end of the input when
    it was opened on a line before the error.
    """
    if found.input_ended == "open":
        return found
    parser = _get_lark()
    layout = _layout()
    layout.recording = False  # the rest's tokens are only looked through: a large source's would fill memory
    try:
        for _ in parser.lex(_runtime_module().TextSlice(text, begin, end)):
            pass
    except _LayoutError as error:
        return make_error(text, filename, error.message, error.line, error.column, type_name=error.type_name)
    except _runtime_module().UnexpectedCharacters as error:
        return lexer_error(text, filename, error.pos_in_stream, error.line, error.column)
    finally:
        layout.recording = True
    brackets = _layout().brackets
    if brackets and brackets[-1].line < found.line:
        return never_closed(text, filename, brackets[-1])
    return found
