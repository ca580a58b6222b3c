"""The compiled module `_native`, built from `csrc/`: kernels with the same arithmetic as their
numpy emulations in simd.py and kernels.py, in a fraction of the time on a training step's small
arrays; numpy's storages on 64 bytes; MKL's calls for mkl.py. `kernels` is None where gradcalc was
installed without a C compiler (hatch_build.py builds the module when it finds one), where
GRADCALC_NATIVE=0 asks for numpy's emulations, which give the same bits, and in a source checkout
whose `csrc/` changed after its module was compiled (`pip install -e .` again compiles it)."""
from __future__ import annotations

import os
from importlib.machinery import EXTENSION_SUFFIXES
from types import ModuleType
from typing import Any, Callable, Optional

try:
    from . import _native
except ImportError:  # built without a C compiler
    _native = None

_HERE = os.path.dirname(os.path.abspath(__file__))


def is_stale() -> bool:
    """Whether a source checkout's `csrc/` changed after its module was compiled (a wheel carries
    no sources)."""
    sources = os.path.join(_HERE, "csrc")
    try:
        newest = max(os.stat(os.path.join(sources, name)).st_mtime for name in os.listdir(sources))
    except (OSError, ValueError):
        return False
    for suffix in EXTENSION_SUFFIXES:
        try:
            return os.stat(os.path.join(_HERE, "_native" + suffix)).st_mtime < newest
        except OSError:
            continue
    return False


kernels: Optional[ModuleType] = None if os.environ.get("GRADCALC_NATIVE") == "0" or is_stale() else _native

# Whether numpy's arrays made from here on (in this context: a worker's program, a script's) start
# on 64 bytes, as c10's storages: MKL's operands then lie as PyTorch's without a copy
storages_aligned = kernels is not None and kernels.align_numpy_storages()


def _interface_address(array: Any) -> int:
    return array.__array_interface__["data"][0]


# The address of a numpy array's first element: the compiled one costs a tenth of the
# __array_interface__ dictionary's (about 1.2 µs), which MKL's calls and in-place checks read often.
address: Callable[[Any], int] = kernels.address if kernels is not None else _interface_address
