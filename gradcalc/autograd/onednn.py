"""oneDNN's element-wise kernels, which PyTorch calls for some float32 activations of contiguous
tensors (gelu with erf): JIT code whose algorithm depends on the instruction set. Below AVX-512,
erf is Abramowitz and Stegun's formula 7.1.26 around oneDNN's own exp, each step rounded to
float32 and the multiply-adds fused, as its AVX2 code computes them; with AVX-512 the forward
pass takes a piecewise minimax polynomial instead (jit_uni_eltwise_injector's
gelu_erf_minimax_approx), the gradient still the formula."""
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


# gelu_erf_minimax_approx: erf(x / sqrt 2) on |x| by one of 25 polynomials of degree 5, chosen by
# |x|'s exponent and two bits of its mantissa; coefficients by degree, from 0 (oneDNN's table)
_MINIMAX = np.array([
    [0xa6f2cb94, 0x32827792, 0x3381cc0c, 0x34523d4a, 0x351ac44d, 0x35f36d88, 0x36ee8229, 0x37b8a3bb, 0x3867a213,
     0x3940033b, 0x3a2a5a1d, 0x3ae35863, 0x3b7828f2, 0x3c08b14b, 0x3c515ed3, 0xbb503236, 0xbd8d8e5e, 0xbe8abcd9,
     0xbf0c19a2, 0xbeccb328, 0x3e176ced, 0x3f470d99, 0x3f7abb28, 0x3f800000, 0x00000000],
    [0x3f4c422a, 0x3f4c421f, 0x3f4c4207, 0x3f4c41cb, 0x3f4c413b, 0x3f4c3fad, 0x3f4c3a2f, 0x3f4c2d40, 0x3f4c146a,
     0x3f4bc341, 0x3f4ad08c, 0x3f48f8cf, 0x3f45fac7, 0x3f404e07, 0x3f3b980f, 0x3f48dff3, 0x3f78b21b, 0x3fbb0704,
     0x40019c32, 0x3fe536d6, 0x3f81331e, 0x3e6c8684, 0x3c98f936, 0x00000000, 0x3f800000],
    [0xb62173f4, 0x3735e4cf, 0x37f2ff89, 0x388c23be, 0x3917535c, 0x39ab2ab0, 0x3a60fadb, 0x3af9b960, 0x3b6e5491,
     0x3c0a4ec5, 0x3ca5aa8c, 0x3d2138d9, 0x3d8737d4, 0x3ddfb660, 0x3e0f27ab, 0x3d94004b, 0xbe0efdeb, 0xbf1d96c3,
     0xbf89db58, 0xbf6d9897, 0xbef69fb8, 0xbdc4f8a8, 0xbbde6422, 0x00000000, 0x00000000],
    [0xbe081a19, 0xbe084570, 0xbe08639b, 0xbe089837, 0xbe08f409, 0xbe09ab95, 0xbe0b66d0, 0xbe0e400a, 0xbe124df8,
     0xbe1bde02, 0xbe2f19c9, 0xbe4931bf, 0xbe685fbc, 0xbe89c95f, 0xbe96cbca, 0xbe8044aa, 0xbe0550f2, 0x3dcfd6a1,
     0x3e94c826, 0x3e79345f, 0x3decec91, 0x3ca46568, 0x3aa1e00a, 0x00000000, 0x00000000],
    [0xba3d61db, 0x39f097a3, 0x3a5845dc, 0x3ab1fa35, 0x3b0cefb8, 0x3b653ab6, 0x3bcae527, 0x3c221712, 0x3c6c5840,
     0x3cc0a703, 0x3d1dcc19, 0x3d63656d, 0x3d955907, 0x3dbf9910, 0x3dd53f69, 0x3db7dcef, 0x3d639ebe, 0xba6ede48,
     0xbd22be69, 0xbd041cf1, 0xbc64f5ab, 0xbb097a32, 0xb8ebf380, 0x00000000, 0x00000000],
    [0x3cb7d80c, 0x3c9b6050, 0x3c978d11, 0x3c92e850, 0x3c8d058b, 0x3c848454, 0x3c6cd623, 0x3c4c824b, 0x3c2a7935,
     0x3be0b390, 0x3b0651ac, 0xbb232f53, 0xbbd42fa0, 0xbc2c5366, 0xbc492c9e, 0xbc2a7aa6, 0xbbd55d04, 0xba823a76,
     0x3b102aa8, 0x3ae25a7e, 0x3a31f792, 0x38b84375, 0x3689bb5a, 0x00000000, 0x00000000]], np.uint32).view(_F32)
# |x|'s bits plus this, shifted right by 21, number its polynomial (1 to 24); past the bound, erf is 1 (23)
_MINIMAX_INDEX_BIAS, _MINIMAX_BOUND = np.int32(0xc21fffff - (1 << 32)), _constant(0x40B15CEE)
_SIGN = np.uint32(0x80000000)


def gelu_erf_minimax(s: np.ndarray) -> np.ndarray:
    """x * (1 + erf(x / sqrt 2)) / 2 as oneDNN's AVX-512 gelu_erf kernel computes it: erf from the
    piecewise polynomial on |x| (Horner's steps fused), given x's sign, plus one, times x, halved."""
    s = np.asarray(s, _F32)
    bits = s.reshape(-1).view(np.uint32)
    positive = (bits & np.uint32(0x7FFFFFFF)).view(_F32)
    index = np.clip((positive.view(np.int32) + _MINIMAX_INDEX_BIAS) >> 21, 1, 24)
    index[_MINIMAX_BOUND < positive] = 23
    polynomial = _MINIMAX[5][index]
    for degree in range(4, -1, -1):
        polynomial = fused_multiply_add(polynomial, positive, _MINIMAX[degree][index])
    erf = (polynomial.view(np.uint32) ^ (bits & _SIGN)).view(_F32)
    return ((s.reshape(-1) * (erf + _F32(1))) * _F32(0.5)).reshape(s.shape)


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
