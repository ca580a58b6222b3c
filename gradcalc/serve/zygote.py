"""A warm parent that forks a fresh child per run (Android's zygote), so that a run does not pay
Python's and numpy's start-up: `python -m gradcalc.serve.zygote`, started by the server.

The zygote imports gradcalc and loads what a run needs, then only forks: it never runs a program.
Each child is forked ahead of its request (the spare): it reseeds, sets its memory ceiling, makes
its session and puts up the OS wall where gradcalc has it (report.jailed_session), then waits for
the request on a pipe; with it, it sets a wall-clock alarm that kills it, runs the one program as
`gradcalc --json` does (report.answer_in), writes its answer on its own pipe and ends; it is never
reused. The zygote reads the children's pipes and sends each answer, as one JSON line on stdout,
to the server, whose requests come as JSON lines on stdin: {"id", "source", "graphs",
"max_output", "memory", "time"}, or {"kill": id}.

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
    """A child forked ahead of its request, its session made and its OS wall up under a memory
    ceiling of `memory` bytes (the fork, the session and the jail are not on a run's path), waiting
    for the request on a pipe."""

    def __init__(self, inherited: list[int], memory: int) -> None:
        self.memory = memory
        request_read, self.request = os.pipe()
        self.answer, answer_write = os.pipe()
        self.pid = os.fork()
        if self.pid == 0:
            for fd in (self.request, self.answer, *inherited):  # nothing of the other runs' pipes
                os.close(fd)
            _child(request_read, answer_write, memory)
        os.close(request_read)
        os.close(answer_write)

    def discard(self) -> None:
        """End a spare that will get no request (its ceiling is not the one asked for)."""
        os.close(self.request)
        os.close(self.answer)
        os.kill(self.pid, signal.SIGKILL)
        os.waitpid(self.pid, 0)

    def send(self, request: dict) -> None:
        data = memoryview(json.dumps(request).encode("utf-8", "surrogatepass"))
        try:
            while data:
                data = data[os.write(self.request, data):]
        except OSError:  # it died waiting: its answer pipe's end and its status say so
            pass
        os.close(self.request)


def _child(request_pipe: int, answer: int, memory: int) -> None:
    """In the forked child: the memory ceiling, a session and the jail, then its request, one
    program under the time limit, the answer on `answer`; never returns."""
    status = 70
    try:
        devnull = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):  # the zygote's pipes to the server are not the program's
            os.dup2(devnull, fd)
        from .. import report
        from ..language import limits
        from ..session import reset_global_state

        reset_global_state()  # its own seeds, as a new process has: not the same draws in every child
        # the ceiling counts what the zygote had mapped already: the program gets its room on top
        limits.set_memory_limit(limits.mapped_bytes() + memory)
        session = report.jailed_session()
        with os.fdopen(request_pipe, "rb") as pipe:
            data = pipe.read()
        if not data:  # the zygote ended without a request for it
            status = 0
            return
        request = json.loads(data)
        signal.signal(signal.SIGALRM, signal.SIG_DFL)  # the alarm ends the child: nothing can catch it
        signal.setitimer(signal.ITIMER_REAL, float(request["time"]))
        given = report.answer_in(session, request["source"], request["graphs"], int(request["max_output"]))
        # a newline ends a whole answer (JSON text has none of its own): the zygote passes it on
        # at once rather than when this process's end has unmapped its memory
        reply = memoryview(json.dumps(given, ensure_ascii=False).encode("utf-8", "surrogatepass") + b"\n")
        while reply:
            reply = reply[os.write(answer, reply):]
        os.close(answer)
        status = 0
    finally:
        os._exit(status)



SPARES = 2  # children made ahead: a run takes the older, made while the run before last went on


def serve_forever() -> None:
    """The zygote's loop: requests in, each to the oldest spare child, answers out. Spares are
    forked once a run is over, so that their making (a session, the jail) takes no processor from a
    run, and there are two, so that the one a request takes is whole even when requests follow one
    another at once; with other runs in flight (a busy server), one is forked as soon as one is taken."""
    import gc

    _warm_up()
    gc.freeze()  # what is alive now is the children's inheritance: their collections need not walk it
    selector = selectors.DefaultSelector()
    selector.register(sys.stdin.buffer, selectors.EVENT_READ, None)
    children: dict[int, tuple[Any, int, bytearray]] = {}  # answer fd -> (id, pid, answer so far)
    pids: dict[Any, int] = {}  # id -> pid
    memory = Limits().memory  # the ceiling spares are made with: the server's default, until a request asks another
    spares = [_Spare([], memory)]

    def new_spare() -> _Spare:
        # none of this process's other pipes: a run could read another one's answer, and a spare
        # holding another's request pipe would keep that one waiting for its end for ever
        return _Spare([*children, *(fd for spare in spares for fd in (spare.request, spare.answer))], memory)

    ending: list[int] = []  # children that answered whole, not yet reaped
    pending = bytearray()
    while True:
        ending = [pid for pid in ending if not os.waitpid(pid, os.WNOHANG)[0]]
        for key, _ in selector.select():
            if key.data is None:
                chunk = os.read(sys.stdin.fileno(), 1 << 16)
                if not chunk:  # the server is gone
                    for pid in [*(spare.pid for spare in spares), *pids.values()]:
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
                    memory = int(request["memory"])
                    for spare in [spare for spare in spares if spare.memory != memory]:  # made for another ceiling
                        spare.discard()
                        spares.remove(spare)
                    child = spares.pop(0) if spares else new_spare()
                    child.send(request)
                    children[child.answer] = (request["id"], child.pid, bytearray())
                    pids[request["id"]] = child.pid
                    selector.register(child.answer, selectors.EVENT_READ, request["id"])
                    if len(children) > 1 or not spares:  # a busy server: the next run's child is needed now
                        spares.append(new_spare())
            else:
                chunk = os.read(key.fd, 1 << 16)
                if chunk:
                    children[key.fd][2].extend(chunk)
                    continue
                selector.unregister(key.fd)
                os.close(key.fd)
                ident, pid, data = children.pop(key.fd)
                pids.pop(ident, None)
                if data.endswith(b"\n"):  # a whole answer: the child ended its run, and is reaped later
                    ending.append(pid)
                    code = 0
                else:  # cut short: how it ended says why
                    code = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
                reply = {"id": ident, "answer": data.decode("utf-8", "replace"), "code": code}
                sys.stdout.write(json.dumps(reply) + "\n")
                sys.stdout.flush()
                while len(spares) < SPARES:
                    spares.append(new_spare())


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
