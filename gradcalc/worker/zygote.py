"""A fresh jailed child per program, forked from a warm process (Android's zygote): numpy and
gradcalc are loaded once, in the parent, and each child jails itself before the program's first
line, runs it, hands back its output and ends. No program ever runs in the parent, and no child
runs two programs. The pytest plugin runs golden programs so.

Each child is forked, makes its session and jails itself while the previous program still runs
(the spare): on two cores the fork and the jail cost a program next to nothing."""
from __future__ import annotations

import gc
import io
import json
import os
import signal
from typing import Optional, TypedDict


class Answer(TypedDict):
    stdout: str
    stderr: str
    rc: int


class _Child:
    """A forked child, jailed, that waits for its program on `program` and answers on `answer`."""

    def __init__(self) -> None:
        self.parent = os.getpid()
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
    # what is alive now (numpy, gradcalc, the test run's own) is the children's inheritance: their
    # collections need not walk it. Once only: freezing before every fork would keep for good the
    # garbage made in between.
    gc.freeze()
    _warm = True


def run_in_child(source: str, filename: str, machine: Optional[dict] = None) -> Answer:
    """What `gradcalc FILE` prints for `source` and its exit status, from a fresh jailed child
    (computing as on MACHINE, a machine record of autograd/cpu.py, if given).
    The next program's child is forked as this one runs: it carries this process's state as it
    is now, so state changed between two calls reaches the call after next."""
    global _spare
    _warm_up()
    # a spare is this process's child: a forked copy of this process (a test's) makes its own
    child = _spare if _spare is not None and _spare.parent == os.getpid() else _Child()
    child.send(source, filename, machine)
    _spare = _Child()
    return child.answer_of()
