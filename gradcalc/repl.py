"""The interactive REPL: `gradcalc` on a terminal.

prompt_toolkit is imported here and nowhere else, so scripts and `-e` never load it.
"""
from __future__ import annotations

import os
import re
import warnings as python_warnings
from pathlib import Path
from typing import Iterator, Optional

from prompt_toolkit import PromptSession
from prompt_toolkit.application import get_app
from prompt_toolkit.completion import CompleteEvent, Completer, Completion
from prompt_toolkit.document import Document
from prompt_toolkit.filters import Condition, is_searching
from prompt_toolkit.history import FileHistory, History, InMemoryHistory
from prompt_toolkit.input import Input
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.lexers import PygmentsLexer
from prompt_toolkit.output import ColorDepth, Output as TerminalOutput, create_output
from prompt_toolkit.styles import Style
from pygments.lexers.python import PythonLexer

from . import __version__
from .display.console import make_output, use_color
from .language import guard, limits
from .language.parser import is_complete
from .session import Session, TextOutput, format_error

BANNER = f'gradcalc {__version__} (PyTorch 2.13 semantics). Type "help" for help, Ctrl-D to leave.'

HELP = """\
gradcalc runs PyTorch snippets and prints what PyTorch 2.13 prints. torch, nn, F,
tensor, ones, zeros, no_grad, ... are already in scope. For example:
    x = tensor(3.0, requires_grad=True); y = x**2 + 3*x; y.backward(); x.grad
Enter runs the input; a block (for, if, with, def) ends with an empty line.
Tab completes names and attributes     Esc Enter  runs the input as it stands
Up/Down and Ctrl-R search the history  Ctrl-C     drops the input or stops a program
Ctrl-D or exit leaves
"""

INDENT = 4

# The language's keywords (SPEC §4), offered with the names in scope.
KEYWORDS = (
    "False", "None", "True", "and", "as", "assert", "break", "continue", "def", "del", "elif", "else", "for",
    "from", "global", "if", "import", "in", "is", "lambda", "nonlocal", "not", "or", "pass", "raise", "return",
    "while", "with",
)

# A dotted chain of names ending at the cursor: "x.grad_fn.na" -> ("x.grad_fn.", "na").
_DOTTED = re.compile(r"(?<![\w.])((?:[^\W\d]\w*\.)*)([^\W\d]\w*)?$")
_DEDENT_AFTER = re.compile(r"\s*(?:return|pass|break|continue|raise)\b")

_STYLE = Style.from_dict({
    "prompt": "bold",
    "pygments.keyword": "ansimagenta",
    "pygments.keyword.constant": "ansiyellow",
    "pygments.name.builtin": "ansicyan",
    "pygments.name.function": "ansiblue",
    "pygments.literal.number": "ansicyan",
    "pygments.literal.string": "ansigreen",
    "pygments.comment": "ansibrightblack italic",
})


# ------------------------------------------------------------------ completion

def complete(session: Session, text: str) -> list[str]:
    """The names that can end `text`: a name in scope, a keyword, or an attribute after a dot.

    Only a chain of names is evaluated (through the sandbox, so a program's rules hold):
    nothing is called, and private or dunder names are never offered.
    """
    match = _DOTTED.search(text)
    if match is None or _in_string_or_comment(text):
        return []
    chain, prefix = match.group(1), match.group(2) or ""
    if chain:
        # reading a property such as a non-leaf's .grad may warn: not while typing; and a
        # program's property or __dir__ may run: behind the sandbox's wall, as when it runs
        with python_warnings.catch_warnings(), limits.wall_up():
            python_warnings.simplefilter("ignore")
            names = _attributes(session, chain[:-1].split("."))
    else:
        scope = set(session.namespace) | set(session.builtins) | set(KEYWORDS)
        names = [name for name in scope if not name.startswith(("_", "$"))]
    return sorted(name for name in names if name.startswith(prefix))


def _attributes(session: Session, chain: list[str]) -> list[str]:
    first, rest = chain[0], chain[1:]
    scope = session.namespace if first in session.namespace else session.builtins
    if first not in scope:
        return []
    try:
        value = scope[first]
        for name in rest:
            value = guard.guarded_getattr(value, name)
        candidates = [name for name in dir(value) if not name.startswith("_")]
    except Exception:  # a property that fails, an attribute that isn't there: nothing to offer
        return []
    return [name for name in candidates if guard.readable_name(value, name)]


def _split_comment(line: str) -> tuple[str, str, bool]:
    """(code, comment, whether the code ends inside a string) for one line of source."""
    quote = ""
    escaped = False
    for index, char in enumerate(line):
        if quote:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == quote:
                quote = ""
        elif char in "'\"":
            quote = char
        elif char == "#":
            return line[:index], line[index:], False
    return line, "", bool(quote)


def _in_string_or_comment(line: str) -> bool:
    """Whether the end of `line` is inside a quoted string or a comment (one line is enough here)."""
    _, comment, in_string = _split_comment(line)
    return bool(comment) or in_string


class _Completer(Completer):
    def __init__(self, session: Session) -> None:
        self.session = session

    def get_completions(self, document: Document, complete_event: CompleteEvent) -> Iterator[Completion]:
        before = document.current_line_before_cursor
        word = re.search(r"\w*$", before).group()
        for name in complete(self.session, before):
            yield Completion(name, start_position=-len(word))


# ------------------------------------------------------------------ editing keys

