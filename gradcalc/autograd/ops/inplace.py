"""In-place changes: PyTorch's checks before them, writing a result into a tensor's storage,
the history of views after their storage changed (CopySlices, AsStridedBackward0), and the
ops that only exist in place (copy_, fill_, zero_, `x[i] = v`)."""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from .. import dtypes, grad_mode, forward_mode, meta
from ..grad_mode import FORWARD_LEVELS
from ..native import address
from ..engine import Node, forward_name, gradient_edge
from ..saved_variable import SavedTensor
from ..tensor import (LEAF_INPLACE_MESSAGE, VIEW_DEFAULT, VIEW_INFERENCE, VIEW_MULTI_OUTPUT, VIEW_NO_GRAD,
                      VIEW_OF_LEAF_INPLACE_MESSAGE, Tensor, VersionCounter)
from .common import (as_tensor, batch_front, broadcast_shapes, fill_scalar, kernel_scalar, real_scalar, shape_text,
                     zeros_like)
from ...display.names import type_name
from ...warnings import warn
from .conversion import _to_copy_grad, to_dtype
from .indexing import (basic_index, checked_advanced_items, index_put, is_advanced, numpy_index, put_values,
                       ranges_as_lists, scatter_positions, write_before)
from .registry import LINEAR, OpNode, new_node, node, op, record
from .shape import expand, reshape
from ...display.names import torch_class

OVERLAP_SELF_MESSAGE = ("unsupported operation: more than one element of the written-to tensor refers to a single "
                        "memory location. Please clone() the tensor before performing the operation.")
OVERLAP_MESSAGE = ("unsupported operation: some elements of the input tensor and the written-to tensor refer to a "
                   "single memory location. Please clone() the tensor before performing the operation.")
AS_STRIDED = node("AsStridedBackward0", ("self",), jvp=LINEAR, saved=("size", "stride", "storage_offset"),
                  self=lambda grad, _self_sym_sizes, _positions: scatter_positions(grad, _self_sym_sizes, _positions))
# the source as it was given: its gradient taken back to its dtype and shape (PyTorch's CopyBackwards)
COPY = node("CopyBackwards", ("self", "src"), jvp=LINEAR, self=lambda grad: zeros_like(grad),
            src=lambda grad, _src_dtype, _src_sizes: _to_copy_grad(grad, _src_dtype).sum_to_size(_src_sizes))
FILL = node("FillBackward2", ("self",), jvp=LINEAR, self=lambda grad: zeros_like(grad))
FILL_TENSOR = node("FillBackward3", ("self", "value"), jvp=LINEAR, self=lambda grad: zeros_like(grad),
                   value=lambda grad: grad.sum())
ZERO = node("ZeroBackward0", ("self",), jvp=LINEAR, self=lambda grad: zeros_like(grad))
# torch.fill, out of place
FILL_COPY = node("FillBackward0", ("self",), jvp=LINEAR, self=lambda grad: zeros_like(grad))
FILL_COPY_TENSOR = node("FillBackward1", ("self", "value"), jvp=LINEAR, self=lambda grad: zeros_like(grad),
                        value=lambda grad: grad.sum())


def check_inplace(a: Tensor, *others: Any) -> None:
    """PyTorch's checks before an in-place change of `a` that `others` take part in: made only
    when grad mode is on and some tensor involved requires grad (an inference tensor's is made
    after the change, as its version is counted: InferenceVersion)."""
    if grad_mode.is_grad_enabled() and any(t.requires_grad for t in (a,) + others if isinstance(t, Tensor)):
        if a._base is not None:
            check_view_rebase(a, indirect=False)
            if a.requires_grad and a._base.is_leaf:
                raise RuntimeError(VIEW_OF_LEAF_INPLACE_MESSAGE)
        if a.requires_grad and a.is_leaf:
            raise RuntimeError(LEAF_INPLACE_MESSAGE)


def check_overlap(a: Tensor, *others: Any) -> None:
    """The checks of memory overlap that PyTorch's element-wise kernels make when writing to
    `a`, after the autograd checks and before any check of shapes or dtypes."""
    if internal_overlap(a._data):
        raise RuntimeError(OVERLAP_SELF_MESSAGE)
    for other in others:
        if isinstance(other, Tensor) and overlap(a._data, other._data) == "partial":
            raise RuntimeError(OVERLAP_MESSAGE)


