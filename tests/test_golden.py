"""Golden programs beyond what the plugin collects (tests/golden/ and examples/, see conftest.py):
the shared conformance corpus when it sits beside the repository, and a sample of the programs
through the installed `gradcalc` command, as users run them."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from golden_programs import CORPUS, KNOWN_GAPS, golden_name, golden_programs, known_gap

from gradcalc.autograd import cpu
from gradcalc.golden import differences, expected_machines, read_expected, run

PROGRAMS = golden_programs()
CORPUS_PROGRAMS = sorted(p for p in CORPUS.rglob("*.grad") if p.with_suffix(".expected.json").exists()) \
    if CORPUS.is_dir() else []


def test_known_gaps_name_existing_programs() -> None:
    answers = {golden_name(p) + (f"[{machine}]" if machine else "")
               for p in PROGRAMS + CORPUS_PROGRAMS for machine in expected_machines(p)}
    answers |= {f"{answer}[as {capability}]" for answer in answers if "[" not in answer
                for capability in cpu.CAPABILITIES}
    assert set(KNOWN_GAPS) <= answers


@pytest.mark.machine
@pytest.mark.parametrize("program", CORPUS_PROGRAMS, ids=[golden_name(p) for p in CORPUS_PROGRAMS])
def test_corpus_program(program: Path) -> None:
    diff = differences(read_expected(program), run(program))
    assert not diff, diff


def _console_script() -> list:
    found = shutil.which("gradcalc", path=os.path.dirname(sys.executable)) or shutil.which("gradcalc")
    return [found] if found else [sys.executable, "-m", "gradcalc"]


# (program, machine): a program whose answers differ by machine runs as on the first kept
SCRIPT_PROGRAMS = [(p, m) for p in PROGRAMS for m in expected_machines(p)[:1] if not known_gap(golden_name(p), m)][::10]


@pytest.mark.machine
@pytest.mark.parametrize("program, machine", SCRIPT_PROGRAMS, ids=[golden_name(p) for p, _ in SCRIPT_PROGRAMS])
def test_program_through_console_script(program: Path, machine: str) -> None:
    expected = read_expected(program, machine)
    env = {**os.environ, "NO_COLOR": "1", **(cpu.machine_environment(expected["machine"]) if machine else {})}
    done = subprocess.run(_console_script() + [program.name], cwd=program.parent, capture_output=True, text=True,
                          stdin=subprocess.DEVNULL, timeout=300, env=env)
    diff = differences(expected, {"stdout": done.stdout, "stderr": done.stderr, "rc": done.returncode})
    assert not diff, diff
