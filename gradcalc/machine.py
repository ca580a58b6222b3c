"""numpy's own results, made independent of the processor: settings read once, when numpy loads.

numpy picks SIMD code for its functions by the processor (its AVX-512 float32 `exp`, `power` and
float64 `sin` give other last bits than its AVX2 ones) and OpenBLAS picks its kernels by the
processor too (a complex product's imaginary part is -2.7e-17 with SkylakeX kernels, 0 with
Haswell ones). gradcalc computes with numpy and hands numpy to programs: both would print another
machine's digits. So numpy is pinned to its x86-64-v3 (AVX2) code and OpenBLAS to its Haswell
kernels wherever the processor has AVX2 and FMA, as the expected outputs were recorded; what
PyTorch itself does per processor is emulated on top (autograd/cpu.py). BLAS runs on one thread,
as the reference PyTorch does: threads that split a sum change its last bits from run to run.
"""
from __future__ import annotations

import os
import sys

# numpy's dispatched targets above x86-64-v3, as numpy 2.4 names them and as older numpy did (a name
# numpy does not dispatch is ignored with an ImportWarning, which a program's warning filters may show)
_ABOVE_AVX2 = "X86_V4 AVX512_ICL AVX512_SPR"
_ABOVE_AVX2_BEFORE_2_4 = "AVX512F AVX512CD AVX512_KNL AVX512_KNM AVX512_SKX AVX512_CLX AVX512_CNL AVX512_ICL AVX512_SPR"
PINNED = False  # whether numpy loaded after pin_numpy set its environment


_PROCESSOR: dict[str, str] = {}


def processor() -> dict[str, str]:
    """This processor's `vendor_id`, `model name` and `flags`, as the kernel's first entry gives them
    (empty where there is no /proc/cpuinfo)."""
    if not _PROCESSOR:
        try:
            with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as info:
                for line in info:
                    key, _, value = line.partition(":")
                    key = key.strip()
                    if key in ("vendor_id", "model name", "flags"):
                        _PROCESSOR[key] = value.strip()
                    if key == "flags":
                        break
        except OSError:
            pass
        _PROCESSOR.setdefault("flags", "")
    return _PROCESSOR


def _has_avx2_and_fma() -> bool:
    """Haswell's kernels need AVX2 and FMA."""
    flags = processor()["flags"].split()
    return "avx2" in flags and "fma" in flags


def _numpy_before_2_4() -> bool:
    """From numpy's version.py, found as the import system would find it, without importing numpy."""
    for folder in sys.path:
        try:
            with open(os.path.join(folder or ".", "numpy", "version.py"), encoding="utf-8") as source:
                for line in source:
                    if line.startswith("version"):
                        major, minor = line.split('"')[1].split(".")[:2]
                        return (int(major), int(minor)) < (2, 4)
        except (OSError, ValueError, IndexError):
            continue
    return False


def numpy_pins() -> dict[str, str]:
    """The environment numpy and OpenBLAS must load with, on this machine."""
    pins = {"OPENBLAS_NUM_THREADS": os.environ.get("OPENBLAS_NUM_THREADS", "1")}
    if hasattr(os, "uname") and os.uname().machine == "x86_64":
        disabled = os.environ.get("NPY_DISABLE_CPU_FEATURES", "").split()
        above = _ABOVE_AVX2_BEFORE_2_4 if _numpy_before_2_4() else _ABOVE_AVX2
        pins["NPY_DISABLE_CPU_FEATURES"] = " ".join(dict.fromkeys(disabled + above.split()))
        # a machine that sets its own core type does so because OpenBLAS misbehaves there: kept
        coretype = os.environ.get("OPENBLAS_CORETYPE") or ("Haswell" if _has_avx2_and_fma() else "")
        if coretype:
            pins["OPENBLAS_CORETYPE"] = coretype
    return pins


def pin_numpy() -> None:
    """Set numpy's and OpenBLAS's environment, if numpy has not loaded yet (else too late)."""
    global PINNED
    if "numpy" not in sys.modules:
        os.environ.update(numpy_pins())
        PINNED = True
