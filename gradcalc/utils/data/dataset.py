"""torch.utils.data.dataset: map-style and iterable datasets, their combinations, Subset and
random_split (whose permutation comes from torch.randperm, as PyTorch's)."""
from __future__ import annotations

import bisect
import itertools
import math
from typing import Any, Iterable, Iterator, Optional, Sequence

from ...autograd import random as rng
from ...autograd.ops import creation
from ...autograd.tensor import Tensor
from ...torch_code import copied_from_torch
from ...warnings import warn

__all__ = ["Dataset", "IterableDataset", "TensorDataset", "StackDataset", "ConcatDataset", "ChainDataset", "Subset",
           "random_split"]


class Dataset:
    """A map from keys to samples: a program's class defines __getitem__ (and usually __len__)."""

    __module__ = "torch.utils.data.dataset"

    def __class_getitem__(cls, item: Any) -> type:
        return cls  # Dataset[int]: PyTorch's generic parameter, which changes nothing

    def __getitem__(self, index: Any) -> Any:
        raise NotImplementedError("Subclasses of Dataset should implement __getitem__.")

    def __add__(self, other: "Dataset") -> "ConcatDataset":
        return ConcatDataset([self, other])


class IterableDataset(Dataset):
    """A stream of samples: a program's class defines __iter__."""

    __module__ = "torch.utils.data.dataset"

    def __iter__(self) -> Iterator:
        raise NotImplementedError("Subclasses of IterableDataset should implement __iter__.")

    def __add__(self, other: Dataset) -> "ChainDataset":  # type: ignore[override]
        return ChainDataset([self, other])


class TensorDataset(Dataset):
    __module__ = "torch.utils.data.dataset"

    def __init__(self, *tensors: Tensor) -> None:
        if any(tensors[0].size(0) != tensor.size(0) for tensor in tensors):
            raise AssertionError("Size mismatch between tensors")
        self.tensors = tensors

    def __getitem__(self, index: Any) -> tuple:
        return tuple(tensor[index] for tensor in self.tensors)

    @copied_from_torch
    def __len__(self) -> int:
        return self.tensors[0].size(0)


def _same_lengths(datasets: Sequence) -> int:
    length = len(datasets[0])
    if any(length != len(dataset) for dataset in datasets):
        raise ValueError("Size mismatch between datasets")
    return length


class StackDataset(Dataset):
    __module__ = "torch.utils.data.dataset"

    def __init__(self, *args: Dataset, **kwargs: Dataset) -> None:
        if args:
            if kwargs:
                raise ValueError("Supported either ``tuple``- (via ``args``) or``dict``- (via ``kwargs``) like "
                                 "input/output, but both types are given.")
            self._length = _same_lengths(args)
            self.datasets: Any = args
        elif kwargs:
            self._length = _same_lengths(list(kwargs.values()))
            self.datasets = kwargs
        else:
            raise ValueError("At least one dataset should be passed")

    def __getitem__(self, index: Any) -> Any:
        if isinstance(self.datasets, dict):
            return {key: dataset[index] for key, dataset in self.datasets.items()}
        return tuple(dataset[index] for dataset in self.datasets)

    def __len__(self) -> int:
        return self._length


class ConcatDataset(Dataset):
    __module__ = "torch.utils.data.dataset"

    @staticmethod
    def cumsum(sequence: Iterable) -> list:
        return list(itertools.accumulate(len(e) for e in sequence))

    def __init__(self, datasets: Iterable[Dataset]) -> None:
        self.datasets = list(datasets)
        if len(self.datasets) == 0:
            raise AssertionError("datasets should not be an empty iterable")
        for dataset in self.datasets:
            if isinstance(dataset, IterableDataset):
                raise AssertionError("ConcatDataset does not support IterableDataset")
        self.cumulative_sizes = self.cumsum(self.datasets)

    def __len__(self) -> int:
        return self.cumulative_sizes[-1]

    def __getitem__(self, idx: int) -> Any:
        if idx < 0:
            if -idx > len(self):
                raise ValueError("absolute value of index should not exceed dataset length")
            idx = len(self) + idx
        dataset_idx = bisect.bisect_right(self.cumulative_sizes, idx)
        sample_idx = idx if dataset_idx == 0 else idx - self.cumulative_sizes[dataset_idx - 1]
        return self.datasets[dataset_idx][sample_idx]


class ChainDataset(IterableDataset):
    __module__ = "torch.utils.data.dataset"

    def __init__(self, datasets: Iterable[Dataset]) -> None:
        self.datasets = datasets

    def __iter__(self) -> Iterator:
        for dataset in self.datasets:
            if not isinstance(dataset, IterableDataset):
                raise AssertionError("ChainDataset only supports IterableDataset")
            yield from dataset

    def __len__(self) -> int:
        total = 0
        for dataset in self.datasets:
            if not isinstance(dataset, IterableDataset):
                raise AssertionError("ChainDataset only supports IterableDataset")
            total += len(dataset)
        return total


class Subset(Dataset):
    __module__ = "torch.utils.data.dataset"

    def __init__(self, dataset: Dataset, indices: Sequence[int]) -> None:
        self.dataset = dataset
        self.indices = indices

    def __getitem__(self, idx: Any) -> Any:
        if isinstance(idx, list):
            return self.dataset[[self.indices[i] for i in idx]]
        return self.dataset[self.indices[idx]]

    def __len__(self) -> int:
        return len(self.indices)


def random_split(dataset: Dataset, lengths: Sequence, generator: Optional[rng.Generator] = None) -> list:
    """Non-overlapping Subsets of the given lengths (or fractions), from one torch.randperm."""
    if math.isclose(sum(lengths), 1) and sum(lengths) <= 1:
        subset_lengths: list = []
        for index, fraction in enumerate(lengths):
            if fraction < 0 or fraction > 1:
                raise ValueError(f"Fraction at index {index} is not between 0 and 1")
            subset_lengths.append(math.floor(len(dataset) * fraction))
        remainder = len(dataset) - sum(subset_lengths)
        for index in range(remainder):
            subset_lengths[index % len(subset_lengths)] += 1
        lengths = subset_lengths
        for index, length in enumerate(lengths):
            if length == 0:
                warn("UserWarning", f"Length of split at index {index} is 0. This might result in an empty dataset.")
    if sum(lengths) != len(dataset):
        raise ValueError("Sum of input lengths does not equal the length of the input dataset!")
    indices = creation.randperm(sum(lengths), generator=generator).tolist()
    return [Subset(dataset, indices[offset - length:offset])
            for offset, length in zip(itertools.accumulate(lengths), lengths)]


random_split.__module__ = "torch.utils.data.dataset"
