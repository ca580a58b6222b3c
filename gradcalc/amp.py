"""torch.amp's GradScaler and torch.cuda.amp, as a CPU-only PyTorch has them.

A GradScaler for CUDA (the default, and every `torch.cuda.amp.GradScaler`) disables itself with
PyTorch's warning and then only passes the optimizer's step through, which is what training
scripts meet on a machine without a GPU; one for the CPU scales the loss, unscales the gradients,
skips steps with infinite or NaN gradients and adapts its scale as torch.amp.grad_scaler does.
torch.cuda.amp's classes are the deprecated spellings of torch.amp's, with PyTorch's FutureWarning.
"""
from __future__ import annotations

from typing import Any, Iterable, Optional

import numpy as np

from .autograd import dtypes, grad_mode
from .autograd.autocast import autocast as _autocast
from .autograd.tensor import Tensor
from .display.names import torch_class
from .warnings import warn

__all__ = ["GradScaler", "autocast", "is_autocast_available"]

_READY, _UNSCALED, _STEPPED = "ready", "unscaled", "stepped"


def _scalar(value: float) -> Tensor:
    return Tensor._make(np.full((), value, np.float32), dtypes.float32)


@torch_class("torch.amp.grad_scaler.GradScaler")
class GradScaler:
    def __init__(self, device: str = "cuda", init_scale: float = 2.0 ** 16, growth_factor: float = 2.0,
                 backoff_factor: float = 0.5, growth_interval: int = 2000, enabled: bool = True) -> None:
        self._device = device
        self._enabled = enabled
        if device == "cuda" and enabled:
            warn("UserWarning", "torch.cuda.amp.GradScaler is enabled, but CUDA is not available.  Disabling.")
            self._enabled = False
        if self._enabled:
            if growth_factor <= 1.0:
                raise AssertionError("The growth factor must be > 1.0.")
            if backoff_factor >= 1.0:
                raise AssertionError("The backoff factor must be < 1.0.")
            self._init_scale = init_scale
            self._scale: Optional[Tensor] = None
            self._growth_factor = growth_factor
            self._backoff_factor = backoff_factor
            self._growth_interval = growth_interval
            self._init_growth_tracker = 0
            self._growth_tracker = 0
            self._stages: dict = {}  # id(optimizer) -> (stage, found_inf)

    def scale(self, outputs: Any) -> Any:
        if not self._enabled:
            return outputs
        if self._scale is None:
            self._scale = _scalar(self._init_scale)
        if isinstance(outputs, Tensor):
            return outputs * self._scale
        if isinstance(outputs, (list, tuple)):
            return type(outputs)(self.scale(value) for value in outputs)
        if isinstance(outputs, Iterable):
            return map(self.scale, outputs)
        raise ValueError("outputs must be a Tensor or an iterable of Tensors")

    def unscale_(self, optimizer: Any) -> None:
        if not self._enabled:
            return
        self._check_scale("unscale_")
        stage, _ = self._stages.get(id(optimizer), (_READY, None))
        if stage == _UNSCALED:
            raise RuntimeError("unscale_() has already been called on this optimizer since the last update().")
        if stage == _STEPPED:
            raise RuntimeError("unscale_() is being called after step().")
        # the reciprocal in double, then float: exact for the powers of two a scale is
        inv_scale = np.float32(1.0 / np.float64(self._scale._data))
        found_inf = False
        with grad_mode.no_grad():
            for group in optimizer.param_groups:
                for param in group["params"]:
                    if param.grad is None:
                        continue
                    if param.grad.dtype is dtypes.float16:
                        raise ValueError("Attempting to unscale FP16 gradients.")
                    found_inf = found_inf or not bool(np.isfinite(param.grad._data).all())
                    param.grad.mul_(float(inv_scale))
        self._stages[id(optimizer)] = (_UNSCALED, found_inf)

    def step(self, optimizer: Any, *args: Any, **kwargs: Any) -> Any:
        if not self._enabled:
            return optimizer.step(*args, **kwargs)
        if "closure" in kwargs:
            raise RuntimeError("Closure use is not currently supported if GradScaler is enabled.")
        self._check_scale("step")
        stage, _ = self._stages.get(id(optimizer), (_READY, None))
        if stage == _STEPPED:
            raise RuntimeError("step() has already been called since the last update().")
        if stage == _READY:
            self.unscale_(optimizer)
        found_inf = self._stages[id(optimizer)][1]
        result = None if found_inf else optimizer.step(*args, **kwargs)
        self._stages[id(optimizer)] = (_STEPPED, found_inf)
        return result

    def update(self, new_scale: Any = None) -> None:
        if not self._enabled:
            return
        self._check_scale("update")
        if new_scale is not None:
            self._scale = _scalar(float(new_scale))
        else:
            if not self._stages:
                raise AssertionError("No inf checks were recorded prior to update.")
            # torch._amp_update_scale_: back off after an infinite gradient, grow after growth_interval clean steps
            if any(found for _, found in self._stages.values()):
                self._scale = _scalar(float(self._scale._data) * self._backoff_factor)
                self._growth_tracker = 0
            else:
                self._growth_tracker += 1
                if self._growth_tracker == self._growth_interval:
                    self._scale = _scalar(float(self._scale._data) * self._growth_factor)
                    self._growth_tracker = 0
        self._stages = {}

    def _check_scale(self, funcname: str) -> None:
        if self._scale is None:
            raise AssertionError(f"Attempted {funcname} but _scale is None.  This may indicate your script did not "
                                 "use scaler.scale(loss or outputs) earlier in the iteration.")

    def get_scale(self) -> float:
        if not self._enabled:
            return 1.0
        return self._init_scale if self._scale is None else float(self._scale._data)

    def get_growth_factor(self) -> float:
        return self._growth_factor

    def set_growth_factor(self, new_factor: float) -> None:
        self._growth_factor = new_factor

    def get_backoff_factor(self) -> float:
        return self._backoff_factor

    def set_backoff_factor(self, new_factor: float) -> None:
        self._backoff_factor = new_factor

    def get_growth_interval(self) -> int:
        return self._growth_interval

    def set_growth_interval(self, new_interval: int) -> None:
        self._growth_interval = new_interval

    def is_enabled(self) -> bool:
        return self._enabled

    def state_dict(self) -> dict:
        if not self._enabled:
            return {}
        return {"scale": self.get_scale(), "growth_factor": self._growth_factor,
                "backoff_factor": self._backoff_factor, "growth_interval": self._growth_interval,
                "_growth_tracker": self._growth_tracker}

    def load_state_dict(self, state_dict: dict) -> None:
        if not self._enabled:
            return
        if len(state_dict) == 0:
            raise RuntimeError("The source state dict is empty, possibly because it was saved from a disabled "
                               "instance of GradScaler.")
        self._init_scale = state_dict["scale"]
        self._scale = _scalar(state_dict["scale"])
        self._growth_factor = state_dict["growth_factor"]
        self._backoff_factor = state_dict["backoff_factor"]
        self._growth_interval = state_dict["growth_interval"]
        self._growth_tracker = state_dict["_growth_tracker"]


