"""torch.cuda and torch.random as a CPU-only PyTorch has them.

torch.cuda's seeding and memory queries answer quietly (they are lazy: nothing to seed, nothing
allocated); anything that needs a device fails as `torch.cuda._lazy_init` does, with an
AssertionError. Device-setting calls reach for a C binding the CPU build lacks (AttributeError).
"""
from __future__ import annotations

import contextlib
from typing import Any, Iterator, Optional

from .autograd import random
from .autograd.tensor import NO_CUDA_MESSAGE


def _no_cuda(*args: Any, **kwargs: Any) -> Any:
    raise AssertionError(NO_CUDA_MESSAGE)


def _missing_binding(binding: str) -> Any:
    def call(*args: Any, **kwargs: Any) -> Any:
        raise AttributeError(f"module 'torch._C' has no attribute '{binding}'")
    return call


def _none(*args: Any, **kwargs: Any) -> None:
    return None


def _zero(*args: Any, **kwargs: Any) -> int:
    return 0


def _false(*args: Any, **kwargs: Any) -> bool:
    return False


def _empty(*args: Any, **kwargs: Any) -> list:
    return []


# name -> behaviour, as PyTorch 2.13's CPU wheel answers each
_CUDA = {
    "is_available": _false, "is_initialized": _false, "is_bf16_supported": _false, "_is_compiled": _false,
    "device_count": _zero, "memory_allocated": _zero, "max_memory_allocated": _zero, "memory_reserved": _zero,
    "max_memory_reserved": _zero, "manual_seed": _none, "manual_seed_all": _none, "seed": _none,
    "seed_all": _none, "empty_cache": _none, "set_rng_state": _none, "set_rng_state_all": _none,
    "get_arch_list": _empty, "get_rng_state_all": _empty,
    "current_device": _no_cuda, "get_device_name": _no_cuda, "get_device_properties": _no_cuda,
    "get_device_capability": _no_cuda, "synchronize": _no_cuda, "get_rng_state": _no_cuda, "init": _no_cuda,
    "initial_seed": _no_cuda, "current_stream": _no_cuda, "mem_get_info": _no_cuda, "ipc_collect": _no_cuda,
    "set_device": _missing_binding("_cuda_setDevice"),
    "reset_peak_memory_stats": _missing_binding("_cuda_resetPeakMemoryStats"),
}


def named(name: str, behaviour: Any, module: str) -> Any:
    """`behaviour` as a Python function `module.name`, as PyTorch's own are (a closure: nothing of it shows)."""
    def function(*args: Any, **kwargs: Any) -> Any:
        return behaviour(*args, **kwargs)
    function.__name__ = function.__qualname__ = name
    function.__module__ = module
    return function


def cuda_members() -> dict:
    """torch.cuda's functions, each a Python function of torch.cuda as PyTorch's are."""
    return {name: named(name, behaviour, "torch.cuda") for name, behaviour in _CUDA.items()}


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
