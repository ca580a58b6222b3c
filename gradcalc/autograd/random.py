"""PyTorch's CPU random number generation, reproduced bit for bit with numpy.

PyTorch's CPU generator is a 32-bit Mersenne Twister seeded with the classic
``init_genrand`` recurrence on the low 32 bits of the seed.  numpy's
``MT19937`` bit generator runs the same twister, so we compute the seeded key
ourselves, load it into numpy and read raw 32-bit outputs with ``random_raw``.
On top of that stream every sampler below replays what PyTorch's CPU kernels
do, including the float rounding of their arithmetic: GCC contracts
``a * b + c`` into fused multiply-adds in those kernels, so we emulate FMA
exactly instead of rounding twice.
"""

from __future__ import annotations

import functools
import math
import os
import struct
from typing import Any, Union

import numpy as np

from . import dtypes, kernels
from .native import kernels as native
from .tensor import CPU, Device, Tensor
from ..display.names import torch_class, type_name
from ..language.limits import with_room
from .ops.common import plain_ints
from .ops.parser import compile_parser

Shape = Union[int, tuple[int, ...]]
DType = Union[str, type, np.dtype]

__all__ = [
    "Generator",
    "default_generator",
    "manual_seed",
    "initial_seed",
    "seed",
    "get_rng_state",
    "set_rng_state",
    "rand",
    "randn",
    "randint",
    "uniform_",
    "normal_",
    "randperm",
    "bernoulli_",
    "bernoulli",
    "linear_init",
]

# torch.Generator() starts from this seed (c10::detail::default_rng_seed_val).
_DEFAULT_SEED = 67280421310721
_N = 624
_U64 = (1 << 64) - 1

# Names PyTorch uses in its messages: ScalarType names and C++ type names.
_SCALAR_NAMES = {
    "float16": "Half", "float32": "Float", "float64": "Double", "int64": "Long",
    "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte", "bool": "Bool",
    "complex64": "ComplexFloat", "complex128": "ComplexDouble",
}
_CPP_NAMES = {
    "float16": "c10::Half", "float32": "float", "float64": "double", "int64": "long int",
    "int32": "int", "int16": "short int", "int8": "signed char", "uint8": "unsigned char",
    "bool": "bool", "bfloat16": "c10::BFloat16",
}
_FLOATS = ("float16", "float32", "float64")
_COMPLEX = {"complex64": "float32", "complex128": "float64"}
_INTS = ("int64", "int32", "int16", "int8", "uint8")


def _mt_key(seed: int) -> np.ndarray:
    """The twister state after init_genrand(seed & 0xffffffff), before any twist."""
    key = [seed & 0xFFFFFFFF]
    s = key[0]
    for j in range(1, _N):
        s = (1812433253 * (s ^ (s >> 30)) + j) & 0xFFFFFFFF
        key.append(s)
    return np.array(key, dtype=np.uint32)


def _check_seed(seed: int) -> int:
    """The uint64 torch stores for a seed, with torch's error for one out of range."""
    seed = int(seed)
    if not -(1 << 63) <= seed <= _U64:
        raise ValueError("Overflow when unpacking long long")
    return seed & _U64  # negative seeds wrap to uint64 as in torch


_NO_CUDA_GENERATOR = (
    'Cannot get CUDA generator without ATen_cuda library. PyTorch splits its backend into two shared '
    'libraries: a CPU library and a CUDA library; this error has occurred because you are trying to use '
    'some CUDA functionality, but the CUDA library has not been loaded by the dynamic linker for some '
    "reason.  The CUDA library MUST be loaded, EVEN IF you don't directly use any symbols from the CUDA "
    'library! One common culprit is a lack of -Wl,--no-as-needed in your link arguments; many dynamic '
    "linkers will delete dynamic library dependencies if you don't depend on any of their symbols.  You "
    'can check if this has occurred by using ldd on your binary to see if there is a dependency on '
    '*_cuda.so library.')
# THPGenerator_pynew's signature
_GENERATOR_PARSER = compile_parser(["Generator(Device device=None)"])


def _check_generator_device(device: Any) -> None:
    """The device of a new generator, as torch's CPU-only build answers: the CPU only."""
    if device is None:
        return
    if isinstance(device, int) and not isinstance(device, bool):
        raise RuntimeError("Cannot access accelerator device when none is available.")
    kind = Device(device).type
    if kind == "cuda":
        raise RuntimeError(_NO_CUDA_GENERATOR)
    if kind != "cpu":
        raise RuntimeError(f"{kind.upper()} device type not an accelerator.")


def _new_engine() -> np.random.MT19937:
    return np.random.MT19937(0)


