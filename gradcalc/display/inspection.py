"""Reading a program's tensors and modules for the REPL's views (`:vars`, `:graph`).

The views are gradcalc's own, outside the program, but what they read belongs to the program.
So they read through gradcalc's classes (`Tensor.shape.fget(t)`, never `t.shape`, which a
program's subclass may override), call no method a program defined (repr aside), and do it
inside `reading_program()`: behind the sandbox's wall, with warnings (a non-leaf's `.grad`)
kept from the user. They hand the program nothing: what they find becomes plain text.
"""
from __future__ import annotations

import warnings as python_warnings
from contextlib import contextmanager
from typing import Any, Iterator, Optional

from ..autograd.tensor import Tensor
from ..language import limits

# a tensor whose values fit on one short line is shown whole
SMALL_TENSOR = 6
# names a session holds that are not the program's variables: the compiler's temporaries ($...),
# Python's dunders and `_`, the last echoed value
HIDDEN_NAMES = ("$", "__")


@contextmanager
def reading_program() -> Iterator[None]:
    """Program objects are read here: behind the wall, warnings silenced."""
    with limits.wall_up(), python_warnings.catch_warnings():
        python_warnings.simplefilter("ignore")
        yield


def variables(namespace: dict) -> list[tuple[str, Any]]:
    """The program's own names and values, in the order they were first bound."""
    return [(name, value) for name, value in list(namespace.items())
            if not name.startswith(HIDDEN_NAMES) and name != "_"]


def tensor_property(tensor: Tensor, name: str) -> Any:
    """`tensor.name` as gradcalc's Tensor computes it, whatever a subclass says."""
    return getattr(Tensor, name).__get__(tensor, Tensor)


def describe_shape(tensor: Tensor) -> str:
    return "[" + ", ".join(str(size) for size in tensor_property(tensor, "shape")) + "]"


def describe_dtype(tensor: Tensor) -> str:
    return str(tensor_property(tensor, "dtype")).removeprefix("torch.")


def node_name(node: Any) -> str:
    """PyTorch's name of a grad_fn as its repr shows it: `AccumulateGrad`, not `torch::autograd::...`."""
    from ..autograd.engine import Node

    try:
        name = Node.name(node) if _is_program_object(node) else node.name()
    except Exception:  # a node whose history became invalid
        return type(node).__name__
    return name.rsplit("::", 1)[-1]


def grad_of(tensor: Tensor) -> Optional[Tensor]:
    grad = tensor_property(tensor, "grad")
    return grad if isinstance(grad, Tensor) else None


def version_of(tensor: Tensor) -> Optional[int]:
    try:
        return tensor_property(tensor, "_version")
    except RuntimeError:  # an inference tensor keeps no version
        return None


def short_value(tensor: Tensor) -> str:
    """The tensor's repr when it is small and flat enough for one line, else its shape and dtype."""
    if Tensor.numel(tensor) <= SMALL_TENSOR and len(tensor_property(tensor, "shape")) <= 1:
        text = Tensor.__repr__(tensor)  # gradcalc's own: never a repr a program's subclass defined
        if "\n" not in text:
            return text
    return f"{describe_shape(tensor)} {describe_dtype(tensor)}"


def module_parameters(module: Any) -> list[Tensor]:
    """Every parameter of a module and its submodules, each once, as `parameters()` gives them,
    read from the registries rather than through methods a program's subclass may override."""
    found: dict[int, Tensor] = {}
    stack, seen = [module], set()
    while stack:
        current = stack.pop()
        if id(current) in seen:
            continue
        seen.add(id(current))
        state = object.__getattribute__(current, "__dict__")
        for param in (state.get("_parameters") or {}).values():
            if isinstance(param, Tensor):
                found.setdefault(id(param), param)
        children = [child for child in (state.get("_modules") or {}).values() if child is not None]
        stack.extend(reversed(children))
    return list(found.values())


def _is_program_object(value: Any) -> bool:
    from ..language.policy import is_program_class

    return any(is_program_class(cls) for cls in type(value).__mro__)


def error_line(error: BaseException) -> str:
    """`ErrorType: message`, for an error met while reading (inside reading_program: a program's
    exception has a message of its own making)."""
    try:
        text = str(error)
    except Exception:
        text = ""
    return f"{type(error).__name__}: {text}" if text else type(error).__name__


def safe_repr(value: Any, limit: int = 60) -> str:
    """A short repr of any value; a program's own repr runs behind the wall (see reading_program)."""
    try:
        text = repr(value)
    except Exception:
        text = f"<{type(value).__name__} object>"
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit - 3] + "..."


def lookup(namespace: dict, builtins: dict, dotted: str) -> Any:
    """The value of a name or a dotted chain of names (`model.weight.grad`), read as the program
    would read it, through the sandbox's guard: nothing is called. KeyError if the first name is
    not defined; the guard's AttributeError for an attribute that is not there or not readable."""
    from ..language.guard import guarded_getattr

    first, *rest = dotted.split(".")
    if first.startswith(HIDDEN_NAMES):
        raise KeyError(first)
    value = namespace[first] if first in namespace else builtins[first]
    with reading_program():
        for name in rest:
            value = guarded_getattr(value, name)
    return value
