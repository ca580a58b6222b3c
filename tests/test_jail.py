"""The second wall, alone: gradcalc.jail around raw, unrestricted Python (no policy, no guard, no
audit hook), which tries what an escape from the policy would try next. Each attempt must fail.
Then the jail where gradcalc puts it: the command line's own process, and the REPL's worker."""
from __future__ import annotations

import json
import os
import signal
import socket
import struct
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from gradcalc import jail

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux") or "landlock" not in jail.walls()
                                or "seccomp" not in jail.walls(),
                                reason="the OS walls need Linux with Landlock and libseccomp")

CANARY = "GRADCALC_JAIL_CANARY"
CEILING = 512 << 20

# Raw Python, jailed by gradcalc.jail with the language's policy nowhere in the process: the
# test-only way in (nothing a program or the command line can reach runs code like this).
PROBES = r'''
import ctypes, json, os, resource, socket, subprocess, sys

# where the process's own environment strings are, before the jail
libc = ctypes.CDLL(None, use_errno=True)
environ = ctypes.cast(ctypes.c_void_p.in_dll(libc, "environ").value, ctypes.POINTER(ctypes.c_void_p))
strings = []
while environ[len(strings)]:
    address = environ[len(strings)]
    strings.append((address, len(ctypes.string_at(address))))
stack = [line.split()[0] for line in open("/proc/self/maps") if line.rstrip().endswith("[stack]")]

resource.setrlimit(resource.RLIMIT_AS, (CEILING, resource.RLIM_INFINITY))
import gradcalc.jail
print(gradcalc.jail.apply(), file=sys.stderr)

results = {}

def attempt(name, action):
    try:
        value = action()
    except BaseException as error:  # refused, as it should be
        results[name] = "refused: " + type(error).__name__
    else:
        results[name] = "DONE: " + repr(value)[:80]

def write(path):
    with open(path, "w") as handle:
        handle.write("escaped")

def read(path):
    with open(path, "rb") as handle:
        return handle.read(100)

attempt("write cwd", lambda: write("escaped.txt"))
attempt("write /tmp", lambda: write("/tmp/gradcalc-escaped.txt"))
attempt("write site-packages", lambda: write(os.path.join(os.path.dirname(os.path.dirname(json.__file__)),
                                                          "gradcalc-escaped.pth")))
attempt("write home", lambda: write(os.path.join(HOME, "gradcalc-escaped.txt")))
attempt("read /etc/passwd", lambda: read("/etc/passwd"))
attempt("read /proc/self/environ", lambda: read("/proc/self/environ"))
attempt("read /proc/1/cmdline", lambda: read("/proc/1/cmdline"))

def canary():
    if CANARY_NAME in os.environ or os.getenv(CANARY_NAME) is not None:
        return "in os.environ"
    for address, length in strings:
        if CANARY_NAME.encode() in ctypes.string_at(address, length):
            return "in environ's strings"
    for span in stack:
        start, end = (int(part, 16) for part in span.split("-"))
        if (CANARY_NAME + "=").encode() in ctypes.string_at(start, end - start):
            return "on the stack"
    raise LookupError("gone")

attempt("canary", canary)

def system():
    status = os.system("echo escaped > /tmp/gradcalc-escaped-system.txt")
    if status != 0:
        raise OSError(status)
    return status

attempt("os.system", system)
attempt("subprocess", lambda: subprocess.run(["/bin/true"]))
attempt("os.execv", lambda: os.execv("/bin/true", ["true"]))

def fork():
    pid = os.fork()
    if pid == 0:
        os._exit(0)
    return pid

attempt("os.fork", fork)

def tcp():
    with socket.create_connection(("127.0.0.1", PORT), timeout=5) as connection:
        connection.sendall(b"escaped")

attempt("tcp connect", tcp)

def unix():
    with socket.socket(socket.AF_UNIX) as connection:
        connection.connect(UNIX_PATH)
        connection.sendall(b"escaped")

attempt("unix connect", unix)

def ptrace():
    if libc.ptrace(16, os.getppid(), None, None) != 0:  # PTRACE_ATTACH
        raise OSError(ctypes.get_errno(), "ptrace")

attempt("ptrace", ptrace)
attempt("kill parent", lambda: os.kill(os.getppid(), 0))
attempt("memory beyond the ceiling", lambda: len(bytearray(2 * CEILING)))
attempt("raise the ceiling", lambda: resource.setrlimit(resource.RLIMIT_AS, (4 * CEILING, 4 * CEILING)))

# what a program needs still works
import threading, numpy
thread = threading.Thread(target=lambda: None)
thread.start()
thread.join()
results["numpy"] = float((numpy.eye(3) * 2).sum())
print(json.dumps(results))
'''


