"""torch.func's derivative transforms: grad, grad_and_value, vjp, jacrev through the reverse
engine; jvp, linearize, jacfwd through forward-mode levels; hessian as jacfwd(jacrev).

They compose to any depth: a transform inside another records the graph of its derivatives
(create_graph) and leaves its results attached, so that the outer one differentiates them; the
outermost detaches what it returns unless the caller's own tensors require grad."""
from __future__ import annotations

import functools
from typing import Any, Callable, Optional, Union

import numpy as np

from ..autograd import api, forward_ad, grad_mode, forward_mode
from ..autograd.grad_mode import TransformDepth as _Depth
from ..autograd.ops.joining import stack
from ..autograd.tensor import Tensor
from ..warnings import warn_once
from ..utils._pytree import tree_flatten, tree_map, tree_unflatten, treespec_repr

Argnums = Union[int, tuple]
VJP, JVP = "vjp(f, *primals)", "jvp(f, primals, tangents)"  # jacrev's errors are vjp's, jacfwd's jvp's


def running() -> bool:
    """Whether some transform is running (results must then stay attached)."""
    return _Depth.value > 0


def _enter() -> bool:
    nested = _Depth.value > 0
    _Depth.value += 1
    return nested


def _exit() -> None:
    _Depth.value -= 1


def _requires_grad(tree: Any) -> bool:
    return any(isinstance(leaf, Tensor) and leaf.requires_grad for leaf in tree_flatten(tree)[0])


def finish(result: Any, keep: bool) -> Any:
    """What a transform returns: detached at the outermost one, unless the caller's tensors
    require grad (`keep`); tangents of outer forward levels stay."""
    if keep:
        return result
    return tree_map(_detached, result)


def _detached(value: Any) -> Any:
    if not isinstance(value, Tensor) or value._grad_fn is None and not value._requires_grad:
        return value
    detached = value.detach()
    detached._fw = value._fw
    return detached


def _differentiable(value: Any) -> Any:
    """A fresh input to differentiate with respect to; it keeps any tangent and any history."""
    if not isinstance(value, Tensor):
        return value
    if value.requires_grad:
        return value.view_as(value)
    alias = value._alias()
    return alias._set_requires_grad()


def _check_argnum(argnum: Any, count: int) -> int:
    if not isinstance(argnum, int):
        raise RuntimeError(f"argnum must be int, got: {type(argnum)}")
    if not -count <= argnum < count:
        raise RuntimeError(f"Got argnum={argnum}, but only {count} positional inputs")
    return argnum % count


def _check_argnums(argnums: Argnums, args: tuple) -> None:
    """torch's checks of argnums, in its order and words: each one in range, then none twice."""
    if not isinstance(argnums, (int, tuple)):
        raise RuntimeError(f"argnums must be int or Tuple[int, ...], got: {type(argnums)}")
    if isinstance(argnums, int):
        _check_argnum(argnums, len(args))
        return
    wrapped = tuple(_check_argnum(argnum, len(args)) for argnum in argnums)
    if not wrapped:
        raise RuntimeError("argnums must be non-empty")
    if len(set(wrapped)) != len(wrapped):
        raise RuntimeError(f"argnums elements must be unique, got {wrapped}")


def _replace_args(args: tuple, argnums: Argnums, transform: Callable) -> tuple:
    """(args with the selected ones transformed, the selected ones as argnums picks them)."""
    _check_argnums(argnums, args)
    chosen = (argnums,) if isinstance(argnums, int) else argnums
    new_args = list(args)
    for argnum in chosen:
        new_args[argnum] = tree_map(transform, args[argnum])
    selected = new_args[argnums] if isinstance(argnums, int) else tuple(new_args[a] for a in argnums)
    return tuple(new_args), selected


def _zeros_like(tensor: Tensor) -> Tensor:
    return Tensor._make(np.zeros(tensor.shape, dtype=tensor._dtype._numpy), tensor._dtype)


def _gradients(outputs: list, inputs: list, cotangents: Optional[list], create_graph: bool) -> list:
    """d(outputs)/d(inputs) . cotangents, zeros for an input the outputs do not depend on."""
    pairs = [(o, c) for o, c in zip(outputs, cotangents or [None] * len(outputs))
             if isinstance(o, Tensor) and o.requires_grad]
    tensors = [t for t in inputs if isinstance(t, Tensor)]
    if not pairs or not tensors:
        found: Any = [None] * len(tensors)
    else:
        found = api.grad([o for o, _ in pairs], tensors, [c for _, c in pairs], retain_graph=True,
                         create_graph=create_graph, allow_unused=True)
    grads = iter(g if g is not None else _zeros_like(t) for g, t in zip(found, tensors))
    return [next(grads) if isinstance(t, Tensor) else None for t in inputs]


