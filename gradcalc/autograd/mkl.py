"""PyTorch's own library for its last digits: Intel MKL 2024.2.0, the version PyTorch 2.13 links,
installed by the `gradcalc[mkl]` extra and called through ctypes exactly where ATen calls it:
float32/float64 matrix products (sgemm/dgemm with ATen's layout and transposition choices, for
mm and addmm; bmm and baddbmm through cblas_?gemm_batch or each pair's gemm, as ATen routes
them; sgemv for mv and addmv; sdot for dot) and the VML functions of ATen's `vml.h` (vmsExp,
vmsLn, ...), with ATen's mode: high accuracy, denormals kept, errors ignored. LAPACK is in
mkl_lapack.py.

MKL is loaded on first use, never at start-up; GNU OpenMP threading layer and one thread, as the
reference PyTorch runs (the sequential layer where libgomp is missing). GRADCALC_MKL=0 turns it
off; without the package, or with another version of it (whose kernels give other bits), the
emulation computes as before. Every function here returns None when the backend is not in use,
so callers fall back to the emulation.
"""
from __future__ import annotations

import ctypes
import functools
import math
import os
import sys
import threading
from contextlib import contextmanager
from typing import Any, Callable, Iterator, Optional

import numpy as np

from ..language.limits import native_call
from ..machine import processor
from . import cpu
from .native import address, storages_aligned

# The version PyTorch 2.13 reports in torch.__config__.show(): another one computes other bits.
VERSION = "2024.2.0"
# mkl_vml_defines.h: VML_HA | VML_FTZDAZ_OFF | VML_ERRMODE_IGNORE, the mode of ATen's vml.h
_VML_MODE = 0x2 | 0x140000 | 0x100
# mkl_service.h's MKL_THREADING_GNU and MKL_THREADING_SEQUENTIAL. PyTorch's MKL runs on GNU OpenMP
# (libgomp) with one thread here; MKL's LAPACK takes other paths on the sequential layer, even
# with one thread (getrf of a 33x33 matrix gave other bits, measured), its BLAS and VML do not.
_GNU_OPENMP, _SEQUENTIAL = 3, 1
# The ops whose CPU kernels call ATen's vml.h (by their grad_fn), and MKL's names for the functions.
VML_FUNCTIONS = {"ExpBackward0": "Exp", "LogBackward0": "Ln", "Log2Backward0": "Log2", "Log10Backward0": "Log10",
                 "SinBackward0": "Sin", "CosBackward0": "Cos", "TanBackward0": "Tan", "TanhBackward0": "Tanh",
                 "AsinBackward0": "Asin", "AcosBackward0": "Acos", "AtanBackward0": "Atan", "SqrtBackward0": "Sqrt",
                 "ErfBackward0": "Erf", "ErfcBackward0": "Erfc", "ErfinvBackward0": "ErfInv"}

# Whether MKL's sgemm takes its AVX-512 kernels here, as gradcalc started: as cpu.py models it,
# but only on an Intel processor with AVX-512 (MKL_CBWR=AVX512 on an AMD one, which the emulation
# reads as "compute as on such an Intel processor", left MKL's digits, and PyTorch's, unchanged,
# measured). While gradcalc computes as on a machine whose sgemm takes another path (an answer
# recorded there: cpu.emulating, or those settings), MKL cannot give that machine's digits, and
# the emulation computes instead.
_SGEMM_HERE = cpu.SGEMM_AVX512 and cpu.processor_has_avx512() and processor().get("vendor_id") == "GenuineIntel"

_UNLOADED = object()
# MKL's vms/vmd functions by (VML_FUNCTIONS's name, np.float32 or np.float64), their argument types set
_VML_PREPARED: dict = {}
# GRADCALC_MKL is read when gradcalc starts, before a sandbox may empty the environment
_state: dict = {"library": _UNLOADED, "why": "", "on": os.environ.get("GRADCALC_MKL", "1") != "0"}


def _turned_on() -> bool:
    return _state["on"]