@torch_class("torch._C.Generator", c_type=True)
class Generator:
    """A CPU generator: the twister plus the cached second Box-Muller sample."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        """torch.Generator(device=None): a CPU generator at PyTorch's default seed."""
        _check_generator_device(_GENERATOR_PARSER.parse(args, kwargs)[1].get("device"))
        self.manual_seed(_DEFAULT_SEED)

    @classmethod
    def _seeded(cls, seed: int) -> "Generator":
        """A generator of gradcalc's own (a DataLoader's, a sampler's) from `seed`."""
        return cls().manual_seed(seed)

    def manual_seed(self, seed: int) -> "Generator":
        if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):  # THPUtils_checkLong
            raise RuntimeError(f"manual_seed expected a long, but got {type_name(seed)}")
        self._seed = _check_seed(seed)
        self._bits: np.random.MT19937 | None = None  # built on first draw: seeding costs 624 steps
        self._fresh = True  # no draw since seeding (torch reports next=0 rather than 624)
        self._normal_cache: float | None = None
        # CPU kernels never fill the float cache; it is kept so states round-trip.
        self._float_normal_cache: float | None = None
        return self

    def initial_seed(self) -> int:
        return self._seed

    def seed(self) -> int:
        """Reseed from the OS entropy pool and return the new seed."""
        new = int.from_bytes(os.urandom(8), "little")
        self.manual_seed(new)
        return new

    def _engine(self) -> np.random.MT19937:
        if self._bits is None:
            bits = with_room(_new_engine)  # numpy.random loads on first use
            bits.state = {"bit_generator": "MT19937", "state": {"key": _mt_key(self._seed), "pos": _N}}
            self._bits = bits
        return self._bits

    def _random(self, n: int) -> np.ndarray:
        """n raw 32-bit draws (as uint64), like CPUGeneratorImpl::random()."""
        if n <= 0:
            return np.empty(0, dtype=np.uint64)
        engine = self._engine()
        if native is None:
            raw = engine.random_raw(n)
        else:  # (the same draws in C, without random_raw's lock: csrc/random.c)
            raw = np.empty(n, np.uint64)
            native.raw_draws(engine.capsule, raw)
        self._fresh = False
        return raw

    def _random64(self, n: int) -> np.ndarray:
        """n 64-bit draws: the first 32-bit draw is the high half (random64())."""
        return _joined(self._random(2 * n))

    @property
    def device(self) -> Device:
        return CPU

    def get_state(self) -> Tensor:
        """The 5056-byte state, as the uint8 tensor torch.Generator.get_state() returns."""
        return Tensor._make(self._state_bytes(), dtypes.uint8)

    def set_state(self, new_state: Any) -> "Generator":
        if not isinstance(new_state, Tensor):
            raise TypeError(f"expected a torch.ByteTensor, but got {type_name(new_state)}")
        if new_state._dtype is not dtypes.uint8:
            raise TypeError(f"expected a torch.ByteTensor, but got {new_state.type()}")
        return self._load_state(new_state._data)

    def clone_state(self) -> "Generator":
        return Generator()._load_state(self._state_bytes())

    def _state_bytes(self) -> np.ndarray:
        """The 5056 bytes of CPUGeneratorImplState."""
        if self._bits is None:
            key, left, nxt = _mt_key(self._seed), 1, 0
        else:
            st = self._bits.state["state"]
            key, pos = st["key"], int(st["pos"])
            # numpy's pos counts outputs read from the current block; torch keeps
            # left = 625 - next, with left = 1 meaning "twist before the next read".
            nxt = 0 if self._fresh else pos
            left = 1 if pos == _N else _N + 1 - pos
        head = struct.pack("<QiiQ", self._seed, left, 1, nxt)
        body = np.asarray(key, dtype=np.uint32).astype("<u8").tobytes()
        normal_valid = self._normal_cache is not None
        float_valid = self._float_normal_cache is not None
        tail = struct.pack(
            "<dddif?7x",
            0.0,
            self._normal_cache if normal_valid else 0.0,
            0.0,
            int(normal_valid),
            self._float_normal_cache if float_valid else 0.0,
            float_valid,
        )
        return np.frombuffer(head + body + tail, dtype=np.uint8).copy()

    def _load_state(self, state: np.ndarray) -> "Generator":
        data = np.asarray(state, dtype=np.uint8).tobytes()
        if len(data) != 5056:
            raise RuntimeError(
                "Expected a CPUGeneratorImplState of size 5056 but found the input RNG state size to be "
                f"{len(data)}"
            )
        seed, left, seeded, nxt = struct.unpack_from("<QiiQ", data, 0)
        if not (seeded and 0 < left <= _N and nxt <= _N):
            raise RuntimeError("Invalid mt19937 state")
        key = np.frombuffer(data, dtype="<u8", count=_N, offset=24).astype(np.uint32)
        _, normal_y, _, normal_valid = struct.unpack_from("<dddi", data, 5016)
        float_sample, float_valid = struct.unpack_from("<f?", data, 5044)
        bits = np.random.MT19937(0)
        bits.state = {"bit_generator": "MT19937", "state": {"key": key, "pos": _N if left == 1 else nxt}}
        self._seed = seed
        self._bits = bits
        self._fresh = left == 1 and nxt == 0
        self._normal_cache = normal_y if normal_valid else None
        self._float_normal_cache = float_sample if float_valid else None
        return self