autocast = _autocast


def is_autocast_available(device_type: str) -> bool:
    return device_type in ("cpu", "cuda", "xpu", "mps", "hpu", "mtia", "maia", "xla", "ipu")


is_autocast_available.__module__ = "torch.amp.autocast_mode"


def _deprecated(name: str) -> None:
    warn("FutureWarning", f"`torch.cuda.amp.{name}(args...)` is deprecated. Please use "
                          f"`torch.amp.{name}('cuda', args...)` instead.")


@torch_class("torch.cuda.amp.grad_scaler.GradScaler")
class CudaGradScaler(GradScaler):
    """torch.cuda.amp.GradScaler: torch.amp's for CUDA, deprecated."""

    def __init__(self, init_scale: float = 2.0 ** 16, growth_factor: float = 2.0, backoff_factor: float = 0.5,
                 growth_interval: int = 2000, enabled: bool = True) -> None:
        _deprecated("GradScaler")
        super().__init__("cuda", init_scale, growth_factor, backoff_factor, growth_interval, enabled)


@torch_class("torch.cuda.amp.autocast_mode.autocast")
class CudaAutocast(_autocast):
    """torch.cuda.amp.autocast: torch.autocast("cuda"), deprecated."""

    def __init__(self, enabled: bool = True, dtype: dtypes.DType = dtypes.float16, cache_enabled: bool = True) -> None:
        _deprecated("autocast")
        super().__init__("cuda", dtype=dtype, enabled=enabled, cache_enabled=cache_enabled)


def cuda_amp_members() -> dict:
    return {"GradScaler": CudaGradScaler, "autocast": CudaAutocast}


def amp_members() -> dict:
    return {"GradScaler": GradScaler, "autocast": autocast, "is_autocast_available": is_autocast_available}
