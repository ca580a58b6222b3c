"""Embedding lookups: rows of a weight picked by integer indices (EmbeddingBackward0), and the
in-place renormalisation that max_norm asks for."""
from __future__ import annotations

from typing import Any, Callable, Optional

import numpy as np

from .. import dtypes, grad_mode
from ..engine import run_backward
from ..forward_mode import unsupported
from ..tensor import Tensor
from .common import shape_text, zeros
from .registry import node, op, record


def _embedding_grad(grad: Tensor, indices: Tensor, weight_sym_argsize_0: int, padding_idx: int,
                    scale_grad_by_freq: bool) -> Tensor:
    flat = indices._data.reshape(-1)
    rows = grad.reshape(-1, grad.shape[-1])
    keep = flat != padding_idx
    if scale_grad_by_freq:
        counts = np.bincount(flat, minlength=weight_sym_argsize_0)[flat]
        keep = keep / counts
    if not np.all(keep == 1):
        rows = rows * Tensor._make(np.asarray(keep, dtype=grad._dtype._numpy)[:, None], grad._dtype)
    index = Tensor._make(flat.astype(np.int64), dtypes.int64)
    return zeros((weight_sym_argsize_0, grad.shape[-1]), dtype=grad.dtype).index_add(0, index, rows)


EMBEDDING = node("EmbeddingBackward0", ("weight",), saved_tensors=("indices",), saved=("sparse",),
                 weight=lambda grad, indices, weight_sym_argsize_0, padding_idx, scale_grad_by_freq: _embedding_grad(
                     grad, indices, weight_sym_argsize_0, padding_idx, scale_grad_by_freq))


def _check_indices(indices: Tensor, name: str, position: int = 1) -> None:
    if indices._dtype not in (dtypes.int64, dtypes.int32):
        raise RuntimeError(f"Expected tensor for argument #{position} 'indices' to have one of the following scalar types: "
                           f"Long, Int; but got {dtypes.legacy_type_name(indices._dtype)} instead (while checking "
                           f"arguments for {name})")


@op(nodes=(EMBEDDING,), method=False)
def embedding(weight: Tensor, indices: Tensor, padding_idx: int = -1, scale_grad_by_freq: bool = False,
              sparse: bool = False) -> Tensor:
    _check_indices(indices, "embedding")
    if weight.ndim != 2:
        raise RuntimeError("'weight' must be 2-D")
    rows = indices._data
    if rows.size and (rows.min() < 0 or rows.max() >= weight.shape[0]):
        raise IndexError("index out of range in self")
    data = weight._data[rows]
    return record(EMBEDDING, (weight,), data, weight._dtype, indices=indices, padding_idx=padding_idx,
                  scale_grad_by_freq=scale_grad_by_freq, sparse=sparse, weight_sym_argsize_0=weight.shape[0])


def embedding_renorm_(input: Tensor, indices: Tensor, max_norm: float, norm_type: float) -> Tensor:
    """Rows of `input` picked by `indices` whose norm passes max_norm scaled down to it, in place."""
    _check_indices(indices, "embedding_renorm_", 2)
    rows = np.unique(indices._data.reshape(-1))  # (in order: ATen selects each row, and stops at a bad one)
    size = input.shape[0] if input.ndim else 0
    bad = np.flatnonzero((rows < -size) | (rows >= size))
    failure = None
    if bad.size:
        failure = IndexError(f"select(): index {int(rows[bad[0]])} out of range for tensor of size "
                             f"{shape_text(input.shape)} at dimension 0")
        rows = rows[:bad[0]]
    _renorm_rows(input, rows % max(size, 1), max_norm, norm_type)
    if failure is not None:
        raise failure
    return input


def _renorm_rows(input: Tensor, rows: np.ndarray, max_norm: float, norm_type: float) -> None:
    with grad_mode.no_grad():
        data = input._data
        picked = data[rows].astype(np.float64)
        norms = np.linalg.norm(picked, ord=norm_type, axis=1) if norm_type != 2 else np.sqrt((picked ** 2).sum(1))
        scale = np.where(norms > max_norm, max_norm / (norms + 1e-7), 1.0)
        data[rows] = (data[rows] * scale[:, None].astype(data.dtype)).astype(data.dtype)
        input._vc.value += 1


class _BagGraph:
    """embedding_bag's bags computed from embedding lookups and reductions on stand-ins of the
    weight and the per-sample weights, kept in its one grad_fn: the node's backward is that graph's."""

    __slots__ = ("leaves", "output", "_grad", "_results")

    def __init__(self, leaves: list, output: Tensor) -> None:
        self.leaves = leaves
        self.output = output
        self._grad: Any = None
        self._results: list = []

    def gradient(self, grad: Tensor, index: int) -> Optional[Tensor]:
        if grad is not self._grad:  # the first input asking in this backward: both at once
            self._grad = grad
            wanted = [t for t in self.leaves if t is not None and t.requires_grad]
            found = iter(run_backward([self.output], [grad.detach()], retain_graph=True, create_graph=False,
                                      inputs=wanted, accumulate=False))
            self._results = [next(found) if t is not None and t.requires_grad else None for t in self.leaves]
        return self._results[index]


EMBEDDING_BAG = node(
    "EmbeddingBagBackward0", ("weight", "per_sample_weights"), saved_tensors=("indices", "offsets", "_bags"),
    jvp=unsupported("_embedding_bag"),
    saved=("indices", "mode", "offsets", "padding_idx", "scale_grad_by_freq", "sparse", "weight_sym_argsize_0"),
    weight=lambda grad, _bags: _bags.gradient(grad, 0),
    per_sample_weights=lambda grad, _bags: _bags.gradient(grad, 1))


def embedding_bag_node(bags: Callable, weight: Tensor, per_sample_weights: Optional[Tensor], indices: Tensor,
                       offsets: Tensor, mode: int, padding_idx: Optional[int], scale_grad_by_freq: bool,
                       sparse: bool) -> Tensor:
    """embedding_bag's result with PyTorch's one node (EmbeddingBagBackward0): `bags(weight,
    per_sample_weights)` computes it."""
    inputs = [weight, per_sample_weights]
    if not (grad_mode.is_grad_enabled() and any(t is not None and t.requires_grad for t in inputs)):
        return bags(weight, per_sample_weights)
    leaves = [None if t is None else t.detach()._set_requires_grad(t.requires_grad) for t in inputs]
    with grad_mode.enable_grad():
        output = bags(*leaves)
    placeholder = per_sample_weights if per_sample_weights is not None else zeros((0,), dtype=weight.dtype)
    return record(EMBEDDING_BAG, (weight, placeholder), output._data, output._dtype, _bags=_BagGraph(leaves, output),
                  indices=indices.reshape(-1), offsets=offsets, mode=mode,
                  padding_idx=-1 if padding_idx is None else padding_idx, scale_grad_by_freq=scale_grad_by_freq,
                  sparse=sparse, weight_sym_argsize_0=weight.shape[0])
