"""Batch normalization with running statistics (buffers), momentum, affine and
track_running_stats, in training and evaluation modes, and the lazy forms."""
from __future__ import annotations

from typing import Any, Optional

import numpy as np

from ...autograd import dtypes, grad_mode
from ...autograd.ops.creation import allocated
from ...autograd.dtypes import DType
from ...autograd.tensor import Tensor
from .. import functional as F
from .. import init
from ..parameter import Parameter, UninitializedBuffer, UninitializedParameter
from .lazy import LazyModuleMixin
from .module import Module
from .utils import defined_in


class _NormBase(Module):
    __module__ = "torch.nn.modules.batchnorm"

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: Optional[float] = 0.1, affine: bool = True,
                 track_running_stats: bool = True, device: Any = None, dtype: Optional[DType] = None, *,
                 bias: bool = True) -> None:
        super().__init__()
        dtype = dtypes.get_default_dtype() if dtype is None else dtype
        self.num_features = num_features
        self.eps = eps
        self.momentum = momentum
        self.affine = affine
        self.track_running_stats = track_running_stats
        if affine:
            self.weight = Parameter(allocated(num_features, dtype, 1.0))
            if bias:
                self.bias = Parameter(allocated(num_features, dtype, 0.0))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        if track_running_stats:
            self.register_buffer("running_mean", allocated(num_features, dtype, 0.0, "zeros"))
            self.register_buffer("running_var", allocated(num_features, dtype, 1.0, "ones"))
            self.register_buffer("num_batches_tracked", Tensor._make(np.zeros((), np.int64), dtypes.int64))
        else:
            self.register_buffer("running_mean", None)
            self.register_buffer("running_var", None)
            self.register_buffer("num_batches_tracked", None)
        self.reset_parameters()

    def reset_running_stats(self) -> None:
        if self.track_running_stats:
            with grad_mode.no_grad():
                self.running_mean.zero_()
                self.running_var.fill_(1)
                self.num_batches_tracked.zero_()

    def reset_parameters(self) -> None:
        self.reset_running_stats()
        if self.affine:
            init.ones_(self.weight)
            if self.bias is not None:
                init.zeros_(self.bias)

    def extra_repr(self) -> str:
        return (f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, affine={self.affine}, "
                f"bias={self.bias is not None}, track_running_stats={self.track_running_stats}")


class _BatchNorm(_NormBase):
    __module__ = "torch.nn.modules.batchnorm"
    _dims: tuple = ()
    __init__ = defined_in("_BatchNorm", _NormBase.__init__)  # torch's own, which a wrong call's error names

    def _check_input_dim(self, input: Tensor) -> None:
        if input.ndim not in self._dims:
            expected = " or ".join(f"{d}D" for d in self._dims)
            raise ValueError(f"expected {expected} input (got {input.ndim}D input)")

    def forward(self, input: Tensor) -> Tensor:
        self._check_input_dim(input)
        factor = 0.0 if self.momentum is None else self.momentum
        if self.training and self.track_running_stats and self.num_batches_tracked is not None:
            with grad_mode.no_grad():
                self.num_batches_tracked.add_(1)
            factor = 1.0 / float(self.num_batches_tracked) if self.momentum is None else self.momentum
        bn_training = self.training or (self.running_mean is None and self.running_var is None)
        use_stats = not self.training or self.track_running_stats
        return F.batch_norm(input, self.running_mean if use_stats else None,
                            self.running_var if use_stats else None, self.weight, self.bias, bn_training, factor,
                            self.eps)


class BatchNorm1d(_BatchNorm):
    __module__ = "torch.nn.modules.batchnorm"
    _dims = (2, 3)


class BatchNorm2d(_BatchNorm):
    __module__ = "torch.nn.modules.batchnorm"
    _dims = (4,)


class BatchNorm3d(_BatchNorm):
    __module__ = "torch.nn.modules.batchnorm"
    _dims = (5,)


