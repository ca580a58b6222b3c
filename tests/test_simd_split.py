"""ATen's element-wise kernels split a tensor between their SIMD loop (whole pairs of registers)
and their scalar loop, whose last bits differ; the register's width is the machine's capability.
float32 sigmoid of many sizes is checked against digests recorded from PyTorch (simd_cases/),
with the capability of the machine that recorded them."""
from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from gradcalc.autograd import cpu, dtypes
from gradcalc.autograd.ops.pointwise import sigmoid
from gradcalc.autograd.tensor import Tensor

CASES_DIR = Path(__file__).parent / "simd_cases"
_spec = importlib.util.spec_from_file_location("record_simd_cases", CASES_DIR / "record_simd_cases.py")
recorder = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(recorder)
RECORDED = json.loads((CASES_DIR / "simd_cases.json").read_text())


@pytest.mark.parametrize("case", RECORDED["cases"], ids=lambda case: str(case["size"]))
def test_sigmoid_has_pytorchs_bits(case: dict, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cpu, "ATEN_AVX512", RECORDED["capability"] == "AVX512")
    x = recorder.values(case["size"])
    assert recorder.digest(x) == case["input"]
    assert recorder.digest(sigmoid(Tensor._make(x, dtypes.float32))._data) == case["sigmoid"]
