"""torch.fft's three transforms through MKL's DFTI (with the `mkl` extra), as ATen's mkl
SpectralOps computes them: the batch dimensions collapsed into one, in stride order, and one
descriptor per call with ATen's strides, distances, storage and scale. Every function returns
None when the backend is not in use, so callers fall back to the emulation."""
from __future__ import annotations

import ctypes
from typing import Optional, Sequence

import numpy as np

from .mkl import fresh, fresh_copy, library, native, placed
from .native import address

# mkl_dfti.h: configuration parameters and their values
_FORWARD_SCALE, _BACKWARD_SCALE, _NUMBER_OF_TRANSFORMS = 4, 5, 7
_CONJUGATE_EVEN_STORAGE, _PLACEMENT, _INPUT_STRIDES, _OUTPUT_STRIDES = 10, 11, 12, 13
_INPUT_DISTANCE, _OUTPUT_DISTANCE = 14, 15
_COMPLEX, _REAL, _COMPLEX_COMPLEX, _NOT_INPLACE = 32, 33, 39, 44
# ATen's fft_norm_mode
_BY_ROOT_N, _BY_N = 1, 2


def _sorted_dims(x: np.ndarray, dims: Sequence[int], exclude_last: bool = False) -> list:
    """ATen's _sort_dims: the transformed dimensions by falling stride (the last one kept last
    for a one-sided transform)."""
    dims = list(dims)
    end = len(dims) - exclude_last
    return sorted(dims[:end], key=lambda d: -x.strides[d]) + dims[end:]


def _long_array(values: Sequence[int]) -> ctypes.Array:
    return (ctypes.c_long * len(values))(*values)


def _check(status: int) -> None:
    if status:
        message = library().DftiErrorMessage
        message.restype = ctypes.c_char_p
        raise RuntimeError(f"MKL FFT error: {message(ctypes.c_long(status)).decode()}")


