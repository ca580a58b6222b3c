"""Bessel and Airy functions in float64 for torch.special, numpy only.

Each comes from an integral representation evaluated by a rule that converges geometrically for
its integrand (the trapezoidal rule for smooth periodic integrands and for doubly exponentially
decaying ones, Gauss-Legendre on a finite interval), from its power series near zero, or from
its asymptotic expansion far out, where that expansion is accurate to the last bit."""
from __future__ import annotations

import math
from functools import lru_cache
from typing import Callable

import numpy as np

EULER_GAMMA = 0.57721566490153286061
_CHUNK = 2048  # elements evaluated at once: a row of quadrature nodes each


def _elementwise(x: np.ndarray, compute: Callable[[np.ndarray], np.ndarray]) -> np.ndarray:
    """`compute` over the flat values of `x`, a chunk at a time (each value needs a row of nodes)."""
    flat = np.asarray(x, dtype=np.float64).reshape(-1)
    out = np.empty_like(flat)
    for start in range(0, flat.size, _CHUNK):
        out[start:start + _CHUNK] = compute(flat[start:start + _CHUNK])
    return out.reshape(np.shape(x))


@lru_cache(maxsize=None)
def _gauss_legendre(count: int) -> tuple:
    return np.polynomial.legendre.leggauss(count)


def _integrate(f: Callable[[np.ndarray], np.ndarray], low: np.ndarray, high: np.ndarray, count: int) -> np.ndarray:
    """Gauss-Legendre over [low, high] for each row: f takes the nodes, shape (n, count)."""
    nodes, weights = _gauss_legendre(count)
    half = (high - low)[:, None] / 2
    t = low[:, None] + half * (nodes + 1)
    return (f(t) * weights).sum(axis=1) * half[:, 0]


# ------------------------------------------------------------------ large arguments

def _hankel(order: int, x: np.ndarray) -> tuple:
    """Hankel's asymptotic P and Q for J and Y of integer order, summed while the terms shrink."""
    mu = 4.0 * order * order
    p, q = np.ones_like(x), np.zeros_like(x)
    term = np.ones_like(x)
    for k in range(1, 60):
        term = term * (mu - (2 * k - 1) ** 2) / (k * 8.0 * x)
        if k % 2:
            q = q + (term if k % 4 == 1 else -term)
        else:
            p = p + (term if k % 4 == 0 else -term)
        if np.all(np.abs(term) < 1e-17 * np.abs(p)):
            break
    return p, q


def _j_y_asymptotic(order: int, x: np.ndarray) -> tuple:
    p, q = _hankel(order, x)
    phase = x - (order / 2 + 0.25) * math.pi
    scale = np.sqrt(2 / (math.pi * x))
    return scale * (p * np.cos(phase) - q * np.sin(phase)), scale * (p * np.sin(phase) + q * np.cos(phase))


_FAR = 25.0  # from here Hankel's expansion is exact in float64 (its smallest term is about e^-2x)


# ------------------------------------------------------------------ J and Y

