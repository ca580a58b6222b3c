"""`pickle` for a program's own values.

Plain data (None, numbers, strings, bytes, and lists, tuples, dicts and sets of them) is pickled
by Python's pickler, byte for byte as Python pickles it. Anything else (a tensor, a module, an
object of the program's class) is kept in this process as torch.save keeps what it saves, and the
pickle holds only its number (a persistent id). Loading goes through an unpickler that builds no
global at all but the few plain types pickle names by module (complex, set, OrderedDict), after a
look at the opcodes that refuses those that build objects or set their state: no `__reduce__`
gadget a program writes into bytes can name a host callable or reach into a kept value.
"""
from __future__ import annotations

import collections
import io
import pickle as host_pickle
import pickletools
from typing import Any

from .. import serialization

_PLAIN = (type(None), bool, int, float, complex, str, bytes, bytearray, list, tuple, dict, set, frozenset)
# what Python's pickler names by module for plain data, and nothing else
_GLOBALS = {("builtins", "complex"): complex, ("builtins", "set"): set, ("builtins", "frozenset"): frozenset,
            ("builtins", "bytearray"): bytearray, ("builtins", "list"): list, ("builtins", "dict"): dict,
            ("builtins", "tuple"): tuple, ("collections", "OrderedDict"): collections.OrderedDict}
# opcodes that make an object of a class or set an object's state
_BUILDING = frozenset({"BUILD", "INST", "OBJ", "NEWOBJ", "NEWOBJ_EX", "EXT1", "EXT2", "EXT4"})

UnpicklingError, PicklingError, PickleError = (host_pickle.UnpicklingError, host_pickle.PicklingError,
                                              host_pickle.PickleError)


class _Pickler(host_pickle.Pickler):
    """Python's pickler; what is not plain data is saved aside and pickled as its number."""

    def __init__(self, file: Any, protocol: Any = None, **options: Any) -> None:
        super().__init__(file, protocol, **options)
        self._kept: dict = {}  # id(obj) -> number, so a value met twice is one value

    def persistent_id(self, obj: Any) -> Any:
        if type(obj) in _PLAIN or type(obj) is collections.OrderedDict:
            return None
        number = self._kept.get(id(obj))
        if number is None:
            number = self._kept[id(obj)] = serialization.keep(obj)
        return number


class _Unpickler(host_pickle.Unpickler):
    """Python's unpickler, building plain data and the values this run saved aside, nothing else."""

    def __init__(self, file: Any, **options: Any) -> None:
        super().__init__(file, **options)
        self._loaded: dict = {}

    def find_class(self, module: str, name: str) -> Any:
        found = _GLOBALS.get((module, name)) if type(module) is str and type(name) is str else None
        if found is None:
            raise UnpicklingError(f"global '{module}.{name}' is forbidden")
        return found

    def persistent_load(self, pid: Any) -> Any:
        if type(pid) is str and pid.isdigit():  # protocol 0 writes the number as text
            pid = int(pid)
        if type(pid) is not int:
            raise UnpicklingError("unsupported persistent id encountered")
        if pid not in self._loaded:
            self._loaded[pid] = serialization.kept(pid)
        return self._loaded[pid]


def dumps(obj: Any, protocol: Any = None, *, fix_imports: bool = True, buffer_callback: Any = None) -> bytes:
    stream = io.BytesIO()
    _Pickler(stream, protocol, fix_imports=fix_imports).dump(obj)
    return stream.getvalue()


def dump(obj: Any, file: Any, protocol: Any = None, *, fix_imports: bool = True, buffer_callback: Any = None) -> None:
    file.write(dumps(obj, protocol, fix_imports=fix_imports))


def _check(stream: Any) -> None:
    """Read one pickle's opcodes from `stream`, refusing those that build objects."""
    try:
        for opcode, _, _ in pickletools.genops(stream):
            if opcode.name in _BUILDING:
                raise UnpicklingError(f"opcode {opcode.name} is forbidden")
    except ValueError as failure:  # genops's words for bytes that are no pickle
        raise UnpicklingError(str(failure)) from None


def loads(data: Any, /, *, fix_imports: bool = True, encoding: str = "ASCII", errors: str = "strict",
          buffers: Any = None) -> Any:
    if isinstance(data, str):
        raise TypeError("a bytes-like object is required, not 'str'")
    data = bytes(data)
    if not data:
        raise EOFError("Ran out of input")
    _check(io.BytesIO(data))
    return _Unpickler(io.BytesIO(data), fix_imports=fix_imports, encoding=encoding, errors=errors).load()


def load(file: Any, *, fix_imports: bool = True, encoding: str = "ASCII", errors: str = "strict",
         buffers: Any = None) -> Any:
    """One pickle from `file` (which must be seekable: it is read once to be checked)."""
    start = file.tell()
    if not file.read(1):
        raise EOFError("Ran out of input")
    file.seek(start)
    _check(file)
    end = file.tell()
    file.seek(start)
    data = file.read(end - start)
    return loads(data, fix_imports=fix_imports, encoding=encoding, errors=errors)


def pickle_members() -> dict:
    return {"dumps": dumps, "dump": dump, "loads": loads, "load": load, "HIGHEST_PROTOCOL": 5,
            "DEFAULT_PROTOCOL": 4, "UnpicklingError": UnpicklingError, "PicklingError": PicklingError,
            "PickleError": PickleError}

