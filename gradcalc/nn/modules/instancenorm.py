"""Instance normalization: each sample's channels normalised over their own positions."""
from __future__ import annotations

from ...autograd.tensor import Tensor
from ...warnings import warn
from .. import functional as F
from .batchnorm import _LazyNormBase, _NormBase


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
        feature_dim = input.ndim - self._dims[0]
        if input.shape[feature_dim] != self.num_features:
            if self.affine:
                raise ValueError(f"expected input's size at dim={feature_dim} to match num_features "
                                 f"({self.num_features}), but got: {input.shape[feature_dim]}.")
            warn("UserWarning", f"input's size at dim={feature_dim} does not match num_features. You can silence this "
                                "warning by not passing in num_features, which is not used because affine=False")
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


class LazyInstanceNorm1d(_LazyNormBase, InstanceNorm1d):
    __module__ = "torch.nn.modules.instancenorm"
    cls_to_become = InstanceNorm1d


class LazyInstanceNorm2d(_LazyNormBase, InstanceNorm2d):
    __module__ = "torch.nn.modules.instancenorm"
    cls_to_become = InstanceNorm2d


class LazyInstanceNorm3d(_LazyNormBase, InstanceNorm3d):
    __module__ = "torch.nn.modules.instancenorm"
    cls_to_become = InstanceNorm3d
