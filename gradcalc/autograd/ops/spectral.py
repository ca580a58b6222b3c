"""torch.fft: discrete Fourier transforms over three primitives, as in PyTorch -- complex to
complex, real to complex (one-sided or full) and complex to real -- each with its node
(FftC2CBackward0, FftR2CBackward0, FftC2RBackward0); the public transforms resize, conjugate
and pick the normalisation around them."""
from __future__ import annotations

import math
from typing import Any, Optional, Sequence

import numpy as np

from .. import dtypes, mkl_fft
from ...warnings import warn_once
from ..tensor import Tensor, wrap_dim
from .arrangement import constant_pad_nd, view_as_real
from .common import zeros
from .joining import cat
from .registry import node, op, record

# PyTorch's fft_norm_mode: how a transform is scaled
NONE, BY_ROOT_N, BY_N = 0, 1, 2

C2C = node("FftC2CBackward0", ("self",), self=lambda grad, dim, normalization, forward: fft_c2c(
    grad, dim, normalization, not forward))
R2C = node("FftR2CBackward0", ("self",), self=lambda grad, self, dim, normalization, onesided: _r2c_grad(
    grad, self, dim, normalization, onesided))
C2R = node("FftC2RBackward0", ("self",), self=lambda grad, dim, normalization: _c2r_grad(grad, dim, normalization))


def _scale(data: np.ndarray, sizes: Sequence[int], normalization: int) -> np.ndarray:
    count = int(np.prod(sizes, dtype=np.int64))
    if normalization == BY_N:
        return data / count
    if normalization == BY_ROOT_N:
        return data / math.sqrt(count)
    return data


def _single(data: np.ndarray, dtype: Any) -> np.ndarray:
    """A float64 spectrum in a single-precision dtype: parts that are float64 rounding noise
    (far below what single precision resolves) become the exact zeros they stand for."""
    if dtype._numpy.itemsize > 8 or dtype is dtypes.float64 or not data.size:
        return data.astype(dtype._numpy)
    noise = 1e-12 * float(np.max(np.abs(data)))
    if np.iscomplexobj(data):
        data = np.where(np.abs(data.real) < noise, 0.0, data.real) + 1j * np.where(np.abs(data.imag) < noise, 0.0,
                                                                                 data.imag)
    else:
        data = np.where(np.abs(data) < noise, 0.0, data)
    return data.astype(dtype._numpy)


def _complex_dtype(dtype: Any) -> Any:
    return dtype if dtype.is_complex else dtype.to_complex()


def fft_c2c(input: Tensor, dim: Sequence[int], normalization: int, forward: bool) -> Tensor:
    dims = tuple(dim)
    data = mkl_fft.c2c(input._data, dims, normalization, forward)
    if data is None:
        x = input._data.astype(np.complex128)
        data = np.fft.fftn(x, axes=dims) if forward else np.fft.ifftn(x, axes=dims) * np.prod(
            [input.shape[d] for d in dims])
        data = _single(_scale(data, [input.shape[d] for d in dims], normalization), input._dtype)
    return record(C2C, (input,), data, input._dtype, dim=dims, normalization=normalization, forward=forward)


