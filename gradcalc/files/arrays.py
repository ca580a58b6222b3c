"""numpy's save, load, savez, savetxt, loadtxt, fromfile, memmap and an array's tofile on a
program's own files.

numpy opens a path with the host's `open` (and maps it with mmap): here a path is always opened
in the session's tree and numpy is handed the stream or the bytes. Nothing is ever unpickled: np.save
keeps an array of objects in this process, as torch.save keeps what it saves, behind numpy's header
(files/pickling.py); a memmap is a copy of the file's bytes, so only the modes that never write back
('r', 'c') are offered.
"""
from __future__ import annotations

import io
import mmap
import operator
import os
from typing import Any, Callable

import numpy as np
from numpy.lib import format as npy_format
from numpy.lib.npyio import NpzFile

from ..c_arguments import c_arguments
from ..display.names import torch_class
from ..language import guard
from . import os_module, pickling, streams
from . import tree as files


def _opened(file: Any, mode: str) -> tuple:
    """(stream, whether this opened it) for a path or a stream the program holds."""
    if isinstance(file, (str, bytes, os.PathLike)):
        return streams.open_file(file, mode), True
    return file, False


def _with_suffix(file: Any, suffix: str) -> Any:
    """A path as numpy completes it (`np.save('arr', a)` writes arr.npy); what has a `write` as it
    is; anything else refused by os.fspath, as numpy hands it there."""
    if not isinstance(file, (str, bytes, os.PathLike)):
        try:
            guard.guarded_getattr(file, "write")
            return file
        except AttributeError:
            pass
    file = files.fspath(file)
    return file if file.endswith(suffix) else file + suffix


def _writing(file: Any, write: Callable[[Any], None], mode: str = "wb") -> None:
    stream, own = _opened(file, mode)
    try:
        write(stream)
    finally:
        if own:
            stream.close()


def save(file: Any, arr: Any, allow_pickle: bool = True, fix_imports: Any = None) -> None:
    array = np.asanyarray(arr)
    if array.dtype.hasobject and allow_pickle:
        _writing(_with_suffix(file, ".npy"), lambda stream: _write_objects(stream, array))
        return
    _writing(_with_suffix(file, ".npy"), lambda stream: npy_format.write_array(stream, array, allow_pickle=False))


def _write_objects(stream: Any, array: np.ndarray) -> None:
    """An array of objects as numpy writes it, its header then a pickle of it, here the program's pickle (which
    keeps the array in this process and writes its number): a load without allow_pickle refuses it in numpy's
    words, a load with it reads the number back, and nothing is ever unpickled."""
    npy_format.write_array_header_1_0(stream, npy_format.header_data_from_array_1_0(array))
    pickling.dump(array, stream, protocol=4)


def load(file: Any, mmap_mode: Any = None, allow_pickle: bool = False, fix_imports: bool = True,
         encoding: str = "ASCII", *, max_header_size: int = 10000) -> Any:  # numpy's default
    stream, own = _opened(file, "rb")
    magic = stream.read(len(npy_format.MAGIC_PREFIX))
    if not magic:
        raise EOFError("No data left in file")
    stream.seek(-len(magic), 1)
    if magic.startswith(b"PK\x03\x04"):  # an .npz archive: read whole, from memory
        data = io.BytesIO(stream.read())
        if own:
            stream.close()
        return NpzFile(data, own_fid=True, allow_pickle=False, max_header_size=max_header_size)
    try:
        if magic == npy_format.MAGIC_PREFIX:
            if mmap_mode:
                return _open_memmap(file, own, stream, mmap_mode, 2 ** 64 if allow_pickle else max_header_size)
            if allow_pickle and _holds_objects(stream, max_header_size):
                return pickling.load(stream)
            return npy_format.read_array(stream, allow_pickle=False, max_header_size=max_header_size)
        raise ValueError("This file contains pickled (object) data. If you trust the file you can load it "
                         "unsafely using the `allow_pickle=` keyword argument or `pickle.load()`.")
    finally:
        if own:
            stream.close()


