"""torch.nn.utils.convert_parameters: a model's parameters as one flat vector, and back."""
from __future__ import annotations

from typing import Iterable

from ...autograd.ops.joining import cat
from ...autograd.tensor import Tensor
from ..modules.module import typename

__all__ = ["parameters_to_vector", "vector_to_parameters"]


def parameters_to_vector(parameters: Iterable[Tensor]) -> Tensor:
    """The parameters flattened and concatenated, in order (a graph through them is recorded)."""
    return cat([param.view(-1) for param in parameters])


def vector_to_parameters(vec: Tensor, parameters: Iterable[Tensor]) -> None:
    """Give each parameter its slice of `vec` as its data."""
    if not isinstance(vec, Tensor):
        raise TypeError(f"expected torch.Tensor, but got: {typename(vec)}")
    pointer = 0
    for param in parameters:
        num_param = param.numel()
        param.data = vec[pointer:pointer + num_param].view_as(param).data
        pointer += num_param
