"""The *_copy variants of the view ops (view_copy, t_copy, diagonal_copy, ...): the view's values
in storage of their own. Each records a node named after the view's (`TBackward0_copy`), with
the view's backward formula and saved values, as PyTorch generates them."""
from __future__ import annotations

from typing import Any, Callable

from ..tensor import Tensor
from .arrangement import DIAGONAL, UNFOLD, VIEW_AS_REAL, diagonal, unfold, view_as_complex, view_as_real
from .geometry import as_strided
from .inplace import AS_STRIDED
from .joining import SPLIT, SPLIT_WITH_SIZES, UNBIND, split_tensor, unbind
from .registry import NOT_IMPLEMENTED, NodeDef, node, op, record, record_outputs
from .shape import (ALIAS, EXPAND, PERMUTE, SELECT, SLICE, SQUEEZE, SQUEEZE_DIM, SQUEEZE_DIMS, TRANSPOSE, T,
                    UNSQUEEZE, VIEW, alias, expand, permute, select, slice_dim, squeeze, t, transpose, unsqueeze)

_COPIES: dict = {}  # the view's node -> its copy's node


def _copy_node(view_node: NodeDef) -> NodeDef:
    declared = node(view_node.name + "_copy", view_node.inputs, jvp=view_node.jvp, saved=view_node.saved,
                    saved_tensors=view_node.saved_tensors, multi_output=view_node.multi_output,
                    **dict(zip(view_node.inputs, view_node.formulas)))
    _COPIES[view_node] = declared
    return declared


for _view_node in (ALIAS, AS_STRIDED, DIAGONAL, EXPAND, PERMUTE, SELECT, SLICE, SPLIT, SPLIT_WITH_SIZES, SQUEEZE,
                   SQUEEZE_DIM, SQUEEZE_DIMS, T, TRANSPOSE, UNBIND, UNFOLD, UNSQUEEZE, VIEW_AS_REAL, VIEW):
    _copy_node(_view_node)
del _view_node


def _make_copy(name: str, view_function: Callable) -> None:
    def copy(input: Tensor, *args: Any, **kwargs: Any) -> Any:
        view = view_function(input, *args, **kwargs)
        outs = view if isinstance(view, tuple) else (view,)
        grad_fn = outs[0].grad_fn
        params = dict(grad_fn._params) if grad_fn is not None else {}
        copy_node = _COPIES.get(type(grad_fn)._op) if grad_fn is not None else None
        if copy_node is None:
            copies = tuple(Tensor._make(out._data.copy(), out._dtype) for out in outs)
        elif isinstance(view, tuple):
            copies = record_outputs(copy_node, (input,), [(out._data.copy(), out._dtype) for out in outs],
                                    ["piece"] * len(outs), **params)
        else:
            copies = (record(copy_node, (input,), view._data.copy(), view._dtype, **params),)
        return copies if isinstance(view, tuple) else copies[0]

    copy.__name__ = copy.__qualname__ = name
    op(name, method=False)(copy)



def _slice(input: Tensor, dim: int = 0, start: Any = None, end: Any = None, step: int = 1) -> Tensor:
    return slice_dim(input, dim, start, end, step)


def _squeeze(input: Tensor, dim: Any = None) -> Tensor:
    return squeeze(input, dim)


def _view(input: Tensor, size: Any = None, dtype: Any = None) -> Tensor:
    return input.view(dtype) if dtype is not None else input.view(size)


for _name, _view_function in (
        ("alias_copy", alias), ("as_strided_copy", as_strided), ("diagonal_copy", diagonal),
        ("expand_copy", expand), ("permute_copy", permute), ("select_copy", select), ("slice_copy", _slice),
        ("split_copy", lambda input, split_size, dim=0: split_tensor(input, split_size, dim)),
        ("split_with_sizes_copy", lambda input, split_sizes, dim=0: split_tensor(input, list(split_sizes), dim)),
        ("squeeze_copy", _squeeze), ("t_copy", t), ("transpose_copy", transpose), ("unbind_copy", unbind),
        ("unfold_copy", unfold), ("unsqueeze_copy", unsqueeze), ("view_as_real_copy", view_as_real),
        ("view_copy", _view)):
    _make_copy(_name, _view_function)
del _name, _view_function


@op(method=False)
def detach_copy(input: Tensor) -> Tensor:
    # PyTorch records its copy of a detach without a derivative
    return record(NOT_IMPLEMENTED, (input,), input._data.copy(), input._dtype, _aten="detach_copy")


@op(method=False)
def view_as_complex_copy(input: Tensor) -> Tensor:
    if input.requires_grad:
        raise RuntimeError("view_as_complex_copy does not support automatic differentiation for outputs with "
                           "complex dtype.")
    view = view_as_complex(input)
    return Tensor._make(view._data.copy(), view._dtype)
