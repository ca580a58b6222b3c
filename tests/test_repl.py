"""The REPL: completion, editing keys, the loop driven by prompt_toolkit's pipe input, and a real terminal."""
from __future__ import annotations

import io
import os
import re
import select
import signal
import sys
import time
from pathlib import Path

import pytest
from prompt_toolkit.completion import CompleteEvent
from prompt_toolkit.document import Document
from prompt_toolkit.history import InMemoryHistory
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from gradcalc.repl import Repl, _Completer, _History, _history, _indent_for_next_line, complete, history_path
from gradcalc.session import Session, TextOutput

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture
def session() -> Session:
    stderr = io.StringIO()
    session = Session(TextOutput(io.StringIO(), stderr))
    assert session.run("x = tensor([1., 2.], requires_grad=True); y = x * 2; w = nn.Linear(2, 1)")
    return session


# ------------------------------------------------------------------ completion

def test_attribute_completion(session: Session) -> None:
    assert complete(session, "x.requ") == ["requires_grad", "requires_grad_"]
    everything = complete(session, "x.")
    assert {"backward", "grad", "detach", "retain_grad", "shape"} <= set(everything)
    assert not [name for name in everything if name.startswith("_")]
    assert "__class__" not in complete(session, "x.__") and "_data" not in complete(session, "x._")
    assert complete(session, "torch.nn.functional.mse") == ["mse_loss"]
    assert "weight" in complete(session, "w.") and "next_functions" in complete(session, "y.grad_fn.")
    assert complete(session, "print(x.grad_fn.is_") == []  # x is a leaf: its grad_fn is None, nothing to offer


def test_name_completion(session: Session) -> None:
    assert complete(session, "tens") == ["tensor"]
    assert complete(session, "x = wh") == ["while"]
    assert "print" in complete(session, "pr") and "__name__" not in complete(session, "__")
    assert complete(session, "f(y") == ["y"]


def test_completion_never_calls_or_warns(session: Session) -> None:
    assert complete(session, "x.detach().") == []
    assert complete(session, "print('x.re") == [] and complete(session, "1 # x.re") == []
    assert complete(session, "len.") == [] and complete(session, "nothing.") == []
    assert complete(session, "y.grad.") == []  # a non-leaf's .grad warns in a program, never while typing
    assert session.output.stderr.getvalue() == ""


def test_completer_replaces_the_word(session: Session) -> None:
    event = CompleteEvent(completion_requested=True)
    completions = list(_Completer(session).get_completions(Document("z = x.requ"), event))
    assert [(c.text, c.start_position) for c in completions] == [("requires_grad", -4), ("requires_grad_", -4)]


# ------------------------------------------------------------------ editing

@pytest.mark.parametrize("line, indent", [
    ("for i in range(3):", 4), ("    if x:  # comment", 8), ("    y = 1", 4), ("        return y", 4),
    ("    pass", 0), ("s = '#:'", 0), ("x = {", 0),
])
def test_auto_indent(line: str, indent: int) -> None:
    assert _indent_for_next_line(line) == " " * indent


# ------------------------------------------------------------------ the loop, through a pipe

def drive(keys: str) -> tuple[str, str]:
    stdout, stderr = io.StringIO(), io.StringIO()
    with create_pipe_input() as pipe:
        pipe.send_text(keys)
        Repl(TextOutput(stdout, stderr), False, InMemoryHistory(), pipe, DummyOutput()).run()
    return stdout.getvalue(), stderr.getvalue()


def test_blocks_errors_and_leaving() -> None:
    out, err = drive(
        "x = tensor(2.0, requires_grad=True)\r"
        "for i in range(2):\rx * i\r\r"  # the body is indented for us; an empty line ends the block
        "with no_grad():\rif True:\rx * 3\r\r"
        "def f(a):\rreturn a + 1\r\r"
        "undefined_name\r"
        "\x03"  # Ctrl-C drops an (empty) input
        "f(x)\r"
        "exit\r"
        "x\r"  # never reached
    )
    assert out.splitlines() == [
        "tensor(0., grad_fn=<MulBackward0>)", "tensor(2., grad_fn=<MulBackward0>)", "tensor(6.)",
        "tensor(3., grad_fn=<AddBackward0>)",
    ]
    banner, error = err.splitlines()
    assert banner.startswith("gradcalc ") and "PyTorch 2.13" in banner
    assert error == "NameError: name 'undefined_name' is not defined"


def test_open_brackets_and_ctrl_d() -> None:
    out, err = drive("t = tensor([1.,\r2.])\rt.sum(\r)\rhelp\r\x04")
    assert "tensor(3.)\n" in out and "Ctrl-D" in out.split("tensor(3.)")[1]
    assert err.count("\n") == 1  # the banner only