def _find() -> Optional[str]:
    """libmkl_rt of the installed `mkl` distribution, if it is MKL's version PyTorch links. Read
    from its dist-info folder as importlib.metadata reads it, without importing that (about 30 ms
    that a program's first product would pay)."""
    for folder in sys.path:
        try:
            names = os.listdir(folder or ".")
        except OSError:
            continue
        for name in names:
            if name.startswith("mkl-") and name.endswith(".dist-info"):
                return _library_of(os.path.join(folder or ".", name), name[len("mkl-"):-len(".dist-info")])
    _state["why"] = "the mkl package is not installed (pip install 'gradcalc[mkl]')"
    return None


def _library_of(dist_info: str, version: str) -> Optional[str]:
    if version != VERSION:
        _state["why"] = f"mkl {version} is installed; PyTorch 2.13's results need {VERSION}"
        return None
    import csv  # only where MKL is installed

    try:
        with open(os.path.join(dist_info, "RECORD"), newline="") as record:
            files = [row[0] for row in csv.reader(record) if row]
    except OSError:
        files = []
    for file in files:
        base = os.path.basename(file)
        if base.startswith(("libmkl_rt.so", "mkl_rt")) and os.path.splitext(base)[1] in (".2", ".dll", ".so"):
            return os.path.normpath(os.path.join(os.path.dirname(dist_info), file))
    _state["why"] = "the mkl package has no libmkl_rt"
    return None


def _load() -> Optional[ctypes.CDLL]:
    path = _find()
    if path is None:
        return None
    try:
        library = ctypes.CDLL(path)
        # set before MKL's first computation, which loads the layer's runtime
        layer = _GNU_OPENMP if _has_gnu_openmp() else _SEQUENTIAL
        library.MKL_Set_Threading_Layer(ctypes.c_int(layer))
        library.MKL_Set_Num_Threads(ctypes.c_int(1))
        _state["layer"] = "GNU OpenMP, one thread" if layer == _GNU_OPENMP else \
            "sequential: no libgomp here, so LAPACK's last digits may differ from PyTorch's"
        for name in VML_FUNCTIONS.values():
            for prefix, scalar_type in (("vms", np.float32), ("vmd", np.float64)):
                function = getattr(library, prefix + name)
                function.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int64]
                function.restype = None
                _VML_PREPARED[name, scalar_type] = function
    except (OSError, AttributeError) as error:
        _state["why"] = f"MKL could not be loaded: {error}"
        return None
    return library


def _has_gnu_openmp() -> bool:
    """Whether libgomp loads here (MKL's GNU layer needs it, and exits the process without it)."""
    try:
        ctypes.CDLL("libgomp.so.1")
    except OSError:
        return False
    return True


def native(function: Callable) -> Callable:
    """FUNCTION's ctypes calls let through the sandbox's wall, which refuses a program's own."""
    @functools.wraps(function)
    def call(*args: Any, **kwargs: Any) -> Any:
        if _state["library"] is None or not _state["on"]:
            return function(*args, **kwargs)  # no MKL to call: nothing for the wall to let through
        return native_call(function, *args, **kwargs)
    return call


def library() -> Optional[ctypes.CDLL]:
    """MKL, loaded on the first call; None when it is turned off, not installed, or gradcalc
    computes as on a machine whose sgemm MKL does not follow here. (Asked before every product:
    only the first call, which loads, passes the wall.)"""
    if not _state["on"] or cpu.SGEMM_AVX512 != _SGEMM_HERE:
        return None
    loaded = _state["library"]
    if loaded is _UNLOADED:
        loaded = _state["library"] = native(_load)()
    return loaded


def describe() -> str:
    """Which backend computes PyTorch's MKL results, for `gradcalc --version`."""
    if not _turned_on():
        return "emulation (GRADCALC_MKL=0)"
    if cpu.SGEMM_AVX512 != _SGEMM_HERE:
        return "emulation (computing as with another sgemm code path than MKL takes on this processor)"
    if library() is None:
        return f"emulation ({_state['why']})"
    return f"Intel MKL {VERSION} ({_state['layer']})"


def turn(on: bool) -> None:
    """Compute with MKL (ON) or with the emulation from now on, as GRADCALC_MKL says at start-up."""
    _state["on"] = on


@contextmanager
def turned(on: bool) -> Iterator[None]:
    """Compute with MKL (ON) or with the emulation while the block runs, for the tests."""
    saved = _state["on"]
    _state["on"] = on
    try:
        yield
    finally:
        _state["on"] = saved


