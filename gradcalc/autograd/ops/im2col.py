"""im2col and col2im (F.unfold and F.fold): a batch of images as the columns of its sliding
blocks and back, the overlapping blocks added up in ATen's order (kernel offset by kernel offset)."""
from __future__ import annotations

from typing import Sequence

import numpy as np

from .. import dtypes
from ..tensor import Tensor
from .common import not_implemented_for
from .registry import LINEAR, node, op, record

IM2COL = node("Im2ColBackward0", ("self",), jvp=LINEAR,
              self=lambda grad, self_sym_argsize_minus_2, self_sym_argsize_minus_1, kernel_size, dilation, padding,
              stride: col2im(grad, (self_sym_argsize_minus_2, self_sym_argsize_minus_1), kernel_size, dilation,
                             padding, stride))
COL2IM = node("Col2ImBackward0", ("self",), jvp=LINEAR,
              self=lambda grad, kernel_size, dilation, padding, stride: im2col(grad, kernel_size, dilation, padding,
                                                                                stride))


def _check_pairs(**pairs: Sequence[int]) -> None:
    for name, value in pairs.items():
        if len(value) != 2:
            raise RuntimeError(f"It is expected {name} equals to 2, but got size {len(value)}")


def _check_windows(kernel_size: Sequence[int], dilation: Sequence[int], padding: Sequence[int],
                   stride: Sequence[int]) -> None:
    checks = (("kernel size", "kernel", kernel_size, min(kernel_size) > 0),
              ("stride", "stride", stride, min(stride) > 0),
              ("dilation", "dilation", dilation, min(dilation) > 0))
    for what, prefix, (height, width), valid in checks:
        if not valid:
            raise RuntimeError(f"{what} should be greater than zero, but got {prefix}_height: {height} "
                               f"{prefix}_width: {width}")
    if min(padding) < 0:
        raise RuntimeError(f"padding should be non-negative, but got pad_height: {padding[0]} pad_width: {padding[1]}")


def _check_dtype(input: Tensor, kernel: str) -> None:
    """The kernels' dispatch: floating, complex and bool tensors."""
    if not (input.is_floating_point() or input.is_complex() or input._dtype is dtypes.bool_):
        raise not_implemented_for(kernel, input._dtype)


def _blocks(size: int, kernel: int, dilation: int, padding: int, stride: int) -> int:
    return (size + 2 * padding - dilation * (kernel - 1) - 1) // stride + 1


@op(module="nn", nodes=(IM2COL,))
def im2col(input: Tensor, kernel_size: Sequence[int], dilation: Sequence[int], padding: Sequence[int],
           stride: Sequence[int]) -> Tensor:
    kernel_size, dilation, padding, stride = (tuple(v) for v in (kernel_size, dilation, padding, stride))
    _check_pairs(kernel_size=kernel_size, dilation=dilation, padding=padding, stride=stride)
    _check_windows(kernel_size, dilation, padding, stride)
    ndim = input.ndim
    input.size(1), input.size(2)  # a tensor of fewer dims fails here, as in ATen
    if not ((ndim == 3 and input.shape[1] and input.shape[2])
            or (ndim == 4 and input.shape[1] and input.shape[2] and input.shape[3])):
        raise RuntimeError("Expected 3D or 4D (batch mode) tensor with possibly 0 batch size and other non-zero "
                           f"dimensions for input, but got: {list(input.shape)}")
    height, width = input.shape[-2:]
    blocks = tuple(_blocks(size, *args) for size, args in zip((height, width), zip(kernel_size, dilation, padding,
                                                                                   stride)))
    if min(blocks) < 1:
        raise RuntimeError(f"Given input with spatial size ({height}, {width}), kernel_size={kernel_size}, "
                           f"dilation={dilation}, padding={padding}, calculated shape of the array of sliding blocks "
                           f"as {blocks}, but its components must be at least one.")
    _check_dtype(input, "im2col_out_cpu")  # the kernel's dispatch, after the checks of sizes
    x = input._data
    padded = np.pad(x, [(0, 0)] * (ndim - 2) + [(padding[0],) * 2, (padding[1],) * 2])
    columns = [padded[..., i * dilation[0]:i * dilation[0] + stride[0] * (blocks[0] - 1) + 1:stride[0],
                      j * dilation[1]:j * dilation[1] + stride[1] * (blocks[1] - 1) + 1:stride[1]]
               for i in range(kernel_size[0]) for j in range(kernel_size[1])]
    stacked = np.stack(columns, axis=-3)  # (..., C, kh * kw, blocks_h, blocks_w)
    data = np.ascontiguousarray(stacked.reshape(x.shape[:-3] + (x.shape[-3] * len(columns), blocks[0] * blocks[1])))
    return record(IM2COL, (input,), data, input._dtype, self_sym_argsize_minus_2=height,
                  self_sym_argsize_minus_1=width, kernel_size=kernel_size, dilation=dilation, padding=padding,
                  stride=stride)


