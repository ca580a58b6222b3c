"""What PyTorch's CPU code runs with on this machine, where it decides the last bits of a result:
the instruction set of ATen's vectorised kernels (how many elements a SIMD loop takes at once)
and the kernels MKL's sgemm runs (the order a float32 matrix product adds in). Both follow the
processor, and the settings PyTorch and MKL read: ATEN_CPU_CAPABILITY (`default`, `avx2`,
`avx512`), MKL_CBWR (the code path whose results MKL gives) and MKL_ENABLE_INSTRUCTIONS (a cap).
A capability named in a setting is followed even where the processor lacks it, so that answers
recorded on another machine can be checked here.
"""
from __future__ import annotations

import os

from numpy._core import _multiarray_umath

_FEATURES = getattr(_multiarray_umath, "__cpu_features__", {})


def _aten_has_avx512() -> bool:
    """ATen's kernels for AVX-512: chosen where the processor has AVX-512 F, BW, VL and DQ, as
    PyTorch's dispatch requires, unless ATEN_CPU_CAPABILITY names another capability."""
    chosen = os.environ.get("ATEN_CPU_CAPABILITY", "").lower()
    if chosen:
        return chosen == "avx512"
    return all(_FEATURES.get(feature) for feature in ("AVX512F", "AVX512BW", "AVX512VL", "AVX512DQ"))


def _sgemm_has_avx512() -> bool:
    """MKL's sgemm with its AVX-512 kernels, which add the rows of a wide product in another
    order than its AVX2 kernels: on a processor with AVX-512F, unless MKL_CBWR names another code
    path or MKL_ENABLE_INSTRUCTIONS caps MKL below it."""
    branch = os.environ.get("MKL_CBWR", "").upper()
    if branch and branch != "AUTO":
        return branch.startswith("AVX512")
    cap = os.environ.get("MKL_ENABLE_INSTRUCTIONS", "").upper()
    if cap and not cap.startswith("AVX512"):
        return False
    return bool(_FEATURES.get("AVX512F"))


ATEN_AVX512 = _aten_has_avx512()
SGEMM_AVX512 = _sgemm_has_avx512()
