"""Padding layers: constant (and zero), reflection, replication and circular, 1-d to 3-d."""
from __future__ import annotations

from typing import Any

from ...autograd.tensor import Tensor
from .. import functional as F
from .module import Module
from .utils import defined_in


class _PadNd(Module):
    __module__ = "torch.nn.modules.padding"
    _mode = "constant"
    _dims = 2

    def __init__(self, padding: Any, value: float = 0.0) -> None:
        super().__init__()
        self.padding = tuple(padding) if isinstance(padding, (tuple, list)) else (padding,) * (2 * self._dims)
        if self._mode == "constant":
            self.value = value

    def forward(self, input: Tensor) -> Tensor:
        if self._mode == "constant":
            return F.pad(input, self.padding, "constant", self.value)
        return F.pad(input, self.padding, self._mode)

    def extra_repr(self) -> str:
        return f"padding={self.padding}, value={self.value}" if self._mode == "constant" else f"{self.padding}"


def _init_constant(self: _PadNd, padding: Any, value: float) -> None:
    _PadNd.__init__(self, padding, value)


def _init_zero(self: _PadNd, padding: Any) -> None:
    _PadNd.__init__(self, padding, 0.0)


def _init_other(self: _PadNd, padding: Any) -> None:
    _PadNd.__init__(self, padding)


def _pad_class(name: str, mode: str, dims: int, zero: bool = False) -> type:
    # each of torch's padding classes has its own __init__, which a wrong call's error names
    init = _init_zero if zero else _init_constant if mode == "constant" else _init_other
    members: dict = {"__module__": "torch.nn.modules.padding", "_mode": mode, "_dims": dims,
                     "__init__": defined_in(name, init, "__init__")}
    if zero:
        members["extra_repr"] = lambda self: f"{self.padding}"
    return type(name, (_PadNd,), members)


ConstantPad1d = _pad_class("ConstantPad1d", "constant", 1)
ConstantPad2d = _pad_class("ConstantPad2d", "constant", 2)
ConstantPad3d = _pad_class("ConstantPad3d", "constant", 3)
ZeroPad1d = _pad_class("ZeroPad1d", "constant", 1, zero=True)
ZeroPad2d = _pad_class("ZeroPad2d", "constant", 2, zero=True)
ZeroPad3d = _pad_class("ZeroPad3d", "constant", 3, zero=True)
ReflectionPad1d = _pad_class("ReflectionPad1d", "reflect", 1)
ReflectionPad2d = _pad_class("ReflectionPad2d", "reflect", 2)
ReflectionPad3d = _pad_class("ReflectionPad3d", "reflect", 3)
ReplicationPad1d = _pad_class("ReplicationPad1d", "replicate", 1)
ReplicationPad2d = _pad_class("ReplicationPad2d", "replicate", 2)
ReplicationPad3d = _pad_class("ReplicationPad3d", "replicate", 3)
CircularPad1d = _pad_class("CircularPad1d", "circular", 1)
CircularPad2d = _pad_class("CircularPad2d", "circular", 2)
CircularPad3d = _pad_class("CircularPad3d", "circular", 3)
