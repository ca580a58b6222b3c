"""The front end's side: start a jailed worker, talk to it, replace it when it dies.

    worker = Worker(capture=True)      # or stdout/stderr: where the program's output goes
    worker.start()                     # the sandbox's walls, as the worker put them up
    reply = worker.run("x = ones(2); x")   # {"status": "ok", "stdout": "tensor([1., 1.])\\n", ...}
    worker.complete("x.requ")          # ["requires_grad", "requires_grad_"]
    worker.inspect("vars", width=80)   # {"text": ...}
    worker.interrupt(); worker.restart(); worker.close()

A request to a worker that died raises WorkerDied, whose message says how it ended; restart()
then gives a fresh one (its variables are lost).
"""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
from typing import IO, Any, Callable, Optional, Union

from .protocol import ChannelClosed, Receiver, send

# settings of gradcalc's own that the worker reads while it starts (the jail then wipes them all)
_PASSED_ON = ("ATEN_CPU_CAPABILITY", "MKL_CBWR", "MKL_ENABLE_INSTRUCTIONS", "TERM", "COLORTERM", "HOME",
              "XDG_CACHE_HOME", "PYTHONDONTWRITEBYTECODE")
_PACKAGE_PARENT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

Stream = Union[None, int, IO[Any]]


class _HeldInterrupts:
    """Ctrl-C noted, not raised, until release(): while a request is written, an interrupt must
    neither cut it in two nor come between its writing and the wait for its reply (SIGINT's Python
    handler runs in the main thread only, so elsewhere there is nothing to hold)."""

    def __init__(self) -> None:
        self._noted = False
        self._previous: Any = None
        if threading.current_thread() is threading.main_thread():
            previous = signal.getsignal(signal.SIGINT)
            if callable(previous):  # Python's own handler or a program's; SIG_IGN and C handlers stay
                self._previous = previous
                signal.signal(signal.SIGINT, self._note)

    def _note(self, number: int, frame: Any) -> None:
        self._noted = True

    def release(self, replay: bool = True) -> None:
        """The former handler back (once), and given the Ctrl-C that came meanwhile, if any."""
        previous, self._previous = self._previous, None
        if previous is None:
            return
        signal.signal(signal.SIGINT, previous)
        if replay and self._noted:
            previous(signal.SIGINT, None)


class WorkerDied(Exception):
    """The worker ended while the front end waited for it: `str()` says how."""