# ------------------------------------------------------------------ reverse mode

def grad_and_value(func: Callable, argnums: Argnums = 0, has_aux: bool = False) -> Callable:
    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        nested = _enter()
        try:
            keep = nested or _requires_grad(args)
            with grad_mode.enable_grad():
                args, selected = _replace_args(args, argnums, _differentiable)
                output = func(*args, **kwargs)
                output, aux = _split_aux(output, has_aux, "grad_and_value(f)(*args)")
                if not isinstance(output, Tensor):
                    raise RuntimeError(f"grad_and_value(f)(*args): Expected f(*args) to return a Tensor, got "
                                       f"{type(output)}")
                if output.dim() != 0:
                    raise RuntimeError(f"grad_and_value(f)(*args): Expected f(*args) to return a scalar Tensor, got "
                                       f"tensor with {output.dim()} dims. Maybe you wanted to use the vjp or jacrev "
                                       "APIs instead?")
                leaves, spec = tree_flatten(selected)
                grads = tree_unflatten(_gradients([output], leaves, None, keep), spec)
            value = (output, aux) if has_aux else output
            return finish((grads, value), keep)
        finally:
            _exit()

    return wrapper


def grad(func: Callable, argnums: Argnums = 0, has_aux: bool = False) -> Callable:
    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        grads, value = grad_and_value(func, argnums, has_aux)(*args, **kwargs)
        return (grads, value[1]) if has_aux else grads

    return wrapper


def vjp(func: Callable, *primals: Any, has_aux: bool = False) -> tuple:
    nested = _enter()
    try:
        keep = nested or _requires_grad(primals)
        with grad_mode.enable_grad():
            inputs = tree_map(_differentiable, primals)
            output = func(*inputs)
            output, aux = _split_aux(output, has_aux, VJP)
            out_leaves, out_spec = tree_flatten(output)
            _only_tensors(out_leaves, VJP)
    finally:
        _exit()

    def wrapper(cotangents: Any, retain_graph: bool = True, create_graph: Optional[bool] = None) -> tuple:
        nested_call = _enter()
        try:
            leaves, spec = tree_flatten(cotangents)
            if spec != out_spec:
                raise RuntimeError("Expected pytree structure of cotangents to be the same as pytree structure of "
                                   f"outputs to the function. cotangents: {_structure(cotangents)}, primal output: "
                                   f"{_structure(output)}")
            for leaf, out in zip(leaves, out_leaves):
                if isinstance(leaf, Tensor) and leaf.shape != out.shape:
                    raise RuntimeError(f"Mismatch in shape: grad_output[0] has a shape of {leaf.shape} and "
                                       f"output[0] has a shape of {out.shape}.")
            keep_call = nested_call or keep or _requires_grad(cotangents)
            with grad_mode.enable_grad():
                flat_inputs, in_spec = tree_flatten(inputs)
                grads = _gradients(out_leaves, flat_inputs, leaves, keep_call)
            return finish(tree_unflatten(grads, in_spec), keep_call)
        finally:
            _exit()

    shown = finish(output, keep)
    return (shown, wrapper, finish(aux, keep)) if has_aux else (shown, wrapper)


def _only_tensors(leaves: list, api: str) -> None:
    """torch's assert_non_empty_tensor_output on the flattened outputs of a function."""
    if (len(leaves) == 1 and leaves[0] is None) or not leaves:
        raise RuntimeError(f"{api}: Expected f to be a function that has non-empty output (got output = {leaves})")
    for leaf in leaves:
        if not isinstance(leaf, Tensor):
            raise RuntimeError(f"{api}: expected f(*primals) to return only tensors, got unsupported type {type(leaf)}")


def _split_aux(output: Any, has_aux: bool, caller: str) -> tuple:
    """A function's output and its aux (None without has_aux), checked as `caller` checks it."""
    if not has_aux:
        return output, None
    if not (isinstance(output, tuple) and len(output) == 2):
        raise RuntimeError(f"{caller}: output of function f should be a tuple: (output, aux) if has_aux is True")
    for leaf in tree_flatten(output[1])[0]:  # (torch unwraps the aux's tensors, and only tensors)
        if not isinstance(leaf, Tensor):
            raise RuntimeError(f"Expected tensors, got unsupported type {type(leaf)}")
    return output


def _structure(tree: Any) -> str:
    return treespec_repr(tree_flatten(tree)[1])


