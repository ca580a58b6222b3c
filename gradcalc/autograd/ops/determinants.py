"""Determinants, from the LU factorisation (MKL's getrf when the backend is in use, of A^T for
a contiguous A as ATen's), with PyTorch's backward formulas: det, slogdet and logdet."""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from .. import dtypes, mkl_lapack
from ..tensor import Tensor
from .common import ReturnTypes, zeros_like
from .decompositions import check_matrix, check_precision, lu_factor_arrays, output_grads, svd
from .indexing import where
from .registry import node, op, record, record_outputs


def _det_grad(grad: Tensor, A: Tensor, result: Tensor) -> Tensor:
    scaled = (grad * result.conj()).unsqueeze(-1).unsqueeze(-1)
    if not np.any(result._data == 0):
        return scaled * A.inverse().mH
    # a singular matrix: d det / dA is the adjugate, from the SVD A = U S Vh
    U, S, Vh = svd(A)
    others = Tensor._make(np.stack([np.prod(np.delete(S._data, i, axis=-1), axis=-1) for i in range(S.shape[-1])],
                                   axis=-1), S._dtype)
    sign = Tensor._make(np.linalg.det(U._data) * np.linalg.det(Vh._data), A._dtype)
    return (grad * sign).unsqueeze(-1).unsqueeze(-1) * (U * others.unsqueeze(-2)).matmul(Vh).conj()


DET = node("LinalgDetBackward0", ("A",), saved=("A", "LU", "pivots", "result"),
           A=lambda grad, A, result: _det_grad(grad, A, result))
SLOGDET = node("LinalgSlogdetBackward0", ("A",), multi_output=True, saved=("A", "LU", "pivots", "sign"),
               A=lambda grads, A, sign: _slogdet_grad(grads, A, sign))


def _slogdet_grad(grads: Any, A: Tensor, sign: Tensor) -> Tensor:
    _, g_logabsdet = output_grads(grads, 2)
    if g_logabsdet is None:
        return zeros_like(A)
    return g_logabsdet.unsqueeze(-1).unsqueeze(-1) * A.inverse().mH


def _lu_params(A: Tensor) -> dict:
    lu, pivots, _ = lu_factor_arrays(A._data)
    return {"LU": Tensor._make(lu, A._dtype), "pivots": Tensor._make(pivots, dtypes.int32)}


@op(module="linalg", nodes=(DET,))
def det(A: Tensor) -> Tensor:
    check_matrix(A, "linalg.det")
    # as torch: the product of U's diagonal from the LU factorisation, signed by the row interchanges
    if A._data.size:
        # MKL's factor is of A^T when A is contiguous, as ATen's
        lu, pivots, _ = mkl_lapack.det_factor(A._data) or lu_factor_arrays(A._data)
        product = _permutation_sign(pivots) * np.prod(np.diagonal(lu, axis1=-2, axis2=-1), axis=-1)
    else:  # the determinant of an empty matrix is 1
        product = np.ones(A.shape[:-2])
    data = np.asarray(product, dtype=A._dtype._numpy)
    return record(DET, (A,), data, A._dtype, **_lu_params(A))


@op("det")
def torch_det(input: Tensor) -> Tensor:
    return det(input)


def _permutation_sign(pivots: np.ndarray) -> np.ndarray:
    """ATen's lu_det_P: the determinant of LAPACK's row interchanges, -1 for an odd count."""
    swaps = np.count_nonzero(pivots != np.arange(1, pivots.shape[-1] + 1), axis=-1)
    return np.where(swaps % 2, -1, 1)


def _slogdet_outputs(A: Tensor, name: str) -> tuple:
    check_matrix(A, name)
    factors = mkl_lapack.det_factor(A._data) if not A._dtype.is_complex else None
    if factors is not None:
        # ATen's _linalg_slogdet: from U's diagonal, its signs' product and its log-magnitudes' sum
        # (the ops themselves, so log is MKL's and the sum adds in ATen's order)
        lu, pivots, _ = factors
        diagonal = Tensor._make(np.diagonal(lu, axis1=-2, axis2=-1), A._dtype)
        sign = np.prod(np.sign(diagonal._data), axis=-1) * _permutation_sign(pivots)
        logabsdet = diagonal.abs().log().sum(-1)._data
    else:
        sign, logabsdet = np.linalg.slogdet(A._data)
    real = A._dtype.to_real() if A._dtype.is_complex else A._dtype
    return record_outputs(SLOGDET, (A,), [(np.asarray(sign, dtype=A._dtype._numpy), A._dtype),
                                          (np.asarray(logabsdet, dtype=real._numpy), real)],
                          ("sign", "logabsdet"), **_lu_params(A))


@op("slogdet", module="linalg")
def linalg_slogdet(A: Tensor) -> Any:
    return ReturnTypes("linalg_slogdet", *_slogdet_outputs(A, "linalg.slogdet"), fields=("sign", "logabsdet"))


@op("slogdet")
def torch_slogdet(input: Tensor) -> Any:
    return ReturnTypes("slogdet", *_slogdet_outputs(input, "linalg.slogdet"), fields=("sign", "logabsdet"))


@op()
def logdet(input: Tensor) -> Tensor:
    # PyTorch's composite: nan where the determinant is negative
    check_precision(input, "logdet")  # (its own check, before slogdet's)
    sign, logabsdet = _slogdet_outputs(input, "linalg.slogdet")
    if input._dtype.is_complex:
        return sign.log() + logabsdet
    return where(sign == -1, math.nan, logabsdet)