default_generator = Generator._seeded(int.from_bytes(os.urandom(8), "little"))


def manual_seed(seed: int) -> Generator:
    return default_generator.manual_seed(int(seed))  # torch.random's int() first, then the C method


def initial_seed() -> int:
    return default_generator.initial_seed()


def seed() -> int:
    return default_generator.seed()


def get_rng_state() -> Tensor:
    return default_generator.get_state()


def set_rng_state(new_state: Tensor) -> None:
    default_generator.set_state(new_state)


# ---------------------------------------------------------------- exact FMA


def _fma32(a: Any, b: Any, c: Any) -> np.ndarray:
    """float32 fma(a, b, c) with one rounding."""
    out = kernels.fused_multiply_add(*(np.asarray(x, dtype=np.float32) for x in (a, b, c)))
    return out if out.ndim else out[()]


def _fma64(a: Any, b: Any, c: Any) -> np.ndarray:
    """float64 fma(a, b, c) with one rounding."""
    return kernels.fused_multiply_add(*(np.asarray(x, dtype=np.float64) for x in (a, b, c)))


# ---------------------------------------------------------------- helpers


def _numel(shape: Shape) -> int:
    if plain_ints(shape, 0):  # (a factory's checked sizes)
        return math.prod(shape)
    if isinstance(shape, (int, np.integer)):
        shape = (int(shape),)
    n = 1
    for d in shape:
        if d < 0:
            dims = ", ".join(map(str, shape))
            raise RuntimeError(f"Trying to create tensor with negative dimension {d}: [{dims}]")
        n *= int(d)
    return n


def _shape(shape: Shape) -> tuple[int, ...]:
    if plain_ints(shape, 0):
        return shape
    return (int(shape),) if isinstance(shape, (int, np.integer)) else tuple(int(d) for d in shape)


@functools.lru_cache(maxsize=64)  # a sampling loop asks for the same few names every step
def _dtype_name(dtype) -> str:
    return dtype if dtype == "bfloat16" else np.dtype(dtype).name


# the randomness modes of the vmaps running now, innermost last: in "error" mode no draw is allowed
VMAP_RANDOMNESS: list = []


def _gen(generator: Generator | None) -> Generator:
    if VMAP_RANDOMNESS and VMAP_RANDOMNESS[-1] == "error":
        raise RuntimeError("vmap: called random operation while in randomness error mode. Please either use the "
                           "'same' or 'different' randomness flags on vmap or perform the randomness operation out "
                           "of vmap")
    return default_generator if generator is None else generator


def _uniform01_float(gen: Generator, n: int) -> np.ndarray:
    """uniform_real_distribution<float>(0, 1): 24 low bits of a 32-bit draw times 2^-24."""
    return _float_uniforms(gen._random(n))


def _float_uniforms(raw: np.ndarray) -> np.ndarray:
    return (raw & np.uint64(0xFFFFFF)).astype(np.float32) * np.float32(2.0**-24)


def _uniform01_double(gen: Generator, n: int) -> np.ndarray:
    """uniform_real_distribution<double>(0, 1): 53 low bits of a 64-bit draw times 2^-53."""
    return _double_uniforms(gen._random(2 * n))


def _double_uniforms(raw: np.ndarray) -> np.ndarray:
    """(from pairs of 32-bit draws, as _random64 joins them)"""
    return (_joined(raw) & np.uint64((1 << 53) - 1)).astype(np.float64) * 2.0**-53


def _joined(raw: np.ndarray) -> np.ndarray:
    """Pairs of 32-bit draws as 64-bit ones, the first the high half (random64())."""
    return (raw[0::2] << np.uint64(32)) | raw[1::2]


def uniform_doubles(n: int, generator: Generator | None = None) -> np.ndarray:
    """n draws of uniform_real_distribution<double>(0, 1), the source of PyTorch's serial samplers."""
    return _uniform01_double(_gen(generator), n)


def normal_doubles(n: int, mean: float, std: float, generator: Generator | None = None) -> np.ndarray:
    """n draws of normal_distribution<double>(mean, std), one at a time as the serial samplers take them."""
    return _normal_scalar(_gen(generator), n, "float64", mean, std)


def random_upper_bound(dtype: DType) -> int:
    """The exclusive bound of random_() without arguments: every integer the dtype holds exactly."""
    name = _dtype_name(dtype)
    if name in _FLOATS:
        return (1 << {"float16": 11, "float32": 24, "float64": 53}[name]) + 1
    if name == "bfloat16":
        return (1 << 8) + 1
    if name == "bool":
        return 2
    return int(np.iinfo(name).max) + 1


def _not_implemented(kernel: str, name: str) -> NotImplementedError:
    return NotImplementedError(f'"{kernel}" not implemented for \'{dtypes.by_name(name)._scalar_name}\'')


# ---------------------------------------------------------------- uniform