def test_history_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    assert history_path() == tmp_path / "data" / "gradcalc" / "history"
    monkeypatch.setenv("XDG_DATA_HOME", "relative/path")
    assert history_path() == Path.home() / ".local" / "share" / "gradcalc" / "history"
    (tmp_path / "a-file").write_text("")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "a-file"))
    assert isinstance(_history(), InMemoryHistory)  # no directory for the file: history in memory only
    blocked = _History(str(tmp_path / "missing-dir" / "history"))
    blocked.store_string("x = 1")  # unwritable: kept in memory, never an error
    assert list(blocked.load_history_strings()) == []


# ------------------------------------------------------------------ a real terminal

CSI = re.compile(r"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07]*\x07|[=>])")


class Terminal:
    """gradcalc on a pseudo-terminal, as a person would run it."""

    def __init__(self, data_home: Path) -> None:
        import pty

        env = {key: value for key, value in os.environ.items() if not key.startswith(("NO_COLOR", "PROMPT_TOOLKIT"))}
        env.update(TERM="xterm", PROMPT_TOOLKIT_NO_CPR="1", XDG_DATA_HOME=str(data_home), NO_COLOR="1")
        self.pid, self.fd = pty.fork()
        if self.pid == 0:  # the child: a terminal of 24 x 100, then gradcalc
            import fcntl
            import struct
            import termios

            fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 100, 0, 0))
            try:
                os.chdir(REPO)
                os.execve(sys.executable, [sys.executable, "-m", "gradcalc"], env)
            finally:
                os._exit(127)  # never back into pytest in the child
        self.seen = ""

    def send(self, keys: str) -> None:
        os.write(self.fd, keys.encode())

    def expect(self, text: str, timeout: float = 10.0) -> str:
        """Wait until `text` shows in what the terminal got; return what came up to it."""
        deadline = time.monotonic() + timeout
        while text not in self.seen:
            if not self._read(deadline - time.monotonic()):
                raise AssertionError(f"{text!r} never showed; the terminal got:\n{self.seen}")
        before, _, self.seen = self.seen.partition(text)
        return before

    def _read(self, timeout: float) -> bool:
        if timeout <= 0 or not select.select([self.fd], [], [], timeout)[0]:
            return False
        try:
            chunk = os.read(self.fd, 65536).decode(errors="replace")
        except OSError:  # the other side closed
            return False
        self.seen += CSI.sub("", chunk).replace("\r", "")
        return bool(chunk)

    def wait(self, timeout: float = 10.0) -> int:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            self._read(0.05)
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                return os.waitstatus_to_exitcode(status)
        os.kill(self.pid, signal.SIGKILL)
        raise AssertionError("gradcalc did not leave")

    def close(self) -> None:
        try:
            os.kill(self.pid, signal.SIGKILL)
            os.waitpid(self.pid, 0)
        except (ProcessLookupError, ChildProcessError):
            pass
        os.close(self.fd)


@pytest.fixture
def terminal(tmp_path: Path):
    if sys.platform == "win32":
        pytest.skip("needs a POSIX pseudo-terminal")
    term = Terminal(tmp_path)
    yield term
    term.close()


def test_real_terminal(terminal: Terminal, tmp_path: Path) -> None:
    terminal.expect("PyTorch 2.13 semantics")
    terminal.expect(">>>")
    terminal.send("x = tensor(2.0, requires_grad=True)\r")
    terminal.send("for i in range(3):\r")
    terminal.expect("...")
    terminal.send("x * i\r\r")
    terminal.expect("tensor(0., grad_fn=<MulBackward0>)\ntensor(2., grad_fn=<MulBackward0>)\n"
                    "tensor(4., grad_fn=<MulBackward0>)\n")
    terminal.send("undefined_name\r")
    terminal.expect("NameError: name 'undefined_name' is not defined")
    terminal.send("x ** 3\r")
    terminal.expect("tensor(8., grad_fn=<PowBackward0>)")

    # Ctrl-C stops a running program; the session and its variables stay
    terminal.send("for i in range(10**12):\rif i == 0:\rprint('running')\r\r\r")
    terminal.expect("running\n")
    for _ in range(20):  # once the terminal is back in its usual mode, ^C is a signal
        terminal.send("\x03")
        try:
            terminal.expect("KeyboardInterrupt", timeout=0.5)
            break
        except AssertionError:
            continue
    else:
        raise AssertionError("Ctrl-C did not interrupt the program")
    terminal.send("x + 40\r")
    terminal.expect("tensor(42., grad_fn=<AddBackward0>)")

    terminal.send("half = x.requ\t")  # Tab completes as far as the candidates agree
    terminal.expect("requires_grad")
    terminal.send("\x03\x04")  # drop the input, then leave
    assert terminal.wait() == 0
    assert "+x = tensor(2.0, requires_grad=True)" in (tmp_path / "gradcalc" / "history").read_text()
