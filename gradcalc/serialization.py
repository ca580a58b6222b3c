"""torch.save and torch.load, kept in memory: a program's files (files/, its own tree) and buffers
hold a short token and the saved object lives in this process for the program's run, so nothing
reaches the host's disk and no bytes a program writes are ever unpickled.

A save takes a snapshot (tensors become new leaf tensors holding a copy of the data, the objects
around them copies, shared tensors stay shared); each load gives a fresh copy of the snapshot.
`weights_only` (True by default, as in PyTorch 2.6 and later) refuses what PyTorch's weights-only
unpickler refuses, with its message: a whole nn.Module, an optimizer, a program's objects.
"""
from __future__ import annotations

import collections
import copy
import itertools
import io
import os
import re
from typing import Any, Callable, Optional

from .autograd import dtypes
from .autograd.tensor import Device, Size, Tensor
from .display.names import type_name
from .files.streams import open_file
from .nn.parameter import Parameter
from .torch_code import copied_from_torch
from .warnings import warn

__all__ = ["save", "load"]

_MAGIC = b"PK\x03\x04gradcalc-saved-object:"
_saved: dict = {}  # token -> snapshot
_tokens = itertools.count(1)

# what PyTorch's weights-only unpickler accepts (besides tensors and parameters)
_PLAIN = (type(None), bool, int, float, complex, str, bytes, dtypes.DType, Size, Device, slice, range)
_CONTAINERS = (dict, list, tuple, set, frozenset, collections.OrderedDict)


class UnpicklingError(Exception):
    """pickle's UnpicklingError, which torch.load raises for what it will not load."""

    __module__ = "_pickle"


_WEIGHTS_ONLY = (
    "Weights only load failed. This file can still be loaded, to do so you have two options, \x1b[1mdo those "
    "steps only if you trust the source of the checkpoint\x1b[0m. \n\t(1) In PyTorch 2.6, we changed the default "
    "value of the `weights_only` argument in `torch.load` from `False` to `True`. Re-running `torch.load` with "
    "`weights_only` set to `False` will likely succeed, but it can result in arbitrary code execution. Do it only "
    "if you got the file from a trusted source.\n\t(2) Alternatively, to load with `weights_only=True` please check "
    "the recommended steps in the following error message.\n\tWeightsUnpickler error: Unsupported global: GLOBAL "
    "{name} was not an allowed global by default. Please use `torch.serialization.add_safe_globals([{name}])` or "
    "the `torch.serialization.safe_globals([{name}])` context manager to allowlist this global if you trust this "
    "class/function.\n\nCheck the documentation of torch.load to learn more about types accepted by default with "
    "weights_only https://pytorch.org/docs/stable/generated/torch.load.html.")


def forget_files() -> None:
    """A new run starts with nothing saved."""
    _saved.clear()


def keep(obj: Any) -> int:
    """Keep a snapshot of `obj` for this run; its number."""
    token = next(_tokens)
    _saved[token] = _copy(obj, {})
    return token


def kept(token: int) -> Any:
    """A fresh copy of what `keep` kept under `token`."""
    if token not in _saved:
        raise UnpicklingError("A load persistent id instruction was encountered, but no persistent_load "
                              "function was specified.")
    return _copy(_saved[token], {})


