"""affine_grid_generator and grid_sampler_2d (F.affine_grid and F.grid_sample: the spatial
transformer), with the arithmetic of ATen's vectorised CPU kernel: each step rounded in the
input's dtype, in the kernel's order, a product followed by an add fused as the compiler fuses
it there (`_fma`), and the input's gradient added up in the order the kernel scatters it (chunk
of SIMD lanes by chunk, corner by corner, lane by lane)."""
from __future__ import annotations

from typing import Sequence

import numpy as np

from .. import cpu, kernels
from ..tensor import Tensor
from .common import not_implemented_for, shape_text
from .creation import linspace_values
from .joining import stack
from ..forward_mode import unsupported
from .registry import LINEAR, NOT_IMPLEMENTED, node, op, record

_BILINEAR, _NEAREST, _BICUBIC = 0, 1, 2
_ZEROS, _BORDER, _REFLECTION = 0, 1, 2
_CUBIC_A = -0.75
_fma = kernels.fused_multiply_add


def _sum_of_products(pairs: Sequence[tuple]) -> np.ndarray:
    """a0 * b0 + a1 * b1 + ... as the kernel computes it: the first product rounded, each next one
    fused into the running sum."""
    (a, b), *rest = pairs
    total = a * b
    for a, b in rest:
        total = _fma(a, b, total)
    return total


def _grid_sampler_grads(grad: Tensor, input: Tensor, grid: Tensor, interpolation_mode: int, padding_mode: int,
                        align_corners: bool, needs_input: bool) -> tuple:
    """grid_sampler_2d_backward: PyTorch gives it no derivative of its own."""
    g_input, g_grid = _backward(grad._data, input._data, grid, interpolation_mode, padding_mode, align_corners,
                                needs_input)
    outs = []
    for data, like in ((g_input, input), (g_grid, grid)):
        outs.append(None if data is None else record(NOT_IMPLEMENTED, (grad, input, grid), data, like._dtype,
                                                     _aten="grid_sampler_2d_backward"))
    return tuple(outs)


GRID_SAMPLER_2D = node(
    "GridSampler2DBackward0", ("input", "grid"), saved=("align_corners", "interpolation_mode", "padding_mode"),
    jvp=unsupported("grid_sampler_2d"),
    input=lambda grad, input, grid, interpolation_mode, padding_mode, align_corners: _grid_sampler_grads(
        grad, input, grid, interpolation_mode, padding_mode, align_corners, True)[0],
    grid=lambda grad, input, grid, interpolation_mode, padding_mode, align_corners: _grid_sampler_grads(
        grad, input, grid, interpolation_mode, padding_mode, align_corners, False)[1])
AFFINE_GRID = node("AffineGridGeneratorBackward0", ("theta",), jvp=LINEAR,
                   theta=lambda grad, size, align_corners: _affine_grid_backward(grad, size, align_corners))


# ------------------------------------------------------------------ affine_grid_generator

def _linspace_from_neg_one(steps: int, align_corners: bool, dtype: np.dtype) -> np.ndarray:
    """linspace(-1, 1, steps) as ATen computes it, scaled in by (steps - 1) / steps (two roundings)
    unless align_corners."""
    if steps <= 1:
        return np.zeros(1, dtype)
    values = linspace_values(-1, 1, steps, dtype.type)
    if not align_corners:
        values = (values * dtype.type(steps - 1)) / dtype.type(steps)
    return values


def _base_grid(size: Sequence[int], align_corners: bool, dtype: np.dtype) -> np.ndarray:
    """(H * W, 3): x, y and 1 for each output position, row by row."""
    height, width = size[-2:]
    base = np.empty((height, width, 3), dtype)
    base[..., 0] = _linspace_from_neg_one(width, align_corners, dtype)
    base[..., 1] = _linspace_from_neg_one(height, align_corners, dtype)[:, None]
    base[..., 2] = 1
    return base.reshape(height * width, 3)


def _affine_grid_backward(grad: Tensor, size: Sequence[int], align_corners: bool) -> Tensor:
    base = Tensor._make(_base_grid(size, align_corners, grad._dtype._numpy), grad._dtype)
    flat = grad.reshape(size[0], size[-2] * size[-1], 2)
    return stack([base.t().mm(flat[n]) for n in range(size[0])]).transpose(1, 2)  # bmm: batch by batch


