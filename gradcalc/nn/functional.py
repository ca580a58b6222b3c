"""torch.nn.functional: activations, softmax, linear and the regression losses.

Each function records the grad_fn PyTorch records for it, so `grad_fn`, `next_functions`
and errors read the same; softmax reproduces the order of PyTorch's CPU kernel arithmetic,
since a softmax gradient is often a difference of nearly equal numbers.
"""
from __future__ import annotations

import math
from typing import Any, Optional

import numpy as np

from ..autograd import autocast, dtypes, random
from ..autograd.dtypes import DType
from ..autograd.ops import activation, linalg, loss, shape
from ..autograd.ops.inplace import check_inplace, commit_inplace
from ..autograd.tensor import Tensor
from ..warnings import warn

__all__ = ["linear", "relu", "relu_", "leaky_relu", "sigmoid", "tanh", "softmax", "log_softmax", "mse_loss",
           "l1_loss", "logsigmoid", "binary_cross_entropy", "binary_cross_entropy_with_logits", "nll_loss",
           "cross_entropy", "gelu", "silu", "softplus", "elu", "elu_", "hardtanh", "hardtanh_", "relu6", "dropout"]


def _require_tensor(value: Any, function: str, argument: str, position: int) -> None:
    if not isinstance(value, Tensor):
        raise TypeError(f"{function}(): argument '{argument}' (position {position}) must be Tensor, not "
                        f"{type(value).__name__}")


# ------------------------------------------------------------------ linear

def linear(input: Tensor, weight: Tensor, bias: Optional[Tensor] = None) -> Tensor:
    """input @ weight.T + bias, through the same ops as at::linear: addmm for a batch of rows,
    views around it for other contiguous inputs, matmul otherwise."""
    _require_tensor(input, "linear", "input", 1)
    _require_tensor(weight, "linear", "weight", 2)
    if bias is not None:
        _require_tensor(bias, "linear", "bias", 3)
    input, weight, bias = autocast.lower_precision(input, weight, bias)
    if input.ndim == 0 or weight.ndim == 0:
        raise RuntimeError(f"both arguments to linear need to be at least 1D, but they are {input.ndim}D and "
                           f"{weight.ndim}D")
    weight_t = weight.t()
    if bias is None:
        if input.ndim == 1:
            # matmul of a vector: unsqueeze, mm, then an in-place squeeze_(0)
            return shape.squeeze_inplace(linalg.mm(input.unsqueeze(0), weight_t), 0)
        return linalg.matmul(input, weight_t)
    if input.ndim == 2:
        return _addmm(bias, input, weight_t)
    if input.is_contiguous():
        rows = input.reshape(math.prod(input.shape[:-1]), input.shape[-1])
        out = _addmm(bias, rows, weight_t)
        return out.view(*input.shape[:-1], out.shape[1])
    return linalg.matmul(input, weight_t) + bias


def _addmm(bias: Tensor, mat1: Tensor, mat2: Tensor) -> Tensor:
    if mat1.dtype is not mat2.dtype:
        raise RuntimeError(f"mat1 and mat2 must have the same dtype, but got {mat1.dtype._scalar_name} and "
                           f"{mat2.dtype._scalar_name}")
    return linalg.addmm(bias, mat1, mat2)


# ------------------------------------------------------------------ activations

def relu(input: Tensor, inplace: bool = False) -> Tensor:
    _require_tensor(input, "relu", "input", 1)
    return input.relu_() if inplace else activation.relu(input)


def relu_(input: Tensor) -> Tensor:
    _require_tensor(input, "relu_", "input", 1)
    return input.relu_()


def leaky_relu(input: Tensor, negative_slope: float = 0.01, inplace: bool = False) -> Tensor:
    _require_tensor(input, "leaky_relu", "input", 1)
    if not inplace:
        return activation.leaky_relu(input, negative_slope)
    check_inplace(input)
    return commit_inplace(input, activation.leaky_relu_in_place_result(input, negative_slope))


def sigmoid(input: Tensor) -> Tensor:
    _require_tensor(input, "sigmoid", "input", 1)
    return input.sigmoid()


def tanh(input: Tensor) -> Tensor:
    _require_tensor(input, "tanh", "input", 1)
    return input.tanh()


