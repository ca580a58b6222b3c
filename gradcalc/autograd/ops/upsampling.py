"""Upsampling: nearest (and nearest-exact), linear, bilinear, bicubic and trilinear
interpolation over the last one to three dims, as ATen's CPU kernels compute them: each output
element's source indices and weights in float32 from the same scale (the user's scale factor
when given, else the ratio of sizes), the dims interpolated from the last one outwards, and the
gradients scattered back in the order of the outputs."""
from __future__ import annotations

import math
from typing import Any, Optional, Sequence

import numpy as np

from .. import dtypes, grad_mode
from ..tensor import Tensor
from .common import check_allocation, shape_text
from . import resampling
from .resampling import area_pixel_scale
from .registry import node, op, record
from ..kernels import fused_multiply_add

_CUBIC_A = -0.75


# ------------------------------------------------------------------ sources and weights

def _source_positions(input_size: int, output_size: int, scale: Optional[float], align_corners: bool, cubic: bool,
                      kind: Any, fused: bool = True) -> np.ndarray:
    """area_pixel_compute_source_index for each output index, in the kernel's float type:
    scale * (i + 0.5) - 0.5 with the multiply and subtract `fused` where the compiler fuses
    them (in the kernels built for the processor, not in code built for any x86-64)."""
    step = area_pixel_scale(input_size, output_size, scale, align_corners, kind)
    index = np.arange(output_size).astype(kind)
    if align_corners:
        return step * index
    if fused:
        positions = fused_multiply_add(np.full(output_size, step), index + kind(0.5), np.full(output_size, kind(-0.5)))
    else:
        positions = step * (index + kind(0.5)) - kind(0.5)
    return positions if cubic else np.maximum(positions, kind(0))


def guarded_index(positions: np.ndarray, input_size: int) -> np.ndarray:
    """guard_index_and_lambda's index: floorf of the position (a double one rounded to float
    first, as floorf takes it), at most the last input."""
    return np.minimum(np.floor(positions.astype(np.float32)).astype(np.int64), input_size - 1)


def nearest_sources(input_size: int, output_size: int, scale: Optional[float], exact: bool) -> np.ndarray:
    """The input index each output copies: floor(i * scale), or floor((i + 0.5) * scale) for
    nearest-exact, in float32; plain nearest copies without arithmetic at sizes 1x and 2x."""
    index = np.arange(output_size)
    if not exact and output_size == input_size:
        return index
    if not exact and output_size == 2 * input_size:
        return index >> 1
    step = np.float32(1.0 / scale) if scale is not None and scale > 0 else \
        np.float32(np.float32(input_size) / np.float32(output_size))
    positions = (index.astype(np.float32) + np.float32(0.5)) * step if exact else index.astype(np.float32) * step
    return np.minimum(np.floor(positions).astype(np.int64), input_size - 1)


def linear_taps(input_size: int, output_size: int, scale: Optional[float], align_corners: bool, kind: Any) -> tuple:
    """(index0, index1, lambda0, lambda1) of each output: the two inputs it mixes and their weights."""
    if output_size == input_size:
        index = np.arange(output_size)
        return index, index, np.ones(output_size, kind), np.zeros(output_size, kind)
    positions = _source_positions(input_size, output_size, scale, align_corners, False, kind)
    index0 = guarded_index(positions, input_size)
    lambda1 = np.minimum(np.maximum(positions - index0.astype(kind), kind(0)), kind(1))
    index1 = index0 + (index0 < input_size - 1)
    return index0, index1, kind(1) - lambda1, lambda1


def _cubic_coefficients(t: np.ndarray, kind: Any, fused: bool = True) -> list:
    """get_cubic_upsample_coefficients (A = -0.75) for the fractions t; where `fused`, the
    compiler fuses the inner multiply-adds (the last multiply and add stay apart)."""
    a = kind(_CUBIC_A)
    multiply_add = fused_multiply_add if fused else (lambda x, y, z: x * y + z)

    def near(x: np.ndarray) -> np.ndarray:  # cubic_convolution1
        return multiply_add(a + kind(2), x, -(a + kind(3))) * x * x + kind(1)

    def far(x: np.ndarray) -> np.ndarray:  # cubic_convolution2
        return multiply_add(multiply_add(a, x, -(kind(5) * a)), x, kind(8) * a) * x - kind(4) * a

    rest = kind(1) - t
    return [far(t + kind(1)), near(t), near(rest), far(rest + kind(1))]


