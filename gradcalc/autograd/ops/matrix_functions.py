"""Matrix functions and the rest of torch.linalg: the matrix exponential, the pseudo-inverse, least
squares, the LU family, rank and condition numbers, tensor inverses, Householder products, LDL and
the matrix norms (with torch.norm), each with PyTorch's backward formula."""
from __future__ import annotations

import math
import sys
from typing import Any, Callable, Optional, Sequence

import numpy as np

from .. import api, dtypes, forward_mode, grad_mode, mkl_lapack
from ..tensor import Tensor, wrap_dim
from ...display.names import type_name
from ...warnings import warn_once
from .common import ReturnTypes, int64_tensor, zeros_like
from .decompositions import (check_floating, check_matrix, check_solver_inputs, check_svd_input, eigh, eye_like, inv,
                             inv_ex, linalg_cholesky,
                             linalg_qr, linalg_svd, lu_factor_arrays, needs_vectors, output_grads, permutation_matrix,
                             solve, solve_triangular, svdvals)
from .generate import builtin
from .joining import cat
from .linalg import matmul
from .registry import NOT_IMPLEMENTED, OPS, node, op, record, record_outputs
from .statistics import NORM, vector_norm as statistics_vector_norm


# ------------------------------------------------------------------ matrix exponential, pseudo-inverse, least squares

def _expm(a: np.ndarray) -> np.ndarray:
    """e^A by scaling and squaring with a degree-18 Taylor polynomial."""
    norm = np.max(np.sum(np.abs(a), axis=-2), axis=-1) if a.size else np.zeros(a.shape[:-2])
    squarings = np.maximum(0, np.ceil(np.log2(np.maximum(norm, 1e-300) / 0.5))).astype(int)
    scale = 2.0 ** squarings
    x = a / scale[..., None, None]
    eye = np.broadcast_to(np.eye(a.shape[-1], dtype=a.dtype), a.shape)
    result, term = eye.copy(), eye.copy()
    for k in range(1, 19):
        term = term @ x / k
        result = result + term
    for index in np.ndindex(a.shape[:-2]):
        for _ in range(int(squarings[index])):
            result[index] = result[index] @ result[index]
    return result


def _matrix_exp_grad(grad: Tensor, self: Tensor) -> Tensor:
    # the gradient is the upper right block of exp([[A^H, G], [0, A^H]])
    n = self.shape[-1]
    block = cat([cat([self.mH, grad], -1), cat([zeros_like(self), self.mH], -1)], -2)
    return matrix_exp(block).narrow(-2, 0, n).narrow(-1, n, n)


MATRIX_EXP = node("LinalgMatrixExpBackward0", ("self",), self=_matrix_exp_grad)


@op()
def matrix_exp(input: Tensor) -> Tensor:
    check_matrix(input, "linalg.matrix_exp")
    return record(MATRIX_EXP, (input,), np.asarray(_expm(input._data), dtype=input._dtype._numpy), input._dtype)


op("matrix_exp", module="linalg")(matrix_exp)


def _pinv_grad(grad: Tensor, self: Tensor, result: Tensor) -> Tensor:
    """ATen's pinv_backward, op for op (its products go to MKL as ATen's do): the adjoint of
    dP = -P dA P + P P^H dA^H (I - A P) + (I - P A) dA^H P^H P, in the form whose products are
    the smallest for A's shape."""
    P, A = result, self
    Ph, gradh = P.mH, grad.mH
    if A.shape[-2] <= A.shape[-1]:
        K = gradh.matmul(P)
        KPh = K.matmul(Ph)
        return -(P.matmul(K)).mH + KPh - A.matmul(P).matmul(KPh) + Ph.matmul(P).matmul(gradh - K.matmul(A))
    K = P.matmul(gradh)
    PhK = Ph.matmul(K)
    return -(K.matmul(P)).mH + (gradh - A.matmul(K)).matmul(P).matmul(Ph) + PhK - PhK.matmul(P).matmul(A)


PINV = node("LinalgPinvBackward0", ("self",), self=_pinv_grad)


def _mkl_spectrum(a: np.ndarray, hermitian: bool, vectors: bool) -> Optional[tuple]:
    """MKL's decomposition behind pinv and matrix_rank, as ATen's (eigh's syevd, or the reduced
    SVD's gesdd): its outputs without the info, or None without MKL or where it failed."""
    through_mkl = mkl_lapack.syevd(a, False, vectors) if hermitian else mkl_lapack.gesdd(a, False, vectors)
    return None if through_mkl is None or np.any(through_mkl[-1]) else through_mkl[:-1]


def _pinv_arrays(a: np.ndarray, atol: Any, rtol: Any, hermitian: bool) -> np.ndarray:
    if not hermitian:
        check_svd_input(a)
    through_mkl = _mkl_spectrum(a, hermitian, True)
    if hermitian:
        values, vectors = through_mkl or np.linalg.eigh(a)
        magnitude = np.abs(values)
    else:
        u, magnitude, vh = through_mkl or np.linalg.svd(a, full_matrices=False)
    largest = np.max(magnitude, axis=-1, keepdims=True) if magnitude.size else magnitude
    if rtol is None:
        rtol = 0.0 if atol is not None and atol > 0 else np.finfo(a.dtype).eps * max(a.shape[-2:])
    cutoff = np.maximum(0.0 if atol is None else atol, rtol * largest)
    keep = magnitude > cutoff
    if through_mkl is not None:  # as ATen: V * (1 / S) in one product, then its matmul with U^H (MKL's)
        vectors_v, vectors_u = (vectors, vectors) if hermitian else (np.swapaxes(vh, -1, -2), u)
        scaled = vectors_v * np.where(keep, 1 / np.where(keep, values if hermitian else magnitude, 1), 0)[..., None, :]
        dtype = dtypes.from_numpy(a.dtype)
        return matmul(Tensor._make(scaled, dtype), Tensor._make(np.swapaxes(vectors_u, -1, -2), dtype))._data
    if hermitian:
        inverse = np.where(keep, 1 / np.where(keep, values, 1), 0)
        return (vectors * inverse[..., None, :]) @ np.swapaxes(vectors, -1, -2).conj()
    inverse = np.where(keep, 1 / np.where(keep, magnitude, 1), 0)
    return np.swapaxes(vh, -1, -2).conj() @ (inverse[..., :, None] * np.swapaxes(u, -1, -2).conj())