# How functorch's batching rules take an in-place op under vmap. These pad the tensor written to
# (a view of it) with leading ones up to the operands' rank, so that `x.add_(y)` takes a y of shape
# [1] for an x of shape [] (the broadcast must still fit the padded tensor) ...
_PADDED = frozenset({"add_", "sub_", "mul_", "div_", "true_divide_", "multiply_", "divide_", "clamp_min_",
                     "clamp_max_", "copy_", "atan2_", "arctan2_", "copysign_", "bitwise_and_", "bitwise_or_",
                     "bitwise_xor_", "bitwise_left_shift_", "bitwise_right_shift_", "gcd_", "lcm_", "logical_and_",
                     "logical_or_", "logical_xor_", "masked_fill_"})
# ... these refuse an operand examples reach when no example reaches the tensor, on the physical
# tensors (the examples' dim first, the operand padded to the tensor's rank) in TensorIterator's
# words ...
_PHYSICAL_INPLACE = frozenset({"add_", "atan2_", "arctan2_", "copysign_", "bitwise_and_", "bitwise_or_", "bitwise_xor_",
                               "bitwise_left_shift_", "bitwise_right_shift_", "gcd_", "lcm_"})
# ... these rules name themselves (binary arithmetic as "inplace arithmetic") ...
_RULE_NAMES = {**dict.fromkeys(("sub_", "mul_", "div_", "copy_", "clamp_min_", "clamp_max_", "true_divide_", "multiply_",
                                "divide_", "logical_and_", "logical_or_", "logical_xor_", "masked_fill_"),
                               "inplace arithmetic"),
               "fill_": "fill_", "index_add_": "index_add_"}
# ... and these have no rule: the slow fallback runs the op example by example (so its errors give
# the examples' shapes), and warns first, naming the overload it took: (with a tensor operand,
# with numbers only (None: a rule of its own), the operand that decides (None: any))
_COMPARISONS = ("eq_", "ne_", "lt_", "le_", "gt_", "ge_", "greater_", "greater_equal_", "less_", "less_equal_",
                "not_equal_")
_FALLBACK = {
    **dict.fromkeys(("hypot_", "addcmul_", "addcdiv_", "nextafter_", "heaviside_", "ldexp_", "igamma_", "igammac_",
                     "polygamma_", "renorm_", "addmm_", "addmv_", "addr_", "baddbmm_", "addbmm_", "index_copy_",
                     "masked_scatter_", "put_", "cumsum_", "cumprod_", "fill_diagonal_", "tril_", "triu_",
                     "index_reduce_", "square_", "fix_", "negative_"), ("", "", None)),
    **dict.fromkeys(("fmod_", "remainder_", "float_power_") + _COMPARISONS, (".Tensor", ".Scalar", None)),
    **dict.fromkeys(("floor_divide_", "subtract_"), (".Tensor", ".Tensor", None)),
    **dict.fromkeys(("clamp_", "clip_"), (".Tensor", "", None)),
    "pow_": (".Tensor", None, None), "xlogy_": (".Tensor", ".Scalar_Other", None),
    "lerp_": (".Tensor", ".Scalar", "weight"), "masked_fill_": (".Tensor", None, "value"),
    "scatter_": (".src", ".value", "src"),
}
_REFUSAL = ("vmap: {name}(self, *extra_args) is not possible because there exists a Tensor `other` in extra_args that "
            "has more elements than `self`. This happened due to `other` being vmapped over but `self` not being "
            "vmapped over {where}. Please try to use out-of-place operators instead of {name}. If said operator is "
            "being called inside the PyTorch framework, please file a bug report instead.")


def _fallback_overload(name: str, operands: dict) -> Any:
    """The overload vmap's slow fallback names for in-place op `name` with `operands`, or None
    when a batching rule takes the call."""
    entry = _FALLBACK.get(name)
    if entry is None:
        return None
    with_tensor, numbers_only, decisive = entry
    values = (operands.get(decisive),) if decisive else operands.values()
    return with_tensor if any(isinstance(value, Tensor) for value in values) else numbers_only


