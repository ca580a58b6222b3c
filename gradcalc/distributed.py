"""torch.distributed as a single process without a process group sees it: the CPU build has it
(gloo), nothing is initialised, and whatever needs a group fails as PyTorch's does before
init_process_group. Starting a group would reach the network, so it never starts: without an
init_method it fails as env:// rendezvous does in an empty environment, which is a program's."""
from __future__ import annotations

from typing import Any, Callable

from .cuda import named

_NO_GROUP = "Default process group has not been initialized, please make sure to call init_process_group."


def _answer(value: Any) -> Callable[..., Any]:
    def answer(*args: Any, **kwargs: Any) -> Any:
        return value
    return answer


def _no_group(*args: Any, **kwargs: Any) -> Any:
    raise ValueError(_NO_GROUP)


def init_process_group(backend: Any = None, init_method: Any = None, *args: Any, **kwargs: Any) -> None:
    if init_method in (None, "env://"):
        raise ValueError("Error initializing torch.distributed using env:// rendezvous: environment variable RANK "
                         "expected, but not set")
    raise RuntimeError("gradcalc programs cannot start a process group: it reaches the network")


def destroy_process_group(group: Any = None) -> None:
    raise AssertionError("Process group cannot be None")


_BEHAVIOURS = {
    "is_available": _answer(True), "is_initialized": _answer(False), "is_nccl_available": _answer(False),
    "is_gloo_available": _answer(True), "is_mpi_available": _answer(False), "is_torchelastic_launched": _answer(False),
    **{name: _no_group for name in ("get_rank", "get_world_size", "get_backend", "barrier", "all_reduce", "all_gather",
                                     "broadcast", "reduce", "gather", "scatter", "reduce_scatter", "send", "recv",
                                     "new_group")},
}


def members() -> dict:
    """torch.distributed's functions, each a Python function of torch.distributed as PyTorch's are."""
    behaviours = dict(_BEHAVIOURS, init_process_group=init_process_group, destroy_process_group=destroy_process_group)
    return {name: named(name, behaviour, "torch.distributed") for name, behaviour in behaviours.items()}