@op(module="linalg")
def pinv(input: Tensor, rcond: Any = None, hermitian: bool = False, *, atol: Any = None, rtol: Any = None) -> Tensor:
    if input.ndim < 2 or input._dtype.category < dtypes.FLOATING:
        raise RuntimeError(f"linalg.pinv({input._dtype._scalar_name}{{{list(input.shape)}}}): expected a tensor with 2 "
                           "or more dimensions of float, double, cfloat or cdouble types")
    check_matrix(input, "linalg.pinv", square=False)
    if rcond is not None:
        rtol = rcond
    atol = atol.item() if isinstance(atol, Tensor) else atol
    rtol = rtol.item() if isinstance(rtol, Tensor) else rtol
    data = _pinv_arrays(input._data, atol, rtol, hermitian)
    return record(PINV, (input,), np.asarray(data, dtype=input._dtype._numpy), input._dtype)


@op()
def pinverse(input: Tensor, rcond: float = 1e-15) -> Tensor:
    return pinv(input, rtol=rcond)


def _lstsqoutput_grads(grads: Any, self: Tensor, b: Tensor, which: str) -> Optional[Tensor]:
    gX = output_grads(grads, 4)[0]
    if gX is None:
        return None
    vector = b.ndim == self.ndim - 1
    P = pinv(self)
    if which == "b":
        return P.mH.matmul(gX.unsqueeze(-1)).squeeze(-1) if vector else P.mH.matmul(gX)
    gP = gX.unsqueeze(-1) * b.conj().unsqueeze(-2) if vector else gX.matmul(b.mH)
    return _pinv_grad(gP, self, P)


LSTSQ = node("LinalgLstsqBackward0", ("self", "b"), multi_output=True, saved=("solution",),
             self=lambda grads, self, b: _lstsqoutput_grads(grads, self, b, "self"),
             b=lambda grads, self, b: _lstsqoutput_grads(grads, self, b, "b"))


def _infinite_lstsq(a: np.ndarray, y: np.ndarray) -> tuple:
    """numpy.linalg.lstsq's answer for a matrix with an infinity, as LAPACK's pivoted QR ends: the
    infinite column first, the rest NaN (numpy's LAPACK would print its complaint and fail)."""
    n = a.shape[-1]
    return (np.full((n, y.shape[-1]), np.nan, dtype=np.result_type(a, y)), np.zeros((0,), dtype=a.real.dtype),
            min(1, *a.shape), np.full((min(a.shape),), np.nan, dtype=a.real.dtype))


def _refuse_nan_lstsq(flat_a: np.ndarray, flat_b: np.ndarray, driver: str, dtype: dtypes.DType,
                      batched: bool) -> None:
    """MKL's refusal of a matrix A or B holding a NaN (its arguments 4 and 6, gels's 5 and 7): it
    prints its complaint for each such problem, and ATen reports the first as an internal assert."""
    nan_a, nan_b = (np.isnan(x).any(axis=(-2, -1)) for x in (flat_a, flat_b))
    if not (nan_a.any() or nan_b.any()):
        return
    shift = 1 if driver == "gels" else 0
    arguments = np.where(nan_a, 4 + shift, np.where(nan_b, 6 + shift, 0))
    routine = {"float32": "S", "float64": "D", "complex64": "C", "complex128": "Z"}[dtype.name] + driver.upper()
    for argument in arguments[arguments > 0]:
        sys.stdout.write(f"\nIntel oneMKL ERROR: Parameter {argument} was incorrect on entry to {routine}.\n")
    first = int(np.flatnonzero(arguments)[0])
    where = f"(Batch element {first}): " if batched else ""
    raise RuntimeError(f'false INTERNAL ASSERT FAILED at "/__w/pytorch/pytorch/aten/src/ATen/native/'
                       f'BatchLinearAlgebra.cpp":1613, please report a bug to PyTorch. torch.linalg.lstsq: {where}'
                       f"Argument {arguments[first]} has illegal value. Most certainly there is a bug in the "
                       "implementation calling the backend library.")


@op(module="linalg")
def lstsq(input: Tensor, b: Tensor, rcond: Optional[float] = None, *, driver: Optional[str] = None) -> Any:
    check_matrix(input, "linalg.lstsq", square=False)
    driver = driver or "gelsy"
    if driver not in ("gels", "gelsy", "gelsd", "gelss"):
        raise RuntimeError("parameter `driver` should be one of (gels, gelsy, gelsd, gelss)")
    vector = b.ndim == input.ndim - 1
    rhs = b._data[..., None] if vector else b._data
    m, n = input.shape[-2:]
    flat_a = input._data.reshape((-1, m, n))
    flat_b = np.broadcast_to(rhs, input.shape[:-2] + rhs.shape[-2:]).reshape((-1,) + rhs.shape[-2:])
    _refuse_nan_lstsq(flat_a, flat_b, driver, input._dtype, input.ndim > 2)
    cutoff = rcond if rcond is not None else np.finfo(input._dtype._numpy).eps * max(m, n)
    results = [np.linalg.lstsq(a, y, rcond=cutoff) if np.isfinite(a).all() else _infinite_lstsq(a, y)
               for a, y in zip(flat_a, flat_b)]
    solution = np.stack([r[0] for r in results]).reshape(input.shape[:-2] + (n, rhs.shape[-1]))
    solution = solution[..., 0] if vector else solution
    rank = np.array([r[2] for r in results], dtype=np.int64).reshape(input.shape[:-2])
    full_rank = bool(np.all(rank == n))
    residuals = (np.stack([r[1] for r in results]).reshape(input.shape[:-2] + (-1,))
                 if driver != "gelsy" and m > n and full_rank else np.zeros((0,)))
    singular = (np.stack([r[3] for r in results]).reshape(input.shape[:-2] + (-1,))
                if driver in ("gelsd", "gelss") else np.zeros((0,)))
    rank = rank if driver != "gels" else np.zeros((0,), dtype=np.int64)
    dtype = input._dtype
    real = dtype.to_real() if dtype.is_complex else dtype
    outs = record_outputs(LSTSQ, (input, b), [(np.asarray(solution, dtype=dtype._numpy), dtype),
                                              (np.asarray(residuals, dtype=real._numpy), real),
                                              (rank, dtypes.int64),
                                              (np.asarray(singular, dtype=real._numpy), real)],
                          ("solution", "residuals", None, None))
    return ReturnTypes("linalg_lstsq", *outs, fields=("solution", "residuals", "rank", "singular_values"))


