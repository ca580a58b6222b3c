"""Matrix decompositions, in torch.linalg and under torch's older names: determinants (over the
LU factorisation), inverses and solves, Cholesky, QR, SVD and eigen-decompositions, each with
PyTorch's backward formula. The other matrix functions are in matrix_functions.py."""
from __future__ import annotations

import math
from typing import Any, Callable, Optional

import numpy as np

from .. import dtypes, forward_mode, grad_mode, mkl_lapack
from ..tensor import Tensor
from ...display.names import torch_class
from ...warnings import warn_once
from .common import ReturnTypes, not_implemented_for, shape_text, zeros_like
from .joining import cat
from .registry import node, op, record, record_outputs


@torch_class("torch._C._LinAlgError")
class LinAlgError(RuntimeError):
    """torch.linalg.LinAlgError: a matrix that cannot be factorised (singular, not positive-definite)."""


def _holding_nan(x: np.ndarray) -> np.ndarray:
    """Which matrices of a batch hold a NaN."""
    return np.isnan(x).any(axis=(-2, -1)) if x.size else np.zeros(x.shape[:-2], dtype=bool)


def check_svd_input(x: np.ndarray) -> None:
    """ATen's SVD of a matrix holding a NaN: LAPACK fails, and ATen names the batch element (numpy's
    LAPACK would print its own complaint and fail in its words)."""
    nan = _holding_nan(x)
    if nan.any():
        where = f"(Batch element {int(np.flatnonzero(nan)[0])}): " if x.ndim > 2 else ""
        raise LinAlgError(f"linalg.svd: {where}The algorithm failed to converge because the input matrix contained "
                          "non-finite values.")


def without_nan(function: Callable, a: np.ndarray, *others: np.ndarray) -> np.ndarray:
    """`function` (a numpy LU-based solve or inverse) of the batch `a`, its matrices that hold a NaN
    giving NaN everywhere, as LAPACK's LU carries it (numpy's would call them singular)."""
    nan = _holding_nan(a)
    if not nan.any():
        return function(a, *others)
    safe = np.where(nan[..., None, None], np.eye(a.shape[-1], dtype=a.dtype), a)
    result = np.array(function(safe, *others))
    result[nan] = np.nan
    return result


def _check_square(A: Tensor, name: str) -> None:
    if A.ndim < 2:
        raise RuntimeError(f"{name}: The input tensor A must have at least 2 dimensions.")
    if A.shape[-1] != A.shape[-2]:
        raise RuntimeError(f"{name}: A must be batches of square matrices, but they are {A.shape[-2]} by "
                           f"{A.shape[-1]} matrices")


def check_solver_inputs(A: Tensor, B: Tensor, left: bool, name: str) -> None:
    """ATen's checkInputsSolver: a square A and a B whose rows (columns for XA = B) match it."""
    _check_square(A, name)
    check_precision(A, name)
    if B.ndim < 2:
        raise RuntimeError(f"{name}: The input tensor B must have at least 2 dimensions.")
    if (B.shape[-2] if left else B.shape[-1]) != A.shape[-1]:
        raise RuntimeError(f"{name}: Incompatible shapes of A and B for the equation {'AX = B' if left else 'XA = B'}"
                           f" ({A.shape[-2]}x{A.shape[-1]} and {B.shape[-2]}x{B.shape[-1]})")


def check_floating(A: Tensor, name: str) -> None:
    if A._dtype.category < dtypes.FLOATING:
        raise RuntimeError(f"{name}: Expected a floating point or complex tensor as input. Got "
                           f"{A._dtype._scalar_name}")


# What LAPACK's ops say of float16 and bfloat16 (no kernel, or a check of their own), by the name
# their checks give them
_LOW_PRECISION_KERNELS = {
    "linalg.cholesky": "cholesky_cpu", "linalg.cholesky_ex": "cholesky_cpu", "cholesky": "cholesky_cpu",
    "linalg.det": "lu_cpu", "det": "lu_cpu", "linalg.lu": "lu_cpu", "torch.linalg.lu_factor": "lu_cpu",
    "torch.linalg.lu_factor_ex": "lu_cpu", "linalg.solve": "lu_cpu", "linalg.qr": "geqrf_cpu", "geqrf": "geqrf_cpu",
    "linalg.eigh": "linalg_eigh_cpu", "linalg.eigvalsh": "linalg_eigh_cpu", "linalg.svd": "linalg_svd_cpu",
    "linalg.svdvals": "linalg_svd_cpu", "linalg.eig": "linalg_eig_out_cpu", "linalg.eigvals": "linalg_eig_out_cpu",
    "linalg.solve_triangular": "triangular_solve_cpu"}
_LOW_PRECISION_CHECKS = {"linalg.inv": "linalg.inv", "linalg.slogdet": "linalg.slogdet", "logdet": "logdet"}
_FLOAT_AND_DOUBLE_ONLY = ("linalg.lstsq", "linalg.matrix_rank")


def check_precision(A: Tensor, name: str) -> None:
    """float16 and bfloat16 refused as the op refuses them."""
    if A._dtype not in (dtypes.float16, dtypes.bfloat16):
        return
    if name in ("linalg.eig", "linalg.eigvals") and A._dtype is dtypes.float16:
        # eig's complex32 outputs are made before its kernel is looked for
        warn_once("UserWarning", "ComplexHalf support is experimental and many operators don't support it yet.",
                  at="aten/src/ATen/EmptyTensor.cpp:54")
    if name in _LOW_PRECISION_KERNELS:
        raise not_implemented_for(_LOW_PRECISION_KERNELS[name], A._dtype)
    if name in _LOW_PRECISION_CHECKS:
        raise RuntimeError(f"{_LOW_PRECISION_CHECKS[name]}: Low precision dtypes not supported. Got "
                           f"{A._dtype._scalar_name}")
    if name in _FLOAT_AND_DOUBLE_ONLY:
        raise RuntimeError("This function doesn't handle types other than float and double")
    if name == "linalg.pinv":
        raise RuntimeError(f"linalg.pinv({A._dtype._scalar_name}{{{shape_text(A.shape)}}}): expected a tensor with 2 "
                           "or more dimensions of float, double, cfloat or cdouble types")


