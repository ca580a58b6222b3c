"""What a tensor is rather than what it computes: its sizes, strides, storage, dtype tests,
Python numbers, and the autograd flags. Tensor's own methods, declared here so that their
arguments are parsed as PyTorch parses them and torch's functions of the same names exist."""
from __future__ import annotations

from ..tensor import Tensor
from .registry import op

for _method in (Tensor.size, Tensor.dim, Tensor.numel, Tensor.element_size, Tensor.stride, Tensor.storage_offset,
                Tensor.data_ptr, Tensor.is_contiguous, Tensor.is_floating_point, Tensor.is_complex,
                Tensor.is_inference, Tensor.get_device, Tensor.item, Tensor.tolist, Tensor.cpu, Tensor.cuda,
                Tensor.requires_grad_, Tensor.retain_grad, Tensor.detach_):
    op(_method.__name__, inplace=False)(_method)
op("nelement", inplace=False)(Tensor.numel)
op("ndimension", inplace=False)(Tensor.dim)
del _method


@op()
def is_nonzero(input: Tensor) -> bool:
    if input.numel() != 1:
        if input.numel() == 0:
            raise RuntimeError("Boolean value of Tensor with no values is ambiguous")
        raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
    return bool(input)


@op()
def is_same_size(input: Tensor, other: Tensor) -> bool:
    return input.shape == other.shape


@op()
def is_signed(input: Tensor) -> bool:
    return input._dtype.is_signed


@op()
def is_conj(input: Tensor) -> bool:
    return False  # gradcalc conjugates eagerly: no tensor carries a lazy conjugate bit


@op()
def is_neg(input: Tensor) -> bool:
    return False  # likewise no lazy negation bit