def check_batched_operands(name: str, a: Tensor, operands: dict) -> None:
    """Under vmap, what PyTorch does before in-place op `name` on `a` with `operands` (by name):
    the slow fallback's warning, and the refusal of an operand that a vmap's examples reach when
    they do not reach `a`."""
    levels = [level for level in FORWARD_LEVELS if type(level) is forward_mode.BatchLevel]
    tensors = [t for t in operands.values() if isinstance(t, Tensor)]
    reached = [level for level in levels if any(forward_mode.tangent_of(t, level) for t in tensors)]
    apart = [level for level in reached if not forward_mode.tangent_of(a, level)]
    if not apart and not any(forward_mode.tangent_of(a, level) for level in levels):
        return
    overload = _fallback_overload(name, operands)
    if not apart:
        if overload is not None:
            _warn_fallback(name + overload)
        return
    other = next(t for t in tensors if forward_mode.tangent_of(t, apart[-1]))
    if overload is None:
        if name in _PHYSICAL_INPLACE:
            # the operand's examples a level apart from `a`'s in front of it; at the levels both are
            # batched at, `a` padded to its rank, their examples in front of both
            sizes = [level.size for level in apart if forward_mode.tangent_of(other, level)]
            front = tuple(level.size for level in levels if forward_mode.tangent_of(a, level))
            physical = (int(np.prod(sizes)),) + (1,) * max(0, a.ndim - other.ndim) + tuple(other.shape)
            written = ((1,) * (len(physical) - a.ndim) if front else ()) + tuple(a.shape)
            raise RuntimeError(f"output with shape {shape_text(front + written)} doesn't match the broadcast shape "
                               f"{shape_text(front + broadcast_shapes(written, physical))}")
        if name in _RULE_NAMES:
            raise RuntimeError(_REFUSAL.format(name=_RULE_NAMES[name], where="in a vmap"))
    _warn_fallback(name + (overload or ""))
    raise RuntimeError(_REFUSAL.format(name=f"aten::{name}", where=f"at level {FORWARD_LEVELS.index(apart[-1]) + 1}"))


def _warn_fallback(overload: str) -> None:
    if forward_mode.first_example():
        warn("UserWarning", f"There is a performance drop because we have not yet implemented the batching rule for "
                            f"aten::{overload}. Please file us an issue on GitHub so that we can prioritize its "
                            "implementation.", at="aten/src/ATen/functorch/BatchedFallback.cpp:82")


def batched_result(name: str, a: Tensor, out: Tensor, operands: dict) -> Tensor:
    """Under vmap, in-place op `name`'s result `out` when its shape is not `a`'s: a padding rule
    writes it through `a` padded with leading ones when that takes it, and the fallback refuses it
    in one example's shapes; other shapes are refused by commit_inplace."""
    if not forward_mode.batched(a) or out.ndim < a.ndim:
        return out
    padded = (1,) * (out.ndim - a.ndim) + tuple(a.shape)
    if _fallback_overload(name, operands) is not None:
        raise RuntimeError(f"output with shape {shape_text(a.shape)} doesn't match the broadcast shape "
                           f"{shape_text(out.shape)}")
    if name not in _PADDED:
        return out
    if tuple(out.shape) == padded:
        return reshape(out, tuple(a.shape))
    front = batch_front(a)
    raise RuntimeError(f"output with shape {shape_text(front + padded)} doesn't match the broadcast shape "
                       f"{shape_text(front + tuple(out.shape))}")


def _dense(x: np.ndarray) -> bool:
    """PyTorch's is_non_overlapping_and_dense: the elements fill a block of memory, in some order of dims."""
    expected = x.itemsize
    for stride, size in sorted((stride, size) for stride, size in zip(x.strides, x.shape) if size != 1):
        if stride != expected:
            return False
        expected *= size
    return True


def internal_overlap(x: np.ndarray) -> bool:
    """An expanded array, whose elements share memory: written to, PyTorch refuses it."""
    # only a zero stride can make elements share memory: the common array is settled without _dense
    if 0 not in x.strides:
        return False
    return bool(x.size) and not _dense(x) and any(stride == 0 and size > 1 for stride, size in zip(x.strides, x.shape))


_EXPANDED_PUT = ("Use of {op} on expanded tensors is deprecated. Please clone() the tensor before performing this "
                 "operation. This also applies to advanced indexing e.g. tensor[{example}] = {value}")