def check_matrix(A: Tensor, name: str, square: bool = True) -> None:
    if A.ndim < 2:
        raise RuntimeError(f"{name}: The input tensor A must have at least 2 dimensions.")
    if square:
        _check_square(A, name)
    check_floating(A, name)
    check_precision(A, name)


def eye_like(A: Tensor) -> Tensor:
    n = A.shape[-1]
    return Tensor._make(np.broadcast_to(np.eye(n, dtype=A._dtype._numpy), A.shape[:-2] + (n, n)).copy(), A._dtype)


def output_grads(grads: Any, count: int) -> list:
    grads = list(grads) if isinstance(grads, (list, tuple)) else [grads]
    return grads + [None] * (count - len(grads))


# ------------------------------------------------------------------ LU, the factorisation under det and solve

def lu_factor_arrays(a: np.ndarray) -> tuple:
    """Partial pivoting LU of each matrix (LAPACK's getrf: the first largest pivot in each
    column), as (LU, pivots 1-based int32, info): MKL's, when it is in use."""
    through_mkl = mkl_lapack.lu_factor(a)
    if through_mkl is not None:
        return through_mkl
    a = np.array(a, copy=True)
    m, n = a.shape[-2], a.shape[-1]
    batch = a.shape[:-2]
    flat = a.reshape((math.prod(batch), m, n))  # the count spelled out: -1 is ambiguous for empty matrices
    pivots = np.zeros((flat.shape[0], min(m, n)), dtype=np.int32)
    info = np.zeros(flat.shape[0], dtype=np.int32)
    rows = np.arange(flat.shape[0])
    for k in range(min(m, n)):
        p = k + np.argmax(np.abs(flat[:, k:, k]), axis=1)
        pivots[:, k] = p + 1
        swap = flat[rows, p].copy()
        flat[rows, p] = flat[:, k]
        flat[:, k] = swap
        pivot = flat[:, k, k]
        zero = pivot == 0
        info = np.where(zero & (info == 0), k + 1, info)
        safe = np.where(zero, 1, pivot)
        flat[:, k + 1:, k] = np.where(zero[:, None], flat[:, k + 1:, k], flat[:, k + 1:, k] / safe[:, None])
        flat[:, k + 1:, k + 1:] -= flat[:, k + 1:, k:k + 1] * flat[:, k:k + 1, k + 1:]
    return flat.reshape(a.shape), pivots.reshape(batch + (min(m, n),)), info.reshape(batch)


def permutation_matrix(pivots: np.ndarray, m: int) -> np.ndarray:
    """P of A = P L U from LAPACK's row interchanges."""
    batch = pivots.shape[:-1]
    flat = pivots.reshape((-1, pivots.shape[-1]))
    perms = np.tile(np.arange(m), (flat.shape[0], 1))
    for k in range(flat.shape[1]):
        p = flat[:, k] - 1
        rows = np.arange(flat.shape[0])
        perms[rows, k], perms[rows, p] = perms[rows, p], perms[rows, k].copy()
    eye = np.eye(m)
    return eye[perms].transpose(0, 2, 1).reshape(batch + (m, m))


# ------------------------------------------------------------------ inverses and solves

INV = node("LinalgInvExBackward0", ("A",), multi_output=True,
           A=lambda grads, inverse: -inverse.mH.matmul(output_grads(grads, 2)[0]).matmul(inverse.mH))


def _inverse_outputs(A: Tensor, check: bool) -> tuple:
    check_matrix(A, "linalg.inv")
    lu, _, info = lu_factor_arrays(A._data)
    if check and np.any(info):
        raise LinAlgError(f"linalg.inv: The diagonal element {int(np.max(info))} is zero, the inversion could not be "
                          "completed because the input matrix is singular.")
    identity = np.broadcast_to(np.eye(A.shape[-1], dtype=A._dtype._numpy), A.shape)
    through_mkl = mkl_lapack.solve(A._data, identity, True)  # ATen's inverse: the solve of A X = I
    if through_mkl is not None:
        inverse, _, _, info = through_mkl
    else:
        singular = info != 0
        safe = np.where(singular[..., None, None], identity, A._data)
        inverse = np.asarray(without_nan(np.linalg.inv, safe), dtype=A._dtype._numpy)
    return record_outputs(INV, (A,), [(inverse, A._dtype), (info.astype(np.int32), dtypes.int32)], ("inverse", None))


@op(module="linalg")
def inv(A: Tensor) -> Tensor:
    return _inverse_outputs(A, True)[0]


@op(module="linalg")
def inv_ex(A: Tensor, *, check_errors: bool = False) -> Any:
    return ReturnTypes("linalg_inv_ex", *_inverse_outputs(A, check_errors), fields=("inverse", "info"))


@op()
def inverse(input: Tensor) -> Tensor:
    return inv(input)


def _is_vector_rhs(A: Tensor, B: Tensor) -> bool:
    return B.ndim == 1 or (B.ndim == A.ndim - 1 and B.shape == A.shape[:-1])


def _adjoint_solve(grad: Tensor, A: Tensor, LU: Tensor, pivots: Tensor, left: bool, vector: bool) -> Tensor:
    """The solve with A^H behind linalg.solve's gradients: as ATen's backward, the forward's LU
    solved transposed by MKL's getrs when it is in use and no graph is built of the backward;
    otherwise solved anew."""
    if not grad_mode.is_grad_enabled():
        gradient = grad._data[..., None] if vector else grad._data
        through_mkl = mkl_lapack.lu_solve(LU._data, pivots._data, gradient, left, True)
        if through_mkl is not None:
            return Tensor._make(through_mkl[..., 0] if vector else through_mkl, grad._dtype)
    return solve(A.mH, grad, left=left)