def cubic_taps(input_size: int, output_size: int, scale: Optional[float], align_corners: bool, kind: Any,
               fused: bool = True) -> tuple:
    """(indices, weights), each a list of four arrays: the inputs around each output (clamped to
    the edges) and their cubic convolution weights."""
    positions = _source_positions(input_size, output_size, scale, align_corners, True, kind, fused)
    index = guarded_index(positions, input_size)
    t = np.minimum(np.maximum(positions - index.astype(kind), kind(0)), kind(1))
    indices = [np.clip(index - 1 + j, 0, input_size - 1) for j in range(4)]
    return indices, _cubic_coefficients(t, kind, fused)


# ------------------------------------------------------------------ forward

def _corner_terms(x: np.ndarray, taps: list) -> list:
    """(values, weight) of each corner of the interpolation cell, corners in lexicographic order,
    each weight the product of the dims' weights from the outermost dim in."""
    dims = len(taps)
    terms = []
    for corner in np.ndindex(*(len(indices) for indices, _ in taps)):
        values, weight = x, None
        for d, (indices, weights) in enumerate(taps):
            values = np.take(values, indices[corner[d]], axis=x.ndim - dims + d)
            w = weights[corner[d]].reshape((-1,) + (1,) * (dims - 1 - d))
            weight = w if weight is None else weight * w
        terms.append((values, weight))
    return terms


def _computed_in(dtype: Any) -> Any:
    """opmath_type: the float type ATen's kernels compute a dtype's values in."""
    return np.float64 if dtype == np.float64 else np.float32


def _stored(values: np.ndarray, storage: Any) -> np.ndarray:
    """Values rounded to `storage` (a DType) and kept in their computing type."""
    if storage is dtypes.float16:
        return values.astype(np.float16).astype(values.dtype)
    if storage is dtypes.bfloat16:
        return dtypes.round_to_bfloat16(values)
    return values


def _dim_taps(size: int, out: int, scale: Optional[float], align_corners: bool, cubic: bool, kind: Any,
              storage: Any) -> tuple:
    """(indices, weights) of one dim, the weights computed in `kind` and stored in the input's
    dtype, as compute_indices_weights keeps them for the generic kernel."""
    if cubic:
        indices, weights = cubic_taps(size, out, scale, align_corners, kind)
        return indices, [_stored(w, storage) for w in weights]
    index0, index1, _, lambda1 = linear_taps(size, out, scale, align_corners, kind)
    lambda1 = _stored(lambda1, storage)
    return [index0, index1], [_stored(kind(1) - lambda1, storage), lambda1]


def _generic_interpolated(x: np.ndarray, output_size: tuple, scales: tuple, align_corners: bool, cubic: bool,
                          storage: Any) -> np.ndarray:
    """upsample_generic_Nd_kernel_impl: each dim's taps combined from the innermost dim out, in
    the computing type, as the compiler fuses them: the second tap's product first, the first tap
    fused in, then any other taps fused in turn; rounded to the input's dtype once at the end."""
    kind = x.dtype.type
    dims = len(output_size)
    for d in range(dims - 1, -1, -1):
        axis = x.ndim - dims + d
        indices, weights = _dim_taps(x.shape[axis], output_size[d], scales[d], align_corners, cubic, kind, storage)
        shape = (-1,) + (1,) * (dims - 1 - d)
        terms = [(np.take(x, index, axis=axis), weight.reshape(shape)) for index, weight in zip(indices, weights)]
        x = fused_multiply_add(terms[0][0], terms[0][1], terms[1][0] * terms[1][1])
        for values, weight in terms[2:]:
            x = fused_multiply_add(values, weight, x)
    return x


