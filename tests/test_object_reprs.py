"""Differential test: what gradcalc echoes for dtypes, torch.Size, devices, torch.return_types
and x.type(), against PyTorch's answers recorded by object_repr_cases/record_object_reprs.py."""
from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pytest

from gradcalc.session import Session, TextOutput, reset_global_state

CASES = json.loads((Path(__file__).parent / "object_repr_cases" / "object_repr_cases.json").read_text())
ADDRESS = re.compile(r"0x[0-9a-fA-F]+")


@pytest.fixture(scope="module")
def session() -> Session:
    reset_global_state()
    return Session(TextOutput(io.StringIO(), io.StringIO()))


@pytest.mark.parametrize("case", CASES, ids=[case["expr"] for case in CASES])
def test_echo_is_pytorch_echo(session: Session, case: dict) -> None:
    out = session.output
    out.stdout.seek(0), out.stdout.truncate()
    out.stderr.seek(0), out.stderr.truncate()
    session.run(case["expr"])
    assert ADDRESS.sub("0x?", out.stdout.getvalue() + out.stderr.getvalue()) == case["output"]
