"""A program's own file system: one tree in memory per session, empty at the start.

Nothing here touches a host file or descriptor: paths are strings resolved against this tree
alone (the root is the tree's, `..` stops there, there are no links), and what a program writes
is bytes in a node. Errors are Python's own, with the words and numbers the kernel gives them.
A ceiling on the bytes all files hold ends a runaway writer as a full disk does.
"""
from __future__ import annotations

import errno
import os
import time
from contextlib import contextmanager
from typing import Any, Iterator, Optional, Union

from ..display.names import type_name

CEILING = 256 * 1024 * 1024  # bytes all of a session's files may hold together
WORKING_DIRECTORY = "/program"  # os.getcwd(), and the home directory
TEMPORARY_DIRECTORY = "/tmp"

Path = Union[str, bytes, Any]  # what a program passes: str, bytes or an os.PathLike


def error(code: int, path: Any = None, other: Any = None) -> OSError:
    """The OSError subclass Python raises for `code` (FileNotFoundError for ENOENT, ...)."""
    if path is None:
        return OSError(code, os.strerror(code))
    if other is None:
        return OSError(code, os.strerror(code), path)
    return OSError(code, os.strerror(code), path, None, other)


def fspath(path: Path) -> str:
    """The path as an exact str: a PathLike's own `__fspath__` asked, bytes decoded as os does."""
    value = os.fspath(path)  # Python's TypeError for anything else
    if isinstance(value, bytes):
        value = os.fsdecode(bytes(value))
    value = str.__str__(value)  # a str subclass's methods decide nothing below
    if "\0" in value:
        raise ValueError("embedded null byte")
    return value


def shown(path: Path) -> Any:
    """The path as Python's errors show it: a string or bytes as given, a PathLike's fspath."""
    value = os.fspath(path)
    return bytes(value) if isinstance(value, bytes) else str.__str__(value)


class File:
    __slots__ = ("data", "modified")

    def __init__(self) -> None:
        self.data = bytearray()
        self.modified = time.time()


class Directory:
    __slots__ = ("entries", "modified")

    def __init__(self) -> None:
        self.entries: dict = {}
        self.modified = time.time()


Node = Union[File, Directory]


class Environment(dict):
    """os.environ: a mapping of strings to strings, shown as Python shows it; no variable of the
    host's is ever in it."""

    def __setitem__(self, key: Any, value: Any) -> None:
        for item in (key, value):
            if not isinstance(item, str):
                raise TypeError(f"str expected, not {type_name(item)}")
        super().__setitem__(key, value)

    def setdefault(self, key: Any, value: Any = None) -> Any:
        if key not in self:
            self[key] = value
        return self[key]

    def copy(self) -> dict:
        return dict(self)

    def __repr__(self) -> str:
        return f"environ({dict.__repr__(self)})"


Environment.__module__ = "os"
Environment.__name__ = Environment.__qualname__ = "_Environ"