def _channels_last_interpolated(x: np.ndarray, storage: Any, output_size: tuple, scales: tuple,
                                align_corners: bool) -> np.ndarray:
    """cpu_upsample_linear_channels_last, in the computing type `x` holds (the input stored as
    `storage`): each corner's weight the product of the dims' weights. Its element loop adds the
    corners' products as the compiler fuses them: the second corner's product first and the first
    fused in (the other way round for half values, widened by c10::Half's own operators), then
    every other corner fused in."""
    kind = x.dtype.type
    dims = len(output_size)
    taps = []
    for d in range(dims):
        index0, index1, lambda0, lambda1 = linear_taps(x.shape[x.ndim - dims + d], output_size[d], scales[d],
                                                       align_corners, kind)
        taps.append(([index0, index1], [lambda0, lambda1]))
    terms = _corner_terms(x, taps)
    first, second = (terms[0], terms[1]) if storage is dtypes.float16 else (terms[1], terms[0])
    out = first[0] * first[1]
    for values, weight in [second] + terms[2:]:
        out = fused_multiply_add(values, weight, out)
    # the channels whole vectors of 32 bytes of the input take: i00 * w00 + (i01 * w01 + (i10 * w10
    # + i11 * w11)), the innermost sum with its last product fused (its first, as the compiler built
    # the bfloat16 loops and the half trilinear one), then each product before it fused in
    lanes = 32 // storage.itemsize
    vectored = x.shape[1] - x.shape[1] % lanes
    if vectored:
        first_fused = storage is dtypes.bfloat16 or (storage is dtypes.float16 and dims == 3)
        first, second = (terms[-1], terms[-2]) if first_fused else (terms[-2], terms[-1])
        vector = first[0] * first[1]
        for values, weight in [second] + terms[-3::-1]:
            vector = fused_multiply_add(values, weight, vector)
        out[:, :vectored] = vector[:, :vectored]
    return out


def _interpolated(x: np.ndarray, storage: Any, output_size: tuple, scales: tuple, align_corners: bool,
                  cubic: bool) -> np.ndarray:
    """Linear, bilinear, bicubic or trilinear interpolation of `x` (stored as `storage`) by the
    kernel ATen picks: bilinear and trilinear go through the channels-last kernel where
    _use_vectorized_kernel_cond_2d or _3d holds (channels last with more than three channels;
    for bilinear also an output of at most 128 rows plus columns), bilinear also for three
    channels on one thread, as PyTorch runs here; everything else through the generic kernel."""
    computed = x.astype(_computed_in(x.dtype), copy=False)
    dims = len(output_size)
    channels_last = resampling.channels_last(x) and x.shape[1] > 3
    if not cubic and ((dims == 3 and channels_last) or (
            dims == 2 and (channels_last or sum(output_size) <= 128 or x.shape[1] == 3))):
        out = _channels_last_interpolated(computed, storage, output_size, scales, align_corners)
    else:
        out = _generic_interpolated(computed, output_size, scales, align_corners, cubic, storage)
    return out.astype(x.dtype)


def _nearest(x: np.ndarray, output_size: tuple, scales: tuple, exact: bool) -> np.ndarray:
    dims = len(output_size)
    for offset in range(dims):
        axis = x.ndim - dims + offset
        x = np.take(x, nearest_sources(x.shape[axis], output_size[offset], scales[offset], exact), axis=axis)
    return x


# ------------------------------------------------------------------ backward

def _nearest_backward(grad: np.ndarray, input_shape: tuple, output_size: tuple, scales: tuple,
                      exact: bool) -> np.ndarray:
    """Each output's gradient added to its source, in the order of the outputs."""
    dims = len(output_size)
    planes = input_shape[:-dims]
    sources = [nearest_sources(input_shape[-dims + d], output_size[d], scales[d], exact) for d in range(dims)]
    flat = np.ravel_multi_index(np.meshgrid(*sources, indexing="ij"), input_shape[-dims:]).reshape(-1)
    out = np.zeros((int(np.prod(planes, dtype=np.int64)), int(np.prod(input_shape[-dims:]))), grad.dtype)
    g = grad.reshape(out.shape[0], -1)
    for position, target in enumerate(flat):
        out[:, target] += g[:, position]
    return out.reshape(input_shape)


