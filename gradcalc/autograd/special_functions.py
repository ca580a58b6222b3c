"""The special functions PyTorch's kernels compute and numpy lacks (digamma, polygamma, erfinv,
the Hurwitz zeta function, erfcx, the incomplete gamma functions, the classical orthogonal
polynomials), in float64 (digamma in its input's dtype, as ATen's). The Bessel and Airy
functions are in bessel.py."""
from __future__ import annotations

import math
from typing import Callable

import numpy as np

from .bessel import bessel_i
from .kernels import fused_multiply_add
from .simd import glibc_logf

_erf = np.vectorize(math.erf, otypes=[np.float64])
_erfc = np.vectorize(math.erfc, otypes=[np.float64])
_lgamma = np.vectorize(lambda x: math.lgamma(x) if x > 0 or math.isinf(x) or x != math.floor(x) else math.inf,
                       otypes=[np.float64])


def erf(x: np.ndarray) -> np.ndarray:
    return _erf(x)


def erfc(x: np.ndarray) -> np.ndarray:
    return _erfc(x)


def lgamma(x: np.ndarray) -> np.ndarray:
    return np.where(np.isnan(x), np.nan, _lgamma(np.where(np.isnan(x), 1.0, x)))


# ATen's calc_digamma (aten/src/ATen/native/Math.h): psi(10), and the asymptotic series'
# coefficients, highest power first (polevl)
_PSI_10 = 2.25175258906672110764
_DIGAMMA_SERIES = (8.33333333333333333333E-2, -2.10927960927960927961E-2, 7.57575757575757575758E-3,
                   -4.16666666666666666667E-3, 3.96825396825396825397E-3, -8.33333333333333333333E-3,
                   8.33333333333333333333E-2)
_log64 = np.vectorize(math.log, otypes=[np.float64])  # the C library's, as ATen's std::log
_tan64 = np.vectorize(math.tan, otypes=[np.float64])


def digamma(x: np.ndarray) -> np.ndarray:
    """psi(x) as ATen's calc_digamma computes it in x's dtype (float32 or float64): the reflection
    pi / tan(pi r) in double for negative x (r its fractional part), the recurrence up to 10 (psi(10)
    itself exactly there), then log(x) - 1 / (2x) - z P(z) with z = 1 / x**2, P by Horner's fused
    steps; log is the C library's (glibc's logf for float32)."""
    x = np.asarray(x)
    kind = x.dtype.type
    with np.errstate(all="ignore"):
        reflected = x < 0
        result = _digamma_positive(np.where(reflected, kind(1) - x, x))
        fraction = np.modf(np.where(reflected, x, 0.5).astype(np.float64))[0]
        result = np.where(reflected, result - (math.pi / _tan64(math.pi * fraction)).astype(kind), result)
        result = np.where(reflected & (x == np.trunc(x)), kind(np.nan), result)
        return np.where(x == 0, np.copysign(kind(np.inf), -x), result).astype(kind)


def _digamma_positive(x: np.ndarray) -> np.ndarray:
    kind = x.dtype.type
    shift = np.zeros_like(x)
    while True:
        small = x < kind(10)
        if not small.any():
            break
        shift = np.where(small, shift - kind(1) / x, shift)
        x = np.where(small, x + kind(1), x)
    z = kind(1) / (x * x)
    series = np.full_like(x, kind(_DIGAMMA_SERIES[0]))
    for coefficient in _DIGAMMA_SERIES[1:]:
        series = fused_multiply_add(series, z, np.full_like(x, kind(coefficient)))
    tail = np.where(x < kind(1e17), z * series, kind(0))
    log = glibc_logf(x) if kind is np.float32 else _log64(np.where(x > 0, x, 1.0))
    result = ((shift + log) - kind(0.5) / x) - tail
    return np.where(x == kind(10), shift + kind(_PSI_10), result)


