"""torch.nn.functional.interpolate and its deprecated forms (upsample, upsample_nearest,
upsample_bilinear), following torch's Python statement for statement: the same checks and
messages, the output size computed where torch computes it, then the ATen upsampling op."""
from __future__ import annotations

from typing import Any, Optional

from ...autograd.ops import upsampling
from ...autograd.ops.parser import has_signature, parser
from ...autograd.tensor import Tensor
from ...warnings import warn
from .layers import adaptive_avg_pool1d, adaptive_avg_pool2d, adaptive_avg_pool3d

_MODES = "nearest | linear | bilinear | bicubic | trilinear | lanczos | area | nearest-exact"

# (mode, spatial dims) -> the op
_NEAREST = {("nearest", 1): upsampling.upsample_nearest1d, ("nearest", 2): upsampling.upsample_nearest2d,
            ("nearest", 3): upsampling.upsample_nearest3d, ("nearest-exact", 1): upsampling.upsample_nearest_exact1d,
            ("nearest-exact", 2): upsampling.upsample_nearest_exact2d,
            ("nearest-exact", 3): upsampling.upsample_nearest_exact3d}
_INTERPOLATING = {("linear", 1): upsampling.upsample_linear1d, ("bilinear", 2): upsampling.upsample_bilinear2d,
                  ("trilinear", 3): upsampling.upsample_trilinear3d, ("bicubic", 2): upsampling.upsample_bicubic2d}
# mode -> (the C function torch's Python calls with antialias, the op)
_ANTIALIASED = {"bilinear": ("_upsample_bilinear2d_aa", upsampling.upsample_bilinear2d_aa),
                "bicubic": ("_upsample_bicubic2d_aa", upsampling.upsample_bicubic2d_aa),
                "lanczos": ("_upsample_lanczos2d_aa", upsampling.upsample_lanczos2d_aa)}
_NEEDS = {"linear": 3, "bilinear": 4, "trilinear": 5}


def _parsed_scales(name: str, input: Tensor, output_size: Any, align_corners: Any, scale_factors: Any) -> Any:
    """The scale factors as the C op `name`'s parser reads them (doubles), after its checks of
    every argument (nearest's ops take no align_corners)."""
    arguments = (input, output_size, scale_factors) if align_corners is None and name.startswith(
        ("upsample_nearest", "_upsample_nearest")) else (input, output_size, align_corners, scale_factors)
    return parser("nn", name).parse(arguments, {})[1]["scale_factors"]


def _is_integer(x: Any) -> bool:
    return isinstance(x, int) or (isinstance(x, Tensor) and not x.is_floating_point() and x.ndim == 0)


