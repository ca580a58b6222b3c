"""The native kernels (gradcalc/autograd/csrc/) give the same bits as the numpy emulations
they stand in for, which the goldens check against PyTorch; and they refuse buffers they were
not made for, since they run on a program's values."""
from __future__ import annotations

import itertools
import os
import shutil
import sysconfig

import numpy as np
import pytest

from gradcalc.autograd import cpu, kernels, native, random, simd, sum_kernel
from gradcalc.autograd.ops import statistics

_native = native.kernels
needs_native = pytest.mark.skipif(_native is None, reason="gradcalc's native kernels are not built here")
_RNG = np.random.default_rng(20261207)


def _same_bits(x: np.ndarray, y: np.ndarray) -> bool:
    """Equal bit for bit, any nan equal to any nan (their payloads are not printed)."""
    x, y = np.asarray(x), np.asarray(y)
    if x.shape != y.shape or x.dtype != y.dtype:
        return False
    nan = np.isnan(x)
    return bool(np.array_equal(nan, np.isnan(y)) and np.array_equal(x[~nan].view(np.uint8), y[~nan].view(np.uint8)))


def _float32_sample(count: int, low_exponent: int, high_exponent: int) -> np.ndarray:
    """Random float32 of both signs, their exponents spread evenly over a range."""
    mantissa = _RNG.integers(0, 1 << 23, count, dtype=np.uint32)
    exponent = _RNG.integers(low_exponent + 127, high_exponent + 128, count).astype(np.uint32)
    sign = _RNG.integers(0, 2, count).astype(np.uint32) << np.uint32(31)
    return (sign | exponent << np.uint32(23) | mantissa).view(np.float32)


def test_the_module_is_built_where_a_compiler_is():
    """An install on a machine with a C compiler and Python's headers runs the native kernels (a
    checkout whose source is newer than its module needs `pip install -e .` again)."""
    if os.environ.get("GRADCALC_NATIVE") == "0":
        pytest.skip("GRADCALC_NATIVE=0 asks for numpy's emulations")
    if not (shutil.which("cc") or shutil.which("gcc")) or not os.path.exists(
            os.path.join(sysconfig.get_paths()["include"], "Python.h")):
        pytest.skip("no C compiler or Python headers here")
    assert not native.is_stale(), "gradcalc/autograd/csrc/ changed since it was compiled: pip install -e ."
    assert _native is not None


@needs_native
def test_exp_matches_the_emulation():
    values = np.concatenate([
        np.linspace(-104.5, 100.5, 400_001, dtype=np.float32),
        _float32_sample(200_000, -30, 7),
        np.array([0.0, -0.0, np.inf, -np.inf, np.nan, -104.0, 100.0, 88.72, 88.73, -87.34, -103.97, 1e-45, -1e-45,
                  np.nextafter(np.float32(-104), np.float32(0)), np.nextafter(np.float32(100), np.float32(200))],
                 np.float32)])
    out = np.empty_like(values)
    _native.exp_float32(values, out)
    assert _same_bits(out, simd._vector_exp(values))
    for count in range(1, 18):  # registers of eight and a shorter tail
        part = values[-count:]
        out = np.empty_like(part)
        _native.exp_float32(part, out)
        assert _same_bits(out, simd._vector_exp(part)), count


@needs_native
def test_double_exp_matches_the_emulation(monkeypatch):
    values = np.concatenate([np.linspace(-1001.0, 711.0, 200_001), _RNG.uniform(-20, 20, 100_000),
                             _RNG.standard_normal(20_000) * 1e-9,
                             [0.0, -0.0, np.inf, -np.inf, np.nan, 709.78, 709.79, -708.4, -745.2, -1000.0, 5e-324]])
    out = np.empty_like(values)
    _native.exp_float64(values, out)
    tails = []
    for count in range(1, 10):  # registers of four and a shorter tail
        tails.append(np.empty(count))
        _native.exp_float64(values[-count:], tails[-1])
    monkeypatch.setattr(simd, "native", None)
    assert _same_bits(out, simd.vector_exp64(values))
    for tail in tails:
        assert _same_bits(tail, simd.vector_exp64(values[-len(tail):])), len(tail)


def _sum_cases() -> list:
    """Arrays for torch.sum's loops: each of the four (inner and outer, vectorized and scalar),
    several chunks, a cascade's levels (long axes), zeros of both signs, inf and nan."""
    cases = []
    for shape in [(32, 200), (200, 27), (7,), (9,), (3, 5), (5000,), (70, 3, 9), (4, 1, 33), (2, 300, 5), (129, 17),
                  (33, 64), (1, 8), (1100, 3), (4, 70000), (1,), (3,), (2, 3), (1, 3, 1), (2, 1)]:
        for dtype in (np.float32, np.float64):
            x = (_RNG.standard_normal(shape) * 10.0 ** _RNG.integers(-3, 3, shape)).astype(dtype)
            x.reshape(-1)[::7] = -0.0
            cases += [x, x.T, x[..., ::-1], x[::2]]
    special = np.array([1.0, np.inf, -0.0, 2.0, np.nan, -np.inf, 3.0, -0.0] * 5, np.float32)
    return cases + [special, special.reshape(5, 8), -np.zeros((9, 10)), -np.zeros(40, np.float32),
                    -np.zeros(3, np.float32), -np.zeros((1, 2)), special[:7], special[1:5].astype(np.float64),
                    -np.zeros((), np.float32), np.array(-2.5)]


