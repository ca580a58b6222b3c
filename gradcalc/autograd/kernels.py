"""The order of arithmetic in PyTorch's CPU kernels, where it decides the last bits of a result
(torch.sum's own is sum_kernel.py): the steps where PyTorch's kernels fuse a multiply and an add
(add with alpha, addcmul, lerp: what the optimizers are made of), the split of an element-wise
kernel between its SIMD and scalar loops, RowwiseMoments' statistics, and the order of MKL's
matrix products for small shapes.
"""
from __future__ import annotations

import math
import threading
from typing import Any, Callable, Iterator

import numpy as np

from . import cpu
from .native import kernels as native
from .sum_kernel import ceil_log2

def fused_multiply_add(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    """a * b + c with one rounding, as an FMA instruction computes it, in the dtype of the arrays
    (float32 or float64)."""
    if native is not None:
        fused = _native_fused(a, b, c)
        if fused is not None:
            return fused
    a, b, c = np.broadcast_arrays(a, b, c)
    if a.dtype.type is np.float64:
        return _fused_float64(a, b, c)
    return rounded_fused_float32(a.astype(np.float64) * b.astype(np.float64), c)


def _native_fused(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> Any:
    """fused_multiply_add by the native kernel, for three float32 or three float64 arrays (else
    None): each passed whole and contiguous, or as its one element when it has one."""
    a, b, c = np.asarray(a), np.asarray(b), np.asarray(c)
    kind = a.dtype
    if kind.type not in (np.float32, np.float64) or b.dtype != kind or c.dtype != kind:
        return None
    shape = a.shape if a.shape == b.shape == c.shape else np.broadcast_shapes(a.shape, b.shape, c.shape)
    operands = [np.ascontiguousarray(x if x.shape == shape or x.size == 1 else np.broadcast_to(x, shape))
                for x in (a, b, c)]
    out = np.empty(shape, kind)
    native.fused_multiply_add(*operands, out)
    return out


# Where the error-free transformations below are exact: no factor, addend or product near
# overflow (Veltkamp's split multiplies by 2**27 + 1) nor so small that a rounding error underflows.
_LARGEST_SAFE, _SMALLEST_SAFE = 2.0 ** 500, 2.0 ** -900


def _fused_float64(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    """float64 a * b + c rounded once, whole arrays at a time: Boldo and Melquiond's emulation
    (the product split exactly into two floats by Dekker's algorithm, added to c exactly by
    Knuth's two-sum, the low parts added rounded to odd, then the one rounding to nearest).
    Elements out of its safe range are computed exactly with fractions; non-finite ones as
    a * b + c, which is then what an FMA gives."""
    a, b, c = (np.asarray(x, dtype=np.float64) for x in (a, b, c))
    product = a * b
    high, low = product, _product_error(a, b, product)
    total, total_error = _two_sum(c, high)
    rest = low + total_error
    rest_error = _two_sum_error(low, total_error, rest)
    # rounded to odd: an inexact sum with an even last bit moves to its other neighbour
    inexact_even = (rest_error != 0) & ((rest.view(np.uint64) & np.uint64(1)) == 0)
    if inexact_even.any():
        rest = np.where(inexact_even, np.nextafter(rest, np.copysign(np.inf, rest_error)), rest)
    # an exact `total` keeps its sign of zero (-0.0 * 1.0 + -0.0 is -0.0)
    out = np.where(rest == 0, total, total + rest)
    magnitude = np.maximum(np.maximum(np.abs(a), np.abs(b)), np.abs(c))
    unsafe = ~(magnitude < _LARGEST_SAFE) | ((product != 0) & (np.abs(product) < _SMALLEST_SAFE)) | (
        (c != 0) & (np.abs(c) < _SMALLEST_SAFE))
    if unsafe.any():
        out = np.array(out, dtype=np.float64)  # writable, whatever broadcasting made
        out[unsafe] = _exact_fused(a[unsafe], b[unsafe], c[unsafe])
    return out


def _two_sum(x: np.ndarray, y: np.ndarray) -> tuple:
    total = x + y
    return total, _two_sum_error(x, y, total)


def _two_sum_error(x: np.ndarray, y: np.ndarray, total: np.ndarray) -> np.ndarray:
    """x + y - total exactly (Knuth), total being x + y rounded."""
    y_part = total - x
    return (x - (total - y_part)) + (y - y_part)


def _product_error(a: np.ndarray, b: np.ndarray, product: np.ndarray) -> np.ndarray:
    """a * b - product exactly (Dekker), product being a * b rounded."""
    a_high, a_low = _split(a)
    b_high, b_low = _split(b)
    return ((a_high * b_high - product) + a_high * b_low + a_low * b_high) + a_low * b_low


def _split(x: np.ndarray) -> tuple:
    """x as two floats of 26 significant bits at most (Veltkamp)."""
    scaled = x * 134217729.0  # 2**27 + 1
    high = scaled - (scaled - x)
    return high, x - high


def _exact_fused(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    from fractions import Fraction  # exact arithmetic, rarely needed: not imported at start-up

    exact = [_rounded(Fraction(x) * Fraction(y) + Fraction(z)) if math.isfinite(x) and math.isfinite(y)
             and math.isfinite(z) else x * y + z for x, y, z in zip(a.tolist(), b.tolist(), c.tolist())]
    return np.array(exact, dtype=np.float64)


def _rounded(exact: Any) -> float:
    """An exact value rounded to a double: past the largest, infinity (as the fused operation gives)."""
    try:
        return float(exact)
    except OverflowError:
        return math.inf if exact > 0 else -math.inf


def rounded_fused_float32(product: np.ndarray, addend: np.ndarray) -> np.ndarray:
    """product + addend rounded once to float32, `product` being a product of float32 values (exact
    in float64) and `addend` float32 values. The error of their float64 sum is exact too (two-sum),
    and settles the one case that rounding twice gets wrong: a sum on a float32 midpoint (of two
    normal floats, whose bit pattern is tested; below float32's normal range every sum is settled,
    but a sum of 0, which is exact)."""
    total = np.asarray(product + addend)
    bits = total.view(np.uint64)
    doubtful = ((bits & _BELOW_FLOAT32) == _FLOAT32_MIDPOINT) | (
        (bits & _FLOAT64_MAGNITUDE) - _ONE_BIT < _BELOW_FLOAT32_NORMAL)  # (0 wraps round)
    if np.logical_or.reduce(doubtful, axis=None):  # a few elements: settled apart from the whole array
        rough = total[doubtful]
        product = np.broadcast_to(product, total.shape)[doubtful]
        addend = np.broadcast_to(addend, total.shape)[doubtful]
        virtual = rough - product
        error = (product - (rough - virtual)) + (addend - virtual)
        # an inexact sum rounded to odd, which no float32 nor midpoint of two ends with; toward
        # the error's sign, as the error may be far below the sum's last bit
        odd = (error != 0) & ((rough.view(np.uint64) & np.uint64(1)) == 0)
        total[doubtful] = np.where(odd, np.nextafter(rough, np.copysign(np.inf, error)), rough)
    rounded = total.astype(np.float32)
    return rounded if rounded.ndim else rounded[()]  # a scalar from scalars, as numpy's arithmetic gives


# float64 bit patterns: the bits below float32's precision, their value on a midpoint of two
# float32s, every bit but the sign, the bits of the float below 2**-126 (float32's smallest normal)
_BELOW_FLOAT32, _FLOAT32_MIDPOINT = np.array(0x1FFFFFFF, np.uint64), np.array(0x10000000, np.uint64)
_FLOAT64_MAGNITUDE, _ONE_BIT = np.array(2 ** 63 - 1, np.uint64), np.array(1, np.uint64)
_BELOW_FLOAT32_NORMAL = np.array(((1023 - 126) << 52) - 1, np.uint64)


def contiguous_run(x: np.ndarray) -> int:
    """How many elements TensorIterator's inner loop takes at a time for an element-wise op
    reading `x` into a new contiguous result: the trailing dimensions over which `x` lies
    contiguously (size-1 dimensions skipped); 0 when that is all of `x`."""
    run, stride = 1, x.itemsize
    for size, step in zip(reversed(x.shape), reversed(x.strides)):
        if size == 1:
            continue
        if step != stride:
            return run
        run *= size
        stride *= size
    return 0


def simd_split(vector: np.ndarray, scalar: np.ndarray, lanes: int, row: int = 0) -> np.ndarray:
    """What an element-wise kernel (cpu_kernel_vec) gives, from its SIMD and its scalar results:
    the SIMD loop takes whole pairs of `lanes`-wide registers in memory order, the scalar loop the
    rest; of each `row` elements, where TensorIterator's inner loop runs over rows that long (the
    operands' dims do not coalesce into one)."""
    row = row if 0 < row < vector.size else vector.size
    if not row:
        return np.array(scalar, dtype=vector.dtype)
    count = row - row % (2 * lanes)
    out = np.array(scalar, dtype=vector.dtype).reshape(-1, row)
    out[:, :count] = vector.reshape(-1, row)[:, :count]
    return out.reshape(vector.shape)


def split_loops(x: np.ndarray, vector: Callable, scalar: Callable, lanes: int, row: int = 0) -> np.ndarray:
    """simd_split(vector(x), scalar(x), lanes, row) for element-wise `vector` and `scalar`, each
    computed only on the elements its loop takes (an LSTM's gate chunk of 51 leaves three of each
    row to the scalar loop)."""
    row = row if 0 < row < x.size else x.size
    count = row - row % (2 * lanes) if row else 0
    if count == row:
        return vector(x)
    if count == 0:
        return scalar(x)
    rows = x.reshape(-1, row)
    head = vector(rows[:, :count])
    out = np.empty(rows.shape, head.dtype)
    out[:, :count] = head
    out[:, count:] = scalar(rows[:, count:])
    return out.reshape(x.shape)


# Registers of Welford updates that RowwiseMoments runs before merging them into its cascade.
_MOMENTS_CHUNK = 16


def rowwise_moments(rows: np.ndarray, lanes: int, fused_merge: bool = True) -> tuple:
    """Mean and biased variance of each row of a float32 or float64 (M, N) array as ATen's
    RowwiseMoments computes them with AVX2 (layer_norm's and group_norm's statistics): Welford's
    updates per lane over chunks of 16 registers, the chunks merged by a cascade, the elements
    after the last whole register taken one by one, then each lane merged into them. The
    multiply-adds are fused (as the compiler builds them) except in the one-by-one loop, as
    PyTorch's results show. The chunks' merge (AddMomentsVec) is compiled two ways: layer_norm's
    float32 build fuses the mean's step and adds the squares' sum after its fused step
    (`fused_merge`); group_norm's builds and layer_norm's float64 one add the mean's step unfused
    and the squares' sum before the fused step."""
    f32 = rows.dtype.type
    m, size = rows.shape
    n = size // lanes
    chunks = -(-n // _MOMENTS_CHUNK)
    depth = ceil_log2(chunks)
    zero = np.zeros((m, lanes), f32)
    counts, means, squares = [0] * depth, [zero] * depth, [zero] * depth

    def merge(count: int, mean: np.ndarray, square: np.ndarray, level: int) -> None:
        total = counts[level] + count
        weight = f32(count) / f32(total) if total else f32(0)
        delta = mean - means[level]
        if not fused_merge:
            means[level] = means[level] + weight * delta
            squares[level] = fused_multiply_add(delta * delta * weight, f32(counts[level]), squares[level] + square)
        else:
            means[level] = fused_multiply_add(weight, delta, means[level])
            squares[level] = squares[level] + fused_multiply_add(delta * delta * weight, f32(counts[level]), square)
        counts[level] = total

    registers = rows[:, :n * lanes].reshape(m, n, lanes)
    for chunk in range(chunks):
        mean, square = zero, zero
        block = registers[:, chunk * _MOMENTS_CHUNK:(chunk + 1) * _MOMENTS_CHUNK]
        for j in range(block.shape[1]):
            x = block[:, j]
            delta = x - mean
            mean = fused_multiply_add(delta, f32(1) / f32(j + 1), mean)
            square = fused_multiply_add(delta, x - mean, square)
        merge(block.shape[1], mean, square, 0)
        mask, level = chunk + 1, 1
        while level < depth and mask & 1 == 0:
            merge(counts[level - 1], means[level - 1], squares[level - 1], level)
            counts[level - 1], means[level - 1], squares[level - 1] = 0, zero, zero
            mask >>= 1
            level += 1
    for level in range(1, depth):
        merge(counts[level], means[level], squares[level], 0)
    count, mean, square = 0, np.zeros(m, f32), np.zeros(m, f32)
    for i in range(n * lanes, size):
        x = rows[:, i]
        delta = x - mean
        count += 1
        mean = mean + delta / f32(count)
        square = square + delta * (x - mean)
    for lane in range(lanes):
        total = count + n
        weight = f32(n) / f32(total) if total else f32(0)
        delta = means[0][:, lane] - mean
        mean = fused_multiply_add(weight, delta, mean)
        square = square + fused_multiply_add(delta * delta * weight, f32(count), squares[0][:, lane])
        count = total
    return mean, square / f32(size)


def _fused(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    """a * b + c: fused for float32 and float64 (PyTorch's vector kernels use FMA there), plain otherwise."""
    if a.dtype.type in (np.float32, np.float64):
        return fused_multiply_add(a, b, c)
    return a * b + c


def add_scaled(x: np.ndarray, y: np.ndarray, alpha: float) -> np.ndarray:
    """torch.add(x, y, alpha=alpha): x + alpha * y, as one fused multiply-add."""
    if alpha == 1:
        return x + y
    return _fused(y, np.asarray(alpha, dtype=y.dtype), x)


def addcmul(x: np.ndarray, t1: np.ndarray, t2: np.ndarray, value: float = 1) -> np.ndarray:
    """x.addcmul(t1, t2, value=value): x + (value * t1) * t2, the last two steps fused."""
    return _fused(np.asarray(value, dtype=t1.dtype) * t1, t2, x)


def addcdiv(x: np.ndarray, t1: np.ndarray, t2: np.ndarray, value: float = 1) -> np.ndarray:
    """x.addcdiv(t1, t2, value=value): x + (value * t1) / t2, each step rounded."""
    return x + (np.asarray(value, dtype=t1.dtype) * t1) / t2


def lerp(start: np.ndarray, end: np.ndarray, weight: float) -> np.ndarray:
    """start.lerp(end, weight) for a number weight: from the nearer end, as one fused multiply-add
    (half precision computed in float, as ATen's opmath type, and rounded once)."""
    if start.dtype == np.float16:
        return lerp(start.astype(np.float32), end.astype(np.float32), weight).astype(np.float16)
    weight = np.asarray(weight, dtype=start.dtype)
    if abs(weight) < 0.5:
        return _fused(np.broadcast_to(weight, start.shape), end - start, start)
    return _fused(np.broadcast_to(weight - 1, start.shape), end - start, end)


# Beyond this many multiplications a matrix product is left to numpy's BLAS; beyond the second
# when its running sums come from BLAS too (about seven times BLAS's own time).
_LARGEST_ORDERED_PRODUCT = 1 << 23
_LARGEST_BLAS_ORDERED_PRODUCT = 1 << 28
# The longest sum sgemm's AVX2 kernels take in one panel.
_PANEL = 192


def _panels(size: int) -> list:
    """How sgemm cuts a sum of `size` products into panels, each summed from zero and then added
    in order: one panel up to 192 products, else panels of half the sum, at most 192 long."""
    if size <= _PANEL:
        return [slice(0, size)]
    length = min(_PANEL, size // 2)
    return [slice(start, start + length) for start in range(0, size, length)]


def _products_in_order(a: np.ndarray, b: np.ndarray, fused: bool, panels: bool = False) -> np.ndarray:
    """a @ b with one running sum per element over k in order (each product rounded, or fused);
    with `panels`, one running sum per panel of k, the panels' sums added in order."""
    if not panels or a.shape[1] <= _PANEL:  # one panel: no slicing
        return _panel_in_order(a, b, fused)
    slices = _panels(a.shape[1])
    length = slices[0].stop
    if (native is None and fused and a.dtype.type is np.float32 and a.shape[1] == length * len(slices)
            and _interleaved_fits(a.shape[0], length, b.shape[1])):
        parts = _interleaved_product(a, b, len(slices))  # every panel in one call
    else:
        parts = [_panel_in_order(a[:, panel], b[panel], fused) for panel in slices]
    total = parts[0]
    for part in parts[1:]:
        total = total + part
    return total


def _panel_in_order(a: np.ndarray, b: np.ndarray, fused: bool) -> np.ndarray:
    if native is not None and a.dtype == np.float32 and b.dtype == np.float32:
        out = np.empty((a.shape[0], b.shape[1]), np.float32)
        native.products(a, b, out, fused)  # (read through their strides)
        return out
    if fused and a.dtype.type is np.float32:
        return _fused_float32_products_in_order(a, b)
    if not fused:
        return _plain_products_in_order(a, b)
    total = np.zeros((a.shape[0], b.shape[1]), a.dtype)
    for k in range(a.shape[1]):
        total = fused_multiply_add(a[:, k:k + 1], b[k:k + 1, :], total)
    return total


# How many products _plain_products_in_order makes at a time (a few MiB).
_PRODUCTS_AT_ONCE = 1 << 19


def _plain_products_in_order(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """a @ b with one running sum per element over k in order from zero, each product rounded: the
    products made a block of k at a time and summed by np.add.accumulate, which adds strictly in
    order (as a loop over k would, at numpy's speed instead of a few numpy calls per k)."""
    (m, size), n = a.shape, b.shape[1]
    total = np.zeros((m, 1, n), np.result_type(a, b))
    step = max(1, _PRODUCTS_AT_ONCE // max(1, m * n))
    for start in range(0, size, step):
        products = a[:, start:start + step, None] * b[None, start:start + step, :]
        # the running total first, so the block's first product is added to it (a zero keeps
        # the sign a loop from zero gives: 0.0 + -0.0 is 0.0)
        total = np.add.accumulate(np.concatenate([total, products], axis=1), axis=1)[:, -1:, :]
    # a fresh C-ordered array, as a loop's result is (strides decide whether a later reshape is a view)
    return np.ascontiguousarray(total[:, 0, :])


def _fused_float32_products_in_order(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """fused_multiply_add's float32 running sum over k in order: from numpy's BLAS where it adds
    that way, else one step of k at a time, the factors widened once."""
    if _interleaved_fits(a.shape[0], a.shape[1], b.shape[1]):
        return _interleaved_blas_products(a, b)
    if a.shape[1] <= _LONGEST_BLAS_CHAIN and _blas_adds_thin_products_in_order():
        return _thin_blas_products(a, b)
    return _emulated_fused_products(a, b)


# The longest sum the interleaved products take: twice it is OpenBLAS's longest sum in one piece
# on this kind of processor (320 products; beyond, the pieces' sums are added afterwards).
_LONGEST_INTERLEAVED_CHAIN = 160
# The sums the once-per-process checks take: every length modulo the kernels' unrolling of k, and
# the longest each path takes
_INTERLEAVED_CHECK_LENGTHS = (2, 7, 8, 9, 10, 15, 17, 30, 33, _LONGEST_INTERLEAVED_CHAIN)
# Below this many rows (or columns, for the product taken transposed), the few calls of the
# three-row blocks cost less than twice the multiply-adds and the zeros laid in (measured).
_FEWEST_INTERLEAVED_ROWS = 16


def _interleaved_fits(m: int, k: int, n: int) -> bool:
    """Whether an (m, k) @ (k, n) float32 product takes the interleaved products."""
    return (k <= _LONGEST_INTERLEAVED_CHAIN and min(m, n) >= _FEWEST_INTERLEAVED_ROWS
            and _blas_adds_interleaved_products_in_order())


def _interleaved_blas_products(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """a @ b in one BLAS call, each element one fused running sum over k in order. OpenBLAS's
    kernel for blocks of four rows alternates the products between two fused running sums,
    added at the end: with a zero product after each product (both factors interleaved with
    zeros), the second sum stays +0 and the first is the running sum in order (a -0 sum comes
    out +0, as from the three-row blocks and from MKL: BLAS adds the kernel's sums to the zeroed
    result). Fewer than four rows go as three-row blocks: one call already."""
    if a.shape[0] < 4:
        return _thin_row_blocks(a, b)
    if b.shape[1] == 1:  # doubled, as a lone column would go to a matrix-vector kernel
        return _interleaved_blas_products(a, np.concatenate([b, b], axis=1))[:, :1]
    return _interleaved_product(a, b)


def _interleaved_product(a: np.ndarray, b: np.ndarray, panels: int = 0) -> np.ndarray:
    """a @ b as (a with a zero column after each column) @ (b with a zero row after each row);
    with `panels`, the products of that many equal panels of k, stacked (numpy's matmul calls BLAS
    once per panel, as separate calls would, the left factor read in place with its row stride)."""
    (m, k), n = a.shape, b.shape[1]
    a_spread = _zero_spread((m, k, 2))
    a_spread[:, :, 0] = a
    b_spread = _zero_spread((k, 2, n))
    b_spread[:, 0] = b
    if panels:
        length = 2 * k // panels
        return np.matmul(a_spread.reshape(m, panels, length).transpose(1, 0, 2),
                         b_spread.reshape(panels, length, n))
    return a_spread.reshape(m, 2 * k) @ b_spread.reshape(2 * k, n)


# The interleaved factors of this thread's recent products, by shape: their zeros stay where
# they are and each product writes its factor over the rest (an array a product only reads, so
# kept for the next product of the same shape, as a training loop makes every step). Small
# factors only, and a few shapes.
_SPREADS = threading.local()
_SPREAD_ELEMENTS = 1 << 16
_SPREADS_KEPT = 32


def _zero_spread(shape: tuple) -> np.ndarray:
    if shape[0] * shape[1] * shape[2] > _SPREAD_ELEMENTS:
        return np.zeros(shape, np.float32)
    kept = getattr(_SPREADS, "arrays", None)
    if kept is None:
        kept = _SPREADS.arrays = {}
    spread = kept.get(shape)
    if spread is None:
        if len(kept) >= _SPREADS_KEPT:
            kept.clear()
        spread = kept[shape] = np.zeros(shape, np.float32)
    return spread


_INTERLEAVED_CHECKED: list = []


def _blas_adds_interleaved_products_in_order() -> bool:
    """Whether numpy's BLAS gives _interleaved_product the fused running sums over k in order
    from zero (checked once per process): for interleaved sums of every length modulo the
    kernel's unrolling of k (eight) up to the longest, blocks of four rows and the rows left
    over, columns in blocks and left over."""
    if not _INTERLEAVED_CHECKED:
        _INTERLEAVED_CHECKED.append(_sums_in_order(_interleaved_product, _INTERLEAVED_CHECK_LENGTHS,
                                                   rows=(4, 5, 7, 8, 13), columns=(2, 3, 23, 200, 201)))
    return _INTERLEAVED_CHECKED[0]


def _sums_in_order(product: Callable, lengths: tuple, rows: tuple, columns: tuple) -> bool:
    """Whether `product` gives the emulation's fused running sums over k in order from zero, on
    the first `rows` x `lengths` of a factor and `lengths` x `columns` of another that any other
    order would round differently, the right factor row-major and column-major."""
    a, b, running = _emulated_running_sums()
    return all(np.array_equal(product(np.ascontiguousarray(a[:m, :k]), layout(b[:k, :n])).view(np.uint32),
                              running[k][:m, :n].view(np.uint32))
               for k in lengths for m in rows for n in columns for layout in (np.ascontiguousarray, np.asfortranarray))


_RUNNING_SUMS: list = []


def _emulated_running_sums() -> tuple:
    """The checks' factors, and the emulated running sums of their products after each number of
    products the checks take (one emulation serves every length: the sums after k products are
    those of the first k columns and rows)."""
    if not _RUNNING_SUMS:
        lengths = set(_INTERLEAVED_CHECK_LENGTHS + _THIN_CHECK_LENGTHS)
        a, b = _scattered_factor((13, max(lengths)), 3), _scattered_factor((max(lengths), 201), 7)
        running = {k: total for k, total in enumerate(_fused_running_sums(a, b), start=1) if k in lengths}
        _RUNNING_SUMS.append((a, b, running))
    return _RUNNING_SUMS[0]


def _scattered_factor(shape: tuple, seed: int) -> np.ndarray:
    """A float32 factor of scattered mantissas and exponents: sums of its products in any other
    order round differently."""
    i = np.arange(seed, seed + shape[0] * shape[1]).reshape(shape)
    return ((i * 7919 % 1009 - 504) / 37.0 * 2.0 ** (i * 31 % 13 - 6)).astype(np.float32)


# The longest sum OpenBLAS's level-3 driver leaves in one piece, in the checked thin products.
_LONGEST_BLAS_CHAIN = 192
_THIN_CHECK_LENGTHS = (2, 7, 8, 9, 33, _LONGEST_BLAS_CHAIN)


def _thin_blas_products(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """a @ b through numpy's BLAS three rows at a time (two for the rest): the blocks OpenBLAS's
    kernels sum with one FMA register per element. When b has fewer columns than a has rows, the
    same sums come as (b.T @ a.T).T in fewer calls."""
    if b.shape[1] < a.shape[0]:
        return np.ascontiguousarray(_thin_row_blocks(b.T, a.T).T)
    return _thin_row_blocks(a, b)


def _thin_row_blocks(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """a @ b a block of three or two rows of a at a time. A lone row or column is doubled, as one
    would go to a matrix-vector kernel that adds in another order."""
    (m, k), n = a.shape, b.shape[1]
    if n == 1:
        return _thin_row_blocks(a, np.concatenate([b, b], axis=1))[:, :1]
    if m == 1:
        return np.matmul(np.concatenate([a, a]), b)[:1]
    a = np.ascontiguousarray(a)
    if not (b.flags.c_contiguous or b.strides[0] == b.itemsize):
        b = np.ascontiguousarray(b)  # else BLAS takes it as it is: row-major, or column-major (W.t())
    out = np.empty((m, n), np.float32)
    # blocks of three, and the last four rows or two as blocks of two: numpy's matmul calls BLAS
    # once per block of a stack, as separate calls would
    threes = m // 3 - (m % 3 == 1)
    top = 3 * threes
    if threes:
        np.matmul(a[:top].reshape(threes, 3, k), b, out=out[:top].reshape(threes, 3, n))
    if top < m:
        twos = (m - top) // 2
        np.matmul(a[top:].reshape(twos, 2, k), b, out=out[top:].reshape(twos, 2, n))
    return out


_BLAS_CHECKED: list = []


def _blas_adds_thin_products_in_order() -> bool:
    """Whether numpy's BLAS sums each element of a two- or three-row float32 product as one fused
    running sum over k in order from zero (OpenBLAS's x86-64 kernels do; checked once per
    process), for each kind of block and tail of columns and of k, with the right factor
    row-major and column-major (nn.Linear's `W.t()`, which BLAS packs from its own layout)."""
    if not _BLAS_CHECKED:
        # 200 columns too: OpenBLAS's SkylakeX kernels (refused by other cases as well) add the
        # columns from 192 on in another order, for sums of 32 products or more
        _BLAS_CHECKED.append(_sums_in_order(_thin_blas_products, _THIN_CHECK_LENGTHS,
                                            rows=(1, 2, 3, 4, 7), columns=(1, 3, 23, 200)))
    return _BLAS_CHECKED[0]


def _emulated_fused_products(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    total = np.zeros((a.shape[0], b.shape[1]), np.float32)
    for total in _fused_running_sums(a, b):
        pass  # to the sums after the last product
    return total


def _fused_running_sums(a: np.ndarray, b: np.ndarray) -> Iterator[np.ndarray]:
    """The float32 fused running sums of a @ b from zero, after each product over k in turn."""
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    total = np.zeros((a.shape[0], b.shape[1]), np.float32)
    for k in range(a.shape[1]):
        total = rounded_fused_float32(a64[:, k:k + 1] * b64[k:k + 1, :], total)
        yield total


def _dot_products(a: np.ndarray, b_rows: np.ndarray, lanes: int) -> np.ndarray:
    """Each row of a against each row of b_rows: `lanes` products at a time into running sums, the
    lanes added as a tree, then the leftover products one by one."""
    (m, size), n = a.shape, b_rows.shape[0]
    if native is not None and a.dtype == np.float32 and b_rows.dtype == np.float32:
        out = np.empty((m, n), np.float32)
        native.dot_products(np.ascontiguousarray(a), np.ascontiguousarray(b_rows), out, lanes)
        return out
    full = size - size % lanes
    blocks = full // lanes
    # laid out (block, row of a, lane, row of b_rows): numpy's loops then run along the rows of
    # b_rows, contiguous in a copy, rather than along a few lanes
    a_blocks = a[:, :full].reshape(m, blocks, lanes).transpose(1, 0, 2)[:, :, :, None]
    b_blocks = np.ascontiguousarray(b_rows[:, :full].T).reshape(blocks, lanes, n)[:, None, :, :]
    # the products of a few MiB of blocks at a time, after a first row holding the sums so far
    # (from zero): numpy adds rows along the first axis one after another (sum_kernel._row_by_row)
    step = max(1, _PRODUCTS_AT_ONCE // max(1, m * n * lanes))
    rows = np.zeros((min(step, blocks) + 1, m, lanes, n), a.dtype)
    acc = rows[0].copy()
    for start in range(0, blocks, step):
        count = min(step, blocks - start)
        rows[0] = acc
        np.multiply(a_blocks[start:start + count], b_blocks[start:start + count], out=rows[1:count + 1])
        acc = np.add.reduce(rows[:count + 1], axis=0)
    while acc.shape[1] > 1:
        half = acc.shape[1] // 2
        acc = acc[:, :half] + acc[:, half:]
    total = acc[:, 0]
    for k in range(full, size):
        total = total + a[:, None, k] * b_rows[None, :, k]
    return total


def _too_large_to_order(m: int, k: int, n: int) -> bool:
    """Whether running sums per element would be too slow for this product: more of them fit when
    they come from BLAS, as a wide product's panels do with AVX2."""
    size = m * k * n
    if size <= _LARGEST_ORDERED_PRODUCT:
        return False
    through_blas = n >= 12 and m >= 4 and not cpu.SGEMM_AVX512 and _blas_adds_thin_products_in_order()
    return not through_blas or size > _LARGEST_BLAS_ORDERED_PRODUCT


def matmul(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """A float32 matrix product in the order MKL's sgemm adds for the small shapes people try,
    as far as that order is known: a wide result (four rows or more, twelve columns or more, as
    an MNIST batch through nn.Linear(784, 128)) takes a fused running sum (over each panel of k
    with AVX2; with AVX-512 by blocks of four rows, the rows left over a plain running sum),
    narrow results and short sums a plain running sum, and a product with a transposed right
    factor (x @ W.t(), as nn.Linear computes) dot products in SIMD lanes. numpy for the rest."""
    (m, k), n = a.shape, b.shape[1]
    if a.dtype.type is not np.float32 or b.dtype.type is not np.float32 or not a.size or not b.size:
        return a @ b
    if _too_large_to_order(m, k, n):
        return a @ b
    if k == 1:  # an outer product: each element is its one product, a zero keeping its sign
        return a * b
    if n >= 12 and m >= 4:
        if not cpu.SGEMM_AVX512:
            return _products_in_order(a, b, fused=True, panels=True)
        full = m - m % 4  # blocks of four rows fused, the rows left over a plain running sum
        out = np.empty((m, n), np.float32)
        out[:full] = _products_in_order(a[:full], b, fused=True)
        if full < m:
            out[full:] = _products_in_order(a[full:], b, fused=False)
        return out
    if k <= 3:
        return _products_in_order(a, b, fused=False)
    if b.shape[0] > 1 and b.shape[1] > 1 and not b.flags.c_contiguous and b.flags.f_contiguous:
        lanes = 8 if n <= 3 else 4 if n % 4 == 0 else 0
        if lanes and m > 1 and k % 4 == 0:
            return _dot_products(a, b.T, lanes)
        return a @ b
    if n == 1 and m >= 4:
        return a @ b
    return _products_in_order(a, b, fused=False)
