"""`open` over a program's file tree: Python's own buffered and text layers (so modes, encodings,
newlines, seek and tell, iteration and the closed-file errors are Python's) over a raw layer of
gradcalc's that reads and writes a node's bytes and never a descriptor."""
from __future__ import annotations

import errno
import io
import operator
import time
import warnings
from typing import Any, Callable, Optional

from ..c_arguments import c_arguments
from ..display.names import torch_class, type_name
from ..language import policy
from . import tree as files


class NodeIO(io.RawIOBase):
    """The raw layer: a position in one file node of one tree."""

    def __init__(self, tree: files.FileTree, node: files.File, name: Any, mode: str, readable: bool,
                 writable: bool, appending: bool, on_close: Optional[Callable[[], None]] = None) -> None:
        super().__init__()
        self._tree, self._node, self._on_close = tree, node, on_close
        self.name, self.mode = name, mode
        self._readable, self._writable, self._appending = readable, writable, appending
        self._position = len(node.data) if appending else 0

    def readable(self) -> bool:
        self._checkClosed()
        return self._readable

    def writable(self) -> bool:
        self._checkClosed()
        return self._writable

    def seekable(self) -> bool:
        self._checkClosed()
        return True

    def readinto(self, buffer: Any) -> int:
        if not self._readable:
            raise io.UnsupportedOperation("File not open for reading")
        data = self._node.data[self._position:self._position + len(buffer)]
        memoryview(buffer).cast("B")[:len(data)] = data
        self._position += len(data)
        return len(data)

    def write(self, data: Any) -> int:
        if not self._writable:
            raise io.UnsupportedOperation("File not open for writing")
        data = bytes(data)
        node = self._node
        if self._appending:
            self._position = len(node.data)
        end = self._position + len(data)
        if end > len(node.data):
            self._tree.resize(node, end)
        node.data[self._position:end] = data
        node.modified = time.time()
        self._position = end
        return len(data)

    def seek(self, offset: int, whence: int = 0) -> int:
        self._checkClosed()
        base = {0: 0, 1: self._position, 2: len(self._node.data)}.get(whence)
        if base is None:
            raise ValueError(f"invalid whence ({whence}, should be 0, 1 or 2)")
        if base + offset < 0:
            raise files.error(errno.EINVAL)
        self._position = base + offset
        return self._position

    def tell(self) -> int:
        self._checkClosed()
        return self._position

    def close(self) -> None:
        if not self.closed and self._on_close is not None:
            self._on_close()
        super().close()

    def _dealloc_warn(self, source: Any) -> None:
        """Python's warning for a file left open when its stream is freed (the buffered and text
        layers call this on the raw one, as on Python's FileIO), while its program runs: what
        is left open at the end is freed without a word, as the reference runner frees it."""
        if not self.closed and files.active() is self._tree:
            warnings.warn(f"unclosed file {source!r}", ResourceWarning, stacklevel=2, source=source)

    def truncate(self, size: Optional[int] = None) -> int:
        if not self._writable:
            raise io.UnsupportedOperation("File not open for writing")
        size = self._position if size is None else size
        self._tree.resize(self._node, size)
        return size


# The layers a program holds, shown as Python's (`<_io.TextIOWrapper name='x.txt' mode='w' ...>`):
# classes of their own, so the policy that admits them admits no host stream.
@torch_class("_io.BufferedReader", c_type=True)
class BufferedReader(io.BufferedReader):
    pass


@torch_class("_io.BufferedWriter", c_type=True)
class BufferedWriter(io.BufferedWriter):
    pass


@torch_class("_io.BufferedRandom", c_type=True)
class BufferedRandom(io.BufferedRandom):
    pass


@torch_class("_io.TextIOWrapper")
class TextIOWrapper(io.TextIOWrapper):
    pass


FILE_TYPES = (BufferedReader, BufferedWriter, BufferedRandom, TextIOWrapper)
DEFAULT_ENCODING = "UTF-8"  # what Python picks in a UTF-8 locale


def allow_types() -> None:
    """The streams `open` gives, in the policy: all a file does, not the raw layer beneath."""
    if TextIOWrapper in policy.RULES:
        return
    names = policy.public_names(TextIOWrapper) | policy.public_names(BufferedRandom) | {"mode"}
    policy.allow_module_types(FILE_TYPES, read=names - {"raw", "detach", "fileno"})


