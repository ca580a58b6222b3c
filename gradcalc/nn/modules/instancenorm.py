"""Instance normalization: each sample's channels normalised over their own positions."""
from __future__ import annotations

from ...autograd.tensor import Tensor
from .. import functional as F
from .batchnorm import _NormBase


class _InstanceNorm(_NormBase):
    __module__ = "torch.nn.modules.instancenorm"
    _dims: tuple = ()

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float = 0.1, affine: bool = False,
                 track_running_stats: bool = False, device: object = None, dtype: object = None, *,
                 bias: bool = True) -> None:
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device, dtype, bias=bias)

    def forward(self, input: Tensor) -> Tensor:
        if input.ndim not in self._dims:
            raise ValueError(f"expected {self._dims[0]}D or {self._dims[1]}D input (got {input.ndim}D input)")
        unbatched = input.ndim == self._dims[0]
        if unbatched:
            input = input.unsqueeze(0)
        out = F.instance_norm(input, self.running_mean, self.running_var, self.weight, self.bias,
                              self.training or not self.track_running_stats, self.momentum if self.momentum is not None
                              else 0.0, self.eps)
        return out.squeeze(0) if unbatched else out


class InstanceNorm1d(_InstanceNorm):
    __module__ = "torch.nn.modules.instancenorm"
    _dims = (2, 3)


class InstanceNorm2d(_InstanceNorm):
    __module__ = "torch.nn.modules.instancenorm"
    _dims = (3, 4)


class InstanceNorm3d(_InstanceNorm):
    __module__ = "torch.nn.modules.instancenorm"
    _dims = (4, 5)
