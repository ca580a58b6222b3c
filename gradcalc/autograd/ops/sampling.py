"""Random sampling into tensors: uniform_, normal_, bernoulli, normal, with PyTorch's numbers."""
from __future__ import annotations

import math
from typing import Any, Optional

import numpy as np

from .. import dtypes, grad_mode, random as rng
from ..dtypes import DType
from ..forward_mode import has_tangent
from ..layout import in_memory_order, preserved
from ..meta import is_meta
from ..tensor import Tensor
from . import partition
from .common import broadcast_shapes, check_allocation, check_broadcast, not_implemented_for, zeros_like
from .creation import meta_factory, randint
from .inplace import check_inplace, commit_inplace
from .shape import expanded_shape
from .registry import ELEMENT_WISE, LINEAR, NodeDef, node, op, record


def _zero(grad: Tensor) -> Tensor:
    return zeros_like(grad)


# The values carry no gradient: each fill is recorded as an op whose formulas give zeros, so
# that a filled tensor has PyTorch's grad_fn and version.
UNIFORM = node("UniformBackward0", ("self",), jvp=LINEAR, self=_zero)
NORMAL = node("NormalBackward0", ("self",), jvp=LINEAR, self=_zero)
BERNOULLI_FLOAT = node("BernoulliBackward2", ("self",), jvp=LINEAR, self=_zero)
BERNOULLI_TENSOR = node("BernoulliBackward1", ("self", "p"), jvp=LINEAR, self=_zero, p=_zero)
BERNOULLI = node("BernoulliBackward0", ("self",), jvp=LINEAR, self=_zero)
NORMAL_MEAN = node("NormalBackward1", ("mean",), jvp=LINEAR, saved=("mean_sym_sizes",), mean=_zero)
NORMAL_STD = node("NormalBackward2", ("std",), jvp=LINEAR, saved=("std_sym_sizes",), std=_zero)
NORMAL_BOTH = node("NormalBackward3", ("mean", "std"), jvp=LINEAR, saved=("mean_sym_sizes", "std_sym_sizes"),
                   mean=_zero, std=_zero)


def _write_random(a: Tensor, data: np.ndarray, node_def: NodeDef, *others: Tensor) -> Tensor:
    """Put freshly drawn `data` into `a`: recorded when `a` (or a tensor parameter) requires grad."""
    if (grad_mode.is_grad_enabled() and any(t.requires_grad for t in (a, *others))) or has_tangent(a, *others):
        return commit_inplace(a, record(node_def, (a, *others), data, a._dtype))
    a._data[...] = data
    a._vc.value += 1
    return a


def _unfilled(input: Tensor, node_def: NodeDef, *others: Tensor) -> Optional[Tensor]:
    """A meta tensor's fill, which has no values to draw: the generator's stream stays where it
    was, as with PyTorch's meta kernels. None for any other tensor."""
    return _write_random(input, input._data, node_def, *others) if is_meta(input) else None


def _in_memory_order(input: Tensor, draw: Any) -> np.ndarray:
    """Draws for `input`'s elements, placed in the order ATen's sampler visits them (memory
    order); `draw(shape, contiguous)`, where a sampler may draw otherwise for a tensor that is
    not contiguous."""
    data = input._data
    if data.ndim < 2 or data.flags.c_contiguous:
        return draw(input.shape, True)
    out = preserved(data)
    visited = in_memory_order(out)
    visited[...] = draw(visited.shape, False)
    return out


@op(function=False, nodes=(UNIFORM,))
def uniform_(input: Tensor, from_: float = 0.0, to: float = 1.0, *, generator: Any = None, **named: Any) -> Tensor:
    from_ = named.get("from", from_)  # PyTorch's parameter is `from`, a Python keyword
    check_inplace(input)  # before drawing: a refused fill leaves the random stream where it was
    if not input._dtype.is_complex:  # (a complex tensor is filled as its real view)
        _check_floating_fill(input, kernel="check_uniform_bounds")
    if is_meta(input):
        return _unfilled(input, UNIFORM)
    data = input._data
    if data.dtype.type in (np.float32, np.float64) and data.flags.c_contiguous and not (
            (grad_mode.is_grad_enabled() and input.requires_grad) or has_tangent(input)):
        # (nn.init's fills, under no_grad): drawn where the values go, with no copy
        drawn = rng.uniform_(input.shape, from_, to, input._dtype.name, generator, out=data)
        if drawn is data:
            input._vc.value += 1
            return input
        return _write_random(input, drawn, UNIFORM)
    drawn = _in_memory_order(input, lambda shape, _contiguous: rng.uniform_(shape, from_, to, input._dtype.name,
                                                                           generator))
    return _write_random(input, drawn, UNIFORM)