def _execute(x: np.ndarray, out_sizes: Sequence[int], dims: Sequence[int], normalization: int, forward: bool,
             out_dtype: np.dtype) -> np.ndarray:
    """ATen's _exec_fft: X's batch dimensions first (by falling stride) and collapsed, a
    contiguous result, one DFTI descriptor over the batch, the result viewed back in X's order."""
    lib = library()
    batch = sorted((d for d in range(x.ndim) if d not in dims), key=lambda d: -x.strides[d])
    permutation = batch + list(dims)
    signal_shape = [x.shape[d] for d in dims]
    source = np.transpose(x, permutation).reshape([-1] + signal_shape)
    if min(source.strides) <= 0:  # an expanded gradient or a reversed view: made contiguous, as a tensor
        source = fresh_copy(source)  # lies that ATen's strides can describe
    source = placed(source)
    count = source.shape[0]
    sizes = [max(size, out_sizes[d]) for size, d in zip(signal_shape, dims)]
    out = fresh([count] + [out_sizes[d] for d in dims], out_dtype)
    in_steps = [s // source.itemsize for s in source.strides]
    out_steps = [s // out.itemsize for s in out.strides]
    real_type = np.float32 if out_dtype in (np.float32, np.complex64) else np.float64
    handle = ctypes.c_void_p()
    complex_in, complex_out = np.iscomplexobj(source), np.iscomplexobj(out)
    domain = _COMPLEX if (complex_in if forward else complex_out) else _REAL
    # mkl_dfti.h's DftiCreateDescriptor macro, as ATen expands it: the exported function of that
    # name plans a one-dimensional transform as a multidimensional one, with other kernels
    # (other last digits) than the _1d entry point ATen's build calls
    precision = "s" if real_type is np.float32 else "d"
    if len(sizes) == 1:
        create = getattr(lib, f"DftiCreateDescriptor_{precision}_1d")
        _check(create(ctypes.byref(handle), ctypes.c_int(domain), ctypes.c_long(sizes[0])))
    else:
        create = getattr(lib, f"DftiCreateDescriptor_{precision}_md")
        _check(create(ctypes.byref(handle), ctypes.c_int(domain), ctypes.c_long(len(sizes)), _long_array(sizes)))
    try:
        settings = [(_PLACEMENT, ctypes.c_int(_NOT_INPLACE)), (_NUMBER_OF_TRANSFORMS, ctypes.c_long(count)),
                    (_INPUT_DISTANCE, ctypes.c_long(in_steps[0])), (_OUTPUT_DISTANCE, ctypes.c_long(out_steps[0])),
                    (_INPUT_STRIDES, _long_array([0] + in_steps[1:])),
                    (_OUTPUT_STRIDES, _long_array([0] + out_steps[1:]))]
        if not (complex_in and complex_out):
            settings.append((_CONJUGATE_EVEN_STORAGE, ctypes.c_int(_COMPLEX_COMPLEX)))
        if normalization in (_BY_ROOT_N, _BY_N):
            numel = float(np.prod(sizes))
            scale = 1.0 / np.sqrt(numel) if normalization == _BY_ROOT_N else 1.0 / numel
            settings.append((_FORWARD_SCALE if forward else _BACKWARD_SCALE, ctypes.c_double(scale)))
        for parameter, value in settings:
            _check(lib.DftiSetValue(handle, ctypes.c_int(parameter), value))
        _check(lib.DftiCommitDescriptor(handle))
        compute = lib.DftiComputeForward if forward else lib.DftiComputeBackward
        _check(compute(handle, ctypes.c_void_p(address(source)), ctypes.c_void_p(address(out))))
    finally:
        lib.DftiFreeDescriptor(ctypes.byref(handle))
    # the batch dimension unfolded back into X's, every dimension in its place
    strides, numel = [0] * x.ndim, 1
    for d in reversed(batch):
        strides[d] = numel * out.strides[0]
        numel *= out_sizes[d]
    for index, d in enumerate(dims):
        strides[d] = out.strides[1 + index]
    return np.lib.stride_tricks.as_strided(out, tuple(out_sizes), strides)


def _usable(x: np.ndarray, dims: Sequence[int]) -> bool:
    """Whether MKL is in use for a transform of X over DIMS (none over no dimension: a copy)."""
    return x.dtype.type in (np.float32, np.float64, np.complex64, np.complex128) and x.size > 0 \
        and len(dims) > 0 and library() is not None


@native
def c2c(x: np.ndarray, dims: Sequence[int], normalization: int, forward: bool) -> Optional[np.ndarray]:
    """ATen's _fft_c2c_mkl: the complex transform of X over DIMS (sorted by stride)."""
    if not _usable(x, dims) or not np.iscomplexobj(x):
        return None
    return _execute(x, x.shape, _sorted_dims(x, dims), normalization, forward, x.dtype)


@native
def r2c(x: np.ndarray, dims: Sequence[int], normalization: int, onesided: bool) -> Optional[np.ndarray]:
    """ATen's _fft_r2c_mkl before its conjugate-symmetric fill: the real transform of X, the
    last of DIMS half long plus one when ONESIDED, else the full length (only the first half
    plus one written: the caller fills the rest by symmetry)."""
    if not _usable(x, dims) or np.iscomplexobj(x):
        return None
    sizes = list(x.shape)
    if onesided:
        sizes[dims[-1]] = x.shape[dims[-1]] // 2 + 1
    return _execute(x, sizes, _sorted_dims(x, dims, exclude_last=True), normalization, True,
                    np.result_type(x.dtype, np.complex64))


@native
def c2r(x: np.ndarray, dims: Sequence[int], normalization: int, last_dim_size: int) -> Optional[np.ndarray]:
    """ATen's _fft_c2r_mkl: over more than one dimension, the complex inverse transform of all
    but the last first, then the real inverse transform of the last, LAST_DIM_SIZE long."""
    if not _usable(x, dims) or not np.iscomplexobj(x):
        return None
    dims = list(dims)
    if len(dims) > 1:
        x = _execute(x, x.shape, _sorted_dims(x, dims[:-1]), normalization, False, x.dtype)
        dims = dims[-1:]
    sizes = list(x.shape)
    sizes[dims[-1]] = last_dim_size
    real = np.dtype(np.float32 if x.dtype == np.complex64 else np.float64)
    return _execute(x, sizes, dims, normalization, False, real)
