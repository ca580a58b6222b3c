"""Shuffles of the channel dim: pixel_shuffle and pixel_unshuffle (channels traded for
resolution and back) and channel_shuffle (the channels of groups interleaved)."""
from __future__ import annotations

import numpy as np

from ..tensor import Tensor
from .common import shape_text
from .registry import LINEAR, NOT_IMPLEMENTED, node, op, record

PIXEL_SHUFFLE = node("PixelShuffleBackward0", ("self",), jvp=LINEAR,
                     self=lambda grad, upscale_factor: pixel_unshuffle(grad, upscale_factor))
PIXEL_UNSHUFFLE = node("PixelUnshuffleBackward0", ("self",), jvp=LINEAR,
                       self=lambda grad, downscale_factor: pixel_shuffle(grad, downscale_factor))
CHANNEL_SHUFFLE = node("ChannelShuffleBackward0", ("self",), jvp=LINEAR,
                       self=lambda grad, groups: channel_shuffle(grad, grad.shape[1] // groups))


def _check_factor(input: Tensor, name: str, factor_name: str, factor: int) -> None:
    if input.ndim < 3:
        raise RuntimeError(f"{name} expects input to have at least 3 dimensions, but got input with {input.ndim} "
                           "dimension(s)")
    if factor <= 0:
        raise RuntimeError(f"{name} expects a positive {factor_name}, but got {factor}")


def _rearranged(input: Tensor, shape: tuple, axes: tuple, final: tuple) -> np.ndarray:
    """The input's last three dims reshaped to `shape`, permuted by `axes` (over those dims), copied out as `final`."""
    batch = input.shape[:-3]
    k = len(batch)
    moved = input._data.reshape(batch + shape).transpose(tuple(range(k)) + tuple(k + a for a in axes))
    return np.ascontiguousarray(moved).reshape(batch + final)


@op(nodes=(PIXEL_SHUFFLE,))
def pixel_shuffle(input: Tensor, upscale_factor: int) -> Tensor:
    _check_factor(input, "pixel_shuffle", "upscale_factor", upscale_factor)
    r = upscale_factor
    channels, height, width = input.shape[-3:]
    if channels % (r * r):
        raise RuntimeError("pixel_shuffle expects its input's 'channel' dimension to be divisible by the square of "
                           f"upscale_factor, but input.size(-3)={channels} is not divisible by {r * r}")
    data = _rearranged(input, (channels // (r * r), r, r, height, width), (0, 3, 1, 4, 2),
                       (channels // (r * r), height * r, width * r))
    return record(PIXEL_SHUFFLE, (input,), data, input._dtype, upscale_factor=upscale_factor)


@op(nodes=(PIXEL_UNSHUFFLE,))
def pixel_unshuffle(input: Tensor, downscale_factor: int) -> Tensor:
    _check_factor(input, "pixel_unshuffle", "downscale_factor", downscale_factor)
    r = downscale_factor
    channels, height, width = input.shape[-3:]
    for name, dim, size in (("height", -2, height), ("width", -1, width)):
        if size % r:
            raise RuntimeError(f"pixel_unshuffle expects {name} to be divisible by downscale_factor, but "
                               f"input.size({dim})={size} is not divisible by {r}")
    data = _rearranged(input, (channels, height // r, r, width // r, r), (0, 2, 4, 1, 3),
                       (channels * r * r, height // r, width // r))
    return record(PIXEL_UNSHUFFLE, (input,), data, input._dtype, downscale_factor=downscale_factor)


def _shuffled_channels(input: Tensor, groups: int) -> np.ndarray:
    if input.ndim <= 2:
        raise RuntimeError(f"channel_shuffle expects input with > 2 dims, but got input with sizes "
                           f"{shape_text(input.shape)}")
    if groups <= 0:
        raise RuntimeError(f"Number of groups to divide channels in must be positive. Value of groups:{groups}")
    channels = input.shape[1]
    if channels % groups:
        raise RuntimeError(f"Number of channels must be divisible by groups. Got {channels} channels and {groups} "
                           "groups.")
    x = input._data
    grouped = x.reshape((x.shape[0], groups, channels // groups) + x.shape[2:]).swapaxes(1, 2)
    return np.ascontiguousarray(grouped).reshape(x.shape)


@op(nodes=(CHANNEL_SHUFFLE,))
def channel_shuffle(input: Tensor, groups: int) -> Tensor:
    return record(CHANNEL_SHUFFLE, (input,), _shuffled_channels(input, groups), input._dtype, groups=groups)


@op(nodes=(NOT_IMPLEMENTED,))
def native_channel_shuffle(input: Tensor, groups: int) -> Tensor:
    return record(NOT_IMPLEMENTED, (input,), _shuffled_channels(input, groups), input._dtype,
                  _aten="native_channel_shuffle")


__all__ = ["pixel_shuffle", "pixel_unshuffle", "channel_shuffle", "native_channel_shuffle"]
