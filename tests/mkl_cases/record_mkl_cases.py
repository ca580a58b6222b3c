#!/usr/bin/env python3
"""Record what PyTorch 2.13 computes with its MKL on this machine (one thread, as the oracle runs)
for test_mkl_backend.py: matrix products (mm in the four layouts, addmm, linear, mv, addmv, dot,
bmm, baddbmm over stacks laid out in many ways, their gradients, batches through matmul, addbmm)
in float32 and float64 over many shapes; LAPACK behind torch.linalg (cholesky, the LU family,
triangular and Cholesky solves, also of batch shapes that broadcast, eigh, the SVD, QR and the
gradients of those three, cholesky_inverse, the LDL family, eig); torch.fft's transforms
(DFTI); and the VML
functions on 100,000 seeded float32 inputs each (10,000 float64). Inputs come from seeded numpy
generators and are copied into PyTorch's own storages (aligned as its allocator aligns them:
MKL's path for some shapes follows the alignment); the file keeps the shapes, the machine and
digests. The linalg and fft families run through one function each, which the test calls with
gradcalc's ops under torch's names.

Usage (with a Python that has torch 2.13):  python record_mkl_cases.py
writes mkl_cases_LABEL.json beside this file, LABEL the machine's (gradcalc/autograd/cpu.py).
"""
import hashlib
import json
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent

# (m, k, n): odd tails, one row, one column, 1xkx1 dot shapes, short and long sums
SHAPES = [
    (4, 16, 12), (8, 64, 32), (5, 100, 13), (16, 192, 16), (16, 193, 16), (16, 257, 16), (64, 400, 120),
    (64, 784, 128), (120, 64, 400), (129, 257, 65), (7, 400, 24), (1, 500, 20), (2, 300, 5), (3, 300, 64),
    (10, 250, 2), (64, 300, 1), (8, 400, 3), (3, 3, 3), (6, 2, 20), (7, 1, 9), (33, 17, 1), (1, 17, 33),
    (1, 8, 1), (1, 2000, 1), (1, 1, 1), (1, 3, 1), (2, 2, 2), (31, 31, 31), (100, 1000, 10), (5, 33, 7),
]
LAYOUTS = ("nn", "nt", "tn", "tt")  # whether each factor is a transposed view (as nn.Linear's W.t())
# each VML function with inputs over its domain: (scale, offset) of a uniform draw
VML = {"exp": (20, -10), "log": (100, 0), "log2": (100, 0), "log10": (100, 0), "sin": (40, -20),
       "cos": (40, -20), "tan": (6, -3), "tanh": (16, -8), "asin": (2, -1), "acos": (2, -1), "atan": (40, -20),
       "sqrt": (100, 0), "erf": (8, -4), "erfc": (8, -4), "erfinv": (2, -1)}
VML_SIZE = 100_000


def factors(seed: int, m: int, k: int, n: int, layout: str, dtype: type) -> tuple:
    """The two factors of a case, each a transposed view of a row-major array where LAYOUT says so."""
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((k, m) if layout[0] == "t" else (m, k)).astype(dtype)
    b = rng.standard_normal((n, k) if layout[1] == "t" else (k, n)).astype(dtype)
    return (a.T if layout[0] == "t" else a), (b.T if layout[1] == "t" else b)


def batches(a: np.ndarray, b: np.ndarray) -> tuple:
    """Three pairs of factors for bmm: (a, b), (a halved, b reversed), (a reversed, b doubled)."""
    return np.stack([a, a / 2, a[::-1]]), np.stack([b, b[::-1], b * 2])


def broadcast(a: np.ndarray, b: np.ndarray) -> tuple:
    """A batch of two against a batch of three, broadcast to 2x3 products."""
    first, second = batches(a, b)
    return first[:2, None], second[None]


def vector(seed: int, size: int, dtype: type) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal(size).astype(dtype)


def vml_inputs(name: str, dtype: type) -> np.ndarray:
    scale, offset = VML[name]
    size = VML_SIZE if dtype is np.float32 else VML_SIZE // 10
    return (np.random.default_rng(sorted(VML).index(name)).random(size) * scale + offset).astype(dtype)


CHOLESKY_SIZES = [1, 2, 3, 5, 8, 16, 17, 33, 64, 100]


def positive_definite(n: int, dtype: type) -> np.ndarray:
    """M M^T + n I for a seeded M of small integers: exact, so that no BLAS's order of summation
    (numpy's is pinned in the tests, not in the recording) moves its bits."""
    m = np.random.default_rng(n).integers(-9, 10, (n, n))
    return (m @ m.T + n * np.eye(n, dtype=np.int64)).astype(dtype)