# ------------------------------------------------------------------ softmax

# `_stacklevel` only keeps torch's positional order: a third positional argument lands there.
def softmax(input: Tensor, dim: Optional[int] = None, _stacklevel: int = 3, dtype: Optional[DType] = None) -> Tensor:
    return _softmax(input, dim, dtype, log=False)


def log_softmax(input: Tensor, dim: Optional[int] = None, _stacklevel: int = 3,
                dtype: Optional[DType] = None) -> Tensor:
    return _softmax(input, dim, dtype, log=True)


def _softmax(input: Tensor, dim: Optional[int], dtype: Optional[DType], log: bool) -> Tensor:
    name = "log_softmax" if log else "softmax"
    _require_tensor(input, name, "input", 1)
    if dim is None:
        dim = activation.implicit_softmax_dim(name, input.ndim)
    return activation.log_softmax(input, dim, dtype) if log else activation.softmax(input, dim, dtype)


# ------------------------------------------------------------------ losses

def mse_loss(input: Tensor, target: Tensor, size_average: Any = None, reduce: Any = None,
             reduction: str = "mean") -> Tensor:
    reduction = _loss_preamble(input, target, size_average, reduce, reduction)
    input, target = _broadcast_pair(input, target)
    return loss.mse_loss(input, target, loss.reduction_enum(reduction))


def l1_loss(input: Tensor, target: Tensor, size_average: Any = None, reduce: Any = None,
            reduction: str = "mean") -> Tensor:
    # composite in PyTorch: the graph is (input - target).abs() and then mean or sum
    reduction = _loss_preamble(input, target, size_average, reduce, reduction)
    input, target = _broadcast_pair(input, target)
    _reduction_enum(reduction)
    difference = (input - target).abs()
    if reduction == "mean":
        return difference.mean()
    if reduction == "sum":
        return difference.sum()
    return difference


def _loss_preamble(input: Any, target: Any, size_average: Any, reduce: Any, reduction: str) -> str:
    """The steps F.mse_loss and F.l1_loss share before computing: the size warning and the
    legacy size_average/reduce arguments."""
    for value in (target, input):
        if not isinstance(value, Tensor):
            raise AttributeError(f"'{type(value).__name__}' object has no attribute 'size'")
    if target.shape != input.shape:
        warn("UserWarning", f"Using a target size ({target.shape}) that is different to the input size "
                            f"({input.shape}). This will likely lead to incorrect results due to broadcasting. "
                            "Please ensure they have the same size.")
    if size_average is not None or reduce is not None:
        return legacy_reduction(size_average, reduce)
    return reduction


def legacy_reduction(size_average: Any, reduce: Any) -> str:
    """The reduction that the deprecated size_average/reduce pair stands for; their truth values
    are taken as Python takes them, so a tensor passed there by mistake fails as it does in torch."""
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    if size_average and reduce:
        reduction = "mean"
    elif reduce:
        reduction = "sum"
    else:
        reduction = "none"
    warn("UserWarning", f"size_average and reduce args will be deprecated, please use reduction='{reduction}' "
                        "instead.")
    return reduction


def _reduction_enum(reduction: Any) -> None:
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"{reduction} is not a valid value for reduction")


def _broadcast_pair(a: Tensor, b: Tensor) -> tuple:
    """torch.broadcast_tensors for two tensors: only a tensor whose shape changes is expanded."""
    for i, (x, y) in enumerate(zip(reversed(a.shape), reversed(b.shape))):
        if x != y and x != 1 and y != 1:
            dim = max(a.ndim, b.ndim) - 1 - i
            raise RuntimeError(f"The size of tensor a ({x}) must match the size of tensor b ({y}) at "
                               f"non-singleton dimension {dim}")
    shape = tuple(np.broadcast_shapes(a.shape, b.shape))
    return tuple(t if t.shape == shape else t.expand(shape) for t in (a, b))


# ------------------------------------------------------------------ classification losses

def logsigmoid(input: Tensor) -> Tensor:
    _require_tensor(input, "log_sigmoid", "input", 1)
    return activation.log_sigmoid(input)