def _solveoutput_grads(grads: Any, A: Tensor, LU: Tensor, pivots: Tensor, result: Tensor, left: bool,
                       which: str) -> Optional[Tensor]:
    grad = output_grads(grads, 2)[0]
    if grad is None:
        return None
    vector = result.ndim == A.ndim - 1
    if left:
        gB = _adjoint_solve(grad, A, LU, pivots, left, vector)
        if which == "B":
            return gB
        return -(gB.unsqueeze(-1) * result.conj().unsqueeze(-2) if vector else gB.matmul(result.mH))
    gB = _adjoint_solve(grad, A, LU, pivots, left, vector)
    if which == "B":
        return gB
    return -(result.conj().unsqueeze(-1) * gB.unsqueeze(-2) if vector else result.mH.matmul(gB))


SOLVE = node("LinalgSolveExBackward0", ("A", "B"), multi_output=True, saved=("A", "LU", "pivots", "left", "result"),
             A=lambda grads, A, LU, pivots, result, left: _solveoutput_grads(grads, A, LU, pivots, result, left, "A"),
             B=lambda grads, A, LU, pivots, result, left: _solveoutput_grads(grads, A, LU, pivots, result, left, "B"))


def _solve_outputs(A: Tensor, B: Tensor, left: bool, check: bool) -> tuple:
    check_matrix(A, "linalg.solve")
    if A._dtype is not B._dtype:
        raise RuntimeError(f"linalg.solve: Expected A and B to have the same dtype, but found A of type "
                           f"{A._dtype._scalar_name} and B of type {B._dtype._scalar_name} instead")
    vector = _is_vector_rhs(A, B)
    rhs = B._data[..., None] if vector else B._data
    rows = rhs.shape[-2] if left else rhs.shape[-1]
    if rows != A.shape[-1]:
        raise RuntimeError(f"linalg.solve: Incompatible shapes of A and B for the equation "
                           f"{'AX = B' if left else 'XA = B'} ({A.shape[-2]}x{A.shape[-1]} and "
                           f"{rhs.shape[-2]}x{rhs.shape[-1]})")
    through_mkl = mkl_lapack.solve(A._data, rhs, left)
    lu, pivots, info = through_mkl[1:] if through_mkl is not None else lu_factor_arrays(A._data)
    if check and np.any(info):
        raise LinAlgError("torch.linalg.solve: The solver failed because the input matrix is singular.")
    dtype = dtypes.result_type([A, B])
    if through_mkl is not None:
        x = through_mkl[0]
    elif left:
        x = without_nan(np.linalg.solve, A._data, rhs)
    else:
        x = np.swapaxes(without_nan(np.linalg.solve, np.swapaxes(A._data, -1, -2), np.swapaxes(rhs, -1, -2)), -1, -2)
    x = x[..., 0] if vector else x
    return record_outputs(SOLVE, (A, B), [(np.asarray(x, dtype=dtype._numpy), dtype), (info.astype(np.int32),
                                                                                       dtypes.int32)],
                          ("result", None), left=left, LU=Tensor._make(lu, A._dtype),
                          pivots=Tensor._make(pivots, dtypes.int32))


@op(module="linalg")
def solve(A: Tensor, B: Tensor, *, left: bool = True) -> Tensor:
    return _solve_outputs(A, B, left, True)[0]


@op(module="linalg")
def solve_ex(A: Tensor, B: Tensor, *, left: bool = True, check_errors: bool = False) -> Any:
    return ReturnTypes("linalg_solve_ex", *_solve_outputs(A, B, left, check_errors), fields=("result", "info"))


def _triangular_solve_arrays(A: np.ndarray, B: np.ndarray, upper: bool, left: bool, unitriangular: bool) -> np.ndarray:
    A = np.triu(A) if upper else np.tril(A)
    if unitriangular:
        n = A.shape[-1]
        A = A * (1 - np.eye(n, dtype=A.dtype)) + np.eye(n, dtype=A.dtype)
    if left:
        return np.linalg.solve(A, B)
    return np.swapaxes(np.linalg.solve(np.swapaxes(A, -1, -2), np.swapaxes(B, -1, -2)), -1, -2)


def _triangle(grad: Tensor, upper: bool, unitriangular: bool) -> Tensor:
    grad = grad.triu() if upper else grad.tril()
    return grad.triu(1) if unitriangular and upper else grad.tril(-1) if unitriangular else grad


SOLVE_TRIANGULAR = node("LinalgSolveTriangularBackward0", ("self", "B"),
                        self=lambda grad, self, result, upper, left, unitriangular: _triangle(
                            -(solve_triangular(self.mH, grad, upper=not upper, left=left, unitriangular=unitriangular)
                              .matmul(result.mH) if left else result.mH.matmul(solve_triangular(
                                self.mH, grad, upper=not upper, left=left, unitriangular=unitriangular))),
                            upper, unitriangular),
                        B=lambda grad, self, upper, left, unitriangular: solve_triangular(
                            self.mH, grad, upper=not upper, left=left, unitriangular=unitriangular))


@op(module="linalg")
def solve_triangular(input: Tensor, B: Tensor, *, upper: bool, left: bool = True, unitriangular: bool = False) -> Tensor:
    check_solver_inputs(input, B, left, "linalg.solve_triangular")
    dtype = dtypes.result_type([input, B])
    data = mkl_lapack.trsm(input._data, B._data, upper, left, unitriangular)
    if data is None:
        data = _triangular_solve_arrays(input._data, B._data, upper, left, unitriangular)
    return record(SOLVE_TRIANGULAR, (input, B), np.asarray(data, dtype=dtype._numpy), dtype, upper=upper, left=left,
                  unitriangular=unitriangular)


def _triangular_solveoutput_grads(grads: Any, self: Tensor, A: Tensor, solution: Tensor, upper: bool, transpose: bool,
                            unitriangular: bool, which: str) -> Optional[Tensor]:
    grad = output_grads(grads, 2)[0]
    if grad is None:
        return None
    coefficient = A.mT if transpose else A
    g_self = solve_triangular(coefficient.mH, grad, upper=upper == transpose, unitriangular=unitriangular)
    if which == "self":
        return g_self
    g_A = -g_self.matmul(solution.mH)
    return _triangle(g_A.mT if transpose else g_A, upper, unitriangular)