def zeta(s: np.ndarray, q: np.ndarray) -> np.ndarray:
    """The Hurwitz zeta function sum_k (k + q)^-s, by Euler-Maclaurin summation (Cephes' zeta)."""
    s, q = np.broadcast_arrays(np.asarray(s, dtype=np.float64), np.asarray(q, dtype=np.float64))
    out = np.empty(s.shape)
    coefficients = (12.0, -720.0, 30240.0, -1209600.0, 47900160.0, -1.8924375803183791606e9, 7.47242496e10,
                    -2.950130727918164224e12, 1.1646782814350067249e14, -4.5979787224074726105e15,
                    1.8152105401943546773e17, -7.1661652561756670113e18)
    for index in np.ndindex(s.shape):
        x, a = float(s[index]), float(q[index])
        if x == 1:
            out[index] = math.inf
            continue
        if x < 1 or math.isnan(a):
            out[index] = math.nan
            continue
        if math.isinf(a):  # Cephes' zeta: -inf counts as a pole, +inf's tail sums 0 * inf
            out[index] = math.inf if a < 0 else math.nan
            continue
        if a <= 0 and (a == math.floor(a) or x != math.floor(x)):
            out[index] = math.inf if a == math.floor(a) else math.nan  # a pole, or no real value
            continue
        total, k = a ** -x, 0
        while k < 9 or a + k < 9:
            k += 1
            total += (a + k) ** -x
        w = a + k
        total += w ** (1 - x) / (x - 1) - 0.5 * w ** -x
        factor, term = 1.0, w ** -x
        for i, coefficient in enumerate(coefficients):
            factor *= x + 2 * i
            term /= w
            total += factor * term / coefficient
            factor *= x + 2 * i + 1
            term /= w
        out[index] = total
    return out


def trigamma(x: np.ndarray) -> np.ndarray:
    """polygamma(1, x) as ATen's calc_trigamma, in x's precision (float32 or float64): the
    reflection below 1/2 (sin's own value at the poles), six steps of the recurrence, then the
    asymptotic series."""
    x = np.asarray(x)
    kind = x.dtype.type if x.dtype in (np.float32, np.float64) else np.float64
    x = x.astype(kind)
    one, pi = kind(1), kind(np.pi)
    with np.errstate(all="ignore"):
        reflected = x < kind(0.5)
        sin_pi_x = np.sin(pi * x)
        result = np.where(reflected, -(pi * pi) / (sin_pi_x * sin_pi_x), kind(0)).astype(kind)
        x = np.where(reflected, one - x, x).astype(kind)
        for _ in range(6):
            result = result + one / (x * x)
            x = x + one
        ixx = one / (x * x)
        series = one + one / (kind(2) * x) + ixx * (kind(1 / 6) - ixx * (kind(1 / 30) - ixx * kind(1 / 42)))
        result = result + series / x
        return np.where(reflected, -result, result)


def polygamma(n: int, x: np.ndarray) -> np.ndarray:
    if n == 0:
        return digamma(x)
    if n == 1:
        return trigamma(x)
    return (-1.0) ** (n + 1) * math.factorial(n) * zeta(n + 1.0, x)


def erfinv(y: np.ndarray) -> np.ndarray:
    """erf's inverse: a rational first guess refined by Newton's steps on erf."""
    y = np.asarray(y, dtype=np.float64)
    inside = np.abs(y) < 1
    w = -np.log((1 - np.where(inside, y, 0)) * (1 + np.where(inside, y, 0)))
    central = w < 5
    w1, w2 = w - 2.5, np.sqrt(np.maximum(w, 5)) - 3
    p1 = np.polyval([2.81022636e-08, 3.43273939e-07, -3.5233877e-06, -4.39150654e-06, 0.00021858087,
                     -0.00125372503, -0.00417768164, 0.246640727, 1.50140941], w1)
    p2 = np.polyval([-0.000200214257, 0.000100950558, 0.00134934322, -0.00367342844, 0.00573950773,
                     -0.0076224613, 0.00943887047, 1.00167406, 2.83297682], w2)
    x = np.where(central, p1, p2) * np.where(inside, y, 0)
    for _ in range(3):
        x = x - (erf(x) - np.where(inside, y, 0)) / (2 / math.sqrt(math.pi) * np.exp(-x * x))
    return np.where(inside, x, np.where(np.abs(y) == 1, np.copysign(np.inf, y), np.nan))


def i0(x: np.ndarray) -> np.ndarray:
    return bessel_i(0, x)


def i1(x: np.ndarray) -> np.ndarray:
    return bessel_i(1, x)


def ndtri(p: np.ndarray) -> np.ndarray:
    """The inverse of the standard normal distribution function."""
    return math.sqrt(2) * erfinv(2 * np.asarray(p, dtype=np.float64) - 1)


def erfcx(x: np.ndarray) -> np.ndarray:
    """e^(x^2) erfc(x): directly while both factors are finite, by the asymptotic series (exact in
    float64 from 26 on) beyond, and by erfcx(x) = 2 e^(x^2) - erfcx(-x) for negative x."""
    x = np.asarray(x, dtype=np.float64)
    a = np.abs(x)
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        direct = np.exp(np.minimum(a, 26.0) ** 2) * erfc(np.minimum(a, 26.0))
        far = np.maximum(a, 26.0)
        term, total = np.ones_like(far), np.ones_like(far)
        for k in range(1, 12):
            term = -term * (2 * k - 1) / (2 * far * far)
            total = total + term
        positive = np.where(a < 26.0, direct, total / (far * math.sqrt(math.pi)))
        negative = 2 * np.exp(a * a) - positive
        result = np.where(x >= 0, positive, negative)
    return np.where(np.isnan(x), np.nan, np.where(x == np.inf, 0.0, result))


