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

    def __init__(self, module: Module, device_ids: Any = None, output_device: Any = None, dim: int = 0,
                 broadcast_buffers: Any = None, init_sync: bool = True, process_group: Any = None,
                 bucket_cap_mb: Any = None, find_unused_parameters: bool = False, check_reduction: bool = False,
                 gradient_as_bucket_view: bool = False, static_graph: bool = False,
                 delay_all_reduce_named_params: Any = None, param_to_hook_all_reduce: Any = None,
                 mixed_precision: Any = None, device_mesh: Any = None, skip_all_reduce_unused_params: bool = False,
                 bucket_cap_mb_list: Any = None, batched_grad_copy: bool = False,
                 forward_sync_buffers: Any = None) -> None:
        # torch's signature and first checks; no process group can be initialised here
        super().__init__()
        if (delay_all_reduce_named_params is not None) != (param_to_hook_all_reduce is not None):
            raise ValueError("delay_all_reduce_named_params and param_to_hook_all_reduce need to be set at the same "
                             "time.")
        if process_group and device_mesh is not None:
            raise RuntimeError("Cannot specify both process_group and device_mesh arguments.")
        raise ValueError("Default process group has not been initialized, please make sure to call "
                         "init_process_group.")


def data_parallel(module: Module, inputs: Any, device_ids: Any = None, output_device: Any = None, dim: int = 0,
                  module_kwargs: Any = None) -> Any:
    raise RuntimeError("device type could not be determined")


data_parallel.__module__ = "torch.nn.parallel.data_parallel"

__all__ = ["DataParallel", "DistributedDataParallel", "data_parallel"]