class FileTree:
    """The directories and files of one session."""

    def __init__(self, ceiling: int = CEILING) -> None:
        self.root = Directory()
        self.ceiling = ceiling
        self.used = 0
        self.environment = Environment()
        self.numbers: dict = {}  # the file numbers tempfile.mkstemp gave -> their paths
        for directory in (WORKING_DIRECTORY, TEMPORARY_DIRECTORY):
            self.root.entries[directory.strip("/")] = Directory()

    # ---------------------------------------------------------------- paths

    @staticmethod
    def parts(path: Path) -> list:
        """The names from the root to `path`, `.` and `..` applied (`..` at the root stays there)."""
        text = fspath(path)
        if not text:
            raise error(errno.ENOENT, shown(path))
        if not text.startswith("/"):
            text = f"{WORKING_DIRECTORY}/{text}"
        names: list = []
        for name in text.split("/"):
            if name == "..":
                if names:
                    names.pop()
            elif name and name != ".":
                names.append(name)
        return names

    @staticmethod
    def names(path: Path) -> list:
        """The path's names from the root as written, `.` and `..` kept (each is looked up as the
        kernel does: what precedes it must be a directory that exists)."""
        text = fspath(path)
        if not text:
            raise error(errno.ENOENT, shown(path))
        if not text.startswith("/"):
            text = f"{WORKING_DIRECTORY}/{text}"
        return [name for name in text.split("/") if name]

    def walk(self, path: Path, names: list) -> Optional[Node]:
        """The node `names` lead to, or None where one is missing; NotADirectoryError where a
        file is taken for a directory."""
        trail: list = [self.root]
        for name in names:
            node = trail[-1]
            if not isinstance(node, Directory):
                raise error(errno.ENOTDIR, shown(path))
            if name == "..":
                if len(trail) > 1:
                    trail.pop()
            elif name != ".":
                child = node.entries.get(name)
                if child is None:
                    return None
                trail.append(child)
        return trail[-1]

    def find(self, path: Path) -> Optional[Node]:
        """The node at `path`, or None where there is none; NotADirectoryError where a file is
        taken for a directory."""
        node = self.walk(path, self.names(path))
        if fspath(path).endswith("/") and isinstance(node, File):
            raise error(errno.ENOTDIR, shown(path))
        return node

    def get(self, path: Path) -> Node:
        node = self.find(path)
        if node is None:
            raise error(errno.ENOENT, shown(path))
        return node

    def directory(self, path: Path) -> Directory:
        node = self.get(path)
        if not isinstance(node, Directory):
            raise error(errno.ENOTDIR, shown(path))
        return node

    def parent(self, path: Path) -> tuple:
        """The directory that holds (or would hold) `path`, and the name in it."""
        names = self.names(path)
        if not names:
            raise error(errno.EBUSY, shown(path))  # the root has none
        if names[-1] in (".", ".."):  # names a directory by its path, not by a name in one
            found = self.walk(path, names)
            raise error(errno.EBUSY if found is not None else errno.ENOENT, shown(path))
        node = self.walk(path, names[:-1])
        if node is None:
            raise error(errno.ENOENT, shown(path))
        if not isinstance(node, Directory):
            raise error(errno.ENOTDIR, shown(path))
        return node, names[-1]

    # ---------------------------------------------------------------- changes

    def make_file(self, path: Path, exclusive: bool = False, truncate: bool = False) -> File:
        """The file at `path`, made if missing (empty if `truncate`)."""
        node = self.find(path)
        if node is None and fspath(path).endswith("/"):
            raise error(errno.EISDIR, shown(path))  # a new file's name cannot end as a directory's
        if node is None:
            directory, name = self.parent(path)
            node = directory.entries[name] = File()
            directory.modified = time.time()
        elif exclusive:
            raise error(errno.EEXIST, shown(path))
        if isinstance(node, Directory):
            raise error(errno.EISDIR, shown(path))
        if truncate:
            self.resize(node, 0)
        return node

    def make_directory(self, path: Path) -> Directory:
        if self.find(path) is not None:
            raise error(errno.EEXIST, shown(path))
        directory, name = self.parent(path)
        made = directory.entries[name] = Directory()
        directory.modified = time.time()
        return made

    def remove(self, path: Path, directory_wanted: bool) -> None:
        """os.remove (a file) or os.rmdir (an empty directory)."""
        node = self.get(path)
        if directory_wanted:
            if not isinstance(node, Directory):
                raise error(errno.ENOTDIR, shown(path))
            names = self.names(path)
            if not names:
                raise error(errno.EBUSY, shown(path))  # the root
            if names[-1] == ".":
                raise error(errno.EINVAL, shown(path))
            if node.entries:
                raise error(errno.ENOTEMPTY, shown(path))
        elif isinstance(node, Directory):
            raise error(errno.EISDIR, shown(path))
        parent, name = self.parent(path)
        del parent.entries[name]
        parent.modified = time.time()
        if isinstance(node, File):
            self.used -= len(node.data)

    def remove_tree(self, node: Node) -> None:
        """Count a removed subtree's bytes free."""
        if isinstance(node, File):
            self.used -= len(node.data)
        else:
            for child in node.entries.values():
                self.remove_tree(child)

    def rename(self, source: Path, target: Path, replace: bool = True) -> None:
        """os.rename and os.replace: a file over a file, a directory over an empty directory."""
        try:
            node = self.get(source)
            target_node = self.find(target)
        except OSError as failure:
            raise error(failure.errno, shown(source), shown(target)) from None
        for names in (self.names(source), self.names(target)):
            if not names or names[-1] in (".", ".."):  # a directory by its path: the kernel's EBUSY
                raise error(errno.EBUSY, shown(source), shown(target))
        if target_node is node:
            return
        if target_node is not None:
            if isinstance(node, Directory) and not isinstance(target_node, Directory):
                raise error(errno.ENOTDIR, shown(source), shown(target))
            if isinstance(node, File) and isinstance(target_node, Directory):
                raise error(errno.EISDIR, shown(source), shown(target))
            if isinstance(target_node, Directory) and target_node.entries:
                raise error(errno.ENOTEMPTY, shown(source), shown(target))
        target_parts, source_parts = self.parts(target), self.parts(source)
        if isinstance(node, Directory) and target_parts[:len(source_parts)] == source_parts:
            raise error(errno.EINVAL, shown(source), shown(target))
        try:
            target_directory, target_name = self.parent(target)
        except OSError as failure:
            raise error(failure.errno, shown(source), shown(target)) from None
        source_directory, source_name = self.parent(source)
        del source_directory.entries[source_name]
        if isinstance(target_node, File):
            self.used -= len(target_node.data)
        target_directory.entries[target_name] = node
        source_directory.modified = target_directory.modified = time.time()

    def resize(self, node: File, size: int) -> None:
        """Grow (with zeros) or shrink a file, within the ceiling."""
        self.reserve(size - len(node.data))
        if size < len(node.data):
            del node.data[size:]
        else:
            node.data.extend(bytes(size - len(node.data)))
        node.modified = time.time()

    def reserve(self, more: int) -> None:
        if more > 0 and self.used + more > self.ceiling:
            raise error(errno.ENOSPC)
        self.used += more


_active: list = [FileTree()]  # the tree of the session whose program runs now


def active() -> FileTree:
    return _active[-1]


@contextmanager
def using(tree: FileTree) -> Iterator[None]:
    """`tree` is the program's file system while the block runs."""
    _active.append(tree)
    try:
        yield
    finally:
        _active.pop()
