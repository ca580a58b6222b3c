"""numpy's process-wide settings: gradcalc's floating-point error handling (PyTorch computes inf
and nan silently, so gradcalc's ops ignore numpy's errors), and what a program may change (print
options, error handling and its callback), put back between runs."""
from __future__ import annotations

import numpy as np

_PRINT_OPTIONS = np.get_printoptions()


def quiet() -> None:
    """numpy's floating-point errors ignored, once for all ops."""
    np.seterr(all="ignore")


def restore() -> None:
    """numpy's settings as they were before any program changed them."""
    np.set_printoptions(**_PRINT_OPTIONS)
    quiet()
    np.seterrcall(None)
