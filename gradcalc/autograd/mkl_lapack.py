"""MKL's LAPACK where ATen calls it for torch.linalg (with the `mkl` extra): each routine on
float32/float64 matrices laid out as ATen lays them out (a fresh batched column-major copy, c10's
alignment), so MKL takes PyTorch's path. Every function returns None when the backend is not in
use, so callers fall back to the emulation."""
from __future__ import annotations

import ctypes
from typing import Callable, Optional

import numpy as np

from .mkl import address_of, blas_routine, fresh, fresh_copy, int_refs, native


def _column_major(x: np.ndarray) -> np.ndarray:
    """X (..., m, n) copied into a fresh batched column-major storage, as ATen's
    batched_matrix_contiguous_strides(column_major) lays out its LAPACK workspaces."""
    return np.swapaxes(fresh_copy(np.swapaxes(x, -1, -2)), -1, -2)


def _matrices(x: np.ndarray) -> list:
    """Each matrix of a batched column-major X, as a view of its storage."""
    return list(x.reshape((-1,) + x.shape[-2:])) if x.ndim > 2 else [x]


def _usable(*arrays: np.ndarray) -> Optional[tuple]:
    """(routine factory, ctypes scalar type) when MKL is in use for these arrays' dtype."""
    dtype = arrays[0].dtype
    if any(a.dtype != dtype for a in arrays) or any(size >= 1 << 31 for a in arrays for size in a.shape):
        return None
    _, kind = blas_routine("getrf", dtype)
    if kind is None:
        return None
    return (lambda name: blas_routine(name, dtype)[0]), kind


@native
def potrf(matrix: np.ndarray, upper: bool) -> Optional[tuple]:
    """linalg.cholesky of one float32/float64 matrix as ATen's apply_cholesky computes it: ?potrf_
    on a column-major copy (reading the triangle it names), the other triangle then zeroed.
    (factor, info): info > 0 is the order of the leading minor that is not positive-definite."""
    usable = _usable(matrix)
    n = matrix.shape[0]
    if usable is None or not n:
        return None
    routine, kind = usable[0]("potrf"), usable[1]
    factor = _column_major(matrix)
    info = ctypes.c_int(0)
    routine(ctypes.c_char_p(b"U" if upper else b"L"), *int_refs(n), address_of(factor, kind), *int_refs(n),
            ctypes.byref(info))
    return (np.triu(factor) if upper else np.tril(factor)), info.value


def _getrf(routine: Callable, kind: type, lu: np.ndarray) -> tuple:
    """?getrf_ on each matrix of the batched column-major LU, in place: (pivots, info)."""
    m, n = lu.shape[-2:]
    pivots = np.zeros(lu.shape[:-2] + (min(m, n),), np.int32)
    info = np.zeros(lu.shape[:-2], np.int32)
    status = ctypes.c_int(0)
    for matrix, row, index in zip(_matrices(lu), pivots.reshape(-1, min(m, n)), np.ndindex(info.shape)):
        routine(*int_refs(m, n), address_of(matrix, kind), *int_refs(max(1, m)),
                row.ctypes.data_as(ctypes.POINTER(ctypes.c_int)), ctypes.byref(status))
        info[index] = status.value
    return pivots, info


@native
def lu_factor(a: np.ndarray) -> Optional[tuple]:
    """ATen's linalg_lu_factor_ex with pivoting: A (..., m, n) copied into a batched column-major
    LU, factored by ?getrf_ matrix by matrix. (LU, pivots 1-based int32, info)."""
    usable = _usable(a)
    if usable is None or not a.size:
        return None
    lu = _column_major(a)
    pivots, info = _getrf(usable[0]("getrf"), usable[1], lu)
    return lu, pivots, info


def _getrs(routine: Callable, kind: type, lu: np.ndarray, pivots: np.ndarray, b: np.ndarray,
           transposed: bool) -> None:
    """ATen's apply_lu_solve: ?getrs_ on each matrix of the batched column-major B, in place,
    with the same batch's factor (LU column-major, of B's batch shape)."""
    n, columns = b.shape[-2:]
    status = ctypes.c_int(0)
    for factor, row, matrix in zip(_matrices(lu), pivots.reshape(-1, n), _matrices(b)):
        routine(ctypes.c_char_p(b"T" if transposed else b"N"), *int_refs(n, columns), address_of(factor, kind),
                *int_refs(max(1, n)), row.ctypes.data_as(ctypes.POINTER(ctypes.c_int)), address_of(matrix, kind),
                *int_refs(max(1, n)), ctypes.byref(status))


def _solved(usable: tuple, lu: np.ndarray, pivots: np.ndarray, b: np.ndarray, left: bool, adjoint: bool) -> np.ndarray:
    """ATen's linalg_lu_solve on a column-major LU: X with op(A) X = B (left) or X op(A) = B, B
    copied column-major (B^H for a right-hand solve, whose X^H is solved for)."""
    if not left:
        adjoint, b = not adjoint, np.swapaxes(b, -1, -2)
    result = _column_major(b)
    _getrs(usable[0]("getrs"), usable[1], lu, np.ascontiguousarray(pivots), result, adjoint)
    return result if left else np.swapaxes(result, -1, -2)


@native
def lu_solve(lu: np.ndarray, pivots: np.ndarray, b: np.ndarray, left: bool, adjoint: bool) -> Optional[np.ndarray]:
    """torch.linalg.lu_solve as ATen computes it: the factor used where it lies column-major,
    else copied so; batch shapes must agree (broadcasts stay on the emulation)."""
    usable = _usable(lu, b)
    if usable is None or not b.size or lu.shape[:-2] != b.shape[:-2]:
        return None
    column_major = lu.ndim >= 2 and np.swapaxes(lu, -1, -2).flags.c_contiguous
    return _solved(usable, lu if column_major else _column_major(lu), pivots, b, left, adjoint)


@native
def solve(a: np.ndarray, b: np.ndarray, left: bool) -> Optional[tuple]:
    """ATen's _linalg_solve_ex for a matrix right-hand side B of A's batch shape: A's LU, then
    its solve. (X, LU, pivots, info)."""
    usable = _usable(a, b)
    if usable is None or not b.size or not a.size or a.shape[:-2] != b.shape[:-2]:
        return None
    lu, pivots, info = lu_factor(a)
    return _solved(usable, lu, pivots, b, left, False), lu, pivots, info


@native
def det_factor(a: np.ndarray) -> Optional[tuple]:
    """The LU behind ATen's linalg.det and slogdet: of A^T when A is contiguous (the same
    determinant), else of A. (LU, pivots, info)."""
    return lu_factor(np.swapaxes(a, -1, -2) if a.flags.c_contiguous else a)