class Worker:
    """One jailed worker process at a time. `capture`: run() returns the program's stdout and
    stderr as strings; else they go to `stdout`/`stderr` (default: the front end's own fds 1 and 2)."""

    def __init__(self, color: bool = False, hints: bool = False, max_memory: Optional[int] = None,
                 cpu_seconds: Optional[int] = None, capture: bool = False, stdout: Stream = None,
                 stderr: Stream = None, settings: Optional[dict] = None) -> None:
        self.settings = settings or {}  # environment settings of gradcalc's own: a machine to compute as
        self.color = color
        self.hints = hints
        self.max_memory = max_memory
        self.cpu_seconds = cpu_seconds
        self.capture = capture
        self.stdout = stdout
        self.stderr = stderr
        self.sandbox = ""  # what the worker's jail put up, once started
        self._process: Optional[subprocess.Popen] = None
        self._requests = -1
        self._replies: Optional[Receiver] = None
        self._ready = False  # whether it said it is ready

    # -------------------------------------------------------------- life

    def start(self) -> str:
        """Start the worker and wait until it is jailed and ready; the walls it put up."""
        self.launch()
        if not self._ready:
            ready = self._receive()
            self._ready = True
            self.sandbox = str(ready.get("sandbox", ""))
        return self.sandbox

    def launch(self) -> None:
        """Start the worker's process, without waiting for it (a front end loads its own part
        meanwhile); the first request, or start(), waits until it is ready."""
        if self._process is not None:
            return
        from ..language import limits

        requests_read, self._requests = os.pipe()
        replies_read, replies_write = os.pipe()
        memory = limits.default_memory_limit() if self.max_memory is None else self.max_memory
        # -P: the working directory is not on the path, so that the worker imports the front end's gradcalc
        command = [sys.executable, "-P", "-m", "gradcalc.worker", str(requests_read), str(replies_write),
                   "--max-memory", str(memory)]
        command += ["--color"] if self.color else []
        command += ["--hints"] if self.hints else []
        command += ["--cpu", str(self.cpu_seconds)] if self.cpu_seconds else []
        env = {key: os.environ[key] for key in _PASSED_ON if key in os.environ}
        env.update(self.settings)
        env.update(PYTHONPATH=_PACKAGE_PARENT, OPENBLAS_NUM_THREADS="1", PYTHONIOENCODING="utf-8")
        try:
            # its own session: the terminal's Ctrl-C reaches the front end only, which passes it on
            self._process = subprocess.Popen(command, env=env, stdin=subprocess.DEVNULL, stdout=self.stdout,
                                             stderr=self.stderr, pass_fds=(requests_read, replies_write),
                                             start_new_session=True)
        finally:
            os.close(requests_read)
            os.close(replies_write)
        os.set_inheritable(self._requests, False)
        self._replies = Receiver(replies_read)
        self._ready = False

    def close(self) -> None:
        """End the worker (closing its request pipe ends it; a stuck one is killed)."""
        process, self._process = self._process, None
        if process is None:
            return
        _close(self._requests)
        if self._replies is not None:
            _close(self._replies.fd)
        try:
            process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()

    def restart(self) -> str:
        """A fresh worker in place of this one, whatever became of it."""
        if self._process is not None and self._process.poll() is None:
            self._process.kill()
        self.close()
        return self.start()

    def interrupt(self) -> None:
        """Ctrl-C for the running program: SIGINT to the worker."""
        if self._process is not None and self._process.poll() is None:
            try:
                os.kill(self._process.pid, signal.SIGINT)
            except ProcessLookupError:
                pass

    def ended(self) -> Optional[str]:
        """None while the worker lives (or before it starts); once it has died, how it ended."""
        if self._process is None or self._process.poll() is None:
            return None
        return str(self._died())

    @property
    def pid(self) -> Optional[int]:
        return None if self._process is None else self._process.pid

    # -------------------------------------------------------------- requests

    def run(self, source: str, capture: Optional[bool] = None, cell: bool = False,
            on_stream: Optional[Callable[[str, str], None]] = None) -> dict:
        """Run source in the session; Ctrl-C in the front end meanwhile interrupts the program.
        `cell`: as a notebook cell (the reply's "result": the last expression's value, shown).
        `on_stream(name, text)`: captured output handed over while the program runs."""
        request: dict = {"op": "run", "source": source, "capture": self.capture if capture is None else capture}
        if cell:
            request["cell"] = True
        if on_stream is not None:
            request["stream"] = True
        return self._request(request, interruptible=True, on_stream=on_stream)

    def complete(self, text: str, cursor: Optional[int] = None) -> list[str]:
        """The names that can end `text[:cursor]` (all of it by default)."""
        text = text if cursor is None else text[:cursor]
        return list(self._request({"op": "complete", "text": text}).get("candidates", []))

    def inspect(self, what: str, **arguments: Any) -> dict:
        """`vars`, `graph` (name=...) drawn as text at `width`, or the session's `names`."""
        return self._request({"op": "inspect", "what": what, **arguments})

    def reset(self) -> None:
        self._request({"op": "reset"})

    def _request(self, message: dict, interruptible: bool = False,
                 on_stream: Optional[Callable[[str, str], None]] = None) -> dict:
        """The worker's reply to `message`. Ctrl-C meanwhile interrupts the program of an
        `interruptible` request and is raised after any other's reply is read: a request is never
        cut in two, nor a reply left behind for the next request to take as its own."""
        self.start()
        held = _HeldInterrupts()
        try:
            send(self._requests, message)
        except BaseException as error:
            held.release(replay=False)
            if isinstance(error, OSError):  # a broken pipe: the worker is gone
                raise self._died() from None
            raise
        interrupted = False
        while True:
            try:
                held.release()  # a Ctrl-C that came while the request was written raises here
                reply = self._receive()
                if on_stream is None or "stream" not in reply:
                    break
                on_stream(str(reply["stream"]), str(reply.get("text", "")))  # a program still running
            except KeyboardInterrupt:
                interrupted = True
                if interruptible:
                    self.interrupt()  # and wait on for the program's end
        if interrupted and not interruptible:
            raise KeyboardInterrupt
        return reply

    def _receive(self) -> dict:
        assert self._replies is not None
        try:
            return self._replies.receive()
        except ChannelClosed as broken:
            if broken.args and self._process is not None:  # it lives, but broke the protocol: not trusted again
                self._process.kill()
                self.close()
                raise WorkerDied(f"sent {broken.args[0]}, against the protocol, and was stopped") from None
            raise self._died() from None

    def _died(self) -> WorkerDied:
        process = self._process
        self.close()
        if process is None:
            return WorkerDied("is not running")
        code = process.wait()
        if code < 0:
            try:
                name = signal.Signals(-code).name
            except ValueError:
                name = f"signal {-code}"
            return WorkerDied(f"was killed by {name}")
        return WorkerDied(f"ended with exit status {code}")


def _close(fd: int) -> None:
    try:
        os.close(fd)
    except OSError:
        pass