TRIANGULAR_SOLVE = node("TriangularSolveBackward0", ("self", "A"), multi_output=True,
                        self=lambda grads, self, A, solution, upper, transpose, unitriangular: _triangular_solveoutput_grads(
                            grads, self, A, solution, upper, transpose, unitriangular, "self"),
                        A=lambda grads, self, A, solution, upper, transpose, unitriangular: _triangular_solveoutput_grads(
                            grads, self, A, solution, upper, transpose, unitriangular, "A"))


@op()
def triangular_solve(input: Tensor, A: Tensor, upper: bool = True, transpose: bool = False,
                     unitriangular: bool = False) -> Any:
    warn_once("UserWarning", "torch.triangular_solve is deprecated in favor of torch.linalg.solve_triangularand will "
                             "be removed in a future PyTorch release.\ntorch.linalg.solve_triangular has its "
                             "arguments reversed and does not return a copy of one of the inputs.\nX = "
                             "torch.triangular_solve(B, A).solution\nshould be replaced with\nX = "
                             "torch.linalg.solve_triangular(A, B).")
    coefficient = np.swapaxes(A._data, -1, -2) if transpose else A._data
    solution = _triangular_solve_arrays(coefficient, input._data, upper != transpose, True, unitriangular)
    outs = record_outputs(TRIANGULAR_SOLVE, (input, A), [(np.asarray(solution, dtype=input._dtype._numpy),
                                                          input._dtype), (A._data.copy(), A._dtype)],
                          ("solution", "cloned_coefficient"), upper=upper, transpose=transpose,
                          unitriangular=unitriangular)
    return ReturnTypes("triangular_solve", *outs, fields=("solution", "cloned_coefficient"))


# ------------------------------------------------------------------ Cholesky

def _phi(X: Tensor) -> Tensor:
    """The lower triangle with the diagonal halved."""
    return X.tril() - X.diagonal(0, -2, -1).diag_embed() * 0.5


def _cholesky_grad(gL: Tensor, L: Tensor, upper: bool) -> Tensor:
    if upper:
        L, gL = L.mH, gL.mH
    # gA = L^-H phi(L^H gL) L^-1, made Hermitian
    P = _phi(L.mH.matmul(gL.tril()))
    S = solve_triangular(L.mH, solve_triangular(L, P, upper=False, left=False), upper=True)
    return (S + S.mH) * 0.5


CHOLESKY_EX = node("LinalgCholeskyExBackward0", ("self",), multi_output=True,
                   self=lambda grads, L, upper: _cholesky_grad(output_grads(grads, 2)[0], L, upper))
CHOLESKY = node("CholeskyBackward0", ("self",), self=lambda grad, result, upper: _cholesky_grad(grad, result, upper))


def _unblocked_cholesky(lower: np.ndarray) -> tuple:
    """LAPACK's potf2 on a lower triangle, column by column, and its info: it stops at the first
    non-positive or NaN pivot, leaving the pivot it refused and the rest of the triangle as given
    (for a matrix with an infinity or a NaN, or one that is not positive-definite)."""
    a = lower.copy()
    with np.errstate(all="ignore"):
        for j in range(a.shape[0]):
            pivot = (a[j, j] - a[j, :j] @ a[j, :j].conj()).real
            if not pivot > 0:
                a[j, j] = pivot
                return a, j + 1
            a[j, j] = np.sqrt(pivot)
            a[j + 1:, j] = (a[j + 1:, j] - a[j + 1:, :j] @ a[j, :j].conj()) / a[j, j]
    return a, 0


def _cholesky_arrays(A: Tensor, upper: bool, check: bool, name: str) -> tuple:
    check_matrix(A, name)
    flat = A._data.reshape((-1,) + A.shape[-2:])
    factors = np.zeros_like(flat)
    info = np.zeros(flat.shape[0], dtype=np.int32)
    by_mkl = False  # ATen's LAPACK, when the MKL backend is installed: it computes the upper factor itself
    for index, matrix in enumerate(flat):
        through_mkl = mkl_lapack.potrf(matrix, upper) if not A._dtype.is_complex else None
        if through_mkl is not None:
            (factors[index], info[index]), by_mkl = through_mkl, True
            continue
        # the triangle LAPACK reads (the upper one for upper=True), as the lower one of A^H
        lower = np.tril(matrix.conj().T if upper else matrix)
        if np.isfinite(lower).all():
            try:
                factors[index] = np.linalg.cholesky(lower + np.tril(lower, -1).conj().T)
                continue
            except np.linalg.LinAlgError:
                pass
        factors[index], info[index] = _unblocked_cholesky(lower)
    if check and np.any(info):
        failed = np.flatnonzero(info)[0]
        where = f"(Batch element {failed}): " if A.ndim > 2 else ""
        raise LinAlgError(f"{name}: {where}The factorization could not be completed because the input is not "
                          f"positive-definite (the leading minor of order {int(info[failed])} is not "
                          "positive-definite).")
    factors = factors.reshape(A.shape)
    if upper and not by_mkl:
        factors = np.swapaxes(factors, -1, -2).conj()
    return np.asarray(factors, dtype=A._dtype._numpy), info.reshape(A.shape[:-2])


@op("cholesky", module="linalg")
def linalg_cholesky(input: Tensor, *, upper: bool = False) -> Tensor:
    return cholesky_ex(input, upper=upper, check_errors=True)[0]


@op(module="linalg")
def cholesky_ex(input: Tensor, *, upper: bool = False, check_errors: bool = False) -> Any:
    factors, info = _cholesky_arrays(input, upper, check_errors, "linalg.cholesky")
    outs = record_outputs(CHOLESKY_EX, (input,), [(factors, input._dtype), (info, dtypes.int32)], ("L", None),
                          upper=upper)
    return ReturnTypes("linalg_cholesky_ex", *outs, fields=("L", "info"))