def jacrev(func: Callable, argnums: Argnums = 0, *, has_aux: bool = False, chunk_size: Optional[int] = None,
           _preallocate_and_copy: bool = False) -> Callable:
    if chunk_size is not None and not (isinstance(chunk_size, int) and chunk_size > 0):
        raise ValueError("jacrev: `chunk_size` should be greater than 0.")

    @functools.wraps(func)
    def wrapper_fn(*args: Any) -> Any:  # (no keywords: torch's takes none)
        nested = _enter()
        try:
            keep = nested or _requires_grad(args)
            with grad_mode.enable_grad():
                if argnums is None:  # torch's vjp then differentiates every argument; only its slicing refuses None
                    args = selected = tree_map(_differentiable, args)
                else:
                    args, selected = _replace_args(args, argnums, _differentiable)
                output = func(*args)
                output, aux = _split_aux(output, has_aux, VJP)
                out_leaves, out_spec = tree_flatten(output)
                _only_tensors(out_leaves, VJP)
                if argnums is None:
                    _check_argnums(argnums, args)
                in_leaves, in_spec = tree_flatten(selected)
                jacobians = [tree_unflatten(_rows(out, in_leaves, keep), in_spec) for out in out_leaves]
            result = tree_unflatten(jacobians, out_spec)
            return finish((result, aux) if has_aux else result, keep)
        finally:
            _exit()

    return wrapper_fn


def _rows(out: Tensor, inputs: list, create_graph: bool) -> list:
    """The Jacobians of `out` with respect to each input, a backward pass per element of `out`."""
    rows: list = [[] for _ in inputs]
    flat = np.zeros(out.numel(), dtype=out._dtype._numpy)
    for position in range(out.numel()):
        flat[position] = 1
        one_hot = Tensor._make(flat.reshape(out.shape).copy(), out._dtype)
        flat[position] = 0
        for index, grad_ in enumerate(_gradients([out], inputs, [one_hot], create_graph)):
            rows[index].append(grad_)
    return [_stack(row, tuple(out.shape) + tuple(t.shape), t) for row, t in zip(rows, inputs)]


def _stack(pieces: list, shape: tuple, like: Tensor) -> Tensor:
    if not pieces:
        return Tensor._make(np.zeros(shape, dtype=like._dtype._numpy), like._dtype)
    return stack(pieces).reshape(shape)


# ------------------------------------------------------------------ forward mode

def jvp(func: Callable, primals: Any, tangents: Any, *, strict: bool = False, has_aux: bool = False) -> tuple:
    if not isinstance(primals, tuple):
        raise RuntimeError("jvp(f, primals, tangents): Expected primals to be a tuple. E.g. it should be valid to "
                           "call f(*primals).")
    primal_leaves, primal_spec = tree_flatten(primals)
    tangent_leaves, tangent_spec = tree_flatten(tangents)
    if primal_spec != tangent_spec:
        raise RuntimeError("jvp(f, primals, tangents): Expected primals and tangents to have the same python "
                           f"structure. For example, if primals is a tuple of 3 tensors, tangents also must be. Got "
                           f"primals with structure {_structure(primals)} and tangents with structure "
                           f"{_structure(tangents)}")
    # all the primals, then all the tangents, as torch checks them; their shapes are make_dual's to check
    for name, leaves in (("primals", primal_leaves), ("tangents", tangent_leaves)):
        if not leaves:
            raise RuntimeError(f"jvp(f, primals, tangents): Expected {name} to contain at least one Tensor.")
        for leaf in leaves:
            if not isinstance(leaf, Tensor):
                raise RuntimeError(f"jvp(f, primals, tangents): Expected {name} to only contain Tensors, got "
                                   f"{type(leaf)}")
    nested = _enter()
    level = forward_mode.enter_level()
    try:
        keep = nested or _requires_grad(primals) or _requires_grad(tangents)
        duals = [forward_mode.dual(p, t, level) for p, t in zip(primal_leaves, tangent_leaves)]
        output = func(*tree_unflatten(duals, primal_spec))
        output, aux = _split_aux(output, has_aux, JVP)
        out_leaves, out_spec = tree_flatten(output)
        _only_tensors(out_leaves, JVP)
        primal_out, tangent_out = [], []
        for leaf in out_leaves:
            unpacked = forward_ad.unpack(leaf, level)
            primal_out.append(unpacked.primal)
            tangent_out.append(unpacked.tangent if unpacked.tangent is not None else _zeros_like(leaf))
        aux = tree_map(lambda leaf: forward_ad.unpack(leaf, level).primal if isinstance(leaf, Tensor) else leaf, aux)
    finally:
        forward_mode.exit_level(level)
        _exit()
    result = (tree_unflatten(primal_out, out_spec), tree_unflatten(tangent_out, out_spec))
    return finish(result + (aux,) if has_aux else result, keep)