@op(module="nn", nodes=(COL2IM,))
def col2im(input: Tensor, output_size: Sequence[int], kernel_size: Sequence[int], dilation: Sequence[int],
           padding: Sequence[int], stride: Sequence[int]) -> Tensor:
    output_size, kernel_size, dilation, padding, stride = (
        tuple(v) for v in (output_size, kernel_size, dilation, padding, stride))
    _check_pairs(output_size=output_size, kernel_size=kernel_size, dilation=dilation, padding=padding, stride=stride)
    _check_windows(kernel_size, dilation, padding, stride)
    ndim = input.ndim
    if not ((ndim == 2 and input.shape[0] and input.shape[1]) or (ndim == 3 and input.shape[1] and input.shape[2])):
        raise RuntimeError("Expected 2D or 3D (batch mode) tensor for input with possibly 0 batch size and non-zero "
                           f"dimensions for input, but got: {list(input.shape)}")
    planes, length = input.shape[-2:]
    kernel = kernel_size[0] * kernel_size[1]
    if planes % kernel:
        raise RuntimeError(f"Expected size of input's dimension 1 to be divisible by the product of kernel_size, but "
                           f"got input.size(1)={planes} and kernel_size={kernel_size}.")
    blocks = tuple(_blocks(size, *args) for size, args in zip(output_size, zip(kernel_size, dilation, padding,
                                                                               stride)))
    given = (f"Given output_size={output_size}, kernel_size={kernel_size}, dilation={dilation}, padding={padding}, "
             f"stride={stride}, ")
    if length != blocks[0] * blocks[1]:
        raise RuntimeError(f"{given}expected size of input's dimension 2 to match the calculated number of sliding "
                           f"blocks {blocks[0]} * {blocks[1]} = {blocks[0] * blocks[1]}, but got input.size(2)={length}.")
    if min(blocks) < 1:
        raise RuntimeError(f"{given}calculated shape of the array of sliding blocks as {blocks}, which is too small "
                           "(non-positive)")
    _check_dtype(input, "col2im_out_cpu")
    x = input._data
    batch = x.shape[:-2]
    columns = x.reshape(batch + (planes // kernel, kernel_size[0], kernel_size[1]) + blocks)
    height, width = output_size
    out = np.zeros(batch + (planes // kernel, height + 2 * padding[0], width + 2 * padding[1]), dtype=x.dtype)
    # one kernel offset at a time: each pixel gets its blocks' values in the order ATen adds them
    for i in range(kernel_size[0]):
        for j in range(kernel_size[1]):
            out[..., i * dilation[0]:i * dilation[0] + stride[0] * (blocks[0] - 1) + 1:stride[0],
                j * dilation[1]:j * dilation[1] + stride[1] * (blocks[1] - 1) + 1:stride[1]] += columns[..., i, j, :, :]
    data = np.ascontiguousarray(out[..., padding[0]:padding[0] + height, padding[1]:padding[1] + width])
    return record(COL2IM, (input,), data, input._dtype, kernel_size=kernel_size, dilation=dilation, padding=padding,
                  stride=stride)


__all__ = ["im2col", "col2im"]
