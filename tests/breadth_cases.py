"""Gradient-check cases for the ops beyond the core families: special functions, the rest of
PyTorch's element-wise math, order statistics, arranging ops and in-place random fills.
test_gradcheck.py runs them with the core cases (and its coverage test counts them)."""
from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np

from gradcheck import Case, away_from_zero, bool_tensor, constant, distinct, long_tensor, nonleaf, rand, seeded
from gradcalc.autograd.ops import torch_namespaces

F = SimpleNamespace(**torch_namespaces()["torch"])
S = SimpleNamespace(**torch_namespaces()["torch.special"])


def _random_fills(x):
    # each fill replaces the values: its gradient is zero, what flows is x's own use
    fills = [nonleaf(x).exponential_(), nonleaf(x).geometric_(0.3), nonleaf(x).cauchy_(), nonleaf(x).log_normal_(),
             nonleaf(x).random_(2, 5), nonleaf(x).random_(5), nonleaf(x).random_()]
    return sum(f * 0 for f in fills) + x


def _view_as_complex_round_trip(x):
    z = F.view_as_complex(x)
    return F.view_as_real(z * z)


def _aminmax(x):
    low, high = F.aminmax(x, dim=1)
    return low * 2 + high


BREADTH_CASES = [
    # special functions and the rest of the element-wise math
    Case("acosh asinh atanh", lambda x, y: x.acosh() + y.asinh() + F.arctanh(y * 0.3),
         [rand(2, 3, low=1.2, high=3.0), rand(2, 3, seed=1)], True),
    Case("deg2rad rad2deg", lambda x: x.deg2rad() * x.rad2deg(), [rand(3)], True),
    Case("erfc erfinv", lambda x: x.erfc() + F.erfinv(x * 0.4), [rand(2, 3)], True),
    Case("lgamma digamma", lambda x: x.lgamma() + F.digamma(x), [rand(2, 3, low=0.4, high=3.0)], True),
    Case("polygamma mvlgamma", lambda x: F.polygamma(1, x) + x.mvlgamma(2), [rand(3, low=1.2, high=3.0)], True),
    Case("i0 sinc", lambda x: x.i0() + F.sinc(x), [away_from_zero(2, 3)], True),
    Case("logit", lambda x: x.logit() + F.logit(x, eps=0.25), [rand(5, low=0.3, high=0.7)], True),
    Case("angle", lambda x: x.angle() * x + x, [away_from_zero(3)], True),
    Case("frexp", lambda x: F.frexp(x).mantissa * x, [away_from_zero(2, 3)], True),
    Case("copysign", lambda x, y: F.copysign(x, y) + x.copysign(-1.5), [away_from_zero(2, 3), away_from_zero(3, seed=1)],
         True),
    Case("fmod", lambda x, y: F.fmod(x, y) + x.fmod(0.7), [np.array([2.3, -1.7, 0.45]), np.array([1.5, 0.7, -0.9])],
         True),
    Case("fmax fmin", lambda x, y: F.fmax(x, y) + x.fmin(y), [distinct(2, 3), distinct(3, seed=1) + 0.05], True),
    Case("hypot", lambda x, y: F.hypot(x, y), [away_from_zero(2, 3), away_from_zero(3, seed=1)], True),
    Case("logaddexp", lambda x, y: F.logaddexp(x, y) + x.logaddexp2(y), [rand(2, 3), rand(3, seed=1)], True),
    Case("ldexp", lambda x, y: F.ldexp(x, y), [rand(3), rand(3, seed=1)], True),
    Case("xlogy", lambda x, y: F.xlogy(x, y) + F.xlogy(2.0, y) + x.xlogy(3.0),
         [rand(3), rand(3, low=0.3, seed=1)], True),
    Case("addcmul addcdiv", lambda s, a, b: F.addcmul(s, a, b, value=0.5) + s.addcdiv(a, b, value=-2),
         [rand(2, 3), rand(3, seed=1), away_from_zero(2, 1, seed=2)], True),
    # order statistics
    Case("kthvalue", lambda x: x.kthvalue(2, 1).values * 3, [distinct(2, 4)], True),
    # distinct values: each column's mode is its smallest value, and stays so under small changes
    Case("mode", lambda x: F.mode(x, 0).values, [distinct(3, 2)], True),
    Case("nanmedian", lambda x: x.nanmedian() + F.nanmedian(x, 1).values.sum(), [distinct(2, 3)], True),
    Case("cummax cummin", lambda x: F.cummax(x, 1).values + x.cummin(0).values, [distinct(2, 3)], True),
    Case("aminmax", _aminmax, [distinct(2, 3)], True),
    Case("logcumsumexp", lambda x: x.logcumsumexp(1), [rand(2, 3)], True),
    Case("dist", lambda x, y: F.dist(x, y) + x.dist(y, 3), [rand(2, 3), rand(3, seed=1)], True),
    Case("renorm", lambda x: x.renorm(2, 0, 1.0), [rand(3, 2)], True),
    # arranging
    Case("diagonal", lambda x: x.diagonal() * 2 + F.diagonal(x, 1, 0, 1).sum(), [rand(3, 4)], True),
    Case("diagonal_scatter", lambda x, s: F.diagonal_scatter(x, s, 1), [rand(3, 3), rand(2, seed=1)], True),
    Case("select_scatter", lambda x, s: F.select_scatter(x, s, 1, 0), [rand(3, 2), rand(3, seed=1)], True),
    Case("slice_scatter", lambda x, s: F.slice_scatter(x, s, 0, 1, 3), [rand(4, 2), rand(2, 2, seed=1)], True),
    Case("rot90", lambda x: F.rot90(x, 1, [0, 1]) * 2 + x.rot90(-1).sum(), [rand(2, 3)], True),
    Case("unfold", lambda x: x.unfold(1, 2, 1) * 3, [rand(2, 4)], True),
    Case("trace", lambda x: F.trace(x) * x, [rand(3, 3)], True),
    Case("view_as_complex view_as_real", _view_as_complex_round_trip, [rand(3, 2)], True),
    Case("angle of complex", lambda r, i: F.complex(r, i).angle() * r, [away_from_zero(3), rand(3, seed=1)], True),
    Case("complex polar", lambda r, i: F.view_as_real(F.complex(r, i) * F.polar(r.abs() + 1, i)),
         [rand(3), rand(3, seed=1)], True),
    Case("conj_physical", lambda r, i: F.view_as_real(F.complex(r, i).conj_physical() * F.complex(i, r)),
         [rand(3), rand(3, seed=1)], True),
    Case("nextafter", lambda x, y: F.nextafter(x, y) * x, [rand(3), rand(3, seed=1)], True),
    # in-place random fills: constants as far as gradients go
    Case("random fills of other laws", lambda x: seeded(lambda: _random_fills(x)), [rand(2, 3)]),
]