# draws per native pass: their buffer stays in the cache, where a layer's million would not
_UNIFORM_CHUNK = 1 << 14


def _uniform_in_chunks(gen: Generator, out: np.ndarray, per_sample: int, low: float, width: float,
                       high: float) -> None:
    flat = out.reshape(-1)
    for start in range(0, flat.size, _UNIFORM_CHUNK):
        part = flat[start:start + _UNIFORM_CHUNK]
        native.uniform_from_raw(gen._random(per_sample * part.size), low, width, high, part)


def uniform_(shape: Shape, low: float, high: float, dtype: DType = "float32",
             generator: Generator | None = None, out: np.ndarray | None = None) -> np.ndarray:
    """What ``torch.empty(shape, dtype=dtype).uniform_(low, high)`` holds; drawn into `out` (a
    C-contiguous array of that shape and dtype) where given and the native kernels are there."""
    name = _dtype_name(dtype)
    if name == "bfloat16":  # drawn as float, then rounded
        return dtypes.round_to_bfloat16(uniform_(shape, low, high, "float32", generator))
    if name in _COMPLEX:  # the real and imaginary parts drawn as pairs of reals
        pairs = uniform_(tuple(_shape(shape)) + (2,), low, high, _COMPLEX[name], generator)
        return np.ascontiguousarray(pairs).view(name).reshape(_shape(shape))
    if name not in _FLOATS:
        raise _not_implemented("check_uniform_bounds", name)
    low, high = float(low), float(high)
    info = np.finfo(name)
    lo_lim, hi_lim = float(info.min), float(info.max)
    for value, what in ((low, "from"), (high, "to")):
        if not lo_lim <= value <= hi_lim:
            raise RuntimeError(f"{what} is out of bounds for {_CPP_NAMES[name]}")
    if not low <= high:
        raise RuntimeError(f"uniform_ expects to return a [from, to) range, but found from={dtypes.cpp_double(low)} > "
                           f"to={dtypes.cpp_double(high)}")
    if not high - low <= hi_lim:
        raise RuntimeError(
            f"uniform_ expects to-from <= std::numeric_limits<{_SCALAR_NAMES[name]}>::max(), but found "
            f"to={dtypes.cpp_double(high)} and from={dtypes.cpp_double(low)} which result in to-from to exceed the "
            "limit")
    gen = _gen(generator)
    n = _numel(shape)
    if native is not None and name in ("float32", "float64"):  # the steps below in one pass
        if out is None:
            out = np.empty(_shape(shape), name)
        if name == "float64":
            _uniform_in_chunks(gen, out, 2, low, high - low, high)
        else:
            lo32, hi32 = np.float32(low), np.float32(high)
            _uniform_in_chunks(gen, out, 1, float(lo32), float(hi32 - lo32), float(hi32))
        return out
    if name == "float64":
        out = _fma64(_uniform01_double(gen, n), high - low, low)
        to_s, from_s = np.float64(high), np.float64(low)
    else:
        # float and half both compute in float (half's opmath type).
        lo32, hi32 = np.float32(low), np.float32(high)
        out = _fma32(_uniform01_float(gen, n), hi32 - lo32, lo32).astype(name, copy=False)
        to_s, from_s = np.array([hi32, lo32]).astype(name)
    # The kernel maps a result that rounded up to `to` back to `from`.
    out = np.where(out == to_s, from_s, out).astype(name, copy=False)
    return out.reshape(_shape(shape))


def rand(shape: Shape, dtype: DType = "float32", generator: Generator | None = None) -> np.ndarray:
    """``torch.rand``; ``rand_like`` draws the same way."""
    return uniform_(shape, 0.0, 1.0, dtype, generator)


# ---------------------------------------------------------------- normal

_F = np.float32
_LOG_P = [_F(v) for v in (7.0376836292e-2, -1.1514610310e-1, 1.1676998740e-1, -1.2420140846e-1,
                          1.4249322787e-1, -1.6668057665e-1, 2.0000714765e-1, -2.4999993993e-1,
                          3.3333331174e-1)]
_LOG_Q1, _LOG_Q2 = _F(-2.12194440e-4), _F(0.693359375)
_SQRTHF = _F(0.707106781186547524)
_DP = [_F(-0.78515625), _F(-2.4187564849853515625e-4), _F(-3.77489497744594108e-8)]
_COS_P = [_F(2.443315711809948e-005), _F(-1.388731625493765e-003), _F(4.166664568298827e-002)]
_SIN_P = [_F(-1.9515295891e-4), _F(8.3321608736e-3), _F(-1.6666654611e-1)]
_FOPI = _F(1.27323954473516)