def _j_trapezoid(order: int, x: np.ndarray) -> np.ndarray:
    """Bessel's integral (1/2pi) * integral of cos(n t - x sin t) over a period."""
    count = 2 * (int(np.max(np.abs(x), initial=0.0)) // 2) + 64
    t = 2 * math.pi * np.arange(count) / count
    return np.cos(order * t - x[:, None] * np.sin(t)).mean(axis=1)


def bessel_j(order: int, x: np.ndarray) -> np.ndarray:
    def compute(v: np.ndarray) -> np.ndarray:
        a = np.abs(v)
        near = np.where(a < _FAR, a, 0.0)
        far = np.where(a < _FAR, _FAR, a)
        result = np.where(a < _FAR, _j_trapezoid(order, near), _j_y_asymptotic(order, far)[0])
        result = np.where(np.isinf(a) | ((a == 0) & (order % 2 == 1)), 0.0, result)
        return np.where(np.isnan(v), np.nan, result * _odd_sign(order, v))

    return _elementwise(x, compute)


def _odd_sign(order: int, v: np.ndarray) -> np.ndarray:
    """The sign an odd order takes from its argument (+1 at zero, where the function is +0)."""
    return np.where(v < 0, -1.0, 1.0) if order % 2 else np.ones_like(v)


def _y_series(order: int, x: np.ndarray) -> np.ndarray:
    """Y0 and Y1 by their series about zero (used below 8, where they lose at most two digits)."""
    half = x / 2
    log_term = (2 / math.pi) * np.log(half)
    quarter = half * half
    total, term, harmonic = np.zeros_like(x), np.ones_like(x), 0.0
    if order == 0:
        for k in range(1, 60):
            term = -term * quarter / (k * k)
            harmonic += 1.0 / k
            total = total - term * harmonic
        return (log_term + 2 * EULER_GAMMA / math.pi) * _j_trapezoid(0, x) + (2 / math.pi) * total
    term = half.copy()
    for k in range(0, 60):
        if k:
            term = -term * quarter / (k * (k + 1))
        psi_sum = (-EULER_GAMMA + harmonic) + (-EULER_GAMMA + harmonic + 1.0 / (k + 1))
        total = total + term * psi_sum
        harmonic += 1.0 / (k + 1)
    return -2 / (math.pi * x) + log_term * _j_trapezoid(1, x) - total / math.pi


def _y_integral(order: int, x: np.ndarray) -> np.ndarray:
    """Y_n(x) = 1/pi integral_0^pi sin(x sin t - n t) dt
                - 1/pi integral_0^inf (e^(n t) + (-1)^n e^(-n t)) e^(-x sinh t) dt."""
    zeros = np.zeros_like(x)
    oscillating = _integrate(lambda t: np.sin(x[:, None] * np.sin(t) - order * t), zeros, zeros + math.pi, 96)
    sign = -1.0 if order % 2 else 1.0
    decaying = _integrate(lambda t: (np.exp(order * t) + sign * np.exp(-order * t)) * np.exp(-x[:, None] * np.sinh(t)),
                          zeros, np.arcsinh(60.0 / x), 96)
    return (oscillating - decaying) / math.pi


def bessel_y(order: int, x: np.ndarray) -> np.ndarray:
    def compute(v: np.ndarray) -> np.ndarray:
        small = (v > 0) & (v < 8)
        middle = (v >= 8) & (v < _FAR)
        large = v >= _FAR
        result = np.full_like(v, np.nan)
        result[small] = _y_series(order, v[small])
        result[middle] = _y_integral(order, v[middle])
        result[large] = _j_y_asymptotic(order, v[large])[1]
        result[v == 0] = -np.inf
        result[v == np.inf] = 0.0
        return result

    return _elementwise(x, compute)


def spherical_bessel_j0(x: np.ndarray) -> np.ndarray:
    x = np.asarray(x, dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        # the Taylor series where sin(x)/x would lose digits
        series = 1 - x * x / 6 * (1 - x * x / 20 * (1 - x * x / 42))
        return np.where(np.abs(x) < 1e-3, series, np.where(np.isinf(x), 0.0, np.sin(x) / x))


# ------------------------------------------------------------------ modified: I and K

def _i_scaled(order: int, a: np.ndarray) -> np.ndarray:
    """e^-a I_n(a) for a >= 0: the trapezoidal rule on (1/2pi) integral of e^(a (cos t - 1)) cos(n t)."""
    count = 2 * int(6 * math.sqrt(float(np.max(a, initial=0.0)))) + 64
    t = 2 * math.pi * np.arange(count) / count
    return (np.exp(a[:, None] * (np.cos(t) - 1)) * np.cos(order * t)).mean(axis=1)


def _i_scaled_asymptotic(order: int, a: np.ndarray) -> np.ndarray:
    mu = 4.0 * order * order
    total, term = np.ones_like(a), np.ones_like(a)
    for k in range(1, 30):
        term = -term * (mu - (2 * k - 1) ** 2) / (k * 8.0 * a)
        total = total + term
    return total / np.sqrt(2 * math.pi * a)


def bessel_i_scaled(order: int, x: np.ndarray) -> np.ndarray:
    """e^-|x| I_n(x) (torch.special.i0e, i1e)."""
    def compute(v: np.ndarray) -> np.ndarray:
        a = np.where(np.isnan(v), 0.0, np.abs(v))  # (a NaN is put back at the end)
        huge = a > 1e5
        result = np.where(huge, _i_scaled_asymptotic(order, np.where(huge, a, 1e5)),
                          _i_scaled(order, np.where(huge, 0.0, a)))
        result = np.where(np.isinf(a) | ((a == 0) & (order % 2 == 1)), 0.0, result)
        return np.where(np.isnan(v), np.nan, result * _odd_sign(order, v))

    return _elementwise(x, compute)


def bessel_i(order: int, x: np.ndarray) -> np.ndarray:
    x = np.asarray(x, dtype=np.float64)
    with np.errstate(over="ignore", invalid="ignore"):
        scaled = bessel_i_scaled(order, x)
        # an infinity gives NaN, as Cephes' e^|x| times its scaled series (0) does in ATen
        return np.where(np.isinf(x), np.nan, scaled * np.exp(np.abs(x)))


def _k_scaled(order: float, x: np.ndarray) -> np.ndarray:
    """e^x K_nu(x) for x > 0: the trapezoidal rule on integral_0^inf e^(-x (cosh t - 1)) cosh(nu t) dt,
    whose integrand decays doubly exponentially."""
    step = np.minimum(0.1, 0.5 / np.sqrt(x))
    # far enough that x (cosh t - 1) exceeds nu t by 60: the rest is below the last bit
    end = np.arccosh(1 + 60.0 / x)
    end = np.arccosh(1 + (60.0 + 2 * abs(order) * end) / x)
    count = int(np.max(np.ceil(end / step), initial=1.0)) + 1
    t = np.arange(count)[None, :] * step[:, None]
    values = np.exp(-x[:, None] * (np.cosh(t) - 1) + abs(order) * t)
    values = values + np.exp(-x[:, None] * (np.cosh(t) - 1) - abs(order) * t)
    values[:, 0] /= 2
    values = np.where(t <= end[:, None] + step[:, None], values, 0.0)
    return values.sum(axis=1) * step / 2


def bessel_k_scaled(order: float, x: np.ndarray) -> np.ndarray:
    def compute(v: np.ndarray) -> np.ndarray:
        positive = (v > 0) & np.isfinite(v)
        result = np.full_like(v, np.nan)
        result[positive] = _k_scaled(order, v[positive])
        result[v == 0] = np.inf
        result[v == np.inf] = 0.0
        return result

    return _elementwise(x, compute)


def bessel_k(order: float, x: np.ndarray) -> np.ndarray:
    x = np.asarray(x, dtype=np.float64)
    with np.errstate(invalid="ignore", under="ignore"):
        return np.where(x == np.inf, 0.0, bessel_k_scaled(order, x) * np.exp(-np.where(x > 0, x, 0.0)))


# ------------------------------------------------------------------ Airy

_AI_0 = 0.355028053887817239260  # Ai(0)
_AI_PRIME_0 = -0.258819403792806798405  # Ai'(0)


def _airy_series(x: np.ndarray) -> np.ndarray:
    """Ai(x) = Ai(0) f(x) + Ai'(0) g(x), f and g the two Maclaurin series of y'' = x y."""
    cube = x ** 3
    f_term, g_term = np.ones_like(x), x.copy()
    f, g = f_term.copy(), g_term.copy()
    for k in range(1, 80):
        f_term = f_term * cube / ((3 * k - 1) * (3 * k))
        g_term = g_term * cube / ((3 * k) * (3 * k + 1))
        f, g = f + f_term, g + g_term
    return _AI_0 * f + _AI_PRIME_0 * g


def _airy_negative(z: np.ndarray) -> np.ndarray:
    """Ai(-z) for large z, by its asymptotic expansion."""
    zeta = 2 / 3 * z ** 1.5
    even, odd = np.ones_like(z), np.zeros_like(z)
    u = 1.0
    for k in range(1, 40):
        u = u * (6 * k - 5) * (6 * k - 3) * (6 * k - 1) / ((2 * k - 1) * 216 * k)
        term = u / zeta ** k
        if k % 2:
            odd = odd + (term if k % 4 == 1 else -term)
        else:
            even = even + (term if k % 4 == 0 else -term)
    phase = zeta + math.pi / 4
    return (np.sin(phase) * even - np.cos(phase) * odd) / (math.sqrt(math.pi) * z ** 0.25)


def airy_ai(x: np.ndarray) -> np.ndarray:
    def compute(v: np.ndarray) -> np.ndarray:
        result = np.full_like(v, np.nan)
        series = (v >= -10) & (v <= 2)
        positive = (v > 2) & (v < 110)
        negative = v < -10
        result[series] = _airy_series(v[series])
        w = v[positive]
        zeta = 2 / 3 * w ** 1.5
        result[positive] = np.sqrt(w / 3) / math.pi * bessel_k_scaled(1 / 3, zeta) * np.exp(-zeta)
        result[v >= 110] = 0.0
        result[negative] = _airy_negative(-v[negative])
        result[v == -np.inf] = 0.0
        return result

    with np.errstate(under="ignore"):
        return _elementwise(x, compute)