# torch.special's own functions, the C++ scalar arithmetic of composites, selection by index
BREADTH_CASES += [
    Case("special entr erfcx", lambda x: S.entr(x) + S.erfcx(x), [rand(2, 3, low=0.2, high=2.0)], True),
    Case("special i0e i1 i1e", lambda x: S.i0e(x) + S.i1(x) + S.i1e(x) + x.i0(), [away_from_zero(2, 3)], True),
    Case("special ndtr log_ndtr ndtri", lambda x, p: S.ndtr(x) + S.log_ndtr(x) + S.ndtri(p),
         [rand(3), rand(3, low=0.1, high=0.9, seed=1)], True),
    Case("special xlog1py", lambda x, y: S.xlog1py(x, y) + S.xlog1py(2.0, y) + S.xlog1py(x, 0.5),
         [rand(3), rand(3, low=0.2, seed=1)], True),
    Case("igamma igammac in other", lambda x: F.igamma(constant(np.array([0.5, 1.5, 3.0])), x)
         + F.igammac(constant(np.array([2.0, 1.0, 0.7])), x), [rand(3, low=0.3, high=3.0)], True),
    Case("index_select", lambda x: x.index_select(1, long_tensor([2, 0, 2])) * 2, [rand(2, 3)], True),
    Case("index_add", lambda x, s: x.index_add(0, long_tensor([2, 0]), s, alpha=-1.5),
         [rand(3, 2), rand(2, 2, seed=1)], True),
    Case("index_copy", lambda x, s: F.index_copy(x, 1, long_tensor([1]), s) * x, [rand(2, 3), rand(2, 1, seed=1)],
         True),
    Case("index_fill", lambda x, v: x.index_fill(0, long_tensor([1]), 2.0) + x.index_fill(1, long_tensor([0, 2]), v),
         [rand(2, 3), rand(seed=1)], True),
    Case("take put", lambda x, s: F.take(x, long_tensor([[4, 0], [5, 4]])) * 2 + x.put(
        long_tensor([1, 3]), s).sum() + x.put(long_tensor([0, 0]), s, accumulate=True).sum(),
         [rand(2, 3), rand(2, seed=1)], True),
    Case("take_along_dim", lambda x: F.take_along_dim(x, long_tensor([[1], [0]]), 1) + x.take_along_dim(
        long_tensor([5, 2])).sum(), [rand(2, 3)], True),
    Case("masked_select masked_scatter", lambda x, s: x.masked_select(bool_tensor([True, False, True])).sum() * x
         + x.masked_scatter(bool_tensor([[False, True, True], [True, False, False]]), s),
         [rand(2, 3), rand(4, seed=1)], True),
    Case("scatter_reduce sum mean", lambda x, s: x.scatter_reduce(0, long_tensor([0, 2, 0]), s, "sum")
         + x.scatter_reduce(0, long_tensor([1, 1, 0]), s, "mean", include_self=False),
         [rand(3), rand(3, seed=1)], True),
    Case("scatter_reduce prod amax amin", lambda x, s: x.scatter_reduce(0, long_tensor([0, 2, 0]), s, "prod")
         + x.scatter_reduce(0, long_tensor([1, 1, 0]), s, "amax") + x.scatter_reduce(0, long_tensor([2, 1, 2]), s,
                                                                                     "amin", include_self=False),
         [distinct(3), distinct(3, seed=1) + 0.05]),
    Case("index_reduce", lambda x, s: x.index_reduce(0, long_tensor([0, 2]), s, "prod")
         + x.index_reduce(0, long_tensor([1, 1]), s, "mean", include_self=False)
         + x.index_reduce(0, long_tensor([2, 0]), s, "amax"),
         [distinct(3, 2), distinct(2, 2, seed=1) + 0.05]),
    Case("as_strided", lambda x: x.as_strided((2, 2), (1, 2), 1) * 3, [rand(2, 3)], True),
    Case("as_strided_scatter", lambda x, s: F.as_strided_scatter(x, s, (2,), (3,)), [rand(2, 3), rand(2, seed=1)],
         True),
    Case("in-place view ops", lambda x: nonleaf(x).t_().unsqueeze_(0).squeeze_().transpose_(0, 1).swapaxes_(0, 1)
         .squeeze_((0,)).unsqueeze_(2).squeeze_(2), [rand(2, 3)], True),
    Case("resize", lambda x: x.resize(3, 2) * 2, [rand(2, 3)], True),
]

