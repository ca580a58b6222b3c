"""torch.autograd.forward_ad: dual tensors, the levels programs enter, and unpacking a dual
tensor into its primal and tangent (forward_mode.py computes the tangents)."""
from __future__ import annotations

from collections import namedtuple
from typing import Any, Optional

from . import grad_mode
from .forward_mode import dual, enter_level, exit_level, tangent_of
from .ops.shape import alias
from .tensor import Tensor
from ..display.names import torch_class

__all__ = ["UnpackedDualTensor", "dual_level", "enter_dual_level", "exit_dual_level", "make_dual", "unpack_dual"]

_public: list = []  # the ids of the levels programs entered, by PyTorch's level number


@torch_class("torch.autograd.forward_ad.UnpackedDualTensor")
class UnpackedDualTensor(namedtuple("UnpackedDualTensor", ["primal", "tangent"])):
    """What unpack_dual returns: the primal and the tangent (None for a plain tensor)."""

    __slots__ = ()


def enter_dual_level() -> int:
    if _public:
        raise RuntimeError("Nested forward mode AD is not supported at the moment")
    _public.append(enter_level())
    return len(_public) - 1


def exit_dual_level(*, level: Optional[int] = None) -> None:
    index = len(_public) - 1 if level is None else level
    if not 0 <= index < len(_public):
        raise RuntimeError("Trying to exit a forward AD level that was not the last one that was created. "
                           "This is not supported.")
    exit_level(_public.pop(index))


@torch_class("torch.autograd.forward_ad.dual_level")
class dual_level:
    """`with dual_level():` — the scope in which make_dual and unpack_dual work."""

    def __enter__(self) -> int:
        return enter_dual_level()

    def __exit__(self, *exc_info: Any) -> None:
        exit_dual_level()


def _level_id(level: Optional[int], missing: str) -> Optional[int]:
    if level is None:
        if not _public:
            raise RuntimeError(missing)
        return _public[-1]
    if not 0 <= level < len(_public):
        raise RuntimeError(missing)
    return _public[level]


def make_dual(tensor: Tensor, tangent: Tensor, *, level: Optional[int] = None) -> Tensor:
    """A view of `tensor` carrying `tangent` at `level` (the current one by default)."""
    level_id = _level_id(level, "Trying to create a dual Tensor for forward AD but no level exists, make sure to "
                                "enter_dual_level() first.")
    return dual(tensor, tangent, level_id)


def unpack_dual(tensor: Any, *, level: Optional[int] = None) -> UnpackedDualTensor:
    if level is None and not _public:
        return UnpackedDualTensor(tensor, None)
    level_id = _public[-1] if level is None else (_public[level] if 0 <= level < len(_public) else None)
    return unpack(tensor, level_id)



def unpack(tensor: Any, level: Optional[int]) -> UnpackedDualTensor:
    """The primal and the tangent of `tensor` at `level`; the primal is a view of the dual
    tensor (AliasBackward0, when there is a graph to record), as PyTorch's _fw_primal is."""
    tangent = tangent_of(tensor, level) if isinstance(tensor, Tensor) else None
    if tangent is None:
        return UnpackedDualTensor(tensor, None)
    if tensor.requires_grad and grad_mode.is_grad_enabled():
        primal = alias(tensor)
    else:
        primal = tensor._alias(tensor._grad_fn, tensor._output_nr)
    primal._fw = {key: value for key, value in tensor._fw.items() if key != level} or None
    return UnpackedDualTensor(primal, tangent)