def binary_cross_entropy(input: Tensor, target: Tensor, weight: Optional[Tensor] = None, size_average: Any = None,
                         reduce: Any = None, reduction: str = "mean") -> Tensor:
    reduction = _legacy_or(size_average, reduce, reduction)
    if target.shape != input.shape:
        raise ValueError(f"Using a target size ({target.shape}) that is different to the input size ({input.shape}) "
                         "is deprecated. Please ensure they have the same size.")
    if weight is not None:
        weight = weight.expand(np.broadcast_shapes(target.shape, weight.shape))
    if target.dtype is not input.dtype:
        raise RuntimeError(f"Found dtype {target.dtype._scalar_name} but expected {input.dtype._scalar_name}")
    return loss.binary_cross_entropy(input, target, weight, loss.reduction_enum(reduction))


def binary_cross_entropy_with_logits(input: Tensor, target: Tensor, weight: Optional[Tensor] = None,
                                     size_average: Any = None, reduce: Any = None, reduction: str = "mean",
                                     pos_weight: Optional[Tensor] = None) -> Tensor:
    reduction = _legacy_or(size_average, reduce, reduction)
    if target.shape != input.shape:
        raise ValueError(f"Target size ({target.shape}) must be the same as input size ({input.shape})")
    dtype = dtypes.result_type([input, target])
    if target.dtype.category < dtypes.FLOATING:
        # the first step, (1 - target) * input, is computed in place in the target's dtype
        raise RuntimeError(f"result type {dtype._scalar_name} can't be cast to the desired output type "
                           f"{target.dtype._scalar_name}")
    input, target = (t if t.dtype is dtype else t.to(dtype) for t in (input, target))
    return loss.binary_cross_entropy_with_logits(input, target, weight, pos_weight, loss.reduction_enum(reduction))


def nll_loss(input: Tensor, target: Tensor, weight: Optional[Tensor] = None, size_average: Any = None,
             ignore_index: int = -100, reduce: Any = None, reduction: str = "mean") -> Tensor:
    if size_average is not None or reduce is not None:
        reduction = legacy_reduction(size_average, reduce)
    _reduction_enum(reduction)
    if input.ndim < 1:
        raise ValueError(f"Expected 1 or more dimensions (got {input.ndim})")
    if input.ndim != 1 and target.ndim and input.shape[0] != target.shape[0]:
        raise ValueError(f"Expected input batch_size ({input.shape[0]}) to match target batch_size "
                         f"({target.shape[0]}).")
    if input.ndim > 2:
        raise NotImplementedError("gradcalc computes nll_loss and cross_entropy for inputs of shape (C) or (N, C) "
                                  "only")
    if target.ndim > 1:
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    if input.ndim == 2 and target.ndim == 0 or input.ndim == 1 and target.ndim == 1:
        raise RuntimeError(f"size mismatch (got input: [{', '.join(map(str, input.shape))}], target: "
                           f"[{', '.join(map(str, target.shape))}])")
    classes = input.shape[-1]
    if weight is not None and (weight.ndim != 1 or weight.numel() != classes):
        raise RuntimeError(f"weight tensor should be defined either for all {classes} classes or no classes but "
                           f"got weight tensor of shape: [{', '.join(map(str, weight.shape))}]")
    if target.dtype not in (dtypes.int64, dtypes.uint8):
        raise RuntimeError(f"expected target dtype to be Long or Byte, but got {target.dtype._scalar_name}")
    return loss.nll_loss(input, target, weight, loss.reduction_enum(reduction), ignore_index)