# PyTorch traces the function with torch.fx, whose constant folding warns once per process
FX_GET_ATTR_WARNING = (
    "Attempted to insert a get_attr Node with no underlying reference in the owning GraphModule! Call "
    "GraphModule.add_submodule to add the necessary submodule, GraphModule.add_parameter to add the necessary "
    "Parameter, or nn.Module.register_buffer to add the necessary buffer")


def linearize(func: Callable, *primals: Any) -> tuple:
    output = jvp(func, primals, tree_map(lambda p: _zeros_like(p) if isinstance(p, Tensor) else p, primals))[0]
    warn_once("UserWarning", FX_GET_ATTR_WARNING)

    def jvp_fn(*tangents: Any) -> Any:
        return jvp(func, primals, tangents)[1]

    return output, jvp_fn


def jacfwd(func: Callable, argnums: Argnums = 0, has_aux: bool = False, *, randomness: str = "error") -> Callable:
    if randomness not in ("error", "different", "same"):
        raise RuntimeError(f"Only allowed values for randomness are 'error', 'different', or 'same'. Got {randomness}")

    @functools.wraps(func)
    def wrapper_fn(*args: Any) -> Any:  # (no keywords: torch's takes none)
        nested = _enter()
        try:
            keep = nested or _requires_grad(args)
            # argnums=None: every positional input, as torch's jacfwd takes it
            picked = tuple(range(len(args))) if argnums is None else argnums
            _check_argnums(picked, args)
            chosen = (picked,) if isinstance(picked, int) else picked
            selected = args[picked] if isinstance(picked, int) else tuple(args[a] for a in chosen)
            in_leaves, in_spec = tree_flatten(selected)
            columns: list = [[] for _ in in_leaves]
            out_spec = aux = None
            outputs: list = []
            for index, primal in enumerate(in_leaves):
                for position in range(primal.numel()):
                    outputs, out_spec, aux = _column(func, args, chosen, picked, in_spec, in_leaves, index,
                                                     position, has_aux, columns[index])
            if out_spec is None:  # no input element at all: run once for the outputs' shapes
                outputs, out_spec, aux = _column(func, args, chosen, picked, in_spec, in_leaves, None, 0,
                                                 has_aux, [])
            jacobians = []
            for out_index, out in enumerate(outputs):
                per_input = [_stack([column[out_index] for column in cols], tuple(t.shape) + tuple(out.shape), out)
                             .movedim(tuple(range(t.dim())), tuple(range(out.dim(), out.dim() + t.dim())))
                             if t.dim() else _stack([column[out_index] for column in cols], tuple(out.shape), out)
                             for cols, t in zip(columns, in_leaves)]
                jacobians.append(tree_unflatten(per_input, in_spec))
            result = tree_unflatten(jacobians, out_spec)
            return finish((result, aux) if has_aux else result, keep)
        finally:
            _exit()

    return wrapper_fn


def _column(func: Callable, args: tuple, chosen: tuple, argnums: Argnums, in_spec: Any,
            in_leaves: list, index: Optional[int], position: int, has_aux: bool, column_list: list) -> tuple:
    """Run `func` with a one-hot tangent on element `position` of input `index`; append the
    outputs' tangents to `column_list`. Returns (outputs, their spec, aux)."""
    level = forward_mode.enter_level()
    try:
        leaves = []
        for i, leaf in enumerate(in_leaves):
            # every input carries a tangent, zeros but one: PyTorch's sums of tangents keep their signed zeros
            flat = np.zeros(leaf.numel(), dtype=leaf._dtype._numpy)
            if i == index:
                flat[position] = 1
            leaves.append(forward_mode.dual(leaf, Tensor._make(flat.reshape(leaf.shape), leaf._dtype), level))
        selected = tree_unflatten(leaves, in_spec)
        new_args = list(args)
        if isinstance(argnums, int):
            new_args[argnums] = selected
        else:
            for argnum, value in zip(chosen, selected):
                new_args[argnum] = value
        output = func(*new_args)
        output, aux = _split_aux(output, has_aux, JVP)
        if has_aux:
            aux = tree_map(lambda leaf: forward_ad.unpack(leaf, level).primal if isinstance(leaf, Tensor) else leaf,
                           aux)
        out_leaves, out_spec = tree_flatten(output)
        _only_tensors(out_leaves, JVP)
        column = []
        for leaf in out_leaves:
            tangent = forward_mode.tangent_of(leaf, level)
            column.append(tangent if tangent is not None else _zeros_like(leaf))
        if index is not None:
            column_list.append(column)
        return [forward_ad.unpack(leaf, level).primal for leaf in out_leaves], out_spec, aux
    finally:
        forward_mode.exit_level(level)


def hessian(func: Callable, argnums: Argnums = 0) -> Callable:
    return jacfwd(jacrev(func, argnums), argnums)