def log_ndtr(x: np.ndarray) -> np.ndarray:
    """log of the standard normal distribution function, without underflow in the left tail."""
    x = np.asarray(x, dtype=np.float64)
    t = x / math.sqrt(2)
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        right = np.log1p(-erfc(np.maximum(t, 0.0)) / 2)
        left = np.log(erfcx(-np.minimum(t, 0.0)) / 2) - np.minimum(t, 0.0) ** 2
    return np.where(x > 0, right, left)


def entr(x: np.ndarray) -> np.ndarray:
    """-x log x, 0 at 0 and -inf for negative x."""
    x = np.asarray(x, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(x > 0, -x * np.log(np.where(x > 0, x, 1.0)),
                        np.where(x == 0, 0.0, np.where(x < 0, -np.inf, x)))


def _gamma_series(a: float, x: float) -> float:
    """P(a, x) by its series: e^-x x^a / Gamma(a + 1) * sum x^k / ((a + 1) ... (a + k))."""
    term = total = 1.0
    k = 0
    while abs(term) > 1e-17 * abs(total) and k < 10000:
        k += 1
        term *= x / (a + k)
        total += term
    return total * math.exp(a * math.log(x) - x - math.lgamma(a + 1))


def _gamma_fraction(a: float, x: float) -> float:
    """Q(a, x) by its continued fraction (modified Lentz)."""
    tiny = 1e-300
    b = x + 1 - a
    c, d = 1 / tiny, 1 / b if b else 1 / tiny
    h = d
    for i in range(1, 10000):
        an = -i * (i - a)
        b += 2
        d = an * d + b
        d = tiny if abs(d) < tiny else d
        c = b + an / c
        c = tiny if abs(c) < tiny else c
        d = 1 / d
        delta = d * c
        h *= delta
        if abs(delta - 1) < 1e-16:
            break
    return math.exp(a * math.log(x) - x - math.lgamma(a)) * h


def _incomplete_gamma(a: float, x: float, upper: bool) -> float:
    if math.isnan(a) or math.isnan(x) or a < 0 or x < 0:
        return math.nan
    if a == 0:
        return (0.0 if x > 0 else math.nan) if upper else (1.0 if x > 0 else math.nan)
    if x == 0:
        return 1.0 if upper else 0.0
    if math.isinf(x):
        return 0.0 if upper else 1.0
    if math.isinf(a):
        return 1.0 if upper else 0.0
    if x < a + 1:
        lower = _gamma_series(a, x)
        return 1 - lower if upper else lower
    q = _gamma_fraction(a, x)
    return q if upper else 1 - q


_gammainc = np.vectorize(lambda a, x: _incomplete_gamma(a, x, False), otypes=[np.float64])
_gammaincc = np.vectorize(lambda a, x: _incomplete_gamma(a, x, True), otypes=[np.float64])


def gammainc(a: np.ndarray, x: np.ndarray) -> np.ndarray:
    """The regularized lower incomplete gamma function P(a, x)."""
    return _gammainc(a, x)


def gammaincc(a: np.ndarray, x: np.ndarray) -> np.ndarray:
    """The regularized upper incomplete gamma function Q(a, x) = 1 - P(a, x)."""
    return _gammaincc(a, x)


# ------------------------------------------------------------------ orthogonal polynomials

def _recurrence(x: np.ndarray, n: np.ndarray, first: np.ndarray, step: Callable) -> np.ndarray:
    """p_n(x) from p_0 = 1, p_1 = first and p_(k+1) = step(k, p_k, p_(k-1)), each element to its own n."""
    previous, current = np.ones_like(x), first
    result = np.where(n == 0, previous, current)
    for k in range(1, int(np.max(n, initial=0))):
        previous, current = current, step(k, x, current, previous)
        result = np.where(n == k + 1, current, result)
    return result


def orthogonal_polynomial(kind: str, x: np.ndarray, n: np.ndarray) -> np.ndarray:
    """PyTorch's special.<kind>_polynomial_<letter>(x, n): n truncated to an integer, 0 for n < 0,
    the recurrence for small n and the trigonometric forms of the Chebyshev kinds for large n."""
    x, n = np.broadcast_arrays(np.asarray(x, dtype=np.float64), np.trunc(np.asarray(n, dtype=np.float64)))
    n = np.where(np.isnan(n), -1.0, n)
    count = np.maximum(n, 0).astype(np.int64)
    with np.errstate(all="ignore"):
        if kind.startswith("shifted_"):
            x = 2 * x - 1
            kind = kind[len("shifted_"):]
        result = _POLYNOMIALS[kind](x, count)
    return np.where(n < 0, 0.0, result)


def _chebyshev_t(x: np.ndarray, n: np.ndarray) -> np.ndarray:
    small = np.where((n > 6) & (np.abs(x) < 1), 0, n)
    value = _recurrence(x, small, x, lambda k, x, p, q: 2 * x * p - q)
    value = np.where((n > 6) & (np.abs(x) < 1), np.cos(n * np.arccos(x)), value)
    return np.where(np.abs(x) == 1, np.where((x > 0) | (n % 2 == 0), 1.0, -1.0), value)


def _chebyshev_u(x: np.ndarray, n: np.ndarray) -> np.ndarray:
    small = np.where((n > 8) & (np.abs(x) < 1), 0, n)
    value = _recurrence(x, small, 2 * x, lambda k, x, p, q: 2 * x * p - q)
    angle = np.arccos(x)
    trig = np.where(np.sin(angle) != 0, np.sin((n + 1) * angle) / np.sin(angle), (n + 1) * np.cos((n + 1) * angle) / x)
    value = np.where((n > 8) & (np.abs(x) < 1), trig, value)
    return np.where(np.abs(x) == 1, np.where((x > 0) | (n % 2 == 0), n + 1.0, -(n + 1.0)), value)


def _chebyshev_v(x: np.ndarray, n: np.ndarray) -> np.ndarray:
    small = np.where((n > 8) & (np.abs(x) < 1), 0, n)
    value = _recurrence(x, small, 2 * x - 1, lambda k, x, p, q: 2 * x * p - q)
    angle = np.arccos(x)
    odd_sign = np.where(n % 2 == 0, 2 * n + 1.0, -(2 * n + 1.0))
    trig = np.where(np.sin(angle / 2) != 1, np.cos((n + 0.5) * angle) / np.cos(angle / 2), odd_sign)
    value = np.where((n > 8) & (np.abs(x) < 1), trig, value)
    return np.where(np.abs(x) == 1, np.where(x > 0, 1.0, odd_sign), value)


def _chebyshev_w(x: np.ndarray, n: np.ndarray) -> np.ndarray:
    small = np.where((n > 8) & (np.abs(x) < 1), 0, n)
    value = _recurrence(x, small, 2 * x + 1, lambda k, x, p, q: 2 * x * p - q)
    angle = np.arccos(x)
    at_one = np.where(x > 0, 2 * n + 1.0, np.where(n % 2 == 0, 1.0, -1.0))
    trig = np.where(np.cos(angle / 2) != 1, np.sin((n + 0.5) * angle) / np.sin(angle / 2), at_one)
    value = np.where((n > 8) & (np.abs(x) < 1), trig, value)
    return np.where(np.abs(x) == 1, at_one, value)


def _hermite_h(x: np.ndarray, n: np.ndarray) -> np.ndarray:
    return _recurrence(x, n, 2 * x, lambda k, x, p, q: 2 * x * p - 2 * k * q)


def _hermite_he(x: np.ndarray, n: np.ndarray) -> np.ndarray:
    return _recurrence(x, n, x.copy(), lambda k, x, p, q: x * p - k * q)


def _laguerre_l(x: np.ndarray, n: np.ndarray) -> np.ndarray:
    value = _recurrence(x, n, 1 - x, lambda k, x, p, q: ((2 * k + 1 - x) * p - k * q) / (k + 1))
    return np.where(x == 0, 1.0, value)


def _legendre_p(x: np.ndarray, n: np.ndarray) -> np.ndarray:
    value = _recurrence(x, n, x.copy(), lambda k, x, p, q: ((2 * k + 1) * x * p - k * q) / (k + 1))
    return np.where(np.abs(x) == 1, np.where((x > 0) | (n % 2 == 0), 1.0, -1.0), value)


_POLYNOMIALS = {"chebyshev_t": _chebyshev_t, "chebyshev_u": _chebyshev_u, "chebyshev_v": _chebyshev_v,
                "chebyshev_w": _chebyshev_w, "hermite_h": _hermite_h, "hermite_he": _hermite_he,
                "laguerre_l": _laguerre_l, "legendre_p": _legendre_p}
