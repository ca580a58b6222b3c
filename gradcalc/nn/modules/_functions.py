"""The autograd Functions torch.nn writes in Python (torch/nn/modules/_functions.py), step for step."""
from __future__ import annotations

from typing import Any

from ...autograd.function import Function
from ...autograd.tensor import Tensor


class CrossMapLRN2d(Function):
    """Local response normalisation across channels, Lua Torch's: a running sum of squares over
    a window of `size` channels (added and removed as the window moves), scaled and raised to -beta."""

    @staticmethod
    def forward(ctx: Any, input: Tensor, size: int, alpha: float = 1e-4, beta: float = 0.75, k: float = 1) -> Tensor:
        ctx.size, ctx.alpha, ctx.beta, ctx.k = size, alpha, beta, k
        if input.ndim != 4:
            raise ValueError(f"CrossMapLRN2d: Expected input to be 4D, got {input.ndim}D instead.")
        channels = input.shape[1]
        input_square = input.pow(2)
        pre_pad = int((size - 1) / 2 + 1)
        scale = input.new_zeros(input.shape)
        first = scale.select(1, 0)
        for c in range(min(pre_pad, channels)):
            first.add_(input_square.select(1, c))
        for c in range(1, channels):
            current = scale.select(1, c)
            current.copy_(scale.select(1, c - 1))
            if c < channels - pre_pad + 1:
                current.add_(input_square.select(1, c + pre_pad - 1), alpha=1)
            if c > pre_pad:
                current.add_(input_square.select(1, c - pre_pad), alpha=-1)
        scale.mul_(alpha / size).add_(k)
        ctx.scale = scale
        output = scale.pow(-beta).mul_(input)
        ctx.save_for_backward(input, output)
        return output

    @staticmethod
    def backward(ctx: Any, grad_output: Tensor) -> tuple:
        input, output = ctx.saved_tensors
        batch_size, channels, height, width = input.shape
        padded_ratio = input.new_zeros((channels + ctx.size - 1, height, width))
        cache_ratio_value = 2 * ctx.alpha * ctx.beta / ctx.size
        inverse_pre_pad = int(ctx.size - (ctx.size - 1) / 2)
        grad_input = ctx.scale.pow(-ctx.beta).mul_(grad_output)
        center = padded_ratio.narrow(0, inverse_pre_pad, channels)
        for n in range(batch_size):
            center.copy_(grad_output[n] * output[n])
            center.div_(ctx.scale[n])
            accum_ratio = padded_ratio.narrow(0, 0, ctx.size - 1).sum(0)
            for c in range(channels):
                accum_ratio.add_(padded_ratio[c + ctx.size - 1])
                grad_input[n][c].addcmul_(input[n][c], accum_ratio, value=-cache_ratio_value)
                accum_ratio.add_(padded_ratio[c], alpha=-1)
        return grad_input, None, None, None, None
