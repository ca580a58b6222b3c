"""Saved tensors: what a node keeps for its backward (PyTorch's SavedVariable), and the hooks
that may pack and unpack it (torch.autograd.graph.saved_tensors_hooks, `_raw_saved_x.register_hooks`)."""
from __future__ import annotations

import weakref
from typing import Any, Callable, Optional

from ..display.names import type_name
from . import anomaly_mode, grad_mode
from .engine import Node, forward_name
from .tensor import Tensor

# the hooks of the saved_tensors_hooks contexts entered, innermost last: every saved tensor asks for them
default_hooks: list = []
# set by disable_saved_tensors_hooks: the error to raise where saved tensor hooks would be used
disabled_message: Optional[str] = None

PACK_MODIFIES_INPUT = (
    "A saved tensor pack hook is modifying its input in place. Tensors provided as input to pack hook cannot be "
    "modified by in-place operations as this can lead to unexpected side-effects. Please open an issue if you need "
    "to perform in-place operations on the input to a pack hook.")


def check_hooks_enabled() -> None:
    if disabled_message is not None:
        raise RuntimeError(disabled_message)


def disable_hooks(message: Optional[str]) -> None:
    """Make saved tensor hooks raise `message` (None: allow them again). As torch's
    SavedTensorDefaultHooks::disable, a message set while default hooks are on is raised at once."""
    global disabled_message
    disabled_message = message
    if message is not None and default_hooks:
        raise RuntimeError(message)


INFERENCE_SAVED = ("Inference tensors cannot be saved for backward. Please do not use Tensors created in inference "
                   "mode in computation tracked by autograd. To work around this, you can make a clone to get a "
                   "normal tensor and use it in autograd, or use `torch.no_grad()` instead of "
                   "`torch.inference_mode()`.")


class SavedTensor:
    """A tensor a node keeps for its backward, with the version it had when saved. With hooks,
    it keeps what the pack hook returned instead, and the unpack hook makes a tensor of it."""

    __slots__ = ("tensor", "version", "is_output", "output_nr", "packed", "unpack_hook", "number")

    def __init__(self, tensor: Tensor, is_output: bool = False, output_nr: int = 0) -> None:
        if tensor._is_inference:
            raise RuntimeError(INFERENCE_SAVED)
        self.version = tensor._vc.value
        self.is_output = is_output
        self.output_nr = output_nr
        self.unpack_hook: Optional[Callable] = None
        if default_hooks:
            self.tensor = tensor._alias() if is_output else tensor
            check_hooks_enabled()
            self.pack(tensor, *default_hooks[-1])
        elif tensor._wrapped:
            # a Python number is kept as the number, and wrapped again when first unpacked
            self.tensor = None
            self.number = tensor._data.item()
        else:
            # a saved output is kept without its grad_fn, so that node and output form no cycle
            self.tensor = tensor._alias() if is_output else tensor

    @classmethod
    def of_number(cls, number: Any) -> "SavedTensor":
        """A saved Python number (`y * 1.00001`, which nodes keep as the number), wrapped again
        when first unpacked."""
        saved = cls.__new__(cls)
        saved.tensor, saved.number, saved.version = None, number, 0
        saved.is_output, saved.output_nr, saved.unpack_hook = False, 0, None
        return saved

    def pack(self, tensor: Tensor, pack_hook: Callable, unpack_hook: Callable) -> None:
        """Keep `pack_hook(tensor)`, which runs without recording a graph and must leave its input as it is."""
        version = tensor._vc.value
        previous = grad_mode.is_grad_enabled()
        grad_mode._set_enabled(False)
        try:
            self.packed = pack_hook(tensor)
        finally:
            grad_mode._set_enabled(previous)
        if tensor._vc.value != version:
            raise RuntimeError(PACK_MODIFIES_INPUT)
        self.unpack_hook = unpack_hook

    def unpack(self, node: Node) -> Tensor:
        if self.unpack_hook is not None:
            return self._unpack_hooked(node)
        tensor = self.tensor
        if tensor is None:
            tensor = self.tensor = Tensor._wrap_number(self.number)
        if tensor._vc.value != self.version:
            if self.is_output:
                producer = node
                output_nr = self.output_nr
            else:
                producer = tensor._grad_fn
                output_nr = tensor._output_nr
            where = f", which is output {output_nr} of {forward_name(producer)}," if producer else ""
            raise RuntimeError(
                "one of the variables needed for gradient computation has been modified by an inplace "
                f"operation: [torch.{tensor.dtype.tensor_type} [{', '.join(map(str, tensor.shape))}]]{where} "
                f"is at version {tensor._vc.value}; expected version {self.version} instead. "
                + (anomaly_mode.ANOMALY_HINT if anomaly_mode._enabled else
                   "Hint: enable anomaly detection to find the operation that failed to compute its gradient, "
                   "with torch.autograd.set_detect_anomaly(True, check_nan=False)."))
        if self.is_output:
            return tensor._alias(grad_fn=node, output_nr=self.output_nr)
        return tensor

    def _unpack_hooked(self, node: Node) -> Tensor:
        """What the unpack hook returns, in the saved tensor's place in the graph; versions are
        not checked, as PyTorch cannot follow them through hooks."""
        value = self.unpack_hook(self.packed)
        if not isinstance(value, Tensor):
            raise TypeError(f"Output of saved tensor unpack_hook expected to be a Tensor but got result of type "
                            f"{type_name(value)}")
        if self.is_output:
            return value._alias(grad_fn=node, output_nr=self.output_nr)
        tensor = self.tensor
        unpacked = value._alias(grad_fn=tensor._grad_fn, output_nr=tensor._output_nr)
        if tensor._grad_fn is None and tensor._requires_grad:
            unpacked._requires_grad = True
            unpacked._accumulator = weakref.ref(tensor._grad_accumulator())
        return unpacked

    def register_hooks(self, pack_hook: Callable, unpack_hook: Callable, node: Node, released: bool) -> None:
        """`grad_fn._raw_saved_x.register_hooks(pack, unpack)`: one pair per saved tensor."""
        if released:
            raise RuntimeError(
                "Calling register_hooks on a saved tensor after it has been freed. Saved intermediate values of the "
                "graph are freed when you call .backward() or autograd.grad(). Specify retain_graph=True if you "
                "need to backward through the graph a second time or if you need to access saved variables after "
                "calling backward.")
        if self.unpack_hook is not None:
            raise RuntimeError("Calling register_hooks on a saved tensor whose hooks have already been set. Hint: only "
                               "one pair of hooks is allowed at a time.")
        self.pack(self.unpack(node), pack_hook, unpack_hook)


def hooked_order(names: Any) -> list:
    """The order PyTorch saves a node's tensors in, which its pack hooks see: inputs by name, then the result."""
    return sorted(names, key=lambda name: (name == "result", name))

