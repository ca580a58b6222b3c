"""argparse as a program gets it: an ArgumentParser that reads no `@file` and sets, on the
namespace it fills, only the `dest`s the guard would let the program set itself; a Namespace
whose keyword arguments are set as the guard allows and whose class answers none of numpy's
protocols."""
from __future__ import annotations

import argparse
from typing import Any

from .. import guard, policy
from ...display.names import torch_class, type_name


@torch_class("argparse.Namespace")
class Namespace(argparse.Namespace):
    """argparse.Namespace as a program makes it: its keyword arguments set as the guard allows,
    its class shielded (policy.shield_class)."""

    def __init__(self, **kwargs: Any) -> None:
        for name in kwargs:
            guard.check_writable(self, guard.exact_name(name))
        super().__init__(**kwargs)


policy.shield_class(Namespace)


class ArgumentParserMixin:
    """An ArgumentParser whose command line is empty (a script from pytorch/examples runs on its
    defaults), which reads no `@file`, and sets only `dest`s the guard would let a program set
    on the namespace it fills."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        prefix = kwargs.get("fromfile_prefix_chars", args[7] if len(args) > 7 else None)
        if prefix is not None:
            raise PermissionError("ArgumentParser(fromfile_prefix_chars=...) is not available in gradcalc: "
                                  "a program cannot read files")
        super().__init__(*args, **kwargs)

    def parse_args(self, args: Any = None, namespace: Any = None) -> Any:
        return super().parse_args([] if args is None else args, namespace)  # type: ignore[misc]

    def parse_known_args(self, args: Any = None, namespace: Any = None) -> Any:
        if namespace is None:
            namespace = Namespace()
        elif not (type(namespace) is Namespace or policy.is_program_class(type(namespace))):
            self._no_attributes(namespace)
            raise TypeError("parse_args() in gradcalc fills an argparse.Namespace or an object of the program's own")
        dests = [action.dest for action in self._actions] + list(self._defaults)  # type: ignore[attr-defined]
        for dest in dests:
            if dest == argparse.SUPPRESS:
                continue
            if type(dest) is not str:
                raise TypeError("an argument's dest must be a str in gradcalc")
            guard.check_writable(namespace, dest)
        return super().parse_known_args([] if args is None else args, namespace)  # type: ignore[misc]

    def _no_attributes(self, namespace: Any) -> None:
        """The AttributeError argparse meets setting the first default on an object that takes no
        attributes (a list, a str, None), as Python's setattr words it."""
        if hasattr(type(namespace), "__dictoffset__") and type(namespace).__dictoffset__:
            return
        for action in self._actions:  # type: ignore[attr-defined]
            dest = action.dest
            if dest == argparse.SUPPRESS or action.default is argparse.SUPPRESS or type(dest) is not str:
                continue
            if dest not in dir(type(namespace)):
                raise AttributeError(f"'{type_name(namespace)}' object has no attribute '{dest}'")
            return


# Python's messages about a call's arguments name the method as argparse's own
for _method in (ArgumentParserMixin.__init__, ArgumentParserMixin.parse_args, ArgumentParserMixin.parse_known_args):
    _method.__qualname__ = f"ArgumentParser.{_method.__name__}"