@needs_native
def test_sums_match_the_emulation(monkeypatch):
    """sum_kernel.cascade_sum, whose 2-D loop is native (sum_chunk), over every set of dimensions."""
    for x in _sum_cases():
        for count in range(x.ndim + 1):
            for dims in itertools.combinations(range(x.ndim), count):
                sum_kernel._SUM_PLANS.clear()
                with_native = sum_kernel.cascade_sum(x, dims)
                sum_kernel._SUM_PLANS.clear()
                with monkeypatch.context() as patch:
                    patch.setattr(sum_kernel, "native", None)
                    assert _same_bits(with_native, sum_kernel.cascade_sum(x, dims)), (x.shape, x.strides, dims)
    sum_kernel._SUM_PLANS.clear()
    small = np.array([0.5, -0.0, 3.25], np.float32)
    sum_kernel.cascade_sum(small, ())
    assert not sum_kernel._SUM_PLANS  # (a few values in memory order: no plan made)


@needs_native
@pytest.mark.parametrize("avx512", [False, True])
def test_log_matches_the_emulation(avx512, monkeypatch):
    monkeypatch.setattr(cpu, "ATEN_AVX512", avx512)
    # next to 1.5 * 2**e too, where the AVX2 and AVX-512 builds split d differently
    edges = (np.float32(1.5) * np.float32(2.0) ** np.arange(-20, 20, dtype=np.float32))[:, None] * (
        1 + np.arange(-8, 9, dtype=np.float32) * np.float32(2.0 ** -23))[None, :]
    values = np.abs(np.concatenate([_float32_sample(300_000, -126, 127),
                                    np.linspace(0.5, 2.0, 100_001, dtype=np.float32), edges.ravel()]))
    out = np.empty_like(values)
    assert _native.log_float32(values, out, avx512)
    assert _same_bits(out, simd._vector_log(values))


@needs_native
@pytest.mark.parametrize("special", [0.0, -1.0, np.inf, np.nan, 1e-40])
def test_log_leaves_special_values_to_the_emulation(special):
    """Zeros, negatives, inf, nan and subnormals: the native kernel declines, the whole array
    goes to the emulation, and vector_log's answer is the emulation's."""
    values = np.array([1.0, 2.0, special], np.float32)
    out = np.full(3, 7.0, np.float32)
    assert not _native.log_float32(values, out, False)
    assert np.all(out == 7.0)
    assert _same_bits(simd.vector_log(values), simd._vector_log(values))


@needs_native
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("width", [2, 4, 8, 16])
def test_lane_sum_matches_the_emulation(dtype, width):
    for size in list(range(1, 41)) + [127, 200]:
        for rows in (1, 3):
            values = (_RNG.standard_normal((rows, size)) * 10.0 ** _RNG.integers(-6, 7, (rows, size))).astype(dtype)
            values[:, ::7] = -0.0
            out = np.empty(rows, dtype)
            _native.lane_sum(values, out, width)
            assert _same_bits(out, simd._lane_sum(values, width, size)), (size, rows)
    zeros = np.full((2, 3), -0.0, dtype)  # a running sum from the first element keeps -0
    out = np.empty(2, dtype)
    _native.lane_sum(zeros, out, width)
    assert _same_bits(out, simd._lane_sum(zeros, width, 3))


def _emulated_products(a: np.ndarray, b: np.ndarray, fused: bool) -> np.ndarray:
    return kernels._emulated_fused_products(a, b) if fused else kernels._plain_products_in_order(a, b)


@needs_native
@pytest.mark.parametrize("fused", [True, False])
def test_products_match_the_emulation(fused):
    shapes = [(m, k, n) for m in (1, 3, 4, 5, 9) for k in (1, 2, 7, 30) for n in (1, 5, 8, 15, 16, 17, 27, 40)]
    for m, k, n in shapes:
        a = (_RNG.standard_normal((m, k)) * 2.0 ** _RNG.integers(-20, 20, (m, k))).astype(np.float32)
        b = (_RNG.standard_normal((k, n)) * 2.0 ** _RNG.integers(-20, 20, (k, n))).astype(np.float32)
        a[:, ::5] = -0.0
        out = np.empty((m, n), np.float32)
        _native.products(a, b, out, fused)
        assert _same_bits(out, _emulated_products(a, b, fused)), (m, k, n)
    a = np.array([[np.inf, 1.0], [np.nan, 2.0], [1e38, 1e38], [-0.0, -0.0]], np.float32)
    b = np.array([[0.0, 1.0, -1.0], [1e38, -0.0, 3.0]], np.float32)
    out = np.empty((4, 3), np.float32)
    with np.errstate(all="ignore"):
        _native.products(a, b, out, fused)
        assert _same_bits(out, _emulated_products(a, b, fused))


