"""Automatic mixed precision on the CPU (torch.autocast): while enabled, the ops PyTorch lists as
safe in lower precision (the matrix products) compute in bfloat16, their float32 inputs cast on
the way in, recorded as ToCopyBackward0 as in PyTorch."""
from __future__ import annotations

from typing import Any, Optional

from . import dtypes
from ..display.names import torch_class
from ..warnings import warn

# per device type: (enabled, dtype); only the CPU's can take effect
_STATE: dict = {"cpu": [False, dtypes.bfloat16], "cuda": [False, dtypes.float16], "ipu": [False, dtypes.bfloat16],
                "xla": [False, dtypes.bfloat16], "xpu": [False, dtypes.bfloat16], "mps": [False, dtypes.float16],
                "hpu": [False, dtypes.bfloat16], "mtia": [False, dtypes.bfloat16], "maia": [False, dtypes.bfloat16]}
_cache = {"enabled": True, "nesting": 0}


def cpu_enabled() -> bool:
    return _STATE["cpu"][0]


def lower_precision(*tensors: Any) -> tuple:
    """The inputs of a lower-precision op: float32 tensors cast to the CPU autocast dtype while
    autocast is on (other dtypes are left alone, as PyTorch's eligibility rule leaves them)."""
    if not _STATE["cpu"][0]:
        return tensors
    target = _STATE["cpu"][1]
    return tuple(t.to(target) if t is not None and t._dtype is dtypes.float32 else t for t in tensors)


def _device_state(device_type: Optional[str]) -> list:
    key = device_type or "cuda"
    if key not in _STATE:
        raise RuntimeError(f"unsupported autocast device_type '{key}'")
    return _STATE[key]


def is_autocast_enabled(device_type: Optional[str] = None) -> bool:
    return _device_state(device_type)[0]


def set_autocast_enabled(device_type: Any, enabled: Any = None) -> None:
    if enabled is None:  # the old form: set_autocast_enabled(enabled), for CUDA
        device_type, enabled = "cuda", device_type
    _device_state(device_type)[0] = bool(enabled)


def get_autocast_dtype(device_type: str) -> dtypes.DType:
    return _device_state(device_type)[1]


def set_autocast_dtype(device_type: str, dtype: dtypes.DType) -> None:
    _device_state(device_type)[1] = dtype


def is_autocast_cache_enabled() -> bool:
    return _cache["enabled"]


def set_autocast_cache_enabled(enabled: bool) -> None:
    _cache["enabled"] = bool(enabled)


def clear_autocast_cache() -> None:
    """Nothing cached: casts are made afresh each time."""


def autocast_increment_nesting() -> int:
    _cache["nesting"] += 1
    return _cache["nesting"]


def autocast_decrement_nesting() -> int:
    _cache["nesting"] -= 1
    return _cache["nesting"]


def device_accessors(device_type: str) -> dict:
    """The per-device functions torch keeps from before the device_type argument:
    is_autocast_cpu_enabled, set_autocast_cpu_dtype, get_autocast_gpu_dtype, ..."""
    short = "gpu" if device_type == "cuda" else device_type
    state = _STATE[device_type]

    def deprecated(old: str, new: str) -> None:
        warn("DeprecationWarning", f"torch.{old} is deprecated. Please use torch.{new} instead.")

    def get_dtype() -> dtypes.DType:
        deprecated(f"get_autocast_{short}_dtype()", f"get_autocast_dtype('{device_type}')")
        return state[1]

    def set_dtype(dtype: dtypes.DType) -> None:
        deprecated(f"set_autocast_{short}_dtype(dtype)", f"set_autocast_dtype('{device_type}', dtype)")
        state[1] = dtype

    def is_enabled() -> bool:
        deprecated(f"is_autocast_{short}_enabled()", f"is_autocast_enabled('{device_type}')")
        return state[0]

    def set_enabled(enabled: bool) -> None:
        deprecated(f"set_autocast_{short}_enabled(enabled)", f"set_autocast_enabled('{device_type}', enabled)")
        state[0] = bool(enabled)

    functions = {f"get_autocast_{short}_dtype": get_dtype, f"set_autocast_{short}_dtype": set_dtype}
    if device_type != "cuda":
        functions[f"is_autocast_{short}_enabled"] = is_enabled
        functions[f"set_autocast_{short}_enabled"] = set_enabled
    return functions


@torch_class("torch.amp.autocast_mode.autocast")
class autocast:
    """`with torch.autocast("cpu"):` lower precision for the matrix products inside."""

    def __init__(self, device_type: str, dtype: Optional[dtypes.DType] = None, enabled: bool = True,
                 cache_enabled: Optional[bool] = None) -> None:
        if not isinstance(device_type, str):
            raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
        self.device = device_type
        self.fast_dtype = dtype if dtype is not None else get_autocast_dtype(device_type)
        self._enabled = enabled
        if device_type == "cuda" and enabled:
            warn("UserWarning", "CUDA is not available or torch_xla is imported. Disabling autocast.")
            self._enabled = False
        if device_type == "cpu" and self.fast_dtype not in (dtypes.bfloat16, dtypes.float16):
            warn("UserWarning", "In CPU autocast, but the target dtype is not supported. Disabling autocast.\n"
                                "CPU Autocast only supports dtype of torch.bfloat16, torch.float16 currently.")
            self._enabled = False
        self._saved: list = []

    def __enter__(self) -> "autocast":
        state = _device_state(self.device)
        self._saved.append(list(state))
        state[0], state[1] = self._enabled, self.fast_dtype
        autocast_increment_nesting()
        return self

    def __exit__(self, *exc_info: Any) -> bool:
        _device_state(self.device)[:] = self._saved.pop()
        autocast_decrement_nesting()
        return False