def vml(node_name: str, x: np.ndarray) -> Optional[np.ndarray]:
    """The op of grad_fn NODE_NAME on float32/float64 X as ATen's vml.h computes it, if it does
    (MKL's element-wise results do not depend on where an element sits, so a strided tensor's
    copy, as ATen makes, gives the same). The result is a storage of its own, aligned as c10's."""
    name = VML_FUNCTIONS.get(node_name)
    if name is None or x.dtype.type not in (np.float32, np.float64) or not x.size or x.size >= 1 << 31:
        return None
    if library() is None:
        return None
    source = np.ascontiguousarray(x)
    out, out_at = _aligned_empty(x.shape, x.dtype)
    native_call(_VML_PREPARED[name, x.dtype.type], source.size, address(source), out_at, _VML_MODE)
    return out


def blas_routine(name: str, dtype: np.dtype) -> tuple:
    """The Fortran BLAS or LAPACK routine NAME (s... for float32, d... for float64) and its ctypes
    scalar type; (None, None) when MKL is not in use or for another dtype."""
    lib = library()
    if lib is None or dtype.type not in (np.float32, np.float64):
        return None, None
    single = dtype.type is np.float32
    return getattr(lib, ("s" if single else "d") + name + "_"), (ctypes.c_float if single else ctypes.c_double)


def int_refs(*values: int) -> list:
    return [ctypes.byref(ctypes.c_int(value)) for value in values]


def _routed(dtype: np.dtype) -> bool:
    """Whether MKL computes BLAS for DTYPE now (float32 or float64, the backend in use)."""
    return dtype.type in (np.float32, np.float64) and library() is not None


# How many arguments each prepared BLAS routine takes (every one by reference, as Fortran's)
_ARITY = {"gemm": 13, "gemv": 11, "dot": 5}
_PREPARED: dict = {}


def _prepared(name: str, scalar_type: type) -> Callable:
    """MKL's Fortran ?NAME_ for SCALAR_TYPE (np.float32 or np.float64) with its argument types set
    once: every argument an address passed as a plain int, so a call makes no ctypes objects."""
    key = name, scalar_type
    if key not in _PREPARED:
        single = scalar_type is np.float32
        function = native(library().__getitem__)(("s" if single else "d") + name + "_")  # not getattr's shared one
        function.argtypes = [ctypes.c_void_p] * _ARITY[name]
        function.restype = (ctypes.c_float if single else ctypes.c_double) if name == "dot" else None
        _PREPARED[key] = function
    return _PREPARED[key]


# Fortran's 'N' and 'T' for a BLAS call's transa/transb, read only
_LETTERS = np.frombuffer(b"NT", np.uint8).copy()
_LETTER = (address(_LETTERS), address(_LETTERS) + 1)  # by whether the operand is transposed
# How many distinct tuples of integers, and of layouts of factors, are kept prepared at once (a
# program of ever new shapes starts over past it)
_MOST_KEPT = 4096
_INTEGERS: dict = {}


def _integers(values: tuple) -> tuple:
    """(storage, addresses): VALUES as Fortran integers in a storage kept for those values, never
    written again, so that a call passes addresses only (the caller holds the storage until its
    call returns)."""
    kept = _INTEGERS.get(values)
    if kept is None:
        if len(_INTEGERS) >= _MOST_KEPT:
            _INTEGERS.clear()
        storage = np.array(values, np.int32)
        start = address(storage)
        kept = _INTEGERS[values] = storage, tuple(range(start, start + 4 * len(values), 4))
    return kept


_SCRATCH_KEPT = 1 << 20  # bytes: small products, the ones whose calls the reuse makes cheaper