def _linear_backward(grad: np.ndarray, input_shape: tuple, output_size: tuple, scales: tuple,
                     align_corners: bool) -> np.ndarray:
    """cpu_upsample_linear_backward: for each output in order, its gradient times each corner's
    product of weights added to that input (fused)."""
    kind = grad.dtype.type
    dims = len(output_size)
    taps = []
    for d in range(dims):
        index0, index1, lambda0, lambda1 = linear_taps(input_shape[-dims + d], output_size[d], scales[d],
                                                       align_corners, kind)
        taps.append(([index0, index1], [lambda0, lambda1]))
    planes = int(np.prod(input_shape[:-dims], dtype=np.int64))
    result = np.zeros((planes,) + tuple(input_shape[-dims:]), grad.dtype)
    g = grad.reshape((planes,) + tuple(output_size))
    for position in np.ndindex(*output_size):
        value = g[(slice(None),) + position]
        for corner in np.ndindex(*(2,) * dims):
            weight = None
            for d in range(dims):
                w = taps[d][1][corner[d]][position[d]]
                weight = w if weight is None else weight * w
            index = (slice(None),) + tuple(taps[d][0][corner[d]][position[d]] for d in range(dims))
            result[index] = fused_multiply_add(np.full(planes, weight, grad.dtype), value, result[index])
    return result.reshape(input_shape)


def _bicubic_backward(grad: np.ndarray, input_shape: tuple, output_size: tuple, scales: tuple,
                      align_corners: bool) -> np.ndarray:
    """upsample_bicubic2d_backward_out_frame, built for any x86-64 (so nothing fused): for each
    output in order, gradient * y weight * x weight added to each of the sixteen inputs around it
    (clamped to the edges), x taps outer, y taps inner."""
    kind = grad.dtype.type
    (rows, row_weights), (columns, column_weights) = (
        cubic_taps(input_shape[-2 + d], output_size[d], scales[d], align_corners, kind, fused=False) for d in range(2))
    planes = int(np.prod(input_shape[:-2], dtype=np.int64))
    result = np.zeros((planes,) + tuple(input_shape[-2:]), grad.dtype)
    g = grad.reshape((planes,) + tuple(output_size))
    for y, x in np.ndindex(*output_size):
        value = g[:, y, x]
        for i in range(4):
            for j in range(4):
                index = (slice(None), rows[j][y], columns[i][x])
                result[index] = result[index] + value * row_weights[j][y] * column_weights[i][x]
    return result.reshape(input_shape)


# ------------------------------------------------------------------ the ops

def _scales_of(scale_factors: Optional[Sequence[float]], explicit: tuple) -> tuple:
    return tuple(scale_factors) if scale_factors is not None else explicit


def _output_size(input: Tensor, dims: int, output_size: Optional[Sequence[int]],
                 scale_factors: Optional[Sequence[float]]) -> tuple:
    if (output_size is None) == (scale_factors is None):
        raise RuntimeError("Must specify exactly one of output_size and scale_factors")
    if output_size is not None:
        if len(output_size) != dims:
            raise RuntimeError(f"It is expected output_size equals to {dims}, but got size {len(output_size)}")
        return tuple(int(s) for s in output_size)
    if len(scale_factors) != dims:
        raise RuntimeError(f"It is expected scale_factors equals to {dims}, but got size {len(scale_factors)}")
    sizes = [size * scale for size, scale in zip(input.shape[-dims:], scale_factors)]
    if any(not abs(size) <= 2.0 ** 63 for size in sizes):  # each read as an int64 from a double, checked
        raise RuntimeError("value cannot be converted to type int64_t without overflow")
    return tuple(int(size) for size in sizes)  # (the double's conversion truncates toward zero)


