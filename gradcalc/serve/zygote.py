"""A warm parent that forks a fresh child per run (Android's zygote), so that a run does not pay
Python's and numpy's start-up: `python -m gradcalc.serve.zygote`, started by the server.

The zygote imports gradcalc and loads what a run needs, then only forks: it never runs a program.
Each child is forked ahead of its request (the spare) and waits for it on a pipe; then it
reseeds, sets its limits (memory ceiling, a wall-clock alarm that kills it), runs one program
as `gradcalc --json` does (report.run_program, which puts up the OS wall where gradcalc has it),
writes its answer on its own pipe and ends; it is never reused. The zygote reads the children's
pipes and sends each answer, as one JSON line on stdout, to the server, whose requests come as
JSON lines on stdin: {"id", "source", "graphs", "max_output", "memory", "time"}, or {"kill": id}.

ZygoteRunner is the server's side: a Runner (runs.py) that starts the zygote on first use and
again if it dies.
"""
from __future__ import annotations

import asyncio
import json
import os
import selectors
import signal
import sys
from typing import Any, Optional

from .runs import Limits, Outcome, child_environment, empty_answer, outcome_of

LINE_LIMIT = 256 << 20  # an answer line: the output cap plus the pictures, well within this
GRACE = 5.0  # seconds past the time limit before the server gives up on the zygote's answer


# ------------------------------------------------------------------ the zygote process

def _warm_up() -> None:
    """What every run would load otherwise: the session's modules, the parser, the views."""
    import io

    from .. import report
    from ..jail import seccomp_filter
    from ..session import Session, TextOutput, warm_up

    session = Session(TextOutput(io.StringIO(), io.StringIO()))  # runs no program
    warm_up()  # the parsers, the grammar's too (a syntax error needs it, and the jail keeps its cache out)
    report.views(session, "*")
    seccomp_filter.prepare()  # the OS wall's filter, compiled once here rather than in every child


class _Spare:
    """A child forked ahead of its request (the fork is not on a run's path), waiting for it on a pipe."""

    def __init__(self, inherited: list[int]) -> None:
        request_read, self.request = os.pipe()
        self.answer, answer_write = os.pipe()
        self.pid = os.fork()
        if self.pid == 0:
            for fd in (self.request, self.answer, *inherited):  # nothing of the other runs' pipes
                os.close(fd)
            _child(request_read, answer_write)
        os.close(request_read)
        os.close(answer_write)

    def send(self, request: dict) -> None:
        data = memoryview(json.dumps(request).encode("utf-8", "surrogatepass"))
        try:
            while data:
                data = data[os.write(self.request, data):]
        except OSError:  # it died waiting: its answer pipe's end and its status say so
            pass
        os.close(self.request)


def _child(request_pipe: int, answer: int) -> None:
    """In the forked child: its request, the limits, one program, the answer on `answer`; never returns."""
    status = 70
    try:
        devnull = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):  # the zygote's pipes to the server are not the program's
            os.dup2(devnull, fd)
        with os.fdopen(request_pipe, "rb") as pipe:
            data = pipe.read()
        if not data:  # the zygote ended without a request for it
            status = 0
            return
        request = json.loads(data)
        from .. import report
        from ..language import limits
        from ..session import reset_global_state

        reset_global_state()  # its own seeds, as a new process has: not the same draws in every child
        signal.signal(signal.SIGALRM, signal.SIG_DFL)  # the alarm ends the child: nothing can catch it
        signal.setitimer(signal.ITIMER_REAL, float(request["time"]))
        limits.set_memory_limit(limits.mapped_bytes() + int(request["memory"]))
        given = report.run_program(request["source"], request["graphs"], int(request["max_output"]))
        reply = memoryview(json.dumps(given, ensure_ascii=False).encode("utf-8", "surrogatepass"))
        while reply:
            reply = reply[os.write(answer, reply):]
        status = 0
    finally:
        os._exit(status)