@op()
def cholesky(input: Tensor, upper: bool = False) -> Tensor:
    warn_once("UserWarning", "torch.cholesky is deprecated in favor of torch.linalg.cholesky and will be removed in a "
                             "future PyTorch release.\nL = torch.cholesky(A)\nshould be replaced with\nL = "
                             "torch.linalg.cholesky(A)\nand\nU = torch.cholesky(A, upper=True)\nshould be replaced "
                             "with\nU = torch.linalg.cholesky(A).mH\nThis transform will produce equivalent results "
                             "for all valid (symmetric positive definite) inputs.")
    factors, _ = _cholesky_arrays(input, upper, True, "cholesky")
    return record(CHOLESKY, (input,), factors, input._dtype, upper=upper)


def _cholesky_solve_arrays(B: np.ndarray, L: np.ndarray, upper: bool) -> np.ndarray:
    lower = np.swapaxes(L, -1, -2).conj() if upper else L
    return np.linalg.solve(lower @ np.swapaxes(lower, -1, -2).conj(), B)


CHOLESKY_SOLVE = node("CholeskySolveBackward0", ("self", "input2"),
                      self=lambda grad, input2, upper: cholesky_solve(grad, input2, upper),
                      input2=lambda grad, self, input2, result, upper: _cholesky_solve_factor_grad(
                          grad, input2, result, upper))


def _cholesky_solve_factor_grad(grad: Tensor, factor: Tensor, result: Tensor, upper: bool) -> Tensor:
    g_B = cholesky_solve(grad, factor, upper)
    g_A = -(g_B.matmul(result.mH) + result.matmul(g_B.mH))  # A = L L^H
    return factor.matmul(g_A) if upper else g_A.matmul(factor)


@op(nodes=(CHOLESKY_SOLVE,))
def cholesky_solve(input: Tensor, input2: Tensor, upper: bool = False) -> Tensor:
    if input.ndim < 2:
        raise RuntimeError(f"b should have at least 2 dimensions, but has {input.ndim} dimensions instead")
    if input2.ndim < 2:
        raise RuntimeError(f"u should have at least 2 dimensions, but has {input2.ndim} dimensions instead")
    if input2.shape[-1] != input2.shape[-2] or input.shape[-2] != input2.shape[-1]:
        raise RuntimeError(f"Incompatible matrix sizes for cholesky_solve: each A matrix is {input2.shape[-2]} by "
                           f"{input2.shape[-1]} but each b matrix is {input.shape[-2]} by {input.shape[-1]}")
    data = mkl_lapack.potrs(input._data, input2._data, upper)
    if data is None:
        data = _cholesky_solve_arrays(input._data, input2._data, upper)
    return record(CHOLESKY_SOLVE, (input, input2), np.asarray(data, dtype=input._dtype._numpy), input._dtype,
                  upper=upper)


def _cholesky_inverse_grad(grad: Tensor, self: Tensor, result: Tensor, upper: bool) -> Tensor:
    """ATen's cholesky_inverse_backward, op for op: -(X (G + G^H) X) L (L times it when UPPER)."""
    common = grad + grad.mH
    common = result.matmul(common.matmul(result))
    return -self.matmul(common) if upper else -common.matmul(self)


CHOLESKY_INVERSE = node("CholeskyInverseBackward0", ("self",), self=_cholesky_inverse_grad)


def _check_nonsingular_factor(factor: np.ndarray, name: str) -> None:
    """ATen's check of LAPACK's info for an inverse from a triangular factor: the first zero on
    a diagonal (of the first matrix of a batch that has one) refuses it."""
    zeros = np.diagonal(factor, 0, -2, -1) == 0
    if not np.any(zeros):
        return
    flat = zeros.reshape(-1, zeros.shape[-1])
    batch = int(np.argmax(flat.any(axis=-1)))
    batch_note = f"(Batch element {batch}): " if factor.ndim > 2 else ""
    raise LinAlgError(f"{name}: {batch_note}The diagonal element {int(np.argmax(flat[batch])) + 1} is zero, the "
                      "inversion could not be completed because the input matrix is singular.")


@op(nodes=(CHOLESKY_INVERSE,))
def cholesky_inverse(input: Tensor, upper: bool = False) -> Tensor:
    if input.ndim < 2:
        raise RuntimeError("cholesky_inverse: The input tensor A must have at least 2 dimensions.")
    _check_square(input, "cholesky_inverse")
    if input._dtype.category < dtypes.FLOATING:
        raise not_implemented_for("cholesky_inverse_out_cpu", input._dtype)
    _check_nonsingular_factor(input._data, "cholesky_inverse")
    data = mkl_lapack.potri(input._data, upper)
    if data is None:
        n = input.shape[-1]
        eye = np.broadcast_to(np.eye(n, dtype=input._dtype._numpy), input.shape)
        data = _cholesky_solve_arrays(eye, input._data, upper)
    return record(CHOLESKY_INVERSE, (input,), np.asarray(data, dtype=input._dtype._numpy), input._dtype, upper=upper)


# ------------------------------------------------------------------ QR, SVD, eigen-decompositions

def _halved_diagonal(X: Tensor, imaginary: bool) -> Tensor:
    """X with the real (IMAGINARY: the imaginary) part of its diagonal halved, as ATen's in-place
    at::real(X.diagonal(0, -2, -1)).mul_(0.5); a real X has no imaginary part to halve."""
    if imaginary and not X.is_complex():
        return X
    diagonal = X.diagonal(0, -2, -1)
    if not X.is_complex():
        return X.diagonal_scatter(diagonal * 0.5, 0, -2, -1)
    part = diagonal.imag * 1j if imaginary else diagonal.real
    return X.diagonal_scatter(diagonal - part * 0.5, 0, -2, -1)  # z - p/2: exact, as p/2 is