def expanded_put(target: np.ndarray, masked_fill: bool) -> bool:
    """Whether index_put_ writes to a tensor whose elements share memory: it warns then (and
    masked_fill_, which a single value under one mask goes to, warns again), and writes only the
    indexed elements, each into the memory it shares."""
    if not internal_overlap(target):
        return False
    warn("UserWarning", _EXPANDED_PUT.format(op="index_put_", example="indices", value="tensor"))
    if masked_fill:
        warn("UserWarning", _EXPANDED_PUT.format(op="masked_fill_", example="mask", value="scalar"))
    return True


def _sliced(a: Tensor, items: tuple) -> np.ndarray:
    """The part of `a` an index's basic items select, which index_put_ then writes to."""
    key: list = []
    for item in items:
        if isinstance(item, Tensor):
            key.extend([slice(None)] * (item.ndim if item._dtype in (dtypes.bool_, dtypes.uint8) else 1))
        elif isinstance(item, (list, tuple)):
            key.append(slice(None))
        elif isinstance(item, bool):
            key.append(None)
        else:
            key.append(item)
    try:
        return a._data[tuple(key)]
    except (IndexError, TypeError, ValueError):  # (refused by the checks that follow, in PyTorch's words)
        return a._data


def overlap(a: np.ndarray, b: np.ndarray) -> str:
    """PyTorch's get_overlap_status of two dense arrays: "full" (the same elements in the same
    layout), "partial" (some shared memory otherwise), "none", or "unknown" when not both dense."""
    if not a.size or not b.size or not np.may_share_memory(a, b):
        return "none"
    if not (_dense(a) and _dense(b)):
        return "unknown"
    a_begin, b_begin = address(a), address(b)
    a_end, b_end = a_begin + a.nbytes, b_begin + b.nbytes
    if (a_begin, a_end) == (b_begin, b_end):
        return "full" if a.strides == b.strides else "partial"
    return "partial" if a_begin < b_end and b_begin < a_end else "none"


def check_view_rebase(view: Tensor, indirect: bool) -> None:
    """A view made in no-grad mode, in inference mode or by a multi-output op may not take part
    in an in-place change recorded by autograd (PyTorch's handle_view_on_rebase)."""
    kind = view._view_kind
    if kind == VIEW_DEFAULT:
        return
    modified = "its base or another view of its base has been" if indirect else "is being"
    grad_fn = view._node
    if kind in (VIEW_NO_GRAD, VIEW_INFERENCE) or grad_fn is None:
        prefix = (f"Output {view._output_nr} of {forward_name(grad_fn)} is a view of a view which was created in"
                  if grad_fn is not None else "A view was created in")
        if kind == VIEW_INFERENCE:
            message = f"{prefix} inference mode and {modified} modified inplace in normal mode."
        else:
            message = f"{prefix} no_grad mode and {modified} modified inplace with grad mode enabled."
    else:
        message = f"Output {view._output_nr} of {forward_name(grad_fn)} is a view and {modified} modified inplace."
    if kind == VIEW_MULTI_OUTPUT:
        message += (" This view is the output of a function that returns multiple views. Such functions do not "
                    "allow the output views to be modified inplace. You should replace the inplace operation by "
                    "an out-of-place one.")
    else:
        mode = "inference_mode" if kind == VIEW_INFERENCE else "no_grad"
        message += (" Given that this use case is ambiguous and error-prone, it is forbidden. You can clarify your "
                    f"code by moving both the view and the inplace either both inside the {mode} block (if you "
                    "don't want the inplace to be tracked) or both outside (if you want the inplace to be "
                    "tracked).")
    raise RuntimeError(message)


