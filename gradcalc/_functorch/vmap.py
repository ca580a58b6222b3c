"""torch.vmap: the function runs once per example, on the examples' slices, and its outputs are
stacked; PyTorch's checks of in_dims, out_dims and batch sizes, and its randomness modes. A
transform nested inside (vmap(grad(f))) is the outermost autograd transform, as in torch.func."""
from __future__ import annotations

import functools
from typing import Any, Callable, Optional

from ..autograd import random, forward_mode
from ..autograd.grad_mode import FORWARD_LEVELS as LEVELS
from ..autograd.ops.joining import stack
from ..autograd.tensor import Tensor
from ..utils._pytree import tree_flatten, tree_unflatten, treespec_repr

RANDOMNESS = ("error", "different", "same")


def _name(func: Any) -> str:
    return getattr(func, "__name__", None) or repr(func)


def vmap(func: Callable, in_dims: Any = 0, out_dims: Any = 0, randomness: str = "error", *,
         chunk_size: Optional[int] = None) -> Callable:
    if randomness not in RANDOMNESS:
        raise RuntimeError(f"Only allowed values for randomness are 'error', 'different', or 'same'. Got {randomness}")
    if chunk_size is not None and not (isinstance(chunk_size, int) and chunk_size > 0):
        raise ValueError(f"vmap: chunk_size should be None or greater than 0. (got {chunk_size})")

    @functools.wraps(func)
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        name = _name(func)
        if not args:
            raise ValueError(f"vmap({name})(<inputs>): got no inputs. Maybe you forgot to add inputs, or you are "
                             "trying to vmap over a function with no inputs. The latter is unsupported.")
        leaves, spec = tree_flatten(args)
        dims = _flat_in_dims(name, in_dims, args)
        size = _batch_size(name, in_dims, leaves, dims)
        random.VMAP_RANDOMNESS.append(randomness)
        level = forward_mode.BatchLevel(size)
        LEVELS.append(level)
        try:
            state = random.default_generator.get_state() if randomness == "same" else None
            results = []
            # a batch of none runs the function once, as PyTorch's batched tensors do; its outputs are cut to size 0
            for index in range(max(size, 1)):
                level.index = index
                if state is not None:
                    random.default_generator.set_state(state)
                sliced = [_example(leaf, dim, index, level) for leaf, dim in zip(leaves, dims)]
                results.append(func(*tree_unflatten(sliced, spec), **kwargs))
        finally:
            LEVELS.remove(level)
            random.VMAP_RANDOMNESS.pop()
        # vmap adds no level of autograd: outputs keep the graph of the tensors the function used
        return _stacked(name, results, out_dims, size)

    return wrapped


def _example(leaf: Any, dim: Optional[int], index: int, level: forward_mode.BatchLevel) -> Any:
    if dim is None:
        return leaf
    if leaf.shape[dim] == 0:
        dim %= leaf.dim()
        example = leaf.new_zeros(leaf.shape[:dim] + leaf.shape[dim + 1:])
    else:
        example = leaf.select(dim, index)
    example._fw = {**(example._fw or {}), level: True}
    return example


def _flat_in_dims(name: str, in_dims: Any, args: tuple) -> list:
    """One in_dim per leaf of the inputs."""
    if isinstance(in_dims, int) and not isinstance(in_dims, bool):
        per_arg: Any = (in_dims,) * len(args)
    elif isinstance(in_dims, (tuple, list)):
        per_arg = tuple(in_dims)
        if len(per_arg) != len(args):
            raise ValueError(f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): in_dims is not compatible with the "
                             f"structure of `inputs`. in_dims has structure {_shape_of(in_dims)} but inputs has "
                             f"structure {_shape_of(args)}.")
    else:
        raise ValueError(f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): expected `in_dims` to be int or a (potentially "
                         f"nested) tuple matching the structure of inputs, got: {type(in_dims)}.")
    dims = []
    for arg, arg_dims in zip(args, per_arg):
        arg_leaves = tree_flatten(arg)[0]
        if isinstance(arg_dims, int) or arg_dims is None:
            dims.extend([arg_dims] * len(arg_leaves))
        else:
            given = tree_flatten(arg_dims)[0]
            if len(given) != len(arg_leaves):
                raise ValueError(f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): in_dims is not compatible with the "
                                 f"structure of `inputs`. in_dims has structure {_shape_of(in_dims)} but inputs has "
                                 f"structure {_shape_of(args)}.")
            dims.extend(given)
    return dims


def _shape_of(tree: Any) -> str:
    return treespec_repr(tree_flatten(tree)[1])


def _batch_size(name: str, in_dims: Any, leaves: list, dims: list) -> int:
    """torch's _process_batched_inputs: every in_dim checked, then the sizes read (`x.size(in_dim)`,
    whose parser refuses a bool)."""
    mapped = []
    for leaf, dim in zip(leaves, dims):
        if dim is None:
            continue
        if not isinstance(dim, int):
            raise ValueError(f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): Got in_dim={dim} for an input but "
                             "in_dim must be either an integer dimension or None.")
        if not isinstance(leaf, Tensor):
            raise ValueError(f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): Got in_dim={dim} for an input but the "
                             f"input is of type {type(leaf)}. We cannot vmap over non-Tensor arguments, please use "
                             "None as the respective in_dim")
        if not -leaf.dim() <= dim < leaf.dim():
            raise ValueError(f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): Got in_dim={dim} for some input, but "
                             f"that input is a Tensor of dimensionality {leaf.dim()} so expected in_dim to satisfy "
                             f"-{leaf.dim()} <= in_dim < {leaf.dim()}.")
        mapped.append((leaf, dim % leaf.dim() if dim < 0 else dim))
    sizes = [leaf.size(dim) for leaf, dim in mapped]
    if not sizes:
        raise ValueError(f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): At least one of the inputs must be "
                         "batched (in_dims must not be None for all inputs).")
    if len(set(sizes)) > 1:
        raise ValueError(f"vmap: Expected all tensors to have the same size in the mapped dimension, got sizes {sizes} "
                         "for the mapped dimension")
    return sizes[0]


def _stacked(name: str, results: list, out_dims: Any, size: int) -> Any:
    flat = [tree_flatten(result) for result in results]
    leaves, spec = flat[0]
    if isinstance(out_dims, int) or out_dims is None:
        dims = [out_dims] * len(leaves)
    else:
        dims = tree_flatten(out_dims)[0]
        if len(dims) != len(leaves):
            raise ValueError(f"vmap({name}, ..., out_dims={out_dims})(<inputs>): out_dims is not compatible with the "
                             f"structure of `outputs`. out_dims has structure {_shape_of(out_dims)} but outputs has "
                             f"structure {_shape_of(results[0])}.")
    stacked = []
    for position, dim in enumerate(dims):
        pieces = [result_leaves[position] for result_leaves, _ in flat]
        if dim is None:
            stacked.append(pieces[0])
            continue
        for piece in pieces:
            if not isinstance(piece, Tensor):
                raise ValueError(f"vmap({name}, ...): `{name}` must only return Tensors, got type {type(piece)}. Did "
                                 "you mean to set out_dims= to None for output?")
        stacked.append(stack(pieces, dim) if size else stack(pieces, dim).narrow(dim, 0, 0))
    return tree_unflatten(stacked, spec)