@op(nodes=(AFFINE_GRID,), method=False)
def affine_grid_generator(theta: Tensor, size: Sequence[int], align_corners: bool) -> Tensor:
    size = tuple(size)
    if len(size) != 4:
        raise NotImplementedError("gradcalc's affine_grid_generator covers 2-D affine transforms")
    batch, _, height, width = size
    base = _base_grid(size, align_corners, theta._data.dtype)
    if theta.ndim != 3 or theta.shape[0] != batch:
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: [{batch}, 3] but got: "
                           f"[{theta.shape[0]}, {theta.shape[-1]}].")
    # each coordinate a running sum of three products (for float32 as kernels.matmul orders it)
    data = np.stack([(base[:, :1] * t[:, 0] + base[:, 1:2] * t[:, 1]) + base[:, 2:3] * t[:, 2]
                     for t in theta._data]).reshape(batch, height, width, 2)
    return record(AFFINE_GRID, (theta,), data, theta._dtype, size=size, align_corners=align_corners)


# ------------------------------------------------------------------ grid_sampler_2d

class _Location:
    """ComputeLocation: grid values to input coordinates along one dim, for a padding mode."""

    def __init__(self, size: int, padding_mode: int, align_corners: bool, dtype: np.dtype) -> None:
        t = dtype.type
        self.t, self.padding_mode, self.align_corners = t, padding_mode, align_corners
        self.max_val = t(size - 1)
        if align_corners:
            self.scaling, self.low, self.twice_span, self.empty = t(size - 1) / t(2), t(0), t(size - 1) * t(2), size <= 1
        else:
            self.scaling, self.low, self.twice_span, self.empty = t(size) / t(2), t(-0.5), t(size) * t(2), size <= 0

    def unnormalize(self, x: np.ndarray) -> np.ndarray:
        t = self.t
        if self.align_corners:
            return (x + t(1)) * self.scaling
        return _fma(x + t(1), self.scaling, t(-0.5))

    def _clip(self, x: np.ndarray) -> np.ndarray:
        low = np.where(x > 0, x, self.t(0))  # max(in, 0): NaN and -0.0 become 0
        return np.where(low < self.max_val, low, self.max_val)

    def _reflect(self, x: np.ndarray) -> np.ndarray:
        if self.empty:
            return np.zeros_like(x)
        span = self.twice_span
        shifted = np.abs(x - self.low) if not self.align_corners else np.abs(x)
        extra = _fma(-np.trunc(shifted / span), span, shifted)
        reflected = np.minimum(extra, span - extra)
        return reflected + self.low if not self.align_corners else reflected

    def coordinates(self, x: np.ndarray) -> np.ndarray:
        """compute_coordinates: padding applied to unnormalized coordinates."""
        if self.padding_mode == _BORDER:
            return self._clip(x)
        if self.padding_mode == _REFLECTION:
            return self._clip(self._reflect(x))
        return x

    def apply(self, x: np.ndarray) -> np.ndarray:
        return self.coordinates(self.unnormalize(x))

    def apply_get_grad(self, x: np.ndarray) -> tuple:
        t = self.t
        x = self.unnormalize(x)
        if self.padding_mode == _ZEROS:
            return x, np.full_like(x, self.scaling)
        grad = np.full_like(x, self.scaling)
        if self.padding_mode == _REFLECTION:
            if self.empty:
                return np.zeros_like(x), np.zeros_like(x)
            span = self.twice_span
            shifted = x - self.low if not self.align_corners else x
            negative = shifted < 0
            magnitude = np.abs(shifted)
            extra = _fma(-np.trunc(magnitude / span), span, magnitude)
            reflected = span - extra
            flip = extra > reflected
            x = np.where(flip, reflected, extra)
            if not self.align_corners:
                x = x + self.low
            grad = np.where(flip ^ negative, t(-1), t(1)) * grad
        bounded = np.where(np.isnan(x), x, np.where(x > 0, x, t(0)))
        inside_low = bounded != 0
        clipped = np.where(np.isnan(bounded), bounded, np.where(bounded < self.max_val, bounded, self.max_val))
        inside_high = clipped != self.max_val
        return clipped, np.where(inside_low & inside_high, grad, t(0))


def _corner_masks(ix: np.ndarray, iy: np.ndarray, width: int, height: int, padding_mode: int) -> np.ndarray:
    if padding_mode != _ZEROS:
        return (ix < width) & (iy < height)  # only the east and south corners can fall outside
    return (ix > -1) & (ix < width) & (iy > -1) & (iy < height)


