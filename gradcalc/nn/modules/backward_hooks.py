"""What nn.Module's full backward hooks need (torch.utils.hooks.BackwardHook): an identity node
on the module's tensor inputs and one on its outputs; the outputs' one keeps the gradients of
the outputs (after the pre-hooks), the inputs' one calls the hooks with both."""
from __future__ import annotations

from typing import Any, Optional

from ...autograd import grad_mode
from ...autograd.ops.hooks import backward_hook_identity
from ...autograd.tensor import Tensor
from ...warnings import warn

_NO_INPUT_GRAD_WARNING = (
    "Full backward hook is firing when gradients are computed with respect to module outputs since no inputs require "
    "gradients. See https://docs.pytorch.org/docs/main/generated/torch.nn.Module.html#torch.nn.Module."
    "register_full_backward_hook for more details.")


class BackwardHook:
    def __init__(self, module: Any, hooks: list, pre_hooks: list) -> None:
        self.module = module
        self.hooks = hooks
        self.pre_hooks = pre_hooks
        self.grad_outputs: Optional[tuple] = None
        self.n_inputs = self.n_outputs = -1
        self.input_indices: Optional[list] = None
        self.output_indices: Optional[list] = None

    @staticmethod
    def _pack(indices: list, values: Any, size: int) -> tuple:
        packed = [None] * size
        for index, value in zip(indices, values):
            packed[index] = value
        return tuple(packed)

    def _wrap(self, args: tuple, on_gradients: Any) -> tuple:
        """`args` with its tensors passed through an identity node whose backward calls
        `on_gradients`; and the positions of the tensors (None when none needs a gradient)."""
        indices = [i for i, arg in enumerate(args) if isinstance(arg, Tensor)]
        tensors = [args[i] for i in indices]
        if not (any(t.requires_grad for t in tensors) and grad_mode.is_grad_enabled()):
            return args, None
        wrapped = backward_hook_identity(tensors, on_gradients)
        new_args = list(args)
        for index, tensor, new in zip(indices, tensors, wrapped):
            new_args[index] = new if tensor.requires_grad else tensor
        return tuple(new_args), indices

    def _input_gradients(self, grads: list) -> list:
        if self.grad_outputs is None:
            return grads
        result = self._pack(self.input_indices, grads, self.n_inputs)
        for hook in self.hooks:
            out = hook(self.module, result, self.grad_outputs)
            if out is None:
                continue
            if len(out) != len(result):
                raise RuntimeError(f"Backward hook returned an invalid number of grad_input, got {len(out)}, but "
                                   f"expected {len(result)}")
            result = out
        self.grad_outputs = None
        return [result[i] for i in self.input_indices]

    def _output_gradients(self, grads: list) -> list:
        self.grad_outputs = self._pack(self.output_indices, grads, self.n_outputs)
        for hook in self.pre_hooks:
            replaced = hook(self.module, self.grad_outputs)
            if replaced is None:
                continue
            if len(replaced) != len(self.grad_outputs):
                raise RuntimeError(f"Backward pre hook returned an invalid number of grad_output, got "
                                   f"{len(replaced)}, but expected {len(self.grad_outputs)}")
            self.grad_outputs = replaced
        passed_on = self.grad_outputs
        if self.input_indices is None:
            warn("UserWarning", _NO_INPUT_GRAD_WARNING)
            nothing = self._pack([], [], self.n_inputs)
            for hook in self.hooks:
                out = hook(self.module, nothing, self.grad_outputs)
                if out is not None and not (isinstance(out, tuple) and all(g is None for g in out)):
                    raise RuntimeError("Backward hook for Modules where no input requires gradient should always "
                                       "return None or None for all gradients.")
            self.grad_outputs = None
        return [passed_on[i] for i in self.output_indices]

    def setup_input_hook(self, args: tuple) -> tuple:
        wrapped, self.input_indices = self._wrap(args, self._input_gradients)
        self.n_inputs = len(args)
        return wrapped

    def setup_output_hook(self, result: Any) -> Any:
        is_tuple = isinstance(result, tuple)
        outputs = result if is_tuple else (result,)
        wrapped, self.output_indices = self._wrap(outputs, self._output_gradients)
        self.n_outputs = len(outputs)
        return wrapped if is_tuple else wrapped[0]
