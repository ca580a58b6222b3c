"""Dropout and its kin: in training mode only."""
from __future__ import annotations

from typing import Any

from ...autograd.tensor import Tensor
from .. import functional as F
from .module import Module


class _DropoutNd(Module):
    """torch's base of the dropouts, whose __init__ its messages name."""

    __module__ = "torch.nn.modules.dropout"

    def __init__(self, p: float = 0.5, inplace: bool = False) -> None:
        super().__init__()
        if p < 0 or p > 1:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p = p
        self.inplace = inplace

    def extra_repr(self) -> str:
        return f"p={self.p}, inplace={self.inplace}"


class Dropout(_DropoutNd):
    __module__ = "torch.nn.modules.dropout"

    def forward(self, input: Tensor) -> Tensor:
        # the mode set by .train() / .eval() decides whether anything is dropped
        return F.dropout(input, self.p, self.training, self.inplace)


class _FeatureDropout(_DropoutNd):
    __module__ = "torch.nn.modules.dropout"
    _function: Any = None

    def forward(self, input: Tensor) -> Tensor:
        return type(self)._function(input, self.p, self.training, self.inplace)


class Dropout1d(_FeatureDropout):
    __module__ = "torch.nn.modules.dropout"
    _function = staticmethod(F.dropout1d)


class Dropout2d(_FeatureDropout):
    __module__ = "torch.nn.modules.dropout"
    _function = staticmethod(F.dropout2d)


class Dropout3d(_FeatureDropout):
    __module__ = "torch.nn.modules.dropout"
    _function = staticmethod(F.dropout3d)


class AlphaDropout(_FeatureDropout):
    __module__ = "torch.nn.modules.dropout"
    _function = staticmethod(F.alpha_dropout)


class FeatureAlphaDropout(_FeatureDropout):
    __module__ = "torch.nn.modules.dropout"
    _function = staticmethod(F.feature_alpha_dropout)
