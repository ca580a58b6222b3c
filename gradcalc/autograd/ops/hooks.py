"""The identity that nn.Module's full backward hooks put around a module's inputs and outputs:
its backward hands the gradients to the hooks, which may replace them."""
from __future__ import annotations

from typing import Callable, Sequence

from ..forward_mode import NO_JVP
from ..tensor import Tensor
from .registry import node, record_outputs



def _no_forward_ad(tangents: list) -> list:
    raise NotImplementedError(NO_JVP)  # PyTorch's hook identity is a custom Function without a jvp


BACKWARD_HOOK = node("BackwardHookFunctionBackward", ("tensors",), multi_output=True, jvp=_no_forward_ad,
                     tensors=lambda grads, _hook: _hook(grads))


def backward_hook_identity(tensors: Sequence[Tensor], hook: Callable[[list], list]) -> tuple:
    """`tensors` again, as new tensors sharing their data, whose gradients pass through `hook`
    (a list of gradients, None where none came, in; the gradients to pass on out)."""
    return record_outputs(BACKWARD_HOOK, tuple(tensors), [(t._data, t._dtype) for t in tensors],
                          ["result"] * len(tensors), _hook=hook)
