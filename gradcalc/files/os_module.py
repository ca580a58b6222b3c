"""`os` and `os.path` over a program's file tree.

os.path's string functions are posixpath's own (they compute on the strings given); what asks
the file system, the working directory or the environment is answered here from the tree.
"""
from __future__ import annotations

import os as host_os
import errno
import posixpath
import re
import stat as modes
from typing import Any, Iterator, Optional

from ..display.names import type_name
from . import tree as files
from ..c_arguments import c_arguments

_FILE_MODE, _DIRECTORY_MODE = modes.S_IFREG | 0o644, modes.S_IFDIR | 0o755
PURE_PATH_NAMES = ("normcase", "isabs", "join", "splitdrive", "split", "splitext", "basename", "dirname",
                   "commonprefix", "normpath", "commonpath", "samestat", "curdir", "pardir", "sep", "pathsep",
                   "defpath", "altsep", "extsep", "devnull", "supports_unicode_filenames")


# ------------------------------------------------------------------ os.path

def exists(path: Any) -> bool:
    try:
        return files.active().find(path) is not None
    except (OSError, ValueError):
        return False


def isfile(path: Any) -> bool:
    try:
        return isinstance(files.active().find(path), files.File)
    except (OSError, ValueError):
        return False


def isdir(path: Any) -> bool:
    try:
        return isinstance(files.active().find(path), files.Directory)
    except (OSError, ValueError):
        return False


def islink(path: Any) -> bool:
    files.fspath(path)
    return False  # a program's tree has no links


def ismount(path: Any) -> bool:
    return not files.FileTree.parts(path)


def getsize(path: Any) -> int:
    return stat(path).st_size


def getmtime(path: Any) -> float:
    return stat(path).st_mtime


def abspath(path: Any) -> str:
    text = files.fspath(path)
    return posixpath.normpath(text if text.startswith("/") else posixpath.join(files.WORKING_DIRECTORY, text))


def relpath(path: Any, start: Any = None) -> str:
    if not files.fspath(path):
        raise ValueError("no path specified")
    return posixpath.relpath(abspath(path), abspath(files.WORKING_DIRECTORY if start is None else start))


def expanduser(path: Any) -> str:
    """`~` as the session's HOME if the program set one, else its working directory (its home)."""
    text = files.fspath(path)
    if text == "~" or text.startswith("~/"):
        home = files.active().environment.get("HOME", files.WORKING_DIRECTORY).rstrip("/")
        return (home + text[1:]) or "/"
    return text


_VARIABLE = re.compile(r"\$(\w+|\{[^}]*\})", re.ASCII)


def expandvars(path: Any) -> str:
    """`$name` and `${name}` from the session's environment; Python leaves unknown ones as they are."""
    environment = files.active().environment

    def value(found: re.Match) -> str:
        name = found.group(1).strip("{}")
        return environment.get(name, found.group(0))

    return _VARIABLE.sub(value, files.fspath(path))


def samefile(first: Any, second: Any) -> bool:
    tree = files.active()
    return tree.get(first) is tree.get(second)


def path_members() -> dict:
    members = {name: getattr(posixpath, name) for name in PURE_PATH_NAMES}
    members.update(exists=exists, lexists=exists, isfile=isfile, isdir=isdir, islink=islink, ismount=ismount,
                   getsize=getsize, getmtime=getmtime, getatime=getmtime, getctime=getmtime, abspath=abspath,
                   realpath=abspath, relpath=relpath, expanduser=expanduser, expandvars=expandvars,
                   samefile=samefile)
    return members


# ------------------------------------------------------------------ os

def getcwd() -> str:
    return files.WORKING_DIRECTORY


def _directory_argument(function: str, args: tuple, kwargs: dict) -> Any:
    """The `path=None` of os.listdir and os.scandir, parsed as Argument Clinic and posixmodule's
    path converter parse it (a descriptor, which a program never holds, is a bad one)."""
    path = c_arguments(f"{function}()", ("path",), 0, args, kwargs, clinic=True).get("path", None)
    if path is None:
        return "."
    if isinstance(path, int):
        raise files.error(errno.EBADF)
    if not isinstance(path, (str, bytes)) and not hasattr(type(path), "__fspath__"):
        raise TypeError(f"{function}: path should be string, bytes, os.PathLike, integer or None, not "
                        f"{type_name(path)}")
    return path


def listdir(*args: Any, **kwargs: Any) -> list:
    path = _directory_argument("listdir", args, kwargs)
    names = list(files.active().directory(path).entries)
    return [host_os.fsencode(name) for name in names] if isinstance(path, bytes) else names


def mkdir(path: Any, mode: int = 0o777, *, dir_fd: Any = None) -> None:
    files.active().make_directory(path)


def makedirs(name: Any, mode: int = 0o777, exist_ok: bool = False) -> None:
    """os.makedirs, as Python writes it: each missing parent made first."""
    head, tail = posixpath.split(files.fspath(name))
    if not tail:
        head, tail = posixpath.split(head)
    if head and tail and not exists(head):
        try:
            makedirs(head, exist_ok=exist_ok)
        except FileExistsError:
            pass  # made meanwhile
    try:
        mkdir(name, mode)
    except OSError:
        if not exist_ok or not isdir(name):
            raise


def remove(path: Any, *, dir_fd: Any = None) -> None:
    files.active().remove(path, directory_wanted=False)


def rmdir(path: Any, *, dir_fd: Any = None) -> None:
    files.active().remove(path, directory_wanted=True)


def removedirs(name: Any) -> None:
    rmdir(name)
    head, tail = posixpath.split(files.fspath(name))
    if not tail:
        head, tail = posixpath.split(head)
    while head and tail:
        try:
            rmdir(head)
        except OSError:
            break
        head, tail = posixpath.split(head)