def _qr_grad(grads: Any, Q: Tensor, R: Tensor, mode: str) -> Optional[Tensor]:
    """ATen's linalg_qr_backward, op for op (its products and solve go to MKL as ATen's do):
    gA = (gQ + Q syminvadj(triu(gR R^H - Q^H gQ))) R^-H for m >= n; for m < n,
    [Q trilImInvAdjSkew(Q^H gQ - gR R^H) R_1^-H, 0] + Q gR."""
    if mode == "r":
        raise RuntimeError("The derivative of linalg.qr depends on Q, which is not computed when mode='r'. Please "
                           "use linalg.qr(A, mode='reduced') if you are going to differentiate through linalg.qr.")
    gQ, gR = output_grads(grads, 2)
    m, n = Q.shape[-2], R.shape[-1]
    if mode == "complete" and m > n:
        raise RuntimeError("The QR decomposition is not differentiable when mode='complete' and nrows > ncols.")
    if gQ is None and gR is None:
        return None
    if gQ is None:
        gA = gR.matmul(R.mH)
    elif gR is None:
        gA = -Q.mH.matmul(gQ)
    else:
        gA = gR.matmul(R.mH) - Q.mH.matmul(gQ)
    if m >= n:
        upper = gA.triu()
        gA = Q.matmul(_halved_diagonal(upper + upper.mH, imaginary=False))
        if gQ is not None:
            gA = gA + gQ
        return solve_triangular(R.mH, gA, upper=False, left=False)
    negated = -gA
    gA = Q.matmul(_halved_diagonal((negated - negated.mH).tril(), imaginary=True))
    gA = solve_triangular(R.narrow(-1, 0, m).mH, gA, upper=False, left=False)
    gA = cat([gA, gA.new_zeros(R.shape[:-1] + (n - m,))], -1)
    return gA + Q.matmul(gR) if gR is not None else gA


QR = node("LinalgQrBackward0", ("A",), multi_output=True, A=lambda grads, Q, R, mode: _qr_grad(grads, Q, R, mode))


def _qr_outputs(A: Tensor, mode: str) -> tuple:
    check_matrix(A, "linalg.qr", square=False)
    if mode not in ("reduced", "complete", "r"):
        raise RuntimeError(f"qr received unrecognized mode '{mode}' but expected one of 'reduced' (default), 'r', "
                           "or 'complete'")
    through_mkl = mkl_lapack.qr(A._data, mode)
    if through_mkl is not None:
        q, r = through_mkl
        q = np.zeros((0,), dtype=A._dtype._numpy) if q is None else q
        return record_outputs(QR, (A,), [(q, A._dtype), (r, A._dtype)], ("Q", "R"), mode=mode)
    flat = A._data.reshape((math.prod(A.shape[:-2]),) + A.shape[-2:])
    pairs = [np.linalg.qr(matrix, mode="complete" if mode == "complete" else "reduced") for matrix in flat]
    k = min(A.shape[-2:]) if mode != "complete" else A.shape[-2]
    q = np.stack([q for q, _ in pairs]).reshape(A.shape[:-2] + (A.shape[-2], k)) if pairs else np.zeros(
        A.shape[:-2] + (A.shape[-2], k), A._dtype._numpy)
    r = np.stack([r for _, r in pairs]).reshape(A.shape[:-2] + (k, A.shape[-1])) if pairs else np.zeros(
        A.shape[:-2] + (k, A.shape[-1]), A._dtype._numpy)
    if mode == "r":
        q = np.zeros((0,), dtype=A._dtype._numpy)
    return record_outputs(QR, (A,), [(np.asarray(q, dtype=A._dtype._numpy), A._dtype),
                                     (np.asarray(r, dtype=A._dtype._numpy), A._dtype)], ("Q", "R"), mode=mode)


@op("qr", module="linalg")
def linalg_qr(A: Tensor, mode: str = "reduced") -> Any:
    return ReturnTypes("linalg_qr", *_qr_outputs(A, mode), fields=("Q", "R"))


@op()
def qr(input: Tensor, some: bool = True) -> Any:
    warn_once("UserWarning", "torch.qr is deprecated in favor of torch.linalg.qr and will be removed in a future "
                             "PyTorch release.\nThe boolean parameter 'some' has been replaced with a string "
                             "parameter 'mode'.\nQ, R = torch.qr(A, some)\nshould be replaced with\nQ, R = "
                             "torch.linalg.qr(A, 'reduced' if some else 'complete')",
                             at="aten/src/ATen/native/BatchLinearAlgebra.cpp:2505")
    return ReturnTypes("qr", *_qr_outputs(input, "reduced" if some else "complete"), fields=("Q", "R"))


def _check_phase_invariance(imaginary: np.ndarray, expected: Any, vectors: str) -> None:
    """ATen's check that a loss does not depend on the phase of complex singular or eigen VECTORS
    (IMAGINARY, the imaginary parts of a diagonal, close to EXPECTED), which is not defined."""
    if not np.allclose(imaginary, expected, rtol=1e-2, atol=1e-2):
        ending = "this phase term, making it ill-defined" if vectors.startswith("svd") else \
            "this quantity, so it is ill-defined"
        raise RuntimeError(f"{vectors} in the complex case are specified up to multiplication by e^{{i phi}}. "
                           f"The specified loss function depends on {ending}.")


def _skew(X: Tensor) -> Tensor:
    return X - X.mH


def _with_unit_diagonal(X: Tensor) -> Tensor:
    """X with ones on its diagonal (ATen's in-place fill_), the divisor of 0 there."""
    diagonal = X.diagonal(0, -2, -1)
    return X.diagonal_scatter(diagonal.new_ones(diagonal.shape), 0, -2, -1)


