"""The selection algorithms behind PyTorch's CPU topk and kthvalue, step for step: among equal
values, the index they return is the one these algorithms leave in place, not the first.

topk runs libstdc++'s std::nth_element and std::sort (or std::partial_sort for a small k), over
(value, index) pairs compared by value; kthvalue runs ATen's own median-of-three quickselect.
Values are compared through their ranks (nan above everything), so each comparison is one
integer comparison."""
from __future__ import annotations

from typing import Callable

import numpy as np

# libstdc++'s threshold below which std::sort finishes with insertion sort
_SORT_THRESHOLD = 16


def _ranks(row: np.ndarray) -> list:
    """Dense ranks of the values, nan ranked above every number."""
    if row.dtype.kind in "fc":
        nan = np.isnan(row)
        values = np.where(nan, 0, row)
    else:
        nan, values = np.zeros(row.shape, bool), row
    _, ranks = np.unique(values, return_inverse=True)
    return np.where(nan, ranks.max(initial=0) + 1, ranks).tolist()


def _tied_rows(rows: np.ndarray) -> np.ndarray:
    """Which rows hold a value twice (two nans included): only there can the algorithm's choice show."""
    if rows.shape[-1] < 2:
        return np.zeros(rows.shape[0], bool)
    ordered = np.sort(rows, axis=-1)
    same = ordered[:, 1:] == ordered[:, :-1]
    if rows.dtype.kind in "fc":
        same |= np.isnan(ordered[:, 1:]) & np.isnan(ordered[:, :-1])
    return same.any(axis=-1)


def by_rows(x: np.ndarray, dim: int, count: int, exact: Callable, plain: np.ndarray, always: bool = False) -> np.ndarray:
    """Indices along `dim` (`count` per row): `plain` (from a stable sort) where no row has a tie,
    `exact(row)` for the rows with ties (every row if `always`)."""
    if plain.size == 0:
        return plain
    moved = np.moveaxis(x, dim, -1)
    rows = moved.reshape(-1, moved.shape[-1])
    result = np.moveaxis(plain, dim, -1).reshape(-1, count).copy()
    for i in np.flatnonzero(np.ones(rows.shape[0], bool) if always else _tied_rows(rows)):
        result[i] = exact(rows[i])
    return np.moveaxis(result.reshape(moved.shape[:-1] + (count,)), -1, dim)


def topk_order(row: np.ndarray, k: int, largest: bool, sorted: bool) -> list:
    """The indices of the k values topk returns from one row, in its order."""
    ranks = _ranks(row)
    key = [-r for r in ranks] if largest else ranks
    queue = list(range(len(key)))

    def less(a: int, b: int) -> bool:
        return key[a] < key[b]

    if k == 0:
        return []
    if k * 64 <= len(queue):
        _heap_select(queue, 0, k, len(queue), less)
        _sort_heap(queue, 0, k, less)
    else:
        _nth_element(queue, k - 1, less)
        if sorted:
            _sort(queue, 0, k - 1, less)
    return queue[:k]


# ------------------------------------------------------------------ libstdc++ (bits/stl_algo.h, stl_heap.h)

def _nth_element(q: list, nth: int, less: Callable) -> None:
    first, last = 0, len(q)
    if first == last or nth == last:
        return
    depth = 2 * ((last - first).bit_length() - 1)
    while last - first > 3:
        if depth == 0:
            _heap_select(q, first, nth + 1, last, less)
            q[first], q[nth] = q[nth], q[first]
            return
        depth -= 1
        cut = _partition_pivot(q, first, last, less)
        if cut <= nth:
            first = cut
        else:
            last = cut
    _insertion_sort(q, first, last, less)


def _sort(q: list, first: int, last: int, less: Callable) -> None:
    if first == last:
        return
    _introsort_loop(q, first, last, 2 * ((last - first).bit_length() - 1), less)
    if last - first > _SORT_THRESHOLD:
        _insertion_sort(q, first, first + _SORT_THRESHOLD, less)
        for i in range(first + _SORT_THRESHOLD, last):
            _linear_insert(q, i, less)
    else:
        _insertion_sort(q, first, last, less)


