"""MKL's LAPACK where ATen calls it for torch.linalg (with the `mkl` extra): each routine on
float32/float64 matrices laid out as ATen lays them out (a fresh batched column-major copy, c10's
alignment), so MKL takes PyTorch's path. Every function returns None when the backend is not in
use, so callers fall back to the emulation."""
from __future__ import annotations

import ctypes
from typing import Callable, Optional

import numpy as np

from .mkl import address_of, blas_routine, fresh, fresh_copy, int_refs, native, placed


def _column_major(x: np.ndarray) -> np.ndarray:
    """X (..., m, n) copied into a fresh batched column-major storage, as ATen's
    batched_matrix_contiguous_strides(column_major) lays out its LAPACK workspaces."""
    return np.swapaxes(fresh_copy(np.swapaxes(x, -1, -2)), -1, -2)


def _matrices(x: np.ndarray) -> list:
    """Each matrix of a batched X, as a view of its storage, in order."""
    return [x[index] for index in np.ndindex(x.shape[:-2])]


def _char(flag: str) -> ctypes.c_char_p:
    return ctypes.c_char_p(flag.encode())


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
    if usable is None or not n or matrix.shape != (n, n):
        return None
    routine, kind = usable[0]("potrf"), usable[1]
    factor = _column_major(matrix)
    info = ctypes.c_int(0)
    routine(_char("U" if upper else "L"), *int_refs(n), address_of(factor, kind), *int_refs(n),
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
        routine(_char("T" if transposed else "N"), *int_refs(n, columns), address_of(factor, kind),
                *int_refs(max(1, n)), row.ctypes.data_as(ctypes.POINTER(ctypes.c_int)), address_of(matrix, kind),
                *int_refs(max(1, n)), ctypes.byref(status))


def _batch_shape(*arrays: np.ndarray) -> Optional[tuple]:
    """The batch shape the matrices of ARRAYS broadcast to (ATen's _linalg_broadcast_batch_dims);
    None when they do not."""
    try:
        return np.broadcast_shapes(*(x.shape[:-2] for x in arrays))
    except ValueError:
        return None


def _broadcast(x: np.ndarray, batch: tuple, trailing: int = 2) -> np.ndarray:
    """X's matrices (its vectors: TRAILING 1) viewed over BATCH, each batch element at its own's."""
    return np.broadcast_to(x, batch + x.shape[x.ndim - trailing:])


def _solved(usable: tuple, lu: np.ndarray, pivots: np.ndarray, b: np.ndarray, left: bool, adjoint: bool) -> np.ndarray:
    """ATen's linalg_lu_solve on a column-major LU: X with op(A) X = B (left) or X op(A) = B, B
    copied column-major (B^H for a right-hand solve, whose X^H is solved for) over the batch
    shape LU's and B's broadcast to, each of B's matrices solved with its own of LU's."""
    if not left:
        adjoint, b = not adjoint, np.swapaxes(b, -1, -2)
    batch = _batch_shape(lu, b)
    result = _column_major(_broadcast(b, batch))
    _getrs(usable[0]("getrs"), usable[1], _broadcast(lu, batch),
           _broadcast(np.ascontiguousarray(pivots, dtype=np.int32), batch, 1), result, adjoint)
    return result if left else np.swapaxes(result, -1, -2)


@native
def lu_solve(lu: np.ndarray, pivots: np.ndarray, b: np.ndarray, left: bool, adjoint: bool) -> Optional[np.ndarray]:
    """torch.linalg.lu_solve as ATen computes it: the factor used where it lies column-major,
    else copied so; batch shapes broadcast."""
    usable = _usable(lu, b)
    n = lu.shape[-1]
    if usable is None or not b.size or _batch_shape(lu, b) is None or lu.shape[-2] != n or \
            b.shape[-2 if left else -1] != n or pivots.shape != lu.shape[:-1] or \
            not np.all((pivots >= 1) & (pivots <= n)):
        return None  # the emulation's own checks speak for anything LAPACK would be handed wrong
    column_major = lu.ndim >= 2 and np.swapaxes(lu, -1, -2).flags.c_contiguous
    # placed: held until the calls return, at its storage's alignment
    return _solved(usable, placed(lu) if column_major else _column_major(lu), pivots, b, left, adjoint)


@native
def solve(a: np.ndarray, b: np.ndarray, left: bool) -> Optional[tuple]:
    """ATen's _linalg_solve_ex for a matrix right-hand side B: A's LU (of A's own batch shape),
    then its solve over the batch shape A's and B's broadcast to. (X, LU, pivots, info)."""
    usable = _usable(a, b)
    n = a.shape[-1]
    if usable is None or not b.size or not a.size or _batch_shape(a, b) is None or a.shape[-2] != n or \
            b.shape[-2 if left else -1] != n:
        return None
    lu, pivots, info = lu_factor(a)
    return _solved(usable, lu, pivots, b, left, False), lu, pivots, info


@native
def det_factor(a: np.ndarray) -> Optional[tuple]:
    """The LU behind ATen's linalg.det and slogdet: of A^T when A is contiguous (the same
    determinant), else of A. (LU, pivots, info)."""
    return lu_factor(np.swapaxes(a, -1, -2) if a.flags.c_contiguous else a)


def _work_size(query: float, dtype: np.dtype) -> int:
    """ATen's lapack_work_to_int: a workspace size LAPACK reported as a float, one unit in the
    last place up (a large size may not be exact), at least 1."""
    return max(1, int(np.ceil(np.nextafter(dtype.type(query), dtype.type(np.inf)))))


@native
def syevd(a: np.ndarray, upper: bool, vectors: bool) -> Optional[tuple]:
    """linalg.eigh (VECTORS) or eigvalsh as ATen's apply_lapack_eigh computes them: ?syevd_ on a
    batched column-major copy of A reading the triangle UPLO names, its workspaces as the first
    call's query sizes them. (eigenvalues, eigenvectors, info); the matrices after one that
    failed are left as they were, as ATen returns early."""
    usable = _usable(a)
    if usable is None or not a.size or a.shape[-1] != a.shape[-2]:
        return None
    routine, kind = usable[0]("syevd"), usable[1]
    n = a.shape[-1]
    result = _column_major(a)
    values = fresh(a.shape[:-1], a.dtype)
    info = np.zeros(a.shape[:-2], np.int32)
    jobz, uplo = _char("V" if vectors else "N"), _char("U" if upper else "L")
    query, integer_query, status = kind(0), ctypes.c_int(0), ctypes.c_int(0)
    routine(jobz, uplo, *int_refs(n), address_of(result, kind), *int_refs(n), address_of(values, kind),
            ctypes.byref(query), *int_refs(-1), ctypes.byref(integer_query), *int_refs(-1), ctypes.byref(status))
    work = fresh((_work_size(query.value, a.dtype),), a.dtype)
    integer_work = np.zeros(max(1, integer_query.value), np.int32)
    for matrix, eigenvalues, index in zip(_matrices(result), values.reshape(-1, n), np.ndindex(info.shape)):
        routine(jobz, uplo, *int_refs(n), address_of(matrix, kind), *int_refs(n), address_of(eigenvalues, kind),
                address_of(work, kind), *int_refs(work.size), integer_work.ctypes.data_as(ctypes.POINTER(ctypes.c_int)),
                *int_refs(integer_work.size), ctypes.byref(status))
        info[index] = status.value
        if status.value:
            break
    return values, result, info


@native
def gesdd(a: np.ndarray, full_matrices: bool, vectors: bool) -> Optional[tuple]:
    """linalg.svd (VECTORS) or svdvals as ATen's apply_svd computes them: ?gesdd_ on a batched
    column-major copy of A, into column-major U and Vh (m x m and n x n when FULL_MATRICES, else
    m x k and k x n), its workspace as the first call's query sizes it. (U, S, Vh, info); U and
    Vh None without VECTORS."""
    usable = _usable(a)
    m, n = a.shape[-2:]
    if usable is None or not m or not n:
        return None
    routine, kind = usable[0]("gesdd"), usable[1]
    k, batch = min(m, n), a.shape[:-2]
    work_matrix = _column_major(a)
    values = fresh(batch + (k,), a.dtype)
    columns, rows = (m, n) if full_matrices else (k, k)
    u = np.swapaxes(fresh(batch + (columns, m), a.dtype), -1, -2) if vectors else None
    vh = np.swapaxes(fresh(batch + (n, rows), a.dtype), -1, -2) if vectors else None
    ldu, ldvh = (m, rows) if vectors else (1, 1)
    jobz = _char(("A" if full_matrices else "S") if vectors else "N")
    integer_work = np.zeros(8 * k, np.int32)
    info = np.zeros(batch, np.int32)
    query, status = kind(0), ctypes.c_int(0)
    null = ctypes.POINTER(kind)()

    def call(matrix: np.ndarray, singular: np.ndarray, left: Optional[np.ndarray], right: Optional[np.ndarray],
             work: object, size: int) -> None:
        routine(jobz, *int_refs(m, n), address_of(matrix, kind), *int_refs(m), address_of(singular, kind),
                null if left is None else address_of(left, kind), *int_refs(ldu),
                null if right is None else address_of(right, kind), *int_refs(ldvh), work, *int_refs(size),
                integer_work.ctypes.data_as(ctypes.POINTER(ctypes.c_int)), ctypes.byref(status))

    first = (lambda x: _matrices(x)[0]) if vectors else (lambda x: None)
    call(_matrices(work_matrix)[0], values.reshape(-1, k)[0], first(u), first(vh), ctypes.byref(query), -1)
    work = fresh((_work_size(query.value, a.dtype),), a.dtype)
    lefts = _matrices(u) if vectors else [None] * info.size
    rights = _matrices(vh) if vectors else [None] * info.size
    for matrix, singular, left, right, index in zip(_matrices(work_matrix), values.reshape(-1, k), lefts, rights,
                                                    np.ndindex(info.shape)):
        call(matrix, singular, left, right, address_of(work, kind), work.size)
        info[index] = status.value
    return u, values, vh, info


def _with_query(usable: tuple, name: str, dtype: np.dtype, pairs: list, call: Callable) -> None:
    """ATen's two-step LAPACK call: CALL once on the first of PAIRS with a workspace size of -1,
    which queries the size, then on every pair with a workspace of that size."""
    routine, kind = usable[0](name), usable[1]
    query = kind(0)
    call(routine, kind, *pairs[0], ctypes.byref(query), -1)
    work = fresh((_work_size(query.value, dtype),), dtype)
    for pair in pairs:
        call(routine, kind, *pair, address_of(work, kind), work.size)


def _geqrf(usable: tuple, qr: np.ndarray, tau: np.ndarray) -> None:
    """ATen's apply_geqrf: ?geqrf_ on each matrix of the batched column-major QR, in place."""
    m, n = qr.shape[-2:]

    def call(routine: Callable, kind: type, matrix: np.ndarray, scales: np.ndarray, work: object, size: int) -> None:
        routine(*int_refs(m, n), address_of(matrix, kind), *int_refs(max(1, m)), address_of(scales, kind), work,
                *int_refs(size), ctypes.byref(ctypes.c_int(0)))

    _with_query(usable, "geqrf", qr.dtype, list(zip(_matrices(qr), tau.reshape(-1, min(m, n)))), call)


def _orgqr(usable: tuple, q: np.ndarray, tau: np.ndarray) -> None:
    """ATen's apply_orgqr: ?orgqr_ on each matrix of the batched column-major Q, in place, from
    the reflectors it holds and TAU's scales."""
    m, n = q.shape[-2:]
    k = tau.shape[-1]

    def call(routine: Callable, kind: type, matrix: np.ndarray, scales: np.ndarray, work: object, size: int) -> None:
        routine(*int_refs(m, n, k), address_of(matrix, kind), *int_refs(max(1, m)), address_of(scales, kind), work,
                *int_refs(size), ctypes.byref(ctypes.c_int(0)))

    _with_query(usable, "orgqr", q.dtype, list(zip(_matrices(q), tau.reshape(-1, k))), call)


@native
def qr(a: np.ndarray, mode: str) -> Optional[tuple]:
    """linalg.qr as ATen's linalg_qr_out_helper computes it: ?geqrf_ on a batched column-major
    copy of A, R its upper triangle (k or, for 'complete', m rows) copied column-major, Q from
    ?orgqr_ on the reflectors copied into a column-major Q (k or, for 'complete', m columns).
    (Q or None for 'r', R)."""
    usable = _usable(a)
    m, n = a.shape[-2:]
    if usable is None or not m or not n:
        return None
    k = min(m, n)
    factored = _column_major(a)
    tau = fresh(a.shape[:-2] + (k,), a.dtype)
    _geqrf(usable, factored, tau)
    r = _column_major(np.triu(factored[..., :m if mode == "complete" else k, :]))  # its layout: its backward's
    if mode == "r":
        return None, r
    columns = m if mode == "complete" else k
    q = np.swapaxes(fresh(a.shape[:-2] + (columns, m), a.dtype), -1, -2)
    q[..., :min(n, columns)] = factored[..., :min(n, columns)]
    _orgqr(usable, q, tau)
    return q, r


@native
def geqrf(a: np.ndarray) -> Optional[tuple]:
    """torch.geqrf: ?geqrf_ on a batched column-major copy of A. (reflectors and R, tau)."""
    usable = _usable(a)
    if usable is None or not a.size:
        return None
    factored = _column_major(a)
    tau = fresh(a.shape[:-2] + (min(a.shape[-2:]),), a.dtype)
    _geqrf(usable, factored, tau)
    return factored, tau


@native
def householder_product(a: np.ndarray, tau: np.ndarray) -> Optional[np.ndarray]:
    """linalg.householder_product as ATen's householder_product_out_helper computes it: ?orgqr_
    on a batched column-major copy of A with TAU (contiguous)."""
    usable = _usable(a, tau)
    if usable is None or not a.size or tau.ndim != a.ndim - 1 or not tau.shape[-1] or \
            a.shape[:-2] != tau.shape[:-1] or not a.shape[-2] >= a.shape[-1] >= tau.shape[-1]:
        return None
    result = _column_major(a)
    _orgqr(usable, result, np.ascontiguousarray(tau))
    return result


@native
def potrs(b: np.ndarray, factor: np.ndarray, upper: bool) -> Optional[np.ndarray]:
    """torch.cholesky_solve as ATen's _cholesky_solve_helper_cpu computes it: ?potrs_ on batched
    column-major copies of B and of the Cholesky FACTOR, both broadcast to one batch shape."""
    usable = _usable(b, factor)
    batch = _batch_shape(b, factor)
    if usable is None or not b.size or not factor.size or batch is None or \
            factor.shape[-1] != factor.shape[-2] or b.shape[-2] != factor.shape[-1]:
        return None
    routine, kind = usable[0]("potrs"), usable[1]
    result, triangle = _column_major(_broadcast(b, batch)), _column_major(_broadcast(factor, batch))
    n, columns = b.shape[-2:]
    for matrix, factor_matrix in zip(_matrices(result), _matrices(triangle)):
        routine(_char("U" if upper else "L"), *int_refs(n, columns), address_of(factor_matrix, kind),
                *int_refs(max(1, n)), address_of(matrix, kind), *int_refs(max(1, n)), ctypes.byref(ctypes.c_int(0)))
    return result


@native
def trsm(a: np.ndarray, b: np.ndarray, upper: bool, left: bool, unitriangular: bool) -> Optional[np.ndarray]:
    """linalg.solve_triangular for real A and B, broadcast to one batch shape, as ATen's
    linalg_solve_triangular_out computes it: B copied into a column-major result (a result of
    one row counts as row-major: the equation is then transposed), A passed as it lies when
    each of its matrices is row- or column-major (a row-major one read as its transpose, the
    triangle swapped), else copied so; then ?trsm_ on each matrix."""
    usable = _usable(a, b)
    batch = _batch_shape(a, b)
    if usable is None or not a.size or not b.size or batch is None or a.shape[-1] != a.shape[-2] \
            or b.shape[-2 if left else -1] != a.shape[-1]:
        return None
    routine, kind = usable[0]("trsm"), usable[1]
    a, b = _broadcast(a, batch), _broadcast(b, batch)
    result = _column_major(b)
    solved = result
    transposed = result.strides[-1] == result.itemsize  # out_f.stride(-1) == 1
    if transposed:
        left, solved = not left, np.swapaxes(result, -1, -2)
    if a.flags.c_contiguous or np.swapaxes(a, -1, -2).flags.c_contiguous:
        factor, as_is = a, (a.strides[-1] == a.itemsize) == transposed
    else:
        factor, as_is = (fresh_copy(a) if transposed else _column_major(a)), True
    if factor.strides[-1] == factor.itemsize:  # read as its transpose: the other triangle
        upper = not upper
    m, n = (factor.shape[-1] if left else solved.shape[-2]), solved.shape[-1]
    one = kind(1)
    factor = placed(factor)  # held until the calls return: address_of keeps only the address
    for matrix, factor_matrix in zip(_matrices(solved), _matrices(factor)):
        routine(_char("L" if left else "R"), _char("U" if upper else "L"), _char("N" if as_is else "T"),
                _char("U" if unitriangular else "N"), *int_refs(m, n), ctypes.byref(one),
                address_of(factor_matrix, kind),
                *int_refs(max(1, factor.shape[-2])), address_of(matrix, kind), *int_refs(max(1, solved.shape[-2])))
    return result


def _square_routine(a: np.ndarray, name: str) -> Optional[tuple]:
    """(the routine NAME, its ctypes scalar type) for a non-empty batch A of square float32/float64
    matrices; None otherwise, or when MKL is not in use."""
    usable = _usable(a)
    if usable is None or not a.size or a.shape[-1] != a.shape[-2]:
        return None
    return usable[0](name), usable[1]


def _reflect_triangle(x: np.ndarray, upper: bool) -> None:
    """ATen's apply_reflect_conj_tri_single on each (real) matrix of X, in place: the triangle
    LAPACK wrote (UPPER or lower) copied onto the other."""
    rows, columns = np.tril_indices(x.shape[-1], -1)
    if upper:
        x[..., rows, columns] = x[..., columns, rows]
    else:
        x[..., columns, rows] = x[..., rows, columns]


@native
def potri(factor: np.ndarray, upper: bool) -> Optional[np.ndarray]:
    """torch.cholesky_inverse as ATen's cholesky_inverse_out_info computes it: ?potri_ on a
    batched column-major copy of the Cholesky FACTOR, then the triangle it fills reflected onto
    the other. (The caller refuses a factor with a zero on its diagonal first, as ATen's info.)"""
    found = _square_routine(factor, "potri")
    if found is None:
        return None
    (routine, kind), n = found, factor.shape[-1]
    result = _column_major(factor)
    for matrix in _matrices(result):
        routine(_char("U" if upper else "L"), *int_refs(n), address_of(matrix, kind), *int_refs(n),
                ctypes.byref(ctypes.c_int(0)))
    _reflect_triangle(result, upper)
    return result


@native
def sytrf(a: np.ndarray) -> Optional[tuple]:
    """linalg.ldl_factor_ex as ATen computes it: A's lower triangle copied into a batched
    column-major LD, ?sytrf_ on each matrix (the workspace as the first call's query sizes it,
    truncated). (LD, pivots 1-based int32, negative for a 2x2 block, info)."""
    found = _square_routine(a, "sytrf")
    if found is None:
        return None
    (routine, kind), n = found, a.shape[-1]
    factor = _column_major(np.tril(a))
    pivots = np.zeros(a.shape[:-1], np.int32)
    info = np.zeros(a.shape[:-2], np.int32)
    status = ctypes.c_int(0)

    def call(routine: Callable, kind: type, matrix: np.ndarray, row: np.ndarray, work: object, size: int) -> None:
        routine(_char("L"), *int_refs(n), address_of(matrix, kind), *int_refs(n),
                row.ctypes.data_as(ctypes.POINTER(ctypes.c_int)), work, *int_refs(size), ctypes.byref(status))

    query = kind(0)
    call(routine, kind, _matrices(factor)[0], pivots.reshape(-1, n)[0], ctypes.byref(query), -1)
    work = fresh((max(1, int(query.value)),), a.dtype)
    for matrix, row, index in zip(_matrices(factor), pivots.reshape(-1, n), np.ndindex(info.shape)):
        call(routine, kind, matrix, row, address_of(work, kind), work.size)
        info[index] = status.value
    return factor, pivots, info


@native
def sytrs(factor: np.ndarray, pivots: np.ndarray, b: np.ndarray) -> Optional[np.ndarray]:
    """linalg.ldl_solve as ATen computes it: ?sytrs_ with the factor where it lies column-major
    (else copied so) on a batched column-major copy of B, matrix by matrix; None for batch shapes
    that differ or pivots LAPACK would read out of the matrix."""
    usable = _usable(factor, b)
    n = factor.shape[-1]
    if usable is None or not b.size or factor.shape[:-2] != b.shape[:-2] or factor.shape[-2] != n or \
            b.shape[-2] != n or pivots.shape != factor.shape[:-1] or \
            not np.all((pivots != 0) & (np.abs(pivots) <= n)):
        return None
    routine, kind = usable[0]("sytrs"), usable[1]
    column_major = np.swapaxes(factor, -1, -2).flags.c_contiguous
    factor = placed(factor) if column_major else _column_major(factor)
    result = _column_major(b)
    rows = np.ascontiguousarray(pivots, dtype=np.int32).reshape(-1, n)
    for matrix, row, solved in zip(_matrices(factor), rows, _matrices(result)):
        routine(_char("L"), *int_refs(n, b.shape[-1]), address_of(matrix, kind), *int_refs(n),
                row.ctypes.data_as(ctypes.POINTER(ctypes.c_int)), address_of(solved, kind), *int_refs(n),
                ctypes.byref(ctypes.c_int(0)))
    return result


def _complex_eigenvectors(vectors: np.ndarray, imaginary: np.ndarray) -> np.ndarray:
    """ATen's linalg_eig_make_complex_eigenvectors: geev's real columns made complex (column-major,
    as ATen's), a conjugate pair's two columns (the IMAGINARY part of its first eigenvalue
    nonzero) v + i w and v - i w."""
    result = np.swapaxes(fresh(vectors.shape, np.result_type(vectors.dtype, np.complex64)), -1, -2)
    result.real = vectors
    for matrix, source, parts in zip(_matrices(result), _matrices(vectors), imaginary.reshape(-1, vectors.shape[-1])):
        j = 0
        while j < len(parts):
            if parts[j] != 0 and j + 1 < len(parts):
                matrix[:, j].imag, matrix[:, j + 1].real, matrix[:, j + 1].imag = source[:, j + 1], source[:, j], \
                    -source[:, j + 1]
                j += 1
            j += 1
    return result


@native
def geev(a: np.ndarray, vectors: bool) -> Optional[tuple]:
    """linalg.eig (VECTORS) or eigvals of real matrices as ATen's linalg_eig_out_info computes
    them: ?geev_ (right eigenvectors only) on a batched column-major copy of A, its workspace as
    the first call's query sizes it (truncated); the eigenvalues made complex from their real
    and imaginary parts, the vectors from geev's real columns. (eigenvalues, eigenvectors or
    None, info)."""
    found = _square_routine(a, "geev")
    if found is None:
        return None
    (routine, kind), n = found, a.shape[-1]
    work_matrix = _column_major(a)
    parts = fresh(a.shape[:-2] + (2 * n,), a.dtype)  # each matrix's real parts, then its imaginary parts
    right = _column_major(np.zeros_like(a)) if vectors else None
    info = np.zeros(a.shape[:-2], np.int32)
    status, null = ctypes.c_int(0), ctypes.POINTER(kind)()

    def call(matrix: np.ndarray, values: np.ndarray, vectors_out: Optional[np.ndarray], work: object,
             size: int) -> None:
        routine(_char("N"), _char("V" if vectors else "N"), *int_refs(n), address_of(matrix, kind), *int_refs(n),
                address_of(values[:n], kind), address_of(values[n:], kind), null, *int_refs(1),
                null if vectors_out is None else address_of(vectors_out, kind), *int_refs(n if vectors else 1),
                work, *int_refs(size), ctypes.byref(status))

    rights = _matrices(right) if vectors else [None] * info.size
    query = kind(0)
    call(_matrices(work_matrix)[0], parts.reshape(-1, 2 * n)[0], rights[0], ctypes.byref(query), -1)
    work = fresh((max(1, int(query.value)),), a.dtype)
    for matrix, values, vectors_out, index in zip(_matrices(work_matrix), parts.reshape(-1, 2 * n), rights,
                                                  np.ndindex(info.shape)):
        call(matrix, values, vectors_out, address_of(work, kind), work.size)
        info[index] = status.value
    eigenvalues = fresh(a.shape[:-1], np.result_type(a.dtype, np.complex64))
    eigenvalues.real, eigenvalues.imag = parts[..., :n], parts[..., n:]
    return eigenvalues, (_complex_eigenvectors(right, parts[..., n:]) if vectors else None), info