@op(function=False, nodes=(NORMAL,))
def normal_(input: Tensor, mean: float = 0.0, std: float = 1.0, *, generator: Any = None) -> Tensor:
    check_inplace(input)
    rng.check_normal_std(std)
    if not input._dtype.is_complex:  # (a complex tensor is filled as its real view)
        _check_floating_fill(input, kernel="normal_kernel_cpu")
    if is_meta(input):
        return _unfilled(input, NORMAL)
    drawn = _in_memory_order(input, lambda shape, contiguous: rng.normal_(shape, mean, std, input._dtype.name,
                                                                         generator, contiguous))
    return _write_random(input, drawn, NORMAL)


@op(function=False, nodes=(BERNOULLI_FLOAT, BERNOULLI_TENSOR))
def bernoulli_(input: Tensor, p: Any = 0.5, *, generator: Any = None) -> Tensor:
    check_inplace(input, p)
    if is_meta(input):
        return _unfilled(input, BERNOULLI_TENSOR, p) if isinstance(p, Tensor) else _unfilled(input, BERNOULLI_FLOAT)
    if isinstance(p, Tensor):
        # one draw per element of input, from p expanded to input's shape (expand's errors) and read in p's dtype
        hits = rng.bernoulli(np.broadcast_to(p._data, expanded_shape(p, tuple(input.shape))), generator)
        return _write_random(input, hits.astype(input._dtype._numpy), BERNOULLI_TENSOR, p)
    return _write_random(input, rng.bernoulli_(input.shape, p, input._dtype.name, generator), BERNOULLI_FLOAT)


@op(nodes=(BERNOULLI,))
def bernoulli(input: Tensor, p: Any = None, *, generator: Any = None) -> Tensor:
    if p is not None:
        return _bernoulli_p(input, p, generator)
    return record(BERNOULLI, (input,), rng.bernoulli(input._data, generator), input._dtype)


def _bernoulli_p(input: Tensor, p: float, generator: Any) -> Tensor:
    out = Tensor._make(np.empty(input.shape, dtype=input._dtype._numpy), input._dtype)
    out._data[...] = rng.bernoulli_(input.shape, p, input._dtype.name, generator)
    return out


@op(method=False, nodes=(NORMAL_MEAN, NORMAL_STD, NORMAL_BOTH))
def normal(mean: Any, std: Any = 1.0, size: Any = None, *, generator: Any = None, dtype: Any = None,
           layout: Any = None, device: Any = None, pin_memory: Any = False, requires_grad: Any = False) -> Tensor:
    """torch.normal: numbers and a size, or tensors. A tensor form draws N(0, std) and adds
    mean, or draws N(0, 1) and multiplies by std, then adds mean, as ATen's normal does."""
    if not isinstance(mean, Tensor) and not isinstance(std, Tensor):
        dtype = dtype or dtypes.get_default_dtype()
        meta = meta_factory(size, dtype, requires_grad, device, normal=True)
        if meta is not None:
            return meta
        data = rng.normal_(tuple(size), mean, std, dtype.name, generator)
        return Tensor._make(np.asarray(data, dtype=dtype._numpy), dtype)._set_requires_grad(bool(requires_grad))
    if isinstance(std, Tensor) and std.numel() and not bool(np.all(std._data >= 0)):
        raise RuntimeError("normal expects all elements of std >= 0.0")
    like = mean if isinstance(mean, Tensor) else std
    if isinstance(mean, Tensor) and isinstance(std, Tensor):
        check_broadcast(mean, std)
    shape = broadcast_shapes(tuple(mean.shape) if isinstance(mean, Tensor) else (),
                             tuple(std.shape) if isinstance(std, Tensor) else ())
    kind = like._dtype._numpy
    if isinstance(std, Tensor):
        noise = rng.normal_(shape, 0.0, 1.0, like._dtype.name, generator)
        data = noise * std._data.astype(kind) + np.asarray(mean._data if isinstance(mean, Tensor) else mean, kind)
    else:
        data = rng.normal_(shape, 0.0, std, like._dtype.name, generator) + mean._data
    data = np.asarray(data, dtype=kind)
    if isinstance(mean, Tensor) and isinstance(std, Tensor):
        return record(NORMAL_BOTH, (mean, std), data, like._dtype, mean_sym_sizes=mean.shape,
                      std_sym_sizes=std.shape)
    if isinstance(mean, Tensor):
        return record(NORMAL_MEAN, (mean,), data, like._dtype, mean_sym_sizes=mean.shape)
    return record(NORMAL_STD, (std,), data, like._dtype, std_sym_sizes=std.shape)


