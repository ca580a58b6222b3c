"""The REPL's loop and editing: prompt_toolkit's prompt, Python's editing habits, and a session
made in the background so that the first prompt shows at once."""
from __future__ import annotations

import re
import sys
import threading
from typing import Any, Callable, Optional

from prompt_toolkit import PromptSession
from prompt_toolkit.application import get_app
from prompt_toolkit.auto_suggest import AutoSuggestFromHistory
from prompt_toolkit.filters import Condition, is_searching
from prompt_toolkit.history import History
from prompt_toolkit.input import Input
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.layout.processors import HighlightMatchingBracketProcessor
from prompt_toolkit.lexers import DynamicLexer, Lexer
from prompt_toolkit.output import ColorDepth, Output as TerminalOutput
from prompt_toolkit.styles import Style

from .commands import run_command
from ..display.completion import split_comment
from .completion import SessionCompleter
from .early import BANNER, EarlyPrompt
from .transcript import InputLog, strip_prompts

INDENT = 4
_DEDENT_AFTER = re.compile(r"\s*(?:return|pass|break|continue|raise)\b")
_LEAVE = ("exit", "quit", "exit()", "quit()")

_STYLE = Style.from_dict({
    "prompt": "bold",
    "pygments.keyword": "ansimagenta",
    "pygments.keyword.constant": "ansiyellow",
    "pygments.name.builtin": "ansicyan",
    "pygments.name.function": "ansiblue",
    "pygments.literal.number": "ansicyan",
    "pygments.literal.string": "ansigreen",
    "pygments.comment": "ansibrightblack italic",
    # attributes rather than colours, so that they show with NO_COLOR too
    "matching-bracket.cursor": "reverse",
    "matching-bracket.other": "reverse",
    "auto-suggestion": "dim",
})


# ------------------------------------------------------------------ loading

class Loader:
    """What the first input needs and the first prompt does not: the session (numpy and gradcalc's
    modules), its output (Rich, on a terminal), the parser and the highlighter. They are made in a
    background thread started once the prompt is on the screen, while the user types; whatever
    needs them first waits for them."""

    def __init__(self, make_output: Callable[[], Any], color: bool, loaded: Callable[[], None] = lambda: None) -> None:
        self._make_output = make_output
        self._color = color
        self._loaded = loaded  # told once everything is made (the command line turns the collector on)
        self._thread: Optional[threading.Thread] = None
        self._lock = threading.Lock()
        self._failure: Optional[BaseException] = None
        self.output: Any = None
        self.session: Any = None
        self.lexer: Optional[Lexer] = None

    def start(self, when_done: Callable[[], None]) -> None:
        with self._lock:
            if self._thread is None:
                self._thread = threading.Thread(target=self._load, args=(when_done,), name="gradcalc-loader",
                                                daemon=True)
                self._thread.start()

    def wait(self) -> None:
        """Return once everything is made (made here and now if the thread never started)."""
        self.start(lambda: None)
        assert self._thread is not None
        self._thread.join()
        if self._failure is not None:
            raise self._failure

    def _load(self, when_done: Callable[[], None]) -> None:
        try:
            from ..language.parser import is_complete
            from ..session import Session

            self.output = self._make_output()
            self.session = Session(self.output)
            is_complete("x = 1\n")  # builds the parser
            if self._color:
                from prompt_toolkit.lexers import PygmentsLexer
                from pygments.lexers.python import PythonLexer

                self.lexer = PygmentsLexer(PythonLexer)  # the first instance compiles the lexer's rules
            self._loaded()
            when_done()
        except BaseException as error:  # shown by the first input that waits for it
            self._failure = error


# ------------------------------------------------------------------ editing keys

def indent_for_next_line(line: str) -> str:
    """Python's indentation habits: deeper after a `:`, shallower after a `return`."""
    indent = len(line) - len(line.lstrip(" "))
    code = split_comment(line)[0].rstrip()
    if code.endswith(":"):
        indent += INDENT
    elif _DEDENT_AFTER.match(code):
        indent = max(indent - INDENT, 0)
    return " " * indent


def input_is_complete(text: str, wait_for_parser: Callable[[], None]) -> bool:
    """Whether Enter runs `text` (a command, or code that is whole) or starts a new line."""
    if text.strip().startswith(":") and "\n" not in text.strip():
        return True
    wait_for_parser()
    from ..language.parser import is_complete

    return is_complete(strip_prompts(text))