class _LazyNormBase(LazyModuleMixin):
    """Lazy batch and instance norms: num_features is the input's dim 1 at the first call."""

    __module__ = "torch.nn.modules.batchnorm"

    def __init__(self, eps: float = 1e-5, momentum: Optional[float] = 0.1, affine: bool = True,
                 track_running_stats: bool = True, device: Any = None, dtype: Optional[DType] = None, *,
                 bias: bool = True) -> None:
        type(self).cls_to_become.__init__(self, 0, eps, momentum, False, False)
        self.affine = affine
        self.track_running_stats = track_running_stats
        dtype = dtypes.get_default_dtype() if dtype is None else dtype
        if affine:
            self.weight = UninitializedParameter(dtype=dtype)
            if bias:
                self.bias = UninitializedParameter(dtype=dtype)
        if track_running_stats:
            self.running_mean = UninitializedBuffer(dtype=dtype)
            self.running_var = UninitializedBuffer(dtype=dtype)
            self._buffers["num_batches_tracked"] = Tensor._make(np.zeros((), np.int64), dtypes.int64)

    def reset_parameters(self) -> None:
        if not self.has_uninitialized_params() and self.num_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input: Tensor, *args: Any) -> None:
        if not self.has_uninitialized_params():
            return
        self.num_features = input.shape[1]
        dtype = input.dtype
        if self.affine:
            self.weight = self.weight.materialize((self.num_features,))
            if self.bias is not None:
                self.bias = self.bias.materialize((self.num_features,))
        if self.track_running_stats:
            self._buffers["running_mean"] = allocated((self.num_features,), dtype, 0.0)
            self._buffers["running_var"] = allocated((self.num_features,), dtype, 1.0)
        self.reset_parameters()


class LazyBatchNorm1d(_LazyNormBase, BatchNorm1d):
    __module__ = "torch.nn.modules.batchnorm"
    cls_to_become = BatchNorm1d


class LazyBatchNorm2d(_LazyNormBase, BatchNorm2d):
    __module__ = "torch.nn.modules.batchnorm"
    cls_to_become = BatchNorm2d


class LazyBatchNorm3d(_LazyNormBase, BatchNorm3d):
    __module__ = "torch.nn.modules.batchnorm"
    cls_to_become = BatchNorm3d


class SyncBatchNorm(_BatchNorm):
    """Batch norm synchronised across processes; with no process group running (a CPU program)
    it is the plain batch norm over inputs of any rank from 2 up, as in torch."""

    __module__ = "torch.nn.modules.batchnorm"

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: Optional[float] = 0.1, affine: bool = True,
                 track_running_stats: bool = True, process_group: Any = None, device: Any = None,
                 dtype: Optional[DType] = None, *, bias: bool = True) -> None:
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device, dtype, bias=bias)
        self.process_group = process_group

    def _check_input_dim(self, input: Tensor) -> None:
        if input.ndim < 2:
            raise ValueError(f"expected at least 2D input (got {input.ndim}D input)")
        if input.shape[1] == 0:
            raise ValueError("SyncBatchNorm number of input channels should be non-zero")

    @classmethod
    def convert_sync_batchnorm(cls, module: Module, process_group: Any = None) -> Module:
        """`module` with each batch norm in it replaced by a SyncBatchNorm sharing its parameters and statistics."""
        converted = module
        if isinstance(module, _BatchNorm):
            converted = SyncBatchNorm(module.num_features, module.eps, module.momentum, module.affine,
                                      module.track_running_stats, process_group, bias=module.bias is not None)
            if module.affine:
                with grad_mode.no_grad():
                    converted.weight = module.weight
                    converted.bias = module.bias
            converted.running_mean = module.running_mean
            converted.running_var = module.running_var
            converted.num_batches_tracked = module.num_batches_tracked
            converted.training = module.training
        for name, child in module.named_children():
            converted.add_module(name, cls.convert_sync_batchnorm(child, process_group))
        return converted