# The samplers below draw one uniform double per element, serially, as PyTorch's CPU templates
# (DistributionTemplates.h) do; their values carry no gradient either.
EXPONENTIAL = node("ExponentialBackward0", ("self",), jvp=LINEAR, self=_zero)
GEOMETRIC = node("GeometricBackward0", ("self",), jvp=LINEAR, self=_zero)
CAUCHY = node("CauchyBackward0", ("self",), jvp=LINEAR, self=_zero)
LOG_NORMAL = node("LogNormalBackward0", ("self",), jvp=LINEAR, self=_zero)
RANDOM_FROM_TO = node("RandomBackward0", ("self",), jvp=LINEAR, self=_zero)
RANDOM_TO = node("RandomBackward1", ("self",), jvp=LINEAR, self=_zero)
RANDOM = node("RandomBackward2", ("self",), jvp=LINEAR, self=_zero)


def _check_floating_fill(a: Tensor, distribution: str = "", kernel: str = "", cpp_name: bool = False) -> None:
    """The dtype check of a continuous distribution's kernel, which an empty tensor never reaches."""
    if not a.numel() or a._dtype.category == dtypes.FLOATING:
        return
    if kernel:
        raise not_implemented_for(kernel, a._dtype)
    name = a._dtype._cpp_name if cpp_name else a._dtype._scalar_name
    raise RuntimeError(f"{distribution} distribution is a continuous probability distribution. dtype must be a "
                       f"floating point but you specified {name}")


def _uniform(a: Tensor, generator: Any) -> np.ndarray:
    return rng.uniform_doubles(a.numel(), generator).reshape(a.shape)


@op(function=False, nodes=(EXPONENTIAL,))
def exponential_(input: Tensor, lambd: float = 1.0, *, generator: Any = None) -> Tensor:
    check_inplace(input)  # autograd's, before the kernel's own checks
    if not lambd > 0:
        raise RuntimeError(f"exponential_ expects lambda > 0.0, but found lambda={dtypes.cpp_double(lambd)}")
    _check_floating_fill(input, "Exponential")
    if is_meta(input):
        return _unfilled(input, EXPONENTIAL)
    data = -1.0 / lambd * np.log1p(-_uniform(input, generator))
    return _write_random(input, data.astype(input._dtype._numpy), EXPONENTIAL)


@op(function=False, nodes=(GEOMETRIC,))
def geometric_(input: Tensor, p: float, *, generator: Any = None) -> Tensor:
    check_inplace(input)
    if not 0 < p < 1:
        raise RuntimeError(f"geometric_ expects p to be in (0, 1), but got p={dtypes.cpp_double(p)}")
    if input.numel() and (input._dtype.is_complex or input._dtype is dtypes.bool_):
        raise not_implemented_for("geometric_cpu", input._dtype)
    if is_meta(input):
        return _unfilled(input, GEOMETRIC)
    data = np.ceil(np.log(_uniform(input, generator)) / np.log1p(-p))
    return _write_random(input, data.astype(input._dtype._numpy), GEOMETRIC)


@op(function=False, nodes=(CAUCHY,))
def cauchy_(input: Tensor, median: float = 0.0, sigma: float = 1.0, *, generator: Any = None) -> Tensor:
    check_inplace(input)
    if not sigma > 0:
        raise RuntimeError(f"cauchy_ expects sigma > 0.0, but found sigma={dtypes.cpp_double(sigma)}")
    _check_floating_fill(input, "Cauchy", cpp_name=True)
    if is_meta(input):
        return _unfilled(input, CAUCHY)
    data = median + sigma * np.tan(np.pi * (_uniform(input, generator) - 0.5))
    return _write_random(input, data.astype(input._dtype._numpy), CAUCHY)


