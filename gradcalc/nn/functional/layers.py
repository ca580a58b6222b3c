"""torch.nn.functional's layers: linear, convolutions, pooling, normalization, embeddings,
padding and attention."""
from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any, Optional, Sequence

import numpy as np

from ...autograd import autocast, dtypes
from ...boolean_dispatch import boolean_dispatch
from ...autograd.ops import joining, linalg, normalization, pooling, pooling3d, shape
from ...autograd.ops import embedding as embedding_ops
from ...autograd.ops.arrangement import constant_pad_nd
from ...autograd.ops.generate import namespace_members
from ...autograd.ops.parser import parser
from ...autograd.ops.common import broadcast_shapes, shape_text
from ...autograd.tensor import Tensor
from ...warnings import warn
from .activation import _require_tensor


# ------------------------------------------------------------------ linear

def linear(*args: Any, **kwargs: Any) -> Tensor:
    """torch's C function linear(input, weight, bias=None): a call of two or three positional
    arguments (nn.Linear's) goes straight on, any other through its parser, in its words."""
    if kwargs or not 2 <= len(args) <= 3:
        bound = parser("nn", "linear").parse(args, kwargs)[1]
        if bound.get("out") is not None:
            raise NotImplementedError("gradcalc's F.linear has no out=")
        args = (bound["input"], bound["weight"], bound.get("bias"))
    return _linear(*args)


def _linear(input: Tensor, weight: Tensor, bias: Optional[Tensor] = None) -> Tensor:
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
    if bias is not None and input.ndim == 2:
        return _addmm(bias, input, weight_t)
    if bias is not None and bias.ndim == 1 and input.is_contiguous():
        # ATen's _flatten_nd_linear: the rows through addmm, viewed back (a vector's weight adds no dimension)
        rows = input.reshape(math.prod(input.shape[:-1]), input.shape[-1])
        out = _addmm(bias, rows, weight_t)
        return out.view(*input.shape[:-1], *out.shape[1:2] if weight.ndim == 2 else ())
    if input.ndim == 1 and weight.ndim == 2:
        # matmul of a vector: unsqueeze, mm, then an in-place squeeze_(0)
        output = shape.squeeze_inplace(linalg.mm(input.unsqueeze(0), weight_t), 0)
    else:
        output = linalg.matmul(input, weight_t)
    if bias is None:
        return output
    # ATen adds the bias in place (its output's shape stays), recording an add as the out-of-place one does
    broadcast = broadcast_shapes(tuple(output.shape), tuple(bias.shape))
    if broadcast != tuple(output.shape):
        raise RuntimeError(f"output with shape {shape_text(output.shape)} doesn't match the broadcast shape "
                           f"{shape_text(broadcast)}")
    return output + bias


def _addmm(bias: Tensor, mat1: Tensor, mat2: Tensor) -> Tensor:
    if mat1.dtype is not mat2.dtype:
        raise RuntimeError(f"mat1 and mat2 must have the same dtype, but got {mat1.dtype._scalar_name} and "
                           f"{mat2.dtype._scalar_name}")
    return linalg.addmm(bias, mat1, mat2)



def bilinear(input1: Tensor, input2: Tensor, weight: Tensor, bias: Optional[Tensor] = None) -> Tensor:
    named = [("input1", input1), ("input2", input2), ("weight", weight)] + ([("bias", bias)] if bias is not None else [])
    if any(t.dtype is not input1.dtype for _, t in named):
        raise RuntimeError("All tensors must have the same dtype, got " + ", ".join(
            f"{name}: {t.dtype._cpp_name}" for name, t in named))
    out = linalg.matmul(input1.unsqueeze(-2).unsqueeze(-3), weight).squeeze(-2)
    out = (out * input2.unsqueeze(-2)).sum(-1)
    return out if bias is None else out + bias


# built-in in torch._C._nn and torch: PyTorch's argument parser
_NN = namespace_members("nn")
_TORCH = namespace_members("torch")

# ------------------------------------------------------------------ convolutions (torch's builtins)

conv1d = _TORCH["conv1d"]
conv2d = _TORCH["conv2d"]
conv3d = _TORCH["conv3d"]
conv_transpose1d = _TORCH["conv_transpose1d"]
conv_transpose2d = _TORCH["conv_transpose2d"]
conv_transpose3d = _TORCH["conv_transpose3d"]


# ------------------------------------------------------------------ pooling

