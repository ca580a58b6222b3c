"""Differential test of the argument parser: what gradcalc says to calls with wrong, missing,
extra or misspelled arguments, and to the spellings PyTorch also accepts, against PyTorch's
answers recorded by argument_cases/record_argument_cases.py."""
from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pytest

from gradcalc.session import Session, TextOutput, reset_global_state

RECORDED = json.loads((Path(__file__).parent / "argument_cases" / "argument_cases.json").read_text())
ADDRESS = re.compile(r"0x[0-9a-fA-F]+")


@pytest.fixture(scope="module")
def session() -> Session:
    reset_global_state()
    session = Session(TextOutput(io.StringIO(), io.StringIO()))
    session.run(RECORDED["setup"])
    return session


@pytest.mark.parametrize("case", RECORDED["cases"], ids=[case["expr"] for case in RECORDED["cases"]])
def test_argument_handling_is_pytorch_s(session: Session, case: dict) -> None:
    out = session.output
    out.stdout.seek(0), out.stdout.truncate()
    out.stderr.seek(0), out.stderr.truncate()
    session.run("_ = torch.manual_seed(0)\n" + case["expr"])
    assert ADDRESS.sub("0x?", out.stderr.getvalue() + out.stdout.getvalue()) == case["output"]