def _parse_mode(mode: Any) -> tuple:
    """(creating, reading, writing, appending, updating, text), with Python's errors for a bad mode."""
    if not isinstance(mode, str):
        raise TypeError(f"open() argument 'mode' must be str, not {type_name(mode)}")
    modes = set(mode)
    if modes - set("axrwb+t") or len(mode) > len(modes):
        raise ValueError(f"invalid mode: {mode!r}")
    creating, reading, writing, appending = "x" in modes, "r" in modes, "w" in modes, "a" in modes
    updating, text, binary = "+" in modes, "t" in modes, "b" in modes
    if text and binary:
        raise ValueError("can't have text and binary mode at once")
    if creating + reading + writing + appending > 1:
        raise ValueError("must have exactly one of create/read/write/append mode")
    if not (creating or reading or writing or appending):
        raise ValueError("Must have exactly one of create/read/write/append mode and at most one plus")
    return creating, reading, writing, appending, updating, not binary


def _clinic_str(function: str, name: str, or_none: bool) -> Callable[[Any], Any]:
    """Argument Clinic's converter of a str parameter (or one that may be None), in its words."""
    def convert(value: Any) -> Any:
        if isinstance(value, str) or (or_none and value is None):
            return value
        raise TypeError(f"{function} argument '{name}' must be str{' or None' if or_none else ''}, not "
                        f"{type_name(value)}")

    return convert


_OPEN_PARAMETERS = ("file", "mode", "buffering", "encoding", "errors", "newline", "closefd", "opener")
_OPEN_CONVERTERS = {"mode": _clinic_str("open()", "mode", False), "buffering": operator.index,
                    "encoding": _clinic_str("open()", "encoding", True), "errors": _clinic_str("open()", "errors", True),
                    "newline": _clinic_str("open()", "newline", True), "closefd": operator.index}


def open_arguments(args: tuple, kwargs: dict) -> dict:
    """The arguments of a call of Python's `open` (io.open), bound and converted in Argument
    Clinic's order and words; `closefd` checked and left out."""
    bound = c_arguments("open()", _OPEN_PARAMETERS, 1, args, kwargs, _OPEN_CONVERTERS, clinic=True)
    if not bound.pop("closefd", True) and not isinstance(bound["file"], int):
        raise ValueError("Cannot use closefd=False with file name")
    return bound


def open_file(file: Any, mode: str = "r", buffering: int = -1, encoding: Optional[str] = None,
              errors: Optional[str] = None, newline: Optional[str] = None, closefd: bool = True,
              opener: Any = None) -> Any:
    """Python's `open`, on the active session's file tree."""
    return open_stream(file, mode, buffering, encoding, errors, newline, opener)


def open_stream(file: Any, mode: str = "r", buffering: int = -1, encoding: Optional[str] = None,
                errors: Optional[str] = None, newline: Optional[str] = None, opener: Any = None,
                on_close: Optional[Callable[[], None]] = None) -> Any:
    """`open`, calling `on_close` when the file is closed (a temporary file removes itself)."""
    if isinstance(file, int) and not isinstance(file, bool):
        raise files.error(errno.EBADF)  # a program has no descriptors
    creating, reading, writing, appending, updating, text = _parse_mode(mode)
    if not text:
        for value, what in ((encoding, "an encoding"), (errors, "an errors"), (newline, "a newline")):
            if value is not None:
                raise ValueError(f"binary mode doesn't take {what} argument")
    if text and buffering == 0:
        raise ValueError("can't have unbuffered text I/O")
    if newline not in (None, "", "\n", "\r", "\r\n"):
        raise ValueError(f"illegal newline value: {newline}")
    if opener is not None:
        raise ValueError("opener is not available in gradcalc: a program's files have no descriptors")
    name = files.shown(file)
    files.fspath(file)  # Python's errors for what is no path
    tree = files.active()
    if reading:
        node = tree.get(file)
        if isinstance(node, files.Directory):
            raise files.error(errno.EISDIR, name)
    else:
        node = tree.make_file(file, exclusive=creating, truncate=writing)
    readable, writable = reading or updating, not reading or updating
    raw_mode = ("xb" if creating else "ab" if appending else "rb" if reading and not updating
                else "wb" if not updating else "rb") + ("+" if updating else "")
    raw = NodeIO(tree, node, name, raw_mode, readable, writable, appending, on_close)
    # (unbuffered binary files are buffered too: the raw layer is gradcalc's, never a program's)
    size = io.DEFAULT_BUFFER_SIZE if buffering in (-1, 0, 1) else buffering
    layer = BufferedRandom if updating else BufferedReader if reading else BufferedWriter
    buffered = layer(raw, size)
    if not text:
        return buffered
    wrapper = TextIOWrapper(buffered, encoding or DEFAULT_ENCODING, errors, newline, line_buffering=buffering == 1)
    wrapper.mode = mode
    return wrapper


open_file.__name__ = open_file.__qualname__ = "open"