def serve_forever() -> None:
    """The zygote's loop: requests in, each to the spare child (and a new spare forked), answers out."""
    import gc

    _warm_up()
    gc.freeze()  # what is alive now is the children's inheritance: their collections need not walk it
    selector = selectors.DefaultSelector()
    selector.register(sys.stdin.buffer, selectors.EVENT_READ, None)
    children: dict[int, tuple[Any, int, bytearray]] = {}  # answer fd -> (id, pid, answer so far)
    pids: dict[Any, int] = {}  # id -> pid
    spare = _Spare([])
    pending = bytearray()
    while True:
        for key, _ in selector.select():
            if key.data is None:
                chunk = os.read(sys.stdin.fileno(), 1 << 16)
                if not chunk:  # the server is gone
                    for pid in [spare.pid, *pids.values()]:
                        os.kill(pid, signal.SIGKILL)
                    return
                pending += chunk
                while b"\n" in pending:
                    line, _, rest = bytes(pending).partition(b"\n")
                    pending = bytearray(rest)
                    request = json.loads(line)
                    if "kill" in request:
                        if request["kill"] in pids:
                            os.kill(pids[request["kill"]], signal.SIGKILL)
                        continue
                    spare.send(request)
                    children[spare.answer] = (request["id"], spare.pid, bytearray())
                    pids[request["id"]] = spare.pid
                    selector.register(spare.answer, selectors.EVENT_READ, request["id"])
                    spare = _Spare(list(children))
            else:
                chunk = os.read(key.fd, 1 << 16)
                if chunk:
                    children[key.fd][2].extend(chunk)
                    continue
                selector.unregister(key.fd)
                os.close(key.fd)
                ident, pid, data = children.pop(key.fd)
                pids.pop(ident, None)
                _, wait_status = os.waitpid(pid, 0)
                reply = {"id": ident, "answer": data.decode("utf-8", "replace"),
                         "code": os.waitstatus_to_exitcode(wait_status)}
                sys.stdout.write(json.dumps(reply) + "\n")
                sys.stdout.flush()


# ------------------------------------------------------------------ the server's side

class ZygoteRunner:
    """Runs through a zygote process: a fork instead of a new interpreter per run."""

    def __init__(self, command: Optional[list[str]] = None) -> None:
        self.command = command or [sys.executable, "-m", "gradcalc.serve.zygote"]
        self.process: Optional[Any] = None
        self.waiting: dict[int, asyncio.Future] = {}
        self.next_id = 0
        self.starting: Optional[asyncio.Lock] = None

    async def start(self) -> None:
        await self._zygote()  # its warm-up runs while the server starts

    async def _zygote(self) -> Any:
        if self.starting is None:
            self.starting = asyncio.Lock()
        async with self.starting:
            if self.process is None or self.process.returncode is not None:
                self.process = await asyncio.create_subprocess_exec(
                    *self.command, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
                    env=child_environment(), start_new_session=True, limit=LINE_LIMIT)
                asyncio.ensure_future(self._read(self.process))
        return self.process

    async def _read(self, process: Any) -> None:
        """Hand each answer to the run that waits for it; when the zygote ends, fail the rest."""
        try:
            while True:
                line = await process.stdout.readline()
                if not line:
                    break
                reply = json.loads(line)
                future = self.waiting.pop(reply["id"], None)
                if future is not None and not future.done():
                    future.set_result(reply)
        except (ValueError, asyncio.LimitOverrunError):  # a line the zygote should not have sent
            process.kill()
        for future in list(self.waiting.values()):
            if not future.done():
                future.set_result({"answer": "", "code": None})
        self.waiting.clear()

    async def run(self, source: str, graphs: Any, limits: Limits) -> Outcome:
        loop = asyncio.get_running_loop()
        started = loop.time()
        process = await self._zygote()
        self.next_id += 1
        ident = self.next_id
        future = loop.create_future()
        self.waiting[ident] = future
        request = {"id": ident, "source": source, "graphs": graphs, "max_output": limits.output,
                   "memory": limits.memory, "time": limits.time}
        try:
            process.stdin.write(json.dumps(request).encode("utf-8", "surrogatepass") + b"\n")
            await process.stdin.drain()
            reply = await asyncio.wait_for(asyncio.shield(future), timeout=limits.time + GRACE)
        except (BrokenPipeError, ConnectionResetError):
            self.waiting.pop(ident, None)
            return Outcome(empty_answer("The run failed: the server's worker process was restarting.\n"), "crash",
                           loop.time() - started)
        except asyncio.TimeoutError:  # the alarm should have ended it: make sure
            self.waiting.pop(ident, None)
            process.stdin.write(json.dumps({"kill": ident}).encode() + b"\n")
            reply = {"answer": "", "code": -signal.SIGALRM}
        code = reply["code"]
        limit = "time" if code == -signal.SIGALRM else None
        return outcome_of(reply["answer"].encode("utf-8", "surrogatepass"), b"", limit, code, limits,
                          loop.time() - started)

    async def close(self) -> None:
        if self.process is not None and self.process.returncode is None:
            self.process.stdin.close()
            try:
                await asyncio.wait_for(self.process.wait(), timeout=5)
            except asyncio.TimeoutError:
                self.process.kill()


if __name__ == "__main__":
    try:
        serve_forever()
    except Exception as failure:  # one line for the server's operator; its runs then fail and it restarts
        sys.stderr.write(f"gradcalc serve: the zygote failed: {type(failure).__name__}: {failure}\n")
        sys.exit(1)