def _copy(obj: Any, memo: dict, place: Optional[Callable[[Tensor], str]] = None) -> Any:
    """A deep copy in which tensors become leaves with their own data, as a save and load make them
    (`place`: a load's map_location, which says where each tensor's storage goes)."""
    key = id(obj)
    if key in memo:
        return memo[key]
    if isinstance(obj, _PLAIN):
        return obj
    if isinstance(obj, Tensor):
        data = Tensor._make(obj._data.copy(), obj._dtype, requires_grad=obj.requires_grad and type(obj) is Tensor)
        if place is not None and place(obj) == "meta":
            data = data.detach().to("meta")._set_requires_grad(data.requires_grad)
        made = Parameter(data, obj.requires_grad) if isinstance(obj, Parameter) else data
    elif isinstance(obj, dict):
        made = copy.copy(obj)  # its type and (a defaultdict's) factory
        made.clear()
        memo[key] = made
        made.update((_copy(k, memo, place), _copy(v, memo, place)) for k, v in obj.items())
    elif isinstance(obj, list):
        made = memo[key] = []
        made.extend(_copy(item, memo, place) for item in obj)
    elif isinstance(obj, tuple):
        items = [_copy(item, memo, place) for item in obj]
        made = type(obj)(*items) if hasattr(obj, "_fields") else type(obj)(items)
    elif isinstance(obj, (set, frozenset)):
        made = type(obj)(_copy(item, memo, place) for item in obj)
    elif hasattr(obj, "__dict__") and not isinstance(obj, type):
        made = memo[key] = type(obj).__new__(type(obj))
        state = obj.__getstate__() if hasattr(type(obj), "__setstate__") else vars(obj)
        copied = _copy(state, memo, place)
        made.__setstate__(copied) if hasattr(type(obj), "__setstate__") else vars(made).update(copied)
    else:
        made = copy.deepcopy(obj, memo)
    memo[key] = made
    return made


def _unsupported(obj: Any, seen: set) -> Optional[type]:
    """The first class in `obj` that a weights-only load refuses."""
    if id(obj) in seen or isinstance(obj, (Tensor,) + _PLAIN):
        return None
    seen.add(id(obj))
    if type(obj) not in _CONTAINERS:
        return type(obj)
    items = itertools.chain.from_iterable(obj.items()) if isinstance(obj, dict) else obj
    for item in items:
        found = _unsupported(item, seen)
        if found is not None:
            return found
    return None


def _is_path(f: Any) -> bool:
    return isinstance(f, (str, bytes, os.PathLike))


@copied_from_torch
def _check_dill_version(pickle_module: Any) -> None:
    """torch's first look at a pickle module: its name, to recognise dill's (which programs cannot
    import here, so no version check follows); a module without one fails as torch's code does."""
    if pickle_module is not None:
        pickle_module.__name__  # noqa: B018


def save(obj: Any, f: Any, pickle_module: Any = None, pickle_protocol: int = 2,
         _use_new_zipfile_serialization: bool = True, _disable_byteorder_record: bool = False) -> None:
    _check_dill_version(pickle_module)
    if not _is_path(f) and not hasattr(f, "write"):  # torch's _check_save_filelike, then its buffer writer's check
        raise AttributeError("expected 'f' to be string, path, or a file-like object with a 'write' attribute")
    if not _is_path(f) and not callable(getattr(f, "write", None)):
        raise TypeError(f"Buffer of {str(type(f)).strip('<>')} has no callable attribute 'write'")
    payload = _MAGIC + str(keep(obj)).encode()
    if _is_path(f):
        from .files import tree

        directory = os.path.dirname(tree.fspath(f))
        if directory and not isinstance(tree.active().find(directory), tree.Directory):
            raise RuntimeError(f"Parent directory {directory} does not exist.")
        with open_file(f, "wb") as file:
            file.write(payload)
    else:
        f.write(payload)


def _check_seekable(f: Any) -> None:
    """torch.load's check that a buffer seeks, its error told how to make one that does."""
    try:
        f.seek(f.tell())
    except (io.UnsupportedOperation, AttributeError) as error:
        if "seek" in str(error) or "tell" in str(error):
            raise type(error)(f"{error}. You can only torch.load from a file that is seekable. Please pre-load the "
                              "data into a buffer like io.BytesIO and try to load from it instead.") from None
        raise


# the keywords the unpicklers take, which torch.load hands its own keywords on to
_WEIGHTS_ONLY_UNPICKLER_ARGUMENTS = frozenset({"encoding"})
_UNPICKLER_ARGUMENTS = frozenset({"fix_imports", "encoding", "errors", "buffers"})