def _key_bindings(wait_for_parser: Callable[[], None]) -> KeyBindings:
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
        if input_is_complete(buffer.text, wait_for_parser):
            # a block's closing line is blank: keep it blank, without the auto-indent
            buffer.text = buffer.text.rstrip(" \t")
            buffer.validate_and_handle()
        else:
            line = buffer.document.current_line_before_cursor
            buffer.insert_text("\n" + indent_for_next_line(line))

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


# ------------------------------------------------------------------ the loop

class Repl:
    """Reads inputs, runs them in one Session, and keeps going whatever happens in them."""

    def __init__(self, loader: Loader, color: bool, history: History, terminal_input: Optional[Input] = None,
                 terminal_output: Optional[TerminalOutput] = None, banner_stream: Any = None) -> None:
        self.loader = loader
        self.banner_stream = banner_stream
        self.color = color
        self.inputs = InputLog()
        self._session: Any = None
        self.prompt: PromptSession = PromptSession(
            [("class:prompt", ">>> ")],
            prompt_continuation=_continuation,
            multiline=True,
            key_bindings=_key_bindings(loader.wait),
            history=history,
            auto_suggest=AutoSuggestFromHistory(),
            completer=SessionCompleter(lambda: self.session),
            complete_while_typing=False,
            lexer=DynamicLexer(lambda: loader.lexer),
            input_processors=[HighlightMatchingBracketProcessor()],
            style=_STYLE,
            include_default_pygments_style=False,
            color_depth=None if color else ColorDepth.DEPTH_1_BIT,
            search_ignore_case=True,
            input=terminal_input,
            output=terminal_output,
        )

    # -------------------------------------------------------------- what the commands use

    @property
    def output(self) -> Any:
        self.loader.wait()
        return self.loader.output

    @property
    def session(self) -> Any:
        if self._session is None:
            self.loader.wait()
            self._session = self.loader.session
            self._session.describe_error = self._describe_error
        return self._session

    def width(self) -> int:
        return self.prompt.app.output.get_size().columns

    def reset(self) -> None:
        """A fresh session, as if gradcalc had just started."""
        from ..session import Session, reset_global_state

        reset_global_state()
        self._session = Session(self.output)
        self._session.describe_error = self._describe_error
        self.inputs = InputLog()

    def _describe_error(self, error: BaseException) -> str:
        from .hints import describe

        return describe(self._session, error)

    # -------------------------------------------------------------- the loop

    def run(self, early: Optional[EarlyPrompt] = None) -> None:
        """The loop; `early` is the banner and prompt already on the screen, if they are."""
        if early is not None:
            early.hand_over()
        else:
            # on stderr, as Python's banner: stdout holds only what programs print
            stream = self.banner_stream or sys.stderr
            stream.write(BANNER + "\n")
            stream.flush()
        # the session is made while the user types the first input
        self.prompt.app.after_render += self._start_loading
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

    def _start_loading(self, app: Any) -> None:
        self.loader.start(lambda: app.invalidate() if app.is_running else None)

    def execute(self, text: str) -> bool:
        """Run one input; False when it asks to leave."""
        command = text.strip()
        if not command:
            return True
        try:
            if command.startswith(":") and "\n" not in command:
                run_command(self, command)
                return True
            session = self.session
            if command in _LEAVE and command.rstrip("()") not in session.namespace:
                return False
            if command in ("help", "help()") and "help" not in session.namespace:
                run_command(self, ":help")
                return True
            source = strip_prompts(text)
            try:
                ok = session.run(source, "<stdin>")
            except KeyboardInterrupt:
                self.inputs.add(source, False, session.statements_done)
                raise
            self.inputs.add(source, ok, session.statements_done)
        except KeyboardInterrupt:
            self.output.error("KeyboardInterrupt")
        except Exception as error:  # a fault of gradcalc's own: one line, and the session goes on
            from ..session import format_error

            self.output.error(format_error(error))
        self.output.stdout.flush()
        return self.session.exit_status is None  # sys.exit() leaves, as in Python's REPL


def run_repl(color: Optional[bool], history_file: Optional[str] = None, early: Optional[EarlyPrompt] = None,
             loaded: Callable[[], None] = lambda: None) -> None:
    """The REPL on this terminal; returns when the user leaves (Ctrl-D, exit). `early`: see early.py;
    `loaded` is called once the session is made."""
    from prompt_toolkit.output import create_output

    from ..display.color import use_color
    from .history import open_history

    colour = use_color(color)

    def make_output() -> Any:
        from ..display.console import make_output as output_for

        return output_for(colour)

    # prompts go to the terminal even when stdout is redirected, as Python's REPL does
    Repl(Loader(make_output, colour, loaded), colour, open_history(history_file),
         terminal_output=create_output(always_prefer_tty=True)).run(early)