@op(function=False, nodes=(LOG_NORMAL,))
def log_normal_(input: Tensor, mean: float = 1.0, std: float = 2.0, *, generator: Any = None) -> Tensor:
    check_inplace(input)
    if not std > 0:
        raise RuntimeError(f"log_normal_ expects std > 0.0, but found std={dtypes.cpp_double(std)}")
    _check_floating_fill(input, kernel="log_normal_cpu")
    if is_meta(input):
        return _unfilled(input, LOG_NORMAL)
    data = np.exp(rng.normal_doubles(input.numel(), mean, std, generator)).reshape(input.shape)
    return _write_random(input, data.astype(input._dtype._numpy), LOG_NORMAL)


@op(function=False, nodes=(RANDOM_FROM_TO, RANDOM_TO, RANDOM))
def random_(input: Tensor, to: Any = None, *, generator: Any = None, **named: Any) -> Tensor:
    """random_(from, to), random_(to) or random_(): integers drawn uniformly, as torch.randint."""
    check_inplace(input)
    if input._dtype.is_complex:
        if named.get("from") is not None or to is not None:
            raise RuntimeError("check_random_bounds handles only integral, floating-point and boolean types")
        if not input.numel():
            return input
        raise not_implemented_for("random_kernel_cpu", input._dtype)
    low = named.get("from")
    if low is not None:
        high = (1 << 63) if to is None else to
        node_def = RANDOM_FROM_TO
    elif to is not None:
        low, high, node_def = 0, to, RANDOM_TO
    else:
        low, high, node_def = 0, rng.random_upper_bound(input._dtype.name), RANDOM
    if is_meta(input):
        return _unfilled(input, node_def)
    data = rng.randint(low, high, input.shape, input._dtype.name, generator=generator, full_range=node_def is RANDOM)
    return _write_random(input, data.astype(input._dtype._numpy), node_def)


@op()
def multinomial(input: Tensor, num_samples: int, replacement: bool = False, *, generator: Any = None) -> Tensor:
    """PyTorch's CPU multinomial: one sample, or none repeated, by the largest p / q with q drawn
    Exp(1) (the Gumbel trick); more with replacement, by a search in the cumulative distribution."""
    if input.ndim not in (1, 2):
        raise RuntimeError("prob_dist must be 1 or 2 dim")
    if input._dtype.category != dtypes.FLOATING:
        raise RuntimeError(f"multinomial only supports floating-point dtypes for input, got: "
                           f"{input._dtype._scalar_name}")
    if num_samples <= 0:
        raise RuntimeError("cannot sample n_sample <= 0 samples")
    categories = input.shape[-1]
    if not replacement and num_samples > categories:
        raise RuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without replacement")
    check_allocation(input.shape[:-1] + (num_samples,), dtypes.int64)  # ATen's result, made before it samples
    rows = input._data.reshape(-1, categories)
    if not replacement or num_samples == 1:
        if not (np.all(rows < np.inf) and np.all(rows >= 0)):
            raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
        if np.any(rows.sum(axis=1) == 0):
            raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
        q = (-np.log1p(-rng.uniform_doubles(rows.size, generator))).astype(rows.dtype).reshape(rows.shape)
        ratio = rows / q
        order = np.argsort(-ratio, axis=1, kind="stable")[:, :num_samples]
        if num_samples > 1:  # topk then, whose choice among equal ratios (zero ones) is its algorithm's
            order = partition.by_rows(ratio, 1, num_samples,
                                      lambda row: partition.topk_order(row, num_samples, True, True), order)
        return Tensor._make(order.reshape(input.shape[:-1] + (num_samples,)).astype(np.int64), dtypes.int64)
    samples = np.empty((rows.shape[0], num_samples), dtype=np.int64)
    for row_index, row in enumerate(rows):
        total = row.dtype.type(0)
        cumulative = np.empty(categories, dtype=row.dtype)
        for j, value in enumerate(row):
            if not value >= 0:
                raise RuntimeError("invalid multinomial distribution (encountering probability entry < 0)")
            if not np.isfinite(value):
                raise RuntimeError("invalid multinomial distribution (encountering probability entry = infinity "
                                   "or NaN)")
            total = row.dtype.type(total + value)
            cumulative[j] = total
        if not total > 0:
            raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
        cumulative = (cumulative / total).astype(row.dtype)
        cumulative[-1] = 1
        uniforms = rng.uniform_doubles(num_samples, generator)
        samples[row_index] = np.searchsorted(cumulative.astype(np.float64), uniforms, side="left")
    return Tensor._make(samples.reshape(input.shape[:-1] + (num_samples,)), dtypes.int64)


