"""PyTorch's SIMD CPU kernels where they decide the last bits of a result: SLEEF's exp, the lane
reductions of at::vec, fused multiply-adds, and the C library's functions on float32."""
from __future__ import annotations

import math
from typing import Callable

import numpy as np

# Lanes of a SIMD register in PyTorch's CPU kernels (AVX512: 64 bytes).
VECTOR_BYTES = 64


def lane_sum(values: np.ndarray) -> np.ndarray:
    """Sum over the last axis as at::vec::reduce_all adds: a running sum for fewer elements than
    one register holds; otherwise one running sum per lane, then a pairwise fold of the lanes."""
    lanes = VECTOR_BYTES // values.dtype.itemsize
    size = values.shape[-1]
    if size < lanes:
        return np.add.accumulate(values, axis=-1)[..., -1]
    acc = values[..., :lanes].copy()
    full = size - size % lanes
    for start in range(lanes, full, lanes):
        acc += values[..., start:start + lanes]
    if full < size:
        acc[..., :size - full] += values[..., full:]
    while lanes > 1:
        lanes //= 2
        acc = acc[..., :lanes] + acc[..., lanes:2 * lanes]
    return acc[..., 0]


def fused_multiply_add(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    """a * b + c rounded once, as the FMA instructions of PyTorch's single-precision kernels."""
    if a.dtype != np.float32:
        return a * b + c
    return (a.astype(np.float64) * b.astype(np.float64) + c.astype(np.float64)).astype(np.float32)


# SLEEF's single-precision exp (expf_u10), which PyTorch's vectorised CPU kernels call.
_SLEEF_EXPF = tuple(np.float32(c) for c in (
    0.000198527617612853646278381, 0.00139304355252534151077271, 0.00833336077630519866943359,
    0.0416664853692054748535156, 0.166666671633720397949219, 0.5))


def vector_exp(x: np.ndarray) -> np.ndarray:
    """exp as PyTorch's vectorised kernels compute it: SLEEF's algorithm for float32, bit for bit;
    for other dtypes numpy's (correctly rounded in practice)."""
    if x.dtype != np.float32:
        return np.exp(x)
    with np.errstate(all="ignore"):
        q = np.rint(x * np.float32(1.442695040888963407359924681)).astype(np.int32)
        qf = q.astype(np.float32)
        s = fused_multiply_add(qf, np.float32(-0.693145751953125), x)
        s = fused_multiply_add(qf, np.float32(-1.428606765330187045e-06), s)
        u = np.full(x.shape, _SLEEF_EXPF[0], dtype=np.float32)
        for c in _SLEEF_EXPF[1:]:
            u = fused_multiply_add(u, s, np.float32(c))
        u = np.float32(1) + fused_multiply_add(s * s, u, s)
        half = q >> 1
        u = u * np.ldexp(np.float32(1), half).astype(np.float32) * np.ldexp(np.float32(1), q - half).astype(np.float32)
        u = np.where(x < -104, np.float32(0), u)
        return np.where(x > 100, np.float32(np.inf), u).astype(np.float32)


def kernel_exp(values: np.ndarray, inner_shape: tuple) -> np.ndarray:
    """exp in PyTorch's kernels along a dim that is not the last: `values` is laid out as
    (outer..., inner..., dim); whole registers of inner positions take the SIMD exp, the
    positions left over the C library's (correctly rounded in practice)."""
    inner = int(np.prod(inner_shape, dtype=np.int64))
    full = inner - inner % (VECTOR_BYTES // values.dtype.itemsize)
    simd = (np.arange(inner).reshape(inner_shape) < full)[..., None]
    scalar = np.exp(values.astype(np.float64)).astype(values.dtype)
    return np.where(simd, vector_exp(values), scalar)


def libm(function: Callable, x: np.ndarray) -> np.ndarray:
    """A C library function on float32 or float64 values: computed in double and rounded once,
    as glibc's float functions (nearly always correctly rounded) give."""
    return np.asarray(function(x.astype(np.float64)), dtype=x.dtype)


def erf(x: np.ndarray) -> np.ndarray:
    return np.vectorize(math.erf, otypes=[np.float64])(x)
