"""A fresh jailed child per program, forked from a warm process (Android's zygote): numpy and
gradcalc are loaded once, in the parent, and each child jails itself before the program's first
line, runs it, hands back its output and ends. No program ever runs in the parent, and no child
runs two programs. The pytest plugin runs golden programs so.

The parent is a template process of its own (`python -m gradcalc.worker.zygote`, started on first
use), not the caller: a test run's process carries what its other tests did in it (a session run
in-process, a machine emulated), and a child forked from it would inherit that. The template
reads requests as JSON lines on stdin and answers each with a JSON line on stdout.

Each child is forked, makes its session and jails itself while the previous program still runs
(the spare): on two cores the fork and the jail cost a program next to nothing."""
from __future__ import annotations

import atexit
import gc
import io
import json
import os
import signal
import subprocess
import sys
from typing import Any, Optional, TypedDict


class Answer(TypedDict):
    stdout: str
    stderr: str
    rc: int


class _Child:
    """A forked child, jailed, that waits for its program on `program` and answers on `answer`."""

    def __init__(self) -> None:
        program_read, self.program = os.pipe()
        self.answer, answer_write = os.pipe()
        self.pid = os.fork()
        if self.pid == 0:  # the child: never back into the parent's code
            status = 70
            try:
                # nothing of the other children's pipes (a program could read another one's answer)
                for fd in (*_PARENT_ENDS, self.program, self.answer):
                    os.close(fd)
                _serve(program_read, answer_write)
                status = 0
            finally:
                os._exit(status)
        os.close(program_read)
        os.close(answer_write)
        _PARENT_ENDS.update((self.program, self.answer))

    def send(self, source: str, filename: str, machine: Optional[dict] = None) -> None:
        request = json.dumps({"source": source, "filename": filename, "machine": machine}).encode("utf-8")
        try:
            while request:
                request = request[os.write(self.program, request):]
        except BrokenPipeError:  # it died before its program came: said by answer()
            pass
        os.close(self.program)
        _PARENT_ENDS.discard(self.program)

    def answer_of(self) -> Answer:
        with os.fdopen(self.answer, "rb") as pipe:
            _PARENT_ENDS.discard(self.answer)
            data = pipe.read()
        _, wait_status = os.waitpid(self.pid, 0)
        code = os.waitstatus_to_exitcode(wait_status)
        if data and code == 0:
            return json.loads(data.decode("utf-8"))
        how = f"was killed by {signal.Signals(-code).name}" if code < 0 else f"ended with exit status {code}"
        return {"stdout": "", "stderr": f"gradcalc: the worker {how}\n", "rc": code}


def _serve(program: int, answer: int) -> None:
    """The child: a session, the jail, then the one program it is given."""
    from .. import jail
    from ..autograd import cpu
    from ..language import limits
    from ..session import Session, TextOutput, reset_global_state

    reset_global_state()
    stdout, stderr = io.StringIO(), io.StringIO()
    session = Session(TextOutput(stdout, stderr))
    # the ceiling counts what the parent had mapped already: the program gets the usual room on top
    limits.set_memory_limit(limits.default_memory_limit() + limits.mapped_bytes())
    jail.apply(warn=False)
    with os.fdopen(program, "rb") as pipe:
        request = pipe.read()
    if not request:  # the parent ended without a program for it
        return
    given = json.loads(request.decode("utf-8"))
    with cpu.emulating(given["machine"]):  # the machine an expected answer was recorded on, if it matters
        ok = session.run(given["source"], given["filename"])
    status = session.exit_status if session.exit_status is not None else 0 if ok else 1
    # what is left of the program (generators closed as the child ends, say) runs behind the wall too
    limits.wall_up_for_good()
    data = json.dumps({"stdout": stdout.getvalue(), "stderr": stderr.getvalue(), "rc": status}).encode("utf-8")
    while data:
        data = data[os.write(answer, data):]



_PARENT_ENDS: set = set()  # this process's ends of its children's pipes
_spare: Optional[_Child] = None
_warm = False


def _warm_up() -> None:
    """Load in the parent, once, what every child would otherwise load again: the session's
    modules, the parser, the jail's filter."""
    global _warm
    if _warm:
        return
    from .. import jail
    from ..jail import seccomp_filter
    from ..session import Session, TextOutput, warm_up

    Session(TextOutput(io.StringIO(), io.StringIO()))  # runs no program: loads what a session needs
    warm_up()
    seccomp_filter.prepare()
    jail.walls()
    # what is alive now (numpy, gradcalc) is the children's inheritance: their
    # collections need not walk it. Once only: freezing before every fork would keep for good the
    # garbage made in between.
    gc.freeze()
    _warm = True


def _fork_and_run(source: str, filename: str, machine: Optional[dict] = None) -> Answer:
    """In the template: the program's answer from a fresh child; the next one's child forked as it runs."""
    global _spare
    _warm_up()
    child = _spare if _spare is not None else _Child()
    child.send(source, filename, machine)
    _spare = _Child()
    return child.answer_of()


def serve_forever() -> None:
    """The template's loop: a request line in, its answer line out, until stdin ends."""
    requests, replies = os.dup(0), os.dup(1)
    _PARENT_ENDS.update((requests, replies))  # no child holds the requests or the answers of others
    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1):
        os.dup2(devnull, fd)
    os.close(devnull)
    _warm_up()
    with os.fdopen(requests, "rb") as lines:
        for line in lines:
            given = json.loads(line)
            answer = _fork_and_run(given["source"], given["filename"], given["machine"])
            data = json.dumps(answer).encode("utf-8") + b"\n"
            while data:
                data = data[os.write(replies, data):]


_template: Optional[Any] = None  # (the process, the pid of the process that started it)


def _end_template(process: Any) -> None:
    """The template ends with its caller: its stdin closed, it leaves its loop."""
    process.stdin.close()
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
    process.stdout.close()


def run_in_child(source: str, filename: str, machine: Optional[dict] = None) -> Answer:
    """What `gradcalc FILE` prints for `source` and its exit status, from a fresh jailed child of
    the template process (computing as on MACHINE, a machine record of autograd/cpu.py, if given)."""
    global _template
    if _template is None or _template[1] != os.getpid() or _template[0].poll() is not None:
        package_root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        path = os.environ.get("PYTHONPATH")
        env = {**os.environ, "PYTHONPATH": package_root + (os.pathsep + path if path else "")}
        process = subprocess.Popen([sys.executable, "-m", "gradcalc.worker.zygote"], stdin=subprocess.PIPE,
                                   stdout=subprocess.PIPE, env=env)
        _template = (process, os.getpid())
        atexit.register(_end_template, process)
    process = _template[0]
    request = json.dumps({"source": source, "filename": filename, "machine": machine}).encode("utf-8")
    try:
        process.stdin.write(request + b"\n")
        process.stdin.flush()
        reply = process.stdout.readline()
    except BrokenPipeError:
        reply = b""
    if not reply:
        process.kill()
        return {"stdout": "", "stderr": "gradcalc: the template process ended\n", "rc": 70}
    return json.loads(reply)


if __name__ == "__main__":
    serve_forever()