# ------------------------------------------------------------------ LU

def _lu_grad(gL: Optional[Tensor], gU: Optional[Tensor], P: Tensor, L: Tensor, U: Tensor) -> Tensor:
    """A = P L U (square): gA = P L^-H (tril(L^H gL, -1) + triu(gU U^H)) U^-H."""
    phi = zeros_like(L.matmul(U))
    if gL is not None:
        phi = phi + L.mH.matmul(gL).tril(-1)
    if gU is not None:
        phi = phi + gU.matmul(U.mH).triu()
    inner = solve_triangular(U.mH, solve_triangular(L.mH, phi, upper=True, unitriangular=True), upper=False,
                             left=False)
    return P.matmul(inner)


def split_lu(LU: Tensor) -> tuple:
    """L (unit lower) and U (upper) of a square LU, as tensors that follow LU's history."""
    return LU.tril(-1) + eye_like(LU), LU.triu()


LU_FACTOR = node("LinalgLuFactorExBackward0", ("A",), multi_output=True, saved=("pivot", "pivots"),
                 A=lambda grads, LU, pivots: _lu_factor_grad(output_grads(grads, 3)[0], LU, pivots))


def _lu_factor_grad(grad: Tensor, LU: Tensor, pivots: Tensor) -> Tensor:
    L, U = split_lu(LU)
    P = Tensor._make(permutation_matrix(pivots._data, LU.shape[-2]).astype(LU._dtype._numpy), LU._dtype)
    return _lu_grad(grad.tril(-1), grad.triu(), P, L, U)


def _lu_factor_outputs(A: Tensor, pivot: bool, check: bool, name: str) -> tuple:
    check_matrix(A, name, square=False)
    if not pivot:
        raise RuntimeError(f"{name}: LU without pivoting is not implemented on the CPU")
    lu, pivots, info = lu_factor_arrays(A._data)
    if check and np.any(info):
        raise RuntimeError(f"{name}: U[{int(np.max(info))},{int(np.max(info))}] is zero and using it on lu_solve "
                          "would result in a division by zero. If you still want to perform the factorization, "
                          "consider calling linalg.lu(A, pivot) or linalg.lu_factor_ex(A, pivot)")
    return record_outputs(LU_FACTOR, (A,), [(lu, A._dtype), (pivots, dtypes.int32), (info, dtypes.int32)],
                          ("LU", None, None), pivot=pivot, pivots=Tensor._make(pivots, dtypes.int32))


@op(module="linalg")
def lu_factor(A: Tensor, *, pivot: bool = True) -> Any:
    LU, pivots, _ = _lu_factor_outputs(A, pivot, True, "torch.linalg.lu_factor")
    return ReturnTypes("linalg_lu_factor", LU, pivots, fields=("LU", "pivots"))


@op(module="linalg")
def lu_factor_ex(A: Tensor, *, pivot: bool = True, check_errors: bool = False) -> Any:
    outs = _lu_factor_outputs(A, pivot, check_errors, "torch.linalg.lu_factor_ex")
    return ReturnTypes("linalg_lu_factor_ex", *outs, fields=("LU", "pivots", "info"))


def lu(A: Tensor, pivot: bool = True, get_infos: bool = False, out: Any = None) -> Any:
    warn_once("UserWarning", "torch.lu is deprecated in favor of torch.linalg.lu_factor / torch.linalg.lu_factor_ex "
                             "and will be removed in a future PyTorch release.\nLU, pivots = torch.lu(A, "
                             "compute_pivots)\nshould be replaced with\nLU, pivots = torch.linalg.lu_factor(A, "
                             "compute_pivots)\nand\nLU, pivots, info = torch.lu(A, compute_pivots, get_infos=True)"
                             "\nshould be replaced with\nLU, pivots, info = torch.linalg.lu_factor_ex(A, "
                             "compute_pivots)")
    outs = _lu_factor_outputs(A, pivot, not get_infos, "torch.linalg.lu_factor")
    return outs if get_infos else outs[:2]


op("lu", python="torch.functional", method=lambda self, pivot=True, get_infos=False: lu(self, pivot, get_infos))(lu)


def _unpacked_arrays(lu_data: np.ndarray, pivots: np.ndarray) -> tuple:
    m, n = lu_data.shape[-2:]
    k = min(m, n)
    lower = np.tril(lu_data[..., :, :k], -1) + np.eye(m, k, dtype=lu_data.dtype)
    upper = np.triu(lu_data[..., :k, :])
    return permutation_matrix(pivots, m).astype(lu_data.dtype), lower, upper


LU = node("LinalgLuBackward0", ("A",), multi_output=True, saved=("pivot",),
          A=lambda grads, P, L, U: _lu_grad(output_grads(grads, 3)[1], output_grads(grads, 3)[2], P, L, U))


@op("lu", module="linalg")
def linalg_lu(A: Tensor, *, pivot: bool = True) -> Any:
    check_matrix(A, "linalg.lu", square=False)
    lu_data, pivots, _ = lu_factor_arrays(A._data)
    P, L, U = _unpacked_arrays(lu_data, pivots)
    # P, a permutation, takes no gradient
    outs = record_outputs(LU, (A,), [(P, A._dtype), (L, A._dtype), (U, A._dtype)], (None, "L", "U"), pivot=pivot,
                          P=Tensor._make(P, A._dtype))
    return ReturnTypes("linalg_lu", *outs, fields=("P", "L", "U"))


LU_UNPACK = node("LuUnpackBackward0", ("LU_data",), multi_output=True,
                 saved=("LU_data_sym_argsize_minus_1", "LU_data_sym_argsize_minus_2"),
                 LU_data=lambda grads: _lu_unpack_grad(output_grads(grads, 3)))