def refresh_view_history(view: Tensor) -> None:
    """After an in-place change of its storage, a view's grad_fn becomes AsStridedBackward0 on
    its base's current history (PyTorch recomputes it lazily the same way)."""
    base = view._base
    if view._node is None and not base.requires_grad:
        return
    check_view_rebase(view, indirect=True)
    itemsize = view._data.itemsize
    params = {"_self_sym_sizes": base.shape, "_positions": view_positions(view, base), "size": tuple(view.shape),
              "stride": tuple(s // itemsize for s in view._data.strides), "storage_offset": view.storage_offset()}
    view._set_history(new_node(AS_STRIDED, (base,), params), 0)
    view._view_version = view._vc.value


Tensor._refresh_view_history = refresh_view_history


def commit_inplace(a: Tensor, out: Tensor) -> Tensor:
    """Write `out` into `a`'s storage and give `a` out's history (PyTorch's in-place ops)."""
    if a._data.shape != out._data.shape:  # checked before the dtype, as PyTorch does
        front = batch_front(a)  # the physical shapes under vmap
        raise RuntimeError(f"output with shape {shape_text(front + a.shape)} doesn't match the broadcast shape "
                           f"{shape_text(front + out.shape)}")
    if out._dtype is not a._dtype and out._dtype.category > a._dtype.category:
        raise RuntimeError(f"result type {out._dtype._scalar_name} can't be cast to the desired output type "
                           f"{a._dtype._scalar_name}")
    if FORWARD_LEVELS:
        forward_mode.check_inplace(a, out)
    grad_fn = out._grad_fn
    if grad_fn is not None and isinstance(grad_fn, OpNode):
        for name, saved in grad_fn._saved.items():
            # (a saved Python number is no tensor this could change)
            if name == grad_fn._op.inputs[0] and saved.__class__ is SavedTensor and not saved.is_output \
                    and saved.tensor is a:
                # the op needs its self's value from before the change: PyTorch keeps a copy (another
                # input that is the same tensor stays saved as it is, and is caught as modified)
                snapshot = a._alias(a._grad_fn, a._output_nr)
                snapshot._data = a._data.copy()
                snapshot._vc = VersionCounter()
                grad_fn._saved[name] = SavedTensor(snapshot)
    a._data[...] = out._data
    a._vc.value += 1
    if FORWARD_LEVELS:
        forward_mode.inplace(a, out, view_positions(a, a._base) if a._base is not None else None)
    if grad_fn is None:
        return a
    if isinstance(grad_fn, OpNode):
        for saved in grad_fn._saved.values():
            if saved.__class__ is SavedTensor and saved.is_output:
                saved.tensor = a._alias()
                saved.version = a._vc.value
    if a._base is None:
        a._set_history(grad_fn, out._output_nr)
    else:
        # the base takes the change into its history; the view follows lazily (refresh_view_history)
        base = a._base
        base._set_history(CopySlices(base, a, grad_fn), 0)
    return a


@torch_class("CopySlices", c_type=True)
class CopySlices(Node):
    """The base's grad_fn after an in-place change through a view: the change's own grad_fn
    runs on the view's part of the gradient, the rest of the base's gradient passes unchanged."""

    __slots__ = ("_fn", "_positions", "_view_shape", "_overlapping")

    def __init__(self, base: Tensor, view: Tensor, fn: Node) -> None:
        super().__init__((gradient_edge(base),) + tuple(fn.next_functions[1:]))
        self._input_meta = [(base._data.shape, base._dtype)] + list(fn._input_meta[1:])
        self._fn = fn
        self._positions = view_positions(view, base).reshape(-1)
        self._view_shape = view._data.shape
        # an expanded view: the gradient copied into the base's gradient through it is refused
        self._overlapping = internal_overlap(view._data)

    def name(self) -> str:
        return "torch::autograd::CopySlices"

    def apply(self, grads: list) -> list:
        grad = grads[0]
        if grad is None:
            return [None] * len(self.next_functions)
        flat = grad.reshape(-1)
        results = self._fn.apply([flat[self._positions].reshape(self._view_shape)])
        if results[0] is None:
            return [None] + list(results[1:])
        if self._overlapping:
            raise RuntimeError(OVERLAP_SELF_MESSAGE)
        flat = index_put(flat, (self._positions,), results[0].reshape(-1), False)
        return [flat.reshape(grad.shape)] + list(results[1:])

    def release(self) -> None:
        self._fn.release()


def view_positions(view: Tensor, base: Tensor) -> np.ndarray:
    """For each element of `view`, its flat (row-major) position in `base`."""
    itemsize = base._data.itemsize
    base_offsets = _memory_offsets(base._data, base.data_ptr(), itemsize)
    lookup = np.empty(int(base_offsets.max()) + 1 if base_offsets.size else 0, dtype=np.int64)
    lookup[base_offsets.reshape(-1)] = np.arange(base_offsets.size)
    return lookup[_memory_offsets(view._data, base.data_ptr(), itemsize)]


def _memory_offsets(array: np.ndarray, origin: int, itemsize: int) -> np.ndarray:
    start = (address(array) - origin) // itemsize if array.size else 0
    offsets = np.full(array.shape, start, dtype=np.int64)
    for axis, (size, stride) in enumerate(zip(array.shape, array.strides)):
        shape = [1] * array.ndim
        shape[axis] = size
        offsets = offsets + (np.arange(size, dtype=np.int64) * (stride // itemsize)).reshape(shape)
    return offsets


def _assigned_number(value: Any, dtype: dtypes.DType) -> Any:
    """A number assigned into a tensor of `dtype` (`x[i] = v`), converted as fill_ converts it,
    except that the half precisions read it as a double (they take infinity)."""
    if isinstance(value, np.integer):
        value = int(value)
    if isinstance(value, int) and not -2 ** 63 <= value < 2 ** 63:  # THPUtils_unpackLong's
        raise ValueError("Overflow when unpacking long long")
    if dtype in (dtypes.float16, dtypes.bfloat16):
        return real_scalar(value, dtypes.float64)
    return kernel_scalar(real_scalar(value, dtype), dtype)


def setitem(a: Tensor, index: Any, value: Any) -> None:
    index = ranges_as_lists(index)
    items = index if isinstance(index, tuple) else (index,)
    if isinstance(value, Tensor):
        source = value
    elif isinstance(value, (int, float, complex, np.integer)):  # valueToTensor's numbers (not numpy's float32)
        source = as_tensor(_assigned_number(value, a._dtype), a._dtype if not isinstance(value, complex) else None)
    else:
        raise TypeError(f"can't assign a {type_name(value)} to a torch.{a._dtype.tensor_type}")
    if index is False:  # THPVariable_setitem does nothing for False (once the value is read)
        return
    if is_advanced(index):
        check_inplace(a, source)  # autograd's checks come before the kernel's
        # (the part an int selects may not be expanded: no warning, but the write goes to shared memory)
        expanded = internal_overlap(a._data)
        if expanded:
            masks = [item for item in items if isinstance(item, Tensor)]
            to_masked_fill = source._data.size == 1 and len(masks) == 1 and masks[0]._dtype is dtypes.bool_ \
                and not any(isinstance(item, (list, tuple)) for item in items)
            expanded_put(_sliced(a, items), to_masked_fill)
        items = checked_advanced_items(a, items)
        # index_put_ refuses any overlap, and the tensor itself even when empty
        if source is a or overlap(a._data, source._data) in ("full", "partial"):
            raise RuntimeError(OVERLAP_MESSAGE)
        key = numpy_index(items)
        # a single value under one bool mask is masked_fill's, which converts it; index_put_ does not
        masked = len(items) == 1 and isinstance(items[0], Tensor) and items[0]._dtype is dtypes.bool_
        outside, values = put_values(a, key, source, assigning=True, converting=masked and source.ndim == 0)
        if outside is not None:
            if outside.error is not None:
                write_before(a, outside, values, False)
                raise outside.error
            return
        if expanded and not (grad_mode.is_grad_enabled() and (a.requires_grad or values.requires_grad)):
            a._data[key] = values._data
            a._vc.value += 1
            return
        out = index_put(a, key, values, False)
        if expanded:  # the kernel writes each indexed element into the memory it shares
            a._data[key] = values._data
            out._data = np.array(a._data)
        commit_inplace(a, out)
        return
    # an index that selects all of `a` (x[...] = v, x[:] = v) writes to `a` itself, not to a
    # view of it: a single value with fill_, as PyTorch does
    view = basic_index(a, index, items, assigning=True)
    # PyTorch's copy_to: a single value is filled in; another shape loses its leading ones and
    # is expanded to the view's shape (expand's errors) before the copy
    if source.ndim == 0 and view.shape != source.shape:
        fill_(view, source)
        return
    if view.shape != source.shape:
        lead = 0
        while lead < source.ndim and source.shape[lead] == 1:
            lead += 1
        stripped = source.reshape(source.shape[lead:]) if lead else source
        source = expand(stripped, view.shape)
    copy_(view, source)


@op(function=False)
def copy_(input: Tensor, other: Any, non_blocking: bool = False) -> Tensor:
    a = input
    check_inplace(a, other)
    check_overlap(a, other)
    if FORWARD_LEVELS:
        check_batched_operands("copy_", a, {"src": other})
    if meta.state["made"] and meta.is_meta(other) and not meta.is_meta(a):
        raise meta.copy_out_error()
    source = as_tensor(other, a._dtype if not isinstance(other, Tensor) else None)
    if FORWARD_LEVELS and source.ndim > a.ndim and forward_mode.batched(a):
        # vmap's rule copies into `a` padded with leading ones to the source's rank
        padded = (1,) * (source.ndim - a.ndim) + tuple(a.shape)
        if all(s == t or s == 1 for s, t in zip(source.shape, padded)):
            source = reshape(source, source.shape[source.ndim - a.ndim:])
        else:
            front = batch_front(a)
            raise RuntimeError(f"output with shape {shape_text(front + padded)} doesn't match the broadcast shape "
                               f"{shape_text(front + broadcast_shapes(padded, tuple(source.shape)))}")
    if len(source.shape) > len(a.shape) or any(s != t and s != 1 for s, t in zip(reversed(source.shape),
                                                                               reversed(a.shape))):
        front = batch_front(a, source)
        raise RuntimeError(f"output with shape {shape_text(front + a.shape)} doesn't match the broadcast shape "
                           f"{shape_text(front + broadcast_shapes(tuple(a.shape), tuple(source.shape), len(front)))}")
    with grad_mode.no_grad():  # the values only: the node below takes the source as given
        converted = to_dtype(source, a._dtype)
    data = np.broadcast_to(converted._data, a.shape)
    if (not source.requires_grad or not grad_mode.is_grad_enabled()) and not forward_mode.has_tangent(source, a):
        if not a.requires_grad or not grad_mode.is_grad_enabled():
            a._data[...] = data
            a._vc.value += 1
            return a
        source = Tensor._make(data, a._dtype)  # nothing to differentiate: a constant of a's dtype and shape
    return commit_inplace(a, record(COPY, (a, source), np.array(data), a._dtype, _src_dtype=source._dtype,
                                    _src_sizes=source.shape))


@op()
def zero_(input: Tensor) -> Tensor:
    return fill_(input, 0, ZERO)


@op()
def fill_(input: Tensor, value: Any, node_def: Any = None) -> Tensor:
    a = input
    check_inplace(a, value)
    if FORWARD_LEVELS:
        check_batched_operands("fill_", a, {"value": value})
    if isinstance(value, Tensor) and value.ndim:
        raise RuntimeError(f"fill_ only supports 0-dimension value tensor but got tensor with {value.ndim} dimensions.")
    number = value._data if isinstance(value, Tensor) else real_scalar(value, a._dtype)
    number = fill_scalar(number, a._dtype, a.numel())
    if (grad_mode.is_grad_enabled() and (a.requires_grad or isinstance(value, Tensor) and value.requires_grad)
            or forward_mode.has_tangent(a, value)):
        data = np.full(a.shape, number, dtype=a._dtype._numpy)
        out = (record(FILL_TENSOR, (a, value), data, a._dtype) if isinstance(value, Tensor)
               else record(node_def or FILL, (a,), data, a._dtype))
        return commit_inplace(a, out)
    a._data[...] = number
    a._vc.value += 1
    return a


def inplace(function: Callable, overlap_checked: bool = True) -> Callable:
    """The in-place form of an out-of-place implementation: `x.add_(y)` from `add`."""

    def method(a: Tensor, *args: Any, **kwargs: Any) -> Tensor:
        check_inplace(a, *args, *kwargs.values())
        if overlap_checked:
            check_overlap(a, *args, *kwargs.values())
        return commit_inplace(a, function(a, *args, **kwargs))

    method.__name__ = function.__name__ + "_"
    return method


@op(method=False, inplace=False)
def fill(input: Tensor, value: Any) -> Tensor:
    if isinstance(value, Tensor) and value.ndim:
        raise RuntimeError(f"fill_ only supports 0-dimension value tensor but got tensor with {value.ndim} dimensions.")
    number = value._data if isinstance(value, Tensor) else value
    number = fill_scalar(number, input._dtype, input.numel())
    data = np.full(input.shape, number, dtype=input._dtype._numpy)
    if isinstance(value, Tensor):
        return record(FILL_COPY_TENSOR, (input, value), data, input._dtype)
    return record(FILL_COPY, (input,), data, input._dtype)