L = SimpleNamespace(**torch_namespaces()["torch.linalg"])
FFT = SimpleNamespace(**torch_namespaces()["torch.fft"])


def spd(n: int, seed: int = 0) -> np.ndarray:
    """A symmetric positive-definite matrix."""
    a = rand(n, n, seed=seed)
    return a @ a.T + n * np.eye(n)


def symmetric(x):
    return (x + x.mT) / 2


def _first(values):
    return values[0] if isinstance(values, tuple) else values


# products, decompositions and transforms
BREADTH_CASES += [
    Case("addmv addr", lambda b, m, v, w: F.addmv(b, m, v, beta=0.5, alpha=2) + F.addr(m, b, v).sum(1),
         [rand(2), rand(2, 3, seed=1), rand(3, seed=2), rand(3, seed=3)], True),
    Case("baddbmm addbmm", lambda b, x, y: F.baddbmm(b, x, y, alpha=0.5).sum(0) + F.addbmm(b[0], x, y, beta=2),
         [rand(2, 2, 2), rand(2, 2, 3, seed=1), rand(2, 3, 2, seed=2)], True),
    Case("vdot cross", lambda a, b: F.vdot(a.reshape(-1), b.reshape(-1)) + L.cross(a, b).sum(),
         [rand(2, 3), rand(2, 3, seed=1)], True),
    Case("einsum tensordot multi_dot", lambda a, b: F.einsum("ij,jk->ik", a, b).sum() + F.einsum("ii", a @ b)
         + F.tensordot(a, b, 1).sum() + L.multi_dot([a, b, a]).sum(), [rand(2, 3), rand(3, 2, seed=1)], True),
    Case("det slogdet inv", lambda a: L.det(a) + L.slogdet(a)[1] + L.inv(a).sum(), [rand(3, 3) + 3 * np.eye(3)],
         True),
    Case("det singular", lambda a: L.det(a), [np.array([[1.0, 2.0], [2.0, 4.0]])]),
    Case("solve", lambda a, b: L.solve(a, b).sum() + L.solve(a, b[:, 0]).sum() + L.solve(a, b.mT, left=False).sum(),
         [rand(3, 3) + 3 * np.eye(3), rand(3, 2, seed=1)], True),
    Case("solve_triangular triangular_solve", lambda a, b: L.solve_triangular(a.triu(), b, upper=True)
         + F.triangular_solve(b, a.tril(), upper=False).solution, [rand(3, 3) + 3 * np.eye(3), rand(3, 2, seed=1)],
         True),
    Case("cholesky", lambda a: L.cholesky(symmetric(a)) + L.cholesky_ex(symmetric(a), upper=True).L
         + F.cholesky(symmetric(a)), [spd(3)], True),
    Case("cholesky_solve cholesky_inverse", lambda a, b: F.cholesky_solve(b, L.cholesky(symmetric(a))).sum()
         + F.cholesky_inverse(L.cholesky(symmetric(a))).sum(), [spd(3), rand(3, 2, seed=1)], True),
    Case("qr", lambda a: L.qr(a)[0].sum() + L.qr(a)[1].sum(), [rand(3, 2)], True),
    Case("qr wide", lambda a: L.qr(a)[0].sum() + L.qr(a, mode="complete")[1].sum(), [rand(2, 3)], True),
    Case("svd one factor", lambda a, b: L.svd(a, full_matrices=False)[0].abs().sum()
         + L.svd(b, full_matrices=False)[2].abs().sum(), [rand(3, 2), rand(2, 3, seed=1)], True),
    Case("svd", lambda a: L.svd(a, full_matrices=False)[0].abs().sum() + L.svdvals(a).sum()
         + L.svd(a, full_matrices=False)[2].abs().sum(), [rand(3, 2)], True),
    Case("eigh", lambda a: L.eigh(symmetric(a))[0] + L.eigh(symmetric(a))[1].abs().sum(0), [spd(3)], True),
    Case("eig", lambda a: L.eig(a)[0].real + L.eigvals(a).imag, [np.array([[2.0, 1.0], [0.5, 3.0]])], True),
    Case("matrix_exp", lambda a: L.matrix_exp(a), [rand(2, 2)], True),
    Case("pinv lstsq", lambda a, b: L.pinv(a).sum() + L.lstsq(a, b).solution.sum(), [rand(3, 2), rand(3, 2, seed=1)],
         True),
    Case("lu lu_factor lu_solve lu_unpack", lambda a, b: L.lu(a).L.sum() + L.lu(a).U.sum()
         + L.lu_factor(a).LU.sum() + L.lu_solve(*L.lu_factor(a), b).sum() + F.lu_unpack(*L.lu_factor(a)).U.sum(),
         [rand(3, 3) + 3 * np.eye(3), rand(3, 2, seed=1)], True),
    Case("householder_product ormqr", lambda a, t: L.householder_product(a, t).sum()
         + F.ormqr(a, t, constant(np.eye(3))).sum(), [rand(3, 2), rand(2, seed=1)]),
    Case("matrix norms", lambda a: L.matrix_norm(a, 1) + L.norm(a, "nuc") + L.cond(a), [rand(3, 3) + 3 * np.eye(3)],
         True),
    Case("fft c2c r2c", lambda x: FFT.fft(x).abs().sum() + FFT.rfft(x, norm="ortho").real.sum()
         + FFT.ifft(FFT.fft(x)).real.sum() + FFT.fft2(x.view(2, 3)).imag.sum(), [rand(6)], True),
    Case("fft c2r", lambda x: FFT.irfft(FFT.rfft(x)) * x + FFT.hfft(FFT.ihfft(x), n=6), [rand(6)], True),
    Case("constant_pad_nd", lambda x: F.constant_pad_nd(x, (1, -1, 2, 0), 3.0), [rand(2, 3)], True),
]