def rename(source: Any, target: Any, *, src_dir_fd: Any = None, dst_dir_fd: Any = None) -> None:
    files.active().rename(source, target)


def stat(path: Any, *, dir_fd: Any = None, follow_symlinks: bool = True) -> host_os.stat_result:
    node = files.active().get(path)
    is_file = isinstance(node, files.File)
    size = len(node.data) if is_file else 4096
    return host_os.stat_result((_FILE_MODE if is_file else _DIRECTORY_MODE, id(node) & 0xFFFFFFFF, 1,
                                1 if is_file else 2, 0, 0, size, node.modified, node.modified, node.modified))


def number_for(path: str) -> int:
    """A file number standing for `path` (as tempfile.mkstemp gives one): the next after 2, as a
    process with only its three standard streams would number it."""
    numbers = files.active().numbers
    number = max(numbers, default=2) + 1
    numbers[number] = path
    return number


def _path_of(number: Any) -> str:
    path = files.active().numbers.get(number) if type(number) is int else None
    if path is None:
        if not isinstance(number, int):
            raise TypeError(f"'{type_name(number)}' object cannot be interpreted as an integer")
        raise files.error(errno.EBADF)
    return path


def close(*args: Any, **kwargs: Any) -> None:
    """close(fd), bound as Argument Clinic binds it."""
    fd = c_arguments("close()", ("fd",), 1, args, kwargs, clinic=True)["fd"]
    _path_of(fd)
    del files.active().numbers[fd]


def fdopen(fd: int, mode: str = "r", buffering: int = -1, encoding: Optional[str] = None, *args: Any,
           **kwargs: Any) -> Any:
    """The file a number stands for, opened with `open`'s arguments (the number is closed with it)."""
    from .streams import open_arguments, open_stream

    if not isinstance(fd, int):
        raise TypeError(f"invalid fd type ({type(fd)}, expected integer)")
    bound = open_arguments((fd, mode, buffering, encoding) + args, kwargs)
    path = _path_of(bound.pop("file"))
    numbers = files.active().numbers
    return open_stream(path, **bound, on_close=lambda: numbers.pop(fd, None))


def getenv(key: str, default: Optional[str] = None) -> Optional[str]:
    return files.active().environment.get(key, default)


def cpu_count() -> int:
    return 1  # a program runs on one thread


def walk(top: Any, topdown: bool = True, onerror: Any = None, followlinks: bool = False) -> Iterator[tuple]:
    """os.walk over the tree: (directory, its directories, its files), as Python orders them."""
    top = host_os.fspath(top)
    try:
        entries = files.active().directory(top).entries
    except OSError as failure:
        if onerror is not None:
            onerror(failure)
        return
    directories = [name for name, node in entries.items() if isinstance(node, files.Directory)]
    others = [name for name, node in entries.items() if not isinstance(node, files.Directory)]
    if topdown:
        yield top, directories, others
    for name in list(directories):
        yield from walk(posixpath.join(top, name), topdown, onerror, followlinks)
    if not topdown:
        yield top, directories, others


class DirEntry:
    """What os.scandir yields: a name in a directory and what it names."""

    def __init__(self, directory: str, name: str, node: files.Node) -> None:
        self.name = name
        self.path = posixpath.join(directory, name)
        self._node = node

    def is_file(self, *, follow_symlinks: bool = True) -> bool:
        return isinstance(self._node, files.File)

    def is_dir(self, *, follow_symlinks: bool = True) -> bool:
        return isinstance(self._node, files.Directory)

    def is_symlink(self) -> bool:
        return False

    def stat(self, *, follow_symlinks: bool = True) -> host_os.stat_result:
        return stat(self.path)

    def __fspath__(self) -> str:
        return self.path

    def __repr__(self) -> str:
        return f"<DirEntry {self.name!r}>"


DirEntry.__module__ = "posix"


class ScandirIterator:
    """os.scandir's iterator, also a context manager."""

    def __init__(self, path: Any) -> None:
        directory = host_os.fspath(path)
        self._entries = iter([DirEntry(directory, name, node)
                              for name, node in files.active().directory(path).entries.items()])

    def __iter__(self) -> "ScandirIterator":
        return self

    def __next__(self) -> DirEntry:
        return next(self._entries)

    def __enter__(self) -> "ScandirIterator":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def close(self) -> None:
        self._entries = iter(())


ScandirIterator.__module__ = "posix"


def scandir(*args: Any, **kwargs: Any) -> ScandirIterator:
    return ScandirIterator(_directory_argument("scandir", args, kwargs))


def os_members() -> dict:
    from ..language.modules.namespace import Deferred, Submodule

    members = {name: getattr(host_os, name) for name in (
        "sep", "pathsep", "linesep", "curdir", "pardir", "extsep", "altsep", "devnull", "name", "fspath",
        "fsencode", "fsdecode", "PathLike", "stat_result", "SEEK_SET", "SEEK_CUR", "SEEK_END", "F_OK", "R_OK",
        "W_OK", "X_OK")}
    members.update(getcwd=getcwd, listdir=listdir, mkdir=mkdir, makedirs=makedirs, remove=remove, unlink=remove,
                   rmdir=rmdir, removedirs=removedirs, rename=rename, replace=rename, stat=stat, lstat=stat,
                   getenv=getenv, cpu_count=cpu_count, close=close, fdopen=fdopen, walk=walk, scandir=scandir,
                   error=OSError,
                   path=Submodule("os.path"),
                   # the session's own environment, empty at the start
                   environ=Deferred(lambda: files.active().environment))
    return members


__all__ = ["os_members", "path_members"]
