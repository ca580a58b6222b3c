"""The summation kernels against a plain transcription of PyTorch's loops (one accumulator per
lane, a Python loop over the cascade's blocks): the vectorized formulation must give the same
bits for every size, dtype and layout."""
from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from gradcalc.autograd import kernels, sum_kernel


def _loop_multi_row_sum(values: np.ndarray) -> np.ndarray:
    """multi_row_sum as SumKernel.cpp writes it: level 0 sums a block, each full block goes
    into level 1, and level k carries into k + 1 each time its count of blocks is a multiple of step**k."""
    size = values.shape[0]
    power = max(4, sum_kernel.ceil_log2(size) // 4)
    step = 1 << power
    zero = values.dtype.type(0)
    acc = [np.zeros(values.shape[1:], values.dtype) for _ in range(4)]
    blocks = size // step
    for index in range(blocks):
        block = np.zeros(values.shape[1:], values.dtype)
        for item in values[index * step:(index + 1) * step]:
            block = block + item
        acc[1] = acc[1] + block
        done = (index + 1) * step
        for level in range(2, 4):
            if done & ((step - 1) << ((level - 1) * power)):
                break
            acc[level] = acc[level] + acc[level - 1]
            acc[level - 1] = np.zeros(values.shape[1:], values.dtype)
    total = np.zeros(values.shape[1:], values.dtype)
    for item in values[blocks * step:]:
        total = total + item
    for level in range(1, 4):
        total = total + acc[level]
    return total + zero


def _loop_row_sum(values: np.ndarray) -> np.ndarray:
    rows = values.shape[0] // 4
    partial = _loop_multi_row_sum(values[:rows * 4].reshape((rows, 4) + values.shape[1:]))
    total = partial[0]
    for item in values[rows * 4:]:
        total = total + item
    for lane in partial[1:]:
        total = total + lane
    return total


def _loop_inner_vectorized(rows: np.ndarray, lanes: int) -> np.ndarray:
    count, size = rows.shape
    registers = size // lanes
    vector = _loop_row_sum(rows[:, :registers * lanes].reshape(count, registers, lanes).transpose(1, 0, 2))
    total = np.zeros(count, rows.dtype)
    for column in rows[:, registers * lanes:].T:
        total = total + column
    for lane in vector.T:
        total = total + lane
    return total


def _values(rng: np.random.Generator, shape: tuple, dtype: type) -> np.ndarray:
    """Magnitudes far apart (so that the order of addition shows in the last bits), with signed
    zeros, and now and then an infinity or a NaN."""
    values = np.asarray(rng.standard_normal(shape) * 10.0 ** rng.integers(-6, 7, shape))
    kind = rng.random(shape)
    values[kind < 0.03] = -0.0
    values[(kind >= 0.03) & (kind < 0.05)] = 0.0
    if values.size and rng.random() < 0.1:
        values.flat[rng.integers(values.size)] = rng.choice([np.inf, -np.inf, np.nan])
    return values.astype(dtype)


def _same_bits(a: np.ndarray, b: np.ndarray) -> bool:
    a, b = np.asarray(a), np.asarray(b)
    return a.shape == b.shape and a.dtype == b.dtype and a.tobytes() == b.tobytes()


SIZES = sorted({*range(0, 80), *np.random.default_rng(1).integers(80, 20_000, 60).tolist(), 511, 512, 513,
                2047, 2048, 2049, 4095, 4096, 4097, 8191, 8192, 8193})


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_one_row_sums_match_the_loops(dtype: type) -> None:
    rng = np.random.default_rng(0)
    lanes = sum_kernel.VECTOR_BYTES // np.dtype(dtype).itemsize
    for size in SIZES:
        for _ in range(3):
            row = _values(rng, (1, size), dtype)
            assert _same_bits(sum_kernel._inner_vectorized(row, lanes), _loop_inner_vectorized(row, lanes)), size


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_many_rows_and_lanes_match_the_loops(dtype: type) -> None:
    rng = np.random.default_rng(2)
    lanes = sum_kernel.VECTOR_BYTES // np.dtype(dtype).itemsize
    for _ in range(200):
        count, size = int(rng.integers(1, 6)), int(rng.integers(0, 3000))
        rows = _values(rng, (count, size), dtype)
        assert _same_bits(sum_kernel._inner_vectorized(rows, lanes), _loop_inner_vectorized(rows, lanes))
        columns = _values(rng, (size, count, 3), dtype)
        assert _same_bits(sum_kernel.row_sum(columns), _loop_row_sum(columns))
        column = _values(rng, (size,), dtype)  # one lane: the four accumulators are the lanes numpy adds row by row
        assert _same_bits(sum_kernel.row_sum(column), _loop_row_sum(column))


@pytest.mark.parametrize("size", [4095, 4096 * 16, 4096 * 16 + 17, 4096 * 16 * 3 + 100, (1 << 20) + 1])
def test_the_cascade_carries_through_every_level(size: int) -> None:
    """Level 2 takes level 1's sum every 16 blocks, level 3 level 2's every 256; above 2**20
    items the blocks grow to 32."""
    values = _values(np.random.default_rng(size), (size, 2), np.float32)
    assert _same_bits(sum_kernel.multi_row_sum(values), _loop_multi_row_sum(values))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_a_contiguous_total_matches_the_loops(dtype: type) -> None:
    """The fast path of a whole contiguous tensor: the same bits as one row summed by the loops."""
    rng = np.random.default_rng(3)
    lanes = sum_kernel.VECTOR_BYTES // np.dtype(dtype).itemsize
    for size in SIZES + [70_000, 300_000]:
        for _ in range(3):
            row = _values(rng, (size,), dtype)
            assert _same_bits(sum_kernel.contiguous_total(row), _loop_inner_vectorized(row.reshape(1, -1), lanes)), size


@pytest.mark.parametrize("m", [1, 2, 3, 4, 7, 32])
@pytest.mark.parametrize("n", [1, 2, 5, 12, 33])
@pytest.mark.parametrize("k", [1, 2, 9, 64, 192])
def test_running_sums_through_blas_match_the_emulation(m: int, k: int, n: int) -> None:
    """Where numpy's BLAS passes the check, its thin products give the emulated fused running sum
    bit for bit, every layout of the factors alike (a wide float32 product takes this path with AVX2)."""
    if not kernels._blas_adds_thin_products_in_order():
        pytest.skip("numpy's BLAS adds thin products in another order here; the emulation runs")
    rng = np.random.default_rng(m * 1000 + n * 10 + k)
    a = (rng.standard_normal((m, k)) * 2.0 ** rng.integers(-20, 20, (m, k))).astype(np.float32)
    b = rng.standard_normal((k, n)).astype(np.float32)
    expected = kernels._emulated_fused_products(a, b).view(np.uint32)
    for left, right in [(a, b), (np.asfortranarray(a), np.asfortranarray(b))]:
        assert np.array_equal(kernels._thin_blas_products(left, right).view(np.uint32), expected)


@pytest.mark.parametrize("m", [4, 5, 7, 13, 32])
@pytest.mark.parametrize("n", [1, 2, 27, 201])
@pytest.mark.parametrize("k", [2, 8, 9, 30, 160])
def test_interleaved_products_match_the_emulation(m: int, k: int, n: int) -> None:
    """Where numpy's BLAS passes the check, one call on the factors interleaved with zeros gives the
    emulated fused running sums bit for bit, as the three-row blocks do, every layout alike."""
    if not kernels._blas_adds_interleaved_products_in_order():
        pytest.skip("numpy's BLAS does not sum the interleaved products in order here")
    rng = np.random.default_rng(m * 1000 + n * 10 + k)
    a = (rng.standard_normal((m, k)) * 2.0 ** rng.integers(-20, 20, (m, k))).astype(np.float32)
    b = rng.standard_normal((k, n)).astype(np.float32)
    a[1] = 0  # a row of zero sums
    expected = kernels._emulated_fused_products(a, b).view(np.uint32)
    for left, right in [(a, b), (np.asfortranarray(a), np.asfortranarray(b))]:
        assert np.array_equal(kernels._interleaved_blas_products(left, right).view(np.uint32), expected)
        assert np.array_equal(kernels._thin_blas_products(left, right).view(np.uint32), expected)


def test_a_negative_zero_sum_comes_out_positive_from_either_path() -> None:
    """BLAS adds its kernel's sums to the zeroed result, so a running sum of -0 (products that
    round to -0) comes out +0, as from PyTorch's MKL (recorded: torch.full((8, 16), 1e-30) @
    torch.full((16, 24), -1e-30) has no sign bit set); both paths agree."""
    if not kernels._blas_adds_interleaved_products_in_order():
        pytest.skip("numpy's BLAS does not sum the interleaved products in order here")
    a, b = np.full((8, 16), 1e-30, np.float32), np.full((16, 24), -1e-30, np.float32)
    assert not np.signbit(kernels._interleaved_blas_products(a, b)).any()
    assert not np.signbit(kernels._thin_blas_products(a, b)).any()


@pytest.mark.parametrize("checked, product, check, refused_too", [
    ("_BLAS_CHECKED", "_thin_blas_products", "_blas_adds_thin_products_in_order", ("_INTERLEAVED_CHECKED",)),
    ("_INTERLEAVED_CHECKED", "_interleaved_product", "_blas_adds_interleaved_products_in_order", ())])
def test_a_blas_adding_in_another_order_is_not_used(monkeypatch: pytest.MonkeyPatch, checked: str, product: str,
                                                    check: str, refused_too: tuple) -> None:
    """Each check refuses a BLAS whose products add in another order (here float64 sums rounded
    once): the products then come as three-row blocks, or from the emulation when both refuse."""
    monkeypatch.setattr(kernels, checked, [])
    for other in refused_too:
        monkeypatch.setattr(kernels, other, [False])
    monkeypatch.setattr(kernels, product, lambda a, b: (a.astype(np.float64) @ b.astype(np.float64)).astype(np.float32))
    assert not getattr(kernels, check)()
    a = np.float32([[1e8, 1, -1e8, 1]] * 4)
    b = np.ones((4, 12), np.float32)
    assert np.array_equal(kernels._fused_float32_products_in_order(a, b),
                          kernels._emulated_fused_products(a, b))


def _float32_nearest(exact: "Fraction") -> np.float32:
    """The float32 nearest to an exact number, ties to even, chosen by exact distances."""
    from fractions import Fraction

    guess = np.float32(float(exact))
    candidates = [np.nextafter(guess, np.float32(-np.inf)), guess, np.nextafter(guess, np.float32(np.inf))]
    return min(candidates, key=lambda c: (abs(Fraction(float(c)) - exact), int(c.view(np.uint32)) & 1))


def test_float32_fused_multiply_add_rounds_once() -> None:
    """float32 a * b + c through a float64 sum against exact arithmetic: a product on a float32
    midpoint with an addend far below its last bit (which must still decide the rounding),
    sums below float32's normal range, spread magnitudes, products of few bits."""
    from fractions import Fraction

    rng = np.random.default_rng(11)
    n = 3000
    spread = [(rng.standard_normal(n) * 2.0 ** rng.integers(low, 40, n)).astype(np.float32) for low in (-70, -70, -140)]
    few_bits = [(np.round(rng.standard_normal(n) * 64) / 64 + 1 / 128).astype(np.float32) for _ in range(2)]  # never 0
    cases = [(np.float32([-4.75]), np.float32([-6.123990316103132e-24]), np.float32([-3.4135630590952544e-42])),
             (np.float32([1.5, 1.5]), np.float32([2.0 ** -130, 2.0 ** -130]), np.float32([2.0 ** -149, -(2.0 ** -149)])),
             tuple(spread), (few_bits[0], few_bits[1], np.float32(2.0 ** -100) * few_bits[0])]
    for x, y, z in cases:
        exact = [_float32_nearest(Fraction(float(p)) * Fraction(float(q)) + Fraction(float(r)))
                 for p, q, r in zip(x, y, z)]
        assert kernels.fused_multiply_add(x, y, z).tobytes() == np.array(exact, np.float32).tobytes()


def test_float64_fused_multiply_add_rounds_once() -> None:
    """The whole-array float64 FMA against exact arithmetic: spread magnitudes, cancellation,
    products of few bits whose sums fall on ties, extremes (the exact fallback), signed zeros."""
    from fractions import Fraction

    rng = np.random.default_rng(7)
    n = 20000
    a = rng.standard_normal(n) * 2.0 ** rng.integers(-60, 60, n)
    b = rng.standard_normal(n) * 2.0 ** rng.integers(-60, 60, n)
    few_bits = rng.integers(1, 2 ** 27, (2, n)) * 2.0 ** -27 + 1
    cases = [(a, b, rng.standard_normal(n) * 2.0 ** rng.integers(-120, 120, n)),
             (a, b, -(a * b) * (1 + rng.standard_normal(n) * 2.0 ** -rng.integers(20, 60, n))),
             (few_bits[0], few_bits[1], -np.round(few_bits[0] * few_bits[1])
              + rng.choice([2.0 ** -53, 2.0 ** -52, -2.0 ** -54, 2.0 ** -106], n)),
             (np.array([1e300, 3e-200, 2.0 ** -1000]), np.array([1e-300, 3e-200, 3.0]), np.array([1.0, 1e-310, 0.0]))]
    for x, y, z in cases:
        exact = [float(Fraction(p) * Fraction(q) + Fraction(r)) for p, q, r in zip(x.tolist(), y.tolist(), z.tolist())]
        assert kernels.fused_multiply_add(x, y, z).tobytes() == np.array(exact).tobytes()
    signed = kernels.fused_multiply_add(np.array([-0.0, 0.0, np.inf]), np.array([1.0, 1.0, 1.0]),
                                        np.array([-0.0, -0.0, -np.inf]))
    assert np.signbit(signed[:2]).tolist() == [True, False] and np.isnan(signed[2])


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_nll_loss_common_case_gives_the_general_paths_bits(dtype: type) -> None:
    """nll_loss and its gradient when every target counts take a path without masks; an
    ignore_index between the targets' min and max that none of them holds sends the same
    inputs through the general path, which must give the same bits."""
    from gradcalc.autograd import dtypes
    from gradcalc.autograd.ops import loss
    from gradcalc.autograd.tensor import Tensor

    rng = np.random.default_rng(11)
    kind = dtypes.from_numpy(np.dtype(dtype))
    for rows in (2, 3, 15, 16, 17, 32, 33, 100, 257, 4100):
        classes = 40
        x = (rng.standard_normal((rows, classes)) * 10.0 ** rng.integers(-3, 4, (rows, 1))).astype(dtype)
        x[0, :] = -0.0
        targets = rng.choice(np.arange(0, classes, 2), rows)  # even classes only: 1 is between, never held
        targets[:2] = (0, classes - 2)
        inputs = Tensor._make(x, kind)
        target = Tensor._make(targets.astype(np.int64), dtypes.int64)
        total_weight = Tensor._make(np.asarray(rows, dtype), kind)
        for reduction in (loss.MEAN, loss.SUM):
            grad = Tensor._make(np.asarray(rng.standard_normal(), dtype), kind)
            results = []
            for ignore_index in (-100, 1):  # the common path, then the general one
                out = loss.nll_loss(inputs, target, None, reduction, ignore_index)
                gradient = loss.nll_loss_backward(grad, inputs, target, None, reduction, ignore_index, total_weight)
                results.append([out._data.tobytes(), gradient._data.tobytes()])
            assert results[0] == results[1]


def _glibc_float_function(name: str) -> Any:
    """This machine's C library float function NAME (float -> float), or the test skipped where
    the C library is not glibc."""
    import ctypes
    import ctypes.util

    library = ctypes.util.find_library("m")
    if library is None or "libm.so.6" not in library:
        pytest.skip("glibc's libm is not this machine's C library")
    function = getattr(ctypes.CDLL(library), name)
    function.restype, function.argtypes = ctypes.c_float, [ctypes.c_float]
    return function


def test_glibc_expf_gives_the_c_librarys_bits() -> None:
    """simd.glibc_expf against this machine's expf (PyTorch's scalar loops call it): inputs over
    its whole range, the bounds of overflow and underflow, and the specials."""
    from gradcalc.autograd import simd

    expf = _glibc_float_function("expf")
    rng = np.random.default_rng(5)
    x = np.concatenate([(rng.standard_normal(60_000) * 4).astype(np.float32),
                        rng.uniform(-104.5, 89.5, 20_000).astype(np.float32),
                        np.array([0.0, -0.0, 1e-30, -1e-30, np.inf, -np.inf, np.nan], np.float32),
                        np.nextafter(np.float32(88.72283), np.float32([-np.inf, np.inf])),
                        np.nextafter(np.float32(-103.97208), np.float32([-np.inf, np.inf]))])
    expected = np.array([expf(float(v)) for v in x], np.float32)
    assert _same_bits(simd.glibc_expf(x), expected)
    # the inputs where the C library is not correctly rounded are among them
    assert not _same_bits(np.exp(x.astype(np.float64)).astype(np.float32), expected)


def test_glibc_logf_gives_the_c_librarys_bits() -> None:
    """simd.glibc_logf against this machine's logf (ATen's scalar float code calls it: digamma's
    log): positive floats over every exponent, subnormals, the table's boundaries, 1 and the
    specials."""
    from gradcalc.autograd import simd

    logf = _glibc_float_function("logf")
    rng = np.random.default_rng(6)
    x = np.concatenate([rng.integers(1, 0x7F800000, 100_000, dtype=np.uint32).view(np.float32),
                        rng.uniform(0.5, 2.0, 30_000).astype(np.float32),
                        np.array([0x3F330000, 0x3F32FFFF, 0x3FB30000, 1, 0x007FFFFF], np.uint32).view(np.float32),
                        np.array([1.0, 0.0, -0.0, -1.0, np.inf, -np.inf, np.nan, 10.0, 0.75, 3.0], np.float32)])
    expected = np.array([logf(float(v)) for v in x], np.float32)
    assert _same_bits(simd.glibc_logf(x), expected)
    assert _same_bits(simd.glibc_logf(x.reshape(-1, 5)), expected.reshape(-1, 5))
    # the inputs where the C library is not correctly rounded are among them
    assert not _same_bits(np.log(x.astype(np.float64)).astype(np.float32), expected)


@pytest.mark.parametrize("lanes", [4, 8, 16])
def test_split_loops_is_the_split_of_both_results(lanes: int) -> None:
    """split_loops computes each loop's function on its elements only; the result is simd_split's
    of the two functions on everything (rows of every length around a register pair, strided
    input as an LSTM's gate chunks are, 0-d and empty)."""
    rng = np.random.default_rng(lanes)
    gates = rng.standard_normal((7, 4 * 51)).astype(np.float32)
    cases = [gates[:, 51:102], gates, gates[:, :3], rng.standard_normal(()).astype(np.float32),
             np.zeros((0, 5), np.float32)] + [rng.standard_normal((3, n)).astype(np.float32) for n in range(1, 40, 3)]
    vector, scalar = (lambda x: np.float32(2) * x), (lambda x: x + np.float32(1))
    for x in cases:
        for row in {0, x.shape[-1] if x.ndim else 0}:
            expected = kernels.simd_split(vector(x), scalar(x), lanes=lanes, row=row)
            got = kernels.split_loops(x, vector, scalar, lanes=lanes, row=row)
            assert got.shape == x.shape and got.dtype == expected.dtype
            assert np.array_equal(got, expected), (x.shape, row)


def test_row_order_of_a_2d_result_is_iteration_orders() -> None:
    """layout.in_row_order, element_wise_result's shortcut for 2-D results, answers as
    iteration_order does: operands of every layout (transposed, sliced, broadcast along either
    dimension, 1-d and 0-d, negative strides, equal strides) in every order."""
    from gradcalc.autograd import layout

    rng = np.random.default_rng(3)
    for rows, columns in ((3, 5), (5, 3), (4, 4), (1, 6), (6, 1), (1, 1)):
        base = rng.standard_normal((2 * rows + 1, 2 * columns + 1))
        candidates = [base[:rows, :columns], base[:columns, :rows].T, base[::2, ::2][:rows, :columns],
                      base[::-1, :][:rows, :columns], base[:1, :columns], base[:rows, :1], base[0, :columns],
                      np.float64(1.0) * np.ones(()), np.lib.stride_tricks.as_strided(base, (rows, columns), (8, 8)),
                      np.ascontiguousarray(base[:rows, :columns])]
        candidates = [c for c in candidates if _broadcasts_to(c.shape, (rows, columns))]
        for first in candidates:
            for second in candidates:
                operands = [first, second]
                per_operand = [layout._broadcast_strides(o, (rows, columns)) for o in operands]
                expected = layout.iteration_order((rows, columns), list(zip(*per_operand))) == [1, 0]
                assert layout.in_row_order((rows, columns), operands) == expected, (first.strides, second.strides)


def _broadcasts_to(shape: tuple, full: tuple) -> bool:
    try:
        return np.broadcast_shapes(shape, full) == full
    except ValueError:
        return False
