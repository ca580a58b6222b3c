"""Anomaly detection: torch.autograd.detect_anomaly and set_detect_anomaly.

While it is on, the engine checks each node's gradients for NaN (with check_nan) and an error
in a backward is preceded by PyTorch's warning naming the node whose backward failed.
"""
from __future__ import annotations

from typing import Any, Callable

from ..warnings import warn

_enabled = False
_check_nan = True

ENABLED_WARNING = ("Anomaly Detection has been enabled. This mode will increase the runtime and should only be enabled "
                   "for debugging.")
# the in-place hint of a saved tensor's version check, when anomaly mode is on
ANOMALY_HINT = ("Hint: the backtrace further above shows the operation that failed to compute its gradient. The "
                "variable in question was changed in there or anywhere later. Good luck!")


def is_anomaly_enabled() -> bool:
    return _enabled


def is_anomaly_check_nan_enabled() -> bool:
    return _check_nan


# torch.set_anomaly_enabled's argument parser, set by the op registry (ops/__init__.py)
parse_arguments: Callable[[tuple, dict], dict]


def set_anomaly_enabled(*args: Any, **kwargs: Any) -> None:
    """torch.set_anomaly_enabled(enabled, check_nan=True), its arguments parsed as torch's."""
    global _enabled, _check_nan
    bound = parse_arguments(args, kwargs)
    _enabled, _check_nan = bound["enabled"], bound.get("check_nan", True)


def reset() -> None:
    """A fresh run starts with anomaly detection off."""
    global _enabled, _check_nan
    _enabled, _check_nan = False, True


class detect_anomaly:
    """Context manager (and decorator) that turns anomaly detection on."""

    def __init__(self, check_nan: bool = True) -> None:
        self.prev = _enabled
        self.check_nan = check_nan
        self.prev_check_nan = _check_nan
        warn("UserWarning", ENABLED_WARNING)

    def __enter__(self) -> None:
        set_anomaly_enabled(True, self.check_nan)

    def __exit__(self, *exc_info: Any) -> None:
        set_anomaly_enabled(self.prev, self.prev_check_nan)


class set_detect_anomaly:
    """Turns anomaly detection on or off at once; as a context manager, back on leaving."""

    def __init__(self, mode: bool, check_nan: bool = True) -> None:
        self.prev = _enabled
        self.prev_check_nan = _check_nan
        set_anomaly_enabled(mode, check_nan)

    def __enter__(self) -> None:
        pass

    def __exit__(self, *exc_info: Any) -> None:
        set_anomaly_enabled(self.prev, self.prev_check_nan)


for _cls in (detect_anomaly, set_detect_anomaly):
    _cls.__module__ = "torch.autograd.anomaly_mode"

__all__ = ["detect_anomaly", "set_detect_anomaly", "is_anomaly_enabled", "is_anomaly_check_nan_enabled"]