def _lu_unpack_grad(grads: list) -> Optional[Tensor]:
    _, gL, gU = grads
    if gL is None and gU is None:
        return None
    if gL is None:
        return gU.triu()
    if gU is None:
        return gL.tril(-1)
    return gL.tril(-1) + gU.triu()


@op()
def lu_unpack(LU_data: Tensor, LU_pivots: Tensor, unpack_data: bool = True, unpack_pivots: bool = True) -> Any:
    P, L, U = _unpacked_arrays(LU_data._data, LU_pivots._data)
    outs = record_outputs(LU_UNPACK, (LU_data,), [(P, LU_data._dtype), (L, LU_data._dtype), (U, LU_data._dtype)],
                          (None, "L", "U"), LU_data_sym_argsize_minus_1=LU_data.shape[-1],
                          LU_data_sym_argsize_minus_2=LU_data.shape[-2])
    return ReturnTypes("lu_unpack", *outs, fields=("P", "L", "U"))


def _lu_solveoutput_grads(grads: Any, LU: Tensor, pivots: Tensor, result: Tensor, left: bool, adjoint: bool,
                    which: str) -> Tensor:
    grad = grads if isinstance(grads, Tensor) else output_grads(grads, 1)[0]
    gB = lu_solve(LU, pivots, grad, left=left, adjoint=not adjoint)
    if which == "B":
        return gB
    # through A = P L U: the gradient of A, then of its factors
    gA = -(gB.matmul(result.mH) if left else result.mH.matmul(gB))
    gA = gA.mH if adjoint else gA
    L, U = split_lu(LU)
    P = Tensor._make(permutation_matrix(pivots._data, LU.shape[-2]).astype(LU._dtype._numpy), LU._dtype)
    PtgA = P.mT.matmul(gA)
    return L.mH.matmul(PtgA).triu() + PtgA.matmul(U.mH).tril(-1)


LU_SOLVE = node("LinalgLuSolveBackward0", ("LU", "B"), saved_tensors=("pivots",),
                LU=lambda grad, LU, pivots, result, left, adjoint: _lu_solveoutput_grads(grad, LU, pivots, result, left,
                                                                                   adjoint, "LU"),
                B=lambda grad, LU, pivots, left, adjoint: _lu_solveoutput_grads(grad, LU, pivots, None, left, adjoint, "B"))


@op(module="linalg")
def lu_solve(LU: Tensor, pivots: Tensor, B: Tensor, *, left: bool = True, adjoint: bool = False) -> Tensor:
    check_solver_inputs(LU, B, left, "linalg.lu_solve")
    for wrong, bound in ((pivots._data < 1, "greater or equal to 1"), (pivots._data > LU.shape[-2],
                                                                      "smaller or equal to LU.size(-2)")):
        if np.any(wrong):
            raise RuntimeError(f"Pivots given to lu_solve must all be {bound}. Did you properly pass the result of "
                               "lu_factor?")
    data = mkl_lapack.lu_solve(LU._data, pivots._data, B._data, left, adjoint)
    if data is not None:
        return record(LU_SOLVE, (LU, B), data, B._dtype, pivots=pivots, left=left, adjoint=adjoint)
    P, L, U = _unpacked_arrays(LU._data, pivots._data)
    A = P @ L @ U
    A = np.swapaxes(A, -1, -2).conj() if adjoint else A
    if left:
        data = np.linalg.solve(A, B._data)
    else:
        data = np.swapaxes(np.linalg.solve(np.swapaxes(A, -1, -2), np.swapaxes(B._data, -1, -2)), -1, -2)
    return record(LU_SOLVE, (LU, B), np.asarray(data, dtype=B._dtype._numpy), B._dtype, pivots=pivots, left=left,
                  adjoint=adjoint)


@op("lu_solve")
def torch_lu_solve(input: Tensor, LU_data: Tensor, LU_pivots: Tensor) -> Tensor:
    warn_once("UserWarning", "torch.lu_solve is deprecated in favor of torch.linalg.lu_solveand will be removed in a "
                             "future PyTorch release.\nNote that torch.linalg.lu_solve has its arguments reversed.\nX "
                             "= torch.lu_solve(B, LU, pivots)\nshould be replaced with\nX = torch.linalg.lu_solve(LU, "
                             "pivots, B)")
    return lu_solve(LU_data, LU_pivots, input)


# ------------------------------------------------------------------ rank, condition, tensor inverses

@op(module="linalg")
def matrix_rank(input: Tensor, tol: Any = None, hermitian: bool = False, *, atol: Any = None,
                rtol: Any = None) -> Tensor:
    A = input
    check_matrix(A, "linalg.matrix_rank", square=False)
    if tol is not None:
        atol, rtol = (tol.item() if isinstance(tol, Tensor) else tol), 0.0
    atol = atol.item() if isinstance(atol, Tensor) else atol
    rtol = rtol.item() if isinstance(rtol, Tensor) else rtol
    # as ATen: from svdvals (vectors only where a gradient may need them) or eigvalsh's magnitudes
    if not hermitian:
        check_svd_input(A._data)
    through_mkl = _mkl_spectrum(A._data, hermitian, not hermitian and needs_vectors(A))
    if through_mkl is not None:
        values = np.abs(through_mkl[0]) if hermitian else through_mkl[1]
    else:
        values = np.abs(np.linalg.eigvalsh(A._data)) if hermitian else np.linalg.svd(A._data, compute_uv=False)
    largest = np.max(values, axis=-1, keepdims=True) if values.size else values
    if rtol is None:
        rtol = 0.0 if atol is not None and atol > 0 else np.finfo(A._dtype._numpy).eps * max(A.shape[-2:])
    cutoff = np.maximum(0.0 if atol is None else atol, rtol * largest)
    return int64_tensor(np.sum(values > cutoff, axis=-1))


