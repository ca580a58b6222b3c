"""Golden programs: gradcalc's stdout, stderr and exit status against answers recorded from PyTorch.

Programs live in tests/golden/ and examples/ (recorded with tests/golden/record.py) and, when the shared
conformance corpus sits beside the repository, in ../shared/oracle/corpus as well.
"""
from __future__ import annotations

import io
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from gradcalc.session import Session, TextOutput, reset_global_state

REPO = Path(__file__).resolve().parent.parent
GOLDEN = REPO / "tests" / "golden"
EXAMPLES = REPO / "examples"
CORPUS = REPO.parent / "shared" / "oracle" / "corpus"
ADDRESS = re.compile(r"0x[0-9a-fA-F]+")


def _programs() -> list:
    found = sorted(GOLDEN.rglob("*.grad")) + sorted(EXAMPLES.glob("*.grad"))
    if CORPUS.is_dir():
        found += sorted(CORPUS.rglob("*.grad"))
    return [p for p in found if p.with_suffix(".expected.json").exists()]


def _name(program: Path) -> str:
    for root in (GOLDEN, REPO, CORPUS.parent):
        if program.is_relative_to(root):
            return str(program.relative_to(root).with_suffix(""))
    return str(program)


def run_in_process(program: Path) -> dict:
    reset_global_state()
    stdout, stderr = io.StringIO(), io.StringIO()
    session = Session(TextOutput(stdout, stderr))
    ok = session.run(program.read_text(encoding="utf-8"), program.name)
    status = session.exit_status if session.exit_status is not None else 0 if ok else 1
    return {"stdout": stdout.getvalue(), "stderr": stderr.getvalue(), "rc": status}


def assert_same(expected: dict, got: dict) -> None:
    assert got["rc"] == expected["rc"], got["stderr"]
    assert ADDRESS.sub("0x?", got["stdout"]) == ADDRESS.sub("0x?", expected["stdout"])
    if expected["stderr"].startswith("SyntaxError:"):
        assert got["stderr"].startswith("SyntaxError:")
    else:
        assert ADDRESS.sub("0x?", got["stderr"]) == ADDRESS.sub("0x?", expected["stderr"])


PROGRAMS = _programs()
# programs that reach parts of PyTorch gradcalc does not have yet, and which part; strict, so that
# a program that starts passing must leave this list
KNOWN_GAPS = json.loads((GOLDEN / "known_gaps.json").read_text(encoding="utf-8"))


def _param(program: Path) -> object:
    gap = KNOWN_GAPS.get(_name(program))
    marks = [pytest.mark.xfail(reason=f"not yet in gradcalc: {gap}", strict=True)] if gap else []
    return pytest.param(program, id=_name(program), marks=marks)


def test_known_gaps_name_existing_programs() -> None:
    assert set(KNOWN_GAPS) <= {_name(p) for p in PROGRAMS}


@pytest.mark.parametrize("program", [_param(p) for p in PROGRAMS])
def test_program(program: Path) -> None:
    expected = json.loads(program.with_suffix(".expected.json").read_text(encoding="utf-8"))
    assert_same(expected, run_in_process(program))


def _console_script() -> list:
    found = shutil.which("gradcalc", path=os.path.dirname(sys.executable)) or shutil.which("gradcalc")
    return [found] if found else [sys.executable, "-m", "gradcalc"]


SCRIPT_PROGRAMS = [p for p in PROGRAMS if not p.is_relative_to(CORPUS) and _name(p) not in KNOWN_GAPS][::10]


@pytest.mark.parametrize("program", SCRIPT_PROGRAMS, ids=[_name(p) for p in SCRIPT_PROGRAMS])
def test_program_through_console_script(program: Path) -> None:
    """A sample of the programs through the installed `gradcalc` command, as users run them."""
    expected = json.loads(program.with_suffix(".expected.json").read_text(encoding="utf-8"))
    done = subprocess.run(_console_script() + [program.name], cwd=program.parent, capture_output=True, text=True,
                          stdin=subprocess.DEVNULL, timeout=60, env={**os.environ, "NO_COLOR": "1"})
    assert_same(expected, {"stdout": done.stdout, "stderr": done.stderr, "rc": done.returncode})