def _single(value: Any) -> tuple:
    return tuple(value) if isinstance(value, (tuple, list)) else (value,)


def _parsed(name: str, *arguments: Any, namespace: str = "torch") -> list:
    """The arguments as torch's C function `name` parses them (its checks of their types first)."""
    return list(parser(namespace, name).parse(arguments, {})[1].values())


def _list_with_default(out_size: Any, defaults: Sequence) -> Any:
    """torch.nn.functional's reading of an adaptive pool's output size: None stands for the input's size."""
    if isinstance(out_size, int):
        return out_size
    if len(defaults) <= len(out_size):
        raise ValueError(f"Input dimension should be at least {len(out_size) + 1}")
    return [v if v is not None else d for v, d in zip(out_size, defaults[-len(out_size):])]


def _max_pool1d(input: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0, dilation: Any = 1,
                ceil_mode: bool = False, return_indices: bool = False) -> Tensor:
    return _TORCH["max_pool1d"](input, kernel_size, [] if stride is None else stride, padding, dilation, ceil_mode)


def _parsed_max_pool(dims: int, kernel: Any, input: Tensor, kernel_size: Any, stride: Any, padding: Any,
                     dilation: Any, ceil_mode: bool, return_indices: bool) -> Any:
    # torch's calls torch.max_poolNd, or torch._C._nn.max_poolNd_with_indices: their parsers' checks first
    namespace, name = ("nn", f"max_pool{dims}d_with_indices") if return_indices else ("torch", f"max_pool{dims}d")
    arguments = (input, kernel_size, () if stride is None else stride, padding, dilation, ceil_mode)
    result = kernel(*parser(namespace, name).parse(arguments, {})[1].values())
    return result if return_indices else result[0]


def _max_pool2d(input: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0, dilation: Any = 1,
                ceil_mode: bool = False, return_indices: bool = False) -> Any:
    return _parsed_max_pool(2, pooling.max_pool2d_with_indices, input, kernel_size, stride, padding, dilation,
                            ceil_mode, return_indices)


def _max_pool3d(input: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0, dilation: Any = 1,
                ceil_mode: bool = False, return_indices: bool = False) -> Any:
    return _parsed_max_pool(3, pooling3d.max_pool3d_with_indices, input, kernel_size, stride, padding, dilation,
                            ceil_mode, return_indices)


# torch's F.avg_pool1d and F.adaptive_avg_pool1d are the C functions themselves
avg_pool1d = _TORCH["avg_pool1d"]
adaptive_avg_pool1d = _TORCH["adaptive_avg_pool1d"]


def avg_pool2d(*args: Any, **kwargs: Any) -> Tensor:
    """torch's F.avg_pool2d is the C function itself: its parser reads the arguments as given."""
    bound = parser("nn", "avg_pool2d").parse(args, kwargs)[1]
    if bound.get("stride") is None:
        bound["stride"] = ()
    return pooling.avg_pool2d(**bound)


def avg_pool3d(*args: Any, **kwargs: Any) -> Tensor:
    """torch's F.avg_pool3d is the C function itself: its parser reads the arguments as given."""
    bound = parser("nn", "avg_pool3d").parse(args, kwargs)[1]
    if bound.get("stride") is None:
        bound["stride"] = ()
    return pooling3d.avg_pool3d(**bound)


def adaptive_avg_pool2d(input: Tensor, output_size: Any) -> Tensor:
    size = _list_with_default(output_size, input.size())
    return pooling.adaptive_avg_pool2d(*_parsed("adaptive_avg_pool2d", input, size, namespace="nn")[:2])


def adaptive_avg_pool3d(input: Tensor, output_size: Any) -> Tensor:
    size = _list_with_default(output_size, input.size())
    return pooling.adaptive_avg_pool3d(*_parsed("adaptive_avg_pool3d", input, size, namespace="nn")[:2])


def _adaptive_max_pool1d(input: Tensor, output_size: Any, return_indices: bool = False) -> Any:
    result = _TORCH["adaptive_max_pool1d"](input, output_size)
    return result if return_indices else result[0]


def _adaptive_max_pool2d(input: Tensor, output_size: Any, return_indices: bool = False) -> Any:
    size = _list_with_default(output_size, input.size())
    result = pooling.adaptive_max_pool2d_with_indices(*_parsed("adaptive_max_pool2d", input, size, namespace="nn")[:2])
    return result if return_indices else result[0]


