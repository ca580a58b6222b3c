"""Golden programs: `NAME.grad` beside `NAME.expected.json` = {"stdout", "stderr", "rc"}.

A course author keeps exercises and their expected output in a folder; `pytest` (through the
plugin in plugin.py) runs each program through gradcalc and shows what differs. The expected
files come from gradcalc itself (`--gradcalc-update`) or from real PyTorch through the reference
runner (`--gradcalc-oracle PYTHON`, reference.py beside this file), never from typing.

How outputs compare is the project's contract with PyTorch (SPEC §1): stdout, stderr and the exit
status must be equal, except that memory addresses (`0x7f3a...`) may differ and a syntax error
only has to agree on stderr's first word, `SyntaxError:`.
"""
from __future__ import annotations

import difflib
import json
import re
import subprocess
from pathlib import Path
from typing import TypedDict

REFERENCE = Path(__file__).resolve().parent / "reference.py"
EXPECTED_SUFFIX = ".expected.json"
ADDRESS = re.compile(r"0x[0-9a-fA-F]+")
MASKED = "0x…"
NO_NEWLINE = "\\ No newline at end of file\n"  # as diff marks a last line without one
# a program that PyTorch does not end in this time is reported as such
ORACLE_TIMEOUT = 300


class Answer(TypedDict):
    stdout: str
    stderr: str
    rc: int


def expected_path(program: Path) -> Path:
    return program.with_name(program.name.removesuffix(".grad") + EXPECTED_SUFFIX)


def read_expected(program: Path) -> Answer:
    return json.loads(expected_path(program).read_text(encoding="utf-8"))


def write_expected(program: Path, answer: Answer) -> None:
    text = json.dumps({"stdout": answer["stdout"], "stderr": answer["stderr"], "rc": answer["rc"]},
                      indent=1, ensure_ascii=False)
    expected_path(program).write_text(text + "\n", encoding="utf-8")


def run(program: Path) -> Answer:
    """What `gradcalc PROGRAM` prints and its exit status, from a fresh start: in a child of this
    process that jails itself first (the second wall holds here too; this process runs no program)."""
    from ..worker.zygote import run_in_child

    return run_in_child(program.read_text(encoding="utf-8"), program.name)


class OracleError(Exception):
    """The reference runner could not give an answer (no torch in that Python, a hang)."""


def record(python: str, program: Path) -> Answer:
    """What real PyTorch prints for PROGRAM: the reference runner under `python`, in a fresh process
    in the program's folder."""
    try:
        done = subprocess.run([python, str(REFERENCE), program.name], cwd=program.parent, capture_output=True,
                              text=True, timeout=ORACLE_TIMEOUT)
    except OSError as error:
        raise OracleError(f"cannot run {python}: {error.strerror}") from None
    except subprocess.TimeoutExpired:
        raise OracleError(f"{program.name} did not end in {ORACLE_TIMEOUT} s under {python}") from None
    if "ModuleNotFoundError: No module named 'torch'" in done.stderr:
        raise OracleError(f"{python} has no torch: --gradcalc-oracle needs a Python with torch 2.13 installed")
    return {"stdout": done.stdout, "stderr": done.stderr, "rc": done.returncode}


def differences(expected: Answer, got: Answer) -> str:
    """'' when gradcalc's answer passes; else what differs, as unified diffs with addresses masked."""
    parts = []
    for stream in ("stdout", "stderr"):
        want, have = ADDRESS.sub(MASKED, expected[stream]), ADDRESS.sub(MASKED, got[stream])
        if stream == "stderr" and want.startswith("SyntaxError:") and have.startswith("SyntaxError:"):
            continue  # gradcalc words its syntax errors better than Python: the first word is enough
        if want != have:
            diff = difflib.unified_diff(want.splitlines(keepends=True), have.splitlines(keepends=True),
                                        f"expected {stream}", f"gradcalc {stream}")
            parts.append("".join(line if line.endswith("\n") else f"{line}\n{NO_NEWLINE}" for line in diff))
    if expected["rc"] != got["rc"]:
        parts.append(f"exit status: expected {expected['rc']}, gradcalc {got['rc']}\n")
    return "".join(parts)