# ------------------------------------------------------------------ Poisson and binomial counts

POISSON = node("PoissonBackward0", ("self",), jvp=LINEAR, self=_zero)
BINOMIAL = node("BinomialBackward0", ("count", "prob"), jvp=LINEAR,
                count=lambda grad: zeros_like(grad), prob=lambda grad: zeros_like(grad))


def _poisson_draw(rate: float, uniform: Any) -> float:
    """PyTorch's sample_poisson: Hormann's transformed rejection (PTRS) from rate 10 on, the
    product of uniforms below it."""
    if rate >= 10:
        slam, loglam = math.sqrt(rate), math.log(rate)
        b = 0.931 + 2.53 * slam
        a = -0.059 + 0.02483 * b
        invalpha = 1.1239 + 1.1328 / (b - 3.4)
        vr = 0.9277 - 3.6224 / (b - 2)
        while True:
            u = uniform() - 0.5
            v = uniform()
            us = 0.5 - abs(u)
            k = math.floor((2 * a / us + b) * u + rate + 0.43)
            if us >= 0.07 and v <= vr:
                return k
            if k < 0 or (us < 0.013 and v > us):
                continue
            if (math.log(v) + math.log(invalpha) - math.log(a / (us * us) + b)
                    <= -rate + k * loglam - math.lgamma(k + 1)):
                return k
    if rate == 0:
        return 0
    threshold, count, product = math.exp(-rate), 0, 1.0
    while True:
        product *= uniform()
        if product > threshold:
            count += 1
        else:
            return count


def _stirling_tail(k: float) -> float:
    table = (0.08106146679532726, 0.04134069595540929, 0.02767792568499834, 0.02079067210376509,
             0.01664469118982119, 0.01387612882307075, 0.01189670994589177, 0.01041126526197209,
             0.009255462182712733, 0.008330563433362871)
    if k <= 9:
        return table[int(k)]
    square = (k + 1) * (k + 1)
    return (1.0 / 12 - (1.0 / 360 - 1.0 / 1260 / square) / square) / (k + 1)


def _binomial_btrs(count: float, prob: float, uniform: Any) -> float:
    """Hormann's BTRS rejection sampler, as PyTorch's."""
    stddev = math.sqrt(count * prob * (1 - prob))
    b = 1.15 + 2.53 * stddev
    a = -0.0873 + 0.0248 * b + 0.01 * prob
    c = count * prob + 0.5
    v_r = 0.92 - 4.2 / b
    r = prob / (1 - prob)
    alpha = (2.83 + 5.1 / b) * stddev
    m = math.floor((count + 1) * prob)
    while True:
        u = uniform() - 0.5
        v = uniform()
        us = 0.5 - abs(u)
        k = math.floor((2 * a / us + b) * u + c)
        if k < 0 or k > count:
            continue
        if us >= 0.07 and v <= v_r:
            return k
        v = math.log(v * alpha / (a / (us * us) + b))
        bound = ((m + 0.5) * math.log((m + 1) / (r * (count - m + 1)))
                 + (count + 1) * math.log((count - m + 1) / (count - k + 1))
                 + (k + 0.5) * math.log(r * (count - k + 1) / (k + 1))
                 + _stirling_tail(m) + _stirling_tail(count - m) - _stirling_tail(k) - _stirling_tail(count - k))
        if v <= bound:
            return k


def _binomial_inversion(count: float, prob: float, uniform: Any) -> float:
    geometric_sum, successes = 0.0, 0
    log_failure = math.log1p(-prob)
    while True:
        geometric_sum += math.ceil(math.log(uniform()) / log_failure)
        if geometric_sum > count:
            return successes
        successes += 1


def _binomial_draw(count: float, prob: float, uniform: Any) -> float:
    if count <= 0 or prob <= 0:
        return 0
    if prob >= 1:
        return count
    if prob <= 0.5:
        return (_binomial_btrs if count * prob >= 10 else _binomial_inversion)(count, prob, uniform)
    failure = 1 - prob
    return count - (_binomial_btrs if count * failure >= 10 else _binomial_inversion)(count, failure, uniform)