def _adaptive_max_pool3d(input: Tensor, output_size: Any, return_indices: bool = False) -> Any:
    size = _list_with_default(output_size, input.size())
    result = pooling3d.adaptive_max_pool3d_with_indices(
        *_parsed("adaptive_max_pool3d", input, size, namespace="nn")[:2])
    return result if return_indices else result[0]


def max_pool1d_with_indices(input: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0, dilation: Any = 1,
                            ceil_mode: bool = False, return_indices: bool = False) -> tuple:
    return _TORCH["max_pool1d_with_indices"](input, kernel_size, [] if stride is None else stride, padding, dilation,
                                             ceil_mode)


def max_pool2d_with_indices(input: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0, dilation: Any = 1,
                            ceil_mode: bool = False, return_indices: bool = False) -> tuple:
    return _max_pool2d(input, kernel_size, stride, padding, dilation, ceil_mode, True)


def max_pool3d_with_indices(input: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0, dilation: Any = 1,
                            ceil_mode: bool = False, return_indices: bool = False) -> tuple:
    return _max_pool3d(input, kernel_size, stride, padding, dilation, ceil_mode, True)


def adaptive_max_pool1d_with_indices(input: Tensor, output_size: Any, return_indices: bool = False) -> tuple:
    return _adaptive_max_pool1d(input, output_size, True)


def adaptive_max_pool2d_with_indices(input: Tensor, output_size: Any, return_indices: bool = False) -> tuple:
    return _adaptive_max_pool2d(input, output_size, True)


def adaptive_max_pool3d_with_indices(input: Tensor, output_size: Any, return_indices: bool = False) -> tuple:
    return _adaptive_max_pool3d(input, output_size, True)


# torch builds these with boolean_dispatch: a call goes to the function with indices or the one without
_MODULE = "torch.nn.functional"
max_pool1d = boolean_dispatch("return_indices", 6, False, max_pool1d_with_indices, _max_pool1d, _MODULE, "max_pool1d")
max_pool2d = boolean_dispatch("return_indices", 6, False, max_pool2d_with_indices, _max_pool2d, _MODULE, "max_pool2d")
max_pool3d = boolean_dispatch("return_indices", 6, False, max_pool3d_with_indices, _max_pool3d, _MODULE, "max_pool3d")
adaptive_max_pool1d = boolean_dispatch("return_indices", 2, False, adaptive_max_pool1d_with_indices,
                                       _adaptive_max_pool1d, _MODULE, "adaptive_max_pool1d")
adaptive_max_pool2d = boolean_dispatch("return_indices", 2, False, adaptive_max_pool2d_with_indices,
                                       _adaptive_max_pool2d, _MODULE, "adaptive_max_pool2d")
adaptive_max_pool3d = boolean_dispatch("return_indices", 2, False, adaptive_max_pool3d_with_indices,
                                       _adaptive_max_pool3d, _MODULE, "adaptive_max_pool3d")