@op(module="linalg")
def cond(input: Tensor, p: Any = None) -> Tensor:
    A = input
    if p is None or p in (2, -2):
        S = svdvals(A)
        ratio = S.narrow(-1, 0, 1) / S.narrow(-1, S.shape[-1] - 1, 1)
        ratio = ratio if p != -2 else 1 / ratio
        return ratio.squeeze(-1)
    if p == "nuc":  # from the singular values themselves, as ATen (matrix_norm refuses infinities)
        S = svdvals(A)
        return S.sum(-1) * S.reciprocal().sum(-1)
    # ATen's _linalg_cond_helper: a singular matrix's inverse taken as infinite, and a product of
    # zero and infinity (or a NaN) made infinite, as NumPy's
    inverse, info = inv_ex(A)
    inverse = inverse.masked_fill(info[..., None, None] > 0, math.inf)
    return (matrix_norm(A, p) * matrix_norm(inverse, p)).nan_to_num(math.inf, math.inf, -math.inf)


@op(module="linalg")
def tensorinv(input: Tensor, ind: int = 2) -> Tensor:
    A = input
    if ind <= 0:
        raise RuntimeError(f"Expected a strictly positive integer for 'ind', but got {ind}")
    front, back = tuple(A.shape[:ind]), tuple(A.shape[ind:])
    rows = int(np.prod(front, dtype=np.int64))
    if rows != int(np.prod(back, dtype=np.int64)):
        raise RuntimeError(f"Expected self to satisfy the requirement prod(self.shape[ind:]) == "
                           f"prod(self.shape[:ind]), but got {int(np.prod(back))} != {rows}")
    return inv(A.reshape((rows, -1))).reshape(back + front)


@op(module="linalg")
def tensorsolve(input: Tensor, other: Tensor, dims: Optional[Sequence[int]] = None) -> Tensor:
    A, B = input, other
    if dims is not None:
        order = [d for d in range(A.ndim) if d not in [d % A.ndim for d in dims]] + [d % A.ndim for d in dims]
        A = A.permute(order)
    result_shape = tuple(A.shape[B.ndim:])
    columns = int(np.prod(result_shape, dtype=np.int64))
    return solve(A.reshape((-1, columns)), B.reshape(-1)).view(result_shape)


# ------------------------------------------------------------------ Householder reflections

def _householder_reference(input: Tensor, tau: Tensor) -> Tensor:
    """Q = H_1 ... H_k, H_i = I - tau_i v_i v_i^H with v_i below the diagonal of column i (and
    1 on it), in Tensor ops: its graph gives the gradient."""
    m, n = input.shape[-2:]
    eye = Tensor._make(np.broadcast_to(np.eye(m, dtype=input._dtype._numpy), input.shape[:-2] + (m, m)).copy(),
                       input._dtype)
    Q = eye
    for i in range(tau.shape[-1]):
        mask = Tensor._make((np.arange(m) > i).astype(input._dtype._numpy), input._dtype)
        unit = Tensor._make((np.arange(m) == i).astype(input._dtype._numpy), input._dtype)
        v = input.select(-1, i) * mask + unit
        H = eye - tau.select(-1, i).unsqueeze(-1).unsqueeze(-1) * (v.unsqueeze(-1) * v.conj().unsqueeze(-2))
        Q = Q.matmul(H)
    return Q.narrow(-1, 0, n)


def _through_reference(reference: Callable, grad: Tensor, inputs: Sequence[Tensor], index: int) -> Tensor:
    """The gradient of `reference` at `inputs` for input `index` (PyTorch's formula for these ops
    is this derivative, written out by hand)."""
    leaves = [t.detach()._set_requires_grad() for t in inputs]
    with grad_mode.enable_grad():
        out = reference(*leaves)
    return api.grad(out, [leaves[index]], grad, allow_unused=True)[0]


def _jvp_through_reference(reference: Callable, tangent: Tensor, inputs: Sequence[Tensor], index: int) -> Tensor:
    """The forward derivative of `reference` at `inputs` along `tangent` for input `index`."""
    level = forward_mode.enter_level()
    try:
        duals = [forward_mode.dual(t, tangent, level) if i == index else t for i, t in enumerate(inputs)]
        out = reference(*duals)
        found = forward_mode.tangent_of(out, level)
    finally:
        forward_mode.exit_level(level)
    return found if found is not None else zeros_like(out)


HOUSEHOLDER = node("LinalgHouseholderProductBackward0", ("input", "tau"), saved=("result",),
                   jvp={"input": lambda tangent, input, tau: _jvp_through_reference(_householder_reference, tangent,
                                                                                   (input, tau), 0),
                        "tau": lambda tangent, input, tau: _jvp_through_reference(_householder_reference, tangent,
                                                                                 (input, tau), 1)},
                   input=lambda grad, input, tau: _through_reference(_householder_reference, grad, (input, tau), 0),
                   tau=lambda grad, input, tau: _through_reference(_householder_reference, grad, (input, tau), 1))


@op("householder_product", module="linalg")
def householder_product(input: Tensor, tau: Tensor) -> Tensor:
    if input.ndim < 2:
        raise RuntimeError("torch.linalg.householder_product: input must have at least 2 dimensions.")
    if input.shape[-2] < input.shape[-1]:
        raise RuntimeError("torch.linalg.householder_product: input.shape[-2] must be greater than or equal to "
                           "input.shape[-1]")
    if input.shape[-1] < tau.shape[-1]:
        raise RuntimeError("torch.linalg.householder_product: input.shape[-1] must be greater than or equal to "
                           "tau.shape[-1]")
    if input.ndim - tau.ndim != 1:
        raise RuntimeError(f"torch.linalg.householder_product: Expected tau to have one dimension less than input, "
                           f"but got tau.ndim equal to {tau.ndim} and input.ndim is equal to {input.ndim}")
    data = mkl_lapack.householder_product(input._data, tau._data)
    if data is None:
        data = _householder_reference(input.detach(), tau.detach())._data
    return record(HOUSEHOLDER, (input, tau), data, input._dtype)


@op()
def orgqr(input: Tensor, input2: Tensor) -> Tensor:
    return householder_product(input, input2)