class _Scratch(threading.local):
    """A thread's alpha and beta and its scratch storages, rewritten for each call (MKL runs while
    ctypes lets go of the GIL, so each thread has its own)."""

    def __init__(self) -> None:
        self._scalars = {np.float32: np.zeros(2, np.float32), np.float64: np.zeros(2, np.float64)}
        self._scalar_addresses = {kind: (address(scalars), address(scalars) + scalars.itemsize)
                                  for kind, scalars in self._scalars.items()}
        self._storages: list = [(None, 0), (None, 0)]

    def storage(self, slot: int, nbytes: int) -> tuple:
        """(storage, address): the thread's aligned scratch storage SLOT, of NBYTES bytes at least
        (grown as needed); a large operand's storage is its own, not kept: the program's memory
        ceiling counts it."""
        if nbytes > _SCRATCH_KEPT:
            return _storage_at(nbytes, zeroed=False)
        kept = self._storages[slot]
        if kept[0] is None or kept[0].size < nbytes:
            kept = self._storages[slot] = _storage_at(max(nbytes, 2 * (0 if kept[0] is None else kept[0].size)),
                                                      zeroed=False)
        return kept

    def scalar_addresses(self, scalar_type: type, alpha: float, beta: float) -> tuple:
        """The addresses of alpha and beta, written as SCALAR_TYPE."""
        scalars = self._scalars[scalar_type]
        scalars[0], scalars[1] = alpha, beta
        return self._scalar_addresses[scalar_type]


_SCRATCH = _Scratch()
# the addresses of the common alpha and beta (0 or 1 each) by (scalar type, alpha, beta): read only,
# shared by every thread
_UNIT_VALUES = {kind: np.array([0, 1], kind) for kind in (np.float32, np.float64)}
_UNIT_SCALARS = {(kind, alpha, beta): (address(values) + alpha * values.itemsize,
                                       address(values) + beta * values.itemsize)
                 for kind, values in _UNIT_VALUES.items() for alpha in (0, 1) for beta in (0, 1)}


