"""torch.utils.data.dataloader: DataLoader, iterated in the program's own process.

Each iteration draws the workers' base seed from the global generator (or `generator=`) as
PyTorch's does, before the sampler's first draw, so a shuffled loader gives PyTorch's order and
leaves the generator where PyTorch leaves it. `num_workers > 0` is accepted and runs in-process
with PyTorch's division of the work: batch k is fetched by worker k % num_workers, each worker
draws from its own generator seeded with base_seed + worker_id, and `get_worker_info()` inside a
dataset describes the worker (an IterableDataset is iterated once per worker, as PyTorch does).
"""
from __future__ import annotations

import math
import os
from typing import Any, Callable, Iterator, Optional

from ...autograd import random as rng
from ...warnings import warn
from ._utils.collate import default_collate, default_convert
from .dataset import IterableDataset
from .sampler import BatchSampler, RandomSampler, Sampler, SequentialSampler, random_seed

__all__ = ["DataLoader", "get_worker_info", "default_collate", "default_convert"]


class WorkerInfo:
    """What get_worker_info() gives inside a worker: its id, the number of workers, its seed."""

    __module__ = "torch.utils.data._utils.worker"

    def __init__(self, id: int, num_workers: int, seed: int, dataset: Any) -> None:
        self.id, self.num_workers, self.seed, self.dataset = id, num_workers, seed, dataset

    def __repr__(self) -> str:
        return (f"WorkerInfo(id={self.id}, num_workers={self.num_workers}, seed={self.seed}, "
                f"dataset={self.dataset!r})")


_current_worker: list = [None]  # the WorkerInfo of the worker whose work runs now, if any


def get_worker_info() -> Optional[WorkerInfo]:
    return _current_worker[0]


get_worker_info.__module__ = "torch.utils.data._utils.worker"


class _InfiniteConstantSampler(Sampler):
    """The sampler of an IterableDataset: no keys, as many as it takes."""

    def __iter__(self) -> Iterator:
        while True:
            yield None


