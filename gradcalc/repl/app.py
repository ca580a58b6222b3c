"""The REPL's loop and editing: prompt_toolkit's prompt, Python's editing habits, and a worker
(gradcalc.worker) started in the background so that the first prompt shows at once."""
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
    """What the first input needs and the first prompt does not: the worker that runs programs (a
    process of its own, which loads numpy and gradcalc and jails itself), the output for the REPL's
    own messages (Rich, on a terminal), the parser (for Enter's "is the input whole?") and the
    highlighter. They are made in a background thread started once the prompt is on the screen,
    while the user types; whatever needs them first waits for them."""

    def __init__(self, make_output: Callable[[], Any], color: bool, loaded: Callable[[], None] = lambda: None,
                 make_worker: Optional[Callable[[], Any]] = None) -> None:
        self._make_output = make_output
        self._color = color
        self._loaded = loaded  # told once everything is made (the command line turns the collector on)
        # default: a worker whose output comes back as text, written on this REPL's output
        self._make_worker = make_worker or self._capturing_worker
        self._thread: Optional[threading.Thread] = None
        self._lock = threading.Lock()
        self._failure: Optional[BaseException] = None
        self._inputs_ready = threading.Event()  # set once the worker, the output and the parser are made
        self.output: Any = None
        self.worker: Any = None
        self.lexer: Optional[Lexer] = None

    def _capturing_worker(self) -> Any:
        from ..worker.client import Worker

        return Worker(color=self._color, hints=True, capture=True)

    def start(self, when_done: Callable[[], None]) -> None:
        with self._lock:
            if self._thread is None:
                self._thread = threading.Thread(target=self._load, args=(when_done,), name="gradcalc-loader",
                                                daemon=True)
                self._thread.start()

    def wait(self) -> None:
        """Return once what an input needs is made (made here and now if the thread never
        started): the highlighter may still be on its way."""
        self.start(lambda: None)
        self._inputs_ready.wait()
        if self._failure is not None:
            raise self._failure

    def _load(self, when_done: Callable[[], None]) -> None:
        try:
            self.worker = self._make_worker()
            self.worker.launch()  # first: it loads the most, in its own process, while this one loads the rest
            from ..language.parser import is_complete
            from ..worker.client import WorkerDied

            self.output = self._make_output()
            is_complete("x = 1\n")  # loads the parser
            try:
                self.worker.start()
            except WorkerDied:  # (it said why on stderr) the first input says so and starts another
                pass
            self._loaded()
        except BaseException as error:  # shown by the first input that waits for it
            self._failure = error
            return
        finally:
            self._inputs_ready.set()
        if self._color:  # last: a first input typed at once needs no colours to be run
            from prompt_toolkit.lexers import PygmentsLexer
            from pygments.lexers.python import PythonLexer

            self.lexer = PygmentsLexer(PythonLexer)  # the first instance compiles the lexer's rules
        when_done()


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
        try:
            complete = input_is_complete(buffer.text, wait_for_parser)
        except Exception:  # the session failed to load: Enter hands the input on, and its run says why
            complete = True
        if complete:
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
    """Reads inputs and hands them to the worker, and keeps going whatever happens to them: an
    error, Ctrl-C (passed on to the worker) or a worker that dies (replaced by a fresh one). It
    never runs program code itself."""

    def __init__(self, loader: Loader, color: bool, history: History, terminal_input: Optional[Input] = None,
                 terminal_output: Optional[TerminalOutput] = None, banner_stream: Any = None) -> None:
        self.loader = loader
        self.banner_stream = banner_stream
        self.color = color
        self.inputs = InputLog()
        self.exit_status: Optional[int] = None  # sys.exit()'s status, once a program called it
        self.prompt: PromptSession = PromptSession(
            [("class:prompt", ">>> ")],
            prompt_continuation=_continuation,
            multiline=True,
            key_bindings=_key_bindings(loader.wait),
            history=history,
            auto_suggest=AutoSuggestFromHistory(),
            completer=SessionCompleter(self._candidates),
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
        try:
            self.loader.wait()
        except Exception:  # what failed to load after the output is said on it
            if self.loader.output is None:
                raise
        return self.loader.output

    @property
    def worker(self) -> Any:
        self.loader.wait()
        return self.loader.worker

    def width(self) -> int:
        return self.prompt.app.output.get_size().columns

    def reset(self) -> None:
        """A fresh session, as if gradcalc had just started."""
        self.worker.reset()
        self.inputs = InputLog()

    def _candidates(self, text: str) -> list[str]:
        from ..worker.client import WorkerDied

        try:
            return self.worker.complete(text)
        except WorkerDied:  # said, and replaced, at the next input
            return []

    # -------------------------------------------------------------- the loop

    def run(self, early: Optional[EarlyPrompt] = None) -> int:
        """The loop; `early` is the banner and prompt already on the screen, if they are. The exit
        status: sys.exit()'s, as Python's REPL leaves with it, else 0."""
        if early is not None:
            early.hand_over()
        else:
            # on stderr, as Python's banner: stdout holds only what programs print
            stream = self.banner_stream or sys.stderr
            stream.write(BANNER + "\n")
            stream.flush()
        # the worker starts while the user types the first input
        self.prompt.app.after_render += self._start_loading
        try:
            while True:
                try:
                    text = self.prompt.prompt()
                    if not self.execute(text):
                        break
                except KeyboardInterrupt:
                    # Ctrl-C at the prompt drops the input (a program's interrupt is shown by execute)
                    continue
                except EOFError:
                    break
        finally:
            if self.loader.worker is not None:
                self.loader.worker.close()
        return self.exit_status or 0

    def _start_loading(self, app: Any) -> None:
        self.loader.start(lambda: app.invalidate() if app.is_running else None)

    def execute(self, text: str) -> bool:
        """Run one input; False when it asks to leave."""
        from ..worker.client import WorkerDied

        command = text.strip()
        if not command:
            return True
        leave = False
        try:
            self._replace_a_dead_worker()
            if command.startswith(":") and "\n" not in command:
                run_command(self, command)
            elif command in _LEAVE and command.rstrip("()") not in self._names():
                return False
            elif command in ("help", "help()") and "help" not in self._names():
                run_command(self, ":help")
            else:
                leave = self._run(strip_prompts(text))
        except KeyboardInterrupt:  # before the worker was ready, or in a command (:vars) once its reply came
            self.output.error("KeyboardInterrupt")
        except WorkerDied as death:
            self._report(str(death))
        except Exception as error:  # a fault of gradcalc's own: one line, and the REPL goes on
            self.output.error(f"gradcalc: internal error: {type(error).__name__}: {error}")
        self.output.stdout.flush()
        return not leave  # sys.exit() leaves, as in Python's REPL

    def _run(self, source: str) -> bool:
        """Run source in the worker; whether it called sys.exit()."""
        self.output.stdout.flush()
        reply = self.worker.run(source)
        if "stdout" in reply:  # captured: written here
            self.output.stdout.write(reply["stdout"])
            self.output.stdout.flush()
            self.output.stderr.write(reply["stderr"])
        self.inputs.add(source, reply["status"] == "ok", reply["statements_done"])
        if reply["status"] == "exit":
            self.exit_status = reply["exit_code"]
        return reply["status"] == "exit"

    def _names(self) -> list:
        return self.worker.inspect("names")["names"]

    def _replace_a_dead_worker(self) -> None:
        """A worker that died between inputs (killed from outside) is said and replaced first, so
        that the input runs in the fresh one."""
        ended = self.worker.ended()
        if ended is not None:
            self._report(ended)

    def _report(self, how: str) -> None:
        from ..worker.client import WorkerDied

        # the inputs stay: `:save` can still write what the lost session ran
        self.output.error(f"gradcalc: the worker {how}; a fresh session starts (variables are lost)")
        try:
            self.worker.restart()
        except WorkerDied as failure:  # the next input tries again
            self.output.error(f"gradcalc: a fresh worker did not start: it {failure}")


def run_repl(color: Optional[bool], history_file: Optional[str] = None, early: Optional[EarlyPrompt] = None,
             loaded: Callable[[], None] = lambda: None, worker: Any = None) -> int:
    """The REPL on this terminal; returns its exit status when the user leaves (Ctrl-D, exit,
    sys.exit()). `early`: see early.py; `loaded` is called once the worker is ready; `worker`: the
    worker.client.Worker that runs the inputs, launched already (default: one whose output is
    captured and written here)."""
    from prompt_toolkit.output import create_output

    from ..display.color import use_color
    from .history import open_history

    colour = use_color(color)

    def make_output() -> Any:
        from ..display.console import make_output as output_for

        return output_for(colour)

    # prompts go to the terminal even when stdout is redirected, as Python's REPL does
    return Repl(Loader(make_output, colour, loaded, None if worker is None else lambda: worker), colour,
                open_history(history_file), terminal_output=create_output(always_prefer_tty=True)).run(early)