def _svd_inner_grad(gU: Optional[Tensor], gS: Optional[Tensor], gVh: Optional[Tensor], U: Tensor, S: Tensor,
                    Vh: Tensor) -> Tensor:
    """The k x k middle of ATen's svd_backward: (skew(U^H gU) / E) S + S (skew(V^H gV) / E) +
    diag(gS) (+ the imaginary diagonal term of a complex A), E_jk = S_k^2 - S_j^2 off the diagonal."""
    UhgU = _skew(U.mH.matmul(gU)) if gU is not None else None
    VhgV = _skew(Vh.matmul(gVh.mH)) if gVh is not None else None
    if U.is_complex():
        imaginary_u, imaginary_v = (np.imag(np.diagonal(X._data, 0, -2, -1)) if X is not None else
                                    np.zeros(S.shape) for X in (UhgU, VhgV))
        _check_phase_invariance(imaginary_u, -imaginary_v, "svd_backward: The singular vectors")
    squares = S * S
    E = _with_unit_diagonal(squares.unsqueeze(-2) - squares.unsqueeze(-1))
    if UhgU is not None and VhgV is not None:
        inner = (UhgU * S.unsqueeze(-2) + S.unsqueeze(-1) * VhgV) / E
    elif UhgU is not None:
        inner = (UhgU / E) * S.unsqueeze(-2)
    else:
        inner = S.unsqueeze(-1) * (VhgV / E)
    if gS is not None:
        inner = inner + gS.diag_embed()
    if U.is_complex() and UhgU is not None and VhgV is not None:
        inner = inner + (UhgU.diagonal(0, -2, -1) / (2. * S)).diag_embed()
    return inner


def _svd_grad(grads: Any, S: Tensor, U: Tensor, Vh: Tensor, full_matrices: bool) -> Optional[Tensor]:
    """ATen's svd_backward, op for op (so its products go to MKL as ATen's do), on U, Vh and
    their gradients narrowed to the k singular values when FULL_MATRICES, as derivatives.yaml
    calls it."""
    gU, gS, gVh = output_grads(grads, 3)
    k = S.shape[-1]
    if full_matrices and (gU is not None or gVh is not None) and U.shape[-1] != Vh.shape[-2]:
        raise RuntimeError("svd_backward: Setting full_matrices=True in linalg.svd while computing gradients "
                           "with respect to U or Vh is not supported. Use full_matrices=False instead.")
    if full_matrices:
        U, Vh = U.narrow(-1, 0, k), Vh.narrow(-2, 0, k)
        gU = gU.narrow(-1, 0, k) if gU is not None else None
        gVh = gVh.narrow(-2, 0, k) if gVh is not None else None
    if gU is None and gS is None and gVh is None:
        return None
    m, n = U.shape[-2], Vh.shape[-1]
    if gU is None and gVh is None:  # svdvals: U diag(gS) Vh
        return U.matmul(gS.unsqueeze(-1) * Vh) if m >= n else (U * gS.unsqueeze(-2)).matmul(Vh)
    gA = _svd_inner_grad(gU, gS, gVh, U, S, Vh)
    if m > n and gU is not None:  # [U gA + (I_m - U U^H) gU S^-1] V^H
        gA = U.matmul(gA)
        gU_by_S = gU / S.unsqueeze(-2)
        gA = gA + gU_by_S - U.matmul(U.mH.matmul(gU_by_S))
        return gA.matmul(Vh)
    if m < n and gVh is not None:  # U [gA V^H + S^-1 gV^H (I_n - V V^H)]
        gA = gA.matmul(Vh)
        gVh_by_S = gVh / S.unsqueeze(-1)
        gA = gA + gVh_by_S - gVh_by_S.matmul(Vh.mH).matmul(Vh)
        return U.matmul(gA)
    return U.matmul(gA.matmul(Vh)) if m >= n else U.matmul(gA).matmul(Vh)


SVD = node("LinalgSvdBackward0", ("A",), multi_output=True, saved=("S_sym_argsize_minus_1",),
           A=lambda grads, S, U, Vh, full_matrices: _svd_grad(grads, S, U, Vh, full_matrices))


def needs_vectors(A: Tensor) -> bool:
    """ATen's _may_require_fw_or_bw_grad: svdvals and eigvalsh compute the vectors too only
    where a gradient may need them, and LAPACK's values differ in their last digits then."""
    return (A.requires_grad and grad_mode.is_grad_enabled()) or forward_mode.has_tangent(A)


def _svd_outputs(A: Tensor, full_matrices: bool, name: str, vectors: bool = True) -> tuple:
    check_matrix(A, name, square=False)
    check_svd_input(A._data)
    through_mkl = mkl_lapack.gesdd(A._data, full_matrices, vectors)
    if through_mkl is not None and not np.any(through_mkl[3]):
        u, s, vh, _ = through_mkl
        if not vectors:  # not returned: svdvals gives S alone
            u, vh = np.zeros(A.shape[:-1] + (s.shape[-1],), A._dtype._numpy), np.zeros(s.shape + A.shape[-1:],
                                                                                       A._dtype._numpy)
    else:
        u, s, vh = np.linalg.svd(A._data, full_matrices=full_matrices)
    real = A._dtype.to_real() if A._dtype.is_complex else A._dtype
    return record_outputs(SVD, (A,), [(np.asarray(u, dtype=A._dtype._numpy), A._dtype),
                                      (np.asarray(s, dtype=real._numpy), real),
                                      (np.asarray(vh, dtype=A._dtype._numpy), A._dtype)], ("U", "S", "Vh"),
                          full_matrices=full_matrices, S_sym_argsize_minus_1=s.shape[-1])


@op("svd", module="linalg")
def linalg_svd(A: Tensor, full_matrices: bool = True, *, driver: Optional[str] = None) -> Any:
    return ReturnTypes("linalg_svd", *_svd_outputs(A, full_matrices, "linalg.svd"), fields=("U", "S", "Vh"))


@op()
def svd(input: Tensor, some: bool = True, compute_uv: bool = True) -> Any:
    U, S, Vh = _svd_outputs(input, not some, "linalg.svd")
    if not compute_uv:
        U, Vh = U.new_zeros(U.shape).detach(), Vh.new_zeros(Vh.shape).detach()
    return ReturnTypes("svd", U, S, Vh.mH, fields=("U", "S", "V"))


@op(module="linalg")
def svdvals(A: Tensor, *, driver: Optional[str] = None) -> Tensor:
    return _svd_outputs(A, False, "linalg.svd", needs_vectors(A))[1]


