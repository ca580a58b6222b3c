"""Golden programs: `NAME.grad` beside `NAME.expected.json` = {"stdout", "stderr", "rc"}.

A course author keeps exercises and their expected output in a folder; `pytest` (through the
plugin in plugin.py) runs each program through gradcalc and shows what differs. The expected
files come from gradcalc itself (`--gradcalc-update`) or from real PyTorch through the reference
runner (`--gradcalc-oracle PYTHON`, reference.py beside this file), never from typing.

How outputs compare is the project's contract with PyTorch (SPEC §1): stdout, stderr and the exit
status must be equal, except that memory addresses (`0x7f3a...`) may differ and a syntax error
only has to agree on stderr's first word, `SyntaxError:`.

PyTorch's last bits move with the processor (ATen's kernels, MKL's code path). An answer that
does is kept once per CPU capability, `NAME.avx512.expected.json` and `NAME.avx2.expected.json`,
each naming the machine it was recorded on under "machine", and gradcalc is run emulating that
capability, so that it passes on any machine. The oracle finds out which answers move by
recording each program under every capability the processor can run.
"""
from __future__ import annotations

import difflib
import io
import json
import re
import os
import subprocess
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


# the CPU capabilities gradcalc emulates (autograd/cpu.py), named without loading numpy
CAPABILITIES = ("avx512", "avx2")


def expected_path(program: Path, capability: Optional[str] = None) -> Path:
    """`NAME.expected.json`, or `NAME.CAPABILITY.expected.json` for an answer of one capability."""
    infix = f".{capability}" if capability else ""
    return program.with_name(program.name.removesuffix(".grad") + infix + EXPECTED_SUFFIX)


def expected_capabilities(program: Path) -> list[Optional[str]]:
    """The answers kept for PROGRAM: [None] for one answer on every machine, else their capabilities."""
    found = [capability for capability in (None, *CAPABILITIES) if expected_path(program, capability).is_file()]
    return found


def read_expected(program: Path, capability: Optional[str] = None) -> Answer:
    return json.loads(expected_path(program, capability).read_text(encoding="utf-8"))


def write_expected(program: Path, answer: Answer, capability: Optional[str] = None) -> None:
    fields = {"stdout": answer["stdout"], "stderr": answer["stderr"], "rc": answer["rc"]}
    if capability:
        fields["machine"] = {"capability": capability, "processor": processor()}
    text = json.dumps(fields, indent=1, ensure_ascii=False)
    expected_path(program, capability).write_text(text + "\n", encoding="utf-8")


def processor() -> str:
    """This processor's model and the SIMD flags that decide PyTorch's code paths."""
    model, flags = "unknown processor", []
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as info:
            for line in info:
                key, _, value = line.partition(":")
                if key.strip() == "model name":
                    model = value.strip()
                elif key.strip() == "flags":
                    flags = [flag for flag in value.split() if flag.startswith(("avx", "fma"))]
                    break
    except OSError:
        pass
    return " ".join([model, *flags])


def run(program: Path, capability: Optional[str] = None) -> Answer:
    """What `gradcalc PROGRAM` prints and its exit status, run in this process from a fresh start
    (emulating CAPABILITY, if given, whatever this processor is)."""
    from ..autograd import cpu
    from ..session import Session, TextOutput, reset_global_state

    reset_global_state()
    stdout, stderr = io.StringIO(), io.StringIO()
    with cpu.emulating(capability):
        session = Session(TextOutput(stdout, stderr))
        ok = session.run(program.read_text(encoding="utf-8"), program.name)
    status = session.exit_status if session.exit_status is not None else 0 if ok else 1
    return {"stdout": stdout.getvalue(), "stderr": stderr.getvalue(), "rc": status}


class OracleError(Exception):
    """The reference runner could not give an answer (no torch in that Python, a hang)."""


def record(python: str, program: Path, capability: Optional[str] = None) -> Answer:
    """What real PyTorch prints for PROGRAM: the reference runner under `python`, in a fresh process
    in the program's folder (with CAPABILITY's code paths, if given), numpy pinned as gradcalc pins it."""
    from ..autograd import cpu
    from ..machine import numpy_pins

    env = {**os.environ, **numpy_pins(), **(cpu.CAPABILITIES[capability] if capability else {})}
    try:
        done = subprocess.run([python, str(REFERENCE), program.name], cwd=program.parent, capture_output=True,
                              text=True, timeout=ORACLE_TIMEOUT, env=env)
    except OSError as error:
        raise OracleError(f"cannot run {python}: {error.strerror}") from None
    except subprocess.TimeoutExpired:
        raise OracleError(f"{program.name} did not end in {ORACLE_TIMEOUT} s under {python}") from None
    if "ModuleNotFoundError: No module named 'torch'" in done.stderr:
        raise OracleError(f"{python} has no torch: --gradcalc-oracle needs a Python with torch 2.13 installed")
    return {"stdout": done.stdout, "stderr": done.stderr, "rc": done.returncode}


def record_on_every_capability(python: str, program: Path) -> dict[Optional[str], Answer]:
    """PyTorch's answers for PROGRAM under each capability this processor can run: {None: answer} if
    they agree (on a processor with AVX-512, which runs both), else one per capability."""
    from ..autograd import cpu

    runnable = CAPABILITIES if cpu.processor_has_avx512() else ("avx2",)
    answers = {capability: record(python, program, capability) for capability in runnable}
    first = next(iter(answers.values()))
    if len(answers) > 1 and all(answer == first for answer in answers.values()):
        return {None: first}
    return dict(answers)


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
