"""What Shift-Tab shows for the name under the cursor: worked out in the worker, where the
program's values live, by reading the chain of names through the guard (nothing is called).

`describe` answers with the PyTorch name the value stands for (`torch.add`, `torch.Tensor.backward`
for `x.backward`, `torch.nn.Linear` for a Linear module), whose signature and docstring's first
line the kernel looks up in torch_docs.json, and the value's type and short repr."""
from __future__ import annotations

import types
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..session import Session


def _torch_name_of(value: Any) -> str:
    """The PyTorch name of a module, class or function of gradcalc's, else ""."""
    if isinstance(value, types.ModuleType) or type(value).__name__ == "module":
        name = getattr(value, "__name__", "")
    elif isinstance(value, type):
        name = f"{value.__module__}.{value.__qualname__}"
        if name.startswith("torch.nn.modules."):  # nn.Linear is documented as torch.nn.Linear
            name = "torch.nn." + value.__qualname__
        elif value.__qualname__ == "Tensor":
            name = "torch.Tensor"
    else:
        return ""
    return name if isinstance(name, str) and name.startswith("torch") else ""


def describe(session: Session, dotted: str) -> dict:
    """{"name": the PyTorch name or "", "type": type name, "repr": short repr}; {"error": ...}
    when the chain cannot be read."""
    from ..autograd.tensor import Tensor
    from ..display.inspection import lookup, reading_program, safe_repr

    *owner_chain, last = dotted.split(".")
    try:
        value = lookup(session.namespace, session.builtins, dotted)
        owner = lookup(session.namespace, session.builtins, ".".join(owner_chain)) if owner_chain else None
    except Exception:  # a name not defined, an attribute not readable
        return {"error": f"no name {dotted!r}"}
    name = _torch_name_of(value)
    if not name and owner is not None:
        base = "torch.Tensor" if isinstance(owner, Tensor) else _torch_name_of(owner if isinstance(owner, type)
                                                                                 else type(owner))
        base = base or _torch_name_of(owner)
        name = f"{base}.{last}" if base else ""
    if not name and not callable(value) and not isinstance(value, type):
        name = _torch_name_of(type(value))
    with reading_program():
        text = safe_repr(value, limit=200)
    return {"name": name, "type": type(value).__name__, "repr": text}


def graph_svg(session: Session, name: str) -> dict:
    """{"svg": ...}: the autograd graph behind `name` as the web page draws it (display/picture.py);
    {"error": ...} when there is no such tensor, or no SVG renderer in this installation."""
    from ..display import graph

    try:
        from ..display import picture
    except ImportError:
        return {"error": "this gradcalc draws graphs as text only"}
    try:
        found = graph.collect(graph.lookup_tensor(session.namespace, session.builtins, name), name, session.namespace)
    except graph.GraphError as error:
        return {"error": str(error)}
    return {"svg": picture.to_svg(found)}