class DataLoader:
    __module__ = "torch.utils.data.dataloader"
    _initialized = False

    def __init__(self, dataset: Any, batch_size: Optional[int] = 1, shuffle: Optional[bool] = None,
                 sampler: Any = None, batch_sampler: Any = None, num_workers: int = 0,
                 collate_fn: Optional[Callable] = None, pin_memory: bool = False, drop_last: bool = False,
                 timeout: float = 0, worker_init_fn: Optional[Callable] = None, multiprocessing_context: Any = None,
                 generator: Optional[rng.Generator] = None, *, prefetch_factor: Optional[int] = None,
                 persistent_workers: bool = False, pin_memory_device: str = "", in_order: bool = True) -> None:
        if num_workers < 0:
            raise ValueError("num_workers option should be non-negative; use num_workers=0 to disable "
                             "multiprocessing.")
        if timeout < 0:
            raise ValueError("timeout option should be non-negative")
        if num_workers == 0 and prefetch_factor is not None:
            raise ValueError("prefetch_factor option could only be specified in multiprocessing.let num_workers > 0 "
                             "to enable multiprocessing, otherwise set prefetch_factor to None.")
        if num_workers > 0 and prefetch_factor is None:
            prefetch_factor = 2
        elif prefetch_factor is not None and prefetch_factor < 0:
            raise ValueError("prefetch_factor option should be non-negative")
        if persistent_workers and num_workers == 0:
            raise ValueError("persistent_workers option needs num_workers > 0")
        self.dataset = dataset
        self.num_workers = num_workers
        self.prefetch_factor = prefetch_factor
        self.pin_memory = pin_memory
        self.pin_memory_device = pin_memory_device
        self.timeout = timeout
        self.worker_init_fn = worker_init_fn
        self.multiprocessing_context = multiprocessing_context
        self.in_order = in_order
        self._iterable = isinstance(dataset, IterableDataset)
        if self._iterable:
            if shuffle not in {False, None}:
                raise ValueError("DataLoader with IterableDataset: expected unspecified shuffle option, but got "
                                 f"shuffle={shuffle}")
            if sampler is not None:
                raise ValueError("DataLoader with IterableDataset: expected unspecified sampler option, but got "
                                 f"sampler={sampler}")
            if batch_sampler is not None:
                raise ValueError("DataLoader with IterableDataset: expected unspecified batch_sampler option, but "
                                 f"got batch_sampler={batch_sampler}")
        else:
            shuffle = bool(shuffle)
        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError("batch_sampler option is mutually exclusive with batch_size, shuffle, sampler, and "
                                 "drop_last")
            batch_size = None
            drop_last = False
        elif batch_size is None and drop_last:
            raise ValueError("batch_size=None option disables auto-batching and is mutually exclusive with drop_last")
        if sampler is None:
            if self._iterable:
                sampler = _InfiniteConstantSampler()
            elif shuffle:
                sampler = RandomSampler(dataset, generator=generator)
            else:
                sampler = SequentialSampler(dataset)
        if batch_size is not None and batch_sampler is None:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)
        self.batch_size = batch_size
        self.drop_last = drop_last
        self.sampler = sampler
        self.batch_sampler = batch_sampler
        self.generator = generator
        if collate_fn is None:
            collate_fn = default_collate if self._auto_collation else default_convert
        self.collate_fn = collate_fn
        self.persistent_workers = persistent_workers
        self._IterableDataset_len_called: Optional[int] = None
        self._initialized = True
        self.check_worker_number_rationality()

    def check_worker_number_rationality(self) -> None:
        """PyTorch's warning when more workers are asked for than this machine's CPUs that the
        process may use (their count as torch._utils.cpu_count reads it)."""
        if not self.num_workers or self.num_workers == 0:
            return
        available = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
        if available is None or self.num_workers > available:
            suggested = ("DataLoader is not able to compute a suggested max number of worker in current system."
                         if available is None else
                         f"Our suggested max number of worker in current system is {available}"
                         f"{'' if hasattr(os, 'sched_getaffinity') else ' (`cpuset` is not taken into account)'}, "
                         "which is smaller than what this DataLoader is going to create.")
            warn("UserWarning", f"This DataLoader will create {self.num_workers} worker processes in total. "
                                f"{suggested} Please be aware that excessive worker creation might get DataLoader "
                                "running slow or even freeze, lower the worker number to avoid potential "
                                "slowness/freeze if necessary.")

    def __setattr__(self, attr: str, val: Any) -> None:
        if self._initialized and attr in ("batch_size", "batch_sampler", "sampler", "drop_last", "dataset",
                                          "persistent_workers"):
            raise ValueError(f"{attr} attribute should not be set after {type(self).__name__} is initialized")
        super().__setattr__(attr, val)

    def __iter__(self) -> "_BaseDataLoaderIter":
        if self.num_workers == 0:
            return _SingleProcessDataLoaderIter(self)
        self.check_worker_number_rationality()
        return _MultiProcessingDataLoaderIter(self)

    @property
    def _auto_collation(self) -> bool:
        return self.batch_sampler is not None

    @property
    def _index_sampler(self) -> Any:
        return self.batch_sampler if self._auto_collation else self.sampler

    def __len__(self) -> int:
        if self._iterable:
            length = self._IterableDataset_len_called = len(self.dataset)
            if self.batch_size is not None:
                length = length // self.batch_size if self.drop_last else math.ceil(length / self.batch_size)
            return length
        return len(self._index_sampler)


class _Fetcher:
    """PyTorch's dataset fetchers: the samples of a key (or of a batch of keys), collated."""

    def __init__(self, loader: DataLoader, stream: Optional[Iterator]) -> None:
        self.dataset = loader.dataset
        self.auto_collation = loader._auto_collation
        self.collate_fn = loader.collate_fn
        self.drop_last = loader.drop_last
        self.stream = stream  # an IterableDataset's iterator
        self.ended = False

    def fetch(self, index: Any) -> Any:
        if self.stream is None:
            if self.auto_collation:
                return self.collate_fn([self.dataset[key] for key in index])
            return self.collate_fn(self.dataset[index])
        if self.ended:
            raise StopIteration
        if not self.auto_collation:
            return self.collate_fn(next(self.stream))
        data = []
        for _ in index:
            try:
                data.append(next(self.stream))
            except StopIteration:
                self.ended = True
                break
        if len(data) == 0 or (self.drop_last and len(data) < len(index)):
            raise StopIteration
        return self.collate_fn(data)


