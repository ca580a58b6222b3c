"""Colour on a terminal never changes a character; plain text whenever colour is off."""
from __future__ import annotations

import io
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, strategies as st

from gradcalc.display.color import use_color
from gradcalc.display.console import RichOutput, make_output, spans
from gradcalc.session import Session, TextOutput

REPO = Path(__file__).resolve().parent.parent
ANSI = re.compile(r"\x1b\[[0-9;]*m")

PROGRAMS = [
    "x = tensor(3.0, requires_grad=True); y = x**2 + 3*x + 2; y",
    "y = tensor(3.0, requires_grad=True) * 2; y.backward(); y",
    "tensor([1., 4.], requires_grad=True)",
    "tensor([[1.5, -2.0, 3.25], [1e-8, 1e8, -float('inf')]], dtype=torch.float64)",
    "w = tensor([[1., 2.], [3., 4.]], requires_grad=True); (w @ w).sum(); w @ w",
    "tensor([1, 2, 3]), tensor([True, False]), tensor([1+2j, 3-4j])",
    "arange(2000.).reshape(40, 50)",
    "zeros(0, 3)",
    "nn.Parameter(ones(2))",
    "x = ones(2, 3); x.shape; x.dtype; x.size()",
    "('a[b]', \"it's\", '[bold]x[/bold]', ':smile:', 'tab\\there', None, True, 1.5e-3, -7)",
    "{'k': [1, 2.5, 'v']}",
    "print('a\\tb', 3, 'x[1]', ':smile:', end='!\\n'); print(tensor([1., 2.]) * 2)",
    "print('it\\'s 3 o\\'clock', \"[red]no markup[/red]\", sep='\\t')",
    "x = tensor([1., 2.], requires_grad=True); y = x * 2; y.grad",
    "tensor(1.0).backward()",
    "x = (1 +* 2)",
    "y = ones(2, requires_grad=True) * 2; y.grad_fn",
]


def run(program: str, output_class: type) -> tuple[str, str]:
    stdout, stderr = io.StringIO(), io.StringIO()
    Session(output_class(stdout, stderr)).run(program)
    return stdout.getvalue(), stderr.getvalue()


@pytest.mark.parametrize("program", PROGRAMS)
def test_colour_keeps_every_character(program: str) -> None:
    plain = run(program, TextOutput)
    coloured = run(program, RichOutput)
    strip = [ANSI.sub("", text) for text in coloured]
    # memory addresses differ between two runs: compare them as PyTorch's answers are compared
    addresses = re.compile(r"0x[0-9a-f]+")
    assert [addresses.sub("0x", text) for text in strip] == [addresses.sub("0x", text) for text in plain]


def test_colour_is_applied() -> None:
    out, err = run("x = tensor(3.0, requires_grad=True); y = x * 2; y; y.sum().backward(); y.sum().backward()",
                   RichOutput)
    assert "\x1b[36m3." not in out  # the 3.0 was typed, not echoed
    assert "\x1b[36m6.\x1b[0m" in out  # numbers
    assert "\x1b[35mgrad_fn=<MulBackward0>\x1b[0m" in out
    assert err.startswith("\x1b[1;31mRuntimeError\x1b[0m\x1b[31m: Trying to backward")  # errors in red
    out, err = run("x = ones(2, requires_grad=True) * 2; x.grad; tensor([1.], dtype=torch.float64)", RichOutput)
    assert err.startswith("\x1b[1;33mUserWarning\x1b[0m\x1b[33m: The .grad attribute")  # warnings in yellow
    assert "\x1b[94mdtype=torch.float64\x1b[0m" in out


def test_printed_prose_keeps_its_quotes_plain() -> None:
    pieces = list(spans("it's 3 o'clock\n", strings=False))
    assert "".join(piece for piece, _ in pieces) == "it's 3 o'clock\n"
    assert all(kind is None for _, kind in pieces)
    assert ("'a'", "string") in list(spans("['a']"))


@given(st.text())
def test_spans_join_back_to_the_text(text: str) -> None:
    assert "".join(piece for piece, _ in spans(text)) == text


def test_use_color(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.delenv("FORCE_COLOR", raising=False)
    assert use_color(True, io.StringIO()) and not use_color(False, io.StringIO())
    assert not use_color(None, io.StringIO())  # not a terminal
    monkeypatch.setenv("FORCE_COLOR", "1")  # as Rich reads it: set and not empty forces colour
    assert use_color(None, io.StringIO()) and not use_color(False, io.StringIO())
    monkeypatch.setenv("FORCE_COLOR", "")
    assert not use_color(None, io.StringIO())
    monkeypatch.setenv("FORCE_COLOR", "1")
    monkeypatch.setenv("NO_COLOR", "1")  # NO_COLOR wins, as in Rich
    assert not use_color(None) and use_color(True)
    assert type(make_output(None)) is TextOutput


def gradcalc(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    full_env = {key: value for key, value in os.environ.items() if key not in ("NO_COLOR", "FORCE_COLOR")}
    full_env.update(env or {})
    return subprocess.run([sys.executable, "-m", "gradcalc", *args], capture_output=True, text=True, cwd=REPO,
                          env=full_env, timeout=300)


CODE = "x = tensor([1., 2.], requires_grad=True); y = (x * 2).sum(); y; print(x); y.backward(); y.backward()"


def test_cli_colour_only_when_asked_or_on_a_terminal() -> None:
    piped = gradcalc("-e", CODE)
    assert piped.returncode == 1 and "\x1b" not in piped.stdout + piped.stderr
    assert piped.stdout == "tensor(6., grad_fn=<SumBackward0>)\ntensor([1., 2.], requires_grad=True)\n"
    assert piped.stderr.startswith("RuntimeError: Trying to backward through the graph a second time")
    forced = gradcalc("--color", "-e", CODE, env={"TERM": "xterm-256color"})
    assert forced.returncode == 1 and "\x1b[" in forced.stdout and "\x1b[" in forced.stderr
    assert (ANSI.sub("", forced.stdout), ANSI.sub("", forced.stderr)) == (piped.stdout, piped.stderr)
    assert gradcalc("--no-color", "-e", CODE).stdout == piped.stdout
    assert gradcalc("-e", CODE, env={"NO_COLOR": "1"}).stdout == piped.stdout
    forced_by_environment = gradcalc("-e", CODE, env={"FORCE_COLOR": "1", "TERM": "xterm-256color"})
    assert (forced_by_environment.stdout, forced_by_environment.stderr) == (forced.stdout, forced.stderr)
    assert gradcalc("--no-color", "-e", CODE, env={"FORCE_COLOR": "1"}).stdout == piped.stdout


def test_one_line_imports_neither_rich_without_colour_nor_click_nor_the_editor() -> None:
    code = ("import sys, gradcalc.cli; sys.argv = ['gradcalc', '-e', '1']\n"
            "try: gradcalc.cli.main()\nexcept SystemExit: pass\n"
            "print(sorted(m for m in ('rich', 'prompt_toolkit', 'pygments', 'click') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, timeout=300)
    assert out.stdout == "1\n[]\n"
