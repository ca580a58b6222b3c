"""torch.nn.utils.init: skip_init, a module built without running its initialization."""
from __future__ import annotations

from typing import Any

from ..modules.module import Module

__all__ = ["skip_init"]


def skip_init(module_cls: Any, *args: Any, **kwargs: Any) -> Module:
    """`module_cls(*args, **kwargs)` built on the meta device, where its initialization draws
    nothing, then moved to `device` (the CPU by default) with its values left uninitialized."""
    if not (isinstance(module_cls, type) and issubclass(module_cls, Module)):
        raise RuntimeError(f"Expected a Module; got {module_cls}")
    final_device = kwargs.pop("device", "cpu")
    kwargs["device"] = "meta"
    try:
        module = module_cls(*args, **kwargs)
    except TypeError as error:  # (torch reads the signature first; a constructor without `device` refuses it)
        if type(error) is not TypeError or "unexpected keyword argument 'device'" not in str(error):
            raise
        raise RuntimeError("Module must support a 'device' arg to skip initialization") from None
    return module.to_empty(device=final_device)
