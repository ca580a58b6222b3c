"""The command line as users meet it: the installed `gradcalc` and `python -m gradcalc`."""
from __future__ import annotations

import io
import json
import os
import shlex
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import gradcalc

GRADCALC = shutil.which("gradcalc", path=os.path.dirname(sys.executable))
COMMANDS = [[sys.executable, "-m", "gradcalc"]] + ([[GRADCALC]] if GRADCALC else [])
PROGRAM = "x = tensor(3.0, requires_grad=True); y = x**2+3*x+2; y.backward(); x.grad"


def run(command: list, *args: str, stdin: str | None = None, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(command + list(args), input=stdin, capture_output=True, text=True, timeout=300, cwd=cwd,
                          env={**os.environ, "NO_COLOR": "1"}, stdin=None if stdin is not None else subprocess.DEVNULL)


@pytest.fixture(params=COMMANDS, ids=lambda c: "console-script" if len(c) == 1 else "python-m")
def command(request: pytest.FixtureRequest) -> list:
    return request.param


def test_one_line(command: list) -> None:
    done = run(command, "-e", PROGRAM)
    assert (done.stdout, done.stderr, done.returncode) == ("tensor(9.)\n", "", 0)


def test_script_file(command: list, tmp_path: Path) -> None:
    (tmp_path / "p.grad").write_text("x = ones(2, requires_grad=True)\n(x * 3).sum().backward()\nx.grad\n")
    done = run(command, "p.grad", cwd=tmp_path)
    assert (done.stdout, done.returncode) == ("tensor([3., 3.])\n", 0)


def test_standard_input(command: list) -> None:
    done = run(command, "-", stdin="a = 2\na * 3\n")
    assert (done.stdout, done.returncode) == ("6\n", 0)


def test_error_ends_the_run_with_status_1(command: list) -> None:
    done = run(command, "-e", "print(1); tensor(1.).backward(); print(2)")
    assert done.stdout == "1\n"
    assert done.stderr == "RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn\n"
    assert done.returncode == 1


def test_syntax_error_shows_where_and_runs_nothing(command: list) -> None:
    done = run(command, "-e", "print('never')\nx = tensor([1., 2.]\ny = 1")
    assert done.returncode == 1
    assert done.stdout == ""
    first, where, source, caret, *_ = done.stderr.splitlines()
    assert first == "SyntaxError: '(' was never closed"
    assert where == "line 2, column 11"
    assert source.strip() == "x = tensor([1., 2.]"
    assert caret.index("^") == source.index("(")


@pytest.mark.parametrize("how", ["file", "stdin"])
def test_bytes_that_are_not_utf8_are_a_syntax_error_as_in_python(command: list, tmp_path: Path, how: str) -> None:
    (tmp_path / "p.grad").write_bytes(b'print(1)\nprint("\xff")\n')
    if how == "file":
        done = subprocess.run(command + ["p.grad"], capture_output=True, cwd=tmp_path, stdin=subprocess.DEVNULL)
    else:
        done = subprocess.run(command + ["-"], capture_output=True, input=(tmp_path / "p.grad").read_bytes())
    name = "p.grad" if how == "file" else "<stdin>"
    assert (done.returncode, done.stdout) == (1, b"")
    assert done.stderr.decode() == (f"SyntaxError: Non-UTF-8 code starting with '\\xff' in file {name} on line 2, but "
                                    "no encoding declared; see https://peps.python.org/pep-0263/ for details\n")


def test_a_memory_ceiling_too_low_to_load_is_said_in_one_line(command: list) -> None:
    done = run(command, "--max-memory", "1M", "-e", "print(1)")
    assert (done.stdout, done.stderr, done.returncode) == (
        "", "gradcalc: out of memory while starting: the memory ceiling (--max-memory) is too low for gradcalc to "
        "load\n", 1)


FRESH_PROCESS = Path(__file__).parent / "fresh_process"


@pytest.mark.parametrize("program", sorted(FRESH_PROCESS.glob("*.grad")), ids=lambda path: path.stem)
def test_programs_that_need_a_fresh_process_answer_as_pytorch(program: Path) -> None:
    expected = json.loads(program.with_suffix(".answer.json").read_text(encoding="utf-8"))
    done = run([GRADCALC or sys.executable], *([] if GRADCALC else ["-m", "gradcalc"]), program.name,
               cwd=program.parent)
    assert {"stdout": done.stdout, "stderr": done.stderr, "rc": done.returncode} == expected


def test_version_and_help(command: list) -> None:
    version, sandbox, backend = run(command, "--version").stdout.splitlines()
    assert version == f"gradcalc {gradcalc.__version__}"
    assert sandbox.startswith("sandbox: ") and "rlimits" in sandbox  # the walls this system puts up
    # the backend of PyTorch's MKL results (the test suite runs with the emulation)
    assert backend == "backend: emulation (GRADCALC_MKL=0)"
    help_text = run(command, "--help")
    assert help_text.returncode == 0 and "-e, --exec CODE" in help_text.stdout


@pytest.mark.parametrize("args", [["no-such-file.grad"], ["-e"], ["--bogus"], ["a.grad", "-e", "1"]])
def test_usage_errors_exit_2(command: list, args: list, tmp_path: Path) -> None:
    (tmp_path / "a.grad").write_text("1\n")
    done = run(command, *args, cwd=tmp_path)
    assert done.returncode == 2
    assert "Traceback" not in done.stderr


def test_piped_output_is_plain_and_colour_can_be_forced(command: list) -> None:
    plain = run(command, "-e", "tensor([1., 2.], requires_grad=True)")
    coloured = run(command, "--color", "-e", "tensor([1., 2.], requires_grad=True)")
    assert "\x1b[" not in plain.stdout and "\x1b[" in coloured.stdout


# ------------------------------------------------------------------ a Unix tool

LOOP = "print('started', flush=True)\nwhile True:\n    pass\n"


def sigint_as_in_a_terminal() -> None:
    """Ctrl-C's default action in the child, even when these tests run in a background job (whose
    shell ignores SIGINT, an ignore every child inherits)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def interrupt(command: list, tmp_path: Path, how: str) -> subprocess.Popen:
    """gradcalc running an endless program (as -e, a script, or stdin), SIGINT once it has started."""
    (tmp_path / "loop.grad").write_text(LOOP)
    args = {"-e": ["-e", LOOP], "script": ["loop.grad"], "stdin": ["-"]}[how]
    process = subprocess.Popen(command + args, cwd=tmp_path, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, env={**os.environ, "NO_COLOR": "1"},
                               preexec_fn=sigint_as_in_a_terminal)
    if how == "stdin":
        process.stdin.write(LOOP)
    process.stdin.close()
    assert process.stdout.readline() == "started\n"
    process.send_signal(signal.SIGINT)
    return process


@pytest.mark.parametrize("how", ["-e", "script", "stdin"])
def test_ctrl_c_ends_with_keyboard_interrupt_and_sigint(command: list, tmp_path: Path, how: str) -> None:
    process = interrupt(command, tmp_path, how)
    assert process.wait(timeout=300) == -signal.SIGINT  # ended by the signal, as Python ends on Ctrl-C
    assert process.stdout.read() == "" and process.stderr.read() == "KeyboardInterrupt\n"


# an endless program that keeps the collector busy: each turn leaves a cycle of 22 objects
CYCLES = ("print('started', flush=True)\nwhile True:\n    cycle = [" + ", ".join(["[]"] * 20) + "]\n"
          "    cycle.append(cycle)\n")


def ctrl_c_until_it_ends(program: str, every: float) -> subprocess.Popen:
    """`gradcalc -e program`, Ctrl-C sent every `every` seconds from its start until it ends."""
    process = subprocess.Popen(COMMANDS[0] + ["-e", program], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True, env={**os.environ, "NO_COLOR": "1"}, preexec_fn=sigint_as_in_a_terminal)
    assert process.stdout.readline() == "started\n"
    while process.poll() is None:
        process.send_signal(signal.SIGINT)
        time.sleep(every)
    return process


def test_ctrl_c_while_the_collector_runs_ends_with_keyboard_interrupt_and_sigint() -> None:
    # a Ctrl-C landing while a collection's callbacks ran was lost, and written as an error
    # ignored in one of gradcalc's functions: Ctrl-C again and again until it ends, several times
    for _ in range(8):
        process = ctrl_c_until_it_ends(CYCLES, every=0.002)
        assert process.returncode == -signal.SIGINT
        assert process.stdout.read() == "" and process.stderr.read() == "KeyboardInterrupt\n"


def test_ctrl_c_pressed_again_while_the_first_is_reported_changes_nothing() -> None:
    # a second KeyboardInterrupt, raised while the first was reported, escaped as a traceback
    for _ in range(5):
        process = ctrl_c_until_it_ends(LOOP, every=0.0001)
        assert process.returncode == -signal.SIGINT
        assert process.stdout.read() == "" and process.stderr.read() == "KeyboardInterrupt\n"


def test_ctrl_c_gives_the_shell_status_130_and_stops_its_loop(tmp_path: Path) -> None:
    """The shell sees 130 and, since gradcalc died of SIGINT, stops the loop it ran it in."""
    (tmp_path / "loop.grad").write_text(LOOP)
    script = (f"for i in 1 2 3; do {shlex.join(COMMANDS[0])} loop.grad; echo \"status $?\"; done; echo after")
    shell = subprocess.Popen(["bash", "-c", script], cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True, start_new_session=True, env={**os.environ, "NO_COLOR": "1"},
                             preexec_fn=sigint_as_in_a_terminal)
    assert shell.stdout.readline() == "started\n"
    os.killpg(shell.pid, signal.SIGINT)  # as a terminal's Ctrl-C: the whole foreground group
    out, err = shell.communicate(timeout=300)
    assert err == "KeyboardInterrupt\n" and "after" not in out and "started" not in out


def test_ctrl_c_status_in_a_shell(tmp_path: Path) -> None:
    (tmp_path / "loop.grad").write_text(LOOP)
    shell = subprocess.Popen(["bash", "-c", f"{shlex.join(COMMANDS[0])} loop.grad; echo \"status $?\""],
                             cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             env={**os.environ, "NO_COLOR": "1"}, preexec_fn=sigint_as_in_a_terminal)
    assert shell.stdout.readline() == "started\n"
    for child in subprocess.run(["pgrep", "-P", str(shell.pid)], capture_output=True, text=True).stdout.split():
        os.kill(int(child), signal.SIGINT)  # gradcalc alone, so that the shell goes on to report it
    out, err = shell.communicate(timeout=300)
    assert (out, err) == ("status 130\n", "KeyboardInterrupt\n")


@pytest.mark.parametrize("color", [[], ["--no-color"], ["--color"]], ids=["-e alone", "--no-color", "--color"])
def test_a_closed_pipe_ends_quietly(command: list, color: list) -> None:
    """`gradcalc ... | head -2`: the reader goes away; gradcalc ends as Unix tools do, by SIGPIPE, silently."""
    process = subprocess.Popen(command + color + ["-e", "for i in range(10**7):\n    print(i)\n"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               env={**os.environ, "NO_COLOR": "1"})
    assert process.stdout.readline() == "0\n" or color == ["--color"]
    process.stdout.close()
    assert process.wait(timeout=300) == -signal.SIGPIPE
    assert process.stderr.read() == ""


def test_a_closed_pipe_in_a_shell_pipeline() -> None:
    done = subprocess.run(["bash", "-c", f"set -o pipefail; {shlex.join(COMMANDS[0])} -e "
                                         "'for i in range(10**6): print(i)' | head -2; echo \"status $?\""],
                          capture_output=True, text=True, timeout=300, env={**os.environ, "NO_COLOR": "1"})
    assert (done.stdout, done.stderr) == ("0\n1\nstatus 141\n", "")


def test_help_lists_the_exit_statuses(command: list) -> None:
    text = run(command, "--help").stdout
    assert "0 success, 1 an error in the program, 2 a usage error" in " ".join(text.split())
    assert "130 interrupted" in text and "--history-file" in text and "--graph NAME" in text


# ------------------------------------------------------------------ --graph

GRAPH_PROGRAM = "x = tensor([1., 2.], requires_grad=True)\ny = x * 3\nz = y.sum()\nz.backward()\n"


def test_graph_after_a_script_is_the_repls_view(command: list, tmp_path: Path) -> None:
    (tmp_path / "p.grad").write_text(GRAPH_PROGRAM)
    done = run(command, "--graph", "z", "p.grad", cwd=tmp_path)
    assert done.returncode == 0 and done.stderr == ""
    from gradcalc.display import graph
    from gradcalc.display.console import show
    from gradcalc.session import Session, TextOutput

    session = Session(TextOutput(io.StringIO(), io.StringIO()))
    session.run(GRAPH_PROGRAM)
    expected = io.StringIO()
    show(graph.render(graph.collect(session.namespace["z"], "z", session.namespace)), expected, False,
         whole_lines=True)
    assert done.stdout == expected.getvalue()
    assert done.stdout.splitlines()[:2] == ["z: tensor [] float32, grad_fn=<SumBackward0>", "3 nodes, 1 leaf"]
    assert done.stdout.splitlines()[2].startswith("SumBackward0  grad_fn of z")


def test_graph_runs_after_the_program_whatever_its_end(command: list) -> None:
    failed = run(command, "--graph", "y", "-e", "x = ones(1, requires_grad=True); y = x * 2; undefined")
    assert failed.returncode == 1 and "MulBackward0  +1 None  grad_fn of y" in failed.stdout
    assert failed.stderr == "NameError: name 'undefined' is not defined\n"  # no hint: a script says what PyTorch does
    piped = run(command, "--graph", "y", "-", stdin="x = ones(1, requires_grad=True)\ny = x.exp()\n")
    assert piped.returncode == 0 and "ExpBackward0" in piped.stdout and "\x1b" not in piped.stdout


@pytest.mark.parametrize("args, message", [
    (["--graph", "nothing", "-e", "x = 1"], "gradcalc: --graph: name 'nothing' is not defined\n"),
    (["--graph", "x", "-e", "x = 1"], "gradcalc: --graph: 'x' is a int, not a tensor: :graph draws the graph "
                                      "behind a tensor\n"),
])
def test_graph_of_something_else_is_a_usage_error(command: list, args: list, message: str) -> None:
    done = run(command, *args)
    assert (done.stdout, done.stderr, done.returncode) == ("", message, 2)