def _indent_for_next_line(line: str) -> str:
    """Python's indentation habits: deeper after a `:`, shallower after a `return`."""
    indent = len(line) - len(line.lstrip(" "))
    code = _split_comment(line)[0].rstrip()
    if code.endswith(":"):
        indent += INDENT
    elif _DEDENT_AFTER.match(code):
        indent = max(indent - INDENT, 0)
    return " " * indent


def _key_bindings() -> KeyBindings:
    bindings = KeyBindings()

    def before_cursor() -> str:
        return get_app().current_buffer.document.current_line_before_cursor

    # Search (Ctrl-R) has its own Enter; these keys are for editing the input only.
    editing = ~is_searching
    at_line_start = editing & Condition(lambda: not before_cursor().strip(" "))
    in_indentation = at_line_start & Condition(lambda: before_cursor() != "")

    @bindings.add("enter", filter=editing)
    def _enter(event: KeyPressEvent) -> None:
        buffer = event.current_buffer
        if buffer.complete_state is not None:
            chosen = buffer.complete_state.current_completion
            buffer.complete_state = None  # keep what the menu inserted
            if chosen is not None:
                return
        if is_complete(buffer.text):
            # a block's closing line is blank: keep it blank, without the auto-indent
            buffer.text = buffer.text.rstrip(" \t")
            buffer.validate_and_handle()
        else:
            line = buffer.document.current_line_before_cursor
            buffer.insert_text("\n" + _indent_for_next_line(line))

    @bindings.add("escape", "enter")
    def _run_as_is(event: KeyPressEvent) -> None:
        event.current_buffer.validate_and_handle()

    @bindings.add("tab", filter=at_line_start)
    def _indent(event: KeyPressEvent) -> None:
        column = event.current_buffer.document.cursor_position_col
        event.current_buffer.insert_text(" " * (INDENT - column % INDENT))

    @bindings.add("backspace", filter=in_indentation)
    def _dedent(event: KeyPressEvent) -> None:
        column = event.current_buffer.document.cursor_position_col
        event.current_buffer.delete_before_cursor((column - 1) % INDENT + 1)

    return bindings


def _continuation(width: int, line_number: int, wrap_count: int) -> list[tuple[str, str]]:
    return [("class:prompt", "... " if not wrap_count else "")]


# ------------------------------------------------------------------ history

def history_path() -> Path:
    """$XDG_DATA_HOME/gradcalc/history, or ~/.local/share/gradcalc/history."""
    base = os.environ.get("XDG_DATA_HOME", "")
    root = Path(base) if os.path.isabs(base) else Path.home() / ".local" / "share"
    return root / "gradcalc" / "history"


class _History(FileHistory):
    """A history file that never stops the REPL: unreadable or unwritable, it lives in memory."""

    def load_history_strings(self) -> Iterator[str]:
        try:
            yield from list(super().load_history_strings())
        except OSError:
            return

    def store_string(self, string: str) -> None:
        try:
            super().store_string(string)
        except OSError:
            pass


def _history() -> History:
    try:
        path = history_path()
        path.parent.mkdir(parents=True, exist_ok=True)
    except (OSError, RuntimeError):  # RuntimeError: no home directory to be found
        return InMemoryHistory()
    return _History(str(path))


# ------------------------------------------------------------------ the loop

class Repl:
    """Reads inputs, runs them in one Session, and keeps going whatever happens in them."""

    def __init__(self, output: TextOutput, color: bool, history: History,
                 terminal_input: Optional[Input] = None, terminal_output: Optional[TerminalOutput] = None) -> None:
        self.output = output
        self.session = Session(output)
        self.prompt = PromptSession(
            [("class:prompt", ">>> ")],
            prompt_continuation=_continuation,
            multiline=True,
            key_bindings=_key_bindings(),
            history=history,
            completer=_Completer(self.session),
            complete_while_typing=False,
            lexer=PygmentsLexer(PythonLexer) if color else None,
            style=_STYLE,
            include_default_pygments_style=False,
            color_depth=None if color else ColorDepth.DEPTH_1_BIT,
            search_ignore_case=True,
            input=terminal_input,
            output=terminal_output,
        )

    def run(self) -> None:
        # on stderr, as Python's banner: stdout holds only what programs print
        self.output.stderr.write(BANNER + "\n")
        while True:
            try:
                text = self.prompt.prompt()
                if not self.execute(text):
                    return
            except KeyboardInterrupt:
                # Ctrl-C at the prompt drops the input (a program's interrupt is shown by execute)
                continue
            except EOFError:
                return

    def execute(self, text: str) -> bool:
        """Run one input; False when it asks to leave."""
        command = text.strip()
        if not command:
            return True
        if command in ("exit", "quit", "exit()", "quit()") and command.rstrip("()") not in self.session.namespace:
            return False
        if command in ("help", "help()") and "help" not in self.session.namespace:
            self.output.stdout.write(HELP)
            return True
        try:
            self.session.run(text, "<stdin>")
        except KeyboardInterrupt:
            self.output.error("KeyboardInterrupt")
        except Exception as error:  # a fault of gradcalc's own: one line, and the session goes on
            self.output.error(format_error(error))
        self.output.stdout.flush()
        return self.session.exit_status is None  # sys.exit() leaves, as in Python's REPL


def run_repl(color: Optional[bool]) -> None:
    """The REPL on this terminal; returns when the user leaves (Ctrl-D, exit)."""
    colour = use_color(color)
    # prompts go to the terminal even when stdout is redirected, as Python's REPL does
    Repl(make_output(colour), colour, _history(), terminal_output=create_output(always_prefer_tty=True)).run()
