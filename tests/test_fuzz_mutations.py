"""The mutation fuzzer's brief run in CI: mutants of the golden programs, with PyTorch's answers
recorded by `python tests/fuzz/mutate.py --torch PYTHON --seed 26 --count 40 --record
tests/fuzz/recorded_mutants.json`, must get PyTorch's answers from gradcalc too (run it at length
by hand: see tests/fuzz/mutate.py)."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

FUZZ = Path(__file__).resolve().parent / "fuzz"
sys.path.insert(0, str(FUZZ))
from mutate import classify  # noqa: E402
from compare import run_gradcalc  # noqa: E402

RECORDED = json.loads((FUZZ / "recorded_mutants.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("index", range(len(RECORDED)))
def test_recorded_mutant_gets_pytorchs_answer(index: int) -> None:
    case = RECORDED[index]
    got = run_gradcalc(case["source"])
    assert classify(case["torch"], got) is None, (case["source"], case["torch"], got)


def test_mutants_are_the_same_for_the_same_seed() -> None:
    from mutate import mutants

    assert mutants(3, 5) == mutants(3, 5)
    assert mutants(3, 5) != mutants(4, 5)