def cross_entropy(input: Tensor, target: Tensor, weight: Optional[Tensor] = None, size_average: Any = None,
                  ignore_index: int = -100, reduce: Any = None, reduction: str = "mean",
                  label_smoothing: float = 0.0) -> Tensor:
    """log_softmax over the classes, then nll_loss; a target of the input's shape holds class
    probabilities instead of class indices."""
    if size_average is not None or reduce is not None:
        reduction = legacy_reduction(size_average, reduce)
    _reduction_enum(reduction)
    class_dim = 0 if input.ndim == 1 else 1
    if target.shape == input.shape:
        if target.dtype.category != dtypes.FLOATING:
            raise RuntimeError(f"Expected floating point type for target with class probabilities, got "
                               f"{target.dtype._scalar_name}")
        if ignore_index >= 0:
            raise RuntimeError("ignore_index is not supported for floating point target")
        if weight is not None:
            raise NotImplementedError("gradcalc does not weight class-probability targets")
        log_probs = log_softmax(input, class_dim)
        classes = input.shape[class_dim]
        if label_smoothing > 0.0:
            target = target * (1 - label_smoothing) + label_smoothing / classes
        if reduction == "none":
            return -(log_probs * target).sum(class_dim)
        total = -(log_probs * target).sum()
        return total / (input.numel() // classes) if reduction == "mean" else total
    if label_smoothing > 1.0:
        raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing}")
    log_probs = log_softmax(input, class_dim)
    loss = nll_loss(log_probs, target, weight, ignore_index=ignore_index, reduction=reduction)
    if label_smoothing <= 0.0:
        return loss
    if weight is not None:
        raise NotImplementedError("gradcalc does not combine class weights with label smoothing")
    ignored = target == ignore_index
    smooth = -log_probs.sum(class_dim)
    smooth.masked_fill_(ignored, 0.0)
    if reduction == "mean":
        smooth = smooth.sum() / (~ignored).sum()
    elif reduction == "sum":
        smooth = smooth.sum()
    return (1 - label_smoothing) * loss + smooth * (label_smoothing / input.shape[class_dim])


def _legacy_or(size_average: Any, reduce: Any, reduction: str) -> str:
    if size_average is not None or reduce is not None:
        return legacy_reduction(size_average, reduce)
    _reduction_enum(reduction)
    return reduction


# ------------------------------------------------------------------ more activations and dropout

def _in_place(input: Tensor, result: Tensor) -> Tensor:
    """`result` written back into input, for the activations' inplace=True."""
    check_inplace(input)
    return commit_inplace(input, result)


def gelu(input: Tensor, approximate: str = "none") -> Tensor:
    _require_tensor(input, "gelu", "input", 1)
    return activation.gelu(input, approximate=approximate)


def silu(input: Tensor, inplace: bool = False) -> Tensor:
    _require_tensor(input, "silu", "input", 1)
    return _in_place(input, activation.silu(input)) if inplace else activation.silu(input)


def softplus(input: Tensor, beta: float = 1.0, threshold: float = 20.0) -> Tensor:
    _require_tensor(input, "softplus", "input", 1)
    return activation.softplus(input, beta, threshold)


def elu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    _require_tensor(input, "elu", "input", 1)
    if inplace:
        # in place, the input is gone: the gradient is found from the result (EluBackward1)
        return _in_place(input, activation.elu_in_place_result(input, alpha))
    return activation.elu(input, alpha)


def elu_(input: Tensor, alpha: float = 1.0) -> Tensor:
    return elu(input, alpha, inplace=True)


def hardtanh(input: Tensor, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False) -> Tensor:
    _require_tensor(input, "hardtanh", "input", 1)
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    result = activation.hardtanh(input, min_val, max_val)
    return _in_place(input, result) if inplace else result


def hardtanh_(input: Tensor, min_val: float = -1.0, max_val: float = 1.0) -> Tensor:
    return hardtanh(input, min_val, max_val, inplace=True)


def relu6(input: Tensor, inplace: bool = False) -> Tensor:
    return hardtanh(input, 0.0, 6.0, inplace)


def dropout(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    """ATen's CPU dropout: a keep mask from bernoulli_(1 - p), divided by 1 - p in place, times
    the input (MulBackward0); the input itself when nothing is dropped."""
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    _require_tensor(input, "dropout", "input", 1)
    if p == 0 or not training or input.numel() == 0:
        return input
    if p == 1:
        noise = Tensor._make(np.zeros((), dtype=input.dtype._numpy), input.dtype)
    else:
        noise = Tensor._make(random.bernoulli_(input.shape, 1 - p, input.dtype.name), input.dtype)
        noise.div_(1 - p)
    return input.mul_(noise) if inplace else input * noise


for _name in __all__:
    globals()[_name].__module__ = "torch.nn.functional"  # as torch.typename names them
del _name