def jailed_python(tmp_path: Path, port: int, unix_path: str) -> tuple[dict, str]:
    """Run PROBES in a fresh Python in `tmp_path`; what each attempt came to, and its stderr."""
    home = tmp_path / "home"
    home.mkdir()
    code = (f"CEILING = {CEILING}\nHOME = {str(home)!r}\nCANARY_NAME = {CANARY!r}\nPORT = {port}\n"
            f"UNIX_PATH = {unix_path!r}\n" + PROBES)
    env = {**os.environ, CANARY: "the host's secret", "HOME": str(home)}
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.splitlines()[-1]), done.stderr


def test_raw_python_in_the_jail_reaches_nothing(tmp_path: Path) -> None:
    listener = socket.create_server(("127.0.0.1", 0))
    unix_path = str(tmp_path / "unix.sock")
    unix_listener = socket.socket(socket.AF_UNIX)
    unix_listener.bind(unix_path)
    unix_listener.listen()
    try:
        results, stderr = jailed_python(tmp_path, listener.getsockname()[1], unix_path)
        listener.settimeout(0)
        unix_listener.settimeout(0)
        for server in (listener, unix_listener):
            with pytest.raises(BlockingIOError):  # no connection ever came
                server.accept()
    finally:
        listener.close()
        unix_listener.close()
    assert stderr.splitlines()[0].startswith("landlock ")
    assert results.pop("numpy") == 6.0
    escaped = {name: outcome for name, outcome in results.items() if not outcome.startswith("refused")}
    assert not escaped
    assert len(results) == 18
    assert not list(tmp_path.rglob("*escaped*")) and not Path("/tmp/gradcalc-escaped.txt").exists()
    assert not Path("/tmp/gradcalc-escaped-system.txt").exists()


def _status(pid: int) -> dict:
    with open(f"/proc/{pid}/status") as status:
        return dict(line.rstrip("\n").split(":\t", 1) for line in status if ":\t" in line)


def _wait_until_jailed(pid: int) -> dict:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        status = _status(pid)
        if status.get("Seccomp") == "2":
            return status
        time.sleep(0.05)
    raise AssertionError(f"process {pid} never jailed itself")


def test_the_command_line_runs_its_program_in_the_jail(tmp_path: Path) -> None:
    program = subprocess.Popen([sys.executable, "-m", "gradcalc", "-e", "while True: pass"], cwd=tmp_path,
                               env={**os.environ, CANARY: "secret"}, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE)
    try:
        status = _wait_until_jailed(program.pid)
        assert status["NoNewPrivs"] == "1"
        try:  # not dumpable: the owner cannot read its environment (root can: there is nothing left)
            assert CANARY.encode() not in Path(f"/proc/{program.pid}/environ").read_bytes()
        except PermissionError:
            pass
    finally:
        program.send_signal(signal.SIGINT)
        _, stderr = program.communicate(timeout=60)
    assert program.returncode == -signal.SIGINT and stderr == b"KeyboardInterrupt\n"


