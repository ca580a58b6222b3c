"""Lazy modules: their input sizes are unknown until the first call, which materialises their
parameters (drawing their initial values then) and turns the module into its plain class."""
from __future__ import annotations

from typing import Any

from ..parameter import is_lazy
from .module import Module


class LazyModuleMixin:
    """Mixed in before the plain class: `cls_to_become` is what the module is after its first call."""

    __module__ = "torch.nn.modules.lazy"

    cls_to_become: Any = None

    def has_uninitialized_params(self) -> bool:
        return any(is_lazy(p) for p in self._parameters.values()) or any(is_lazy(b) for b in self._buffers.values())

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        # the first call materialises what is uninitialized and turns the module into its plain
        # class, even when nothing was (a LazyInstanceNorm without affine parameters or statistics)
        if self.cls_to_become is not None or self.has_uninitialized_params():
            self.initialize_parameters(*args, **kwargs)
        if self.cls_to_become is not None:
            self.__class__ = self.cls_to_become
        # the class may have changed: Module's call, not the next in this class's order
        return Module.__call__(self, *args, **kwargs)

    def initialize_parameters(self, *args: Any, **kwargs: Any) -> None:
        raise NotImplementedError(f"initialize_parameters is not implemented for {type(self).__name__}")
