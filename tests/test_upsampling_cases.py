"""Interpolation against digests recorded from PyTorch (upsampling_cases/): generated calls of
F.interpolate in every mode, float and uint8 dtype, layout and channel count, their outputs and
their inputs' gradients bit for bit, as on the capability each recording names."""
from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest

from gradcalc.autograd import api, cpu, dtypes
from gradcalc.autograd.tensor import Tensor
from gradcalc.nn import functional as NF

pytestmark = pytest.mark.machine  # each case runs as on the capability it was recorded with
CASES_DIR = Path(__file__).parent / "upsampling_cases"
_spec = importlib.util.spec_from_file_location("record_upsampling_cases", CASES_DIR / "record_upsampling_cases.py")
recorder = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(recorder)
RECORDED = {json.loads(path.read_text())["machine"]["aten"]: json.loads(path.read_text())
            for path in sorted(CASES_DIR.glob("upsampling_cases_*.json"))}


def _digest(tensor: Tensor) -> str:
    return recorder.digest(tensor._data)


@pytest.mark.parametrize("capability, recorded", [
    pytest.param(capability, case, id=f"{capability}-{case['index']}")
    for capability, cases in RECORDED.items() for case in cases["cases"]])
def test_interpolate_has_pytorchs_bits(capability: str, recorded: dict) -> None:
    call = recorder.case(recorded["index"])
    dtype = getattr(dtypes, call["dtype"])
    with cpu.emulating(RECORDED[capability]["machine"]):
        probe = Tensor._make(np.zeros(call["shape"], np.float32), dtypes.float32)
        nearest = {**call["kwargs"], "mode": "nearest", "antialias": False}
        nearest.pop("align_corners", None)
        x, grad = recorder.case_inputs(recorded["index"], call, tuple(NF.interpolate(probe, **nearest).shape))
        storage = np.float16 if dtype is dtypes.float16 else x.dtype
        values = dtypes.round_to_bfloat16(x) if dtype is dtypes.bfloat16 else x.astype(storage, copy=False)
        leaf = Tensor._make(recorder.laid_out(call, values), dtype)
        floating = dtype.category == dtypes.FLOATING
        if floating:
            leaf.requires_grad_()
        out = NF.interpolate(leaf, **call["kwargs"])
        assert _digest(out) == recorded["output"]
        if floating:
            incoming, = api.grad(out, leaf, Tensor._make(grad.astype(storage), dtype))
            assert _digest(incoming) == recorded["grad"]


def test_every_capability_is_recorded() -> None:
    assert set(RECORDED) == set(cpu.CAPABILITIES)