def _as_int(values: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore"):
        return values.astype(np.int64)


class _Sampler:
    """One grid_sampler_2d call: the input (N, C, H, W), the grid's x and y (N, P) and the points
    each output position reads, with their weights."""

    def __init__(self, input: np.ndarray, grid: np.ndarray, interpolation_mode: int, padding_mode: int,
                 align_corners: bool) -> None:
        self.input, self.mode, self.padding_mode = input, interpolation_mode, padding_mode
        self.height, self.width = input.shape[2:]
        dtype = input.dtype
        self.x = grid[..., 0].reshape(grid.shape[0], -1)
        self.y = grid[..., 1].reshape(grid.shape[0], -1)
        self.loc_w = _Location(self.width, padding_mode, align_corners, dtype)
        self.loc_h = _Location(self.height, padding_mode, align_corners, dtype)
        self.t = dtype.type

    def gather(self, ix: np.ndarray, iy: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """(N, C, P) input values at integer positions (N, P), zero where masked out."""
        n = np.arange(ix.shape[0])[:, None]
        values = self.input[n, :, np.where(mask, iy, 0), np.where(mask, ix, 0)]  # (N, P, C)
        return np.where(mask[:, None, :], np.moveaxis(values, -1, 1), self.t(0))

    def bilinear_params(self, x: np.ndarray, y: np.ndarray) -> tuple:
        t = self.t
        x_w, y_n = np.floor(x), np.floor(y)
        w = x - x_w
        e = t(1) - w
        n = y - y_n
        s = t(1) - n
        ix, iy = _as_int(x_w), _as_int(y_n)
        corners = ((ix, iy, s * e), (ix + 1, iy, s * w), (ix, iy + 1, n * e), (ix + 1, iy + 1, n * w))
        pm = self.padding_mode
        masks = [np.ones(ix.shape, bool) if pm != _ZEROS and k == 0 else
                 _corner_masks(cx, cy, self.width, self.height, pm) for k, (cx, cy, _) in enumerate(corners)]
        return corners, masks, (n, s, w, e)

    def bicubic_points(self, x: np.ndarray, y: np.ndarray) -> tuple:
        """The sixteen points, masks and the coefficients along x and y (with their derivatives)."""
        t = self.t
        ix, iy = np.floor(x), np.floor(y)
        cx, cy = _cubic(x - ix, t), _cubic(y - iy, t)
        points = {}
        for i in range(4):
            for j in range(4):
                xx, yy = ix + t(-1 + i), iy + t(-1 + j)
                px = _as_int(self.loc_w.coordinates(xx))
                py = _as_int(self.loc_h.coordinates(yy))
                mask = (np.ones(px.shape, bool) if self.padding_mode != _ZEROS
                        else (px > -1) & (px < self.width) & (py > -1) & (py < self.height))
                points[i, j] = (px, py, mask)
        return points, cx, cy, x - ix, y - iy

    def forward(self) -> np.ndarray:
        t = self.t
        if self.mode == _NEAREST:
            ix = _as_int(np.rint(self.loc_w.apply(self.x)))
            iy = _as_int(np.rint(self.loc_h.apply(self.y)))
            mask = (np.ones(ix.shape, bool) if self.padding_mode != _ZEROS
                    else (ix > -1) & (ix < self.width) & (iy > -1) & (iy < self.height))
            return self.gather(ix, iy, mask)
        if self.mode == _BILINEAR:
            corners, masks, _ = self.bilinear_params(self.loc_w.apply(self.x), self.loc_h.apply(self.y))
            return _sum_of_products([(self.gather(cx, cy, mask), weight[:, None, :])
                                     for (cx, cy, weight), mask in zip(corners, masks)])
        points, cx, cy, _, _ = self.bicubic_points(self.loc_w.unnormalize(self.x), self.loc_h.unnormalize(self.y))
        rows = [_sum_of_products([(cx[i][:, None, :], self.gather(*points[i, j])) for i in range(4)])
                for j in range(4)]
        return _sum_of_products([(cy[j][:, None, :], rows[j]) for j in range(4)])


def _cubic(tx: np.ndarray, t: type) -> list:
    """ATen's cubic convolution coefficients (A = -0.75) for the four points around tx."""
    a = t(_CUBIC_A)

    def outer(x: np.ndarray) -> np.ndarray:  # ((a * x - 5a) * x + 8a) * x - 4a
        return _fma(_fma(_fma(a, x, -(t(5) * a)), x, t(8) * a), x, -(t(4) * a))

    def inner(x: np.ndarray) -> np.ndarray:  # ((a + 2) * x - (a + 3)) * x * x + 1
        return _fma(_fma(a + t(2), x, -(a + t(3))) * x, x, t(1))

    return [outer(tx + t(1)), inner(tx), inner(t(1) - tx), outer(t(2) - tx)]


def _cubic_grad(tx: np.ndarray, t: type) -> list:
    a = t(_CUBIC_A)
    x0, x1, x2, x3 = t(-1) - tx, t(0) - tx, t(1) - tx, t(2) - tx
    return [_fma(_fma(t(-3) * a, x0, -(t(10) * a)), x0, -(t(8) * a)),
            _fma(t(-3) * (a + t(2)), x1, -(t(2) * (a + t(3)))) * x1,
            _fma(t(3) * (a + t(2)), x2, -(t(2) * (a + t(3)))) * x2,
            _fma(_fma(t(3) * a, x3, -(t(10) * a)), x3, t(8) * a)]


def _chunks(grid: Tensor, lanes: int) -> np.ndarray:
    """The SIMD chunk each output position falls in: the flattened positions taken `lanes` at a
    time where the grid's (H, W) geometry allows it, else each row on its own."""
    _, height, width, _ = grid.shape
    strides = [s // grid._data.itemsize for s in grid._data.strides[1:]]
    contiguous = grid[0].is_contiguous() if grid.shape[0] else True
    plane = (height == 1 or strides[0] == width * strides[1]) and (strides[1] == 1 or width == 1)
    positions = np.arange(height * width)
    if contiguous or plane:
        return positions // lanes
    per_row = -(-width // lanes)
    return (positions // width) * per_row + (positions % width) // lanes


def _scatter(target: np.ndarray, chunk: np.ndarray, parts: list) -> None:
    """Add each part's (ix, iy, mask, value (N, C, P)) into target (N, C, H, W) in the kernel's
    order: chunk by chunk, part by part, position by position."""
    n_count, channels, height, width = target.shape
    positions = chunk.size
    order = np.lexsort((np.tile(np.arange(positions), len(parts)), np.repeat(np.arange(len(parts)), positions),
                        np.tile(chunk, len(parts))))
    index = np.concatenate([iy * width + ix for ix, iy, _, _ in parts], axis=-1)[:, order]  # (N, K * P)
    keep = np.concatenate([mask for _, _, mask, _ in parts], axis=-1)[:, order]
    values = np.concatenate([value for _, _, _, value in parts], axis=-1)[..., order]  # (N, C, K * P)
    base = (np.arange(n_count)[:, None] * channels + np.arange(channels)[None, :]) * (height * width)
    flat_index = (base[..., None] + np.where(keep, index, 0)[:, None, :])
    chosen = np.broadcast_to(keep[:, None, :], flat_index.shape)
    np.add.at(target.reshape(-1), flat_index[chosen], values[chosen])


def _backward(grad: np.ndarray, input: np.ndarray, grid: Tensor, mode: int, padding_mode: int,
              align_corners: bool, needs_input: bool) -> tuple:
    sampler = _Sampler(input, grid._data, mode, padding_mode, align_corners)
    t = sampler.t
    grad = grad.reshape(grad.shape[:2] + (-1,))  # (N, C, P)
    lanes = (64 if cpu.ATEN_AVX512 else 32) // input.itemsize
    chunk = _chunks(grid, lanes)
    g_input = np.zeros_like(input) if needs_input else None
    gx = gy = np.zeros(sampler.x.shape, input.dtype)
    if mode == _NEAREST:
        if needs_input:
            ix = _as_int(np.rint(sampler.loc_w.apply(sampler.x)))
            iy = _as_int(np.rint(sampler.loc_h.apply(sampler.y)))
            mask = (np.ones(ix.shape, bool) if padding_mode != _ZEROS
                    else (ix > -1) & (ix < sampler.width) & (iy > -1) & (iy < sampler.height))
            _scatter(g_input, chunk, [(ix, iy, mask, grad)])
    elif mode == _BILINEAR:
        x, gx_mult = sampler.loc_w.apply_get_grad(sampler.x)
        y, gy_mult = sampler.loc_h.apply_get_grad(sampler.y)
        corners, masks, (n, s, w, e) = sampler.bilinear_params(x, y)
        if needs_input:
            _scatter(g_input, chunk, [(cx, cy, mask, weight[:, None, :] * grad)
                                      for (cx, cy, weight), mask in zip(corners, masks)])
        nw, ne, sw, se = (sampler.gather(cx, cy, mask) for (cx, cy, _), mask in zip(corners, masks))
        for c in range(grad.shape[1]):
            g = grad[:, c]
            gx = _fma(_sum_of_products([(ne[:, c] - nw[:, c], s), (se[:, c] - sw[:, c], n)]), g, gx)
            gy = _fma(_sum_of_products([(sw[:, c] - nw[:, c], e), (se[:, c] - ne[:, c], w)]), g, gy)
        gx, gy = gx * gx_mult, gy * gy_mult
    else:
        points, cx, cy, tx, ty = sampler.bicubic_points(sampler.loc_w.unnormalize(sampler.x),
                                                        sampler.loc_h.unnormalize(sampler.y))
        cxg, cyg = _cubic_grad(tx, t), _cubic_grad(ty, t)
        if needs_input:
            _scatter(g_input, chunk, [(px, py, mask, grad * cx[i][:, None, :] * cy[j][:, None, :])
                                      for (i, j), (px, py, mask) in points.items()])
        values = {key: sampler.gather(*point) for key, point in points.items()}
        for c in range(grad.shape[1]):
            g = grad[:, c]
            for (i, j) in points:
                value = values[i, j][:, c]
                gx = _fma(-(value * g * cxg[i]), cy[j], gx)
                gy = _fma(-(value * g * cyg[j]), cx[i], gy)
        gx, gy = gx * sampler.loc_w.scaling, gy * sampler.loc_h.scaling
    g_grid = np.stack([gx, gy], axis=-1).reshape(grid.shape)
    return g_input, g_grid


def _check(input: Tensor, grid: Tensor) -> None:
    if grid.shape[-1] != input.ndim - 2:
        raise RuntimeError(f"grid_sampler(): expected grid to have size {input.ndim - 2} in last dimension, but got "
                           f"grid with sizes {shape_text(grid.shape)}")
    if input.shape[0] != grid.shape[0]:
        raise RuntimeError(f"grid_sampler(): expected grid and input to have same batch size, but got input with "
                           f"sizes {shape_text(input.shape)} and grid with sizes {shape_text(grid.shape)}")
    for dim in range(2, input.ndim):
        if input.shape[dim] == 0:
            raise RuntimeError(f"grid_sampler(): expected input to have non-empty spatial dimensions, but input has "
                               f"sizes {shape_text(input.shape)} with dimension {dim} being empty")
    if input.ndim == 5 and grid.ndim == 5:
        raise NotImplementedError("gradcalc's grid_sampler covers 2-D grids (4-D input and grid); 3-D grids are not "
                                  "implemented")
    if input.ndim != 4 or grid.ndim != 4:
        raise RuntimeError(f"grid_sampler(): expected 4D input and grid with same number of dimensions, but got "
                           f"input with sizes {shape_text(input.shape)} and grid with sizes {shape_text(grid.shape)}")
    if input._dtype is not grid._dtype:
        raise RuntimeError(f"expected scalar type {input._dtype._scalar_name} but found {grid._dtype._scalar_name}")
    if not input.is_floating_point():
        raise not_implemented_for("grid_sampler_2d_cpu_kernel_impl", input._dtype)


@op(nodes=(GRID_SAMPLER_2D,), method=False)
def grid_sampler_2d(input: Tensor, grid: Tensor, interpolation_mode: int, padding_mode: int,
                    align_corners: bool) -> Tensor:
    _check(input, grid)
    x, g = input._data, grid._data
    if x.dtype == np.float16:  # computed in float, as PyTorch's fallback for half does
        x, g = x.astype(np.float32), g.astype(np.float32)
    out = _Sampler(x, g, interpolation_mode, padding_mode, align_corners).forward()
    data = np.ascontiguousarray(np.broadcast_to(out, x.shape[:2] + (g.shape[1] * g.shape[2],))).reshape(
        x.shape[:2] + g.shape[1:3]).astype(input._data.dtype)
    return record(GRID_SAMPLER_2D, (input, grid), data, input._dtype, interpolation_mode=interpolation_mode,
                  padding_mode=padding_mode, align_corners=align_corners)


@op(method=False)
def grid_sampler(input: Tensor, grid: Tensor, interpolation_mode: int, padding_mode: int,
                 align_corners: bool) -> Tensor:
    _check(input, grid)
    return grid_sampler_2d(input, grid, interpolation_mode, padding_mode, align_corners)


__all__ = ["affine_grid_generator", "grid_sampler", "grid_sampler_2d"]