def _lp_pool(pool: Any, input: Tensor, norm_type: float, kernel_size: Any, stride: Any, ceil_mode: bool,
             window: int) -> Tensor:
    if isinstance(norm_type, (int, float)) and abs(norm_type) == math.inf:
        pooled = pool[0](input.abs() * math.copysign(1, norm_type), kernel_size, stride, 0, 1, ceil_mode)
        return pooled * math.copysign(1, norm_type)
    out = pool[1](input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    return (_TORCH["sign"](out) * out.abs().relu()).mul(window).pow(1.0 / norm_type)


def lp_pool1d(input: Tensor, norm_type: float, kernel_size: int, stride: Any = None, ceil_mode: bool = False) -> Tensor:
    return _lp_pool((max_pool1d, avg_pool1d), input, norm_type, kernel_size, stride, ceil_mode, kernel_size)


def lp_pool2d(input: Tensor, norm_type: float, kernel_size: Any, stride: Any = None, ceil_mode: bool = False) -> Tensor:
    kernel_w, kernel_h = _pair(kernel_size)
    return _lp_pool((max_pool2d, avg_pool2d), input, norm_type, kernel_size, stride, ceil_mode, kernel_w * kernel_h)


def _unpool_output_size(input: Tensor, kernel_size: tuple, stride: tuple, padding: tuple, output_size: Any) -> list:
    default = [(input.shape[-len(kernel_size) + d] - 1) * stride[d] + kernel_size[d] - 2 * padding[d]
               for d in range(len(kernel_size))]
    if output_size is None:
        result = default
    else:
        if len(output_size) == len(kernel_size) + 2:
            output_size = output_size[2:]
        if len(output_size) != len(kernel_size):
            raise ValueError(f"output_size should be a sequence containing {len(kernel_size)} or {len(kernel_size) + 2} "
                             f"elements, but it has a length of '{len(output_size)}'")
        for d in range(len(kernel_size)):
            low, high = default[d] - stride[d], default[d] + stride[d]
            if not low < output_size[d] < high:
                raise ValueError(f'invalid output_size "{output_size}" (dim {d} must be between {low} and {high})')
        result = output_size
    for d in range(len(kernel_size)):
        if result[d] < 0:
            raise ValueError(f"max_unpooling: output_size must contain non-negative spatial dimensions, but got "
                             f"output_size[{d}]={result[d]}")
    return result


def max_unpool1d(input: Tensor, indices: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0,
                 output_size: Any = None) -> Tensor:
    kernel = _single(kernel_size)
    stride = _single(stride) if stride is not None else kernel
    size = _unpool_output_size(input, kernel, stride, _single(padding), output_size)
    return _NN["max_unpool2d"](input.unsqueeze(-1), indices.unsqueeze(-1), list(size) + [1]).squeeze(-1)


def max_unpool2d(input: Tensor, indices: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0,
                 output_size: Any = None) -> Tensor:
    kernel = _pair(kernel_size)
    stride = _pair(stride) if stride is not None else kernel
    return _NN["max_unpool2d"](input, indices, _unpool_output_size(input, kernel, stride, _pair(padding), output_size))


# ------------------------------------------------------------------ normalization

def batch_norm(input: Tensor, running_mean: Optional[Tensor], running_var: Optional[Tensor],
               weight: Optional[Tensor] = None, bias: Optional[Tensor] = None, training: bool = False,
               momentum: float = 0.1, eps: float = 1e-5) -> Tensor:
    if training:  # torch's _verify_batch_size
        size = input.shape
        if size[0] * math.prod(size[2:]) == 1:
            raise ValueError(f"Expected more than 1 value per channel when training, got input size {size}")
    if training and eps <= 0.0:
        raise ValueError(f"batch_norm eps must be positive during training, but got {eps}")
    if eps < 0.0:
        raise ValueError(f"batch_norm eps must be non-negative, but got {eps}")
    return normalization.batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps, True)


def instance_norm(input: Tensor, running_mean: Optional[Tensor] = None, running_var: Optional[Tensor] = None,
                  weight: Optional[Tensor] = None, bias: Optional[Tensor] = None, use_input_stats: bool = True,
                  momentum: float = 0.1, eps: float = 1e-5) -> Tensor:
    return normalization.instance_norm(input, weight, bias, running_mean, running_var, use_input_stats, momentum, eps,
                                       True)


def layer_norm(input: Tensor, normalized_shape: Any, weight: Optional[Tensor] = None, bias: Optional[Tensor] = None,
               eps: float = 1e-5) -> Tensor:
    # torch's calls torch.layer_norm: its parser reads the arguments first
    return normalization.layer_norm(*_parsed("layer_norm", input, _single(normalized_shape), weight, bias, eps, True))


def rms_norm(input: Tensor, normalized_shape: Any, weight: Optional[Tensor] = None,
             eps: Optional[float] = None) -> Tensor:
    dims = tuple(range(-len(_single(normalized_shape)), 0))
    if not (input.is_floating_point() or input.is_complex()):  # (ATen's dispatch)
        raise NotImplementedError(f"\"rms_norm\" not implemented for '{input.dtype._scalar_name}'")
    if eps is None:
        eps = float(np.finfo(input.dtype._numpy).eps)
    out = input * (input.pow(2).mean(dims, keepdim=True) + eps).rsqrt()
    return out if weight is None else out * weight


def group_norm(input: Tensor, num_groups: int, weight: Optional[Tensor] = None, bias: Optional[Tensor] = None,
               eps: float = 1e-5) -> Tensor:
    if input.ndim < 2:
        raise RuntimeError(f"Expected at least 2 dimensions for input tensor but received {input.ndim}")
    return normalization.group_norm(input, num_groups, weight, bias, eps, True)


