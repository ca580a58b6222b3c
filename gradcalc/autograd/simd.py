"""PyTorch's SIMD CPU kernels where they decide the last bits of a result: SLEEF's exp, the lane
reductions of at::vec, fused multiply-adds, and the C library's functions on float32. The
hottest (exp, log and lane sums of float32) run compiled where the install built native.kernels,
with the same arithmetic as the numpy versions here."""
from __future__ import annotations

import math
from typing import Callable, Optional

import numpy as np

from . import cpu, kernels
from .native import kernels as native


def lanes(dtype: np.dtype) -> int:
    """Elements of `dtype` in one SIMD register of ATen's kernels on this machine: 64 bytes with
    AVX-512, 32 with AVX2."""
    return (64 if cpu.ATEN_AVX512 else 32) // np.dtype(dtype).itemsize


def lane_sum(values: np.ndarray) -> np.ndarray:
    """Sum over the last axis as at::vec::reduce_all adds: a running sum for fewer elements than
    one register holds; otherwise one running sum per lane, then a pairwise fold of the lanes."""
    width = (64 if cpu.ATEN_AVX512 else 32) // values.itemsize  # lanes(values.dtype)
    size = values.shape[-1]
    if size == 0:
        return np.zeros(values.shape[:-1], values.dtype)
    if native is not None and values.dtype.char in "fd" and values.dtype.isnative:
        out = np.empty(values.shape[:-1], values.dtype)
        native.lane_sum(np.ascontiguousarray(values), out, width)
        return out
    return _lane_sum(values, width, size)


def _lane_sum(values: np.ndarray, width: int, size: int) -> np.ndarray:
    """lane_sum in numpy (the native kernel's arithmetic, where it is not built)."""
    if size < width:
        return np.add.accumulate(values, axis=-1)[..., -1]
    acc = values[..., :width].copy()
    full = size - size % width
    for start in range(width, full, width):
        acc += values[..., start:start + width]
    if full < size:
        acc[..., :size - full] += values[..., full:]
    while width > 1:
        width //= 2
        acc = acc[..., :width] + acc[..., width:2 * width]
    return acc[..., 0]


def fold_lanes(lanes: np.ndarray) -> np.ndarray:
    """vec_reduce_all of whole registers: float's folds halves (its shuffles), double's adds the
    lanes in order (no specialisation)."""
    if lanes.dtype == np.float32:
        width = lanes.shape[-1] // 2
        lanes = lanes.copy()
        while width:
            lanes[..., :width] = lanes[..., :width] + lanes[..., width:2 * width]
            width //= 2
        return lanes[..., 0]
    return in_order(lanes)


def in_order(values: np.ndarray) -> np.ndarray:
    """Each row's sum along the last axis, from its first element on."""
    total = values[..., 0].copy()
    for j in range(1, values.shape[-1]):
        total = total + values[..., j]
    return total


def reduce_all(values: np.ndarray, other: Optional[np.ndarray], width: int, fused_tail: bool = True) -> np.ndarray:
    """at::vec's reduce_all of each row's sum in registers of `width` lanes (map2_reduce_all of
    values * other when other is given, which may broadcast: whole registers' products added lane
    by lane, the tail's into the first lanes, fused unless the kernel's build rounds each product,
    `fused_tail`), then fold_lanes; a row shorter than a register is summed in order. The norm
    kernels' reductions (batch_norm_kernel, layer_norm_kernel, group_norm_kernel)."""
    size = values.shape[-1]
    if size < width:
        return in_order(values if other is None else values * other)
    whole = size - size % width

    def term(low: int, high: int) -> np.ndarray:
        return values[..., low:high] if other is None else values[..., low:high] * other[..., low:high]

    lanes = term(0, width)
    for start in range(width, whole, width):
        lanes = lanes + term(start, start + width)
    if whole < size:
        rest = size - whole
        lanes = lanes.copy()
        if other is not None and fused_tail:
            lanes[..., :rest] = kernels.fused_multiply_add(values[..., whole:], other[..., whole:], lanes[..., :rest])
        else:
            lanes[..., :rest] = lanes[..., :rest] + term(whole, size)
    return fold_lanes(lanes)


