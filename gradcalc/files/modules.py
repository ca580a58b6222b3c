"""The modules that reach a program's files, as a program imports them: os, os.path, pathlib,
shutil, glob, tempfile, pickle, logging, csv, and io's, json's and numpy's members that take a file.

Each is a table of gradcalc's own functions and classes over the session's file tree (tree.py);
none holds the host's module of that name or anything that reaches a descriptor. Why the host
members given here are safe: posixpath's string functions, fnmatch and glob.escape compute on
strings; os.fspath calls the program's own `__fspath__`; csv's reader and writer call `write` or
iterate the object given; json.dump and json.load call its `write` and `read`; logging's classes
are admitted as logs.py explains.
"""
from __future__ import annotations

import csv
import io
from typing import Any

from ..language import policy
from ..language.builtins import OPEN, Builtin
from . import arrays, logs, os_module, pathlib_module, pickling, searching, shell, streams, tree


def _allow(*types_: Any, **options: Any) -> None:
    policy.allow_module_types(types_, **options)


def _builtins(members: dict, names: tuple) -> dict:
    """The members Python implements in C, shown as its built-in functions are."""
    return {name: Builtin(name, value) if name in names else value for name, value in members.items()}


def _numpy() -> dict:
    import numpy as np
    from numpy.lib.npyio import NpzFile

    from ..language.modules.numpy import BUILDERS as NUMPY_BUILDERS

    members = NUMPY_BUILDERS["numpy"]()
    # an archive's arrays by name; not its zip file or stream
    _allow(NpzFile, read={"files", "keys", "values", "items", "get", "close", "__getitem__", "__contains__",
                          "__iter__", "__len__", "__enter__", "__exit__"})
    array = policy.RULES[np.ndarray]  # a memmap is an array of the file's bytes, and where they came from
    _allow(np.memmap, read=array.read | {"filename", "offset", "mode", "flush"}, deny=array.deny, write=array.write,
           replaced=array.replaced)
    members.update(arrays.numpy_file_members())
    return members


def _allow_stat() -> None:
    """What os.stat and Path.stat give: the numbers of a file's entry."""
    import os as host_os

    _allow(host_os.stat_result, public=True)


def _os() -> dict:
    _allow_stat()
    _allow(tree.Environment, read=policy.public_names(dict))
    _allow(os_module.DirEntry, read={"name", "path", "is_file", "is_dir", "is_symlink", "stat", "__fspath__"})
    _allow(os_module.ScandirIterator, read={"close", "__enter__", "__exit__", "__iter__", "__next__"})
    return _builtins(os_module.os_members(), ("getcwd", "listdir", "mkdir", "remove", "unlink", "rmdir", "rename",
                                              "replace", "stat", "lstat", "cpu_count", "scandir", "fspath"))


def _os_path() -> dict:
    return os_module.path_members()


def _pathlib() -> dict:
    _allow_stat()
    _allow(*pathlib_module.PATH_TYPES, public=True, read={"__fspath__", "__truediv__", "__rtruediv__"})
    return pathlib_module.pathlib_members()


def _shutil() -> dict:
    return shell.shutil_members()


def _glob() -> dict:
    return searching.glob_members()


def _tempfile() -> dict:
    _allow(shell.TemporaryDirectory, read={"name", "cleanup", "__enter__", "__exit__"})
    return shell.tempfile_members()


def _pickle() -> dict:
    return pickling.pickle_members()


def _logging() -> dict:
    # their public face, less what leads to the host's lock objects; the settings programs assign
    for cls in logs.TYPES:
        _allow(cls, public=True, deny={"lock", "createLock", "acquire", "release"}, derivable=True,
               write=logs.WRITABLE.get(cls, ()), public_write=cls is logs.LogRecord)
    return logs.logging_members()


def _csv() -> dict:
    members = {name: getattr(csv, name) for name in (
        "reader", "writer", "DictReader", "DictWriter", "Dialect", "excel", "excel_tab", "unix_dialect",
        "QUOTE_ALL", "QUOTE_MINIMAL", "QUOTE_NONNUMERIC", "QUOTE_NONE", "Error", "register_dialect",
        "get_dialect", "list_dialects", "unregister_dialect")}
    sample = csv.writer(io.StringIO())
    _allow(type(csv.reader([])), read={"dialect", "line_num", "__next__", "__iter__"})
    _allow(type(sample), read={"writerow", "writerows", "dialect"})
    _allow(type(sample.dialect), public=True)
    _allow(csv.DictReader, read={"fieldnames", "restkey", "restval", "dialect", "line_num", "__next__", "__iter__"},
           derivable=True)
    _allow(csv.DictWriter, read={"fieldnames", "restval", "extrasaction", "writeheader", "writerow", "writerows"},
           derivable=True)
    _allow(csv.Dialect, csv.excel, csv.excel_tab, csv.unix_dialect, public=True, derivable=True)
    return members


def _io() -> dict:
    from ..language.modules.stdlib import BUILDERS

    members = BUILDERS["io"]()
    streams.allow_types()
    members.update(open=OPEN, UnsupportedOperation=io.UnsupportedOperation,
                   SEEK_SET=io.SEEK_SET, SEEK_CUR=io.SEEK_CUR, SEEK_END=io.SEEK_END,
                   DEFAULT_BUFFER_SIZE=io.DEFAULT_BUFFER_SIZE, TextIOWrapper=streams.TextIOWrapper,
                   BufferedReader=streams.BufferedReader, BufferedWriter=streams.BufferedWriter,
                   IOBase=io.IOBase, TextIOBase=io.TextIOBase, BufferedIOBase=io.BufferedIOBase,
                   RawIOBase=io.RawIOBase)
    _allow(io.IOBase, io.TextIOBase, io.BufferedIOBase, io.RawIOBase, read=set())
    return members


def _json() -> dict:
    import json

    from ..language.modules.stdlib import BUILDERS

    members = BUILDERS["json"]()
    members.update(dump=json.dump, load=json.load)
    return members


BUILDERS: dict = {
    "os": _os, "os.path": _os_path, "posixpath": _os_path, "pathlib": _pathlib, "shutil": _shutil, "glob": _glob,
    "tempfile": _tempfile, "pickle": _pickle, "logging": _logging, "csv": _csv, "io": _io, "json": _json,
    "numpy": _numpy,
}