def _check(input: Tensor, dims: int, output_size: tuple) -> None:
    if input.ndim != dims + 2:
        raise RuntimeError(f"It is expected input_size equals to {dims + 2}, but got size {input.ndim}")
    if any(s <= 0 for s in input.shape[-dims:]) or any(s <= 0 for s in output_size):
        names = "DHW"[-dims:]
        shown_input = ", ".join(f"{name}: {size}" for name, size in zip(names, input.shape[-dims:]))
        shown_output = ", ".join(f"{name}: {size}" for name, size in zip(names, output_size))
        joined = " and " if dims == 1 else " "  # ATen's 1d check says "and", its 2d and 3d ones do not
        raise RuntimeError(f"Input and output sizes should be greater than 0, but got input ({shown_input})"
                           f"{joined}output ({shown_output})")
    if 0 in input.shape[1:]:  # the meta functions': an empty batch, but no other dim empty
        raise RuntimeError(f"Non-empty {dims + 2}D data tensor expected but got a tensor with sizes "
                           f"{shape_text(input.shape)}")


def _check_kernel_dtype(input: Tensor, kernel: str, takes_bytes: bool) -> None:
    """The dtypes ATen's CPU kernel is built for: the floating ones, and uint8 where `takes_bytes`
    (nearest in any dims, bilinear and bicubic in two); `kernel` names the dispatch that refuses
    the others (CPU kernels of 2.13, whatever the input's memory format)."""
    dtype = input._dtype
    if dtype.category != dtypes.FLOATING and not (takes_bytes and dtype is dtypes.uint8):
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{dtype._scalar_name}'")


def _nearest_op(declared: Any, input: Tensor, dims: int, output_size: Any, scale_factors: Any, explicit: tuple,
                exact: bool) -> Tensor:
    size = _output_size(input, dims, output_size, scale_factors)
    _check(input, dims, size)
    check_allocation(tuple(input.shape[:2]) + tuple(size), input._dtype)  # the result, made before the kernel runs
    _check_kernel_dtype(input, "upsample_nearest2d_channels_last" if dims == 2 else "compute_indices_weights_nearest",
                        takes_bytes=True)
    scales = _scales_of(scale_factors, explicit)
    data = resampling.laid_out_like(_nearest(input._data, size, scales, exact), input._data)
    return record(declared, (input,), data, input._dtype, output_size=size, self_sym_sizes=tuple(input.shape),
                  **_named_scales(dims, scales))


def _interpolation_op(declared: Any, input: Tensor, dims: int, output_size: Any, align_corners: bool,
                      scale_factors: Any, explicit: tuple, cubic: bool, antialias: Optional[str] = None) -> Tensor:
    """The interpolating ops; `antialias` names the antialiasing filter ("linear", "cubic",
    "lanczos") of the _aa ops."""
    size = _output_size(input, dims, output_size, scale_factors)
    _check(input, dims, size)
    check_allocation(tuple(input.shape[:2]) + tuple(size), input._dtype)  # the result, made before the kernel runs
    if antialias:
        if input._dtype not in (dtypes.float32, dtypes.float64, dtypes.uint8):
            raise NotImplementedError(
                f"\"compute_index_ranges_weights\" not implemented for '{input._dtype._scalar_name}'")
    else:
        kernel = ("compute_indices_weights_cubic" if cubic else "upsample_bilinear2d_channels_last" if dims == 2
                  else "compute_indices_weights_linear")
        _check_kernel_dtype(input, kernel, takes_bytes=dims == 2)
    scales = _scales_of(scale_factors, explicit)
    if input._dtype is dtypes.uint8:
        data = resampling.resample_bytes(input._data, size, scales, align_corners,
                                         antialias or ("cubic" if cubic else "linear"), antialias is not None)
    elif antialias:
        data = resampling.resample_antialiased(input._data, size, scales, align_corners, antialias)
    else:
        data = _interpolated(input._data, input._dtype, size, scales, align_corners, cubic)
    data = resampling.laid_out_like(data.astype(input._data.dtype, copy=False), input._data)
    return record(declared, (input,), data, input._dtype, output_size=size, align_corners=align_corners,
                  self_sym_sizes=tuple(input.shape), **_named_scales(dims, scales))


