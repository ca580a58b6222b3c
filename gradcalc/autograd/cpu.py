"""What PyTorch's CPU code runs with on this machine, where it decides the last bits of a result:
the instruction set of ATen's vectorised kernels (how many elements a SIMD loop takes at once)
and the kernels MKL's sgemm runs (the order a float32 matrix product adds in). Both follow the
processor, and the settings PyTorch and MKL read: ATEN_CPU_CAPABILITY (`default`, `avx2`,
`avx512`), MKL_CBWR (the code path whose results MKL gives) and MKL_ENABLE_INSTRUCTIONS (a cap).
A capability named in a setting is followed even where the processor lacks it, so that answers
recorded on another machine can be checked here. The two are apart: MKL runs its AVX-512 kernels
on Intel's processors only, so an AMD processor with AVX-512 has ATen's AVX-512 kernels and MKL's
AVX2 ones.
"""
from __future__ import annotations

import os
from contextlib import contextmanager
from typing import Iterator, Optional

from numpy._core import _multiarray_umath

from ..machine import processor

_FEATURES = getattr(_multiarray_umath, "__cpu_features__", {})


def processor_has_avx512() -> bool:
    """Whether this processor can run PyTorch's AVX-512 code, whatever the settings say."""
    return all(_FEATURES.get(feature) for feature in ("AVX512F", "AVX512BW", "AVX512VL", "AVX512DQ"))


def _aten_has_avx512() -> bool:
    """ATen's kernels for AVX-512: chosen where the processor has AVX-512 F, BW, VL and DQ, as
    PyTorch's dispatch requires, unless ATEN_CPU_CAPABILITY names another capability."""
    chosen = os.environ.get("ATEN_CPU_CAPABILITY", "").lower()
    if chosen:
        return chosen == "avx512"
    return processor_has_avx512()


def _sgemm_has_avx512() -> bool:
    """MKL's sgemm with its AVX-512 kernels, which add the rows of a wide product in another
    order than its AVX2 kernels: on an Intel processor with AVX-512F, unless MKL_CBWR names another
    code path or MKL_ENABLE_INSTRUCTIONS caps MKL below it."""
    branch = os.environ.get("MKL_CBWR", "").upper()
    if branch and branch != "AUTO":
        return branch.startswith("AVX512")
    cap = os.environ.get("MKL_ENABLE_INSTRUCTIONS", "").upper()
    if cap and not cap.startswith("AVX512"):
        return False
    return bool(_FEATURES.get("AVX512F")) and processor().get("vendor_id") == "GenuineIntel"


ATEN_AVX512 = _aten_has_avx512()
SGEMM_AVX512 = _sgemm_has_avx512()


# ------------------------------------------------------------------ capabilities gradcalc emulates

# What each capability sets when PyTorch records an answer: ATen's kernels and oneDNN's instruction
# set (oneDNN, which computes gelu and convolutions, picks its own). MKL is left to its own choice:
# MKL_CBWR would switch it to its reproducible code, which adds some products in another order.
CAPABILITIES: dict[str, dict[str, str]] = {
    "avx512": {"ATEN_CPU_CAPABILITY": "avx512", "ONEDNN_MAX_CPU_ISA": "AVX512_CORE"},
    "avx2": {"ATEN_CPU_CAPABILITY": "avx2", "ONEDNN_MAX_CPU_ISA": "AVX2"},
}


def capability() -> str:
    """The ATen capability gradcalc follows now: `avx512` or `avx2`."""
    return "avx512" if ATEN_AVX512 else "avx2"


def machine_record(aten: Optional[str] = None) -> dict[str, str]:
    """What an answer PyTorch records now depends on: ATen's capability (ATEN, if it is forced to
    that), MKL sgemm's code path and the processor."""
    info = processor()
    flags = [flag for flag in info["flags"].split() if flag.startswith(("avx", "fma"))]
    return {"aten": aten or ("avx512" if ATEN_AVX512 else "avx2"), "sgemm": "avx512" if _sgemm_has_avx512() else "avx2",
            "processor": " ".join([info.get("vendor_id", "unknown vendor"), info.get("model name", ""), *flags])}


def machine_label(machine: dict) -> str:
    """`avx512`, `avx2`, or `avx512-sgemm-avx2` (an AMD processor's, where MKL keeps to AVX2)."""
    return machine["aten"] if machine["aten"] == machine["sgemm"] else f"{machine['aten']}-sgemm-{machine['sgemm']}"


def machine_environment(machine: dict) -> dict[str, str]:
    """The settings under which a gradcalc process computes as on MACHINE."""
    return {"ATEN_CPU_CAPABILITY": machine["aten"], "MKL_CBWR": machine["sgemm"].upper()}


@contextmanager
def emulating(machine: Optional[dict]) -> Iterator[None]:
    """Compute as PyTorch does on MACHINE (a `machine_record()`; None: as now), for answers recorded there."""
    global ATEN_AVX512, SGEMM_AVX512
    saved = ATEN_AVX512, SGEMM_AVX512
    if machine is not None:
        ATEN_AVX512, SGEMM_AVX512 = machine["aten"] == "avx512", machine["sgemm"] == "avx512"
    try:
        yield
    finally:
        ATEN_AVX512, SGEMM_AVX512 = saved
