"""`pathlib` over a program's file tree: the pure paths are Python's own (string work), and the
concrete Path's methods that reach files ask the tree, never the host."""
from __future__ import annotations

import pathlib as host_pathlib
from typing import Any, Iterator, Optional

from . import os_module, searching, streams
from . import tree as files


class Path(host_pathlib.PurePosixPath):
    """pathlib.Path: a PosixPath when made, whose file operations are the tree's."""

    __slots__ = ()

    def __new__(cls, *args: Any, **kwargs: Any) -> "Path":
        if cls is Path:
            cls = PosixPath
        return cls._from_parts(args)

    @classmethod
    def cwd(cls) -> "Path":
        return cls(files.WORKING_DIRECTORY)

    @classmethod
    def home(cls) -> "Path":
        return cls(os_module.expanduser("~"))

    def absolute(self) -> "Path":
        return self if self.is_absolute() else type(self)(files.WORKING_DIRECTORY, self)

    def resolve(self, strict: bool = False) -> "Path":
        if strict:
            files.active().get(self)
        return type(self)(os_module.abspath(self))

    def expanduser(self) -> "Path":
        return type(self)(os_module.expanduser(self))

    def stat(self, *, follow_symlinks: bool = True) -> Any:
        return os_module.stat(self)

    lstat = stat

    def exists(self) -> bool:
        return os_module.exists(self)

    def is_file(self) -> bool:
        return os_module.isfile(self)

    def is_dir(self) -> bool:
        return os_module.isdir(self)

    def is_symlink(self) -> bool:
        return False

    def samefile(self, other_path: Any) -> bool:
        return os_module.samefile(self, other_path)

    def open(self, mode: str = "r", buffering: int = -1, encoding: Optional[str] = None,
             errors: Optional[str] = None, newline: Optional[str] = None) -> Any:
        return streams.open_file(self, mode, buffering, encoding, errors, newline)

    def read_text(self, encoding: Optional[str] = None, errors: Optional[str] = None) -> str:
        with self.open(encoding=encoding, errors=errors) as file:
            return file.read()

    def read_bytes(self) -> bytes:
        with self.open("rb") as file:
            return file.read()

    def write_text(self, data: str, encoding: Optional[str] = None, errors: Optional[str] = None,
                   newline: Optional[str] = None) -> int:
        if not isinstance(data, str):
            raise TypeError(f"data must be str, not {type(data).__name__}")
        with self.open("w", encoding=encoding, errors=errors, newline=newline) as file:
            return file.write(data)

    def write_bytes(self, data: Any) -> int:
        view = memoryview(data)
        with self.open("wb") as file:
            return file.write(view)

    def touch(self, mode: int = 0o666, exist_ok: bool = True) -> None:
        files.active().make_file(self, exclusive=not exist_ok)

    def mkdir(self, mode: int = 0o777, parents: bool = False, exist_ok: bool = False) -> None:
        """Path.mkdir, as Python writes it."""
        try:
            os_module.mkdir(self)
        except FileNotFoundError:
            if not parents or self.parent == self:
                raise
            self.parent.mkdir(parents=True, exist_ok=True)
            self.mkdir(mode, parents=False, exist_ok=exist_ok)
        except OSError:
            if not exist_ok or not self.is_dir():
                raise

    def rmdir(self) -> None:
        os_module.rmdir(self)

    def unlink(self, missing_ok: bool = False) -> None:
        try:
            os_module.remove(self)
        except FileNotFoundError:
            if not missing_ok:
                raise

    def rename(self, target: Any) -> "Path":
        os_module.rename(self, target)
        return type(self)(target)

    replace = rename

    def iterdir(self) -> Iterator["Path"]:
        for name in os_module.listdir(self):
            yield self / name

    def glob(self, pattern: str) -> Iterator["Path"]:
        if not pattern:
            raise ValueError(f"Unacceptable pattern: {pattern!r}")
        if pattern.startswith("/"):
            raise NotImplementedError("Non-relative patterns are unsupported")
        parts = [part for part in pattern.split("/") if part and part != "."]
        for found in searching.match(str(self), parts, hidden=True, recursive=True):
            yield self / found

    def rglob(self, pattern: str) -> Iterator["Path"]:
        yield from self.glob(f"**/{pattern}")


class PosixPath(Path):
    __slots__ = ()


for _made in (Path, PosixPath):
    _made.__module__ = "pathlib"


def pathlib_members() -> dict:
    return {"Path": Path, "PosixPath": PosixPath, "PurePath": host_pathlib.PurePath,
            "PurePosixPath": host_pathlib.PurePosixPath, "PureWindowsPath": host_pathlib.PureWindowsPath}


PATH_TYPES = (Path, PosixPath, host_pathlib.PurePath, host_pathlib.PurePosixPath, host_pathlib.PureWindowsPath,
              type(host_pathlib.PurePosixPath("a").parents))