def _ormqr_reference(input: Tensor, input2: Tensor, input3: Tensor, left: bool, transpose: bool) -> Tensor:
    m = input.shape[-2]
    square = input if input.shape[-1] == m else cat(
        [input, zeros_like(input.narrow(-1, 0, 1)).expand(tuple(input.shape[:-1]) + (m - input.shape[-1],))], -1)
    Q = _householder_reference(square, input2)
    Q = Q.mH if transpose else Q
    return Q.matmul(input3) if left else input3.matmul(Q)


def _ormqr_formula(index: int) -> Callable:
    def formula(grad: Tensor, self: Tensor, input2: Tensor, input3: Tensor, left: bool, transpose: bool) -> Tensor:
        return _through_reference(lambda a, b, c: _ormqr_reference(a, b, c, left, transpose), grad,
                                  (self, input2, input3), index)

    return formula


def _ormqr_jvp(index: int) -> Callable:
    def jvp(tangent: Tensor, self: Tensor, input2: Tensor, input3: Tensor, left: bool, transpose: bool) -> Tensor:
        return _jvp_through_reference(lambda a, b, c: _ormqr_reference(a, b, c, left, transpose), tangent,
                                      (self, input2, input3), index)

    return jvp


ORMQR = node("OrmqrBackward0", ("self", "input2", "input3"), saved=("result",), self=_ormqr_formula(0),
             jvp={"self": _ormqr_jvp(0), "input2": _ormqr_jvp(1), "input3": _ormqr_jvp(2)},
             input2=_ormqr_formula(1), input3=_ormqr_formula(2))


@op()
def ormqr(input: Tensor, input2: Tensor, input3: Tensor, left: bool = True, transpose: bool = False) -> Tensor:
    data = _ormqr_reference(input.detach(), input2.detach(), input3.detach(), left, transpose)._data
    return record(ORMQR, (input, input2, input3), data, input3._dtype, left=left, transpose=transpose)


def _geqrf_not_implemented(grads: Any) -> Tensor:
    raise NotImplementedError("the derivative for 'geqrf' is not implemented.")


GEQRF = node("GeqrfBackward0", ("self",), multi_output=True, self=_geqrf_not_implemented)


def _householder_vectors(a: np.ndarray) -> tuple:
    """LAPACK's geqrf for one matrix: R on and above the diagonal, the reflectors below, and tau."""
    a = a.astype(np.result_type(a.dtype, np.float64)).copy()
    m, n = a.shape
    tau = np.zeros(min(m, n), dtype=a.dtype)
    for j in range(min(m, n)):
        x = a[j:, j]
        alpha, rest = x[0], np.linalg.norm(x[1:])
        if rest == 0 and np.imag(alpha) == 0:
            continue
        beta = -np.copysign(np.hypot(abs(alpha), rest), np.real(alpha))
        tau[j] = (beta - alpha) / beta
        v = x / (alpha - beta)
        v[0] = 1
        a[j:, j + 1:] -= tau[j] * np.outer(v, v.conj() @ a[j:, j + 1:])
        a[j, j] = beta
        a[j + 1:, j] = v[1:]
    return a, tau


@op()
def geqrf(input: Tensor) -> Any:
    check_matrix(input, "geqrf", square=False)
    through_mkl = mkl_lapack.geqrf(input._data)
    if through_mkl is not None:
        a, tau = through_mkl
    else:
        flat = input._data.reshape((math.prod(input.shape[:-2]),) + input.shape[-2:])
        pairs = [_householder_vectors(matrix) for matrix in flat]
        a = np.stack([p[0] for p in pairs]).reshape(input.shape) if pairs else input._data.copy()
        tau = np.stack([p[1] for p in pairs]).reshape(input.shape[:-2] + (min(input.shape[-2:]),)) if pairs else \
            np.zeros(input.shape[:-2] + (min(input.shape[-2:]),))
    outs = record_outputs(GEQRF, (input,), [(np.asarray(a, dtype=input._dtype._numpy), input._dtype),
                                            (np.asarray(tau, dtype=input._dtype._numpy), input._dtype)], ("a", "tau"))
    return ReturnTypes("geqrf", *outs, fields=("a", "tau"))


# ------------------------------------------------------------------ LDL (symmetric indefinite)

def _ldl_arrays(A: np.ndarray, hermitian: bool) -> tuple:
    """L D L^T without pivoting (LAPACK's sytrf takes no interchanges while each diagonal is large
    enough): D on the diagonal, L's multipliers below it, pivots 1..n."""
    a = np.tril(np.array(A, copy=True))
    n = a.shape[-1]
    flat = a.reshape((-1, n, n))
    for matrix in flat:
        for j in range(n):
            d = matrix[j, j]
            column = matrix[j + 1:, j] / d if d != 0 else matrix[j + 1:, j] * 0
            for k in range(j + 1, n):
                matrix[k:, k] -= column[k - j - 1:] * (column[k - j - 1].conj() if hermitian else
                                                       column[k - j - 1]) * d
            matrix[j + 1:, j] = column
    pivots = np.broadcast_to(np.arange(1, n + 1, dtype=np.int32), A.shape[:-1]).copy()
    return flat.reshape(A.shape), pivots


@op(module="linalg")
def ldl_factor_ex(input: Tensor, *, hermitian: bool = False, check_errors: bool = False) -> Any:
    A = input
    check_matrix(A, "torch.linalg.ldl_factor_ex")
    through_mkl = mkl_lapack.sytrf(A._data)  # real only: sytrf is the Hermitian factorisation too
    if through_mkl is not None:
        factors, pivots, info_data = through_mkl
    else:
        (factors, pivots), info_data = _ldl_arrays(A._data, hermitian), np.zeros(A.shape[:-2], dtype=np.int32)
    LD = record(NOT_IMPLEMENTED, (A,), factors, A._dtype, _aten="linalg_ldl_factor_ex")
    info = Tensor._make(info_data, dtypes.int32)
    return ReturnTypes("linalg_ldl_factor_ex", LD, Tensor._make(pivots, dtypes.int32), info,
                       fields=("LD", "pivots", "info"))


@op(module="linalg")
def ldl_factor(input: Tensor, *, hermitian: bool = False) -> Any:
    LD, pivots, _ = ldl_factor_ex(input, hermitian=hermitian)
    return ReturnTypes("linalg_ldl_factor", LD, pivots, fields=("LD", "pivots"))