# copies of views, unsafe splits, calculus, the remaining samplers
BREADTH_CASES += [
    Case("view copies", lambda x: F.alias_copy(x) + F.as_strided_copy(x, (2, 3), (3, 1)) + F.expand_copy(x[0], (2, 3))
         + F.permute_copy(x, (1, 0)).t() + F.select_copy(x, 0, 1) + F.slice_copy(x, 1, 0, 3) + F.t_copy(x).t()
         + F.transpose_copy(x, 0, 1).t() + F.unsqueeze_copy(x, 0)[0] + F.view_copy(x, (3, 2)).view(2, 3),
         [rand(2, 3)], True),
    Case("view copies of pieces", lambda x: F.split_copy(x, 1)[1] + F.split_with_sizes_copy(x, [1, 1])[0]
         + F.unbind_copy(x)[0] + F.squeeze_copy(x.unsqueeze(0)) [0] + F.squeeze_copy(x.unsqueeze(0), 0)[1]
         + F.squeeze_copy(x.unsqueeze(0), (0,))[0] + F.unfold_copy(x, 1, 3, 1).sum(-1)
         + F.view_as_real_copy(F.view_as_complex(x[:, :2].contiguous())).sum(), [rand(2, 3)], True),
    Case("unsafe splits", lambda x: x.unsafe_split(2, 1)[0].sum() + F.unsafe_chunk(x, 2)[1].sum()
         + x.unsafe_split_with_sizes([1, 2], 1)[1].sum() * x, [rand(2, 3)], True),
    Case("trapezoid gradient", lambda y, x: F.trapezoid(y, x) + F.cumulative_trapezoid(y, dx=0.5).sum()
         + F.gradient(y, spacing=(x,))[0].sum() + F.gradient(y, edge_order=2)[0].sum(),
         [rand(5), np.array([0.0, 0.5, 1.5, 2.0, 3.5])], True),
    Case("poisson binomial", lambda r, p: seeded(lambda: F.poisson(r) * 0 + F.binomial(r * 0 + 20, p) * 0) + r * p,
         [rand(3, low=1.0, high=5.0), rand(3, low=0.2, high=0.8, seed=1)]),
]

