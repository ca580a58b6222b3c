"""inspect and unicodedata, as far as real material uses them.

unicodedata is pure functions of characters (the NLP tutorials' `unicodeToAscii`, minbpe's
control-character escaping): all of it is offered.

inspect is mostly a door to frames, code objects and globals, so only its signature part is
offered, and that wrapped: `signature(obj)` (nanoGPT asks `'fused' in
inspect.signature(torch.optim.AdamW).parameters`) without `eval_str`, `globals` and `locals`,
which would eval annotation strings in a function's globals outside the guard, and the
Signature and Parameter classes without `from_callable`, the same door again. The signature of
one of gradcalc's own callables shows names, kinds and defaults, and PyTorch's annotations as
inspect shows them (recorded by tools/record_python_signatures.py), never gradcalc's own; one of
its C-like functions (`torch.add`) has none, as PyTorch's built-ins have none. The
predicates offered read nothing of the object but its type.
"""
from __future__ import annotations

import functools
import inspect
import json
import types
from pathlib import Path
from typing import Any, Optional

from .. import policy
from ..builtins import Builtin
from ...display.names import torch_class


def _program_owned(obj: Any) -> bool:
    """A function, method or class the program wrote (the guard's test for classes; a function's
    module is the program's)."""
    if isinstance(obj, types.MethodType):
        obj = obj.__func__
    if isinstance(obj, types.FunctionType):
        return obj.__module__ == "__main__"
    return policy.is_program_class(obj)


def _c_like(obj: Any) -> bool:
    from ...autograd.ops.generate import BuiltinFunction
    from ...display.names import BuiltinMethod

    return isinstance(obj, (BuiltinFunction, BuiltinMethod, Builtin))


def signature(obj: Any, *, follow_wrapped: bool = True) -> inspect.Signature:
    if _c_like(obj):
        raise ValueError(f"no signature found for builtin {obj!r}")
    found = inspect.signature(obj, follow_wrapped=follow_wrapped)
    # a program's wrapper of one of gradcalc's callables (functools.wraps) shows gradcalc's signature
    if _program_owned(obj) and (not follow_wrapped or _program_owned(inspect.unwrap(obj))):
        return found
    # gradcalc's own callable: its names, kinds and defaults (PyTorch's), PyTorch's annotations
    recorded = _recorded().get(f"{getattr(obj, '__module__', '')}.{getattr(obj, '__qualname__', '')}")
    names = [p.name for p in found.parameters.values()]
    if recorded is None or [name for name, _ in recorded["parameters"]] != names:
        recorded = {"parameters": [(name, None) for name in names], "return": None}
    parameters = [p.replace(annotation=_annotation(shown))
                  for p, (_, shown) in zip(found.parameters.values(), recorded["parameters"])]
    return found.replace(parameters=parameters, return_annotation=_annotation(recorded["return"]))


@torch_class("types.UnionType")  # what most of PyTorch's annotations are (`float | torch.Tensor`)
class ShownAnnotation:
    """An annotation as inspect shows PyTorch's: its text (the type itself is PyTorch's, not gradcalc's)."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text

    def __repr__(self) -> str:
        return self.text


def _annotation(shown: Optional[str]) -> Any:
    if shown is None:
        return inspect.Parameter.empty
    plain = _plain_annotations()
    return plain[shown] if shown in plain else ShownAnnotation(shown)


@functools.cache
def _plain_annotations() -> dict:
    """The annotations that are classes a program holds anyway: those themselves, as in PyTorch."""
    from ...autograd.dtypes import DType
    from ...autograd.random import Generator
    from ...autograd.tensor import Device, Size, Tensor

    return {"int": int, "float": float, "bool": bool, "str": str, "complex": complex, "None": None,
            "torch.Tensor": Tensor, "torch.Size": Size, "torch.dtype": DType, "torch.device": Device,
            "torch.Generator": Generator}


@functools.cache
def _recorded() -> dict:
    return json.loads((Path(__file__).with_name("python_signatures.json")).read_text(encoding="utf-8"))


signature.__module__ = "inspect"


def _predicate(name: str) -> Any:
    test = getattr(inspect, name)

    def predicate(obj: Any) -> bool:
        return test(obj)
    predicate.__name__ = predicate.__qualname__ = name
    predicate.__module__ = "inspect"
    return predicate


# predicates that look at the object's type only (isgeneratorfunction and its kin read code flags:
# harmless, but nothing real material asks)
_PREDICATES = ("isclass", "isfunction", "ismethod", "isbuiltin", "isroutine", "isgenerator", "isabstract")


def _inspect() -> dict:
    signature_read = {"parameters", "return_annotation", "bind", "bind_partial", "replace", "empty", "__eq__",
                      "__hash__", "__str__", "__repr__"}
    policy.allow_module_types([inspect.Signature], read=signature_read)
    policy.allow_module_types([inspect.Parameter], read={
        "name", "default", "annotation", "kind", "replace", "empty", "POSITIONAL_ONLY", "POSITIONAL_OR_KEYWORD",
        "VAR_POSITIONAL", "KEYWORD_ONLY", "VAR_KEYWORD", "__eq__", "__hash__", "__str__", "__repr__"})
    policy.allow_module_types([inspect.BoundArguments], read={"arguments", "args", "kwargs", "signature",
                                                               "apply_defaults", "__eq__"})
    policy.allow_module_types([inspect._ParameterKind], read={"name", "value", "description"})
    policy.allow_module_types([ShownAnnotation])
    members: dict = {name: _predicate(name) for name in _PREDICATES}
    members.update(signature=signature, Signature=inspect.Signature, Parameter=inspect.Parameter,
                   BoundArguments=inspect.BoundArguments)
    return members


def _unicodedata() -> dict:
    import unicodedata

    policy.allow_module_types([unicodedata.UCD], read=policy.public_names(unicodedata.UCD))
    return {name: getattr(unicodedata, name) for name in dir(unicodedata) if not name.startswith("_")}


BUILDERS: dict = {"inspect": _inspect, "unicodedata": _unicodedata}
