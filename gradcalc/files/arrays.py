"""numpy's save, load, savez, savetxt and loadtxt on a program's own files.

numpy opens a path with the host's `open`: here a path is always opened in the session's tree
and numpy is handed the stream. Nothing is ever unpickled (an array of objects is refused, as
numpy refuses it with allow_pickle=False).
"""
from __future__ import annotations

import io
import os
from typing import Any, Callable

import numpy as np
from numpy.lib import format as npy_format
from numpy.lib.npyio import NpzFile

from . import streams
from . import tree as files


def _opened(file: Any, mode: str) -> tuple:
    """(stream, whether this opened it) for a path or a stream the program holds."""
    if isinstance(file, (str, bytes, os.PathLike)):
        return streams.open_file(file, mode), True
    return file, False


def _with_suffix(file: Any, suffix: str) -> Any:
    """A path as numpy completes it (`np.save('arr', a)` writes arr.npy); a stream as it is."""
    if isinstance(file, (str, bytes, os.PathLike)):
        file = files.fspath(file)
        return file if file.endswith(suffix) else file + suffix
    return file


def _writing(file: Any, write: Callable[[Any], None], mode: str = "wb") -> None:
    stream, own = _opened(file, mode)
    try:
        write(stream)
    finally:
        if own:
            stream.close()


def save(file: Any, arr: Any, allow_pickle: bool = True, fix_imports: Any = None) -> None:
    _writing(_with_suffix(file, ".npy"),
             lambda stream: npy_format.write_array(stream, np.asanyarray(arr), allow_pickle=False))


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
            return npy_format.read_array(stream, allow_pickle=False, max_header_size=max_header_size)
        raise ValueError("This file contains pickled (object) data. If you trust the file you can load it "
                         "unsafely using the `allow_pickle=` keyword argument or `pickle.load()`.")
    finally:
        if own:
            stream.close()


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


def numpy_file_members() -> dict:
    return {"save": save, "load": load, "savez": _saving_archive(np.savez),
            "savez_compressed": _saving_archive(np.savez_compressed), "savetxt": savetxt,
            "loadtxt": _reading_text(np.loadtxt), "genfromtxt": _reading_text(np.genfromtxt)}