def _named_scales(dims: int, scales: tuple) -> dict:
    names = {1: ("scales",), 2: ("scales_h", "scales_w"), 3: ("scales_d", "scales_h", "scales_w")}[dims]
    return dict(zip(names, scales))


def _by_dims(apply: Any, corners: bool) -> dict:
    """A formula for each number of dims, its parameters named after the saved values (the
    registry reads them to know what to save): apply(first, sizes, output_size, align_corners, scales)."""
    if not corners:
        return {
            1: lambda first, self_sym_sizes, output_size, scales: apply(
                first, self_sym_sizes, output_size, None, (scales,)),
            2: lambda first, self_sym_sizes, output_size, scales_h, scales_w: apply(
                first, self_sym_sizes, output_size, None, (scales_h, scales_w)),
            3: lambda first, self_sym_sizes, output_size, scales_d, scales_h, scales_w: apply(
                first, self_sym_sizes, output_size, None, (scales_d, scales_h, scales_w))}
    return {
        1: lambda first, self_sym_sizes, output_size, align_corners, scales: apply(
            first, self_sym_sizes, output_size, align_corners, (scales,)),
        2: lambda first, self_sym_sizes, output_size, align_corners, scales_h, scales_w: apply(
            first, self_sym_sizes, output_size, align_corners, (scales_h, scales_w)),
        3: lambda first, self_sym_sizes, output_size, align_corners, scales_d, scales_h, scales_w: apply(
            first, self_sym_sizes, output_size, align_corners, (scales_d, scales_h, scales_w))}


def _declare(name: str, dims: int, kind: str) -> tuple:
    """The node of an upsampling op and of its backward (upsampling is linear: the backward's
    gradient is the upsampling itself, its forward derivative the upsampling of the tangent)."""
    exact, cubic = kind == "nearest-exact", kind.endswith("cubic")
    antialias = kind.split()[-1] if kind.startswith("antialiased") else None

    def forward(x: Tensor, sizes: tuple, output_size: tuple, align_corners: Optional[bool], scales: tuple) -> Tensor:
        if kind.startswith("nearest"):
            return _nearest_op(declared, x, dims, output_size, None, scales, exact)
        return _interpolation_op(declared, x, dims, output_size, align_corners, None, scales, cubic, antialias)

    def backward(grad: Tensor, sizes: tuple, output_size: tuple, align_corners: Optional[bool],
                 scales: tuple) -> Tensor:
        # half and bfloat16 gradients are added up in float and rounded once, as ATen's buffer does
        computed = grad._data.astype(_computed_in(grad._data.dtype), copy=False)
        if kind.startswith("nearest"):
            data = _nearest_backward(computed, sizes, output_size, scales, exact)
        elif antialias:
            data = resampling.antialias_gradient(computed, sizes, output_size, scales, align_corners, antialias)
        else:
            data = (_bicubic_backward if cubic else _linear_backward)(computed, sizes, output_size, scales,
                                                                       align_corners)
        data = resampling.laid_out_like(data.astype(grad._data.dtype, copy=False), grad._data)
        if grad_mode.is_grad_enabled() and grad.requires_grad:
            params = dict(zip(("self_sym_sizes", "output_size"), (sizes, output_size)), **_named_scales(dims, scales))
            if not kind.startswith("nearest"):
                params["align_corners"] = align_corners
            return record(declared_backward, (grad,), data, grad._dtype, **params)
        return Tensor._make(data, grad._dtype)

    corners = not kind.startswith("nearest")
    saved = ("align_corners",) * corners + ("output_size",) + tuple(_named_scales(dims, (None,) * dims)) \
        + ("self_sym_sizes",)
    declared = node(name, ("self",), saved=saved, jvp={"self": _by_dims(forward, corners)[dims]},
                    self=_by_dims(backward, corners)[dims])
    declared_backward = node(name.replace("Backward0", "BackwardBackward0"), ("grad_output",), saved=saved,
                             grad_output=_by_dims(forward, corners)[dims])
    return declared