@needs_native
def test_matmul_takes_the_native_products(monkeypatch):
    """kernels.matmul's answers with the native products and without, for the shapes of
    makemore's MLP and the panels of a long sum."""
    for (m, k), n in [((32, 30), 200), ((32, 200), 27), ((200, 32), 27), ((30, 32), 200), ((5, 400), 13)]:
        a = _RNG.standard_normal((m, k)).astype(np.float32)
        b = _RNG.standard_normal((k, n)).astype(np.float32)
        for right in (b, np.asfortranarray(b)):
            with_native = kernels.matmul(a, right)
            monkeypatch.setattr(kernels, "native", None)
            assert _same_bits(with_native, kernels.matmul(a, right)), (m, k, n)
            monkeypatch.undo()


@needs_native
@pytest.mark.parametrize("lanes", [4, 8])
def test_dot_products_match_the_emulation(lanes, monkeypatch):
    for m, k, n in [(2, 4, 1), (3, 8, 3), (5, 12, 4), (2, 36, 8), (4, 512, 3), (3, 7, 2)]:
        a = (_RNG.standard_normal((m, k)) * 2.0 ** _RNG.integers(-20, 20, (m, k))).astype(np.float32)
        rows = (_RNG.standard_normal((n, k)) * 2.0 ** _RNG.integers(-20, 20, (n, k))).astype(np.float32)
        rows[:, ::3] = -0.0
        out = np.empty((m, n), np.float32)
        _native.dot_products(a, rows, out, lanes)
        monkeypatch.setattr(kernels, "native", None)
        assert _same_bits(out, kernels._dot_products(a, rows, lanes)), (m, k, n)
        monkeypatch.undo()


def _float64_sample(count: int, low_exponent: int, high_exponent: int) -> np.ndarray:
    """Random float64 of both signs, their exponents spread evenly over a range."""
    mantissa = _RNG.integers(0, 1 << 52, count, dtype=np.uint64)
    exponent = _RNG.integers(low_exponent + 1023, high_exponent + 1024, count).astype(np.uint64)
    sign = _RNG.integers(0, 2, count).astype(np.uint64) << np.uint64(63)
    return (sign | exponent << np.uint64(52) | mantissa).view(np.float64)


def _with_specials(x: np.ndarray) -> np.ndarray:
    x = x.copy()
    x[:8] = [0.0, -0.0, np.inf, -np.inf, np.nan, np.finfo(x.dtype).tiny, -np.finfo(x.dtype).max, 1.0]
    return x


@needs_native
@pytest.mark.parametrize("sample", [_float32_sample, _float64_sample])
def test_fma_matches_the_emulation(monkeypatch, sample):
    # exponents reaching past the emulations' safe range, where they compute exactly
    wide = (-60, 60) if sample is _float32_sample else (-1000, 1000)
    a, b, c = (_with_specials(sample(100_000, *wide)) for _ in range(3))
    near = sample(100_000, -30, 30)
    one, two = a.dtype.type(3.5), a.dtype.type(-2.0)
    cases = [(a, b, c), (a, one, c), (two, b, np.asarray(1e-3, a.dtype)), (near, near[::-1], -near * near[::-1]),
             (a.reshape(400, 250), b[:250], c.reshape(400, 250).T.T), (a[::2], b[1::2], one),
             (np.asarray(one), np.asarray(two), np.asarray(one))]
    with np.errstate(all="ignore"):
        for args in cases:
            fused = kernels.fused_multiply_add(*args)
            with monkeypatch.context() as patch:
                patch.setattr(kernels, "native", None)
                assert _same_bits(fused, kernels.fused_multiply_add(*args))
            if sample is _float32_sample:
                assert _same_bits(random._fma32(*args), np.asarray(fused)[()])


@needs_native
def test_welford_matches_the_emulation():
    for rows, count in [(1, 1), (3, 7), (40, 512), (2, 1000)]:
        values = _RNG.standard_normal((rows, count)) * 10.0 ** _RNG.integers(-5, 5, (rows, 1))
        out = np.empty(rows)
        _native.welford_squares(values, out)
        assert _same_bits(out, np.array([statistics._welford_squares(row) for row in values.tolist()]))


@needs_native
def test_address_is_the_array_interfaces():
    base = np.arange(60.0).reshape(6, 10)
    read_only = np.ones(3)
    read_only.flags.writeable = False
    for array in (base, base[::-2, 3:], base.T, base[2:2], np.float32(1.5) * np.ones((2, 3), np.float32),
                  read_only, np.zeros(4, ">f4"), np.zeros((), np.int64), base.astype(np.complex64)[1:]):
        assert _native.address(array) == array.__array_interface__["data"][0]


