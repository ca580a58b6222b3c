"""Where the project's golden programs live and which of them are known gaps (shared by conftest.py,
which marks the gaps, and test_golden.py)."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Optional

from gradcalc.golden import expected_machines

REPO = Path(__file__).resolve().parent.parent
GOLDEN = REPO / "tests" / "golden"
EXAMPLES = REPO / "examples"
# the public conformance corpus, when it sits beside the repository
CORPUS = REPO.parent / "shared" / "oracle" / "corpus"
# programs that reach parts of PyTorch gradcalc does not have yet, and which part; strict expected
# failures, so that a program that starts passing must leave this list
KNOWN_GAPS: dict[str, str] = json.loads((GOLDEN / "known_gaps.json").read_text(encoding="utf-8"))


def known_gap(name: str, machine: Optional[str]) -> Optional[str]:
    """Why the answer of program NAME (for MACHINE, a label, or for every machine) is not gradcalc's
    yet: `NAME` for every machine, `NAME[LABEL]` for one machine's answer, `NAME[as avx2]` for an
    answer that holds for every machine but is not gradcalc's when it computes as on AVX2."""
    from gradcalc.autograd import cpu

    if machine:
        return KNOWN_GAPS.get(f"{name}[{machine}]")
    return KNOWN_GAPS.get(name) or KNOWN_GAPS.get(f"{name}[as {cpu.capability()}]")


def golden_name(program: Path) -> str:
    """`python/classes/12_d2l_accumulator`, `examples/s000_01_backward`, `corpus/seeds/...`."""
    for root in (GOLDEN, REPO, CORPUS.parent):
        if program.is_relative_to(root):
            return str(program.relative_to(root).with_suffix(""))
    return str(program)


def golden_programs() -> list[Path]:
    """The project's own golden programs (the plugin collects them; the corpus is apart)."""
    found = sorted(GOLDEN.rglob("*.grad")) + sorted(EXAMPLES.glob("*.grad"))
    return [program for program in found if expected_machines(program)]
