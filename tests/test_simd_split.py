"""Results whose last bits depend on the machine's SIMD code, against digests recorded from
PyTorch (simd_cases/) with the capability of the machine that recorded them: ATen's element-wise
kernels split a tensor between their SIMD loop (whole pairs of registers) and their scalar loop
(float32 sigmoid, silu, pow with a number for exponent or base); softmax adds one running sum per lane of a register; PyTorch's AVX2 code fuses
tanh's gradient into a multiply-add; layer_norm's statistics keep one Welford update per lane; oneDNN computes gelu with erf in its own way, another with
AVX-512."""
from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from typing import Callable

import pytest

from gradcalc.autograd import cpu, dtypes
from gradcalc.autograd.ops.activation import gelu, gelu_backward, log_softmax, silu, softmax
from gradcalc.autograd.ops.normalization import native_layer_norm
from gradcalc.autograd.ops.pointwise import sigmoid, tanh_backward
from gradcalc.autograd.tensor import Tensor

pytestmark = pytest.mark.machine  # each case runs as on the capability it was recorded with
CASES_DIR = Path(__file__).parent / "simd_cases"
_spec = importlib.util.spec_from_file_location("record_simd_cases", CASES_DIR / "record_simd_cases.py")
recorder = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(recorder)
# one recording per capability: {capability: {"machine": what it was recorded on, "cases": [...]}}
RECORDED = {json.loads(path.read_text())["machine"]["aten"]: json.loads(path.read_text())
            for path in sorted(CASES_DIR.glob("simd_cases_*.json"))}
# What gradcalc does not compute as PyTorch yet, by capability and function: the sizes whose bits
# differ (strict: a size that starts to match must leave the list).
KNOWN_GAPS: dict = {}


def _float32(array) -> Tensor:
    return Tensor._make(array, dtypes.float32)


FUNCTIONS: dict[str, Callable[[int], Tensor]] = {
    "sigmoid": lambda size: sigmoid(_float32(recorder.values(size))),
    "silu": lambda size: silu(_float32(recorder.values(size))),
    "pow": lambda size: _float32(recorder.values(size)).abs() ** 1.7,
    "rpow": lambda size: 1.3 ** _float32(recorder.values(size)),
    "softmax": lambda size: softmax(_float32(recorder.values(size)), 0),
    "log_softmax": lambda size: log_softmax(_float32(recorder.values(size)), 0),
    "log_softmax_rows": lambda size: log_softmax(_float32(recorder.rows(size)), 1),
    "gelu": lambda size: gelu(_float32(recorder.values(size))),
    "gelu_backward": lambda size: gelu_backward(_float32(recorder.grads(size)), _float32(recorder.values(size)), "none"),
    "tanh_backward": lambda size: tanh_backward(_float32(recorder.grads(size)), _float32(recorder.tanh_outputs(size))),
    "layer_norm": lambda size: native_layer_norm(_float32(recorder.values(size)), (size,), _float32(recorder.grads(size)),
                                                 _float32(recorder.tanh_outputs(size)), 1e-5),
}


def _cases(name: str) -> list:
    return [pytest.param(name, capability, case, id=f"{name}-{capability}-{case['size']}",
                         marks=[pytest.mark.xfail(reason=f"{capability} {name}: not yet PyTorch's bits", strict=True)]
                         if case["size"] in KNOWN_GAPS.get((capability, name), ()) else [])
            for capability, recorded in RECORDED.items() for case in recorded["cases"]]


@pytest.mark.parametrize("name, capability, case", [param for name in recorder.OPS for param in _cases(name)])
def test_float32_result_has_pytorchs_bits(name: str, capability: str, case: dict) -> None:
    size = case["size"]
    assert recorder.digest(recorder.values(size)) + recorder.digest(recorder.grads(size)) \
        + recorder.digest(recorder.tanh_outputs(size)) == case["input"]
    with cpu.emulating(RECORDED[capability]["machine"]):
        assert recorder.digest(FUNCTIONS[name](size)._data) == case[name]


def test_every_capability_is_recorded() -> None:
    assert set(RECORDED) == set(cpu.CAPABILITIES)


def test_every_recorded_function_is_checked() -> None:
    assert set(FUNCTIONS) == set(recorder.OPS)
