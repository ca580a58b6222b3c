"""The command line as users meet it: the installed `gradcalc` and `python -m gradcalc`."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import gradcalc

GRADCALC = shutil.which("gradcalc", path=os.path.dirname(sys.executable))
COMMANDS = [[sys.executable, "-m", "gradcalc"]] + ([[GRADCALC]] if GRADCALC else [])
PROGRAM = "x = tensor(3.0, requires_grad=True); y = x**2+3*x+2; y.backward(); x.grad"


def run(command: list, *args: str, stdin: str | None = None, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(command + list(args), input=stdin, capture_output=True, text=True, timeout=60, cwd=cwd,
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


def test_version_and_help(command: list) -> None:
    assert run(command, "--version").stdout == f"gradcalc {gradcalc.__version__}\n"
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
