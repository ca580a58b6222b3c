"""Golden programs: `NAME.grad` beside `NAME.expected.json` = {"stdout", "stderr", "rc"}.

A course author keeps exercises and their expected output in a folder; `pytest` (through the
plugin in plugin.py) runs each program through gradcalc and shows what differs. The expected
files come from gradcalc itself (`--gradcalc-update`) or from real PyTorch through the reference
runner (`--gradcalc-oracle PYTHON`, reference.py beside this file), never from typing.

How outputs compare is the project's contract with PyTorch (SPEC §1): stdout, stderr and the exit
status must be equal, except that memory addresses (`0x7f3a...`) may differ and a syntax error
only has to agree on stderr's first word, `SyntaxError:`.

PyTorch's last bits move with the processor (ATen's kernels, MKL's code path). An answer that
does is kept once per machine it was recorded on, `NAME.avx512.expected.json`,
`NAME.avx2.expected.json`, ..., each naming that machine under "machine" (autograd/cpu.py's
machine_record), and gradcalc is run emulating that machine, so that it passes on any. The oracle
finds out which answers move by recording each program under every ATen capability the processor
can run, and keeps one answer, for every machine, if they agree.
"""
from __future__ import annotations

import difflib
import json
import re
import os
import subprocess
import tempfile
from pathlib import Path
from typing import Optional, TypedDict

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


def expected_path(program: Path, machine: Optional[str] = None) -> Path:
    """`NAME.expected.json`, or `NAME.MACHINE.expected.json` for the answer of one machine (its label)."""
    infix = f".{machine}" if machine else ""
    return program.with_name(program.name.removesuffix(".grad") + infix + EXPECTED_SUFFIX)


def expected_machines(program: Path) -> list[Optional[str]]:
    """The answers kept for PROGRAM: [None] for one answer on every machine, else the machines' labels."""
    stem = program.name.removesuffix(".grad")
    labels = sorted(path.name[len(stem) + 1:-len(EXPECTED_SUFFIX)]
                    for path in program.parent.glob(f"{stem}.*{EXPECTED_SUFFIX}"))
    return ([None] if expected_path(program).is_file() else []) + [label for label in labels if "." not in label]


def read_expected(program: Path, machine: Optional[str] = None) -> dict:
    """The answer, and under "machine" the machine it holds for (only where it depends on it)."""
    return json.loads(expected_path(program, machine).read_text(encoding="utf-8"))


def write_expected(program: Path, answer: dict, machine: Optional[dict] = None) -> Path:
    """Keep ANSWER, for every machine or (MACHINE, a machine record) for that one; where it is kept."""
    fields = {"stdout": answer["stdout"], "stderr": answer["stderr"], "rc": answer["rc"]}
    label = None
    if machine:
        from ..autograd.cpu import machine_label

        fields["machine"], label = machine, machine_label(machine)
    path = expected_path(program, label)
    path.write_text(json.dumps(fields, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return path


def run(program: Path, machine: Optional[dict] = None) -> Answer:
    """What `gradcalc PROGRAM` prints and its exit status, from a fresh start: in a child of this
    process that jails itself first (the second wall holds here too; this process runs no program),
    computing as on MACHINE (a machine record) if given, whatever this processor is."""
    from ..worker.zygote import run_in_child

    return run_in_child(program.read_text(encoding="utf-8"), program.name, machine)


class OracleError(Exception):
    """The reference runner could not give an answer (no torch in that Python, a hang)."""


def record(python: str, program: Path, aten: Optional[str] = None) -> Answer:
    """What real PyTorch prints for PROGRAM: the reference runner under `python`, in a fresh process
    in an empty folder of its own (the files it writes start from nothing, as a gradcalc program's
    do, and vanish with the folder), ATen's capability forced to ATEN if given, numpy pinned
    as gradcalc pins it."""
    from ..autograd import cpu
    from ..machine import numpy_pins

    env = {**os.environ, **numpy_pins(), **(cpu.CAPABILITIES[aten] if aten else {})}
    try:
        with tempfile.TemporaryDirectory(prefix="gradcalc-oracle-") as folder:
            done = subprocess.run([python, str(REFERENCE), str(program.resolve())], cwd=folder, capture_output=True,
                                  text=True, timeout=ORACLE_TIMEOUT, env=env)
    except OSError as error:
        raise OracleError(f"cannot run {python}: {error.strerror}") from None
    except subprocess.TimeoutExpired:
        raise OracleError(f"{program.name} did not end in {ORACLE_TIMEOUT} s under {python}") from None
    if "ModuleNotFoundError: No module named 'torch'" in done.stderr:
        raise OracleError(f"{python} has no torch: --gradcalc-oracle needs a Python with torch 2.13 installed")
    return {"stdout": done.stdout, "stderr": done.stderr, "rc": done.returncode}


def record_on_every_machine(python: str, program: Path) -> list[tuple[Optional[dict], Answer]]:
    """PyTorch's answers for PROGRAM under each ATen capability this processor can run, with the
    machine each holds for: [(None, answer)] if they agree (on a processor with AVX-512, which runs
    both), else one per machine."""
    from ..autograd import cpu

    runnable = tuple(cpu.CAPABILITIES) if cpu.processor_has_avx512() else ("avx2",)
    answers = [(cpu.machine_record(aten), record(python, program, aten)) for aten in runnable]
    if len(answers) > 1 and all(_masked(answer) == _masked(answers[0][1]) for _, answer in answers):
        return [(None, answers[0][1])]
    return answers


def _masked(answer: Answer) -> Answer:
    """An answer with its memory addresses masked: two runs print two addresses for one object."""
    return {key: ADDRESS.sub(MASKED, value) if isinstance(value, str) else value for key, value in answer.items()}


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