@needs_native
def test_buffers_are_checked():
    x32, x64 = np.ones(4, np.float32), np.ones(4, np.float64)
    with pytest.raises(TypeError):
        _native.exp_float32(x64, x64)
    with pytest.raises(ValueError):
        _native.exp_float32(x32, np.ones(3, np.float32))
    with pytest.raises((TypeError, ValueError, BufferError)):
        _native.exp_float32(x32, np.ones(4, np.float32)[::-1][::1].copy().reshape(2, 2).T)  # not C-contiguous
    read_only = np.ones(4, np.float32)
    read_only.flags.writeable = False
    with pytest.raises((TypeError, ValueError, BufferError)):
        _native.exp_float32(x32, read_only)
    with pytest.raises(TypeError):
        _native.exp_float32(x32.astype(">f4"), x32.copy())  # not this machine's byte order
    with pytest.raises(ValueError):
        _native.lane_sum(np.ones((2, 3), np.float32), np.ones(3, np.float32), 8)
    with pytest.raises(ValueError):
        _native.lane_sum(np.ones((2, 3), np.float32), np.ones(2, np.float32), 3)
    with pytest.raises(ValueError):
        _native.products(np.ones((2, 3), np.float32), np.ones((4, 2), np.float32), np.ones((2, 2), np.float32), True)
    with pytest.raises(ValueError):
        _native.products(np.ones((2, 3), np.float32), np.ones((3, 2), np.float32), np.ones((2, 3), np.float32), True)
    with pytest.raises(TypeError):
        _native.products(b"abcdefgh", np.ones((2, 2), np.float32), np.ones((2, 2), np.float32), True)
    with pytest.raises(TypeError):
        _native.fused_multiply_add(x32, x64, x32, x32.copy())  # formats mixed
    with pytest.raises(ValueError):
        _native.fused_multiply_add(x64, np.ones(3), x64, x64.copy())
    with pytest.raises((TypeError, ValueError, BufferError)):
        _native.fused_multiply_add(x32, x32, x32, read_only)
    with pytest.raises(TypeError):
        _native.fused_multiply_add(x32, x32, x32, np.ones(4, np.int32))
    block = np.ones((3, 8), np.float32)
    with pytest.raises(ValueError):
        _native.sum_chunk(block, 4, 32, np.ones(2, np.float32))  # out too short
    with pytest.raises(ValueError):
        _native.sum_chunk(block, 4, 64, np.ones(3, np.float32))  # strides that are not the block's
    with pytest.raises(TypeError):
        _native.sum_chunk(np.ones(8, np.float32), 4, 0, np.ones(1, np.float32))  # not 2-D
    with pytest.raises(TypeError):
        _native.sum_chunk(block, 4, 32, np.ones(3))  # formats mixed
    with pytest.raises((TypeError, ValueError, BufferError)):
        _native.sum_chunk(block, 4, 32, np.ones(3, np.float32)[::-1])  # not contiguous
    targets = np.zeros(3, np.int64)
    with pytest.raises(TypeError):
        _native.nll_loss_sum(block, targets.astype(np.int32), -100, None)  # targets not int64
    with pytest.raises(TypeError):
        _native.nll_loss_sum(block, np.zeros(2, np.int64), -100, None)  # one target a row
    with pytest.raises(ValueError):
        _native.nll_loss_sum(block, targets, -100, np.ones(7, np.float32))  # fewer weights than classes
    with pytest.raises(TypeError):
        _native.nll_loss_sum(block, targets, -100, np.ones(8))  # formats mixed
    assert _native.nll_loss_sum(block, np.array([0, 8, -1]), -100, None)[2] == 1  # the first out of bounds


@needs_native
def test_numpy_storages_start_on_64_bytes():
    """numpy's arrays start where c10's storages do, so that MKL's operands need no copy; each way
    numpy allocates, frees and grows them keeps their values."""
    try:
        from numpy._core.multiarray import get_handler_name
    except ImportError:  # numpy 1
        from numpy.core.multiarray import get_handler_name
    assert get_handler_name() == "gradcalc_aligned_64"
    assert not _native.align_numpy_storages()  # once only: the module's first import did it
    arrays = [np.empty(n, np.uint8) for n in (0, 1, 3, 63, 64, 65, 4097)]
    arrays += [np.zeros((300, 300)), np.ones(7, np.float32), np.arange(100.0)[::3].copy()]
    assert all(native.address(x) % 64 == 0 for x in arrays)
    assert not np.zeros(1 << 20).any()
    grown = np.arange(1000)
    grown.resize(200_000, refcheck=False)  # numpy's realloc
    assert native.address(grown) % 64 == 0 and np.array_equal(grown[:1000], np.arange(1000)) and not grown[1000:].any()
    grown.resize(10, refcheck=False)
    assert np.array_equal(grown, np.arange(10))


@needs_native
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_uniform_samples_match_the_emulation(monkeypatch, dtype):
    """random.uniform_ from the twister's draws in one native pass: the numpy steps' bits, over
    ranges where results round up to `to` (which becomes `from`), tiny, huge and negative ones."""
    for low, high in [(0.0, 1.0), (-1.0, 1.0), (-0.0883883476, 0.0883883476), (1.0, 1.0 + 2 ** -20), (5.0, 5.0),
                      (-1.5e38, 1.5e38), (1e-30, 2e-30), (-7.5, -2.25), (0.999999, 1.0)]:
        for count in (0, 1, 7, 1000):
            generator = random.Generator()._seeded(count + 17)
            drawn = random.uniform_((count,), low, high, dtype, generator)
            with monkeypatch.context() as patch:
                patch.setattr(random, "native", None)
                emulated = random.uniform_((count,), low, high, dtype, random.Generator()._seeded(count + 17))
            assert _same_bits(drawn, emulated), (low, high, count)
            assert generator._random(1) == random.Generator()._seeded(count + 17)._random(
                count * (2 if dtype == "float64" else 1) + 1)[-1:]  # as many draws taken


