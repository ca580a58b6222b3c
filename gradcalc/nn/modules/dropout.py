"""Dropout and its kin: in training mode only."""
from __future__ import annotations

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


class Dropout1d(_DropoutNd):
    __module__ = "torch.nn.modules.dropout"

    def forward(self, input: Tensor) -> Tensor:
        return F.dropout1d(input, self.p, self.training, self.inplace)


class Dropout2d(_DropoutNd):
    __module__ = "torch.nn.modules.dropout"

    def forward(self, input: Tensor) -> Tensor:
        return F.dropout2d(input, self.p, self.training, self.inplace)


class Dropout3d(_DropoutNd):
    __module__ = "torch.nn.modules.dropout"

    def forward(self, input: Tensor) -> Tensor:
        return F.dropout3d(input, self.p, self.training, self.inplace)


class AlphaDropout(_DropoutNd):
    __module__ = "torch.nn.modules.dropout"

    def forward(self, input: Tensor) -> Tensor:
        return F.alpha_dropout(input, self.p, self.training)  # (its inplace is kept, not used, as torch's)


class FeatureAlphaDropout(_DropoutNd):
    __module__ = "torch.nn.modules.dropout"

    def forward(self, input: Tensor) -> Tensor:
        return F.feature_alpha_dropout(input, self.p, self.training)