def _check_unpickler_arguments(pickle_load_args: dict, weights_only: bool) -> None:
    """torch.load's other keywords go to its unpickler: the weights-only one (a Python class) or
    pickle's (a C type), which refuse those they do not take in their own words."""
    for key in pickle_load_args:
        if weights_only and key not in _WEIGHTS_ONLY_UNPICKLER_ARGUMENTS:
            raise TypeError(f"Unpickler.__init__() got an unexpected keyword argument '{key}'")
        if not weights_only and key not in _UNPICKLER_ARGUMENTS:
            raise TypeError(f"'{key}' is an invalid keyword argument for Unpickler()")


def load(f: Any, map_location: Any = None, pickle_module: Any = None, *, weights_only: Optional[bool] = None,
         mmap: Optional[bool] = None, **pickle_load_args: Any) -> Any:
    safe = weights_only is None or bool(weights_only)  # weights only, by default
    if safe and pickle_module is not None:
        raise RuntimeError("Can not safely load weights when explicit pickle_module is specified")
    if pickle_load_args and safe:
        warn("UserWarning", "pickle_load_args only works if `weights_only=False`.")
    _check_dill_version(pickle_module)
    if _is_path(f):
        with open_file(f, "rb") as file:
            payload = file.read()
    else:
        _check_seekable(f)
        payload = f.read()
    if not payload:
        raise EOFError()
    if not payload.startswith(_MAGIC) or int(payload[len(_MAGIC):] or 0) not in _saved:
        raise UnpicklingError(f"invalid load key, {chr(payload[0])!r}.")
    snapshot = _saved[int(payload[len(_MAGIC):])]
    _check_unpickler_arguments(pickle_load_args, safe)
    if weights_only is not False:
        refused = _unsupported(snapshot, set())
        if refused is not None:
            raise UnpicklingError(_WEIGHTS_ONLY.format(name=f"{refused.__module__}.{refused.__qualname__}"))
    return _copy(snapshot, {}, None if map_location is None else _placement(map_location))


_NOT_AVAILABLE = ("Attempting to deserialize object on a {upper} device but torch.{name}.is_available() is False. "
                  "If you are running on a CPU-only machine, please use torch.load with "
                  "map_location=torch.device('cpu') to map your storages to the CPU.")
_NOT_REGISTERED = ("The {upper} device module is not registered. If you are running on a CPU-only machine, please "
                   "use torch.load with map_location=torch.device('cpu') to map your storages to the CPU.")


def _placement(map_location: Any) -> Callable[[Tensor], str]:
    """torch.load's restore_location for `map_location`: where a saved storage (on the CPU, as
    all of a program's are) goes, or PyTorch's refusal when the first one is restored."""
    def place(tensor: Tensor) -> str:
        if isinstance(map_location, dict):
            return _restore_location(map_location.get("cpu", "cpu"))
        if isinstance(map_location, (str, Device)):
            return _restore_location(str(map_location))
        moved = map_location(tensor.untyped_storage(), "cpu")  # any other object is called, as PyTorch does
        return "cpu" if moved is not None else _restore_location("cpu")

    return place


def _restore_location(location: Any) -> str:
    """serialization.default_restore_location: the first deserializer that takes `location`."""
    if not isinstance(location, (str, bytes)):
        raise TypeError(f"expected string or bytes-like object, got '{type_name(location)}'")
    if location in ("cpu", "meta"):
        return location
    if re.match("cuda(:|[0-9]+)", location) or location == "cuda":
        raise RuntimeError(_NOT_AVAILABLE.format(upper="CUDA", name="cuda"))
    if location.startswith("mps"):
        raise RuntimeError("torch.UntypedStorage(): Storage device not recognized: mps")
    for name, message in (("privateuseone", _NOT_REGISTERED), ("hpu", _NOT_REGISTERED), ("xpu", _NOT_AVAILABLE),
                          ("mtia", _NOT_AVAILABLE)):
        if location == name or re.match(f"{name}(:|[0-9]+)", location):
            raise RuntimeError(message.format(upper=name.upper(), name=name))
    raise RuntimeError(f"don't know how to restore data location of torch.storage.UntypedStorage (tagged with "
                       f"{location})")


save.__module__ = load.__module__ = "torch.serialization"