def local_response_norm(input: Tensor, size: int, alpha: float = 1e-4, beta: float = 0.75, k: float = 1.0) -> Tensor:
    div = input.mul(input).unsqueeze(1)
    div = constant_pad_nd(div, (0, 0) * (input.ndim - 2) + (size // 2, (size - 1) // 2))
    div = avg_pool2d(div.flatten(-2) if input.ndim > 3 else div, (size, 1), stride=1).squeeze(1)
    div = div.reshape(input.shape)
    return input / div.mul(alpha).add(k).pow(beta)


def normalize(input: Tensor, p: float = 2.0, dim: int = 1, eps: float = 1e-12, out: Any = None) -> Tensor:
    denominator = input.norm(p, dim, keepdim=True).clamp_min(eps).expand_as(input)
    if out is None:
        return input / denominator
    return out.copy_(input / denominator)


# ------------------------------------------------------------------ embeddings

def embedding(input: Tensor, weight: Tensor, padding_idx: Optional[int] = None, max_norm: Optional[float] = None,
              norm_type: float = 2.0, scale_grad_by_freq: bool = False, sparse: bool = False) -> Tensor:
    if padding_idx is not None:
        if padding_idx > 0:
            if padding_idx >= weight.shape[0]:
                raise AssertionError("Padding_idx must be within num_embeddings")
        elif padding_idx < 0:
            if padding_idx < -weight.shape[0]:
                raise AssertionError("Padding_idx must be within num_embeddings")
            padding_idx = weight.shape[0] + padding_idx
    else:
        padding_idx = -1
    if max_norm is not None:  # torch.embedding_renorm_, its parser first
        weight_, input_, max_norm, norm_type = _parsed("embedding_renorm_", weight, input.contiguous(), max_norm,
                                                       norm_type)
        embedding_ops.embedding_renorm_(weight_, input_, max_norm, norm_type)
    return embedding_ops.embedding(weight, input, padding_idx, scale_grad_by_freq, sparse)


def embedding_bag(input: Tensor, weight: Tensor, offsets: Optional[Tensor] = None, max_norm: Optional[float] = None,
                  norm_type: float = 2, scale_grad_by_freq: bool = False, mode: str = "mean", sparse: bool = False,
                  per_sample_weights: Optional[Tensor] = None, include_last_offset: bool = False,
                  padding_idx: Optional[int] = None) -> Tensor:
    """Sums, means or maxima of bags of embeddings (torch.nn.functional's checks first), the bags
    given by offsets into a 1-d input or by the rows of a 2-d one; each bag's rows are looked up
    with embedding and reduced, so the graph is embedding's and the reduction's."""
    if weight.dtype is dtypes.int64 and input.is_floating_point():
        warn("UserWarning", "Argument order of nn.functional.embedding_bag was changed. Usage `embedding_bag(weight, "
                            "input, ...)` is deprecated, and should now be `embedding_bag(input, weight, ...)`.")
        weight, input = input, weight
    if per_sample_weights is not None and input.shape != per_sample_weights.shape:
        raise ValueError(f"embedding_bag: If per_sample_weights ({per_sample_weights.shape}) is not None, then it "
                         f"must have the same shape as the input ({input.shape})")
    if weight.ndim != 2:
        raise ValueError(f"weight has to be a 2D Tensor, but got Tensor of dimension {weight.ndim}")
    if input.ndim == 2:
        if offsets is not None:
            raise ValueError("if input is 2D, then offsets has to be None, as input is treated is a mini-batch of "
                             f"fixed length sequences. However, found offsets of type {type(offsets)}")
        bounds = [(row * input.shape[1], (row + 1) * input.shape[1]) for row in range(input.shape[0])]
        input = input.reshape(-1)
        if per_sample_weights is not None:
            per_sample_weights = per_sample_weights.reshape(-1)
    elif input.ndim == 1:
        if offsets is None:
            raise ValueError("offsets has to be a 1D Tensor but got None")
        if offsets.ndim != 1:
            raise ValueError("offsets has to be a 1D Tensor")
        starts = [int(v) for v in offsets.tolist()]
        ends = starts[1:] + ([] if include_last_offset else [input.shape[0]])
        bounds = list(zip(starts, ends))
    else:
        raise ValueError(f"input has to be 1D or 2D Tensor, but got Tensor of dimension {input.ndim}")
    if mode not in ("sum", "mean", "max"):
        raise ValueError("mode has to be one of sum, mean or max")
    if mode == "max" and scale_grad_by_freq:
        raise ValueError("max mode does not support scaling the gradient by the frequency")
    if mode == "max" and sparse:
        raise ValueError("max mode does not support sparse weights")
    if per_sample_weights is not None and mode != "sum":
        raise NotImplementedError("embedding_bag: per_sample_weights was not None. per_sample_weights is only "
                                  f"supported for mode='sum' (got mode='{mode}'). Please open a feature request on "
                                  "GitHub.")
    if padding_idx is not None and padding_idx < 0:
        padding_idx += weight.shape[0]
    def bags(weight: Tensor, per_sample_weights: Optional[Tensor]) -> Tensor:
        rows = []
        for start, end in bounds:
            # entries equal to padding_idx take no part in their bag; an empty bag is zeros
            kept = [i for i in range(start, end) if padding_idx is None or int(input[i]) != padding_idx]
            if not kept:
                rows.append(weight.new_zeros(weight.shape[1:]))
                continue
            positions = Tensor._make(np.asarray(kept, np.int64), dtypes.int64)
            vectors = embedding(input[positions], weight, None, max_norm, norm_type)
            if per_sample_weights is not None:
                vectors = vectors * per_sample_weights[positions].unsqueeze(-1)
            rows.append(vectors.sum(0) if mode == "sum" else vectors.max(0)[0] if mode == "max" else vectors.mean(0))
        return joining.stack(rows)

    offsets_used = Tensor._make(np.asarray([start for start, _ in bounds], np.int64), dtypes.int64)
    return embedding_ops.embedding_bag_node(bags, weight, per_sample_weights, input, offsets_used,
                                            ("sum", "mean", "max").index(mode), padding_idx, scale_grad_by_freq,
                                            sparse)


one_hot = _NN["one_hot"]


# ------------------------------------------------------------------ padding and reshaping

def pad(input: Tensor, pad: Any, mode: str = "constant", value: Optional[float] = None) -> Tensor:
    input, pad, mode, value = _parsed("pad", input, pad, mode, value, namespace="nn")  # torch's: the C function
    # at::pad's checks, before any mode's own
    if len(pad) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    if len(pad) > 2 * input.ndim:
        raise RuntimeError(f"Padding length should be less than or equal to two times the input dimension but got "
                           f"padding length {len(pad)} and input of dimension {input.ndim}")
    if mode == "constant":
        return constant_pad_nd(input, pad, 0 if value is None else value)
    if value is not None and value != 0:
        raise RuntimeError(f"Padding mode \"{mode}\" doesn't take in value argument.")
    if mode not in ("reflect", "replicate", "circular"):
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    if input.dtype is dtypes.bool_ and mode != "circular":  # (the kernels' dispatch)
        kernel = "reflection" if mode == "reflect" else "replication"
        raise NotImplementedError(f"\"{kernel}_pad{len(pad) // 2}d\" not implemented for 'Bool'")
    out = input
    for k in range(len(pad) // 2):
        dim = input.ndim - 1 - k
        before, after = pad[2 * k], pad[2 * k + 1]
        size = input.shape[dim]
        positions = np.arange(-before, size + after)
        if mode == "reflect":
            if before >= size or after >= size:
                raise RuntimeError(f"Argument #4: Padding size should be less than the corresponding input dimension, "
                                   f"but got: padding ({before}, {after}) at dimension {dim} of input "
                                   f"{shape_text(input.shape)}")
            period = 2 * (size - 1)
            positions = np.abs((positions + period) % period if period else positions * 0)
            positions = np.where(positions >= size, period - positions, positions)
        elif mode == "replicate":
            positions = np.clip(positions, 0, size - 1)
        else:
            positions = positions % size
        out = out.index_select(dim, Tensor._make(positions.astype(np.int64), dtypes.int64))
    return out


def _pair(value: Any) -> tuple:
    """torch.nn.modules.utils._pair (gradcalc.nn.modules.utils, which imports this package):
    any iterable as a tuple, anything else twice."""
    return tuple(value) if isinstance(value, Iterable) else (value, value)


def unfold(input: Tensor, kernel_size: Any, dilation: Any = 1, padding: Any = 0, stride: Any = 1) -> Tensor:
    return _NN["im2col"](input, _pair(kernel_size), _pair(dilation), _pair(padding), _pair(stride))


def fold(input: Tensor, output_size: Any, kernel_size: Any, dilation: Any = 1, padding: Any = 0,
         stride: Any = 1) -> Tensor:
    return _NN["col2im"](input, _pair(output_size), _pair(kernel_size), _pair(dilation), _pair(padding),
                         _pair(stride))


_GRID_SAMPLE_DEFAULT = ("Default grid_sample and affine_grid behavior has changed to align_corners=False since 1.3.0. "
                        "Please specify align_corners=True if the old behavior is desired. See the documentation of "
                        "grid_sample for details.")


def grid_sample(input: Tensor, grid: Tensor, mode: str = "bilinear", padding_mode: str = "zeros",
                align_corners: Optional[bool] = None) -> Tensor:
    modes = ("bilinear", "nearest", "bicubic")
    paddings = ("zeros", "border", "reflection")
    if mode not in modes:
        raise ValueError(f"nn.functional.grid_sample(): expected mode to be 'bilinear', 'nearest' or 'bicubic', but "
                         f"got: '{mode}'")
    if padding_mode not in paddings:
        raise ValueError("nn.functional.grid_sample(): expected padding_mode to be 'zeros', 'border', or "
                         f"'reflection', but got: '{padding_mode}'")
    if align_corners is None:
        warn("UserWarning", _GRID_SAMPLE_DEFAULT)
        align_corners = False
    return _TORCH["grid_sampler"](input, grid, modes.index(mode), paddings.index(padding_mode), align_corners)


def affine_grid(theta: Tensor, size: Any, align_corners: Optional[bool] = None) -> Tensor:
    if align_corners is None:
        warn("UserWarning", _GRID_SAMPLE_DEFAULT)
        align_corners = False
    if not theta.is_floating_point():
        raise ValueError(f"Expected theta to have floating point type, but got {theta.dtype}")
    if len(size) == 4:
        if theta.dim() != 3 or theta.shape[-2] != 2 or theta.shape[-1] != 3:
            raise ValueError(f"Expected a batch of 2D affine matrices of shape Nx2x3 for size {size}. Got "
                             f"{theta.shape}.")
        spatial_size = size[-2:]
    elif len(size) == 5:
        if theta.dim() != 3 or theta.shape[-2] != 3 or theta.shape[-1] != 4:
            raise ValueError(f"Expected a batch of 3D affine matrices of shape Nx3x4 for size {size}. Got "
                             f"{theta.shape}.")
        spatial_size = size[-3:]
    else:
        raise NotImplementedError("affine_grid only supports 4D and 5D sizes, for 2D and 3D affine transforms, "
                                  f"respectively. Got size {size}.")
    if align_corners and min(spatial_size) == 1:
        warn("UserWarning", "Since version 1.3.0, affine_grid behavior has changed for unit-size grids when "
                            "align_corners=True. This is not an intended use case of affine_grid. See the documentation "
                            "of affine_grid for details.")
    elif min(size) <= 0:
        raise ValueError(f"Expected non-zero, positive output size. Got {size}")
    return _TORCH["affine_grid_generator"](theta, size, align_corners)


# builtins of torch that torch.nn.functional shares
pixel_shuffle = _TORCH["pixel_shuffle"]
pixel_unshuffle = _TORCH["pixel_unshuffle"]
channel_shuffle = _TORCH["channel_shuffle"]
native_channel_shuffle = _TORCH["native_channel_shuffle"]
pdist = _TORCH["pdist"]


__all__ = ["linear", "bilinear", "max_pool1d", "max_pool2d", "max_pool3d", "max_pool1d_with_indices",
           "max_pool2d_with_indices", "max_pool3d_with_indices", "adaptive_max_pool1d_with_indices",
           "adaptive_max_pool2d_with_indices", "adaptive_max_pool3d_with_indices", "lp_pool1d", "max_unpool1d",
           "max_unpool2d", "avg_pool1d", "avg_pool2d", "avg_pool3d", "adaptive_avg_pool1d", "adaptive_avg_pool2d",
           "adaptive_avg_pool3d", "adaptive_max_pool1d", "adaptive_max_pool2d", "adaptive_max_pool3d", "lp_pool2d",
           "batch_norm",
           "instance_norm", "layer_norm", "rms_norm", "group_norm", "local_response_norm", "normalize", "embedding", "embedding_bag",
           "one_hot", "pad", "pixel_shuffle", "pixel_unshuffle", "channel_shuffle", "native_channel_shuffle", "pdist",
           "unfold", "fold", "grid_sample", "affine_grid", "conv1d", "conv2d", "conv3d",
           "conv_transpose1d", "conv_transpose2d", "conv_transpose3d"]