def _log_ps(x: np.ndarray) -> np.ndarray:
    """log256_ps from PyTorch's avx_mathfun.h, with the FMAs GCC forms in it.

    Inputs here lie in [2^-24, 1], so the denormal and x <= 0 handling is moot.
    """
    bits = x.view(np.int32)
    e = ((bits >> 23) - 0x7F).astype(np.float32) + _F(1)
    x = ((bits & ~0x7F800000) | 0x3F000000).view(np.float32)  # mantissa scaled to [0.5, 1)
    small = x < _SQRTHF
    e = e - np.where(small, _F(1), _F(0))
    x = (x - _F(1)) + np.where(small, x, _F(0))
    z = x * x
    y = np.full_like(x, _LOG_P[0])
    for p in _LOG_P[1:]:
        y = _fma32(y, x, p)
    y = y * x
    y = _fma32(y, z, e * _LOG_Q1)
    y = _fma32(-z, _F(0.5), y)
    return _fma32(e, _LOG_Q2, x + y)


def _sincos_ps(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """sincos256_ps from avx_mathfun.h for x >= 0, with GCC's FMAs."""
    j = (x * _FOPI).astype(np.int32)  # truncation, as cvttps
    j = (j + 1) & ~1
    y = j.astype(np.float32)
    for dp in _DP:  # extended-precision reduction x - j*pi/4
        x = _fma32(y, dp, x)
    sin_neg = (j & 4) != 0
    cos_neg = (~(j - 2) & 4) != 0
    use_sin_poly = (j & 2) == 0
    z = x * x
    c = np.full_like(x, _COS_P[0])
    for p in _COS_P[1:]:
        c = _fma32(c, z, p)
    c = _fma32(c * z, z, -(z * _F(0.5))) + _F(1)
    s = np.full_like(x, _SIN_P[0])
    for p in _SIN_P[1:]:
        s = _fma32(s, z, p)
    s = _fma32(s * z, x, x)
    # The kernel merges the polynomials by adding a masked-out +0, which turns -0 into +0.
    sin = np.where(use_sin_poly, s, c) + _F(0)
    cos = np.where(use_sin_poly, c, s) + _F(0)
    return np.where(sin_neg, -sin, sin), np.where(cos_neg, -cos, cos)


def _box_muller16_float(u: np.ndarray, mean: np.float32, std: np.float32) -> np.ndarray:
    """The vectorised 16-wide Box-Muller of normal_fill for float (AVX2 kernel)."""
    u = u.reshape(-1, 16)
    radius = np.sqrt(_F(-2) * _log_ps(_F(1) - u[:, :8]))
    sin, cos = _sincos_ps(_F(2.0 * math.pi) * u[:, 8:])
    halves = [_fma32(radius * cos, std, mean), _fma32(radius * sin, std, mean)]
    return np.concatenate(halves, axis=1).ravel()


def _box_muller16_double(u: np.ndarray, mean: float, std: float) -> np.ndarray:
    """The scalar 16-wide Box-Muller of normal_fill for double; libm via math."""
    u = u.reshape(-1, 16)
    u1 = (1.0 - u[:, :8]).ravel().tolist()
    theta = (2.0 * math.pi * u[:, 8:]).ravel().tolist()
    radius = np.array([math.sqrt(-2.0 * math.log(v)) for v in u1])
    cos = radius * np.array([math.cos(t) for t in theta])
    sin = radius * np.array([math.sin(t) for t in theta])
    k = u.shape[0]
    halves = [_fma64(cos, std, mean).reshape(k, 8), _fma64(sin, std, mean).reshape(k, 8)]
    return np.concatenate(halves, axis=1).ravel()


def _normal_fill(gen: Generator, n: int, name: str, mean: float, std: float) -> np.ndarray:
    """normal_fill: Box-Muller over blocks of 16, redoing the last 16 with fresh draws."""
    full, tail = divmod(n, 16)
    double = name == "float64"
    out = np.empty(n, np.float64 if double else np.float32)  # half and bfloat16 are rounded from float
    # float fills the whole tensor with uniforms first; half draws per block of 16, so the leftover
    # uniforms a float tensor discards are never drawn for half; a double uniform takes two draws
    block = (1 + double) * 16
    filled = 2 * n if double else n if name == "float32" else full * 16
    raw = gen._random(filled + (block if tail else 0))  # (the last block's fresh draws come after the fill's)
    if not double:
        mean, std = float(_F(mean)), float(_F(std))
    _box_muller16(raw[:block * full], mean, std, out[:full * 16])
    if tail:
        _box_muller16(raw[filled:], mean, std, out[n - 16:])
    return out.astype(np.float16) if name == "float16" else out


def _box_muller16(raw: np.ndarray, mean: float, std: float, out: np.ndarray) -> None:
    """normal_fill's blocks of 16 into out (float32 or float64, contiguous) from the twister's
    draws: one a float uniform (_uniform01_float's), two a double one (_uniform01_double's); a
    float's mean and std already float32 values."""
    if native is not None:  # (the same steps in C: csrc/random.c)
        native.box_muller16(raw, mean, std, out)
    elif out.dtype == np.float64:
        out[:] = _box_muller16_double(_double_uniforms(raw), mean, std)
    else:
        out[:] = _box_muller16_float(_float_uniforms(raw), _F(mean), _F(std))


_LOW_53_BITS = (1 << 53) - 1


def _normal_scalar(gen: Generator, n: int, name: str, mean: float, std: float) -> np.ndarray:
    """normal_distribution<double>: Box-Muller that caches its second value on the generator. Each
    value takes the cached one, else a pair of uniforms (whose draws are taken at once: the same
    draws in the same order) gives a value and caches the pair's second."""
    cached = None
    if n and gen._normal_cache is not None:
        cached, gen._normal_cache = gen._normal_cache, None
    pairs = (n - (cached is not None) + 1) // 2
    out = np.empty(n)
    left = _normal_values(gen._random(4 * pairs), cached, mean, std, out)
    if left is not None:
        gen._normal_cache = left
    # Half (and bfloat16) is reached through float, as c10::Half(double) converts via float.
    if name == "bfloat16":
        return out.astype(np.float32)
    return out.astype(np.float32).astype(name) if name == "float16" else out.astype(name)


def _normal_values(raw: np.ndarray, cached: float | None, mean: float, std: float, out: np.ndarray) -> float | None:
    """out's values: `cached` first (unless None), then pairs from 32-bit draws, four a pair: two
    53-bit uniforms u1 and u2 (as _uniform01_double makes them), then r cos(theta) and r sin(theta)
    for r = sqrt(-2 log1p(-u2)) and theta = 2 pi u1, in libm's arithmetic (Python's math
    functions); each value v as fma(v, std, mean). Returns the last pair's second value where out
    has no room for it (as drawn), else None."""
    if native is not None:  # (the same steps in C: csrc/random.c)
        return native.normal_values(raw, cached, mean, std, out)
    draws = raw.tolist()
    uniforms = [((high << 32 | low) & _LOW_53_BITS) * 2.0 ** -53 for high, low in zip(draws[0::2], draws[1::2])]
    values = [] if cached is None else [cached]
    for u1, u2 in zip(uniforms[0::2], uniforms[1::2]):
        r = math.sqrt(-2.0 * math.log1p(-u2))
        theta = 2.0 * math.pi * u1
        values += (r * math.cos(theta), r * math.sin(theta))
    left = values.pop() if len(values) > out.size else None
    # (times 1 is exact: the fused multiply-add is then one rounded addition)
    out[:] = np.array(values) + mean if std == 1.0 else _fma64(values, std, mean)
    return left


def check_normal_std(std: float) -> None:
    """normal_'s first check, before the kernel is looked up for the dtype (an empty tensor's too)."""
    if not std >= 0.0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {dtypes.cpp_double(float(std))}")


def normal_(shape: Shape, mean: float = 0.0, std: float = 1.0, dtype: DType = "float32",
            generator: Generator | None = None, contiguous: bool = True) -> np.ndarray:
    """What ``torch.empty(shape, dtype=dtype).normal_(mean, std)`` holds, in memory order; a
    tensor that is not contiguous takes one draw at a time, however large."""
    name = _dtype_name(dtype)
    mean, std = float(mean), float(std)
    if not std >= 0.0:
        check_normal_std(std)
    if name in _COMPLEX:  # pairs of reals, each part with std / sqrt(2): the complex value has std `std`
        pairs = normal_(tuple(_shape(shape)) + (2,), mean, std / math.sqrt(2), _COMPLEX[name], generator,
                        contiguous)
        return np.ascontiguousarray(pairs).view(name).reshape(_shape(shape))
    n = _numel(shape)
    if name not in _FLOATS and name != "bfloat16":
        if not n:  # the kernel, which refuses the dtype, never runs on no elements
            return np.zeros(_shape(shape), dtype=name)
        raise _not_implemented("normal_kernel_cpu", name)
    gen = _gen(generator)
    # (an infinite mean or std gives inf and nan as in torch, silently: see numpy_state)
    out = _normal_fill(gen, n, name, mean, std) if n >= 16 and contiguous else _normal_scalar(gen, n, name, mean, std)
    if name == "bfloat16":  # drawn as half is, rounded to bfloat16 instead
        out = dtypes.round_to_bfloat16(out)
    return out.reshape(_shape(shape))


def randn(shape: Shape, dtype: DType = "float32", generator: Generator | None = None,
          contiguous: bool = True) -> np.ndarray:
    """``torch.randn``; ``randn_like`` draws the same way."""
    return normal_(shape, 0.0, 1.0, dtype, generator, contiguous)


# ---------------------------------------------------------------- integers


def _check_random_bounds(low: int, high: int, name: str) -> None:
    """random_(from, to)'s checks on the inclusive range [low, high - 1]."""
    if name in _FLOATS or name == "bfloat16":
        info = np.finfo("float32" if name == "bfloat16" else name)
        lo_lim, hi_lim = float(info.min), float(info.max)
        if name == "bfloat16":  # the largest finite bfloat16
            lo_lim, hi_lim = -3.3895313892515355e38, 3.3895313892515355e38
    elif name == "bool":
        lo_lim, hi_lim = 0, 1
    elif name.startswith("complex"):
        raise RuntimeError("check_random_bounds handles only integral, floating-point and boolean types")
    else:
        lo_lim, hi_lim = _integer_limits(name)
    for value, what in ((low, "from"), (high - 1, "to - 1")):
        if not lo_lim <= value <= hi_lim:
            raise RuntimeError(f"{what} is out of bounds for {_CPP_NAMES[name]}")
    if name in _FLOATS or name == "bfloat16":
        from ..warnings import warn
        digits = {"float16": 11, "bfloat16": 8, "float32": 24, "float64": 53}[name]
        for value, what in ((low, "from"), (high - 1, "to - 1")):
            if not -(1 << digits) <= value <= 1 << digits:
                warn("UserWarning", f"{what} is out of bounds [-(2^{digits}), 2^{digits}]. Due to precision limitations "
                     f"{_CPP_NAMES[name]} can support discrete uniform distribution only within this range. This "
                     "warning will become an error in version 1.7 release, please fix the code in advance")


@functools.lru_cache(maxsize=16)
def _integer_limits(name: str) -> tuple[int, int]:
    info = np.iinfo(name)
    return int(info.min), int(info.max)


def _float_exact_bounds(low: int, high: int, name: str) -> tuple[int, int]:
    """random_'s update_from/update_to: pull the bounds in until low and high - 1
    survive a round trip through the float dtype."""
    digits = 8 if name == "bfloat16" else np.finfo(name).nmant + 1

    def through(v: int) -> int:
        with np.errstate(all="ignore"):  # out-of-range values are rejected by the bounds check
            as_float = np.array([v], dtype=np.int64).astype(np.float32 if name in ("float16", "bfloat16") else name)
            if name == "bfloat16":
                return int(dtypes.round_to_bfloat16(as_float).astype(np.int64)[0])
            return int(as_float.astype(name).astype(np.int64)[0])

    low_plus_1 = through(low + 1)
    if low_plus_1 < low:
        low = low_plus_1 + (1 << (abs(low + 1).bit_length() - 1 - digits + 1))
    high_minus_1 = through(high - 1)
    if high_minus_1 >= high:
        high = high_minus_1 - (1 << (abs(high - 1).bit_length() - 1 - digits + 1))
    return low, high


def randint(low: int, high: int, shape: Shape, dtype: DType = "int64",
            generator: Generator | None = None, *, full_range: bool = False) -> np.ndarray:
    """``torch.randint(low, high, shape)``: (draw % (high - low)) + low. `full_range`: random_()
    without bounds, which draws below 2^63 for int64, a bound no argument can give."""
    name = _dtype_name(dtype)
    low, high = int(low), int(high)
    for v in (low, high - full_range):
        if not -(1 << 63) <= v < (1 << 63):
            raise ValueError("Overflow when unpacking long long")
    if not low < high:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}")
    if name in _FLOATS or name == "bfloat16":
        low, high = _float_exact_bounds(low, high, name)
        if not low < high:
            raise RuntimeError(
                "random_ expects 'from' casted to dtype to be less than 'to' casted to dtype, "
                f"but got from={low} >= to={high}"
            )
    if name != "int64":  # (int64's limits are the overflow check's above)
        _check_random_bounds(low, high, name)
    gen = _gen(generator)
    n = _numel(shape)
    span = high - low
    # Public builds take 64-bit draws from a range of 2^28 on, whatever the dtype.
    raw = gen._random64(n) if span >= 1 << 28 else gen._random(n)
    # uint64 arithmetic wraps like C++'s (val % range) + base; the draws are a fresh array, worked in place
    if native is not None and span <= _U64:  # (in one C loop: csrc/random.c)
        native.draws_in_range(raw, span, low & _U64)
    else:
        np.remainder(raw, np.uint64(span), out=raw)
        if low:
            np.add(raw, np.uint64(low & _U64), out=raw)
    values = raw.view(np.int64)
    if name == "int64":  # (already a storage of its own)
        return values.reshape(_shape(shape))
    if name == "float16":
        values = values.astype(np.float32)  # c10::Half from an integer goes through float
    if name == "bfloat16":  # through float too, then rounded; stored as float32
        return dtypes.round_to_bfloat16(values.astype(np.float32)).reshape(_shape(shape))
    return values.astype(name).reshape(_shape(shape))