# (count, m, k, n) of stacks for bmm, baddbmm and matmul with batch dimensions: one pair (a plain
# gemm), two, odd counts, one row or one column, short sums and ATen's own small products (< 400)
BATCH_SHAPES = [
    (3, 1, 500, 20), (2, 5, 33, 7), (5, 16, 193, 16), (1, 64, 300, 1), (4, 33, 17, 1), (7, 1, 17, 33),
    (17, 8, 64, 32), (2, 129, 257, 65), (6, 31, 31, 31), (3, 2, 300, 5), (1, 100, 1000, 10), (9, 4, 16, 12),
    (3, 3, 3, 3), (2, 6, 2, 20), (4, 1, 2000, 1), (2, 64, 784, 128),
]
# how each stack lies in memory: c contiguous, t each matrix transposed, p rows padded, g columns
# gapped (neither row- nor column-major), e one matrix expanded over the batch, s every other
# matrix of a larger stack
STACK_LAYOUTS = ("cc", "ct", "tc", "tt", "pt", "gc", "cg", "ce", "ec", "ss")
MATMUL_FORMS = ("broadcast", "fold", "left2d", "vector")


def stack(seed: int, count: int, rows: int, cols: int, layout: str, dtype: type) -> tuple:
    """A seeded stack of COUNT rows x cols matrices laid out as LAYOUT says: (storage, a flat
    contiguous array; shape; strides in elements; offset), for numpy and PyTorch to view alike."""
    storage_shape, view = {
        "c": ((count, rows, cols), lambda x: x),
        "t": ((count, cols, rows), lambda x: x.transpose(0, 2, 1)),
        "p": ((count, rows, cols + 3), lambda x: x[:, :, :cols]),
        "g": ((count, rows, 2 * cols), lambda x: x[:, :, ::2]),
        "e": ((1, rows, cols), lambda x: np.broadcast_to(x, (count, rows, cols))),
        "s": ((2 * count, rows, cols), lambda x: x[1::2]),
    }[layout]
    storage = np.random.default_rng(seed).standard_normal(storage_shape).astype(dtype)
    viewed = view(storage)
    offset = (viewed.__array_interface__["data"][0] - storage.__array_interface__["data"][0]) // storage.itemsize
    return storage.ravel(), viewed.shape, tuple(s // storage.itemsize for s in viewed.strides), offset


def stack_view(spec: tuple) -> np.ndarray:
    """STACK's view in numpy, of the flat storage (its base, so its alignment is the storage's)."""
    storage, shape, strides, offset = spec
    return np.lib.stride_tricks.as_strided(storage[offset:], shape, [s * storage.itemsize for s in strides])


def stacks(seed: int, shape: tuple, layout: str, dtype: type) -> tuple:
    """The two stacks of a batched case: (count, m, k) and (count, k, n)."""
    count, m, k, n = shape
    return stack(seed, count, m, k, layout[0], dtype), stack(seed + 500, count, k, n, layout[1], dtype)


def matmul_operands(seed: int, shape: tuple, form: str, dtype: type) -> tuple:
    """Contiguous operands of torch.matmul with batch dimensions in FORM: a (2, 1, m, k) against a
    (count, k, n) stack, a stack against a matrix (folded into mm), a matrix against a stack
    (expanded into bmm), a stack against a vector."""
    count, m, k, n = shape
    rng = np.random.default_rng(seed)
    first, second = {"broadcast": ((2, 1, m, k), (count, k, n)), "fold": ((count, m, k), (k, n)),
                     "left2d": ((m, k), (count, k, n)), "vector": ((count, m, k), (k,))}[form]
    return rng.standard_normal(first).astype(dtype), rng.standard_normal(second).astype(dtype)


# square sizes for the LU family: tiny, odd, past MKL's blocking (32, 64) and a batch of three
LU_SIZES = [(1,), (2,), (3,), (5,), (8,), (16,), (17,), (33,), (64,), (100,), (3, 17), (2, 40)]
LU_OPS = ("solve", "solve_right", "solve_vector", "solve_transposed", "inv", "det", "lu_factor", "lu_solve",
          "lu_solve_adjoint", "solve_grad", "slogdet", "logdet")


def lu_operands(seed: int, size: tuple, dtype: type) -> tuple:
    """A seeded square A (a batch when SIZE has two numbers) and a right-hand side B of three
    columns."""
    *batch, n = size
    rng = np.random.default_rng(seed)
    return (rng.standard_normal((*batch, n, n)).astype(dtype), rng.standard_normal((*batch, n, 3)).astype(dtype))


# shapes for eigh (square ones) and the SVD: odd sizes, past MKL's blocking, wide, tall, a batch
SPECTRAL_SHAPES = [(1, 1), (2, 2), (3, 3), (5, 5), (8, 8), (16, 16), (17, 17), (33, 33), (64, 64), (100, 100),
                   (5, 3), (3, 5), (40, 17), (17, 40), (3, 8, 8), (2, 6, 4)]
SPECTRAL_OPS = ("eigh", "eigh_upper", "eigvalsh", "svd", "svd_reduced", "svdvals", "pinv", "pinv_hermitian",
                "matrix_rank", "matrix_rank_hermitian")


def spectral_operand(seed: int, shape: tuple, op: str, dtype: type) -> np.ndarray:
    """A seeded matrix (batch) for OP: symmetric for eigh and the hermitian forms (M + M^T, exactly
    so), any for the SVD."""
    m = np.random.default_rng(seed).standard_normal(shape).astype(dtype)
    return m + np.swapaxes(m, -1, -2) if op.startswith("eig") or op.endswith("hermitian") else m


QR_SHAPES = [(1, 1), (3, 3), (5, 3), (3, 5), (17, 17), (33, 33), (40, 17), (17, 40), (64, 64), (100, 100), (100, 70),
             (3, 8, 8), (2, 6, 4)]
QR_OPS = ("qr", "qr_complete", "qr_r", "geqrf", "householder_product")


# the gradients of eigh, the SVD, QR and pinv, whose backward formulas' products go to MKL: each op is
# a decomposition and which of its outputs a loss weights with seeded gradients (one output
# alone takes another branch of ATen's formula than several)
GRADIENT_OPS = {"eigh_grad": ("eigh", (0, 1)), "eigh_grad_vectors": ("eigh", (1,)),
                "eigvalsh_grad": ("eigvalsh", (0,)), "svd_grad": ("svd", (0, 1, 2)), "svd_grad_u": ("svd", (0,)),
                "svd_grad_vh": ("svd", (2,)), "svd_grad_us": ("svd", (0, 1)), "svdvals_grad": ("svdvals", (0,)),
                "svd_full_grad_s": ("svd_full", (1,)), "svd_full_grad": ("svd_full", (0, 1, 2)),
                "qr_grad": ("qr", (0, 1)), "qr_grad_q": ("qr", (0,)), "qr_grad_r": ("qr", (1,)),
                "qr_complete_grad": ("qr_complete", (0, 1)), "pinv_grad": ("pinv", (0,))}


def gradient_outputs(torch, op: str, seed: int, shape: tuple, dtype: type) -> list:
    """The gradient of a seeded A through eigh, the SVD, QR or pinv, through TORCH, of the sum of the
    used outputs each times a seeded weight (so their gradients are the weights, bit for bit);
    none where the op is not differentiable: eigh of a matrix that is not square, the full SVD's
    vectors or the complete QR of a tall one."""
    decomposition, used = GRADIENT_OPS[op]
    square, tall = shape[-1] == shape[-2], shape[-2] > shape[-1]
    if (op.startswith("eig") or op == "svd_full_grad") and not square or (decomposition == "qr_complete" and tall):
        return []
    a = torch.from_numpy(spectral_operand(seed, shape, op, dtype)).clone().requires_grad_()
    linalg = torch.linalg
    outputs = {"eigh": lambda: linalg.eigh(a), "eigvalsh": lambda: [linalg.eigvalsh(a)],
               "svd": lambda: linalg.svd(a, full_matrices=False), "svd_full": lambda: linalg.svd(a),
               "svdvals": lambda: [linalg.svdvals(a)], "qr": lambda: linalg.qr(a),
               "qr_complete": lambda: linalg.qr(a, mode="complete"), "pinv": lambda: [linalg.pinv(a)]}[decomposition]()
    rng = np.random.default_rng(seed + 7000)
    loss = None
    for index in used:
        weight = torch.from_numpy(rng.standard_normal(tuple(outputs[index].shape)).astype(dtype)).clone()
        term = (outputs[index] * weight).sum()
        loss = term if loss is None else loss + term
    loss.backward()
    return [a.grad]


SQUARE_OPS = ("cholesky_inverse", "cholesky_inverse_upper", "cholesky_inverse_grad", "ldl_factor", "ldl_solve", "eig",
              "eigvals", "eig_symmetric")


def square_outputs(torch, op: str, seed: int, size: tuple, dtype: type) -> list:
    """cholesky_inverse (potri) and its gradient, the LDL family (sytrf, sytrs) and eig (geev)
    through TORCH, on a seeded matrix of SIZE (a batch when it has two numbers): a Cholesky
    factor (its diagonal's magnitudes plus one), a symmetric one (M + M^T) for the LDL family
    and eig_symmetric, any for eig and eigvals."""
    *batch, n = size
    rng = np.random.default_rng(seed)
    m = rng.standard_normal((*batch, n, n)).astype(dtype)
    b = torch.from_numpy(rng.standard_normal((*batch, n, 3)).astype(dtype)).clone()
    linalg = torch.linalg
    if op.startswith("cholesky_inverse"):
        factor = np.tril(m)
        diagonal = np.arange(n)
        factor[..., diagonal, diagonal] = np.abs(factor[..., diagonal, diagonal]) + 1
        if op == "cholesky_inverse_upper":
            return [torch.cholesky_inverse(torch.from_numpy(np.ascontiguousarray(np.swapaxes(factor, -1, -2))).clone(),
                                           upper=True)]
        lower = torch.from_numpy(factor).clone()
        if op == "cholesky_inverse":
            return [torch.cholesky_inverse(lower)]
        lower.requires_grad_()
        weight = torch.from_numpy(rng.standard_normal(m.shape).astype(dtype)).clone()
        (torch.cholesky_inverse(lower) * weight).sum().backward()
        return [lower.grad]
    symmetric = torch.from_numpy(m + np.swapaxes(m, -1, -2)).clone()
    general = torch.from_numpy(m).clone()
    if op == "ldl_factor":
        factor, pivots = linalg.ldl_factor(symmetric)
        return [factor, pivots.to(factor.dtype)]
    return {"ldl_solve": lambda: [linalg.ldl_solve(*linalg.ldl_factor(symmetric), b)],
            "eig": lambda: list(linalg.eig(general)), "eigvals": lambda: [linalg.eigvals(general)],
            "eig_symmetric": lambda: list(linalg.eig(symmetric))}[op]()


# solves whose operands' batch shapes broadcast: A of (2, 1, n, n) against B of (3, n, 4)
BROADCAST_SIZES = [(1,), (2,), (5,), (17,), (33,), (64,)]
BROADCAST_OPS = ("solve_broadcast", "lu_solve_broadcast", "cholesky_solve_broadcast", "solve_triangular_broadcast",
                 "solve_broadcast_grad")


def broadcast_outputs(torch, op: str, seed: int, size: tuple, dtype: type) -> list:
    """linalg.solve, lu_solve, cholesky_solve and solve_triangular (getrf and getrs, potrs, trsm)
    through TORCH with A and B of batch shapes that broadcast; A well away from singular."""
    n = size[0]
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((2, 1, n, n)).astype(dtype) + (2 * np.eye(n, dtype=dtype)).astype(dtype)
    a, b = torch.from_numpy(a).clone(), torch.from_numpy(rng.standard_normal((3, n, 4)).astype(dtype)).clone()
    linalg = torch.linalg
    if op == "solve_broadcast_grad":
        a.requires_grad_(), b.requires_grad_()
        linalg.solve(a, b).sum().backward()
        return [a.grad, b.grad]
    return [{"solve_broadcast": lambda: linalg.solve(a, b),
             "lu_solve_broadcast": lambda: linalg.lu_solve(*linalg.lu_factor(a), b),
             "cholesky_solve_broadcast": lambda: torch.cholesky_solve(b, a.tril()),
             "solve_triangular_broadcast": lambda: linalg.solve_triangular(a, b, upper=False)}[op]()]


# (batch..., n, columns of B): a vector-like B of one row or one column, odd sizes, batches
TRIANGULAR_SHAPES = [(1, 1), (2, 3), (3, 1), (5, 4), (8, 8), (17, 5), (33, 2), (64, 10), (100, 3), (1, 7), (3, 6, 4),
                     (2, 40, 1)]
TRIANGULAR_OPS = ("solve_triangular", "solve_triangular_upper", "solve_triangular_right", "solve_triangular_unit",
                  "solve_triangular_transposed_a", "solve_triangular_transposed_b", "solve_triangular_strided_a",
                  "cholesky_solve", "cholesky_solve_upper")


def triangular_operands(seed: int, shape: tuple, dtype: type) -> tuple:
    """A seeded square A, well away from singular (its diagonal pushed up), and a B of SHAPE[-1]
    columns; for cholesky_solve A is a Cholesky factor's candidate (its lower triangle is used)."""
    *batch, n, columns = shape
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((*batch, n, n)).astype(dtype) + (2 * np.eye(n, dtype=dtype) * np.sign(
        rng.standard_normal(n))).astype(dtype)
    return a, rng.standard_normal((*batch, n, columns)).astype(dtype)


def laid_out(x: np.ndarray) -> np.ndarray:
    """X as the recording lays it out for PyTorch (MKL's path follows the layout): a transposed
    matrix stays a transposed view, anything else is made contiguous."""
    if x.ndim == 2 and x.flags.f_contiguous and not x.flags.c_contiguous:
        return np.ascontiguousarray(x.T).T
    return np.ascontiguousarray(x)


def digest(array: np.ndarray) -> str:
    return hashlib.sha256(np.ascontiguousarray(array).tobytes()).hexdigest()[:16]


def batched_cases(torch, own) -> list:
    """bmm, baddbmm, bmm's gradients and matmul with batch dimensions, as PyTorch computes them."""
    def viewed(spec: tuple) -> "torch.Tensor":
        storage, shape, strides, offset = spec
        return torch.from_numpy(storage).clone().as_strided(shape, strides, offset)

    cases = []
    for dtype in (np.float32, np.float64):
        name = np.dtype(dtype).name
        for seed, shape in enumerate(BATCH_SHAPES):
            for layout in STACK_LAYOUTS:
                first, second = (viewed(spec) for spec in stacks(seed, shape, layout, dtype))
                cases.append({"op": "bmm_stack", "dtype": name, "seed": seed, "shape": list(shape), "layout": layout,
                              "digest": digest(torch.bmm(first, second).numpy())})
                if layout in ("cc", "tt", "pt", "gc"):
                    bias = own(vector(seed + 1000, shape[3], dtype))
                    result = torch.baddbmm(bias, first, second, beta=0.5, alpha=2.0)
                    cases.append({"op": "baddbmm_stack", "dtype": name, "seed": seed, "shape": list(shape),
                                  "layout": layout, "digest": digest(result.numpy())})
                if layout in ("cc", "ct", "tt"):
                    first.requires_grad_(), second.requires_grad_()
                    gradient = own(np.random.default_rng(seed + 2000).standard_normal(
                        (shape[0], shape[1], shape[3])).astype(dtype))
                    torch.bmm(first, second).backward(gradient)
                    cases.append({"op": "bmm_grad", "dtype": name, "seed": seed, "shape": list(shape),
                                  "layout": layout, "digest": digest(np.concatenate(
                                      [first.grad.numpy().ravel(), second.grad.numpy().ravel()]))})
            for form in MATMUL_FORMS:
                result = torch.matmul(*map(own, matmul_operands(seed, shape, form, dtype)))
                cases.append({"op": "matmul_batched", "dtype": name, "seed": seed, "shape": list(shape),
                              "layout": form, "digest": digest(result.numpy())})
    return cases


def lu_outputs(torch, op: str, seed: int, size: tuple, dtype: type) -> list:
    """torch.linalg's LU family (getrf, getrs) on seeded operands, through TORCH: PyTorch, or a
    namespace of gradcalc's ops with the same names (the tests). LU's pivots come with the factor."""
    a, b = (torch.from_numpy(x).clone() for x in lu_operands(seed, size, dtype))
    linalg = torch.linalg
    if op == "solve_grad":
        a.requires_grad_(), b.requires_grad_()
        linalg.solve(a, b).sum().backward()
        return [a.grad, b.grad]
    if op in ("lu_factor", "lu_solve", "lu_solve_adjoint"):
        lu, pivots = linalg.lu_factor(a)
        if op == "lu_factor":
            return [lu, pivots.to(lu.dtype)]
        return [linalg.lu_solve(lu, pivots, b, adjoint=op == "lu_solve_adjoint")]
    if op == "slogdet":
        return list(linalg.slogdet(a))
    return [{"logdet": lambda: torch.logdet(a @ a.mT), "solve": lambda: linalg.solve(a, b),
             "solve_right": lambda: linalg.solve(a, b.mT, left=False),
             "solve_vector": lambda: linalg.solve(a, b[..., 0]), "solve_transposed": lambda: linalg.solve(a.mT, b),
             "inv": lambda: linalg.inv(a), "det": lambda: linalg.det(a)}[op]()]


def spectral_outputs(torch, op: str, seed: int, shape: tuple, dtype: type) -> list:
    """torch.linalg's eigh (syevd) and SVD (gesdd), and pinv and matrix_rank made of them, through
    TORCH; none for eigh or a hermitian form of a matrix that is not square."""
    if (op.startswith("eig") or op.endswith("hermitian")) and shape[-1] != shape[-2]:
        return []
    a, linalg = torch.from_numpy(spectral_operand(seed, shape, op, dtype)).clone(), torch.linalg
    return {"eigh": lambda: list(linalg.eigh(a)), "eigh_upper": lambda: list(linalg.eigh(a, UPLO="U")),
            "eigvalsh": lambda: [linalg.eigvalsh(a)], "svd": lambda: list(linalg.svd(a)),
            "svd_reduced": lambda: list(linalg.svd(a, full_matrices=False)),
            "svdvals": lambda: [linalg.svdvals(a)], "pinv": lambda: [linalg.pinv(a)],
            "pinv_hermitian": lambda: [linalg.pinv(a, hermitian=True)],
            "matrix_rank": lambda: [linalg.matrix_rank(a, rtol=0.3).to(a.dtype)],
            "matrix_rank_hermitian": lambda: [linalg.matrix_rank(a, hermitian=True, rtol=0.3).to(a.dtype)]}[op]()


def qr_outputs(torch, op: str, seed: int, shape: tuple, dtype: type) -> list:
    """torch.linalg.qr, torch.geqrf and linalg.householder_product (geqrf, orgqr) through TORCH;
    none for a householder_product of a wide matrix."""
    a = torch.from_numpy(spectral_operand(seed, shape, op, dtype)).clone()
    if op == "householder_product":
        return [torch.linalg.householder_product(*torch.geqrf(a))] if a.shape[-2] >= a.shape[-1] else []
    if op == "geqrf":
        return list(torch.geqrf(a))
    return [x for x in torch.linalg.qr(a, mode={"qr": "reduced", "qr_complete": "complete", "qr_r": "r"}[op])
            if x.numel()]


def triangular_outputs(torch, op: str, seed: int, shape: tuple, dtype: type) -> list:
    """linalg.solve_triangular (trsm) and cholesky_solve (potrs) through TORCH, over the layouts
    ATen tells apart: A row-major, column-major or neither, B made one row."""
    a, b = (torch.from_numpy(x).clone() for x in triangular_operands(seed, shape, dtype))
    solve = torch.linalg.solve_triangular
    if op.startswith("cholesky_solve"):
        upper = op.endswith("upper")
        return [torch.cholesky_solve(b, a.triu() if upper else a.tril(), upper=upper)]
    return [{"solve_triangular": lambda: solve(a, b, upper=False),
             "solve_triangular_upper": lambda: solve(a, b, upper=True),
             "solve_triangular_right": lambda: solve(a, b.mT, upper=True, left=False),
             "solve_triangular_unit": lambda: solve(a, b, upper=False, unitriangular=True),
             "solve_triangular_transposed_a": lambda: solve(a.mT, b, upper=True),
             "solve_triangular_transposed_b": lambda: solve(a, b.mT.contiguous().mT, upper=False),
             "solve_triangular_strided_a": lambda: solve(a[..., ::2, ::2], b[..., ::2, :], upper=False)}[op]()]


FFT_SHAPES = [(1,), (2,), (7,), (8,), (16,), (17,), (100,), (128,), (1000,), (4, 6), (3, 17), (5, 32), (2, 3, 8)]
FFT_OPS = ("fft", "fft_complex", "ifft_complex", "rfft", "irfft", "hfft", "ihfft", "fft2_complex", "rfftn", "irfftn",
           "fft_ortho", "rfft_forward", "ifft_ortho", "fft_padded", "rfft_trimmed", "rfft_strided", "fftn_outer_dims",
           "irfft_odd", "irfft_grad", "rfft_grad")


def fft_outputs(torch, op: str, seed: int, shape: tuple, dtype: type) -> list:
    """torch.fft's transforms (c2c, r2c, c2r through DFTI) through TORCH, on a seeded real
    signal or a complex one made of two; none where the op needs two dimensions, or a
    half-spectrum longer than one."""
    rng = np.random.default_rng(seed)
    real = rng.standard_normal(shape).astype(dtype)
    x = torch.from_numpy(real).clone()
    z = torch.from_numpy((real + 1j * rng.standard_normal(shape)).astype(np.result_type(dtype, np.complex64))).clone()
    fft = torch.fft
    if (op in ("fft2_complex", "fftn_outer_dims", "rfft_strided") and len(shape) < 2) or \
            (op in ("irfft", "hfft", "irfftn", "irfft_grad") and shape[-1] == 1):
        return []
    if op.endswith("_grad"):  # the backward of a sum: an expanded gradient into the transform's own
        leaf = z if op == "irfft_grad" else x
        leaf.requires_grad_()
        (fft.irfft(z).sum() if op == "irfft_grad" else fft.rfft(x).real.sum() + fft.rfft(x).imag.sum()).backward()
        return [leaf.grad]
    return [{"fft": lambda: fft.fft(x), "fft_complex": lambda: fft.fft(z), "ifft_complex": lambda: fft.ifft(z),
             "rfft": lambda: fft.rfft(x), "irfft": lambda: fft.irfft(z), "hfft": lambda: fft.hfft(z),
             "ihfft": lambda: fft.ihfft(x), "fft2_complex": lambda: fft.fft2(z), "rfftn": lambda: fft.rfftn(x),
             "irfftn": lambda: fft.irfftn(z), "fft_ortho": lambda: fft.fft(x, norm="ortho"),
             "rfft_forward": lambda: fft.rfft(x, norm="forward"), "ifft_ortho": lambda: fft.ifft(z, norm="ortho"),
             "fft_padded": lambda: fft.fft(x, n=shape[-1] + 3),
             "rfft_trimmed": lambda: fft.rfft(x, n=max(1, shape[-1] - 1)),
             "rfft_strided": lambda: fft.rfft(x.mT), "fftn_outer_dims": lambda: fft.fftn(z, dim=(0, -1)),
             "irfft_odd": lambda: fft.irfft(z, n=2 * shape[-1] - 1 if shape[-1] > 1 else 1)}[op]()]


# each op of the linalg and fft families: (its function of outputs, the shapes it is recorded over)
# makemore's MLP (Zero to Hero, part 2): (steps, batch, hidden); log_softmax's own shapes
TRAINING_SHAPES = [(40, 32, 200), (40, 32, 64)]
TRAINING_OPS = ("mlp_training", "log_softmax_rows", "log_softmax_columns", "adam_fit", "rmsprop_fit", "adagrad_fit")


def training_outputs(torch, op: str, seed: int, shape: tuple, dtype: type) -> list:
    """Real material through TORCH: makemore's character MLP trained by SGD as the lecture trains it
    (an embedding, a tanh layer, cross-entropy as log_softmax and the target's mean, p.data +=
    -lr * p.grad), its losses and last parameters: its products are MKL's, and an ulp of
    log_softmax's log (SLEEF's) moves later steps; or log_softmax alone over many rows of 22."""
    rng = np.random.default_rng(seed)
    steps, batch, hidden = shape
    vocab, width, block = 22, 10, 3
    if op.endswith("_fit"):
        return optimizer_fit(torch, op, rng, steps, batch, dtype)
    if op != "mlp_training":
        x = torch.from_numpy((rng.standard_normal((steps * batch, vocab)) * 8).astype(dtype)).clone()
        return [torch.log_softmax(x, 1)] if op == "log_softmax_rows" else [torch.log_softmax(x.t().contiguous(), 0)]
    sizes = [(vocab, width), (block * width, hidden), (hidden,), (hidden, vocab), (vocab,)]
    parameters = [torch.from_numpy(rng.standard_normal(size).astype(dtype)).clone().requires_grad_() for size in sizes]
    embedding, w1, b1, w2, b2 = parameters
    contexts, targets = rng.integers(0, vocab, (steps, batch, block)), rng.integers(0, vocab, (steps, batch, 1))
    losses = []
    for step in range(steps):
        hidden_layer = torch.tanh(embedding[torch.from_numpy(contexts[step])].view(-1, block * width) @ w1 + b1)
        log_probabilities = torch.log_softmax(hidden_layer @ w2 + b2, 1)
        loss = -log_probabilities.gather(1, torch.from_numpy(targets[step])).mean()
        for parameter in parameters:
            parameter.grad = None
        loss.backward()
        for parameter in parameters:
            parameter.data += -0.1 * parameter.grad
        losses.append(loss.detach().reshape(1))
    return losses + [parameter.detach() for parameter in parameters]


def optimizer_fit(torch, op: str, rng: np.random.Generator, steps: int, rows: int, dtype: type) -> list:
    """A least-squares fit of 3 features (as the polynomial fits of "Learning PyTorch with
    Examples") by Adam, RMSprop or Adagrad through TORCH: their updates take Tensor.sqrt, MKL's
    vector sqrt in ATen, not the correctly rounded one. The fit's last losses and parameters."""
    x = torch.from_numpy((rng.standard_normal((rows, 3)) * 3).astype(dtype)).clone()
    y = torch.from_numpy(rng.standard_normal(rows).astype(dtype)).clone()
    weight = torch.from_numpy(rng.standard_normal(3).astype(dtype)).clone().requires_grad_()
    kind = {"adam_fit": torch.optim.Adam, "rmsprop_fit": torch.optim.RMSprop, "adagrad_fit": torch.optim.Adagrad}[op]
    optimizer = kind([weight], lr=1e-2)
    losses = []
    for step in range(steps * 10):
        loss = ((x @ weight - y) ** 2).sum()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.detach().reshape(1))
    return losses[-10:] + [weight.detach()]