def fused_multiply_add(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    """a * b + c rounded once, as the FMA instructions of PyTorch's single-precision kernels."""
    if a.dtype != np.float32:
        return a * b + c
    return (a.astype(np.float64) * b.astype(np.float64) + c.astype(np.float64)).astype(np.float32)


def _constants(dtype: type, *values: float) -> tuple:
    """0-d arrays: numpy takes them in arithmetic with arrays of their dtype at an array's cost,
    about half a numpy scalar's (which it converts at every operation)."""
    return tuple(np.array(value, dtype) for value in values)


# SLEEF's single-precision exp (expf_u10), which PyTorch's vectorised CPU kernels call.
_SLEEF_EXPF = tuple(np.float32(c) for c in (
    0.000198527617612853646278381, 0.00139304355252534151077271, 0.00833336077630519866943359,
    0.0416664853692054748535156, 0.166666671633720397949219, 0.5))


def vector_exp(x: np.ndarray) -> np.ndarray:
    """exp as PyTorch's vectorised kernels compute it: SLEEF's algorithm for float32 and float64,
    bit for bit; for other dtypes numpy's (correctly rounded in practice)."""
    if x.dtype == np.float64:
        return vector_exp64(x)
    if x.dtype != np.float32:
        return np.exp(x)
    if native is not None:
        out = np.empty(x.shape, np.float32)
        native.exp_float32(np.ascontiguousarray(x), out)
        return out
    return _vector_exp(x)


def _vector_exp(x: np.ndarray) -> np.ndarray:
    """vector_exp of float32 in numpy (the native kernel's arithmetic, where it is not built)."""
    # Each multiply-add is fused_multiply_add's: float32 operands held in float64 (where their
    # product is exact), multiplied and added there, and rounded once to float32. The work stays in
    # float64 arrays, rounded through a float32 scratch array: numpy's loops mixing the two dtypes
    # buffer their casts and cost about four times as much on small arrays.
    shape, x = x.shape, x.reshape(-1)  # (numpy's arithmetic on 0-d arrays gives scalars)
    with np.errstate(all="ignore"):  # (sigmoid's and silu's inputs may overflow exp: no handler for that)
        rounded = np.rint(x * _LOG2_E)
        q = rounded.astype(np.int32)  # (the same integers wherever exp is not 0 or inf)
        # the first multiply-add in float32: q * ln 2's high part is exact there (q has 8 bits
        # wherever exp is not 0 or inf, the constant 15), so the sum rounds once, as fused
        s = (rounded * _EXP_LN2_HIGH + x).astype(np.float64)
        s += rounded.astype(np.float64) * _EXP_LN2_LOW
        narrow = np.empty(x.shape, np.float32)
        _round_to_float32(s, narrow)
        square = narrow * narrow  # s * s in float32: the exact product, rounded once
        u = s * _SLEEF_EXPF_WIDE[0]
        u += _SLEEF_EXPF_WIDE[1]
        _round_to_float32(u, narrow)
        for c in _SLEEF_EXPF_WIDE[2:]:
            u *= s
            u += c
            _round_to_float32(u, narrow)
        u *= square.astype(np.float64)
        u += s
        np.copyto(narrow, u, casting="same_kind")
        narrow += _EXP_ONE
        # SLEEF scales by 2**(q >> 1), exactly, then by the rest of 2**q, rounding once: one ldexp
        np.ldexp(narrow, q, out=narrow)
        np.copyto(narrow, _EXP_ZERO, where=x < _EXP_UNDERFLOW)
        np.copyto(narrow, _EXP_INFINITY, where=x > _EXP_OVERFLOW)
        return narrow.reshape(shape)


# SLEEF's double-precision exp (exp_u10 as built with fused multiply-adds: AVX2, AVX-512): its
# polynomial's coefficients from the constant term up, and ln 2 in two parts
_SLEEF_EXPD = (0.1666666666666669072e+0, 0.4166666666666602598e-1, 0.8333333333314938210e-2,
               0.1388888888914497797e-2, 0.1984126989855865850e-3, 0.2480158687479686264e-4,
               0.2755723402025388239e-5, 0.2755762628169491192e-6, 0.2511210703042288022e-7,
               0.2081276378237164457e-8)
_EXPD_LN2_HIGH = .69314718055966295651160180568695068359375
_EXPD_LN2_LOW = .28235290563031577122588448175013436025525412068e-12


def vector_exp64(x: np.ndarray) -> np.ndarray:
    """float64 exp as ATen's Vectorized<double>::exp computes it: SLEEF's exp_u10 with fused
    multiply-adds (its polynomial by Estrin's scheme), bit for bit. It misses the correctly
    rounded exp (numpy's, the C library's) for a few inputs in a hundred."""
    if native is not None:
        out = np.empty(x.shape, np.float64)
        native.exp_float64(np.ascontiguousarray(x, np.float64), out)
        return out
    fma = kernels.fused_multiply_add
    c = _SLEEF_EXPD
    with np.errstate(all="ignore"):
        d = np.asarray(x, np.float64)
        clamped = np.nan_to_num(np.clip(d, -1000.0, 710.0), nan=-1000.0)
        u = np.rint(clamped * 1.442695040888963407359924681001892137426645954152985934135449406931)
        q = u.astype(np.int64)
        s = fma(u, np.float64(-_EXPD_LN2_HIGH), clamped)
        s = fma(u, np.float64(-_EXPD_LN2_LOW), s)
        s2 = s * s
        s4 = s2 * s2
        low = fma(s4, fma(s2, fma(s, c[7], c[6]), fma(s, c[5], c[4])), fma(s2, fma(s, c[3], c[2]), fma(s, c[1], c[0])))
        u = fma(s4 * s4, fma(s, c[9], c[8]), low)
        for addend in (0.5, 1.0, 1.0):
            u = fma(u, s, addend)
        half = q >> 1  # two exact powers of two, the second rounding once (as SLEEF's ldexp2)
        u = u * ((half + 1023) << 52).view(np.float64) * ((q - half + 1023) << 52).view(np.float64)
        u = np.where(d > 709.78271114955742909217217426, np.inf, u)
        u = np.where(d < -1000.0, 0.0, u)
        return np.where(np.isnan(d), d, u)


def _round_to_float32(wide: np.ndarray, scratch: np.ndarray) -> None:
    """Round float64 `wide` to float32 values in place (through `scratch`, of its shape)."""
    np.copyto(scratch, wide, casting="same_kind")
    np.copyto(wide, scratch)


# vector_exp's constants, each as a 0-d array of the dtype it is used in (see _constants); the
# polynomial's float32 coefficients as the float64 values fused_multiply_add widens them to
_LOG2_E, _EXP_LN2_HIGH, _EXP_ONE, _EXP_ZERO, _EXP_INFINITY, _EXP_UNDERFLOW, _EXP_OVERFLOW = _constants(
    np.float32, 1.442695040888963407359924681, -0.693145751953125, 1, 0, np.inf, -104, 100)
_EXP_LN2_LOW, *_SLEEF_EXPF_WIDE = _constants(np.float64, np.float32(-1.428606765330187045e-06), *_SLEEF_EXPF)


def kernel_exp(values: np.ndarray, inner_shape: tuple) -> np.ndarray:
    """exp in PyTorch's kernels along a dim that is not the last: `values` is laid out as
    (outer..., inner..., dim); whole registers of inner positions take the SIMD exp, the
    positions left over the C library's (glibc's expf for float32)."""
    inner = int(np.prod(inner_shape, dtype=np.int64))
    full = inner - inner % lanes(values.dtype)
    simd = (np.arange(inner).reshape(inner_shape) < full)[..., None]
    if values.dtype == np.float32:
        scalar = glibc_expf(values)
    else:
        scalar = np.exp(values.astype(np.float64)).astype(values.dtype)
    return np.where(simd, vector_exp(values), scalar)


def glibc_expf(x: np.ndarray) -> np.ndarray:
    """float32 exp as glibc's expf computes it (sysdeps/ieee754/flt-32/e_expf.c): x / ln 2 split
    into k / 32 + r / 32, 2**(k / 32) from a table, 2**(r / 32) a cubic in r, all in double, then
    rounded once to float. It misses the correctly rounded value for about one input in 2,000."""
    wide = x.astype(np.float64)
    with np.errstate(all="ignore"):
        z = _EXPF_INV_LN2_N * wide
        rounded = z + _EXPF_SHIFT  # k in the low bits of the double, rounded to nearest even
        k = rounded.view(np.uint64)
        r = z - (rounded - _EXPF_SHIFT)
        scale = (_EXPF_TABLE[k % np.uint64(_EXPF_N)] + (k << np.uint64(52 - _EXPF_TABLE_BITS))).view(np.float64)
        y = (_EXPF_POLY[0] * r + _EXPF_POLY[1]) * (r * r) + (_EXPF_POLY[2] * r + 1.0)
        result = np.asarray((y * scale).astype(np.float32))  # (an array even for a 0-dim x)
    result[x > _EXPF_OVERFLOW] = np.inf
    result[x < _EXPF_UNDERFLOW] = 0.0
    return np.where(np.isnan(x), x, result)


# glibc's expf constants (e_exp2f_data.c): 2**(i / 32) as doubles with i / 32 taken off the
# exponent field, 32 / ln 2, the rounding shift 1.5 * 2**52, the cubic's scaled coefficients,
# and the bounds beyond which the result is inf or 0
_EXPF_TABLE_BITS = 5
_EXPF_N = 1 << _EXPF_TABLE_BITS
_EXPF_TABLE = np.array([int(np.float64(2.0 ** (i / _EXPF_N)).view(np.uint64)) - (i << (52 - _EXPF_TABLE_BITS))
                        for i in range(_EXPF_N)], dtype=np.uint64)
_EXPF_INV_LN2_N = float.fromhex("0x1.71547652b82fep+0") * _EXPF_N
_EXPF_SHIFT = float.fromhex("0x1.8p+52")
_EXPF_POLY = (float.fromhex("0x1.c6af84b912394p-5") / _EXPF_N ** 3, float.fromhex("0x1.ebfce50fac4f3p-3") / _EXPF_N ** 2,
              float.fromhex("0x1.62e42ff0c52d6p-1") / _EXPF_N)
_EXPF_OVERFLOW = np.float32(float.fromhex("0x1.62e42ep6"))
_EXPF_UNDERFLOW = np.float32(float.fromhex("-0x1.9fe368p6"))


# glibc's logf (sysdeps/ieee754/flt-32/e_logf.c and e_logf_data.c): 1 / c and log(c) for the 16
# subintervals of [0x3f330000, 2 * 0x3f330000) its argument is reduced to, ln 2, and the
# polynomial of log1p(r) after its first term
_LOGF_TABLE = np.array([float.fromhex(h) for h in (
    "0x1.661ec79f8f3bep+0", "0x1.571ed4aaf883dp+0", "0x1.49539f0f010bp+0", "0x1.3c995b0b80385p+0",
    "0x1.30d190c8864a5p+0", "0x1.25e227b0b8eap+0", "0x1.1bb4a4a1a343fp+0", "0x1.12358f08ae5bap+0",
    "0x1.0953f419900a7p+0", "0x1p+0", "0x1.e608cfd9a47acp-1", "0x1.ca4b31f026aap-1", "0x1.b2036576afce6p-1",
    "0x1.9c2d163a1aa2dp-1", "0x1.886e6037841edp-1", "0x1.767dcf5534862p-1")])
_LOGF_LOGC = np.array([float.fromhex(h) for h in (
    "-0x1.57bf7808caadep-2", "-0x1.2bef0a7c06ddbp-2", "-0x1.01eae7f513a67p-2", "-0x1.b31d8a68224e9p-3",
    "-0x1.6574f0ac07758p-3", "-0x1.1aa2bc79c81p-3", "-0x1.a4e76ce8c0e5ep-4", "-0x1.1973c5a611cccp-4",
    "-0x1.252f438e10c1ep-5", "0x0p+0", "0x1.aa5aa5df25984p-5", "0x1.c5e53aa362eb4p-4", "0x1.526e57720db08p-3",
    "0x1.bc2860d22477p-3", "0x1.1058bc8a07ee1p-2", "0x1.4043057b6ee09p-2")])
_LOGF_LN2 = float.fromhex("0x1.62e42fefa39efp-1")
_LOGF_POLY = tuple(float.fromhex(h) for h in ("-0x1.00ea348b88334p-2", "0x1.5575b0be00b6ap-2", "-0x1.ffffef20a4123p-2"))


def glibc_logf(x: np.ndarray) -> np.ndarray:
    """float32 log as glibc's logf computes it: x = 2**k z with z near a table point c, then
    log(c) + k ln 2 + a cubic in r = z / c - 1, in double, rounded once to float. It misses the
    correctly rounded value for about one input in 700 (the tests compare it with the C
    library's own)."""
    x = np.asarray(x, np.float32)
    bits = x.reshape(-1).view(np.uint32).astype(np.int64)
    subnormal = (bits > 0) & (bits < 0x00800000)
    if subnormal.any():  # normalized first, as glibc does
        scaled = (x.reshape(-1)[subnormal] * np.float32(2.0 ** 23)).view(np.uint32).astype(np.int64)
        bits[subnormal] = scaled - (23 << 23)
    shifted = (bits - 0x3F330000) & 0xFFFFFFFF
    index = (shifted >> 19) % 16
    exponent = shifted.astype(np.uint32).view(np.int32).astype(np.int64) >> 23
    z = ((bits - (shifted & (0x1FF << 23))) & 0xFFFFFFFF).astype(np.uint32).view(np.float32).astype(np.float64)
    r = z * _LOGF_TABLE[index] - 1
    r2 = r * r
    y = _LOGF_POLY[1] * r + _LOGF_POLY[2]
    y = _LOGF_POLY[0] * r2 + y
    y = y * r2 + ((_LOGF_LOGC[index] + exponent * _LOGF_LN2) + r)
    out = y.astype(np.float32)
    flat = x.reshape(-1)
    out[bits == 0x3F800000] = 0
    special = ~(flat > 0) | ~np.isfinite(flat)  # zero, negatives, inf and nan: the C library's answers
    if special.any():
        with np.errstate(all="ignore"):
            out[special] = np.log(flat[special])
    return out.reshape(x.shape)


def c_exp64(x: np.ndarray) -> np.ndarray:
    """The C library's exp of float64 values (math.exp's), element by element: numpy's own, which
    its AVX-512 build computes another way, misses it for some inputs in twenty."""
    def exp(value: float) -> float:
        try:
            return math.exp(value)
        except OverflowError:
            return math.inf
    return np.array([exp(value) for value in x.ravel().tolist()], np.float64).reshape(x.shape)


def sigmoid64(x: np.ndarray, row: int) -> np.ndarray:
    """ATen's float64 sigmoid, 1 / (1 + exp(-x)): whole pairs of registers of each `row` elements
    (its inner loop's run; 0: all of x) take SLEEF's exp, the elements after them the C library's."""
    if native is not None and x.size:
        out = np.empty(x.shape, np.float64)
        native.sigmoid_float64(np.ascontiguousarray(x), out, row or x.size, lanes(np.float64))
        return out
    return 1 / (1 + kernels.split_loops(-x, vector_exp64, c_exp64, lanes=lanes(np.float64), row=row))


def log_softmax_rows(x: np.ndarray) -> Optional[np.ndarray]:
    """float32 log_softmax along the last axis in one native pass, activation._softmax_kernel's
    arithmetic; None where the native module is not built, or a row's maximum is zero, infinite
    or nan (the emulation computes those)."""
    if native is None or x.dtype != np.float32 or not x.size:
        return None
    out = np.empty(x.shape, np.float32)
    return out if native.log_softmax_float32(np.ascontiguousarray(x), out, lanes(np.float32), cpu.ATEN_AVX512) \
        else None


def log_softmax_grad_rows(grad: np.ndarray, output: np.ndarray) -> Optional[np.ndarray]:
    """float32 log_softmax's gradient along the last axis in one native pass (softmax_backward_data's
    arithmetic: grad less exp(output) times the lane sum of grad, fused); None where not built."""
    if native is None or output.dtype != np.float32 or grad.dtype != np.float32 or grad.shape != output.shape \
            or not output.size:
        return None
    out = np.empty(output.shape, np.float32)
    native.log_softmax_backward_float32(np.ascontiguousarray(grad), np.ascontiguousarray(output), out,
                                        lanes(np.float32))
    return out


def libm(function: Callable, x: np.ndarray) -> np.ndarray:
    """A C library function on float32 or float64 values: computed in double and rounded once,
    as glibc's float functions (nearly always correctly rounded) give; float32 exp is glibc's
    expf itself, which is not."""
    if function is np.exp and x.dtype == np.float32:
        return glibc_expf(x)
    return np.asarray(function(x.astype(np.float64)), dtype=x.dtype)


def erf(x: np.ndarray) -> np.ndarray:
    return np.vectorize(math.erf, otypes=[np.float64])(x)


# ------------------------------------------------------------------ SLEEF's powf_u10
# PyTorch's Vectorized<float>::pow is SLEEF's powf (u10): exp(y * log|x|) in double-float
# arithmetic (pairs of float32 holding a value and its error), every multiply-add fused as on
# AVX2. Its last bit differs from the correctly rounded power about once in fifty elements.

_F32 = np.float32


def _fma(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    # float32 operands: their product is exact in float64
    return kernels.rounded_fused_float32(np.multiply(a, b, dtype=np.float64), c)


def _exact_fma(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    """_fma where a * b + c is exact in float64 (a product's rounding error, 1 - d * (1 / d): a
    difference of two values within a factor of two of each other), so one rounding is all."""
    return (np.multiply(a, b, dtype=np.float64) + c).astype(_F32)


def _df_add2_ff(x: np.ndarray, y: np.ndarray) -> tuple:
    s = x + y
    v = s - x
    return s, (x - (s - v)) + (y - v)


def _df_add2_pf(x: tuple, y: np.ndarray) -> tuple:
    s = x[0] + y
    v = s - x[0]
    return s, ((x[0] - (s - v)) + (y - v)) + x[1]


def _df_add2_pp(x: tuple, y: tuple) -> tuple:
    s = x[0] + y[0]
    v = s - x[0]
    return s, ((x[0] - (s - v)) + (y[0] - v)) + (x[1] + y[1])


def _df_add_pp(x: tuple, y: tuple) -> tuple:  # |x| >= |y|
    s = x[0] + y[0]
    return s, (((x[0] - s) + y[0]) + x[1]) + y[1]


def _df_add_fp(x: np.ndarray, y: tuple) -> tuple:
    s = x + y[0]
    return s, ((x - s) + y[0]) + y[1]


def _df_mul_pf(x: tuple, y: np.ndarray) -> tuple:
    s = x[0] * y
    return s, _fma(x[1], y, _exact_fma(x[0], y, -s))


def _df_mul_pp(x: tuple, y: tuple) -> tuple:
    s = x[0] * y[0]
    return s, _fma(x[0], y[1], _fma(x[1], y[0], _fma(x[0], y[0], -s)))


def _df_square(x: tuple) -> tuple:
    s = x[0] * x[0]
    return s, _fma(x[0] + x[0], x[1], _fma(x[0], x[0], -s))


def _df_div(n: tuple, d: tuple) -> tuple:
    t = _F32(1) / d[0]
    s = n[0] * t
    u = _exact_fma(t, n[0], -s)
    v = _fma(-d[1], t, _exact_fma(-d[0], t, _F32(1)))
    return s, _fma(s, v, _fma(n[1], t, u))


def _log_df(d: np.ndarray) -> tuple:
    """SLEEF's logkf: log(d) for d > 0 as a double-float."""
    tiny = d < np.finfo(_F32).tiny
    d = np.where(tiny, d * _F32(2.0 ** 64), d)
    e = ((d * _F32(1.0 / 0.75)).view(np.int32) >> 23 & 0xFF) - 0x7F
    m = (d.view(np.int32) - (e << 23)).view(_F32)
    e = np.where(tiny, e - 64, e)
    x = _df_div(_df_add2_ff(_F32(-1), m), _df_add2_ff(_F32(1), m))
    x2 = _df_square(x)
    t = _fma(_F32(0.240320354700088500976562), x2[0], _F32(0.285112679004669189453125))
    t = _fma(t, x2[0], _F32(0.400007992982864379882812))
    c = (_F32(0.66666662693023681640625), _F32(3.69183861259614332084311e-09))
    s = _df_mul_pf((_F32(0.69314718246459960938), _F32(-1.904654323148236017e-09)), e.astype(_F32))
    s = _df_add_pp(s, (x[0] * _F32(2), x[1] * _F32(2)))
    return _df_add_pp(s, _df_mul_pp(_df_mul_pp(x2, x), _df_add2_pp(_df_mul_pf(x2, t), c)))


# ------------------------------------------------------------------ SLEEF's logf_u10
# PyTorch's Vectorized<float>::log (log_softmax's log of its sum, say) is SLEEF's logf (u10),
# within an ulp: about one float32 in a few hundred differs from the correctly rounded log.

_LN2_PAIR = (_F32(0.69314718246459960938), _F32(-1.904654323148236017e-09))


# logf's constants in the dtype each is used in
_ONE, _TWO_POWER_64, _RECIPROCAL_OF_075, _LN2_HIGH32 = _constants(_F32, 1, 2.0 ** 64, 1 / 0.75, _LN2_PAIR[0])
_WIDE_ONE, _LN2_HIGH64, _LN2_LOW64 = _constants(np.float64, 1, *_LN2_PAIR)
_LOG_POLYNOMIAL = _constants(np.float64, *(_F32(c) for c in (0.3027294874, 0.3996108174, 0.6666694880)))
_MANTISSA, _EXPONENT, _BIAS, _ONE_BITS, _BITS_23, _BITS_22 = _constants(np.int32, 0x7FFFFF, 0xFF, 0x7F,
                                                                          0x3F800000, 23, 22)
_F32_TINY, _F32_INFINITY = np.array(np.finfo(_F32).tiny), np.array(np.inf, _F32)


def vector_log(x: np.ndarray) -> np.ndarray:
    """log as PyTorch's vectorised kernels compute it: SLEEF's logf_u10 for float32, bit for bit,
    as its AVX-512 or AVX2 build (by ATen's capability here); numpy's for other dtypes."""
    if x.dtype != np.float32:
        return np.log(x)
    if native is not None:
        out = np.empty(x.shape, np.float32)
        if native.log_float32(np.ascontiguousarray(x), out, cpu.ATEN_AVX512):
            return out
    return _vector_log(x)


def _vector_log(x: np.ndarray) -> np.ndarray:
    """vector_log of float32 in numpy (the native kernel's arithmetic, where it is not built, and
    for zeros, subnormals, negatives, inf and nan, which the native kernel leaves to it)."""
    shape, value = x.shape, np.asarray(x, _F32).reshape(-1)  # (numpy's arithmetic on 0-d arrays gives scalars)
    # (the ufunc's reduction: ndarray.all's Python layer costs about 1 µs more on 32 sums)
    normal = np.logical_and.reduce((value >= _F32_TINY) & (value < _F32_INFINITY))
    e, m = _exponent_and_mantissa(value, normal)
    # SLEEF's double-float steps in float64, where each of its fused multiply-adds here is
    # exact (every operand is a float32 or the exact error of a float32 operation, and their
    # bits span fewer than 53 places: checked on every float32 m), so rounding to float32 once
    # is the FMA's one rounding. First e ln 2 as a double-float (e has 8 bits)
    wide_e = e.astype(np.float64)
    high = e * _LN2_HIGH32
    low = ((_LN2_HIGH64 * wide_e - high.astype(np.float64)) + _LN2_LOW64 * wide_e).astype(_F32)
    # then q = (m - 1) / (m + 1) as a double-float: df_div of (m - 1, 0) (exact) by the pair
    # m + 1 (rounded, and its rounding error)
    wide_m = m.astype(np.float64)
    denominator = m + _ONE
    wide_denominator = denominator.astype(np.float64)
    reciprocal = _ONE / denominator
    q = (m - _ONE) * reciprocal
    wide_reciprocal, wide_q = reciprocal.astype(np.float64), q.astype(np.float64)
    quotient_error = wide_reciprocal * (wide_m - _WIDE_ONE) - wide_q
    # 1 - d * (1 / d) less the pair's low part times 1 / d
    residual = ((_WIDE_ONE - wide_denominator * wide_reciprocal)
                - ((wide_m + _WIDE_ONE) - wide_denominator) * wide_reciprocal).astype(_F32)
    q_low = (wide_q * residual + quotient_error).astype(_F32)
    q2 = q * q
    wide_q2 = q2.astype(np.float64)
    t = (_LOG_POLYNOMIAL[0] * wide_q2 + _LOG_POLYNOMIAL[1]).astype(_F32)
    t = (t * wide_q2 + _LOG_POLYNOMIAL[2]).astype(_F32)
    # the double-float sums, in float32: s = (high, low) + 2q, then s + q^3 t
    twice = q + q
    total = high + twice
    low = (((high - total) + twice) + low) + (q_low + q_low)
    tail = q2 * q * t
    summed = total + tail
    result = summed + (((total - summed) + tail) + low)
    if not normal:
        special = np.where(value == 0, _F32(-np.inf), np.where(value == np.inf, _F32(np.inf), _F32(np.nan)))
        result = np.where((value > 0) & (value < np.inf), result, special)
    return result.reshape(shape)


def _exponent_and_mantissa(d: np.ndarray, normal: bool) -> tuple:
    """SLEEF's split of d > 0 for logf: e (as float32) and m in [0.75, 1.5) with d = m * 2**e,
    as its AVX-512 or AVX2 build takes them (they differ on subnormals and next to 1.5 * 2**e).
    `normal`: every d is a normal float32, whose bits give both."""
    if not normal and cpu.ATEN_AVX512:
        # getexp of d / 0.75 and getmant of d into [0.75, 1.5), each from its own operand
        e = (np.frexp(d * _RECIPROCAL_OF_075)[1] - 1).astype(_F32)
        e = np.where(np.isposinf(d * _RECIPROCAL_OF_075), _F32(128), e)
        fraction = np.frexp(d)[0] * _F32(2)
        return e, np.where(fraction >= _F32(1.5), fraction * _F32(0.5), fraction)
    tiny = None if normal else d < _F32_TINY
    if tiny is not None:  # AVX2's: a subnormal scaled up by 2**64 first
        d = np.where(tiny, d * _TWO_POWER_64, d)
    # the exponent of d / 0.75 (128 where it overflows)
    exponent = ((d * _RECIPROCAL_OF_075).view(np.int32) >> _BITS_23 & _EXPONENT) - _BIAS
    if cpu.ATEN_AVX512:  # getmant of d's own bits: into [1, 2), halved from 1.5 on
        fraction = d.view(np.int32) & _MANTISSA
        m = (fraction | (_ONE_BITS - (fraction >> _BITS_22 << _BITS_23))).view(_F32)
    else:
        m = (d.view(np.int32) - (exponent << _BITS_23)).view(_F32)
    if tiny is not None:
        exponent = np.where(tiny, exponent - 64, exponent)
    return exponent.astype(_F32), m


def _ldexp(x: np.ndarray, q: np.ndarray) -> np.ndarray:
    """SLEEF's ldexp: x * 2**q in five float32 multiplications (which decide a subnormal's rounding)."""
    m = q >> 31
    m = (((m + q) >> 6) - m) << 4
    q = q - (m << 2)
    m = np.clip(m + 0x7F, 0, 0xFF)
    u = (m << 23).astype(np.int32).view(_F32)
    x = x * u * u * u * u
    return x * ((q + 0x7F) << 23).astype(np.int32).view(_F32)


def _exp_df(d: tuple) -> np.ndarray:
    """SLEEF's expkf: exp of a double-float, rounded to float32."""
    q = np.rint((d[0] + d[1]) * _F32(1.442695040888963407359924681001892137426645954152985934135449406931))
    q = np.clip(np.nan_to_num(q), -2 ** 31, 2 ** 31 - 1).astype(np.int32)
    qf = q.astype(_F32)
    s = _df_add2_pf(d, qf * _F32(-0.693145751953125))
    s = _df_add2_pf(s, qf * _F32(-1.428606765330187045e-06))
    total = s[0] + s[1]
    s = (total, (s[0] - total) + s[1])
    u = _F32(0.00136324646882712841033936)
    for coefficient in (0.00836596917361021041870117, 0.0416710823774337768554688, 0.166665524244308471679688,
                        0.499999850988388061523438):
        u = _fma(u, s[0], _F32(coefficient))
    t = _df_add_pp(s, _df_mul_pf(_df_square(s), u))
    t = _df_add_fp(_F32(1), t)
    u = _ldexp(t[0] + t[1], q)
    return np.where(d[0] < -104, _F32(0), u)


def vector_pow(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """x ** y (float32) as SLEEF's powf_u10 computes it, special values included."""
    x, y = np.broadcast_arrays(np.asarray(x, _F32), np.asarray(y, _F32))
    with np.errstate(all="ignore"):
        y_is_int = (np.trunc(y) == y) | (np.abs(y) > 2 ** 24)
        y_is_odd = y_is_int & (np.abs(y) < 2 ** 24) & (np.fmod(np.trunc(y), 2) != 0)
        result = _exp_df(_df_mul_pf(_log_df(np.abs(x)), y))
        result = np.where(np.isnan(result), _F32(np.inf), result)
        result = result * np.where(x > 0, _F32(1), np.where(y_is_int, np.where(y_is_odd, _F32(-1), _F32(1)),
                                                            _F32(np.nan)))
        efx = np.where(np.signbit(y), 1 - np.abs(x), np.abs(x) - 1)
        result = np.where(np.isinf(y), np.where(efx < 0, _F32(0), np.where(efx == 0, _F32(1), _F32(np.inf))),
                          result)
        at_edge = np.where(np.signbit(y) ^ (x == 0), _F32(0), _F32(np.inf))
        edge = at_edge * np.where(np.signbit(np.where(y_is_odd, x, _F32(1))), _F32(-1), _F32(1))
        result = np.where(np.isinf(x) | (x == 0), edge, result)
        result = np.where(np.isnan(x) | np.isnan(y), _F32(np.nan), result)
        return np.where((y == 0) | (x == 1), _F32(1), result).astype(_F32)