def randperm(n: int, dtype: DType = "int64", generator: Generator | None = None) -> np.ndarray:
    """``torch.randperm(n)``: a Fisher-Yates shuffle driven by 32-bit draws."""
    name = _dtype_name(dtype)
    n = int(n)
    if n < 0:
        raise RuntimeError(f"Trying to create tensor with negative dimension {n}: [{n}]")
    if name not in _FLOATS + _INTS + ("bfloat16",):
        raise _not_implemented("randperm", name)
    top = n - 1 if n > 0 else n
    if name in _INTS and top > np.iinfo(name).max:
        raise RuntimeError(f"value cannot be converted to type {name}_t without overflow")
    limits = {"float16": (2049, "2049"), "float32": ((1 << 24) + 1, "2^24+1"),
              "float64": ((1 << 53) + 1, "2^53+1")}
    if name in limits and n > limits[name][0]:
        raise RuntimeError(f"n cannot be greater than {limits[name][1]} for {_SCALAR_NAMES[name]} type.")
    gen = _gen(generator)
    perm = list(range(n))
    if n < 0xFFFFFFFF // 20:
        picks = (gen._random(n - 1) % np.arange(n, 1, -1, dtype=np.uint64)).tolist()
        for i, z in enumerate(picks):
            j = i + z
            perm[i], perm[j] = perm[j], perm[i]
    else:
        # Huge n: torch switches to the inside-out shuffle with 64-bit draws.
        picks = (gen._random64(n) % np.arange(1, n + 1, dtype=np.uint64)).tolist()
        for i, z in enumerate(picks):
            perm[i] = perm[z]
            perm[z] = i
    if name == "bfloat16":  # (held in float32, rounded as bfloat16 rounds)
        return dtypes.round_to_bfloat16(np.array(perm, dtype=np.float32))
    return np.array(perm, dtype=np.int64).astype(name)


