"""ChannelShuffle: the channels of its groups interleaved (ShuffleNet)."""
from __future__ import annotations

from ...autograd.tensor import Tensor
from .. import functional as F
from .module import Module


class ChannelShuffle(Module):
    __module__ = "torch.nn.modules.channelshuffle"

    def __init__(self, groups: int) -> None:
        super().__init__()
        self.groups = groups

    def forward(self, input: Tensor) -> Tensor:
        return F.channel_shuffle(input, self.groups)

    def extra_repr(self) -> str:
        return f"groups={self.groups}"