def interpolate(input: Tensor, size: Any = None, scale_factor: Any = None, mode: str = "nearest",
                align_corners: Optional[bool] = None, recompute_scale_factor: Optional[bool] = None,
                antialias: bool = False) -> Tensor:
    if mode in ("nearest", "area", "nearest-exact"):
        if align_corners is not None:
            raise ValueError("align_corners option can only be set with the interpolating modes: "
                             "linear | bilinear | bicubic | trilinear")
    elif align_corners is None:
        align_corners = False
    dim = input.dim() - 2
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    if size is not None:
        scale_factors = None
        if isinstance(size, (list, tuple)):
            if len(size) != dim:
                raise ValueError(
                    "Input and output must have the same number of spatial dimensions, but got input with spatial "
                    f"dimensions of {list(input.shape[2:])} and output size of {size}. Please provide input tensor "
                    "in (N, C, d1, d2, ...,dK) format and output size in (o1, o2, ...,oK) format.")
            if not all(_is_integer(x) for x in size):
                raise TypeError("expected size to be one of int or Tuple[int] or Tuple[int, int] or Tuple[int, int, "
                                f"int], but got size with types {[type(x) for x in size]}")
            output_size = size
        else:
            output_size = [size for _ in range(dim)]
    elif scale_factor is not None:
        output_size = None
        if isinstance(scale_factor, (list, tuple)):
            if len(scale_factor) != dim:
                raise ValueError(
                    "Input and scale_factor must have the same number of spatial dimensions, but got input with "
                    f"spatial dimensions of {list(input.shape[2:])} and scale_factor of shape {scale_factor}. "
                    "Please provide input tensor in (N, C, d1, d2, ...,dK) format and scale_factor in (s1, s2, "
                    "...,sK) format.")
            scale_factors = scale_factor  # as given: the kernel's parser reads them as doubles
        else:
            scale_factors = [scale_factor for _ in range(dim)]
    else:
        raise ValueError("either size or scale_factor should be defined")
    if recompute_scale_factor and size is not None:
        raise ValueError("recompute_scale_factor is not meaningful with an explicit size.")
    if mode == "area" and output_size is None:
        recompute_scale_factor = True
    if recompute_scale_factor:
        output_size = [int(input.size(i + 2) * scale_factors[i]) for i in range(dim)]  # (torch.sym_int)
        scale_factors = None
    if antialias and not (mode in ("bilinear", "bicubic", "lanczos") and input.ndim == 4):
        raise ValueError("Anti-alias option is restricted to bilinear, bicubic, and lanczos modes and requires a 4-D "
                         "tensor as input")
    if mode == "lanczos" and input.dim() == 4:
        if align_corners:
            raise ValueError("Lanczos mode does not support align_corners=True")
        if not antialias:
            raise ValueError("Lanczos mode requires antialias=True")
    if antialias:
        name, function = _ANTIALIASED[mode]
        scale_factors = _parsed_scales(name, input, output_size, align_corners, scale_factors)
        return function(input, output_size, align_corners, scale_factors)
    if (mode, dim) in _NEAREST:
        function = _NEAREST[mode, dim]
        if has_signature("nn", function.__name__):
            scale_factors = _parsed_scales(function.__name__, input, output_size, None, scale_factors)
        elif scale_factors is not None:
            scale_factors = [float(s) for s in scale_factors]
        return function(input, output_size, scale_factors)
    if mode == "area" and dim in (1, 2, 3):
        return (adaptive_avg_pool1d, adaptive_avg_pool2d, adaptive_avg_pool3d)[dim - 1](input, output_size)
    if (mode, dim) in _INTERPOLATING:
        function = _INTERPOLATING[mode, dim]
        # torch's Python calls the C op, whose parser refuses an align_corners that is no bool
        scale_factors = _parsed_scales(function.__name__, input, output_size, align_corners, scale_factors)
        return function(input, output_size, align_corners, scale_factors)
    if mode in _NEEDS and input.dim() in (3, 4, 5):
        raise NotImplementedError(f"Got {input.dim()}D input, but {mode} mode needs {_NEEDS[mode]}D input")
    raise NotImplementedError(f"Input Error: Only 3D, 4D and 5D input Tensors supported (got {input.dim()}D) for the "
                              f"modes: {_MODES} (got {mode})")


def upsample(input: Tensor, size: Any = None, scale_factor: Any = None, mode: str = "nearest",
             align_corners: Optional[bool] = None) -> Tensor:
    warn("UserWarning", "`nn.functional.upsample` is deprecated. Use `nn.functional.interpolate` instead.")
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input: Tensor, size: Any = None, scale_factor: Any = None) -> Tensor:
    warn("UserWarning", "`nn.functional.upsample_nearest` is deprecated. Use `nn.functional.interpolate` instead.")
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input: Tensor, size: Any = None, scale_factor: Any = None) -> Tensor:
    warn("UserWarning", "`nn.functional.upsample_bilinear` is deprecated. Use `nn.functional.interpolate` instead.")
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)


__all__ = ["interpolate", "upsample", "upsample_nearest", "upsample_bilinear"]