FAMILIES = {**{op: (lu_outputs, LU_SIZES) for op in LU_OPS},
            **{op: (spectral_outputs, SPECTRAL_SHAPES) for op in SPECTRAL_OPS},
            **{op: (qr_outputs, QR_SHAPES) for op in QR_OPS},
            **{op: (gradient_outputs, QR_SHAPES if op.startswith("qr") else SPECTRAL_SHAPES) for op in GRADIENT_OPS},
            **{op: (triangular_outputs, TRIANGULAR_SHAPES) for op in TRIANGULAR_OPS},
            **{op: (square_outputs, LU_SIZES) for op in SQUARE_OPS},
            **{op: (broadcast_outputs, BROADCAST_SIZES) for op in BROADCAST_OPS},
            **{op: (fft_outputs, FFT_SHAPES) for op in FFT_OPS},
            **{op: (training_outputs, TRAINING_SHAPES) for op in TRAINING_OPS}}


def joined(outputs: list) -> np.ndarray:
    """All of a case's outputs in one array, in order, for one digest."""
    return np.concatenate([x.detach().resolve_conj().numpy().ravel() for x in outputs])


def family_cases(torch) -> list:
    """The linalg families as PyTorch computes them, each case the digest of all its outputs."""
    cases = []
    for dtype in (np.float32, np.float64):
        for op, (outputs_of, shapes) in FAMILIES.items():
            for seed, shape in enumerate(shapes):
                outputs = outputs_of(torch, op, seed, shape, dtype)
                if outputs:
                    cases.append({"op": op, "dtype": np.dtype(dtype).name, "seed": seed, "shape": list(shape),
                                  "digest": digest(joined(outputs))})
    return cases


