"""Flatten and Unflatten."""
from __future__ import annotations

from typing import Any

from ...autograd.tensor import Tensor
from .module import Module


class Flatten(Module):
    __module__ = "torch.nn.modules.flatten"

    def __init__(self, start_dim: int = 1, end_dim: int = -1) -> None:
        super().__init__()
        self.start_dim = start_dim
        self.end_dim = end_dim

    def forward(self, input: Tensor) -> Tensor:
        return input.flatten(self.start_dim, self.end_dim)

    def extra_repr(self) -> str:
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"


class Unflatten(Module):
    __module__ = "torch.nn.modules.flatten"

    def __init__(self, dim: Any, unflattened_size: Any) -> None:
        super().__init__()
        self._require_tuple_int(unflattened_size)
        self.dim = dim
        self.unflattened_size = unflattened_size

    def _require_tuple_int(self, input: Any) -> None:
        if isinstance(input, (tuple, list)):
            for idx, elem in enumerate(input):
                if not isinstance(elem, int):
                    raise TypeError(f"unflattened_size must be tuple of ints, but found element of type "
                                    f"{type(elem).__name__} at pos {idx}")
            return
        raise TypeError(f"unflattened_size must be a tuple of ints, but found type {type(input).__name__}")

    def forward(self, input: Tensor) -> Tensor:
        return input.unflatten(self.dim, self.unflattened_size)

    def extra_repr(self) -> str:
        return f"dim={self.dim}, unflattened_size={self.unflattened_size}"
