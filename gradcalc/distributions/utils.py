"""torch.distributions.utils: broadcasting of parameters, logits and probabilities, and the
lazily computed parameters (`Categorical(logits=...).probs` is made on first read)."""
from __future__ import annotations

from functools import update_wrapper
from typing import Any, Callable, Sequence

from ..autograd import dtypes, grad_mode
from ..autograd.ops import activation, arrangement, creation
from ..autograd.ops.info import finfo
from ..autograd.tensor import Size, Tensor

__all__ = ["broadcast_all", "logits_to_probs", "clamp_probs", "probs_to_logits", "lazy_property",
           "tril_matrix_to_vec", "vec_to_tril_matrix"]

euler_constant = 0.57721566490153286060  # Euler Mascheroni Constant
NUMBER = (int, float, bool)  # torch.types._Number


def batch_shape_of(arguments: tuple, broadcast: Tensor) -> Size:
    """A distribution's batch shape from its parameters: none when every argument was a number,
    else the shape they were broadcast to."""
    return Size() if all(isinstance(argument, NUMBER) for argument in arguments) else broadcast.size()


def broadcast_all(*values: Any) -> tuple:
    """The values broadcast together, numbers made tensors of the first tensor's dtype (else the
    default dtype)."""
    if not all(isinstance(v, (Tensor, *NUMBER)) for v in values):
        raise ValueError("Input arguments must all be instances of Number, torch.Tensor or objects implementing "
                         "__torch_function__.")
    if not all(isinstance(v, Tensor) for v in values):
        dtype = next((v.dtype for v in values if isinstance(v, Tensor)), dtypes.get_default_dtype())
        values = tuple(v if isinstance(v, Tensor) else creation.tensor(v, dtype=dtype) for v in values)
    return arrangement.broadcast_tensors(*values)


def _standard_normal(shape: Sequence[int], dtype: Any, device: Any = None) -> Tensor:
    return creation.empty(shape, dtype=dtype).normal_()


def _sum_rightmost(value: Tensor, dim: int) -> Tensor:
    """`value` summed over its `dim` rightmost dimensions."""
    if dim == 0:
        return value
    return value.reshape(value.shape[:-dim] + (-1,)).sum(-1)


def logits_to_probs(logits: Tensor, is_binary: bool = False) -> Tensor:
    if is_binary:
        return logits.sigmoid()
    return activation.softmax(logits, -1)


def clamp_probs(probs: Tensor) -> Tensor:
    """Probabilities clamped into the open interval (0, 1) by the dtype's eps."""
    eps = finfo(probs.dtype).eps
    return probs.clamp(min=eps, max=1 - eps)


def probs_to_logits(probs: Tensor, is_binary: bool = False) -> Tensor:
    ps_clamped = clamp_probs(probs)
    if is_binary:
        return ps_clamped.log() - (-ps_clamped).log1p()
    return ps_clamped.log()


class lazy_property:
    """A parameter computed on first read (with gradients recorded) and then kept on the object."""

    __module__ = "torch.distributions.utils"

    def __init__(self, wrapped: Callable) -> None:
        self.wrapped = wrapped
        update_wrapper(self, wrapped)  # type: ignore[arg-type]

    def __get__(self, instance: Any, obj_type: Any = None) -> Any:
        if instance is None:
            return _lazy_property_and_property(self.wrapped)
        with grad_mode.enable_grad():
            value = self.wrapped(instance)
        setattr(instance, self.wrapped.__name__, value)
        return value


class _lazy_property_and_property(lazy_property, property):
    """What a lazy property is on its class: a property to documentation tools, a lazy property
    to argument validation."""

    __module__ = "torch.distributions.utils"

    def __init__(self, wrapped: Callable) -> None:
        property.__init__(self, wrapped)


def expand_probs_or_logits(source: Any, new: Any, param_shape: Any) -> None:
    """Give `new` whichever of probs and logits `source` holds (both once the other was read),
    expanded to `param_shape`; the last one given is its `_param`."""
    for name in ("probs", "logits"):
        if name in source.__dict__:
            setattr(new, name, getattr(source, name).expand(param_shape))
            new._param = getattr(new, name)


def _tril_mask(n: int, diag: int) -> Tensor:
    arange = creation.arange(0, n)
    return arange < arange.view(-1, 1) + (diag + 1)


def tril_matrix_to_vec(mat: Tensor, diag: int = 0) -> Tensor:
    """The lower triangle of a (batch of) square matrix, row by row."""
    n = mat.shape[-1]
    if diag < -n or diag >= n:
        raise ValueError(f"diag ({diag}) provided is outside [{-n}, {n - 1}].")
    return mat[..., _tril_mask(n, diag)]


def vec_to_tril_matrix(vec: Tensor, diag: int = 0) -> Tensor:
    """The lower triangular matrix whose triangle, row by row, is `vec`."""
    # +ve root of D**2 + (1+2*diag)*D - |diag| * (diag+1) - 2*vec.shape[-1] = 0
    n = (-(1 + 2 * diag) + ((1 + 2 * diag) ** 2 + 8 * vec.shape[-1] + 4 * abs(diag) * (diag + 1)) ** 0.5) / 2
    if round(n) - n > finfo(vec.dtype).eps:
        raise ValueError(f"The size of last dimension is {vec.shape[-1]} which cannot be expressed as the lower "
                         "triangular part of a square D x D matrix.")
    n = round(n)
    mat = vec.new_zeros(vec.shape[:-1] + Size((n, n)))
    mat[..., _tril_mask(n, diag)] = vec
    return mat
