"""`shutil` and `tempfile` over a program's file tree."""
from __future__ import annotations

import errno
import posixpath
import random
from typing import Any, Optional

from . import os_module, streams
from . import tree as files

_names = random.Random()  # tempfile's own generator of names, as Python keeps one apart


# ------------------------------------------------------------------ shutil

def copyfile(src: Any, dst: Any, *, follow_symlinks: bool = True) -> Any:
    with streams.open_file(src, "rb") as source:
        data = source.read()
    with streams.open_file(dst, "wb") as target:
        target.write(data)
    return dst


def copy(src: Any, dst: Any, *, follow_symlinks: bool = True) -> Any:
    if os_module.isdir(dst):
        dst = posixpath.join(dst, posixpath.basename(files.fspath(src)))
    copyfile(src, dst)
    return dst


def copytree(src: Any, dst: Any, symlinks: bool = False, ignore: Any = None, copy_function: Any = copy,
             ignore_dangling_symlinks: bool = False, dirs_exist_ok: bool = False) -> Any:
    names = os_module.listdir(src)
    ignored = ignore(files.fspath(src), names) if ignore is not None else set()
    os_module.makedirs(dst, exist_ok=dirs_exist_ok)
    for name in names:
        if name in ignored:
            continue
        source, target = posixpath.join(src, name), posixpath.join(dst, name)
        if os_module.isdir(source):
            copytree(source, target, symlinks, ignore, copy_function, dirs_exist_ok=dirs_exist_ok)
        else:
            copy_function(source, target)
    return dst


def rmtree(path: Any, ignore_errors: bool = False, onerror: Any = None) -> None:
    tree = files.active()
    try:
        node = tree.get(path)
        if not isinstance(node, files.Directory):
            raise files.error(errno.ENOTDIR, files.shown(path))
        directory, name = tree.parent(path)
    except OSError as failure:
        if ignore_errors:
            return
        if onerror is not None:
            onerror(os_module.stat, files.shown(path), (type(failure), failure, None))
            return
        raise
    del directory.entries[name]
    tree.remove_tree(node)


def move(src: Any, dst: Any, copy_function: Any = copy) -> Any:
    target = dst
    if os_module.isdir(dst):
        target = posixpath.join(dst, posixpath.basename(files.fspath(src).rstrip("/")))
        if os_module.exists(target):
            raise Error(f"Destination path '{target}' already exists")
    os_module.rename(src, target)
    return target


class Error(OSError):
    pass


Error.__module__ = "shutil"


def shutil_members() -> dict:
    return {"copyfile": copyfile, "copy": copy, "copy2": copy, "copytree": copytree, "rmtree": rmtree,
            "move": move, "Error": Error}


# ------------------------------------------------------------------ tempfile

def gettempdir() -> str:
    return files.TEMPORARY_DIRECTORY


def _unused_name(directory: Optional[str], prefix: Optional[str], suffix: Optional[str]) -> str:
    characters = "abcdefghijklmnopqrstuvwxyz0123456789_"
    while True:
        name = "".join(_names.choice(characters) for _ in range(8))
        path = posixpath.join(directory or gettempdir(), f"{'tmp' if prefix is None else prefix}{name}{suffix or ''}")
        if not os_module.exists(path):
            return path


def mkdtemp(suffix: Optional[str] = None, prefix: Optional[str] = None, dir: Optional[str] = None) -> str:
    path = _unused_name(dir, prefix, suffix)
    os_module.mkdir(path)
    return path


class TemporaryDirectory:
    """A directory removed with what it holds when the block ends or `cleanup()` is called."""

    def __init__(self, suffix: Optional[str] = None, prefix: Optional[str] = None, dir: Optional[str] = None,
                 ignore_cleanup_errors: bool = False) -> None:
        self.name = mkdtemp(suffix, prefix, dir)

    def __repr__(self) -> str:
        return f"<TemporaryDirectory {self.name!r}>"

    def __enter__(self) -> str:
        return self.name

    def __exit__(self, *exc: Any) -> None:
        self.cleanup()

    def cleanup(self) -> None:
        rmtree(self.name, ignore_errors=True)


TemporaryDirectory.__module__ = "tempfile"


def NamedTemporaryFile(mode: str = "w+b", buffering: int = -1, encoding: Optional[str] = None,  # noqa: N802
                       newline: Optional[str] = None, suffix: Optional[str] = None, prefix: Optional[str] = None,
                       dir: Optional[str] = None, delete: bool = True, *, errors: Optional[str] = None) -> Any:
    """A new file's stream, its `name` the file's path; with `delete`, the file goes when closed."""
    path = _unused_name(dir, prefix, suffix)

    def remove() -> None:
        if delete and os_module.exists(path):  # `delete` read as the file closes, as Python's tempfile reads it
            os_module.remove(path)

    return streams.open_stream(path, mode.replace("w", "x"), buffering, encoding, errors, newline, on_close=remove)


def mkstemp(suffix: Optional[str] = None, prefix: Optional[str] = None, dir: Optional[str] = None,
            text: bool = False) -> tuple:
    """A new empty file and its number (os.fdopen and os.close take it) with its path."""
    path = _unused_name(dir, prefix, suffix)
    files.active().make_file(path, exclusive=True)
    return os_module.number_for(path), path


def tempfile_members() -> dict:
    return {"gettempdir": gettempdir, "mkdtemp": mkdtemp, "mkstemp": mkstemp, "TemporaryDirectory": TemporaryDirectory,
            "NamedTemporaryFile": NamedTemporaryFile, "TemporaryFile": NamedTemporaryFile, "tempdir": None}
