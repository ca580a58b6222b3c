"""The modules a program can import, and the import statement's way to them.

Each importable module is a table of members, built once per process when first imported; a
session makes its own Namespace of each (a program may set `torch.backends.cudnn.benchmark`
without touching another session's). A module that reaches files, processes or the network is
refused in one line saying why (files are the session's own: gradcalc/files); any other name is
Python's ModuleNotFoundError.
"""
from __future__ import annotations

import functools
from typing import Any, Callable, Optional

from ..limits import wall_paused, with_room
from . import torch
from .namespace import Deferred, Namespace, Submodule, member, members

# Modules a program may not import, and why.
_HOST = "it reaches the host's files, processes and environment"
REFUSED = {
    "posix": _HOST, "nt": _HOST, "fileinput": "it reaches the host's files",
    "marshal": "it loads code", "shelve": "it reaches the host's files", "subprocess": "it starts processes",
    "multiprocessing": "it starts processes", "threading": "a program runs in one thread",
    "_thread": "a program runs in one thread", "concurrent": "a program runs in one thread",
    "asyncio": "a program runs in one thread", "signal": _HOST, "socket": "it reaches the network",
    "ssl": "it reaches the network", "http": "it reaches the network", "urllib": "it reaches the network",
"ctypes": "it reaches host memory", "cffi": "it reaches host memory",
    "mmap": "it reaches host memory", "importlib": "it imports host modules", "imp": "it imports host modules",
    "pkgutil": "it imports host modules", "runpy": "it imports host modules", "builtins": "it reaches the host",
    "gc": "it reaches every object of the host",
    "traceback": "it reaches frames", "code": "it runs code from strings", "codeop": "it runs code from strings",
    "platform": _HOST, "resource": _HOST, "sysconfig": _HOST, "site": _HOST, "pty": "it starts processes",
    "webbrowser": "it starts processes", "sqlite3": "it reaches the host's files",
    "zipfile": "it reaches the host's files",
    "tarfile": "it reaches the host's files",
}

_TEMPLATES: dict = {}  # module name -> member table (values may be Submodule markers)


def _builders() -> dict:
    from ...files import modules as file_modules
    from . import introspection, numpy, stdlib

    # (io's and json's tables are stdlib's, with the members that take a program's files)
    return {**stdlib.BUILDERS, **numpy.BUILDERS, **introspection.BUILDERS, **file_modules.BUILDERS}


def _template(name: str) -> Optional[dict]:
    if name not in _TEMPLATES:
        with wall_paused():
            _build_template(name)
    return _TEMPLATES.get(name)


def _build_template(name: str) -> None:
    if name == "torch" or name.startswith("torch."):
        build = torch.BUILDERS.get(name)
        if build is not None:
            _TEMPLATES[name] = build()
        return
    builder = _builders().get(name)
    if builder is not None:
        _TEMPLATES[name] = builder()


def _exists(name: str) -> bool:
    if name == "torch" or name.startswith("torch."):
        return name in torch.BUILDERS
    return name in _builders()


def _paused(load: Callable[[], Any]) -> Any:
    with wall_paused():  # loading imports gradcalc's modules, reading their files
        return load()


def _refusal(name: str) -> Optional[str]:
    top = name.partition(".")[0]
    return REFUSED.get(name) or REFUSED.get(top)


class ModuleTable:
    """The modules one session has imported; also its `__import__`."""

    def __init__(self, extra: Optional[Callable[[str], dict]] = None) -> None:
        self.loaded: dict = {}
        # what a session adds to a module, by its name (sys.stdout is the session's output)
        self.extra = extra or (lambda name: {})

    def get(self, name: str) -> Namespace:
        module = self.loaded.get(name)
        if module is not None:
            return module
        why = _refusal(name)
        if why is not None:
            raise ImportError(f"gradcalc programs cannot import {name}: {why}", name=name)
        if not _exists(name):
            # Python names the first package that is missing (`import torchvision.transforms`: 'torchvision')
            parts = name.split(".")
            missing = next(".".join(parts[:depth]) for depth in range(1, len(parts) + 1)
                           if not _exists(".".join(parts[:depth])))
            raise ModuleNotFoundError(f"No module named '{missing}'", name=missing)
        module = self.loaded[name] = Namespace(name, with_room(functools.partial(self.extra, name)),
                                                functools.partial(self._table, name))
        return module

    def _table(self, name: str) -> tuple:
        """A module's members and the loaders of those that load when reached (its submodules)."""
        template = _template(name)
        plain = {key: value for key, value in template.items() if not isinstance(value, (Submodule, Deferred))}
        deferred = {key: functools.partial(self.get, value.name) if isinstance(value, Submodule)
                    else functools.partial(_paused, value.load)
                    for key, value in template.items() if isinstance(value, (Submodule, Deferred))}
        return plain, deferred

    def import_name(self, name: str, as_module: bool) -> Namespace:
        """`import name`: the top-level module, which leads to the named one; with `as`, the module."""
        module = self.get(name)
        if as_module:
            return module
        parts = name.split(".")
        for depth in range(1, len(parts)):
            parent = self.get(".".join(parts[:depth]))
            try:
                reached = member(parent, parts[depth])
            except KeyError:
                reached = None
            if reached is not self.get(".".join(parts[:depth + 1])):
                raise ModuleNotFoundError(f"No module named '{name}'")
        return self.get(parts[0])

    def import_from(self, name: str, names: tuple, level: int) -> tuple:
        """`from name import a, b`: the values of a and b."""
        if level:
            raise ImportError("attempted relative import with no known parent package")
        module = self.get(name)
        values = []
        for item in names:
            try:
                values.append(member(module, item))
            except KeyError:
                raise ImportError(f"cannot import name '{item}' from '{name}' (unknown location)") from None
        return tuple(values)

    def import_star(self, namespace: dict, name: str, level: int) -> None:
        """`from name import *` into a program's namespace."""
        if level:
            raise ImportError("attempted relative import with no known parent package")
        module = self.get(name)
        namespace.update(members(module))


def importable(name: str) -> bool:
    return _refusal(name) is None and _exists(name)


__all__ = ["ModuleTable", "Namespace", "Submodule", "REFUSED", "importable"]