@needs_native
def test_normal_values_match_the_emulation(monkeypatch):
    """A few normal values' Box-Muller from the twister's draws in C (libm's log1p, sqrt, cos and
    sin, then fma with std and mean) gives Python's math functions' and numpy's bits, for any
    draws and the extreme ones (u = 0, u near 1), a cached value first or not, an odd count's
    second value left over; and randn's values and cache come out the same over several calls."""
    extreme = np.array([0, 0, 0, 0, 2 ** 32 - 1, 2 ** 32 - 1, 2 ** 32 - 1, 2 ** 32 - 1, 0, 1, 2 ** 32 - 1, 0],
                       np.uint64)
    cases = [(_RNG.integers(0, 2 ** 32, 4 * 5000, dtype=np.uint64), None, 10000), (extreme, None, 5),
             (extreme, -0.25, 6), (extreme, 1.5, 7), (np.zeros(0, np.uint64), 0.75, 1)]
    for raw, cached, count in cases:
        for mean, std in ((0.0, 1.0), (-3.0, 0.5), (2.0, 1.0), (np.inf, 1.0), (0.0, np.inf)):
            ours, theirs = np.empty(count), np.empty(count)
            left = random._normal_values(raw, cached, mean, std, ours)
            with monkeypatch.context() as patch, np.errstate(all="ignore"):
                patch.setattr(random, "native", None)
                assert left == random._normal_values(raw, cached, mean, std, theirs)
            assert _same_bits(ours, theirs), (count, cached, mean, std)
    for count in (1, 2, 3, 5, 15):
        generator, emulated = random.Generator()._seeded(count), random.Generator()._seeded(count)
        drawn = [random.randn((count,), "float32", generator) for _ in range(3)]
        with monkeypatch.context() as patch:
            patch.setattr(random, "native", None)
            theirs = [random.randn((count,), "float32", emulated) for _ in range(3)]
        assert all(_same_bits(a, b) for a, b in zip(drawn, theirs)), count
        assert generator._normal_cache == emulated._normal_cache
    with pytest.raises(ValueError):
        _native.normal_values(np.zeros(4, np.uint64), None, 0.0, 1.0, np.empty(3))


@needs_native
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
def test_normal_fill_matches_the_emulation(monkeypatch, dtype):
    """normal_fill's blocks of 16 in C (float: the AVX2 kernel's log and sincos polynomials, with
    their fused multiply-adds; double: libm's) give the numpy emulation's bits, a last partial
    block redrawn included, for standard, shifted, huge and infinite means, and take as many
    draws."""
    cases = itertools.product((16, 17, 31, 100, 4099),
                              ((0.0, 1.0), (-2.5, 0.3), (1e300, 1.0), (np.inf, 2.0), (0.0, np.inf)))
    for count, (mean, std) in [*cases, (100_000, (0.0, 1.0))]:  # (a polynomial's last bits show in 1 in 4,000)
        generator, emulated = random.Generator()._seeded(count), random.Generator()._seeded(count)
        drawn = random.normal_((count,), mean, std, dtype, generator)
        with monkeypatch.context() as patch:
            patch.setattr(random, "native", None)
            theirs = random.normal_((count,), mean, std, dtype, emulated)
        assert _same_bits(drawn, theirs), (count, mean, std)
        assert generator._random(1) == emulated._random(1)
    with pytest.raises(ValueError):
        _native.box_muller16(np.zeros(16, np.uint64), 0.0, 1.0, np.empty(16))  # a double takes two draws


@needs_native
def test_raw_draws_are_the_bit_generators_random_raw():
    """The twister's draws taken in C through its bitgen_t: random_raw's, in order, and the
    generator left where random_raw leaves it (a draw of any size, none included)."""
    ours, numpys = np.random.MT19937(2147483647), np.random.MT19937(2147483647)
    for count in (0, 1, 3, 623, 624, 625, 5000):
        drawn = np.empty(count, np.uint64)
        _native.raw_draws(ours.capsule, drawn)
        assert drawn.tolist() == numpys.random_raw(count).tolist(), count
    assert ours.state["state"]["pos"] == numpys.state["state"]["pos"]
    assert ours.state["state"]["key"].tolist() == numpys.state["state"]["key"].tolist()
    with pytest.raises(TypeError):
        _native.raw_draws(ours.capsule, np.empty(3, np.float64))


@needs_native
def test_integer_draws_match_numpys_arithmetic(monkeypatch):
    """randint's (draw % range) + base in one C loop: numpy's uint64 arithmetic, which wraps as
    C++'s does, for small, 64-bit and full ranges and negative bases."""
    for low, high in [(0, 27), (-5, 5), (3, 1 << 28), (0, 1 << 40), (-(1 << 63), (1 << 63) - 1), (-(1 << 62), 1)]:
        drawn = random.randint(low, high, (100,), "int64", random.Generator()._seeded(3))
        with monkeypatch.context() as patch:
            patch.setattr(random, "native", None)
            emulated = random.randint(low, high, (100,), "int64", random.Generator()._seeded(3))
        assert np.array_equal(drawn, emulated) and drawn.min() >= low and drawn.max() < high, (low, high)
    with pytest.raises(ValueError):
        _native.draws_in_range(np.zeros(4, np.uint64), 0, 0)
    with pytest.raises(TypeError):
        _native.draws_in_range(np.zeros(4, np.int32), 5, 0)