# out-of-place fill and the deprecated norm aliases
BREADTH_CASES += [
    Case("fill", lambda x, v: F.fill(x, 2.0) * x + F.fill(x, v) * x, [rand(2, 3), rand(seed=1)], True),
    Case("frobenius_norm", lambda x: F.frobenius_norm(x, (0, 1)) + F.frobenius_norm(x, [1], True).sum(), [rand(2, 3)],
         True),
    Case("norm_except_dim", lambda x: F.norm_except_dim(x, 2, -1) + F.norm_except_dim(x, 3, 0).sum()
         + F.norm_except_dim(x, 2, 1).sum(), [rand(2, 3, 2)], True),
]

# cdist: the kernel's distances for each p (a batch broadcast against plain rows), and the matrix-product
# form ATen's _euclidean_dist takes for p = 2 when asked (or past 25 rows)
BREADTH_CASES += [
    Case("cdist", lambda a, b, c: F.cdist(a, b) + F.cdist(a, b, 1.0) * F.cdist(a, b, 1.5) + F.cdist(a, b, 3)
         + F.cdist(a, b, float("inf")) + F.cdist(c, b, compute_mode="donot_use_mm_for_euclid_dist").sum(),
         [distinct(2, 3, 4), distinct(5, 4, seed=1), distinct(1, 3, 4, seed=2)]),
    Case("cdist matrix product", lambda a, b, c: F.cdist(a, b, compute_mode="use_mm_for_euclid_dist")
         + F.cdist(c, b, compute_mode="use_mm_for_euclid_dist").sum(),
         [distinct(3, 4), distinct(5, 4, seed=1), distinct(2, 3, 4, seed=2)], True),
]
