"""torch.cuda and torch.random as a CPU-only PyTorch has them.

torch.cuda's seeding and memory queries answer quietly (they are lazy: nothing to seed, nothing
allocated); anything that needs a device fails as `torch.cuda._lazy_init` does, with an
AssertionError. Device-setting calls reach for a C binding the CPU build lacks (AttributeError).
"""
from __future__ import annotations

import contextlib
from typing import Any, Iterator, Optional

from .autograd import random
from .autograd.tensor import NO_CUDA_MESSAGE, Device


def _no_cuda() -> Any:
    raise AssertionError(NO_CUDA_MESSAGE)


def _missing_binding(binding: str) -> Any:
    raise AttributeError(f"module 'torch._C' has no attribute '{binding}'")


def _set_device(device: Any) -> None:
    """torch.cuda.set_device: the device's index as torch.cuda._utils._get_device_index reads it,
    then, for an index from 0 on, the C binding the CPU build lacks."""
    if isinstance(device, str):
        device = Device(device)
    index = None
    if isinstance(device, Device):
        if device.type != "cuda":
            raise ValueError(f"Expected a cuda device, but got: {device}")
        index = device.index
    elif isinstance(device, int):
        index = device
    if index is None:
        raise ValueError(f"Expected a torch.device with a specified index or an integer, but got:{device}")
    if index >= 0:
        _missing_binding("_cuda_setDevice")


# name -> behaviour, as PyTorch 2.13's CPU wheel answers each, with the parameters of its Python
# function (a wrong call fails in Python's words about them first)
_CUDA = {
    "is_available": lambda: False, "is_initialized": lambda: False,
    "is_bf16_supported": lambda including_emulation=True: False, "_is_compiled": lambda: False,
    "device_count": lambda: 0, "memory_allocated": lambda device=None: 0, "max_memory_allocated": lambda device=None: 0,
    "memory_reserved": lambda device=None: 0, "max_memory_reserved": lambda device=None: 0,
    "manual_seed": lambda seed: None, "manual_seed_all": lambda seed: None, "seed": lambda: None,
    "seed_all": lambda: None, "empty_cache": lambda: None, "set_rng_state": lambda new_state, device="cuda": None,
    "set_rng_state_all": lambda new_states: None, "get_arch_list": lambda: [], "get_rng_state_all": lambda: [],
    "current_device": lambda: _no_cuda(), "get_device_name": lambda device=None: _no_cuda(),
    "get_device_properties": lambda device=None: _no_cuda(), "get_device_capability": lambda device=None: _no_cuda(),
    "synchronize": lambda device=None: _no_cuda(), "get_rng_state": lambda device="cuda": _no_cuda(),
    "init": lambda: _no_cuda(), "initial_seed": lambda: _no_cuda(), "current_stream": lambda device=None: _no_cuda(),
    "mem_get_info": lambda device=None: _no_cuda(), "ipc_collect": lambda: _no_cuda(),
    "set_device": lambda device: _set_device(device),
    "reset_peak_memory_stats": lambda device=None: _missing_binding("_cuda_resetPeakMemoryStats"),
}


for _name, _function in _CUDA.items():  # shown as the Python functions of torch.cuda PyTorch's are
    _function.__name__ = _function.__qualname__ = _name
    _function.__module__ = "torch.cuda"


def named(name: str, behaviour: Any, module: str) -> Any:
    """`behaviour` as a Python function `module.name`, as PyTorch's own are (a closure: nothing of it shows)."""
    def function(*args: Any, **kwargs: Any) -> Any:
        return behaviour(*args, **kwargs)
    function.__name__ = function.__qualname__ = name
    function.__module__ = module
    return function


def cuda_members() -> dict:
    """torch.cuda's functions."""
    return dict(_CUDA)


@contextlib.contextmanager
def fork_rng(devices: Optional[Any] = None, enabled: bool = True, _caller: str = "fork_rng",
             _devices_kw: str = "devices", device_type: Optional[str] = None) -> Iterator[None]:
    """torch.random.fork_rng: the CPU generator's state is put back on leaving (no CUDA devices to fork)."""
    if device_type == "meta" or not enabled:
        yield
        return
    if devices is not None:
        list(devices)  # as PyTorch, which walks the devices given (a generator is consumed)
    state = random.get_rng_state()
    try:
        yield
    finally:
        random.set_rng_state(state)


fork_rng.__module__ = "torch.random"


def random_members() -> dict:
    """torch.random's __all__ (thread_safe_generator answers None outside a DataLoader worker)."""
    def thread_safe_generator() -> None:
        return None
    thread_safe_generator.__module__ = "torch.random"
    return dict(set_rng_state=random.set_rng_state, get_rng_state=random.get_rng_state,
                manual_seed=random.manual_seed, seed=random.seed, initial_seed=random.initial_seed,
                fork_rng=fork_rng, thread_safe_generator=thread_safe_generator)