@needs_native
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_nll_loss_matches_the_emulation(monkeypatch, dtype):
    """nll_loss's loop (sum and total weight, mean and sum, with and without class weights,
    ignored targets, a strided input) gives the bits of _nll_values' numpy cascade, across the
    batch sizes where its levels carry."""
    from gradcalc.autograd import dtypes
    from gradcalc.autograd.ops import loss
    from gradcalc.autograd.tensor import Tensor

    kind = dtypes.from_numpy(np.dtype(dtype))
    for rows in (0, 1, 2, 3, 16, 17, 31, 32, 33, 255, 256, 257, 4097, 70_000):
        wide = (_RNG.standard_normal((rows, 24)) * 10.0 ** _RNG.integers(-4, 5, (rows, 1))).astype(dtype)
        for x in (wide, wide[:, ::2], np.asfortranarray(wide)):
            classes = x.shape[1]
            targets = _RNG.integers(0, classes, rows)
            targets[::7] = 3  # ignored below, where ignore_index is 3
            weight = Tensor._make(_RNG.uniform(0.1, 2.0, classes).astype(dtype), kind)
            for weights, reduction, ignore_index in itertools.product((None, weight), (loss.MEAN, loss.SUM),
                                                                      (-100, 3)):
                results = []
                for kernels_here in (_native, None):
                    monkeypatch.setattr(loss, "native", kernels_here)
                    results.append(loss._nll_values(x, targets, weights, reduction, ignore_index, per_target=False))
                assert all(_same_bits(ours, theirs) for ours, theirs in zip(*results)), (rows, x.strides, reduction)


@needs_native
def test_ready_queue_takes_the_python_heaps_steps(monkeypatch):
    """The engine's ready queue in C gives nodes out in the order of its Python version (libstdc++'s
    heap steps), ties included (leaves' AccumulateGrad share one priority), over random pushes and pops."""
    from gradcalc.autograd import engine

    class Item:
        __slots__ = ("_seq",)

        def __init__(self, seq: int) -> None:
            self._seq = seq

    for trial in range(200):
        items = [Item(engine.LAST if _RNG.random() < 0.3 else int(_RNG.integers(0, 50))) for _ in range(60)]
        steps = _RNG.random(120) < 0.6
        orders = []
        for kernels_here in (_native, None):
            monkeypatch.setattr(engine, "native", kernels_here)
            queue, order, pushed = engine._ReadyQueue(), [], iter(items)
            for push in steps:
                if push or not queue.heap:
                    item = next(pushed, None)
                    if item is not None:
                        queue.push(item)
                elif queue.heap:
                    order.append(queue.pop())
            while queue.heap:
                order.append(queue.pop())
            orders.append([id(item) for item in order])
        assert orders[0] == orders[1]
    with pytest.raises(TypeError):
        _native.heap_pop([])
    with pytest.raises(AttributeError):
        _native.heap_push([], object())