def _eigh_grad(grads: Any, eigenvalues: Tensor, eigenvectors: Tensor) -> Optional[Tensor]:
    """ATen's linalg_eig_backward for a Hermitian A, op for op (so its products go to MKL as
    ATen's do): V (skew-Hermitian part of V^H gV / E, diag(gL) on its diagonal) V^H, E_ij =
    L_j - L_i off the diagonal."""
    gL, gV = output_grads(grads, 2)
    V = eigenvectors
    if gV is None:
        return (V * gL.unsqueeze(-2)).matmul(V.mH) if gL is not None else None
    VhgV = V.mH.matmul(gV)
    if V.is_complex():
        _check_phase_invariance(np.imag(np.diagonal(VhgV._data, 0, -2, -1)), 0,
                                "linalg_eigh_backward: The eigenvectors")
    VhgV = 0.5 * (VhgV - VhgV.mH)  # onto the tangent space of the unitary matrices at the identity
    E = _with_unit_diagonal(eigenvalues.unsqueeze(-2) - eigenvalues.unsqueeze(-1))
    gA = VhgV / E
    if gL is not None:
        gA = gA.diagonal_scatter(gL.to(gA.dtype), 0, -2, -1)
    return V.matmul(gA.matmul(V.mH))


EIGH = node("LinalgEighBackward0", ("A",), multi_output=True,
            A=lambda grads, eigenvalues, eigenvectors: _eigh_grad(grads, eigenvalues, eigenvectors))


def _eigh_outputs(A: Tensor, UPLO: str, name: str, with_vectors: bool = True) -> tuple:
    if A.ndim >= 2 and A._dtype.category < dtypes.FLOATING:  # (linalg_eigh has no dtype check but its kernel's)
        _check_square(A, name)
        raise not_implemented_for("linalg_eigh_cpu", A._dtype)
    check_matrix(A, name)
    if UPLO not in ("L", "U"):
        raise RuntimeError(f"Expected UPLO argument to be 'L' or 'U', but got {UPLO}")
    through_mkl = mkl_lapack.syevd(A._data, UPLO == "U", with_vectors)
    if through_mkl is not None and not np.any(through_mkl[2]):
        values, vectors, _ = through_mkl  # without with_vectors, LAPACK's workspace: eigvalsh gives values alone
    else:
        values, vectors = np.linalg.eigh(A._data, UPLO=UPLO)
    real = A._dtype.to_real() if A._dtype.is_complex else A._dtype
    return record_outputs(EIGH, (A,), [(np.asarray(values, dtype=real._numpy), real),
                                       (np.asarray(vectors, dtype=A._dtype._numpy), A._dtype)],
                          ("eigenvalues", "eigenvectors"))


@op(module="linalg")
def eigh(input: Tensor, UPLO: str = "L") -> Any:
    return ReturnTypes("linalg_eigh", *_eigh_outputs(input, UPLO, "linalg.eigh"),
                       fields=("eigenvalues", "eigenvectors"))


@op(module="linalg")
def eigvalsh(input: Tensor, UPLO: str = "L") -> Tensor:
    return _eigh_outputs(input, UPLO, "linalg.eigh", needs_vectors(input))[0]


def _eig_grad(grads: Any, eigenvalues: Tensor, eigenvectors: Tensor, complex_input: bool) -> Optional[Tensor]:
    """ATen's linalg_eig_backward for a general A, op for op: V^-H (diag(gL) + (V^H gV - V^H V
    Re(diag(V^H gV))) / E*) V^H, the V^-H by a solve with V^H (real for a real A)."""
    gL, gV = output_grads(grads, 2)
    V, L = eigenvectors, eigenvalues
    if gV is None:
        if gL is None:
            return None
        gA = solve(V.mH, gL.unsqueeze(-1) * V.mH)
    else:
        VhgV = V.mH.matmul(gV)
        diagonal = VhgV.diagonal(0, -2, -1)
        _check_phase_invariance(diagonal.imag._data, 0, "linalg_eig_backward: The eigenvectors")
        # onto the tangent space of the matrices with columns of norm 1
        VhgV = VhgV - V.mH.matmul(V * diagonal.real.unsqueeze(-2))
        conjugates = L.conj()
        gA = VhgV / _with_unit_diagonal(conjugates.unsqueeze(-2) - conjugates.unsqueeze(-1))
        if gL is not None:
            gA = gA.diagonal_scatter(gL, 0, -2, -1)
        gA = solve(V.mH, gA.matmul(V.mH))
    return gA if complex_input else gA.real


EIG = node("LinalgEigBackward0", ("A",), multi_output=True,
           A=lambda grads, eigenvalues, eigenvectors, _complex_input: _eig_grad(grads, eigenvalues, eigenvectors,
                                                                                 _complex_input))


def _eig_outputs(A: Tensor, with_vectors: bool = True) -> tuple:
    check_matrix(A, "linalg.eig")
    if not np.isfinite(A._data).all():
        raise RuntimeError("torch.linalg.eig: input tensor should not contain infs or NaNs.")
    complex_dtype = A._dtype if A._dtype.is_complex else A._dtype.to_complex()
    through_mkl = mkl_lapack.geev(A._data, with_vectors)
    if through_mkl is not None and not np.any(through_mkl[2]):
        values, vectors, _ = through_mkl  # without with_vectors, eigvals gives values alone
        vectors = np.zeros(A.shape, complex_dtype._numpy) if vectors is None else vectors
    else:
        values, vectors = np.linalg.eig(A._data)
    return record_outputs(EIG, (A,), [(np.asarray(values, dtype=complex_dtype._numpy), complex_dtype),
                                       (np.asarray(vectors, dtype=complex_dtype._numpy), complex_dtype)],
                          ("eigenvalues", "eigenvectors"), _complex_input=A._dtype.is_complex)


@op(module="linalg")
def eig(input: Tensor) -> Any:
    return ReturnTypes("linalg_eig", *_eig_outputs(input), fields=("eigenvalues", "eigenvectors"))


@op(module="linalg")
def eigvals(input: Tensor) -> Tensor:
    return _eig_outputs(input, needs_vectors(input))[0]