class _Worker:
    """One worker's part of the work: its generator and its fetcher."""

    def __init__(self, loader: DataLoader, worker_id: int, base_seed: int) -> None:
        seed = base_seed + worker_id
        self.info = WorkerInfo(worker_id, loader.num_workers, seed, loader.dataset)
        self.generator = rng.Generator._seeded(seed)
        self.ended = False
        if loader.worker_init_fn is not None:
            self.run(loader.worker_init_fn, worker_id)
        self.fetcher = _Fetcher(loader, self.run(iter, loader.dataset) if loader._iterable else None)

    def run(self, work: Callable, *args: Any) -> Any:
        """`work(*args)` as inside the worker: its generator is the global one, its info is known."""
        _swap_states(rng.default_generator, self.generator)
        _current_worker[0] = self.info
        try:
            return work(*args)
        finally:
            _current_worker[0] = None
            _swap_states(rng.default_generator, self.generator)


def _swap_states(a: rng.Generator, b: rng.Generator) -> None:
    # a generator's whole state lives in its instance dict: swapping the dicts swaps the streams
    a.__dict__, b.__dict__ = b.__dict__, a.__dict__


class _BaseDataLoaderIter:
    """The iterator of one pass over a DataLoader."""

    __module__ = "torch.utils.data.dataloader"
    _single_process = False

    def __init__(self, loader: DataLoader) -> None:
        self._loader = loader
        self._index_sampler = loader._index_sampler
        self._IterableDataset_len_called = loader._IterableDataset_len_called
        if loader.pin_memory:
            warn("UserWarning", "'pin_memory' argument is set as true but no accelerator is found, then device "
                                "pinned memory won't be used.")
        self._sampler_iter = iter(self._index_sampler)
        base_seed = random_seed(loader.generator)
        self._check_workers(loader)
        # a number equal to 0 (0.0, False) chose the single-process pass, which has no workers
        workers = 0 if self._single_process else loader.num_workers
        self._workers = [_Worker(loader, worker_id, base_seed) for worker_id in range(workers)]
        self._next_worker = 0
        stream = iter(loader.dataset) if loader._iterable and not self._workers else None
        self._fetcher = _Fetcher(loader, stream)
        self._num_yielded = 0

    def _check_workers(self, loader: DataLoader) -> None:
        """The checks of a pass with workers, before any starts."""

    def __iter__(self) -> "_BaseDataLoaderIter":
        return self

    def __len__(self) -> int:
        return len(self._index_sampler)

    def __next__(self) -> Any:
        data = self._next_data()
        self._num_yielded += 1
        if (self._loader._iterable and self._IterableDataset_len_called is not None
                and self._num_yielded > self._IterableDataset_len_called):
            warn("UserWarning", f"Length of IterableDataset {self._loader.dataset} was reported to be "
                                f"{self._IterableDataset_len_called}(when accessing len(dataloader)), but "
                                f"{self._num_yielded} samples have been fetched. ")
        return data

    def _next_data(self) -> Any:
        index = next(self._sampler_iter)
        if not self._workers:
            return self._fetcher.fetch(index)
        while not all(worker.ended for worker in self._workers):
            worker = self._workers[self._next_worker % len(self._workers)]
            self._next_worker += 1
            if worker.ended:
                continue
            try:
                return worker.run(worker.fetcher.fetch, index)
            except StopIteration:
                if not self._loader._iterable:
                    raise
                worker.ended = True  # its stream has ended: the others go on
        raise StopIteration


class _SingleProcessDataLoaderIter(_BaseDataLoaderIter):
    """A pass with num_workers=0."""

    __module__ = "torch.utils.data.dataloader"
    _single_process = True


class _MultiProcessingDataLoaderIter(_BaseDataLoaderIter):
    """A pass with workers (their work done in-process, in PyTorch's order)."""

    __module__ = "torch.utils.data.dataloader"

    def _check_workers(self, loader: DataLoader) -> None:
        # PyTorch's __init__ (a count like nan passes the DataLoader's own checks, and leaves no
        # prefetch_factor: `None <= 0` is the TypeError)
        if loader.num_workers <= 0:
            raise AssertionError("num_workers must be greater than 0 for MultiProcessingDataLoaderIter")
        if loader.prefetch_factor <= 0:
            raise AssertionError("prefetch_factor must be greater than 0 for MultiProcessingDataLoaderIter")
        self._shutdown = False

    def _shutdown_workers(self) -> None:
        if not self._shutdown:  # (its workers run in-process: only the flag is left to set)
            self._shutdown = True

    def __del__(self) -> None:
        # as PyTorch's: an iterator whose __init__ failed before setting `_shutdown` reports the
        # AttributeError as ignored, when it is collected
        self._shutdown_workers()
