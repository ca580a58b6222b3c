"""Sizes given as one number or one per dim, made tuples as torch.nn.modules.utils does."""
from __future__ import annotations

from typing import Any


def _ntuple(value: Any, n: int) -> tuple:
    if isinstance(value, (tuple, list)):
        return tuple(value)
    return (value,) * n


def _single(value: Any) -> tuple:
    return _ntuple(value, 1)


def _pair(value: Any) -> tuple:
    return _ntuple(value, 2)
