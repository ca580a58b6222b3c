"""One run of a visitor's program, outside the server's process, within its limits.

The server never runs program code: each run is a fresh `gradcalc --json` child (which puts up
the sandbox's OS wall before the program's first line), never reused, so that nothing a program
changes reaches the next visitor. The limits are kept from outside: the wall clock (the child is
killed), the memory ceiling (`--max-memory`, which the child cannot raise), the output (the child
stops its program at the cap; past a margin for the views the pipe is no longer read and the child
is killed). `Runner` is what the server needs of a way to start children, so that a warm forking
parent (a zygote) can take the place of SubprocessRunner.
"""
from __future__ import annotations

import asyncio
import json
import os
import signal
import sys
import time
from dataclasses import dataclass
from typing import Any, Optional, Protocol

VIEWS_MARGIN = 16 << 20  # what the vars table and the pictures may add to the program's output
STDERR_KEPT = 4096  # of the child's own stderr (not the program's): for the log only


@dataclass(frozen=True)
class Limits:
    """Per-run limits, the command line's flags."""

    time: float = 10.0  # seconds of wall clock
    memory: int = 512 << 20  # bytes of address space
    output: int = 1 << 20  # bytes of stdout and stderr together
    source: int = 100 << 10  # bytes of program text


@dataclass
class Outcome:
    """What a run gave: the child's answer, or which limit ended it (`limit`) and what to tell the visitor."""

    answer: dict
    limit: Optional[str]  # None, "time", "memory", "output" or "crash"
    elapsed: float  # seconds


class Runner(Protocol):
    async def run(self, source: str, graphs: Any, limits: Limits) -> Outcome:
        """Run `source` in a fresh child, within `limits`."""

    async def start(self) -> None:
        """Get ready for the first run (the server is starting)."""

    async def close(self) -> None:
        """Stop what the runner started (the server is shutting down)."""


def empty_answer(stderr: str = "", status: Optional[int] = None) -> dict:
    return {"stdout": "", "stderr": stderr, "status": status, "truncated": False,
            "vars": {"tensors": [], "modules": []}, "graphs": {}}


def _size(count: int) -> str:
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if count >= scale and count % scale == 0:
            return f"{count // scale} {unit}"
    return f"{count:,} bytes"


def time_limit_message(limits: Limits) -> str:
    return f"Time limit exceeded: the program ran longer than {limits.time:g} s and was stopped.\n"


def memory_limit_message(limits: Limits) -> str:
    return f"Memory limit: the program needed more than the {_size(limits.memory)} a run may use.\n"


class SubprocessRunner:
    """Each run a new `python -m gradcalc --json` process: simple, and as isolated as a process is;
    it pays Python's and numpy's start-up on every run."""

    def __init__(self, command: Optional[list[str]] = None) -> None:
        self.command = command or [sys.executable, "-m", "gradcalc"]

    async def run(self, source: str, graphs: Any, limits: Limits) -> Outcome:
        request = json.dumps({"source": source, "graphs": graphs, "max_output": limits.output,
                              "max_memory": limits.memory}).encode("utf-8")
        started = time.monotonic()
        child = await asyncio.create_subprocess_exec(
            *self.command, "--json",
            stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
            env=child_environment(), start_new_session=True, close_fds=True)
        try:
            data, errors, limit = await asyncio.wait_for(_exchange(child, request, limits.output + VIEWS_MARGIN),
                                                         timeout=limits.time)
        except asyncio.TimeoutError:
            data, errors, limit = b"", b"", "time"
        finally:
            _kill(child)
            await child.wait()
        return outcome_of(data, errors, limit, child.returncode, limits, time.monotonic() - started)

    async def start(self) -> None:
        """Nothing to start: each run starts its own process."""

    async def close(self) -> None:
        """Nothing outlives its run."""


def child_environment() -> dict:
    """Nothing of the server's environment but what Python needs to find gradcalc and its locale."""
    keep = ("PATH", "PYTHONPATH", "LANG", "LC_ALL", "HOME", "VIRTUAL_ENV")
    environment = {name: os.environ[name] for name in keep if name in os.environ}
    environment.update(PYTHONIOENCODING="utf-8", OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1",
                       MKL_NUM_THREADS="1", PYTHONDONTWRITEBYTECODE="1")
    return environment


async def _exchange(child: Any, request: bytes, cap: int) -> tuple[bytes, bytes, Optional[str]]:
    """Send the request, read the answer (at most `cap` bytes) and the child's own stderr."""
    async def send() -> None:
        try:
            child.stdin.write(request)
            await child.stdin.drain()
            child.stdin.close()
        except (BrokenPipeError, ConnectionResetError):  # it died first: its status says why
            pass

    async def read_errors() -> bytes:
        kept = await child.stderr.read(STDERR_KEPT)
        while await child.stderr.read(1 << 16):  # the rest is drained, not kept
            pass
        return kept

    errors_task = asyncio.ensure_future(read_errors())
    await send()
    chunks, size = [], 0
    while True:
        chunk = await child.stdout.read(1 << 16)
        if not chunk:
            break
        size += len(chunk)
        if size > cap:
            errors_task.cancel()
            return b"", b"", "output"
        chunks.append(chunk)
    await child.wait()
    return b"".join(chunks), await errors_task, None


def _kill(child: Any) -> None:
    """The child and anything it started, whatever their state."""
    if child.returncode is None:
        try:
            os.killpg(child.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass


def outcome_of(data: bytes, errors: bytes, limit: Optional[str], code: Optional[int], limits: Limits,
             elapsed: float) -> Outcome:
    if limit == "time":
        return Outcome(empty_answer(time_limit_message(limits)), "time", elapsed)
    if limit == "output":
        return Outcome(empty_answer(f"Output limit: the answer passed {_size(limits.output)} and the program was "
                                    "stopped.\n"), "output", elapsed)
    try:
        answer = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError):
        answer = None
    if not isinstance(answer, dict):
        return _crashed(errors, code, limits, elapsed)
    if answer.get("truncated"):
        return Outcome(answer, "output", elapsed)
    if _out_of_memory(answer.get("stderr", "")):
        answer["stderr"] += memory_limit_message(limits)
        return Outcome(answer, "memory", elapsed)
    return Outcome(answer, None, elapsed)


def _out_of_memory(stderr: str) -> bool:
    """Whether the error that ended the program is the memory ceiling's: Python's MemoryError, or
    the message PyTorch's allocator gives (which gradcalc prints as PyTorch does)."""
    last = stderr.rstrip("\n").rpartition("\n")[2]
    return last.startswith("MemoryError") or "DefaultCPUAllocator: can't allocate memory" in last


def _crashed(errors: bytes, code: Optional[int], limits: Limits, elapsed: float) -> Outcome:
    """No answer: the child died (the memory ceiling reached outside the program, a signal)."""
    text = errors.decode("utf-8", "replace")
    if "MemoryError" in text or code == -signal.SIGKILL:
        return Outcome(empty_answer(memory_limit_message(limits)), "memory", elapsed)
    if code is not None and code < 0:
        how = f"was killed by signal {-code}"
    else:
        how = f"ended with exit status {code}"
    return Outcome(empty_answer(f"The run failed: its process {how} without an answer.\n"), "crash", elapsed)
