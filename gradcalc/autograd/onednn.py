"""oneDNN's element-wise kernels, which PyTorch calls for some float32 activations of contiguous
tensors (gelu with erf): JIT code whose algorithm depends on the instruction set. Below AVX-512,
erf is Abramowitz and Stegun's formula 7.1.26 around oneDNN's own exp, each step rounded to
float32 and the multiply-adds fused, as its AVX2 code computes them."""
from __future__ import annotations

import numpy as np

from .kernels import fused_multiply_add

_F32 = np.float32


def _constant(bits: int) -> np.float32:
    return np.array(bits, dtype=np.uint32).view(_F32)[()]


_LOG2E, _LN2 = _constant(0x3FB8AA3B), _constant(0x3F317218)
_LN_FLT_MAX, _LN_FLT_MIN = _constant(0x42B17218), _constant(0xC2AEAC50)
_EXP_POLYNOMIAL = tuple(_constant(bits) for bits in (0x3C07CFCE, 0x3D2B9D0D, 0x3E2AAD40, 0x3EFFFEE3, 0x3F7FFFFB))
_ONE_OVER_SQRT_TWO, _ERF_P = _constant(0x3F3504F3), _constant(0x3EA7BA05)
_ERF_POLYNOMIAL = tuple(_constant(bits) for bits in (0x3F87DC22, 0xBFBA00E3, 0x3FB5F0E3, 0xBE91A98E, 0x3E827906))


def exp(x: np.ndarray) -> np.ndarray:
    """oneDNN's float32 exp: 2**n * p(r) with n = floor(x * log2(e) + 1/2), r = x - n * ln 2, and
    a degree-5 polynomial p; zero below log(FLT_MIN)."""
    x = np.asarray(x, _F32)
    underflow = x < _LN_FLT_MIN
    x = np.maximum(np.minimum(x, _LN_FLT_MAX), _LN_FLT_MIN)
    n = np.floor(x * _LOG2E + _F32(0.5))
    r = fused_multiply_add(-n, np.full_like(n, _LN2), x)
    # 2**(n - 1) * 2, since 2**128 has no float32
    scale = ((n - _F32(1)).astype(np.int32) + 127) << 23
    scale = np.where(underflow, 0, scale).astype(np.int32).view(_F32)
    p = np.full_like(x, _EXP_POLYNOMIAL[0])
    for coefficient in _EXP_POLYNOMIAL[1:] + (_F32(1),):
        p = fused_multiply_add(p, r, np.full_like(x, coefficient))
    return p * scale * _F32(2)


def gelu_erf(s: np.ndarray) -> np.ndarray:
    """x * (1 + erf(x / sqrt 2)) / 2 as oneDNN's AVX2 gelu_erf kernel computes it."""
    s = np.asarray(s, _F32)
    x = s * _ONE_OVER_SQRT_TWO
    t = _F32(1) / fused_multiply_add(np.full_like(x, _ERF_P), np.abs(x), np.ones_like(x))
    e = -exp(-(x * x)) * t
    p = np.full_like(x, _ERF_POLYNOMIAL[0])
    for coefficient in _ERF_POLYNOMIAL[1:]:
        p = fused_multiply_add(p, t, np.full_like(x, coefficient))
    erf = fused_multiply_add(e, p, np.ones_like(x))
    erf = np.where(np.signbit(s), -erf, erf)
    half = s * _F32(0.5)
    return fused_multiply_add(erf, half, half)


_ONE_OVER_SQRT_PI = _constant(0x3F106EBA)


def gelu_erf_slope(s: np.ndarray) -> np.ndarray:
    """The derivative of gelu with erf as oneDNN's AVX2 backward kernel computes it:
    (1 + erf(r)) / 2 + r exp(-r**2) / sqrt(pi), with r = x / sqrt 2."""
    s = np.asarray(s, _F32)
    r = s * _ONE_OVER_SQRT_TWO
    q = exp(-(r * r))
    density = r * _ONE_OVER_SQRT_PI * q
    w = _F32(1) / fused_multiply_add(np.full_like(r, _ERF_P), np.abs(r), np.ones_like(r))
    p = np.full_like(r, _ERF_POLYNOMIAL[0])
    for coefficient in _ERF_POLYNOMIAL[1:]:
        p = fused_multiply_add(p, w, np.full_like(r, coefficient))
    erf = fused_multiply_add(-q * w, p, np.ones_like(r))
    erf = np.where(np.signbit(r), -erf, erf)
    return fused_multiply_add(erf, np.full_like(r, _F32(0.5)), density + _F32(0.5))