def _uniform_source(generator: Any) -> Any:
    return lambda: float(rng.uniform_doubles(1, generator)[0])


def _normal_source(generator: Any) -> Any:
    return lambda: float(rng.normal_doubles(1, 0.0, 1.0, generator)[0])


@op(nodes=(POISSON,))
def poisson(input: Tensor, generator: Any = None) -> Tensor:
    if input._dtype.category != dtypes.FLOATING:
        raise NotImplementedError(f'"poisson_cpu" not implemented for \'{input._dtype._scalar_name}\'')
    uniform = _uniform_source(generator)
    values = [_poisson_draw(float(rate), uniform) for rate in input._data.reshape(-1)]
    data = np.asarray(values, dtype=input._dtype._numpy).reshape(input.shape)
    return record(POISSON, (input,), data, input._dtype)


@op(nodes=(BINOMIAL,))
def binomial(count: Tensor, prob: Tensor, generator: Any = None) -> Tensor:
    uniform = _uniform_source(generator)
    counts, probs = np.broadcast_arrays(count._data, prob._data)
    values = [_binomial_draw(float(n), float(p), uniform) for n, p in zip(counts.reshape(-1), probs.reshape(-1))]
    data = np.asarray(values, dtype=count._dtype._numpy).reshape(counts.shape)
    return record(BINOMIAL, (count, prob), data, count._dtype)


@op()
def randint_like(input: Tensor, low: Any = 0, high: Any = None, *, generator: Any = None, memory_format: Any = None,
                 dtype: Optional[DType] = None, layout: Any = None, device: Any = None, pin_memory: Any = False,
                 requires_grad: Any = False) -> Tensor:
    high = int(high.item()) if isinstance(high, Tensor) else high
    return randint(low, high, input.shape, generator=generator, dtype=dtype or input._dtype, device=device,
                   requires_grad=requires_grad)


# ------------------------------------------------------------------ gamma draws

def _gamma_draw(alpha: Any, uniform: Any, normal: Any) -> float:
    """PyTorch's sample_gamma (Marsaglia and Tsang's rejection method), in its mix of precisions:
    `alpha` keeps its dtype (np.float32 or np.float64) where PyTorch's kernel keeps scalar_t, and
    the `f` constants are floats."""
    kind = type(alpha)
    scale = 1.0
    if alpha < 1:  # boosted for a higher acceptance probability
        if alpha == 0:
            return 0.0
        scale *= (1 - uniform()) ** float(kind(1.0) / alpha)
        alpha = alpha + kind(1.0)
    d = float(alpha - np.float32(1.0) / np.float32(3.0))
    c = 1.0 / math.sqrt(9.0 * d)
    while True:
        x = normal()
        y = 1.0 + c * x
        while y <= 0:
            x = normal()
            y = 1.0 + c * x
        v = y * y * y
        u = 1 - uniform()
        xx = x * x
        if u < 1.0 - _C0331 * xx * xx or math.log(u) < 0.5 * xx + d * (1.0 - v + math.log(v)):
            return scale * d * v


_C0331 = float(np.float32(0.0331))


def _digamma_one(x: float) -> float:
    """PyTorch's digamma_one (Cephes'), which the reparameterized gamma gradient uses."""
    if x == 0:
        return math.inf
    additional_summand = 0.0
    if x < 0:
        if x == math.floor(x):
            return math.inf
        additional_summand = -math.pi / math.tan(math.pi * x)
        x = 1 - x
    result = 0.0
    while x < 10:
        result -= 1 / x
        x += 1
    if x == 10:
        return result + 2.25175258906672110764 + additional_summand
    y = 0.0
    if x < 1.0e17:
        z = 1.0 / (x * x)
        polynomial = 0.0
        for coefficient in (8.33333333333333333333E-2, -2.10927960927960927961E-2, 7.57575757575757575758E-3,
                            -4.16666666666666666667E-3, 3.96825396825396825397E-3, -8.33333333333333333333E-3,
                            8.33333333333333333333E-2):
            polynomial = polynomial * z + coefficient
        y = z * polynomial
    return result + math.log(x) - (0.5 / x) - y + additional_summand


