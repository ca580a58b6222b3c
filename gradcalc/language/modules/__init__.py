"""The modules a program can import, and the import statement's way to them.

Each importable module is a table of members, built once per process when first imported; a
session makes its own Namespace of each (a program may set `torch.backends.cudnn.benchmark`
without touching another session's). A module that reaches files, processes or the network is
refused in one line saying why; any other name is Python's ModuleNotFoundError.
"""
from __future__ import annotations

from functools import partial
from typing import Callable, Optional

from ..limits import wall_paused
from .namespace import LazySubmodule, Namespace, Submodule

# Modules a program may not import, and why.
_HOST = "it reaches the host's files, processes and environment"
REFUSED = {
    "os": _HOST, "posix": _HOST, "nt": _HOST, "pathlib": "it reaches the host's files", "shutil": _HOST,
    "glob": "it reaches the host's files", "tempfile": "it reaches the host's files", "io.open": _HOST,
    "fileinput": "it reaches the host's files", "pickle": "unpickling runs arbitrary code",
    "marshal": "it loads code", "shelve": "it reaches the host's files", "subprocess": "it starts processes",
    "multiprocessing": "it starts processes", "threading": "a program runs in one thread",
    "_thread": "a program runs in one thread", "concurrent": "a program runs in one thread",
    "asyncio": "a program runs in one thread", "signal": _HOST, "socket": "it reaches the network",
    "ssl": "it reaches the network", "http": "it reaches the network", "urllib": "it reaches the network",
    "requests": "it reaches the network", "ctypes": "it reaches host memory", "cffi": "it reaches host memory",
    "mmap": "it reaches host memory", "importlib": "it imports host modules", "imp": "it imports host modules",
    "pkgutil": "it imports host modules", "runpy": "it imports host modules", "builtins": "it reaches the host",
    "gc": "it reaches every object of the host", "inspect": "it reaches frames and code objects",
    "traceback": "it reaches frames", "code": "it runs code from strings", "codeop": "it runs code from strings",
    "platform": _HOST, "resource": _HOST, "sysconfig": _HOST, "site": _HOST, "pty": "it starts processes",
    "webbrowser": "it starts processes", "sqlite3": "it reaches the host's files",
    "zipfile": "it reaches the host's files",
    "tarfile": "it reaches the host's files", "logging": "it writes to the host's files",
}

_TEMPLATES: dict = {}  # module name -> member table (values may be Submodule markers)


def _builders() -> dict:
    from . import numpy, stdlib

    return {**stdlib.BUILDERS, **numpy.BUILDERS}


def _template(name: str) -> Optional[dict]:
    if name not in _TEMPLATES:
        with wall_paused():
            _build_template(name)
    return _TEMPLATES.get(name)


def _build_template(name: str) -> None:
    if name == "torch.distributions" or name.startswith("torch.distributions."):
        from .torch import distribution_templates

        _TEMPLATES.update(distribution_templates())
        return
    if name == "torch" or name.startswith("torch."):
        from .torch import templates

        _TEMPLATES.update(templates())
        return
    builder = _builders().get(name)
    if builder is not None:
        _TEMPLATES[name] = builder()


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
        template = _template(name)
        if template is None:
            raise ModuleNotFoundError(f"No module named '{name}'", name=name)
        module = self.loaded[name] = Namespace(name, {})
        members = {key: self.get(value.name) if isinstance(value, Submodule) else value
                   for key, value in template.items() if not isinstance(value, LazySubmodule)}
        members.update(self.extra(name))
        lazy = {key: partial(self.get, value.name) for key, value in template.items()
                if isinstance(value, LazySubmodule)}
        if lazy:
            members["_lazy_members"] = lazy
        vars(module).update(members)
        return module

    def import_name(self, name: str, as_module: bool) -> Namespace:
        """`import name`: the top-level module, which leads to the named one; with `as`, the module."""
        module = self.get(name)
        if as_module:
            return module
        parts = name.split(".")
        for depth in range(1, len(parts)):
            parent = self.get(".".join(parts[:depth]))
            if getattr(parent, parts[depth], None) is not self.get(".".join(parts[:depth + 1])):
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
                values.append(getattr(module, item))  # a lazy submodule is made here
            except AttributeError:
                raise ImportError(f"cannot import name '{item}' from '{name}' (unknown location)") from None
        return tuple(values)

    def import_star(self, namespace: dict, name: str, level: int) -> None:
        """`from name import *` into a program's namespace."""
        if level:
            raise ImportError("attempted relative import with no known parent package")
        module = self.get(name)
        namespace.update((key, value) for key, value in vars(module).items() if not key.startswith("_"))


def importable(name: str) -> bool:
    return _refusal(name) is None and _template(name) is not None


__all__ = ["ModuleTable", "LazySubmodule", "Namespace", "Submodule", "REFUSED", "importable"]
