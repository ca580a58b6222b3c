"""torch.nn.parallel on a CPU-only build: DataParallel runs its module itself; programs meet
DistributedDataParallel as the class their `isinstance` checks and `de_parallel` helpers name,
and constructing it fails for want of a process group, as PyTorch's does without
`init_process_group`; `data_parallel` finds no device type."""
from __future__ import annotations

from typing import Any

from .modules.container import DataParallel
from .modules.module import Module


class DistributedDataParallel(Module):
    __module__ = "torch.nn.parallel.distributed"

    def __init__(self, module: Module, *args: Any, **kwargs: Any) -> None:
        raise ValueError("Default process group has not been initialized, please make sure to call "
                         "init_process_group.")


def data_parallel(module: Module, inputs: Any, device_ids: Any = None, output_device: Any = None, dim: int = 0,
                  module_kwargs: Any = None) -> Any:
    raise RuntimeError("device type could not be determined")


data_parallel.__module__ = "torch.nn.parallel.data_parallel"

__all__ = ["DataParallel", "DistributedDataParallel", "data_parallel"]