def bernoulli_(shape: Shape, p: float, dtype: DType = "float32",
               generator: Generator | None = None) -> np.ndarray:
    """``tensor.bernoulli_(p)`` for a float p: a 53-bit uniform compared with p.

    Dropout draws its keep mask this way with p = 1 - drop probability.
    """
    name = _dtype_name(dtype)
    if name.startswith("complex"):  # (the kernel's dispatch)
        raise NotImplementedError(f"\"bernoulli_scalar_cpu_\" not implemented for "
                                  f"'{dtypes.by_name(name)._scalar_name}'")
    p = float(p)
    if not 0.0 <= p <= 1.0:
        raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={dtypes.cpp_double(p)}")
    n = _numel(shape)
    hits = _uniform01_double(_gen(generator), n) < p
    return hits.astype(np.float32 if name == "bfloat16" else name).reshape(_shape(shape))  # (bfloat16 held in float32)


def bernoulli(p: np.ndarray, generator: Generator | None = None) -> np.ndarray:
    """``torch.bernoulli(p)``: one draw per element, 0/1 in p's dtype.

    A double p is compared with a 53-bit uniform; other float dtypes with a
    24-bit float uniform, p itself read as float.
    """
    p = np.asarray(p)
    name = p.dtype.name
    if name not in _FLOATS:
        # the kernel checks its output's dtype (p's) first, then p's: complex fails the first
        unsupported_output = p.dtype.kind == "c" or name in ("uint16", "uint32", "uint64")
        kernel = "bernoulli_tensor_cpu_self_" if unsupported_output else "bernoulli_tensor_cpu_p_"
        raise _not_implemented(kernel, name)
    flat = p.reshape(-1)
    gen = _gen(generator)
    uniform = _uniform01_double if name == "float64" else _uniform01_float
    bad = np.flatnonzero(~((flat >= 0) & (flat <= 1)))
    if bad.size:
        uniform(gen, int(bad[0]))  # the kernel checks each p as it reaches it, drawing for the ones before
        raise RuntimeError(
            "Expected p_in >= 0 && p_in <= 1 to be true, but got false.  (Could this error message be "
            "improved?  If so, please report an enhancement request to PyTorch.)"
        )
    hits = uniform(gen, flat.size) < flat.astype(np.float64 if name == "float64" else np.float32)
    return hits.astype(name).reshape(p.shape)