def fft_r2c(input: Tensor, dim: Sequence[int], normalization: int, onesided: bool) -> Tensor:
    dims = tuple(dim)
    dtype = _complex_dtype(input._dtype)
    # the real-input transform (exact zeros where the spectrum is real), then, for the full
    # spectrum, the other half from its conjugate symmetry X[k] = conj(X[-k])
    through_mkl = mkl_fft.r2c(input._data, dims, normalization, onesided)
    if through_mkl is not None:  # MKL writes the first half (and one) of a full spectrum
        data = through_mkl if onesided else through_mkl[(slice(None),) * dims[-1] + (
            slice(0, input.shape[dims[-1]] // 2 + 1),)]
    else:
        data = _scale(np.fft.rfftn(input._data.astype(np.float64), axes=dims), [input.shape[d] for d in dims],
                      normalization)
    if not onesided:
        last, size = dims[-1], input.shape[dims[-1]]
        others = dims[:-1]
        reflected = np.conj(np.roll(np.flip(data, axis=others), 1, axis=others) if others else data)
        half = size // 2 + 1
        rest = np.take(reflected, np.arange(size - half, 0, -1), axis=last)  # X[k] = conj(X[size - k])
        data = np.concatenate([data, rest], axis=last)
    if through_mkl is None:
        data = _single(data, dtype)
    return record(R2C, (input,), data, dtype, dim=dims, normalization=normalization, onesided=onesided)


def fft_c2r(input: Tensor, dim: Sequence[int], normalization: int, last_dim_size: int) -> Tensor:
    dims = tuple(dim)
    dtype = input._dtype.to_real()
    sizes = [input.shape[d] for d in dims[:-1]] + [last_dim_size]
    data = mkl_fft.c2r(input._data, dims, normalization, last_dim_size)
    if data is None:
        data = np.fft.irfftn(input._data.astype(np.complex128), s=sizes, axes=dims) * np.prod(sizes)
        data = _single(_scale(data, sizes, normalization), dtype)
    return record(C2R, (input,), data, dtype, dim=dims, normalization=normalization)


def _r2c_grad(grad: Tensor, self: Tensor, dim: tuple, normalization: int, onesided: bool) -> Tensor:
    if onesided:  # the dropped half of the spectrum takes no gradient: zeros, then back to full length
        last = dim[-1]
        pad = list(grad.shape)
        pad[last] = self.shape[last] - grad.shape[last]
        grad = cat([grad, zeros(tuple(pad), dtype=grad.dtype)], last)
    return fft_c2c(grad, dim, normalization, False).real


def _c2r_grad(grad: Tensor, dim: tuple, normalization: int) -> Tensor:
    """The one-sided transform of the gradient, with the bins that stand for two doubled."""
    half = fft_r2c(grad, dim, normalization, True)
    last = dim[-1]
    doubled = grad.shape[last] - half.shape[last]
    if doubled <= 0:
        return half
    weights = np.ones(half.shape[last])
    weights[1:1 + doubled] = 2
    shape = [1] * half.ndim
    shape[last] = half.shape[last]
    return half * Tensor._make(weights.reshape(shape).astype(half._dtype.to_real()._numpy), half._dtype.to_real())


# ------------------------------------------------------------------ the public transforms

def _normalization(norm: Optional[str], forward: bool) -> int:
    if norm is None or norm == "backward":
        return NONE if forward else BY_N
    if norm == "forward":
        return BY_N if forward else NONE
    if norm == "ortho":
        return BY_ROOT_N
    raise RuntimeError(f'Invalid normalization mode: "{norm}"')


def _promoted(input: Tensor, require_complex: bool = False) -> Tensor:
    """Integers become the default float dtype; with `require_complex`, reals become complex."""
    if input._dtype.category < dtypes.FLOATING:
        input = input.to(dtypes.get_default_dtype())
    if input._dtype in (dtypes.float16, dtypes.bfloat16):  # no CPU kernel transforms them
        raise RuntimeError(f"Unsupported dtype {input._dtype._scalar_name}")
    if require_complex and not input._dtype.is_complex:
        input = input.to(input._dtype.to_complex())
    return input


def _resized(input: Tensor, dims: Sequence[int], sizes: Sequence[int]) -> Tensor:
    """Each dim cut or zero-padded at its end to its size, as the transforms' `n` and `s` ask."""
    pad = [0] * (2 * input.ndim)
    padding = False
    for d, size in zip(dims, sizes):
        if size < 1:
            raise RuntimeError(f"Invalid number of data points ({size}) specified")
        if input.shape[d] > size:
            input = input.narrow(d, 0, size)
        elif input.shape[d] < size:
            pad[2 * (input.ndim - 1 - d) + 1] = size - input.shape[d]
            padding = True
    if padding:
        last = max(i for i, p in enumerate(pad) if p) + 1
        input = constant_pad_nd(input, pad[:last + (last % 2)])
    return input


def _one_dim(input: Tensor, n: Optional[int], dim: int) -> tuple:
    if input.ndim == 0:  # a transform wraps its dimension without taking a scalar for a vector
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    d = wrap_dim(dim, input.ndim)
    return d, (input.shape[d] if n is None else n)


def _transform_1d(input: Tensor, n: Optional[int], dim: int, norm: Optional[str], forward: bool) -> Tensor:
    input = _promoted(input)
    d, size = _one_dim(input, n, dim)
    input = _resized(input, (d,), (size,))
    if input._dtype.is_complex:
        return fft_c2c(input, (d,), _normalization(norm, forward), forward)
    result = fft_r2c(input, (d,), _normalization(norm, forward), False)
    return result if forward else result.conj()


@op(module="fft")
def fft(input: Tensor, n: Optional[int] = None, dim: int = -1, norm: Optional[str] = None) -> Tensor:
    return _transform_1d(input, n, dim, norm, True)


@op(module="fft")
def ifft(input: Tensor, n: Optional[int] = None, dim: int = -1, norm: Optional[str] = None) -> Tensor:
    return _transform_1d(input, n, dim, norm, False)


def _check_real(name: str, input: Tensor) -> None:
    if input._dtype.is_complex:
        raise RuntimeError(f"{name} expects a real input tensor, but got {input._dtype._scalar_name}")


@op(module="fft")
def rfft(input: Tensor, n: Optional[int] = None, dim: int = -1, norm: Optional[str] = None) -> Tensor:
    _check_real("rfft", input)
    input = _promoted(input)
    d, size = _one_dim(input, n, dim)
    return fft_r2c(_resized(input, (d,), (size,)), (d,), _normalization(norm, True), True)


@op(module="fft")
def ihfft(input: Tensor, n: Optional[int] = None, dim: int = -1, norm: Optional[str] = None) -> Tensor:
    _check_real("ihfft", input)
    input = _promoted(input)
    d, size = _one_dim(input, n, dim)
    return fft_r2c(_resized(input, (d,), (size,)), (d,), _normalization(norm, False), True).conj()


def _c2r_1d(input: Tensor, n: Optional[int], dim: int, norm: Optional[str], forward: bool) -> Tensor:
    input = _promoted(input, require_complex=True)
    d = wrap_dim(dim, input.ndim)
    size = 2 * (input.shape[d] - 1) if n is None else n
    if size < 1:
        raise RuntimeError(f"Invalid number of data points ({size}) specified")
    input = _resized(input, (d,), (size // 2 + 1,))
    if forward:
        input = input.conj()
    return fft_c2r(input, (d,), _normalization(norm, forward), size)


@op(module="fft")
def irfft(input: Tensor, n: Optional[int] = None, dim: int = -1, norm: Optional[str] = None) -> Tensor:
    return _c2r_1d(input, n, dim, norm, False)


@op(module="fft")
def hfft(input: Tensor, n: Optional[int] = None, dim: int = -1, norm: Optional[str] = None) -> Tensor:
    return _c2r_1d(input, n, dim, norm, True)


def _dims_and_sizes(input: Tensor, s: Optional[Sequence[int]], dim: Optional[Sequence[int]]) -> tuple:
    if dim is None:
        dims = list(range(input.ndim - len(s), input.ndim)) if s is not None else list(range(input.ndim))
    else:
        dims = [wrap_dim(d, input.ndim) for d in ([dim] if isinstance(dim, int) else dim)]
        if len(set(dims)) != len(dims):
            raise RuntimeError("FFT dims must be unique")
    if s is not None and len(s) != len(dims):
        raise RuntimeError("When given, dim and shape arguments must have the same length")
    sizes = [input.shape[d] if s is None or s[i] == -1 else s[i] for i, d in enumerate(dims)]
    return dims, sizes


def _fftn(input: Tensor, s: Any, dim: Any, norm: Optional[str], forward: bool) -> Tensor:
    input = _promoted(input, require_complex=True)
    dims, sizes = _dims_and_sizes(input, s, dim)
    return fft_c2c(_resized(input, dims, sizes), dims, _normalization(norm, forward), forward)


def _rfftn(name: str, input: Tensor, s: Any, dim: Any, norm: Optional[str], forward: bool) -> Tensor:
    _check_real(name, input)
    input = _resized(_promoted(input), *_dims_and_sizes(input, s, dim))
    dims, _ = _dims_and_sizes(input, s, dim)
    if forward:
        return fft_r2c(input, dims, _normalization(norm, True), True)
    # ihfftn: the conjugate of the one-sided transform of the last dim, then the inverse
    # transform of the others
    last = fft_r2c(input, dims[-1:], _normalization(norm, False), True).conj()
    return fft_c2c(last, dims[:-1], _normalization(norm, False), False) if len(dims) > 1 else last


def _irfftn(input: Tensor, s: Any, dim: Any, norm: Optional[str], forward: bool) -> Tensor:
    input = _promoted(input, require_complex=True)
    dims, sizes = _dims_and_sizes(input, s, dim)
    last = sizes[-1] if s is not None else 2 * (input.shape[dims[-1]] - 1)
    if last < 1:
        raise RuntimeError(f"Invalid number of data points ({last}) specified")
    input = _resized(input, dims, sizes[:-1] + [last // 2 + 1])
    if forward:
        input = input.conj()
    return fft_c2r(input, dims, _normalization(norm, forward), last)


def _declare_nd(suffix: str, default_dim: Any) -> None:
    """fft2/fftn and their kin: the same transforms, over the last two dims or the given ones."""
    def function(kind: str, forward: bool) -> Any:
        def transform(input: Tensor, s: Any = None, dim: Any = default_dim, norm: Optional[str] = None) -> Tensor:
            if kind == "c2c":
                return _fftn(input, s, dim, norm, forward)
            if kind == "r2c":
                return _rfftn(("rfft" if forward else "ihfft") + suffix, input, s, dim, norm, forward)
            return _irfftn(input, s, dim, norm, forward)

        return transform

    for name, kind, forward in (("fft", "c2c", True), ("ifft", "c2c", False), ("rfft", "r2c", True),
                                ("ihfft", "r2c", False), ("irfft", "c2r", False), ("hfft", "c2r", True)):
        transform = function(kind, forward)
        transform.__name__ = transform.__qualname__ = name + suffix
        op(name + suffix, module="fft")(transform)


_declare_nd("2", (-2, -1))
_declare_nd("n", None)


def _frequencies(n: int, d: float, dtype: Any, requires_grad: bool, onesided: bool) -> Tensor:
    dtype = dtype or dtypes.get_default_dtype()
    if onesided:
        values = np.arange(n // 2 + 1, dtype=np.float64)
    else:
        values = np.concatenate([np.arange((n - 1) // 2 + 1), np.arange(-(n // 2), 0)]).astype(np.float64)
    result = Tensor._make(np.asarray(values / (n * d), dtype=dtype._numpy), dtype)
    return result._set_requires_grad() if requires_grad else result


@op(module="fft")
def fftfreq(n: int, d: float = 1.0, *, dtype: Any = None, layout: Any = None, device: Any = None,
            pin_memory: Any = False, requires_grad: Any = False) -> Tensor:
    return _frequencies(n, d, dtype, bool(requires_grad), False)


@op(module="fft")
def rfftfreq(n: int, d: float = 1.0, *, dtype: Any = None, layout: Any = None, device: Any = None,
             pin_memory: Any = False, requires_grad: Any = False) -> Tensor:
    return _frequencies(n, d, dtype, bool(requires_grad), True)


def _shift(input: Tensor, dim: Any, inverse: bool) -> Tensor:
    dims = list(range(input.ndim)) if dim is None else [dim] if isinstance(dim, int) else list(dim)
    shifts = [(input.shape[d] + (1 if inverse else 0)) // 2 for d in dims]
    return input.roll(shifts, dims)


@op(module="fft")
def fftshift(input: Tensor, dim: Any = None) -> Tensor:
    return _shift(input, dim, False)


@op(module="fft")
def ifftshift(input: Tensor, dim: Any = None) -> Tensor:
    return _shift(input, dim, True)


# ------------------------------------------------------------------ short-time transforms

def _padded_signal(x: Tensor, pad: int, mode: str) -> Tensor:
    """F.pad of the last dim by `pad` on both sides (reflect, replicate, circular or constant)."""
    n = x.shape[-1]
    if mode == "constant":
        return constant_pad_nd(x, (pad, pad))
    if mode == "reflect":
        if pad >= n:
            raise RuntimeError(f"Argument #4: Padding size should be less than the corresponding input dimension, "
                               f"but got: padding ({pad}, {pad}) at dimension 1 of input {list(x.shape)}")
        positions = list(range(pad, 0, -1)) + list(range(n)) + list(range(n - 2, n - 2 - pad, -1))
    elif mode == "replicate":
        positions = [0] * pad + list(range(n)) + [n - 1] * pad
    elif mode == "circular":
        positions = [(i - pad) % n for i in range(n + 2 * pad)]
    else:
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    return x.index_select(-1, Tensor._make(np.asarray(positions, dtype=np.int64), dtypes.int64))


def _window_of(window: Optional[Tensor], n_fft: int, win_length: int, dtype: Any, warning: tuple) -> Tensor:
    if window is None:
        message, at = warning
        warn_once("UserWarning", message, at=at)
        window = Tensor._make(np.ones(win_length, dtype=dtype._numpy), dtype)
    if window.shape != (win_length,):
        raise RuntimeError(f"stft: expected a 1D window tensor of size equal to win_length={win_length}, but got "
                           f"window with size {list(window.shape)}")
    if win_length < n_fft:  # centred in n_fft
        left = (n_fft - win_length) // 2
        window = constant_pad_nd(window, (left, n_fft - win_length - left))
    return window


_RECTANGULAR_STFT = ("A window was not provided. A rectangular window will be applied,which is known to cause "
                     "spectral leakage. Other windows such as torch.hann_window or torch.hamming_window are "
                     "recommended to reduce spectral leakage.To suppress this warning and use a rectangular window, "
                     "explicitly set `window=torch.ones(n_fft, device=<device>)`.",
                     "aten/src/ATen/native/SpectralOps.cpp:835")
_RECTANGULAR_ISTFT = ("A window was not provided. A rectangular window will be applied.Please provide the same window "
                      "used by stft to make the inversion lossless.To suppress this warning and use a rectangular "
                      "window, explicitly set `window=torch.ones(n_fft, device=<device>)`.",
                      "aten/src/ATen/native/SpectralOps.cpp:1035")


def stft(input: Tensor, n_fft: int, hop_length: Optional[int] = None, win_length: Optional[int] = None,
         window: Optional[Tensor] = None, center: bool = True, pad_mode: str = "reflect", normalized: bool = False,
         onesided: Optional[bool] = None, return_complex: Optional[bool] = None) -> Tensor:
    """torch.stft: frames of n_fft samples hop_length apart (the signal padded by n_fft // 2 at each
    end when centred), windowed and transformed; frequencies along dim -2, frames along dim -1."""
    is_complex = input._dtype.is_complex or (window is not None and window._dtype.is_complex)
    if return_complex is None and not is_complex:
        raise RuntimeError("stft requires the return_complex parameter be given for real inputs, and will further "
                           "require that return_complex=True in a future PyTorch release.")
    if input.ndim not in (1, 2):
        raise RuntimeError(f"stft: expected a 1D or 2D tensor, but got {input.ndim}D tensor")
    signal = input if input.ndim == 2 else input.unsqueeze(0)
    if center:
        signal = _padded_signal(signal, n_fft // 2, pad_mode)
    hop = n_fft // 4 if hop_length is None else hop_length
    win = n_fft if win_length is None else win_length
    length = signal.shape[-1]
    if not 0 < n_fft <= length:
        raise RuntimeError(f"stft: expected 0 < n_fft <= {length}, but got n_fft={n_fft}")
    window = _window_of(window, n_fft, win, signal._dtype, _RECTANGULAR_STFT)
    count = 1 + (length - n_fft) // hop
    stride = signal.stride()
    frames = signal.as_strided((signal.shape[0], count, n_fft), (stride[0], hop * stride[1], stride[1]))
    frames = frames * window
    normalization = BY_ROOT_N if normalized else NONE
    if frames._dtype.is_complex or onesided is False:
        spectrum = fft_c2c(_promoted(frames, require_complex=True), (2,), normalization, True)
    else:
        spectrum = fft_r2c(frames, (2,), normalization, True)
    spectrum.transpose_(1, 2)
    if input.ndim == 1:
        spectrum.squeeze_(0)
    if not return_complex:
        warn_once("UserWarning", "stft with return_complex=False is deprecated. In a future pytorch release, stft "
                                 "will return complex tensors for all inputs, and return_complex=False will raise an "
                                 "error.\nNote: you can still call torch.view_as_real on the complex output to "
                                 "recover the old return format.")
        return view_as_real(spectrum)
    return spectrum


def istft(input: Tensor, n_fft: int, hop_length: Optional[int] = None, win_length: Optional[int] = None,
          window: Optional[Tensor] = None, center: bool = True, normalized: bool = False,
          onesided: Optional[bool] = None, length: Optional[int] = None, return_complex: bool = False) -> Tensor:
    """torch.istft: each frame transformed back, windowed, overlapped and added, and divided by
    the overlapped squared window."""
    if not input._dtype.is_complex:
        raise RuntimeError("istft requires a complex-valued input tensor.")
    spectra = input if input.ndim == 3 else input.unsqueeze(0)
    hop = n_fft // 4 if hop_length is None else hop_length
    win = n_fft if win_length is None else win_length
    real = input._dtype.to_real()
    window = _window_of(window, n_fft, win, real, _RECTANGULAR_ISTFT)
    onesided = spectra.shape[1] != n_fft if onesided is None else onesided
    frames = spectra.transpose(1, 2)
    normalization = BY_ROOT_N if normalized else BY_N
    if onesided and not return_complex:
        frames = fft_c2r(_resized(frames, (2,), (n_fft // 2 + 1,)), (2,), normalization, n_fft)
    else:
        frames = fft_c2c(frames, (2,), normalization, False)
        frames = frames if return_complex else frames.real
    frames = frames * window
    count = frames.shape[1]
    total = n_fft + hop * (count - 1)
    positions = Tensor._make((np.arange(count)[:, None] * hop + np.arange(n_fft)).reshape(-1), dtypes.int64)
    signal = zeros((frames.shape[0], total), dtype=frames.dtype).index_add(1, positions, frames.flatten(1))
    envelope = zeros((total,), dtype=real).index_add(0, positions, (window * window).expand(count, n_fft).flatten())
    start = n_fft // 2 if center else 0
    end = start + length if length is not None else (total - n_fft // 2 if center else total)
    end = min(end, total)
    envelope = envelope.narrow(0, start, end - start)
    if float(envelope.abs().min()) < 1e-11:
        raise RuntimeError("istft: window overlap add min: " + str(float(envelope.abs().min())))
    signal = signal.narrow(1, start, end - start) / envelope
    if length is not None and signal.shape[1] < length:
        signal = constant_pad_nd(signal, (0, length - signal.shape[1]))
    return signal.squeeze(0) if input.ndim == 2 else signal


def _stft_method(self: Tensor, n_fft: int, hop_length: Optional[int] = None, win_length: Optional[int] = None,
                 window: Optional[Tensor] = None, center: bool = True, pad_mode: str = "reflect",
                 normalized: bool = False, onesided: Optional[bool] = None,
                 return_complex: Optional[bool] = None) -> Tensor:
    return stft(self, n_fft, hop_length, win_length, window, center, pad_mode, normalized, onesided, return_complex)


op("stft", python="torch.functional", method=_stft_method)(stft)
op("istft")(istft)