_GAMMA_GRAD_COEFFICIENTS = (
    (0.16009398, -0.094634809, 0.025146376, -0.0030648343, 1, 0.32668115, 0.10406089, 0.0014179084),
    (0.53487893, 0.1298071, 0.065735949, -0.0015649758, 0.16639465, 0.020070113, -0.0035938915, -0.00058392623),
    (0.040121004, -0.0065914022, -0.0026286047, -0.0013441777, 0.017050642, -0.0021309326, 0.00085092367,
     -1.5247877e-07),
)


def _standard_gamma_grad_one(alpha: float, x: float) -> float:
    """d x / d alpha for x drawn from Gamma(alpha, 1), -(d/dalpha cdf(x; alpha)) / pdf(x; alpha):
    a Taylor series for small x, Rice's saddle point expansion for large alpha, else a bivariate
    rational approximation (PyTorch's standard_gamma_grad_one, in double)."""
    if x < 0.8:
        numer, denom = 1.0, alpha
        series1, series2 = numer / denom, numer / (denom * denom)
        for i in range(1, 6):
            numer *= -x / i
            denom += 1
            series1 += numer / denom
            series2 += numer / (denom * denom)
        pow_x_alpha = x ** alpha
        gamma_pdf = x ** (alpha - 1) * math.exp(-x)
        gamma_cdf = pow_x_alpha * series1
        gamma_cdf_alpha = (math.log(x) - _digamma_one(alpha)) * gamma_cdf - pow_x_alpha * series2
        result = -gamma_cdf_alpha / gamma_pdf
        return 0.0 if math.isnan(result) else result
    if alpha > 8.0:
        if 0.9 * alpha <= x <= 1.1 * alpha:
            numer_1 = 1 + 24 * alpha * (1 + 12 * alpha)
            numer_2 = 1440 * (alpha * alpha) + 6 * x * (53 - 120 * x) - 65 * x * x / alpha + alpha * (107 + 3600 * x)
            return numer_1 * numer_2 / (1244160 * (alpha * alpha) * (alpha * alpha))
        denom = math.sqrt(8 * alpha)
        term2 = denom / (alpha - x)
        term3 = (x - alpha - alpha * math.log(x / alpha)) ** -1.5
        term23 = term2 - term3 if x < alpha else term2 + term3
        term1 = math.log(x / alpha) * term23 - math.sqrt(2 / alpha) * (alpha + x) / ((alpha - x) * (alpha - x))
        stirling = 1 + 1 / (12 * alpha) * (1 + 1 / (24 * alpha))
        return -stirling * x * term1 / denom
    u, v = math.log(x / alpha), math.log(alpha)
    first, second, third = _GAMMA_GRAD_COEFFICIENTS
    coef_v = [a + u * (b + u * c) for a, b, c in zip(first, second, third)]
    p = coef_v[0] + v * (coef_v[1] + v * (coef_v[2] + v * coef_v[3]))
    q = coef_v[4] + v * (coef_v[5] + v * (coef_v[6] + v * coef_v[7]))
    return math.exp(p / q)


def standard_gamma_grad(alpha: Tensor, x: Tensor) -> Tensor:
    """torch._standard_gamma_grad: the reparameterized gradient of each draw (no derivative of its own)."""
    pairs = zip(alpha._data.reshape(-1), x._data.reshape(-1))
    values = [_standard_gamma_grad_one(float(a), float(v)) for a, v in pairs]
    return Tensor._make(np.asarray(values, dtype=alpha._dtype._numpy).reshape(alpha.shape), alpha._dtype)


STANDARD_GAMMA = node("StandardGammaBackward0", ("self",), jvp=ELEMENT_WISE,
                      self=lambda grad, self, result: grad * standard_gamma_grad(self, result))


@op(function=False, method=False, nodes=(STANDARD_GAMMA,))
def _standard_gamma(input: Tensor, generator: Any = None) -> Tensor:
    """torch._standard_gamma: one Gamma(alpha, 1) draw per element, serially, each from uniform and
    normal doubles of the generator; at least the dtype's smallest normal number."""
    uniform, normal = _uniform_source(generator), _normal_source(generator)
    kind = np.dtype(input._dtype._numpy).type
    tiny = np.finfo(kind).tiny
    values = [max(tiny, kind(_gamma_draw(alpha, uniform, normal))) for alpha in input._data.reshape(-1)]
    data = np.asarray(values, dtype=kind).reshape(input.shape)
    return record(STANDARD_GAMMA, (input,), data, input._dtype)