@needs_native
@pytest.mark.parametrize("avx512", [False, True])
def test_float64_sigmoid_matches_the_emulation(monkeypatch, avx512):
    """float64 sigmoid in one pass gives the bits of its emulation (SLEEF's exp on whole register
    pairs of each row, the C library's on the rest), for rows of every length around the pairs,
    a strided gate chunk, and the inputs where exp overflows or is special."""
    monkeypatch.setattr(cpu, "ATEN_AVX512", avx512)
    values = np.concatenate([_RNG.standard_normal(3000) * 8, _RNG.uniform(-800, 800, 500),
                             [0.0, -0.0, np.inf, -np.inf, np.nan, 709.8, -709.8, 745.2, -745.2, 36.5, -36.5]])
    gates = _RNG.standard_normal((12, 4 * 51))
    cases = [(gates[:, 51:102], 51), (gates, 0)] + [(values[:rows * (values.size // rows)].reshape(-1, rows), rows)
                                                    for rows in (1, 3, 7, 8, 9, 15, 16, 17, 33, 51)]
    for x, row in cases:
        ours = simd.sigmoid64(x, row)
        monkeypatch.setattr(simd, "native", None)
        theirs = simd.sigmoid64(x, row)
        monkeypatch.setattr(simd, "native", _native)
        assert _same_bits(ours, theirs), (x.shape, row)


@needs_native
@pytest.mark.parametrize("avx512", [False, True])
def test_log_softmax_matches_the_emulation(monkeypatch, avx512):
    """float32 log_softmax along the last axis and its gradient, each in one native pass, give the
    bits of the emulation (max, SLEEF's exp, lane sums, SLEEF's logf, fused multiply-adds) for rows
    of every length around the lanes; a row whose maximum is zero, infinite or nan is left to it."""
    from gradcalc.autograd.ops import activation

    monkeypatch.setattr(cpu, "ATEN_AVX512", avx512)
    for size in (1, 2, 7, 8, 9, 15, 16, 17, 27, 33, 100):
        x = (_RNG.standard_normal((40, size)) * 10.0 ** _RNG.integers(-3, 3, (40, 1))).astype(np.float32)
        grad = _RNG.standard_normal((40, size)).astype(np.float32)
        ours = activation._softmax_kernel(x, 1, True, True)
        assert simd.log_softmax_rows(x) is not None
        ours_grad = simd.log_softmax_grad_rows(grad, ours)
        monkeypatch.setattr(simd, "native", None)
        theirs = activation._softmax_kernel(x, 1, True, True)
        exp_y = simd.vector_exp(theirs)
        theirs_grad = simd.fused_multiply_add(-exp_y, simd.lane_sum(grad)[..., None], grad)
        monkeypatch.setattr(simd, "native", _native)
        assert _same_bits(ours, theirs) and _same_bits(ours_grad, theirs_grad), size
    # (a row of 27 has its special value in a whole register or among the 3 left over)
    for special, (size, position) in itertools.product((0.0, -0.0, np.inf, -np.inf, np.nan),
                                                       ((5, 3), (27, 3), (27, 25))):
        x = np.full((2, size), -1.0, np.float32)
        x[1, position] = special
        if special != -np.inf:
            assert simd.log_softmax_rows(x) is None, (special, size, position)
        else:  # a row's maximum is what counts: -inf among finite values is computed here
            ours = simd.log_softmax_rows(x)
            monkeypatch.setattr(simd, "native", None)
            assert _same_bits(ours, activation._softmax_kernel(x, 1, True, True))
            monkeypatch.setattr(simd, "native", _native)
    with pytest.raises(ValueError):
        _native.log_softmax_float32(np.ones(4, np.float32), np.ones(3, np.float32), 8, False)
    with pytest.raises(ValueError):
        _native.log_softmax_float32(np.ones(4, np.float32), np.ones(4, np.float32), 3, False)
    with pytest.raises(ValueError):
        _native.log_softmax_backward_float32(np.ones(4, np.float32), np.ones(4, np.float32), np.ones(3, np.float32),
                                             8)


@needs_native
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_row_indexing_matches_the_emulation(monkeypatch, dtype):
    """Indexing by rows (C[X]): its bounds read in one pass, and its gradient's additions into the
    rows, repeated and negative rows among them, give what numpy's reductions and ufunc.at give."""
    from gradcalc.autograd import dtypes, grad_mode
    from gradcalc.autograd.ops import indexing
    from gradcalc.autograd.tensor import Tensor

    kind = dtypes.from_numpy(np.dtype(dtype))
    previous = grad_mode.is_grad_enabled()
    grad_mode._set_enabled(False)  # the backward's arrays, recording nothing
    try:
        for height, rows_shape, inner in ((27, (32, 3), (10,)), (5, (200,), ()), (3, (4, 2), (2, 3)), (1, (7,), (4,))):
            rows = _RNG.integers(-height, height, rows_shape)
            grad = Tensor._make((_RNG.standard_normal(rows_shape + inner) * 1e3).astype(dtype), kind)
            results = []
            for kernels_here in (_native, None):
                monkeypatch.setattr(indexing, "native", kernels_here)
                index = Tensor._make(rows, dtypes.int64)
                results.append((indexing._index_grad(grad, (height, *inner), (rows,))._data,
                                indexing._in_bounds(index, height), indexing._in_bounds(index, height - 1)))
            assert _same_bits(results[0][0], results[1][0]) and results[0][1:] == results[1][1:]
    finally:
        grad_mode._set_enabled(previous)
    with pytest.raises(IndexError):
        _native.add_rows(np.zeros((3, 2)), np.array([0, 3]), np.ones(4))
    with pytest.raises(ValueError):
        _native.add_rows(np.zeros((3, 2)), np.array([0, 1]), np.ones(3))
    with pytest.raises(TypeError):
        _native.add_rows(np.zeros((3, 2)), np.array([0, 1], np.int32), np.ones(4))
    with pytest.raises(TypeError):
        _native.add_rows(np.zeros((3, 2)), np.array([0, 1]), np.ones(4, np.float32))
    with pytest.raises(TypeError):
        _native.int64_range(np.zeros(0, np.int64))
    assert _native.int64_range(np.array([4, -7, 2])) == (-7, 4)


@needs_native
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_nll_loss_gradient_matches_the_emulation(monkeypatch, dtype):
    """nll_loss's gradient written at the targets in C gives the emulation's bits: each reduction,
    with and without class weights, ignored targets, a 1-d input's one target."""
    from gradcalc.autograd import dtypes
    from gradcalc.autograd.ops import loss
    from gradcalc.autograd.tensor import Tensor

    kind = dtypes.from_numpy(np.dtype(dtype))
    for rows, classes in ((0, 4), (1, 5), (32, 27), (257, 10)):
        inputs = Tensor._make(_RNG.standard_normal((rows, classes)).astype(dtype), kind)
        targets = _RNG.integers(0, classes, rows)
        targets[::5] = 2
        target = Tensor._make(targets, dtypes.int64)
        weight = Tensor._make(_RNG.uniform(0.1, 2.0, classes).astype(dtype), kind)
        total_weight = Tensor._make(np.asarray(_RNG.uniform(1, 50), dtype), kind)
        for weights, reduction, ignore_index in itertools.product((None, weight), (loss.MEAN, loss.SUM, loss.NONE),
                                                                  (-100, 2)):
            grad = Tensor._make(_RNG.standard_normal(rows if reduction == loss.NONE else ()).astype(dtype), kind)
            results = []
            for kernels_here in (_native, None):
                monkeypatch.setattr(loss, "native", kernels_here)
                results.append(loss._nll_input_grad(grad, inputs, target, weights, reduction, ignore_index,
                                                    total_weight))
            assert _same_bits(*results), (rows, reduction, ignore_index)
    one = Tensor._make(np.ones(5, dtype), kind)
    assert loss._nll_input_grad(Tensor._make(np.asarray(1, dtype), kind), one, Tensor._make(np.asarray(3), dtypes.int64),
                                None, loss.SUM, -100, one).tolist() == [[0, 0, 0, -1, 0]]
    with pytest.raises(TypeError):
        _native.nll_loss_grad(np.zeros((2, 3)), np.zeros(2, np.int32), -100, None, np.ones(2))
    with pytest.raises(ValueError):
        _native.nll_loss_grad(np.zeros((2, 3)), np.zeros(2, np.int64), -100, None, np.ones(3))
    assert _native.nll_loss_grad(np.zeros((2, 3)), np.array([0, 3]), -100, None, np.ones(2)) == 1


@needs_native
def test_tanh_gradient_matches_the_emulation(monkeypatch):
    """float32 tanh's gradient in one pass gives tanh_backward's numpy steps' bits, outputs near
    saturation (where the fused bracket decides the bits) among them."""
    from gradcalc.autograd import dtypes
    from gradcalc.autograd.ops import pointwise
    from gradcalc.autograd.tensor import Tensor

    output = np.tanh(np.concatenate([_RNG.standard_normal(4998) * 4, [0.0, -0.0, 9.0, -9.0, np.inf, np.nan]]))
    output = Tensor._make(output.astype(np.float32).reshape(-1, 6), dtypes.float32)
    grad = Tensor._make(_RNG.standard_normal(output._data.shape).astype(np.float32), dtypes.float32)
    ours = pointwise.tanh_backward(grad, output)._data
    monkeypatch.setattr(pointwise, "native", None)
    assert _same_bits(ours, pointwise.tanh_backward(grad, output)._data)
    with pytest.raises(ValueError):
        _native.tanh_grad_float32(np.ones(3, np.float32), np.ones(3, np.float32), np.ones(2, np.float32))


@needs_native
@pytest.mark.parametrize("avx512", [False, True])
def test_onednn_direct_convolution_matches_the_emulation(monkeypatch, avx512):
    """oneDNN's direct float32 convolution in C gives the bits of its numpy emulation: channels
    within one block and across several (a partial last block), strides, padding, 1x1 kernels,
    with and without a bias, few output channels (the plane loop) and many (the position loop)."""
    from gradcalc.autograd.ops import convolution

    monkeypatch.setattr(cpu, "ATEN_AVX512", avx512)
    cases = [((2, 1, 12, 12), (6, 1, 5, 5), (1, 1), (2, 2)), ((2, 6, 9, 9), (16, 6, 3, 3), (1, 1), (0, 0)),
             ((1, 20, 7, 8), (24, 20, 3, 3), (2, 1), (1, 1)), ((2, 40, 6, 6), (8, 40, 3, 3), (1, 2), (1, 0)),
             ((3, 19, 5, 5), (17, 19, 1, 1), (2, 2), (0, 0)), ((1, 3, 4, 4), (5, 3, 1, 1), (1, 1), (1, 1))]
    for x_shape, w_shape, stride, padding in cases:
        x = (_RNG.standard_normal(x_shape) * 3).astype(np.float32)
        w = _RNG.standard_normal(w_shape).astype(np.float32)
        for bias in (None, _RNG.standard_normal(w_shape[0]).astype(np.float32)):
            ours = convolution._onednn_direct(x, w, bias, stride, padding)
            monkeypatch.setattr(convolution, "native", None)
            theirs = convolution._onednn_direct(x, w, bias, stride, padding)
            monkeypatch.setattr(convolution, "native", _native)
            assert _same_bits(ours, theirs), (x_shape, w_shape, stride, padding, bias is None)
        if stride == (1, 1) and w_shape[2:] != (1, 1):  # the input's gradient, through the same kernel
            grad = _RNG.standard_normal(ours.shape).astype(np.float32)
            ours = convolution._onednn_direct_grad_input(grad, w, x_shape, padding)
            monkeypatch.setattr(convolution, "native", None)
            theirs = convolution._onednn_direct_grad_input(grad, w, x_shape, padding)
            monkeypatch.setattr(convolution, "native", _native)
            assert ours.shape == x_shape and _same_bits(ours, theirs), (x_shape, w_shape, padding)
    with pytest.raises(ValueError):  # an output of another size than the strides give
        _native.conv2d_direct_float32(np.ones((1, 2, 5, 5), np.float32), np.ones((3, 2, 3, 3), np.float32), None,
                                      np.ones((1, 3, 2, 2), np.float32), 1, 1, 16, True)
    with pytest.raises(ValueError):  # a bias of another length than the output channels
        _native.conv2d_direct_float32(np.ones((1, 2, 5, 5), np.float32), np.ones((3, 2, 3, 3), np.float32),
                                      np.ones(2, np.float32), np.ones((1, 3, 3, 3), np.float32), 1, 1, 16, True)
    with pytest.raises(TypeError):
        _native.conv2d_direct_float32(np.ones((1, 2, 5, 5)), np.ones((3, 2, 3, 3), np.float32), None,
                                      np.ones((1, 3, 3, 3), np.float32), 1, 1, 16, True)