NEAREST_1D = _declare("UpsampleNearest1DBackward0", 1, "nearest")
NEAREST_2D = _declare("UpsampleNearest2DBackward0", 2, "nearest")
NEAREST_3D = _declare("UpsampleNearest3DBackward0", 3, "nearest")
NEAREST_EXACT_1D = _declare("UpsampleNearestExact1DBackward0", 1, "nearest-exact")
NEAREST_EXACT_2D = _declare("UpsampleNearestExact2DBackward0", 2, "nearest-exact")
NEAREST_EXACT_3D = _declare("UpsampleNearestExact3DBackward0", 3, "nearest-exact")
LINEAR_1D = _declare("UpsampleLinear1DBackward0", 1, "linear")
BILINEAR_2D = _declare("UpsampleBilinear2DBackward0", 2, "linear")
BICUBIC_2D = _declare("UpsampleBicubic2DBackward0", 2, "cubic")
TRILINEAR_3D = _declare("UpsampleTrilinear3DBackward0", 3, "linear")
BILINEAR_2D_AA = _declare("UpsampleBilinear2DAaBackward0", 2, "antialiased linear")
BICUBIC_2D_AA = _declare("UpsampleBicubic2DAaBackward0", 2, "antialiased cubic")
LANCZOS_2D_AA = _declare("UpsampleLanczos2DAaBackward0", 2, "antialiased lanczos")


@op(module="nn", nodes=(NEAREST_1D,))
def upsample_nearest1d(input: Tensor, output_size: Optional[Sequence[int]] = None,
                       scale_factors: Optional[Sequence[float]] = None, scales: Optional[float] = None) -> Tensor:
    return _nearest_op(NEAREST_1D, input, 1, output_size, scale_factors, (scales,), False)


@op(module="nn", nodes=(NEAREST_2D,))
def upsample_nearest2d(input: Tensor, output_size: Optional[Sequence[int]] = None,
                       scale_factors: Optional[Sequence[float]] = None, scales_h: Optional[float] = None,
                       scales_w: Optional[float] = None) -> Tensor:
    return _nearest_op(NEAREST_2D, input, 2, output_size, scale_factors, (scales_h, scales_w), False)


@op(module="nn", nodes=(NEAREST_3D,))
def upsample_nearest3d(input: Tensor, output_size: Optional[Sequence[int]] = None,
                       scale_factors: Optional[Sequence[float]] = None, scales_d: Optional[float] = None,
                       scales_h: Optional[float] = None, scales_w: Optional[float] = None) -> Tensor:
    return _nearest_op(NEAREST_3D, input, 3, output_size, scale_factors, (scales_d, scales_h, scales_w), False)


@op("_upsample_nearest_exact1d", module="nn", nodes=(NEAREST_EXACT_1D,))
def upsample_nearest_exact1d(input: Tensor, output_size: Optional[Sequence[int]] = None,
                             scale_factors: Optional[Sequence[float]] = None, scales: Optional[float] = None) -> Tensor:
    return _nearest_op(NEAREST_EXACT_1D, input, 1, output_size, scale_factors, (scales,), True)


@op("_upsample_nearest_exact2d", module="nn", nodes=(NEAREST_EXACT_2D,))
def upsample_nearest_exact2d(input: Tensor, output_size: Optional[Sequence[int]] = None,
                             scale_factors: Optional[Sequence[float]] = None, scales_h: Optional[float] = None,
                             scales_w: Optional[float] = None) -> Tensor:
    return _nearest_op(NEAREST_EXACT_2D, input, 2, output_size, scale_factors, (scales_h, scales_w), True)