def _operand_layout(x: np.ndarray, transposed_result: bool, lead: int, other: int) -> tuple:
    """How addmm_impl_cpu_ hands one factor to gemm: (transposed, leading dimension, copied), the
    factor copied row-major when neither of its strides fits (strides in elements)."""
    step = [s // x.itemsize for s in x.strides]
    inner, outer = (1, 0) if transposed_result else (0, 1)
    if step[inner] == 1 and step[outer] >= max(1, lead):
        return False, step[outer], False
    if step[outer] == 1 and step[inner] >= max(1, other):
        return True, step[inner], False
    return not transposed_result, x.shape[1], True


# _gemm_plan's, by the factors' dtypes, shapes and strides
_GEMM_PLANS: dict = {}
_NOT_PLANNED = object()


def _gemm_plan(mat1: np.ndarray, mat2: np.ndarray) -> Optional[tuple]:
    """addmm_impl_cpu_'s gemm for this layout of factors, into a row-major (m, n) result in a
    storage of its own, worked out once per layout: whether the factors are swapped (the result
    read as its column-major transpose), whether each (after the swap) is first copied row-major,
    _gemm_call's call, the result's shape and dtype. None where MKL is not what ATen calls."""
    key = mat1.dtype, mat2.dtype, mat1.shape, mat1.strides, mat2.shape, mat2.strides
    plan = _GEMM_PLANS.get(key, _NOT_PLANNED)
    if plan is not _NOT_PLANNED:
        return plan
    plan = None
    (m, k), n = mat1.shape, mat2.shape[1]
    if mat1.dtype.type in (np.float32, np.float64) and mat2.dtype == mat1.dtype and m and n and k \
            and max(m, n, k) < 1 << 31:
        # a row-major (m, n) result has strides (n, 1): column-major only when it is one column
        swapped = n != 1
        first, second, rows, columns = (mat2, mat1, n, m) if swapped else (mat1, mat2, m, n)
        transa, lda, copy_first = _operand_layout(first, swapped, rows, k)
        transb, ldb, copy_second = _operand_layout(second, swapped, k, columns)
        call = _gemm_call(mat1.dtype.type, (transa, transb), (rows, columns, k), (lda, ldb, rows))
        if call is not None:
            plan = swapped, copy_first, copy_second, call, (m, n), mat1.dtype
    if len(_GEMM_PLANS) >= _MOST_KEPT:
        _GEMM_PLANS.clear()
    _GEMM_PLANS[key] = plan
    return plan


def _gemm_call(scalar_type: type, transposed: tuple, sizes: tuple, leading: tuple) -> Optional[tuple]:
    """cpublas's gemm for float32/float64: ?gemm_ after normalize_last_dims, where BLAS accepts the
    leading dimensions: (function, the addresses of transa, transb, m, n, k, lda, ldb, ldc, the
    integers' storage); None where ATen would use its own kernel instead."""
    (transa, transb), (m, n, k) = transposed, sizes
    lda, ldb, ldc = _normalized(transa, transb, m, n, k, *leading)
    if not _fits_blas(transa, transb, m, n, k, lda, ldb, ldc):
        return None
    storage, integer = _integers((m, n, k, lda, ldb, ldc))
    return (_prepared("gemm", scalar_type), _LETTER[transa], _LETTER[transb]) + integer + (storage,)


def _call_gemm(call: tuple, scalar_type: type, first: np.ndarray, second: np.ndarray, c_at: int, alpha: float,
               beta: float) -> None:
    """CALL (_gemm_call's) on FIRST and SECOND, placed at PyTorch's alignment, into the matrix at C_AT."""
    # the copies _placed_at makes are held until the call returns: it gets only their addresses.
    # A storage of its own on 64 bytes (a fresh tensor's) is placed already: no walk to its root
    first_at, second_at = address(first), address(second)
    if first.base is not None or first_at % _ALIGNMENT:
        first, first_at = _placed_at(first, 0)
    if second.base is not None or second_at % _ALIGNMENT:
        second, second_at = _placed_at(second, 1)
    scalars = _UNIT_SCALARS.get((scalar_type, alpha, beta))
    alpha_at, beta_at = scalars if scalars is not None else _SCRATCH.scalar_addresses(scalar_type, alpha, beta)
    function, transa, transb, m, n, k, lda, ldb, ldc, _ = call
    native_call(function, transa, transb, m, n, k, alpha_at, first_at, lda, second_at, ldb, beta_at, c_at, ldc)


def gemm(mat1: np.ndarray, mat2: np.ndarray, out: Optional[np.ndarray] = None, alpha: float = 1,
         beta: float = 0) -> Optional[np.ndarray]:
    """alpha * mat1 @ mat2 + beta * OUT (a fresh row-major result when OUT is None) as ATen's
    addmm_impl_cpu_ computes it: the result read as a column-major matrix (a row-major one as its
    transpose, the factors swapped), each factor passed as it lies in memory, transposed or not,
    then ?gemm_ after cpublas's normalize_last_dims. None when MKL is not in use."""
    if library() is None:
        return None
    plan = _gemm_plan(mat1, mat2)
    if plan is None:
        return None
    swapped, copy_first, copy_second, call, shape, dtype = plan
    c, c_at = _aligned_empty(shape, dtype)  # gemm writes every element (beta 0) or scales OUT's
    if out is not None:
        c[...] = out
    first, second = (mat2, mat1) if swapped else (mat1, mat2)
    _call_gemm(call, dtype.type, fresh_copy(first) if copy_first else first,
               fresh_copy(second) if copy_second else second, c_at, alpha, beta)
    return c


@native
def bmm(batch1: np.ndarray, batch2: np.ndarray, out: Optional[np.ndarray] = None, alpha: float = 1,
        beta: float = 0) -> Optional[np.ndarray]:
    """alpha * batch1 @ batch2 + beta * OUT for stacks of matrices as ATen's bmm_out_or_baddbmm_
    computes those it sends to BLAS (its small products it computes itself): when every matrix of
    both stacks lies contiguous or transposed, baddbmm_with_gemm_'s one call of MKL's batched gemm
    over the stack; otherwise the addmm of each pair into its slice of the result."""
    (count, m, k), n = batch1.shape, batch2.shape[2]
    if not _routed(batch1.dtype) or batch2.dtype != batch1.dtype or not count or not m or not n or not k \
            or max(m, n, k, count) >= 1 << 31:
        return None
    result = fresh((count, m, n), batch1.dtype)
    if out is not None:
        result[...] = out
    if _matrices_contiguous_or_transposed(batch1) and _matrices_contiguous_or_transposed(batch2):
        return result if _gemm_batch(batch1, batch2, result, alpha, beta) else None
    plan = _gemm_plan(batch1[0], batch2[0])  # every pair's layout is the first's
    if plan is None:
        return None
    swapped, copy_first, copy_second, call, _, dtype = plan
    for index in range(count):
        first, second = (batch2[index], batch1[index]) if swapped else (batch1[index], batch2[index])
        _call_gemm(call, dtype.type, fresh_copy(first) if copy_first else first,
                   fresh_copy(second) if copy_second else second, address(result[index]), alpha, beta)
    return result


def _steps(x: np.ndarray) -> list:
    return [s // x.itemsize for s in x.strides]


def _matrices_contiguous_or_transposed(x: np.ndarray) -> bool:
    """bmm_out_or_baddbmm_'s test of a stack: each matrix row-major or column-major (a stride of
    a dimension of one not counted)."""
    sizes, step = x.shape, _steps(x)
    return (step[2] == 1 and (sizes[1] == 1 or step[1] >= sizes[2])) or \
        (step[1] == 1 and (sizes[2] == 1 or step[2] >= sizes[1]))


# cblas.h: CblasColMajor, CblasNoTrans, CblasTrans
_COLUMN_MAJOR, _NO_TRANSPOSE, _TRANSPOSE = 102, 111, 112


def _gemm_batch(batch1: np.ndarray, batch2: np.ndarray, result: np.ndarray, alpha: float, beta: float) -> bool:
    """baddbmm_with_gemm_ into RESULT (a fresh row-major stack): read column-major, the stacks
    swapped, each passed as it lies in memory; cpublas's gemm_batched_with_stride then makes one
    ?gemm_ call for a single pair, else cblas_?gemm_batch over pointers to every pair. False
    where cpublas would fall back on ATen's own gemm kernel (leading dimensions BLAS refuses)."""
    transa = batch2.strides[1] == batch2.itemsize and _steps(batch2)[2] >= batch2.shape[1]
    transb = batch1.strides[1] == batch1.itemsize and _steps(batch1)[2] >= batch1.shape[1]
    count, n, k = batch1.shape
    m = batch2.shape[2]
    lda, ldb, ldc = _steps(batch2)[2 if transa else 1], _steps(batch1)[2 if transb else 1], m
    if count == 1:
        call = _gemm_call(result.dtype.type, (transa, transb), (m, n, k), (lda, ldb, ldc))
        if call is not None:
            _call_gemm(call, result.dtype.type, batch2[0], batch1[0], address(result), alpha, beta)
        return call is not None
    lda, ldb, ldc = _normalized(transa, transb, m, n, k, lda, ldb, ldc)
    if not _fits_blas(transa, transb, m, n, k, lda, ldb, ldc):
        return False
    a, b = placed(batch2), placed(batch1)
    pointers = ctypes.c_void_p * count
    a_array, b_array, c_array = (pointers(*(start + index * x.strides[0] for index in range(count)))
                                 for start, x in zip(map(address, (a, b, result)), (a, b, result)))
    single = result.dtype.type is np.float32
    kind = ctypes.c_float if single else ctypes.c_double
    batched = getattr(library(), f"cblas_{'s' if single else 'd'}gemm_batch")
    one = [ctypes.byref(ctypes.c_int(value)) for value in (_TRANSPOSE if transa else _NO_TRANSPOSE,
                                                           _TRANSPOSE if transb else _NO_TRANSPOSE, m, n, k)]
    scalars = kind(alpha), kind(beta)
    batched(ctypes.c_int(_COLUMN_MAJOR), *one, ctypes.byref(scalars[0]), a_array, *int_refs(lda), b_array,
            *int_refs(ldb),
            ctypes.byref(scalars[1]), c_array, *int_refs(ldc), ctypes.c_int(1), *int_refs(count))
    return True


def _fits_blas(transa: bool, transb: bool, m: int, n: int, k: int, lda: int, ldb: int, ldc: int) -> bool:
    """cpublas's use_blas_gemm: leading dimensions BLAS accepts."""
    return lda >= max(1, k if transa else m) and ldb >= max(1, n if transb else k) and ldc >= max(1, m) \
        and max(lda, ldb, ldc) < 1 << 31


def _normalized(transa: bool, transb: bool, m: int, n: int, k: int, lda: int, ldb: int, ldc: int) -> tuple:
    """cpublas's normalize_last_dims: (lda, ldb, ldc) as BLAS gets them, fixed along dimensions
    of one, whose strides are anything."""
    if n == 1:
        ldc = m
    if transa:
        lda = k if m == 1 else lda
    elif k == 1:
        lda = m
    if transb:
        ldb = n if k == 1 else ldb
    elif n == 1:
        ldb = k
    return lda, ldb, ldc


def address_of(x: np.ndarray, kind: type) -> ctypes.pointer:
    return ctypes.cast(ctypes.c_void_p(address(x)), ctypes.POINTER(kind))


# c10's CPU allocator starts every storage on this many bytes; MKL's kernels for some shapes (one
# row, short odd sums) take another path by the alignment of their operands, so it matters.
_ALIGNMENT = 64


def _storage_at(nbytes: int, zeroed: bool = True, dtype: type = np.uint8) -> tuple:
    """(storage, address): a new storage as c10's allocator gives one, NBYTES bytes starting on
    64, as a flat array of DTYPE. It is the root of the views made on it (its own base, or a
    memoryview's array)."""
    itemsize = np.dtype(dtype).itemsize
    if storages_aligned and not nbytes % itemsize:
        # numpy's own storage, which native.py's allocator starts on 64 (a thread whose context
        # has numpy's default allocator gets the padded one below)
        storage = (np.zeros if zeroed else np.empty)(nbytes // itemsize, dtype)
        start = address(storage)
        if not start % _ALIGNMENT:
            return storage, start
    try:
        memory = (np.zeros if zeroed else np.empty)(nbytes + _ALIGNMENT, np.uint8)
    except MemoryError:
        # the size numpy's own allocation error carries (for NBYTES, not the padded request), which ops
        # turn into PyTorch's allocator error
        error = MemoryError(f"cannot allocate {nbytes} bytes")
        error._total_size = nbytes
        raise error from None
    start = address(memory)
    first = -start % _ALIGNMENT
    if not nbytes:
        return memory[first:first].view(dtype), start + first
    return np.frombuffer(memory.data[first:first + nbytes], dtype), start + first


def _storage(nbytes: int, zeroed: bool = True) -> np.ndarray:
    """A new storage as c10's allocator gives one: NBYTES bytes starting on 64 (_storage_at's)."""
    return _storage_at(nbytes, zeroed)[0]


def placed(x: np.ndarray) -> np.ndarray:
    """X at an address of PyTorch's alignment: its storage (the array it is a view of) starting on
    64 bytes, X at its offset in it. A copy when X does not lie so already."""
    return _placed_at(x)[0]


def _placed_at(x: np.ndarray, scratch: Optional[int] = None) -> tuple:
    """placed(X) and its address; a copy made in the thread's scratch storage SCRATCH (0 or 1),
    for an operand read only while one call runs, rather than in a new storage."""
    start = address(x)
    root = x.base
    if isinstance(root, np.ndarray):
        while isinstance(root.base, np.ndarray):
            root = root.base
        root_start = address(root)
    else:
        root_start = start
    # X lies at PyTorch's alignment (its offset in its storage, modulo 64) when its storage does
    if not root_start % _ALIGNMENT:
        return x, start
    offset = (start - root_start) % _ALIGNMENT
    if x.flags.c_contiguous or x.flags.f_contiguous:
        span = x.nbytes
    elif min(x.strides, default=0) >= 0:  # the elements only, at their offsets from the first
        span = sum((size - 1) * step for size, step in zip(x.shape, x.strides)) + x.itemsize if x.size else 0
    else:
        return _placed_copy(x, start, offset)
    memory, memory_at = _storage_at(span + offset, zeroed=False) if scratch is None else \
        _SCRATCH.storage(scratch, span + offset)
    copy = np.ndarray(x.shape, x.dtype, buffer=memory, offset=offset, strides=x.strides)
    copy[...] = x
    return copy, memory_at + offset


@native  # it reads X's bytes through ctypes
def _placed_copy(x: np.ndarray, start: int, offset: int) -> tuple:
    """_placed_at's copy of X when a stride is negative: the bytes X spans, moved whole."""
    low, high = np.lib.array_utils.byte_bounds(x) if hasattr(np.lib, "array_utils") else np.byte_bounds(x)
    memory = _storage(high - low + 2 * _ALIGNMENT)
    position = (offset - (start - low)) % _ALIGNMENT
    memory[position:position + high - low] = np.ctypeslib.as_array((ctypes.c_uint8 * (high - low)).from_address(low))
    copy = np.ndarray(x.shape, x.dtype, buffer=memory, offset=position + start - low, strides=x.strides)
    return copy, address(copy)


def fresh(shape: tuple, dtype: np.dtype) -> np.ndarray:
    """Zeros in a new storage, aligned as c10's allocator aligns it (a storage of DTYPE's elements,
    as a tensor's is: its views, as_strided and resize_ count in them)."""
    dtype = np.dtype(dtype)
    return _storage_at(math.prod(shape) * dtype.itemsize, dtype=dtype)[0].reshape(shape)


def _aligned_empty(shape: tuple, dtype: np.dtype) -> tuple:
    """(array, address): a new storage as fresh's, for a result MKL writes whole: not cleared first."""
    if storages_aligned:  # numpy's own storage, on 64 bytes (a thread with numpy's allocator: padded below)
        out = np.empty(shape, dtype)
        start = address(out)
        if not start % _ALIGNMENT:
            return out, start
    storage, start = _storage_at(math.prod(shape) * dtype.itemsize, zeroed=False, dtype=dtype)
    return storage.reshape(shape), start


def gemv(mat: np.ndarray, vec: np.ndarray, out: Optional[np.ndarray] = None, alpha: float = 1,
         beta: float = 0) -> Optional[np.ndarray]:
    """alpha * mat @ vec + beta * OUT as ATen's addmv computes it (mv: beta 0): ?gemv_ on MAT as it
    lies in memory ('n' for a column-major matrix, else 't' on its row-major data, copied when
    neither fits)."""
    if not _routed(mat.dtype) or vec.dtype != mat.dtype:
        return None
    m, n = mat.shape
    if not m or not n or max(m, n) >= 1 << 31:
        return None
    y, y_at = _aligned_empty((m,), mat.dtype)  # gemv writes every element (beta 0) or scales OUT's
    if out is not None:
        y[...] = out
    step = [s // mat.itemsize for s in mat.strides]
    if step[0] == 1 and (n == 1 or step[1] >= max(1, m)):
        transposed, rows, columns, lda = False, m, n, step[1]
    else:
        if not (step[1] == 1 and (m == 1 or step[0] >= max(1, n))):
            mat = fresh_copy(mat)
            step = [n, 1]
        transposed, rows, columns, lda = True, n, m, step[0]
    lda = rows if columns == 1 else lda  # as BlasKernel's gemv sets it for one column
    (x, x_at), step = _vector(vec)
    mat, mat_at = _placed_at(mat, 0)  # a copy held until the call returns: it gets only the address
    alpha_at, beta_at = _SCRATCH.scalar_addresses(y.dtype.type, alpha, beta)
    storage, (rows_at, columns_at, lda_at, step_at, one_at) = _integers((rows, columns, max(lda, 1), step, 1))
    native_call(_prepared("gemv", y.dtype.type), _LETTER[transposed], rows_at, columns_at, alpha_at, mat_at,
                lda_at, x_at, step_at, beta_at, y_at, one_at)
    return y


def dot(x: np.ndarray, y: np.ndarray) -> Optional[np.ndarray]:
    """x · y as ATen's dot: ?dot_ over the two vectors (a 0-d array)."""
    if not _routed(x.dtype) or y.dtype != x.dtype or not 0 < x.size < 1 << 31:
        return None
    # each (vector, address): the copies _vector makes are held until the call returns
    (a, step_a), (b, step_b) = _vector(x), _vector(y)
    storage, (size_at, step_a_at, step_b_at) = _integers((x.size, step_a, step_b))
    result = native_call(_prepared("dot", x.dtype.type), size_at, a[1], step_a_at, b[1], step_b_at)
    return np.asarray(result, x.dtype)


def fresh_copy(x: np.ndarray) -> np.ndarray:
    """A contiguous copy in a new storage, as ATen's .contiguous() makes."""
    copy = fresh(x.shape, x.dtype)
    copy[...] = x
    return copy


def _vector(x: np.ndarray) -> tuple:
    """((vector, address), stride in elements): a vector as BLAS gets it from ATen; copied where it
    is not a forward stride BLAS takes."""
    step = x.strides[0] // x.itemsize if x.size > 1 else 1
    if step < 1 or x.strides[0] % x.itemsize:
        copy = fresh_copy(x)
        return (copy, address(copy)), 1
    return _placed_at(x), step
