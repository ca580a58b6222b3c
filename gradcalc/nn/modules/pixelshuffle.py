"""PixelShuffle and PixelUnshuffle: channels traded for resolution and back."""
from __future__ import annotations

from ...autograd.tensor import Tensor
from .. import functional as F
from .module import Module


class PixelShuffle(Module):
    __module__ = "torch.nn.modules.pixelshuffle"

    def __init__(self, upscale_factor: int) -> None:
        super().__init__()
        self.upscale_factor = upscale_factor

    def forward(self, input: Tensor) -> Tensor:
        return F.pixel_shuffle(input, self.upscale_factor)

    def extra_repr(self) -> str:
        return f"upscale_factor={self.upscale_factor}"


class PixelUnshuffle(Module):
    __module__ = "torch.nn.modules.pixelshuffle"

    def __init__(self, downscale_factor: int) -> None:
        super().__init__()
        self.downscale_factor = downscale_factor

    def forward(self, input: Tensor) -> Tensor:
        return F.pixel_unshuffle(input, self.downscale_factor)

    def extra_repr(self) -> str:
        return f"downscale_factor={self.downscale_factor}"