@op(module="linalg")
def ldl_solve(LD: Tensor, pivots: Tensor, B: Tensor, *, hermitian: bool = False) -> Tensor:
    data = mkl_lapack.sytrs(LD._data, pivots._data, B._data)
    if data is not None:
        return record(NOT_IMPLEMENTED, (LD, B), data, B._dtype, _aten="linalg_ldl_solve")
    n = LD.shape[-1]
    L = np.tril(LD._data, -1) + np.eye(n, dtype=LD._data.dtype)
    D = np.diagonal(LD._data, 0, -2, -1)
    Lt = np.swapaxes(L, -1, -2).conj() if hermitian else np.swapaxes(L, -1, -2)
    A = (L * D[..., None, :]) @ Lt
    data = np.linalg.solve(A, B._data)
    return record(NOT_IMPLEMENTED, (LD, B), np.asarray(data, dtype=B._dtype._numpy), B._dtype, _aten="linalg_ldl_solve")


# ------------------------------------------------------------------ norms

@op(module="linalg")
def vector_norm(input: Tensor, ord: Any = 2, dim: Any = None, keepdim: bool = False, *,
                dtype: Optional[Any] = None) -> Tensor:
    return statistics_vector_norm(input, ord, dim, keepdim, dtype=dtype)


@op(module="linalg")
def matrix_norm(input: Tensor, ord: Any = "fro", dim: Sequence[int] = (-2, -1), keepdim: bool = False, *,
                dtype: Optional[Any] = None) -> Tensor:
    """ATen's checks in its order: the order, then the input, then the dims."""
    A = input
    if ord not in ("fro", "nuc") if isinstance(ord, str) else abs(ord) not in (1, 2, math.inf):
        raise RuntimeError(f"linalg.matrix_norm: Order {ord if isinstance(ord, str) else format(ord, 'g')} not "
                           "supported.")
    if A.ndim < 2:
        raise RuntimeError("linalg.matrix_norm: The input tensor A must have at least 2 dimensions.")
    check_floating(A, "linalg.matrix_norm")
    dims = [dim] if isinstance(dim, int) else list(dim)
    if len(dims) != 2:
        raise RuntimeError(f"linalg.matrix_norm: dim must be a 2-tuple. Got {' '.join(map(str, dims))}")
    dims = tuple(wrap_dim(d, A.ndim) for d in dims)
    if dims[0] == dims[1]:
        raise RuntimeError(f"linalg.matrix_norm: dims must be different. Got ({dims[0]}, {dims[1]})")
    if ord == "fro":
        return statistics_vector_norm(A, 2, dims, keepdim, dtype=dtype)
    if ord == "nuc" or ord in (2, -2):
        moved = A.movedim(dims, (-2, -1))
        values = svdvals(moved.to(dtype) if dtype is not None else moved)
        reduced = values.sum(-1) if ord == "nuc" else values.amax(-1) if ord == 2 else values.amin(-1)
        if keepdim:
            for d in sorted(dims):
                reduced = reduced.unsqueeze(d)
        return reduced
    if ord not in (1, -1, math.inf, -math.inf):
        raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")
    # the 1-norms of the columns (rows for inf), then their largest or smallest
    summed_dim, reduced_dim = (dims[0], dims[1]) if abs(ord) == 1 else (dims[1], dims[0])
    if not keepdim and summed_dim < reduced_dim:
        reduced_dim -= 1
    sums = statistics_vector_norm(A, 1.0, (summed_dim,), keepdim, dtype=dtype)
    return sums.amax(reduced_dim, keepdim=keepdim) if ord > 0 else sums.amin(reduced_dim, keepdim=keepdim)


@op("norm", module="linalg")
def linalg_norm(input: Tensor, ord: Any = None, dim: Any = None, keepdim: bool = False, *,
                dtype: Optional[Any] = None) -> Tensor:
    A = input
    if isinstance(dim, int):
        dim = (dim,)
    if dim is not None and len(dim) not in (1, 2):
        raise RuntimeError(f"linalg.norm: If dim is specified, it must be of length 1 or 2. Got "
                           f"[{', '.join(map(str, dim))}]")
    if dim is None and ord is not None and A.ndim not in (1, 2):
        raise RuntimeError(f"linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. Got "
                           f"{A.ndim}D.")
    if isinstance(ord, str) or ord is not None and (len(dim) == 2 if dim is not None else A.ndim == 2):
        return matrix_norm(A, ord, (0, 1) if dim is None else dim, keepdim, dtype=dtype)
    return statistics_vector_norm(A, 2 if ord is None else ord, dim, keepdim, dtype=dtype)


def _norm_python(input: Tensor, p: Any = "fro", dim: Any = None, keepdim: bool = False, out: Any = None,
                 dtype: Optional[Any] = None) -> Tensor:
    """torch.norm as torch/functional.py computes a strided tensor's: linalg's vector or matrix
    norm over the dims as a list, which their parsers check."""
    if not isinstance(input, Tensor):  # torch's Python code reads its layout first
        raise AttributeError(f"'{type_name(input)}' object has no attribute 'layout'")
    dims = [dim] if isinstance(dim, int) else dim
    out_given = {} if out is None else {"out": out}
    if isinstance(p, str):
        if p == "fro" and (dim is None or isinstance(dim, int) or len(dim) <= 2):
            return builtin("linalg", "vector_norm")(input, 2, dims, keepdim, dtype=dtype, **out_given)
        if dims is None:
            dims = list(range(input.ndim))
        return builtin("linalg", "matrix_norm")(input, p, dims, keepdim, dtype=dtype, **out_given)
    return builtin("linalg", "vector_norm")(input, 2.0 if p is None else p, dims, keepdim, dtype=dtype, **out_given)


def _norm_method(self: Tensor, p: Any = "fro", dim: Any = None, keepdim: bool = False,
                 dtype: Optional[Any] = None) -> Tensor:
    return _norm_python(self, p, dim, keepdim, dtype=dtype)


_norm_python.__name__ = _norm_python.__qualname__ = "norm"
op("norm", nodes=(NORM,), python="torch.functional", method=_norm_method)(_norm_python)