def _open_memmap(file: Any, own: bool, stream: Any, mode: str, max_header_size: int) -> np.memmap:
    """numpy's format.open_memmap for np.load's mmap_mode: a file named, its header read, then the
    data mapped by memmap (which judges the mode)."""
    if not own:
        raise ValueError("Filename must be a string or a path-like object.  Memmap cannot use existing file handles.")
    version = npy_format.read_magic(stream)
    read_header = _HEADER_READERS.get(version)
    if read_header is None:  # (version 3.0, for non-latin-1 field names, is not read here)
        raise ValueError(f"we only support format version (1,0), (2,0), and (3,0), not {version}")
    shape, fortran_order, dtype = read_header(stream, max_header_size=max_header_size)
    if dtype.hasobject:
        raise ValueError("Array can't be memory-mapped: Python objects in dtype.")
    return memmap(file, dtype=dtype, shape=shape, order="F" if fortran_order else "C",
                  mode="r+" if mode == "w+" else mode, offset=stream.tell())


def _holds_objects(stream: Any, max_header_size: int) -> bool:
    """Whether the .npy file at `stream`'s position holds objects: past its header if so, where it was if not."""
    start = stream.tell()
    read_header = _HEADER_READERS.get(npy_format.read_magic(stream))
    if read_header is not None and read_header(stream, max_header_size=max_header_size)[2].hasobject:
        return True
    stream.seek(start)  # (a header of another version: numpy's read_array judges it)
    return False


_HEADER_READERS = {(1, 0): npy_format.read_array_header_1_0, (2, 0): npy_format.read_array_header_2_0}


def _saving_archive(numpy_function: Any) -> Any:
    def save_archive(file: Any, *args: Any, allow_pickle: bool = True, **kwds: Any) -> None:
        _writing(_with_suffix(file, ".npz"), lambda stream: numpy_function(stream, *args, allow_pickle=False, **kwds))

    save_archive.__name__ = save_archive.__qualname__ = numpy_function.__name__
    return save_archive


def savetxt(fname: Any, X: Any, *args: Any, **kwargs: Any) -> None:  # noqa: N803
    _writing(fname, lambda stream: np.savetxt(stream, X, *args, **kwargs), "w")


def _reading_text(numpy_function: Any) -> Any:
    def read_text(fname: Any, *args: Any, **kwargs: Any) -> Any:
        stream, own = _opened(fname, "r")
        try:
            return numpy_function(stream, *args, **kwargs)
        finally:
            if own:
                stream.close()

    read_text.__name__ = read_text.__qualname__ = numpy_function.__name__
    return read_text


@torch_class("builtin_function_or_method")
class ToFile:
    """`a.tofile` as a program holds it: the array's bytes (or its items as text, with `sep`)
    written to a file of the program's own."""

    __slots__ = ("_array",)

    def __init__(self, array: np.ndarray) -> None:
        self._array = array

    def __call__(self, *args: Any, **kwargs: Any) -> None:
        bound = c_arguments("tofile()", ("file", "sep", "format"), 1, args, kwargs)
        fid, sep, format = bound["file"], bound.get("sep", ""), bound.get("format", "%s")
        if sep:
            text = sep.join(format % item for item in self._array.ravel().tolist())
            _writing(fid, lambda stream: stream.write(text), "w")
        else:
            _writing(fid, lambda stream: stream.write(self._array.tobytes()))

    def __repr__(self) -> str:
        return f"<built-in method tofile of numpy.ndarray object at {hex(id(self._array))}>"


def _file_bytes(file: Any, offset: int) -> bytes:
    stream, own = _opened(file, "rb")
    try:
        stream.seek(offset, 1)
        return stream.read()
    finally:
        if own:
            stream.close()


def _whole_file(file: Any) -> bytes:
    """A file's bytes from its start, as mmap maps it (a stream the program holds: whatever its position)."""
    stream, own = _opened(file, "rb")
    try:
        stream.seek(0)
        return stream.read()
    finally:
        if own:
            stream.close()


def fromfile(*args: Any, **kwargs: Any) -> np.ndarray:
    """numpy's fromfile(file, dtype=float, count=-1, sep='', offset=0, *, like=None), from a file of the program's own."""
    bound = c_arguments("fromfile()", ("file", "dtype", "count", "sep", "offset", "like"), 1, args, kwargs,
                        converters={"dtype": np.dtype, "count": operator.index, "offset": operator.index})
    file, dtype, count = bound["file"], bound.get("dtype", np.dtype(float)), bound.get("count", -1)
    sep, offset = bound.get("sep", ""), bound.get("offset", 0)
    if sep:
        return np.fromstring(_file_bytes(file, offset).decode(), dtype=dtype, count=count, sep=sep)
    rest = _file_bytes(file, 0)
    # numpy reads the whole items past the offset, at most `count` of them (a negative count: all); it
    # divides the bytes left as C does, an offset past the end leaving a negative count of items
    available = int((len(rest) - offset) / dtype.itemsize)
    if count < 0 and available < 0:
        raise ValueError("negative dimensions are not allowed")
    available = max(available, 0)
    return np.frombuffer(rest[offset:], dtype=dtype, count=available if count < 0 else min(count, available)).copy()


