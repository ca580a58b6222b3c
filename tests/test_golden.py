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
    ok = Session(TextOutput(stdout, stderr)).run(program.read_text(encoding="utf-8"), program.name)
    return {"stdout": stdout.getvalue(), "stderr": stderr.getvalue(), "rc": 0 if ok else 1}


def assert_same(expected: dict, got: dict) -> None:
    assert got["rc"] == expected["rc"], got["stderr"]
    assert ADDRESS.sub("0x?", got["stdout"]) == ADDRESS.sub("0x?", expected["stdout"])
    if expected["stderr"].startswith("SyntaxError:"):
        assert got["stderr"].startswith("SyntaxError:")
    else:
        assert ADDRESS.sub("0x?", got["stderr"]) == ADDRESS.sub("0x?", expected["stderr"])


PROGRAMS = _programs()


@pytest.mark.parametrize("program", PROGRAMS, ids=[_name(p) for p in PROGRAMS])
def test_program(program: Path) -> None:
    expected = json.loads(program.with_suffix(".expected.json").read_text(encoding="utf-8"))
    assert_same(expected, run_in_process(program))


def _console_script() -> list:
    found = shutil.which("gradcalc", path=os.path.dirname(sys.executable)) or shutil.which("gradcalc")
    return [found] if found else [sys.executable, "-m", "gradcalc"]


SCRIPT_PROGRAMS = [p for p in PROGRAMS if not p.is_relative_to(CORPUS)][::10]


@pytest.mark.parametrize("program", SCRIPT_PROGRAMS, ids=[_name(p) for p in SCRIPT_PROGRAMS])
def test_program_through_console_script(program: Path) -> None:
    """A sample of the programs through the installed `gradcalc` command, as users run them."""
    expected = json.loads(program.with_suffix(".expected.json").read_text(encoding="utf-8"))
    done = subprocess.run(_console_script() + [program.name], cwd=program.parent, capture_output=True, text=True,
                          stdin=subprocess.DEVNULL, timeout=60, env={**os.environ, "NO_COLOR": "1"})
    assert_same(expected, {"stdout": done.stdout, "stderr": done.stderr, "rc": done.returncode})