# ---------------------------------------------------------------- nn.Linear


def linear_init(in_features: int, out_features: int, bias: bool = True, dtype: DType = "float32",
                generator: Generator | None = None, weight_out: np.ndarray | None = None,
                bias_out: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray | None]:
    """The weight (out, in) and bias ``nn.Linear(in, out, bias)`` starts with, drawn into
    `weight_out` and `bias_out` where given (see uniform_: the arrays returned are then those).

    reset_parameters runs kaiming_uniform_(weight, a=sqrt(5)), whose bound is
    computed in Python floats, then draws the bias from +-1/sqrt(fan_in).
    """
    gen = _gen(generator)
    name = _dtype_name(dtype)
    fan_in = in_features
    if in_features == 0 or out_features == 0:
        # kaiming_uniform_ skips zero-element tensors, so nothing is drawn.
        weight = np.zeros((out_features, in_features), dtype=name)
    else:
        gain = math.sqrt(2.0 / (1 + math.sqrt(5) ** 2))
        w_bound = math.sqrt(3.0) * (gain / math.sqrt(fan_in))
        weight = uniform_((out_features, in_features), -w_bound, w_bound, name, gen, out=weight_out)
    if not bias:
        return weight, None
    b_bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
    return weight, uniform_((out_features,), -b_bound, b_bound, name, gen, out=bias_out)