def test_a_program_runs_as_before_in_the_jail(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "gradcalc", "-e",
                           "x = tensor([1., 2.], requires_grad=True); (x * x).sum().backward(); print(x.grad)"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert (done.stdout, done.stderr, done.returncode) == ("tensor([2., 4.])\n", "", 0)
    version = subprocess.run([sys.executable, "-m", "gradcalc", "--version"], capture_output=True, text=True,
                             timeout=60)
    assert version.stdout.splitlines()[1] == f"sandbox: {jail.walls()}"


# ------------------------------------------------------------------ the worker

@pytest.fixture
def worker():
    from gradcalc.worker.client import Worker

    started = Worker(capture=True, hints=True)
    started.start()
    yield started
    started.close()


def test_worker_runs_completes_inspects_and_resets(worker) -> None:
    assert worker.sandbox == jail.walls()
    assert _status(worker.pid)["Seccomp"] == "2"
    reply = worker.run("x = tensor([1., 2.], requires_grad=True); y = (x * x).sum(); y")
    assert reply == {"status": "ok", "exit_code": None, "statements_done": 3,
                     "stdout": "tensor(5., grad_fn=<SumBackward0>)\n", "stderr": ""}
    assert worker.run("tensr(1.)")["stderr"] == "NameError: name 'tensr' is not defined. Did you mean: 'tensor'?\n"
    assert worker.complete("x.requ") == ["requires_grad", "requires_grad_"]
    assert "x" in worker.complete("z = x.requ", cursor=5)
    assert "requires_grad" in worker.inspect("vars", width=80)["text"]
    assert worker.inspect("graph", name="y", width=80)["text"].startswith("y: tensor [] float32")
    assert worker.inspect("graph", name="nothing") == {"error": "name 'nothing' is not defined"}
    worker.reset()
    assert worker.run("x")["status"] == "error"
    assert worker.run("import sys; sys.exit(3)")["exit_code"] == 3


def test_worker_is_interrupted_and_goes_on(worker) -> None:
    replies = []
    running = threading.Thread(target=lambda: replies.append(worker.run("while True: pass")))
    running.start()
    deadline = time.monotonic() + 120
    while running.is_alive() and time.monotonic() < deadline:
        worker.interrupt()  # until it lands while the program runs
        running.join(0.1)
    assert replies and replies[0]["status"] == "interrupted" and replies[0]["stderr"] == "KeyboardInterrupt\n"
    assert worker.run("1 + 1")["stdout"] == "2\n"


def _ctrl_c_once_written(monkeypatch, wait: float = 0.0) -> None:
    """Ctrl-C (SIGINT to this process) just after each request is written, before the front end
    waits for its reply: where a loaded machine's scheduler may let it land."""
    from gradcalc.worker import client

    def send_then_ctrl_c(fd: int, message: dict) -> None:
        client_send(fd, message)
        time.sleep(wait)  # the program under way in the worker
        os.kill(os.getpid(), signal.SIGINT)

    client_send = client.send
    monkeypatch.setattr(client, "send", send_then_ctrl_c)


@pytest.fixture
def python_ctrl_c():
    """Python's own Ctrl-C (KeyboardInterrupt), even where the tests run as a background job,
    whose SIGINT is ignored."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


def test_ctrl_c_just_after_the_request_interrupts_the_program(worker, monkeypatch, python_ctrl_c) -> None:
    _ctrl_c_once_written(monkeypatch, wait=1.0)
    rescue = threading.Timer(60, worker.interrupt)  # a worker too slow to start its program
    rescue.start()
    try:
        reply = worker.run("while True: pass")
    except KeyboardInterrupt:
        pytest.fail("Ctrl-C left the program running in the worker, its reply unread")
    finally:
        rescue.cancel()
    assert reply["status"] == "interrupted" and reply["stderr"] == "KeyboardInterrupt\n"
    monkeypatch.undo()
    assert worker.run("1 + 1")["stdout"] == "2\n"


def test_ctrl_c_during_an_inspection_leaves_no_reply_behind(worker, monkeypatch, python_ctrl_c) -> None:
    worker.run("x = 1")
    _ctrl_c_once_written(monkeypatch)
    with pytest.raises(KeyboardInterrupt):
        worker.inspect("names")
    monkeypatch.undo()
    assert worker.run("x + 1")["stdout"] == "2\n"  # its own reply, not the inspection's


# a program that keeps the collector busy: a cycle made at each turn, a collection every few hundred
_CYCLES = "while True:\n    cycle = []\n    cycle.append(cycle)\n"


def _run_under_ctrl_c_again_and_again(worker) -> dict:
    """`worker`'s reply to _CYCLES, with Ctrl-C sent every 2 ms until it ends."""
    replied = threading.Event()

    def press() -> None:
        time.sleep(0.05)  # the program under way
        while not replied.wait(0.002):
            worker.interrupt()

    presser = threading.Thread(target=press)
    presser.start()
    try:
        return worker.run(_CYCLES)
    finally:
        replied.set()
        presser.join()


def test_ctrl_c_landing_while_the_collector_runs_is_reported_and_leaves_the_wall_as_it_was(tmp_path) -> None:
    # an interrupt that lands while a collection's callbacks run must not be lost, nor written as
    # an error "ignored" in one of gradcalc's functions, nor leave the wall up or down
    from gradcalc.worker.client import Worker

    with open(tmp_path / "worker-stderr", "w+", encoding="utf-8") as worker_stderr:
        worker = Worker(capture=True, stderr=worker_stderr)
        worker.start()
        try:
            before = [worker.run(source) for source in ("import subprocess", "x = tensor([1., 2.]); x * 2")]
            replies = [_run_under_ctrl_c_again_and_again(worker) for _ in range(40)]
            after = [worker.run(source) for source in ("import subprocess", "x = tensor([1., 2.]); x * 2")]
        finally:
            worker.close()
        worker_stderr.seek(0)
        written = worker_stderr.read()
    unlike = [reply["stderr"] for reply in replies if reply["status"] != "interrupted"
              or reply["stderr"] != "KeyboardInterrupt\n"]
    assert not unlike, unlike[0]
    assert written == ""
    assert after == before and before[0]["status"] == "error" and before[1]["status"] == "ok"


@pytest.mark.parametrize("kill", [signal.SIGKILL, signal.SIGSEGV])
def test_a_dead_worker_is_said_and_replaced(worker, kill: int) -> None:
    from gradcalc.worker.client import WorkerDied

    worker.run("x = 1")
    os.kill(worker.pid, kill)
    with pytest.raises(WorkerDied, match=f"was killed by {signal.Signals(kill).name}"):
        worker.run("x")
    worker.restart()
    assert worker.run("x")["stderr"] == "NameError: name 'x' is not defined\n"


# ------------------------------------------------------------------ the REPL outlives its worker

def _worker_of(repl_pid: int) -> int:
    """The REPL's worker: its child that has jailed itself."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        children = Path(f"/proc/{repl_pid}/task/{repl_pid}/children").read_text().split()
        for child in map(int, children):
            try:
                if _status(child).get("Seccomp") == "2":
                    return child
            except FileNotFoundError:
                pass
        time.sleep(0.05)
    raise AssertionError("the REPL has no jailed worker")


def _wait_until_dead(pid: int) -> None:
    """Until the whole process is dead: its main thread turns zombie while its other threads are
    still being torn down, and until they are, its parent cannot see it end."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            if _status(pid)["State"].startswith("Z") and os.listdir(f"/proc/{pid}/task") == [str(pid)]:
                return
        except FileNotFoundError:
            return
        time.sleep(0.05)
    raise AssertionError(f"process {pid} did not die")


def test_the_repl_survives_its_worker(tmp_path: Path) -> None:
    from terminal import Terminal, gradcalc_command, gradcalc_environment

    def run(line: str) -> str:
        """Type a line; what it printed before the next prompt."""
        term.send(line + "\r")
        term.expect(line + "\n")  # the input as drawn once run
        return term.expect(">>>", timeout=60)

    term = Terminal(gradcalc_command("--max-memory", "1G"), gradcalc_environment(tmp_path))
    try:
        term.expect(">>>")
        run("x = 1")
        for kill in (signal.SIGKILL, signal.SIGSEGV):
            worker = _worker_of(term.pid)
            os.kill(worker, kill)
            _wait_until_dead(worker)  # then the REPL finds it dead before it sends the next input
            term.send("x + 1\r")
            # each line as the terminal gets it (the fresh worker writes its error itself, the front
            # end its prompt: on a busy machine the two may reach the terminal in either order)
            said = term.expect("a fresh session starts (variables are lost)\n", timeout=120)
            assert f"gradcalc: the worker was killed by {signal.Signals(kill).name}; " in said
            said = term.expect("NameError: name 'x' is not defined", timeout=120)  # ran in the fresh session
            assert "gradcalc: the worker" not in said
            term.expect(">>>", timeout=60)
            run("x = 1")
        # memory exhausted: the ceiling ends the program in one line (PyTorch's), and the session goes on
        said = run("big = ones(2 ** 31)")
        assert said.startswith("RuntimeError: ") and "can't allocate memory" in said and said.count("\n") == 1
        assert "2\n" in run("x + 1")
        term.send("\x04")
        assert term.wait() == 0
    finally:
        term.close()


def test_the_front_end_trusts_no_message_of_a_worker() -> None:
    """A worker that escaped the policy writes what it likes on its reply pipe: a length beyond
    the limit, or bytes that are not a JSON object, end the channel rather than the front end."""
    from gradcalc.worker.protocol import MAX_MESSAGE, ChannelClosed, Receiver

    for data in (struct.pack(">I", MAX_MESSAGE + 1), struct.pack(">I", 3) + b"\xff\xfe{", struct.pack(">I", 2) + b"[]"):
        read, write = os.pipe()
        os.write(write, data)
        os.close(write)
        with pytest.raises(ChannelClosed):
            Receiver(read).receive()
        os.close(read)
