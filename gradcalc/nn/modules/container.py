"""Containers: Sequential, ModuleList, ModuleDict, ParameterList and ParameterDict."""
from __future__ import annotations

import operator
from collections import OrderedDict
from collections.abc import Iterable, Mapping
from types import FunctionType
from typing import Any, Iterator, Optional

from ...autograd.tensor import Tensor
from ..parameter import Parameter
from .module import Module, add_indent, typename
from .utils import defined_in


class _ModuleSequence(Module):
    """What Sequential and ModuleList share: submodules in order, named "0", "1", ..."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        # torch defines these methods in each container: its errors name the container
        # (`ModuleList.append() takes 2 positional arguments ...`), never a shared base
        super().__init_subclass__(**kwargs)
        for name, shared in vars(_ModuleSequence).items():
            if isinstance(shared, FunctionType) and name not in vars(cls):
                setattr(cls, name, defined_in(cls.__qualname__, shared))

    def _index(self, index: Any) -> str:
        size = len(self)
        position = operator.index(index)
        if not -size <= position < size:
            raise IndexError(f"index {position} is out of range")
        return list(self._modules)[position % size]

    def __setitem__(self, index: Any, module: Module) -> None:
        setattr(self, self._index(index), module)

    def __delitem__(self, index: Any) -> None:
        if isinstance(index, slice):
            for name in list(self._modules)[index]:
                del self._modules[name]
        else:
            del self._modules[self._index(index)]
        # the names stay "0", "1", ... in order
        items = list(self._modules.values())
        self._modules.clear()
        for position, module in enumerate(items):
            self._modules[str(position)] = module

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[Module]:
        return iter(self._modules.values())

    def append(self, module: Module) -> "_ModuleSequence":
        self.add_module(str(len(self)), module)
        return self

    def extend(self, modules: Any) -> "_ModuleSequence":
        for module in modules:
            self.append(module)
        return self


class Sequential(_ModuleSequence):
    """Modules run in order, registered under the names "0", "1", ..."""

    __module__ = "torch.nn.modules.container"

    def __init__(self, *args: Module) -> None:
        super().__init__()
        if len(args) == 1 and isinstance(args[0], OrderedDict):
            for key, module in args[0].items():
                self.add_module(key, module)
        else:
            for index, module in enumerate(args):
                self.add_module(str(index), module)

    @classmethod
    def _from_items(cls, items: list) -> "Sequential":
        # a slice keeps the original names, as torch's does
        sequential = cls()
        for name, module in items:
            sequential.add_module(name, module)
        return sequential

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, slice):
            return Sequential._from_items(list(self._modules.items())[index])
        return self._modules[self._index(index)]

    def extend(self, sequential: Any) -> "Sequential":  # torch's parameter name, which its errors give
        return _ModuleSequence.extend(self, sequential)

    def forward(self, input: Any) -> Any:
        for module in self:
            input = module(input)
        return input



class ModuleList(_ModuleSequence):
    """A list of submodules, registered under the names "0", "1", ...; it has no forward."""

    __module__ = "torch.nn.modules.container"

    def __init__(self, modules: Any = None) -> None:
        super().__init__()
        if modules is not None:
            self.extend(modules)

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, slice):
            return ModuleList(list(self._modules.values())[index])
        return self._modules[self._index(index)]

    def extend(self, modules: Any) -> "ModuleList":
        if not isinstance(modules, Iterable):
            raise TypeError(f"ModuleList.extend should be called with an iterable, but got {type(modules).__name__}")
        offset = len(self)
        for i, module in enumerate(modules):
            self.add_module(str(offset + i), module)
        return self

    def insert(self, index: int, module: Module) -> None:
        # torch's own loop: entries from the end down to `index` move up one (a negative index
        # reaches key '-1', which is missing: KeyError), then the module goes in at str(index)
        for i in range(len(self._modules), index, -1):
            self._modules[str(i)] = self._modules[str(i - 1)]
        self._modules[str(index)] = module

    def __repr__(self) -> str:
        # runs of equal entries print once, as "(0-2): 3 x Linear(...)", as torch's ModuleList does
        reprs = [repr(module) for module in self]
        if not reprs:
            return self._get_name() + "()"
        runs: list = []
        for index, text in enumerate(reprs):
            if runs and runs[-1][2] == text:
                runs[-1][1] = index
            else:
                runs.append([index, index, text])
        lines = []
        for start, end, text in runs:
            label = f"({start})" if start == end else f"({start}-{end})"
            count = "" if start == end else f"{end - start + 1} x "
            lines.append(add_indent(f"{label}: {count}{text}", 2))
        return self._get_name() + "(\n  " + "\n  ".join(lines) + "\n)"


class ModuleDict(Module):
    """Submodules by name, in the order they were added."""

    __module__ = "torch.nn.modules.container"

    def __init__(self, modules: Optional[Mapping] = None) -> None:
        super().__init__()
        if modules is not None:
            self.update(modules)

    def __getitem__(self, key: str) -> Module:
        return self._modules[key]

    def __setitem__(self, key: str, module: Module) -> None:
        self.add_module(key, module)

    def __delitem__(self, key: str) -> None:
        del self._modules[key]

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[str]:
        return iter(self._modules)

    def __contains__(self, key: str) -> bool:
        return key in self._modules

    def clear(self) -> None:
        self._modules.clear()

    def pop(self, key: str) -> Module:
        module = self[key]
        del self[key]
        return module

    def keys(self) -> Any:
        return self._modules.keys()

    def items(self) -> Any:
        return self._modules.items()

    def values(self) -> Any:
        return self._modules.values()

    def update(self, modules: Any) -> None:
        if not isinstance(modules, Iterable):
            raise TypeError("ModuleDict.update should be called with an iterable of key/value pairs, but got "
                            + type(modules).__name__)
        if isinstance(modules, Mapping):
            for key, module in modules.items():
                self[key] = module
            return
        for j, pair in enumerate(modules):
            if not isinstance(pair, Iterable):
                raise TypeError(f"ModuleDict update sequence element #{j} should be Iterable; is"
                                + type(pair).__name__)
            if len(pair) != 2:
                raise ValueError(f"ModuleDict update sequence element #{j} has length {len(pair)}; 2 is required")
            self[pair[0]] = pair[1]


def _parameter_line(key: Any, value: Any, dtype_name: Any) -> str:
    if isinstance(value, Tensor):
        size = "x".join(str(s) for s in value.shape)
        kind = "Parameter" if isinstance(value, Parameter) else "Tensor"
        return f"  ({key}): {kind} containing: [{dtype_name(value)} of size {size}]"
    return f"  ({key}): Object of type: {type(value).__name__}"


class ParameterList(Module):
    """Parameters in a list, registered under the names "0", "1", ..."""

    __module__ = "torch.nn.modules.container"

    def __init__(self, values: Any = None) -> None:
        super().__init__()
        self._size = 0
        if values is not None:
            self += values

    def _index(self, index: int) -> str:
        index = operator.index(index)
        if not -len(self) <= index < len(self):
            raise IndexError(f"index {index} is out of range")
        return str(index % len(self))

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, slice):
            return ParameterList([self[i] for i in range(len(self))[index]])
        return getattr(self, self._index(index))

    def __setitem__(self, index: int, param: Any) -> None:
        name = self._index(index)
        if isinstance(param, Tensor) and not isinstance(param, Parameter):
            param = Parameter(param)
        setattr(self, name, param)

    def __len__(self) -> int:
        return self._size

    def __iter__(self) -> Iterator[Any]:
        return iter(self[i] for i in range(len(self)))

    def __iadd__(self, parameters: Any) -> "ParameterList":
        return self.extend(parameters)

    def append(self, value: Any) -> "ParameterList":
        new_index = len(self)
        self._size += 1
        self[new_index] = value
        return self

    def extend(self, values: Any) -> "ParameterList":
        if not isinstance(values, Iterable) or isinstance(values, Tensor):
            raise TypeError("ParameterList.extend should be called with an iterable, but got "
                            + type(values).__name__)
        for value in values:
            self.append(value)
        return self

    def extra_repr(self) -> str:
        return "\n".join(_parameter_line(k, p, lambda t: t.dtype) for k, p in enumerate(self))


class ParameterDict(Module):
    """Parameters by name, in the order they were added."""

    __module__ = "torch.nn.modules.container"

    def __init__(self, parameters: Any = None) -> None:
        super().__init__()
        self._keys: dict = {}
        if parameters is not None:
            self.update(parameters)

    def __getitem__(self, key: str) -> Any:
        return getattr(self, key)

    def __setitem__(self, key: str, value: Any) -> None:
        self._keys[key] = None
        if isinstance(value, Tensor) and not isinstance(value, Parameter):
            value = Parameter(value)
        setattr(self, key, value)

    def __delitem__(self, key: str) -> None:
        del self._keys[key]
        delattr(self, key)

    def __len__(self) -> int:
        return len(self._keys)

    def __iter__(self) -> Iterator[str]:
        return iter(self._keys)

    def __contains__(self, key: str) -> bool:
        return key in self._keys

    def keys(self) -> Any:
        return self._keys.keys()

    def items(self) -> Iterator[tuple]:
        return ((k, self[k]) for k in self._keys)

    def values(self) -> Iterator[Any]:
        return (self[k] for k in self._keys)

    def get(self, key: str, default: Any = None) -> Any:
        return self[key] if key in self else default

    def pop(self, key: str) -> Any:
        value = self[key]
        del self[key]
        return value

    def clear(self) -> None:
        for key in list(self._keys):
            del self[key]

    def update(self, parameters: Any) -> None:
        if not isinstance(parameters, Iterable):
            raise TypeError("ParametersDict.update should be called with an iterable of key/value pairs, but got "
                            + type(parameters).__name__)
        pairs = parameters.items() if isinstance(parameters, Mapping) else parameters
        for key, value in pairs:
            self[key] = value

    def extra_repr(self) -> str:
        return "\n".join(_parameter_line(k, p, typename) for k, p in self.items())


class DataParallel(Module):
    """Data parallelism over devices; on a machine without GPUs PyTorch's runs the module itself."""

    __module__ = "torch.nn.parallel.data_parallel"

    def __init__(self, module: Module, device_ids: Any = None, output_device: Any = None, dim: int = 0) -> None:
        super().__init__()
        self.module = module
        self.device_ids: list = []
        self.dim = dim
        self.output_device = None

    def forward(self, *inputs: Any, **kwargs: Any) -> Any:
        return self.module(*inputs, **kwargs)
