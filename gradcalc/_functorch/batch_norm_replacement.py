"""torch.func.replace_all_batch_norm_modules_: batch norm without running statistics, which
vmap cannot update in place (see "Patching Batch Norm" in torch.func's docs)."""
from __future__ import annotations

from ..nn.modules.batchnorm import _BatchNorm
from ..nn.modules.module import Module

__all__ = ["replace_all_batch_norm_modules_"]


def _without_running_stats(module: Module) -> None:
    if isinstance(module, _BatchNorm) and module.track_running_stats:
        module.running_mean = None
        module.running_var = None
        module.num_batches_tracked = None
        module.track_running_stats = False


def replace_all_batch_norm_modules_(root: Module) -> Module:
    """In place: every batch norm module in `root` stops tracking running statistics."""
    _without_running_stats(root)
    for module in root.modules():
        _without_running_stats(module)
    return root


replace_all_batch_norm_modules_.__module__ = "torch._functorch.batch_norm_replacement"