_MEMMAP_MODES = {"readonly": "r", "copyonwrite": "c", "readwrite": "r+", "write": "w+"}


def memmap(*args: Any, **kwargs: Any) -> np.memmap:
    """numpy's memmap, a class: its arguments are bound as its `__new__`'s, with their errors."""
    return _memmap_new(np.memmap, *args, **kwargs)


def _memmap_new(subtype: type, filename: Any, dtype: Any = np.uint8, mode: str = "r+", offset: int = 0,
                shape: Any = None, order: str = "C") -> np.memmap:
    """numpy's memmap, step by step as numpy's code takes them (so its errors come in its order and
    words), the mapping a copy of the file's bytes, checked as mmap checks it."""
    mode = _MEMMAP_MODES.get(mode, mode)
    if mode not in ("r", "c", "r+", "w+"):
        raise ValueError(f"mode must be one of {['r', 'c', 'r+', 'w+'] + list(_MEMMAP_MODES)!r} (got {mode!r})")
    if mode == "w+" and shape is None:
        raise ValueError("shape must be given if mode == 'w+'")
    if mode not in ("r", "c"):
        raise ValueError(f"memmap mode {mode!r} is not available in gradcalc: a program's memmap is a copy of "
                         "its file, never written back (use mode='r' or 'c')")
    data = _whole_file(filename)
    dtype = np.dtype(dtype)
    if shape is None:
        available = len(data) - offset
        if available % dtype.itemsize:
            raise ValueError("Size of available data is not a multiple of the data-type size.")
        size = available // dtype.itemsize
        shape = (size,)
    else:
        if not isinstance(shape, (tuple, list)):
            try:
                shape = [operator.index(shape)]
            except TypeError:
                pass
        shape = tuple(shape)
        size = np.intp(1)  # numpy's own product: a size that is no number fails in Python's words
        for k in shape:
            size *= k
    end = int(offset + size * dtype.itemsize)
    start = offset - offset % mmap.ALLOCATIONGRANULARITY
    length = end - start
    if length == 0 and start > 0:
        length += mmap.ALLOCATIONGRANULARITY
        start -= mmap.ALLOCATIONGRANULARITY
    length = _mapped_length(len(data), length, start)
    mapping = bytearray(data[start:start + length])
    mapped = np.ndarray.__new__(subtype, shape, dtype=dtype, buffer=mapping, offset=offset - start, order=order)
    mapped.filename = _mapped_name(filename)
    mapped.offset, mapped.mode = offset, mode
    mapped._mmap = mapping  # numpy's mark of a mapped array, which its slices keep (they stay memmaps)
    if mode == "r":
        mapped.flags.writeable = False
    return mapped


_memmap_new.__qualname__ = "memmap.__new__"  # as Python's messages name what a call binds to


def _mapped_name(file: Any) -> Any:
    """memmap's `filename`: a path object resolved, a path or a stream's name (a str) made absolute."""
    if isinstance(file, os.PathLike):
        return guard.guarded_getattr(file, "resolve")()
    if isinstance(file, (str, bytes)):
        name = file
    else:
        try:
            name = guard.guarded_getattr(file, "name")
        except AttributeError:
            name = None
    return os_module.abspath(name) if isinstance(name, str) else None  # (a bytes name: none, as numpy)


def _mapped_length(file_size: int, length: int, offset: int) -> int:
    """mmap.mmap's checks of `length` bytes mapped at `offset` of a file; a length of 0 maps the rest."""
    if length < 0:
        raise OverflowError("memory mapped length must be positive")
    if offset < 0:
        raise OverflowError("memory mapped offset must be positive")
    if length == 0:
        if file_size == 0:
            raise ValueError("cannot mmap an empty file")
        if offset >= file_size:
            raise ValueError("mmap offset is greater than file size")
        return file_size - offset
    if offset > file_size or file_size - offset < length:
        raise ValueError("mmap length is greater than file size")
    return length


def numpy_file_members() -> dict:
    return {"save": save, "load": load, "savez": _saving_archive(np.savez),
            "savez_compressed": _saving_archive(np.savez_compressed), "savetxt": savetxt,
            "loadtxt": _reading_text(np.loadtxt), "genfromtxt": _reading_text(np.genfromtxt),
            "fromfile": fromfile, "memmap": memmap}
