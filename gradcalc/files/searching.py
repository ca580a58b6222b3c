"""Finding names by pattern in a program's file tree: the `glob` module, and Path.glob's walk."""
from __future__ import annotations

import fnmatch
import glob as host_glob
import posixpath
from typing import Any, Iterator

from . import tree as files


def _children(directory: str, hidden: bool) -> list:
    node = files.active().find(directory or ".")
    if not isinstance(node, files.Directory):
        return []
    return [(name, child) for name, child in node.entries.items() if hidden or not name.startswith(".")]


def _descendants(directory: str, hidden: bool) -> Iterator[str]:
    """`directory` itself (as ''), then every directory below it, as paths relative to it."""
    yield ""
    for name, child in _children(directory, hidden):
        if isinstance(child, files.Directory):
            for below in _descendants(posixpath.join(directory, name), hidden):
                yield posixpath.join(name, below) if below else name


def match(directory: str, parts: list, hidden: bool, recursive: bool) -> Iterator[str]:
    """Paths under `directory` (relative to it) matching the pattern's parts, one part a level."""
    if not parts:
        yield ""
        return
    first, rest = parts[0], parts[1:]
    if recursive and first == "**":
        for below in _descendants(directory, hidden):
            for found in match(posixpath.join(directory, below), rest, hidden, recursive):
                joined = posixpath.join(below, found) if below else found
                if joined:
                    yield joined
        return
    if not host_glob.has_magic(first):
        candidates = [(first, files.active().find(posixpath.join(directory, first) if directory else first))]
        candidates = [(name, node) for name, node in candidates if node is not None]
    else:
        candidates = [(name, node) for name, node in _children(directory, hidden or first.startswith("."))
                      if fnmatch.fnmatchcase(name, first)]
    for name, node in candidates:
        if not rest:
            yield name
        elif isinstance(node, files.Directory):
            for found in match(posixpath.join(directory, name), rest, hidden, recursive):
                yield posixpath.join(name, found) if found else name + "/"


def glob(pathname: Any, *, root_dir: Any = None, dir_fd: Any = None, recursive: bool = False,
         include_hidden: bool = False) -> list:
    return list(iglob(pathname, root_dir=root_dir, recursive=recursive, include_hidden=include_hidden))


def iglob(pathname: Any, *, root_dir: Any = None, dir_fd: Any = None, recursive: bool = False,
          include_hidden: bool = False) -> Iterator[str]:
    pattern = files.fspath(pathname)
    absolute = pattern.startswith("/")
    start = "/" if absolute else files.fspath(root_dir) if root_dir is not None else ""
    parts = [part for part in pattern.split("/") if part]
    for found in match(start, parts, include_hidden, recursive):
        yield "/" + found if absolute else found


def glob_members() -> dict:
    return {"glob": glob, "iglob": iglob, "escape": host_glob.escape, "has_magic": host_glob.has_magic}