def _introsort_loop(q: list, first: int, last: int, depth: int, less: Callable) -> None:
    while last - first > _SORT_THRESHOLD:
        if depth == 0:
            _heap_select(q, first, last, last, less)
            _sort_heap(q, first, last, less)
            return
        depth -= 1
        cut = _partition_pivot(q, first, last, less)
        _introsort_loop(q, cut, last, depth, less)
        last = cut


def _partition_pivot(q: list, first: int, last: int, less: Callable) -> int:
    mid = first + (last - first) // 2
    _median_to_first(q, first, first + 1, mid, last - 1, less)
    pivot, low, high = q[first], first + 1, last
    while True:
        while less(q[low], pivot):
            low += 1
        high -= 1
        while less(pivot, q[high]):
            high -= 1
        if not low < high:
            return low
        q[low], q[high] = q[high], q[low]
        low += 1


def _median_to_first(q: list, result: int, a: int, b: int, c: int, less: Callable) -> None:
    if less(q[a], q[b]):
        chosen = b if less(q[b], q[c]) else c if less(q[a], q[c]) else a
    elif less(q[a], q[c]):
        chosen = a
    elif less(q[b], q[c]):
        chosen = c
    else:
        chosen = b
    q[result], q[chosen] = q[chosen], q[result]


def _insertion_sort(q: list, first: int, last: int, less: Callable) -> None:
    for i in range(first + 1, last):
        if less(q[i], q[first]):
            q[first:i + 1] = [q[i]] + q[first:i]
        else:
            _linear_insert(q, i, less)


def _linear_insert(q: list, last: int, less: Callable) -> None:
    value = q[last]
    while less(value, q[last - 1]):
        q[last] = q[last - 1]
        last -= 1
    q[last] = value


def _heap_select(q: list, first: int, middle: int, last: int, less: Callable) -> None:
    length = middle - first
    if length >= 2:
        for parent in range((length - 2) // 2, -1, -1):
            _adjust_heap(q, first, parent, length, q[first + parent], less)
    for i in range(middle, last):
        if less(q[i], q[first]):
            value = q[i]
            q[i] = q[first]
            _adjust_heap(q, first, 0, length, value, less)


def _sort_heap(q: list, first: int, last: int, less: Callable) -> None:
    while last - first > 1:
        last -= 1
        value = q[last]
        q[last] = q[first]
        _adjust_heap(q, first, 0, last - first, value, less)


def _adjust_heap(q: list, first: int, hole: int, length: int, value: int, less: Callable) -> None:
    top = child = hole
    while child < (length - 1) // 2:
        child = 2 * (child + 1)
        if less(q[first + child], q[first + child - 1]):
            child -= 1
        q[first + hole] = q[first + child]
        hole = child
    if length % 2 == 0 and child == (length - 2) // 2:
        child = 2 * (child + 1)
        q[first + hole] = q[first + child - 1]
        hole = child - 1
    parent = (hole - 1) // 2
    while hole > top and less(q[first + parent], value):
        q[first + hole] = q[first + parent]
        hole = parent
        parent = (hole - 1) // 2
    q[first + hole] = value


# ------------------------------------------------------------------ ATen's quick_select_template

def kth_index(row: np.ndarray, k: int) -> int:
    """The index of the k-th smallest value (k from 0) that kthvalue picks from one row."""
    key = _ranks(row)
    q = list(range(len(key)))

    def greater(a: int, b: int) -> bool:
        return key[a] > key[b]

    low, high = 0, len(q) - 1
    while True:
        if high <= low:
            return q[k]
        if high == low + 1:
            if greater(q[low], q[high]):
                q[low], q[high] = q[high], q[low]
            return q[k]
        middle = low + (high - low) // 2
        q[middle], q[low + 1] = q[low + 1], q[middle]
        if greater(q[low + 1], q[high]):
            q[low + 1], q[high] = q[high], q[low + 1]
        if greater(q[low], q[high]):
            q[low], q[high] = q[high], q[low]
        if greater(q[low + 1], q[low]):
            q[low + 1], q[low] = q[low], q[low + 1]
        i, j, pivot = low + 1, high, q[low]
        while True:
            i += 1
            while greater(pivot, q[i]):
                i += 1
            j -= 1
            while greater(q[j], pivot):
                j -= 1
            if j < i:
                break
            q[i], q[j] = q[j], q[i]
        q[low], q[j] = q[j], q[low]
        if j <= k:
            low = i
        if j >= k:
            high = j - 1
