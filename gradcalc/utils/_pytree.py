"""Nested containers of tensors (tuples, lists, dicts) flattened to their leaves and rebuilt, as
torch.utils._pytree does for the function transforms."""
from __future__ import annotations

from typing import Any, Callable


def tree_flatten(tree: Any) -> tuple:
    """The leaves of `tree` in order and a spec to rebuild it from them."""
    leaves: list = []
    return leaves, _flatten(tree, leaves)


def _flatten(tree: Any, leaves: list) -> Any:
    if isinstance(tree, (tuple, list)) and (type(tree) in (tuple, list) or hasattr(tree, "_fields")):
        return (type(tree), [_flatten(item, leaves) for item in tree])
    if isinstance(tree, dict):
        return (type(tree), list(tree), [_flatten(value, leaves) for value in tree.values()])
    leaves.append(tree)
    return None


def tree_unflatten(leaves: list, spec: Any) -> Any:
    return _unflatten(iter(leaves), spec)


def _unflatten(leaves: Any, spec: Any) -> Any:
    if spec is None:
        return next(leaves)
    kind = spec[0]
    if issubclass(kind, dict):
        return kind(zip(spec[1], [_unflatten(leaves, child) for child in spec[2]]))
    items = [_unflatten(leaves, child) for child in spec[1]]
    return kind(*items) if hasattr(kind, "_fields") else kind(items)


def tree_map(function: Callable, tree: Any) -> Any:
    leaves, spec = tree_flatten(tree)
    return tree_unflatten([function(leaf) for leaf in leaves], spec)


def treespec_repr(spec: Any, indent: int = 0) -> str:
    """A spec as PyTorch's TreeSpec shows it in messages: `TreeSpec(tuple, None, [*,\n  *])`."""
    if spec is None:
        return "*"
    kind, context, children = (spec[0], None, spec[1]) if len(spec) == 2 else spec
    indent += 2
    shown = [treespec_repr(child, indent) for child in children]
    inner = (shown[0] + ("," if len(shown) > 1 else "") + ",".join("\n" + " " * indent + s for s in shown[1:])
             if shown else "")
    return f"TreeSpec({kind.__name__}, {context}, [{inner}])"
