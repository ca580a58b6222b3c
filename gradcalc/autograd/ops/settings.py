"""torch's global settings and build facts: deterministic algorithms, warn-always, float32 matmul
precision, denormals, the default device and tensor type, anomaly detection, autocast, and what
the build has (LAPACK, MKL, OpenMP). Settings that choose among CUDA kernels have nothing to
choose here: they are kept and reported back."""
from __future__ import annotations

from typing import Any, Callable

from .. import anomaly_mode, autocast, dtypes
from ..tensor import Device, Tensor
from ...warnings import warn
from .generate import shown_function
from .info import MEMORY_FORMATS
from .legacy import LEGACY_TYPES

_SETTINGS: dict = {"deterministic": False, "warn_only": False, "warn_always": False, "matmul_precision": "highest"}


def _python(function: Callable) -> Callable:
    function.__module__ = "torch"
    return function


def use_deterministic_algorithms(mode: bool, *, warn_only: bool = False) -> None:
    _SETTINGS["deterministic"], _SETTINGS["warn_only"] = bool(mode), bool(warn_only)


def are_deterministic_algorithms_enabled() -> bool:
    return _SETTINGS["deterministic"]


def is_deterministic_algorithms_warn_only_enabled() -> bool:
    return _SETTINGS["warn_only"]


_DEBUG_MODES = {"default": 0, "warn": 1, "error": 2}


def set_deterministic_debug_mode(debug_mode: Any) -> None:
    if isinstance(debug_mode, str):
        if debug_mode not in _DEBUG_MODES:
            raise RuntimeError(f"invalid value of debug_mode, expected one of `default`, `warn`, `error`, but got "
                               f"{debug_mode}")
        debug_mode = _DEBUG_MODES[debug_mode]
    if debug_mode not in (0, 1, 2):
        raise RuntimeError(f"invalid value of debug_mode, expected 0, 1, or 2, but got {debug_mode}")
    use_deterministic_algorithms(debug_mode != 0, warn_only=debug_mode == 1)


def get_deterministic_debug_mode() -> int:
    if not _SETTINGS["deterministic"]:
        return 0
    return 1 if _SETTINGS["warn_only"] else 2


def set_warn_always(b: bool) -> None:
    _SETTINGS["warn_always"] = bool(b)


def is_warn_always_enabled() -> bool:
    return _SETTINGS["warn_always"]


def get_float32_matmul_precision() -> str:
    return _SETTINGS["matmul_precision"]


def set_float32_matmul_precision(precision: str) -> None:
    if precision not in ("highest", "high", "medium"):
        raise RuntimeError(f"Invalid precision: {precision}. Expected one of highest, high, medium")
    _SETTINGS["matmul_precision"] = precision


def get_default_device() -> Device:
    return Device("cpu")


def set_default_device(device: Any) -> None:
    if device is not None and str(device) != "cpu":
        raise RuntimeError("Found no NVIDIA driver on your system. Please check that you have an NVIDIA GPU and "
                           "installed a driver from http://www.nvidia.com/Download/index.aspx")


def set_default_tensor_type(t: Any) -> None:
    warn("UserWarning", "torch.set_default_tensor_type() is deprecated as of PyTorch 2.1, please use "
                        "torch.set_default_dtype() and torch.set_default_device() as alternatives.",
                        at="torch/csrc/tensor/python_tensor.cpp:434")
    types = LEGACY_TYPES
    name = t if isinstance(t, str) else f"torch.{getattr(t, '__name__', '')}"
    chosen = types.get(name.replace("torch.", ""))
    if chosen is None or not chosen.dtype.is_floating_point:
        raise TypeError("only floating-point types are supported as the default type")
    dtypes.set_default_dtype(chosen.dtype)


def compiled_with_cxx11_abi() -> bool:
    return True


def set_flush_denormal(mode: bool) -> bool:
    return True  # numpy keeps denormals either way; PyTorch reports that the CPU supports the switch


def init_num_threads() -> None:
    """Threads are set up already."""


def is_vulkan_available() -> bool:
    return False


def _grad_dtype(self: Tensor) -> Any:
    return self._dtype


def install(cls: type) -> None:
    cls.grad_dtype = property(_grad_dtype)


def members() -> dict:
    """The members of torch this module makes."""
    python_functions = (use_deterministic_algorithms, are_deterministic_algorithms_enabled,
                        is_deterministic_algorithms_warn_only_enabled, set_deterministic_debug_mode,
                        get_deterministic_debug_mode, set_warn_always, is_warn_always_enabled,
                        get_float32_matmul_precision, set_float32_matmul_precision, get_default_device,
                        set_default_device, set_default_tensor_type, compiled_with_cxx11_abi)
    members: dict = {function.__name__: _python(function) for function in python_functions}
    c_functions = dict(set_anomaly_enabled=anomaly_mode.set_anomaly_enabled,
                       is_anomaly_enabled=anomaly_mode.is_anomaly_enabled,
                       is_anomaly_check_nan_enabled=anomaly_mode.is_anomaly_check_nan_enabled,
                       set_flush_denormal=set_flush_denormal, init_num_threads=init_num_threads,
                       is_autocast_enabled=autocast.is_autocast_enabled,
                       set_autocast_enabled=autocast.set_autocast_enabled,
                       get_autocast_dtype=autocast.get_autocast_dtype, set_autocast_dtype=autocast.set_autocast_dtype,
                       is_autocast_cache_enabled=autocast.is_autocast_cache_enabled,
                       set_autocast_cache_enabled=autocast.set_autocast_cache_enabled,
                       clear_autocast_cache=autocast.clear_autocast_cache,
                       autocast_increment_nesting=autocast.autocast_increment_nesting,
                       autocast_decrement_nesting=autocast.autocast_decrement_nesting)
    for device_type in ("cpu", "cuda", "ipu", "xla"):
        c_functions.update(autocast.device_accessors(device_type))
    members.update({name: shown_function(name, function, module_level=True) for name, function in c_functions.items()})
    members.update(is_vulkan_available=shown_function("is_vulkan_available", is_vulkan_available),
                   autocast=autocast.autocast, has_lapack=True, has_mkl=True, has_openmp=True, has_spectral=True,
                   legacy_contiguous_format=MEMORY_FORMATS["contiguous_format"])
    return members
