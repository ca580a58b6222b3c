"""gradcalc on a pseudo-terminal, as a person runs it: for the REPL's tests and the start-up benchmark."""
from __future__ import annotations

import os
import re
import select
import signal
import sys
import time
from pathlib import Path
from typing import Optional

REPO = Path(__file__).resolve().parent.parent
# escape sequences a terminal interprets; stripped from what the tests read
CSI = re.compile(r"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07]*\x07|[=>])")


class Terminal:
    """A child process on a pty of `rows` x `columns`; `seen` is its output without escape sequences,
    `raw` the same with them (to find colours and highlights)."""

    def __init__(self, command: list, env: dict, rows: int = 24, columns: int = 100,
                 cwd: Optional[Path] = None) -> None:
        import pty

        self.pid, self.fd = pty.fork()
        if self.pid == 0:  # the child: the terminal's size, then the command
            import fcntl
            import struct
            import termios

            fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", rows, columns, 0, 0))
            signal.signal(signal.SIGINT, signal.SIG_DFL)  # Ctrl-C's default, even from a background job
            try:
                os.chdir(cwd or REPO)
                os.execve(command[0], command, env)
            finally:
                os._exit(127)  # never back into the parent's code in the child
        self.seen = ""
        self.raw = ""

    def send(self, keys: str) -> None:
        os.write(self.fd, keys.encode())

    def expect(self, text: str, timeout: float = 60.0) -> str:
        """Wait until `text` shows in what the terminal got; return what came up to it."""
        deadline = time.monotonic() + timeout
        while text not in self.seen:
            if not self._read(deadline - time.monotonic()):
                raise AssertionError(f"{text!r} never showed; the terminal got:\n{self.seen}")
        before, _, self.seen = self.seen.partition(text)
        return before

    def expect_raw(self, pattern: str, timeout: float = 60.0) -> re.Match:
        """Wait until the regular expression matches the raw output (escape sequences included)."""
        deadline = time.monotonic() + timeout
        while True:
            found = re.search(pattern, self.raw)
            if found:
                self.raw = self.raw[found.end():]
                return found
            if not self._read(deadline - time.monotonic()):
                raise AssertionError(f"{pattern!r} never matched; the terminal got:\n{self.raw!r}")

    def _read(self, timeout: float) -> bool:
        if timeout <= 0 or not select.select([self.fd], [], [], timeout)[0]:
            return False
        try:
            chunk = os.read(self.fd, 65536).decode(errors="replace")
        except OSError:  # the other side closed
            return False
        self.raw += chunk
        self.seen += CSI.sub("", chunk).replace("\r", "")
        return bool(chunk)

    def wait(self, timeout: float = 60.0) -> int:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            self._read(0.05)
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                return os.waitstatus_to_exitcode(status)
        os.kill(self.pid, signal.SIGKILL)
        raise AssertionError("the program did not leave")

    def close(self) -> None:
        try:
            os.kill(self.pid, signal.SIGKILL)
            os.waitpid(self.pid, 0)
        except (ProcessLookupError, ChildProcessError):
            pass
        os.close(self.fd)


def gradcalc_environment(data_home: Path, **extra: str) -> dict:
    """The environment of a REPL under test: no colour unless asked, its history under `data_home`."""
    env = {key: value for key, value in os.environ.items()
           if not key.startswith(("NO_COLOR", "FORCE_COLOR", "PROMPT_TOOLKIT", "GRADCALC_"))}
    env.update(TERM="xterm", PROMPT_TOOLKIT_NO_CPR="1", XDG_DATA_HOME=str(data_home), NO_COLOR="1")
    env.update(extra)
    return env


def gradcalc_command(*args: str) -> list:
    return [sys.executable, "-m", "gradcalc", *args]