# at::norm(self, p, dim, keepdim), which the deprecated frobenius_norm still calls
NORM_P = node("NormBackward1", ("self",), self=lambda grad, self, result, p, dim, keepdim: NORM.formulas[0](
    grad, self, result, p, dim, keepdim))


NORM_SCALAR = node("NormBackward0", ("self",), self=lambda grad, self, result, p: NORM.formulas[0](
    grad, self, result, p, None, False))


def aten_norm(input: Tensor, p: Any, dim: Optional[Sequence[int]] = None, keepdim: bool = False) -> Tensor:
    """at::norm as ATen's own composites call it (norm_except_dim): its nodes, not linalg's."""
    result = statistics_vector_norm(input.detach(), p, None if dim is None else tuple(dim), keepdim)
    if dim is None:
        return record(NORM_SCALAR, (input,), result._data, result._dtype, p=p)
    return record(NORM_P, (input,), result._data, result._dtype, p=p, dim=tuple(dim), keepdim=keepdim)


@op(nodes=(NORM_P,))
def frobenius_norm(input: Tensor, dim: Sequence[int], keepdim: bool = False) -> Tensor:
    warn_once("UserWarning", "at::frobenius_norm is deprecated and it is just left for JIT compatibility. It will be "
                             "removed in a future PyTorch release. Please use `linalg.vector_norm(A, 2., dim, "
                             "keepdim)` instead")
    result = statistics_vector_norm(input.detach(), 2.0, tuple(dim), keepdim)
    return record(NORM_P, (input,), result._data, result._dtype, p=2.0, dim=tuple(dim), keepdim=keepdim)


@op()
def nuclear_norm(input: Tensor, dim: Optional[Sequence[int]] = None, keepdim: bool = False) -> Tensor:
    warn_once("UserWarning", "at::nuclear_norm is deprecated and it is just left for JIT compatibility. It will be "
                             "removed in a future PyTorch release. Please use `linalg.matrix_norm(A, 'nuc', dim, "
                             "keepdim)` instead")
    return matrix_norm(input, "nuc", (-2, -1) if dim is None else dim, keepdim)


# ------------------------------------------------------------------ randomised low-rank factorisations

def _approximate_basis(A: Tensor, q: int, niter: int, M: Optional[Tensor]) -> Tensor:
    """An orthonormal basis of A's range from q random directions and niter power iterations."""
    dtype = A._dtype if A._dtype.category >= dtypes.FLOATING else dtypes.get_default_dtype()
    R = OPS[("torch", "randn")].impl((A.shape[-1], q), dtype=dtype)
    X = A.matmul(R) if M is None else A.matmul(R) - M.matmul(R)
    Q = linalg_qr(X).Q
    for _ in range(niter):
        X = A.mH.matmul(Q) if M is None else A.mH.matmul(Q) - M.mH.matmul(Q)
        Q = linalg_qr(X).Q
        X = A.matmul(Q) if M is None else A.matmul(Q) - M.matmul(Q)
        Q = linalg_qr(X).Q
    return Q


def _svd_lowrank(A: Tensor, q: Optional[int], niter: Optional[int], M: Optional[Tensor]) -> tuple:
    q = 6 if q is None else q
    niter = 2 if niter is None else niter
    m, n = A.shape[-2:]
    if M is not None:
        M = M.broadcast_to(A.shape)
    if m < n:  # a wide matrix: work on its transpose
        A = A.mH
        M = M.mH if M is not None else None
    Q = _approximate_basis(A, q, niter, M)
    B = Q.mH.matmul(A) if M is None else Q.mH.matmul(A - M)
    U, S, Vh = linalg_svd(B, full_matrices=False)
    V, U = Vh.mH, Q.matmul(U)
    return (V, S, U) if m < n else (U, S, V)


def svd_lowrank(A: Tensor, q: Optional[int] = 6, niter: Optional[int] = 2, M: Optional[Tensor] = None) -> tuple:
    return _svd_lowrank(A, q, niter, M)


def pca_lowrank(A: Tensor, q: Optional[int] = None, center: bool = True, niter: int = 2) -> tuple:
    m, n = A.shape[-2:]
    q = min(6, m, n) if q is None else q
    if not 0 <= q <= min(m, n):
        raise ValueError(f"q(={q}) must be non-negative integer and not greater than min(m, n)={min(m, n)}")
    if not center:
        return _svd_lowrank(A, q, niter, None)
    return _svd_lowrank(A - A.mean(dim=(-2,), keepdim=True), q, niter, None)


def lobpcg(A: Tensor, k: Optional[int] = None, B: Optional[Tensor] = None, X: Optional[Tensor] = None,
           n: Optional[int] = None, iK: Any = None, niter: Optional[int] = None, tol: Optional[float] = None,
           largest: Optional[bool] = None, method: Optional[str] = None, tracker: Any = None,
           ortho_iparams: Any = None, ortho_fparams: Any = None, ortho_bparams: Any = None) -> tuple:
    """The k extreme eigenpairs of the symmetric (generalised) problem A x = lambda B x, to which
    LOBPCG converges, computed here by a full decomposition."""
    size = A.shape[-1]
    k = (1 if X is None else X.shape[-1]) if k is None else k
    if size < 3 * (n or k):
        raise ValueError(f"LPBPCG algorithm is not applicable when the number of A rows (={size}) is smaller than "
                         f"3 x the number of requested eigenpairs (={n or k})")
    largest = True if largest is None else largest
    if B is None:
        values, vectors = eigh(A)
    else:
        L = linalg_cholesky(B)
        C = solve_triangular(L, solve_triangular(L, A, upper=False).mH, upper=False)
        values, W = eigh((C + C.mH) / 2)
        vectors = solve_triangular(L.mH, W, upper=True)
    order = list(range(size - 1, size - 1 - k, -1)) if largest else list(range(k))
    index = int64_tensor(order)
    return values.index_select(-1, index), vectors.index_select(-1, index)


for _function in (svd_lowrank, pca_lowrank):
    op(_function.__name__, python="torch._lowrank", method=False)(_function)
op("lobpcg", python="torch._lobpcg", method=False)(lobpcg)
del _function