def main() -> None:
    sys.path.insert(0, str(HERE.parent.parent))
    import torch  # only the recording needs it: the test imports this file's inputs and digest

    from gradcalc.autograd.cpu import machine_label, machine_record

    torch.set_num_threads(1)

    def own(x: np.ndarray) -> "torch.Tensor":  # in a storage of PyTorch's, laid out as laid_out(x)
        if x.ndim == 2 and x.flags.f_contiguous and not x.flags.c_contiguous:
            return torch.from_numpy(np.ascontiguousarray(x.T)).clone().t()
        return torch.from_numpy(np.ascontiguousarray(x)).clone()

    cases = []
    for dtype in (np.float32, np.float64):
        for seed, (m, k, n) in enumerate(SHAPES):
            for layout in LAYOUTS:
                a, b = factors(seed, m, k, n, layout, dtype)
                cases.append({"op": "mm", "dtype": np.dtype(dtype).name, "seed": seed, "shape": [m, k, n],
                              "layout": layout, "digest": digest(torch.mm(own(a), own(b)).numpy())})
            a, b = factors(seed, m, k, n, "nt", dtype)
            bias = vector(seed + 1000, n, dtype)
            results = {"addmm": torch.addmm(own(bias), own(a), own(b), beta=0.5, alpha=2.0),
                       "linear": torch.nn.functional.linear(own(a), own(np.ascontiguousarray(b.T)), own(bias)),
                       "linear1d": torch.nn.functional.linear(own(a[0]), own(np.ascontiguousarray(b.T)), own(bias)),
                       "mv": torch.mv(own(a), own(vector(seed + 2000, k, dtype))),
                       "addmv": torch.addmv(own(vector(seed + 4000, m, dtype)), own(a),
                                            own(vector(seed + 2000, k, dtype)), beta=0.5, alpha=2.0),
                       "baddbmm": torch.baddbmm(own(bias), *map(own, batches(a, b)), beta=0.5, alpha=2.0),
                       "addbmm": torch.addbmm(own(bias), *map(own, batches(a, b)), beta=0.5, alpha=2.0),
                       "addbmm_unscaled": torch.addbmm(own(vector(seed + 5000, m * n, dtype).reshape(m, n)),
                                                       *map(own, batches(a, b))),
                       "dot": torch.dot(own(a[0]), own(vector(seed + 3000, k, dtype))),
                       "matmul3d": torch.matmul(own(np.stack([a, a[::-1]])), own(b)),
                       "bmm": torch.bmm(*map(own, batches(a, b))),
                       "matmul_broadcast": torch.matmul(*map(own, broadcast(a, b)))}
            cases += [{"op": op, "dtype": np.dtype(dtype).name, "seed": seed, "shape": [m, k, n], "layout": "nt",
                       "digest": digest(result.numpy())} for op, result in results.items()]
    cases += batched_cases(torch, own)
    cases += family_cases(torch)
    for dtype in (np.float32, np.float64):
        for n in CHOLESKY_SIZES:
            for upper in (False, True):
                factor = torch.linalg.cholesky(own(positive_definite(n, dtype)), upper=upper)
                cases.append({"op": "cholesky", "dtype": np.dtype(dtype).name, "shape": [n], "upper": upper,
                              "digest": digest(factor.numpy())})
    vml = [{"op": name, "dtype": np.dtype(dtype).name,
            "digest": digest(getattr(torch, name)(torch.from_numpy(vml_inputs(name, dtype)).clone()).numpy())}
           for dtype in (np.float32, np.float64) for name in VML]
    header = json.dumps({"torch": torch.__version__, "mkl": "2024.2.0", "machine": machine_record()})[:-1]
    lines = ",\n".join(json.dumps(case) for case in cases + vml)
    out = HERE / f"mkl_cases_{machine_label(machine_record())}.json"
    out.write_text(f'{header}, "cases": [\n{lines}\n]}}\n')


if __name__ == "__main__":
    main()