@op("_upsample_nearest_exact3d", module="nn", nodes=(NEAREST_EXACT_3D,))
def upsample_nearest_exact3d(input: Tensor, output_size: Optional[Sequence[int]] = None,
                             scale_factors: Optional[Sequence[float]] = None, scales_d: Optional[float] = None,
                             scales_h: Optional[float] = None, scales_w: Optional[float] = None) -> Tensor:
    return _nearest_op(NEAREST_EXACT_3D, input, 3, output_size, scale_factors, (scales_d, scales_h, scales_w), True)


@op(module="nn", nodes=(LINEAR_1D,))
def upsample_linear1d(input: Tensor, output_size: Optional[Sequence[int]] = None, align_corners: bool = False,
                      scale_factors: Optional[Sequence[float]] = None, scales: Optional[float] = None) -> Tensor:
    return _interpolation_op(LINEAR_1D, input, 1, output_size, align_corners, scale_factors, (scales,), False)


@op(module="nn", nodes=(BILINEAR_2D,))
def upsample_bilinear2d(input: Tensor, output_size: Optional[Sequence[int]] = None, align_corners: bool = False,
                        scale_factors: Optional[Sequence[float]] = None, scales_h: Optional[float] = None,
                        scales_w: Optional[float] = None) -> Tensor:
    return _interpolation_op(BILINEAR_2D, input, 2, output_size, align_corners, scale_factors, (scales_h, scales_w),
                             False)


@op(module="nn", nodes=(BICUBIC_2D,))
def upsample_bicubic2d(input: Tensor, output_size: Optional[Sequence[int]] = None, align_corners: bool = False,
                       scale_factors: Optional[Sequence[float]] = None, scales_h: Optional[float] = None,
                       scales_w: Optional[float] = None) -> Tensor:
    return _interpolation_op(BICUBIC_2D, input, 2, output_size, align_corners, scale_factors, (scales_h, scales_w),
                             True)


@op(module="nn", nodes=(TRILINEAR_3D,))
def upsample_trilinear3d(input: Tensor, output_size: Optional[Sequence[int]] = None, align_corners: bool = False,
                         scale_factors: Optional[Sequence[float]] = None, scales_d: Optional[float] = None,
                         scales_h: Optional[float] = None, scales_w: Optional[float] = None) -> Tensor:
    return _interpolation_op(TRILINEAR_3D, input, 3, output_size, align_corners, scale_factors,
                             (scales_d, scales_h, scales_w), False)


@op("_upsample_bilinear2d_aa", module="nn", nodes=(BILINEAR_2D_AA,))
def upsample_bilinear2d_aa(input: Tensor, output_size: Optional[Sequence[int]] = None, align_corners: bool = False,
                           scale_factors: Optional[Sequence[float]] = None, scales_h: Optional[float] = None,
                           scales_w: Optional[float] = None) -> Tensor:
    return _interpolation_op(BILINEAR_2D_AA, input, 2, output_size, align_corners, scale_factors, (scales_h, scales_w),
                             False, antialias="linear")


@op("_upsample_bicubic2d_aa", module="nn", nodes=(BICUBIC_2D_AA,))
def upsample_bicubic2d_aa(input: Tensor, output_size: Optional[Sequence[int]] = None, align_corners: bool = False,
                          scale_factors: Optional[Sequence[float]] = None, scales_h: Optional[float] = None,
                          scales_w: Optional[float] = None) -> Tensor:
    return _interpolation_op(BICUBIC_2D_AA, input, 2, output_size, align_corners, scale_factors, (scales_h, scales_w),
                             True, antialias="cubic")


@op("_upsample_lanczos2d_aa", module="nn", nodes=(LANCZOS_2D_AA,))
def upsample_lanczos2d_aa(input: Tensor, output_size: Optional[Sequence[int]] = None, align_corners: bool = False,
                          scale_factors: Optional[Sequence[float]] = None, scales_h: Optional[float] = None,
                          scales_w: Optional[float] = None) -> Tensor:
    return _interpolation_op(LANCZOS_2D_AA, input, 2, output_size, align_corners, scale_factors, (scales_h, scales_w),
                             False, antialias="lanczos")
