"""torch.nn.Module: parameters, buffers and submodules kept in registries filled by attribute
assignment (so that `parameters()`, `state_dict()` and the repr list them in the order they
were set), hooks around forward and backward, state_dict loading and dtype conversion."""
from __future__ import annotations

import itertools
import types
from collections import OrderedDict, namedtuple
from collections.abc import Mapping
from typing import Any, Callable, Iterator, Optional

from ...autograd import dtypes, grad_mode, meta
from ...autograd.dtypes import DType
from ...autograd.ops.common import as_tensor
from ...autograd.ops.parser import parser
from ...autograd.tensor import RemovableHandle, Tensor, check_device
from ...language.policy import ARRAY_PROTOCOLS
from ..parameter import Parameter, is_buffer
from .backward_hooks import BackwardHook
from .utils import recursion_boundary, unwrapped

__all__ = ["Module", "typename"]


def typename(obj: Any) -> str:
    """torch.typename: how PyTorch names a value in its type errors."""
    if isinstance(obj, Tensor):
        return obj.type()
    module = getattr(obj, "__module__", "") or ""
    if hasattr(obj, "__qualname__"):
        qualname = obj.__qualname__
    elif hasattr(obj, "__name__"):
        qualname = obj.__name__
    else:
        module = type(obj).__module__ or ""
        qualname = type(obj).__qualname__
    return qualname if module in ("", "builtins") else f"{module}.{qualname}"


def add_indent(text: str, spaces: int) -> str:
    lines = text.split("\n")
    if len(lines) == 1:
        return text
    return lines[0] + "\n" + "\n".join(" " * spaces + line for line in lines[1:])


class _IncompatibleKeys(namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    """What load_state_dict returns."""

    __slots__ = ()
    __module__ = "torch.nn.modules.module"

    def __repr__(self) -> str:
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()

    __str__ = __repr__


# hooks are keyed by their handle's number, as in torch (programs see the keys in `_forward_pre_hooks`)
_HANDLE_IDS = itertools.count()


def _hook_handle(hooks: dict, hook: Callable, prepend: bool = False, *flags: dict) -> tuple:
    """A handle removing `hook` from `hooks` (and its flags), and its key there."""
    key = next(_HANDLE_IDS)
    hooks[key] = hook
    if prepend:
        hooks_in_order = list(hooks.items())
        hooks.clear()
        hooks[key] = hook
        hooks.update((k, v) for k, v in hooks_in_order if k is not key)

    def remove() -> None:
        for table in (hooks,) + flags:
            table.pop(key, None)

    return RemovableHandle(remove), key


class Module:
    """Base class of every layer; a program's classes derive from it."""

    __module__ = "torch.nn.modules.module"
    _version = 1
    call_super_init = False
    # methods a gradcalc base class shares with subclasses that define them themselves in torch:
    # each subclass gets its own copy, named after it, as Python's errors name the method
    _methods_of_its_own: tuple = ()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if not cls.__module__.startswith("torch."):
            return  # a program's class: Python's errors name the class that defines the method
        for name in cls._methods_of_its_own:
            if name in cls.__dict__:
                continue
            shared = getattr(cls, name)
            shared = unwrapped(shared)
            qualname = f"{cls.__name__}.{name}"
            copy = types.FunctionType(shared.__code__.replace(co_qualname=qualname), shared.__globals__, name,
                                      shared.__defaults__, shared.__closure__)
            copy.__qualname__ = qualname
            copy.__kwdefaults__ = shared.__kwdefaults__
            copy.__annotations__ = shared.__annotations__
            setattr(cls, name, copy)
        init = cls.__dict__.get("__init__")
        if isinstance(init, types.FunctionType):
            cls.__init__ = recursion_boundary(init)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if kwargs:
            raise TypeError(f"{type(self).__name__}.__init__() got an unexpected keyword argument "
                            f"'{next(iter(kwargs))}'")
        if args:
            raise TypeError(f"{type(self).__name__}.__init__() takes 1 positional argument but {len(args) + 1} were "
                            "given")
        state = {"training": True, "_parameters": {}, "_buffers": {}, "_non_persistent_buffers_set": set(),
                 "_modules": {}, "_forward_hooks": OrderedDict(), "_forward_hooks_with_kwargs": {},
                 "_forward_pre_hooks": OrderedDict(), "_forward_pre_hooks_with_kwargs": {}, "_backward_hooks": {},
                 "_backward_pre_hooks": {}, "_load_state_dict_pre_hooks": {}}
        for name, value in state.items():
            object.__setattr__(self, name, value)

    # -------------------------------------------------------------- attributes

    def __getattr__(self, name: str) -> Any:
        # reached only when ordinary lookup fails: the registries come next (never for numpy's
        # protocols, which a program could otherwise plant there for numpy to read)
        if name in ARRAY_PROTOCOLS:
            raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")
        registries = self.__dict__
        for registry in ("_parameters", "_buffers", "_modules"):
            if registry in registries and name in registries[registry]:
                return registries[registry][name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def _remove_name(self, name: str, *registries: Any) -> None:
        for registry in registries:
            if isinstance(registry, dict):
                registry.pop(name, None)
            else:
                registry.discard(name)

    def __setattr__(self, name: str, value: Any) -> None:
        params = self.__dict__.get("_parameters")
        if isinstance(value, Parameter):
            if params is None:
                raise AttributeError("cannot assign parameters before Module.__init__() call")
            self._remove_name(name, self.__dict__, self._buffers, self._modules, self._non_persistent_buffers_set)
            self.register_parameter(name, value)
            return
        if params is not None and name in params:
            if value is not None:
                raise TypeError(f"cannot assign '{typename(value)}' as parameter '{name}' (torch.nn.Parameter or "
                                "None expected)")
            self.register_parameter(name, value)
            return
        modules = self.__dict__.get("_modules")
        if isinstance(value, Module):
            if modules is None:
                raise AttributeError("cannot assign module before Module.__init__() call")
            self._remove_name(name, self.__dict__, self._parameters, self._buffers, self._non_persistent_buffers_set)
            modules[name] = value
        elif modules is not None and name in modules:
            if value is not None:
                raise TypeError(f"cannot assign '{typename(value)}' as child module '{name}' (torch.nn.Module or "
                                "None expected)")
            modules[name] = value
        elif is_buffer(value):
            self.register_buffer(name, value, value.persistent)
        elif self.__dict__.get("_buffers") is not None and name in self._buffers:
            if value is not None and not isinstance(value, Tensor):
                raise TypeError(f"cannot assign '{typename(value)}' as buffer '{name}' (torch.nn.Buffer, "
                                "torch.Tensor or None expected)")
            self._buffers[name] = value
        else:
            object.__setattr__(self, name, value)

    def __delattr__(self, name: str) -> None:
        if name in self._parameters:
            del self._parameters[name]
        elif name in self._buffers:
            del self._buffers[name]
            self._non_persistent_buffers_set.discard(name)
        elif name in self._modules:
            del self._modules[name]
        else:
            object.__delattr__(self, name)

    def __dir__(self) -> list:
        keys = (dir(type(self)) + list(self.__dict__) + list(self._parameters) + list(self._modules)
                + list(self._buffers))
        return sorted(key for key in keys if not key[0].isdigit())

    def register_buffer(self, name: str, tensor: Optional[Tensor], persistent: bool = True) -> None:
        if "_buffers" not in self.__dict__:
            raise AttributeError("cannot assign buffer before Module.__init__() call")
        if not isinstance(name, str):
            raise TypeError(f"buffer name should be a string. Got {typename(name)}")
        if "." in name:
            raise KeyError("buffer name can't contain \".\"")
        if name == "":
            raise KeyError("buffer name can't be empty string \"\"")
        if hasattr(self, name) and name not in self._buffers:
            raise KeyError(f"attribute '{name}' already exists")
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(f"cannot assign '{typename(tensor)}' object to buffer '{name}' (torch Tensor or None "
                            "required)")
        if tensor is not None and not tensor.is_meta and meta.wants_meta(None):
            tensor = meta.make_meta(tensor.shape, tensor._dtype)
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)

    def register_parameter(self, name: str, param: Optional[Parameter]) -> None:
        if "_parameters" not in self.__dict__:
            raise AttributeError("cannot assign parameter before Module.__init__() call")
        if not isinstance(name, str):
            raise TypeError(f"parameter name should be a string. Got {typename(name)}")
        if "." in name:
            raise KeyError("parameter name can't contain \".\"")
        if name == "":
            raise KeyError("parameter name can't be empty string \"\"")
        if hasattr(self, name) and name not in self._parameters:
            raise KeyError(f"attribute '{name}' already exists")
        if param is not None and not isinstance(param, Parameter):
            raise TypeError(f"cannot assign '{typename(param)}' object to parameter '{name}' (torch.nn.Parameter "
                            "or None required)")
        if param is not None and param.grad_fn is not None:
            raise ValueError(f"Cannot assign non-leaf Tensor to parameter '{name}'. Model parameters must be created "
                             f"explicitly. To express '{name}' as a function of another Tensor, compute the value in "
                             "the forward() method.")
        if param is not None and not param.is_meta and meta.wants_meta(None):
            # built inside `with torch.device("meta")`: PyTorch's factories would have made it there
            param.data = meta.make_meta(param.shape, param._dtype)
        self._parameters[name] = param

    def add_module(self, name: str, module: Optional["Module"]) -> None:
        if module is not None and not isinstance(module, Module):
            raise TypeError(f"{typename(module)} is not a Module subclass")
        if not isinstance(name, str):
            raise TypeError(f"module name should be a string. Got {typename(name)}")
        if hasattr(self, name) and name not in self._modules:
            raise KeyError(f"attribute '{name}' already exists")
        if "." in name:
            raise KeyError(f"module name can't contain \".\", got: {name}")
        if name == "":
            raise KeyError("module name can't be empty string \"\"")
        self._modules[name] = module

    def register_module(self, name: str, module: Optional["Module"]) -> None:
        self.add_module(name, module)

    def get_submodule(self, target: str) -> "Module":
        if target == "":
            return self
        module = self
        for item in target.split("."):
            if not hasattr(module, item):
                raise AttributeError(module._get_name() + " has no attribute `" + item + "`")
            module = getattr(module, item)
            if not isinstance(module, Module):
                raise AttributeError("`" + item + "` is not an nn.Module")
        return module

    def set_submodule(self, target: str, module: "Module", strict: bool = False) -> None:
        if target == "":
            raise ValueError("Cannot set the submodule without a target name!")
        atoms = target.split(".")
        if not isinstance(module, Module):
            raise ValueError(f"`module` is not an nn.Module, found {type(module)}")
        parent = self if len(atoms) == 1 else self.get_submodule(".".join(atoms[:-1]))
        if strict and not hasattr(parent, atoms[-1]):
            raise AttributeError(parent._get_name() + " has no attribute `" + atoms[-1] + "`")
        if hasattr(parent, atoms[-1]) and not isinstance(getattr(parent, atoms[-1]), Module):
            raise AttributeError("`" + atoms[-1] + "` is not an nn.Module")
        setattr(parent, atoms[-1], module)

    def get_parameter(self, target: str) -> Parameter:
        module_path, _, name = target.rpartition(".")
        module = self.get_submodule(module_path)
        if not hasattr(module, name):
            raise AttributeError(module._get_name() + " has no attribute `" + name + "`")
        param = getattr(module, name)
        if not isinstance(param, Parameter):
            raise AttributeError("`" + name + "` is not an nn.Parameter")
        return param

    def get_buffer(self, target: str) -> Tensor:
        module_path, _, name = target.rpartition(".")
        module = self.get_submodule(module_path)
        if not hasattr(module, name):
            raise AttributeError(module._get_name() + " has no attribute `" + name + "`")
        if name not in module._buffers:
            raise AttributeError("`" + name + "` is not a buffer")
        return getattr(module, name)

    # -------------------------------------------------------------- calling and hooks

    def forward(self, *input: Any) -> Any:
        raise NotImplementedError(f"Module [{type(self).__name__}] is missing the required \"forward\" function")

    # torch's Module.forward is its module-level _forward_unimplemented, as messages and reprs name it
    forward.__name__ = forward.__qualname__ = "_forward_unimplemented"

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if not (self._forward_pre_hooks or self._forward_hooks or self._backward_hooks or self._backward_pre_hooks):
            return self.forward(*args, **kwargs)
        for key, hook in list(self._forward_pre_hooks.items()):
            if key in self._forward_pre_hooks_with_kwargs:
                result = hook(self, args, kwargs)
                if result is not None:
                    if not (isinstance(result, tuple) and len(result) == 2):
                        raise RuntimeError("forward pre-hook must return None or a tuple of (new_args, new_kwargs), "
                                           f"but got {result}.")
                    args, kwargs = result
            else:
                result = hook(self, args)
                if result is not None:
                    args = result if isinstance(result, tuple) else (result,)
        backward_hook = None
        if self._backward_hooks or self._backward_pre_hooks:
            backward_hook = BackwardHook(self, list(self._backward_hooks.values()),
                                         list(self._backward_pre_hooks.values()))
            args = backward_hook.setup_input_hook(args)
        result = self.forward(*args, **kwargs)
        for key, hook in list(self._forward_hooks.items()):
            if key in self._forward_hooks_with_kwargs:
                hook_result = hook(self, args, kwargs, result)
            else:
                hook_result = hook(self, args, result)
            if hook_result is not None:
                result = hook_result
        if backward_hook is not None:
            result = backward_hook.setup_output_hook(result)
        return result

    def register_forward_pre_hook(self, hook: Callable, *, prepend: bool = False,
                                  with_kwargs: bool = False) -> RemovableHandle:
        handle, key = _hook_handle(self._forward_pre_hooks, hook, prepend, self._forward_pre_hooks_with_kwargs)
        if with_kwargs:
            self._forward_pre_hooks_with_kwargs[key] = True
        return handle

    def register_forward_hook(self, hook: Callable, *, prepend: bool = False, with_kwargs: bool = False,
                              always_call: bool = False) -> RemovableHandle:
        handle, key = _hook_handle(self._forward_hooks, hook, prepend, self._forward_hooks_with_kwargs)
        if with_kwargs:
            self._forward_hooks_with_kwargs[key] = True
        return handle

    def _register_load_state_dict_pre_hook(self, hook: Callable, with_module: bool = False) -> RemovableHandle:
        """A hook that sees (and may rewrite) the state_dict's entries before this module loads them."""
        if with_module:
            return _hook_handle(self._load_state_dict_pre_hooks,
                                lambda *args: hook(self, *args))[0]
        return _hook_handle(self._load_state_dict_pre_hooks, hook)[0]

    def register_full_backward_hook(self, hook: Callable, prepend: bool = False) -> RemovableHandle:
        return _hook_handle(self._backward_hooks, hook, prepend)[0]

    def register_full_backward_pre_hook(self, hook: Callable, prepend: bool = False) -> RemovableHandle:
        return _hook_handle(self._backward_pre_hooks, hook, prepend)[0]

    # -------------------------------------------------------------- traversal (generators, as in torch)

    def named_modules(self, memo: Optional[set] = None, prefix: str = "",
                      remove_duplicate: bool = True) -> Iterator[tuple]:
        if memo is None:
            memo = set()
        if self in memo:
            return
        if remove_duplicate:
            memo.add(self)
        yield prefix, self
        for name, module in self._modules.items():
            if module is None:
                continue
            yield from module.named_modules(memo, prefix + ("." if prefix else "") + name, remove_duplicate)

    def modules(self) -> Iterator["Module"]:
        for _, module in self.named_modules():
            yield module

    def named_children(self) -> Iterator[tuple]:
        memo = set()
        for name, module in self._modules.items():
            if module is not None and module not in memo:
                memo.add(module)
                yield name, module

    def children(self) -> Iterator["Module"]:
        for _, module in self.named_children():
            yield module

    def _named_members(self, registry: str, prefix: str, recurse: bool, remove_duplicate: bool) -> Iterator[tuple]:
        owners = self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate) if recurse else [(prefix, self)]
        memo = set()
        for owner_prefix, owner in owners:
            for name, value in getattr(owner, registry).items():
                if value is None or value in memo:
                    continue
                if remove_duplicate:
                    memo.add(value)
                yield owner_prefix + ("." if owner_prefix else "") + name, value

    def named_parameters(self, prefix: str = "", recurse: bool = True,
                         remove_duplicate: bool = True) -> Iterator[tuple]:
        yield from self._named_members("_parameters", prefix, recurse, remove_duplicate)

    def parameters(self, recurse: bool = True) -> Iterator[Parameter]:
        for _, param in self.named_parameters(recurse=recurse):
            yield param

    def named_buffers(self, prefix: str = "", recurse: bool = True,
                      remove_duplicate: bool = True) -> Iterator[tuple]:
        yield from self._named_members("_buffers", prefix, recurse, remove_duplicate)

    def buffers(self, recurse: bool = True) -> Iterator[Tensor]:
        for _, buffer in self.named_buffers(recurse=recurse):
            yield buffer

    def apply(self, fn: Callable[["Module"], Any]) -> "Module":
        for module in self.children():
            module.apply(fn)
        fn(self)
        return self

    # -------------------------------------------------------------- modes and gradients

    def train(self, mode: bool = True) -> "Module":
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        self.training = mode
        for module in self.children():
            module.train(mode)
        return self

    def eval(self) -> "Module":
        return self.train(False)

    def requires_grad_(self, requires_grad: bool = True) -> "Module":
        for param in self.parameters():
            param.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none: bool = True) -> None:
        for param in self.parameters():
            grad = param.grad
            if grad is None:
                continue
            if set_to_none:
                param.grad = None
                continue
            if grad.grad_fn is not None:
                grad.detach_()
            else:
                grad.requires_grad_(False)
            grad.zero_()

    # -------------------------------------------------------------- dtype and device

    def to(self, *args: Any, **kwargs: Any) -> "Module":
        # torch's Module.to reads its arguments with torch._C._nn._parse_to, Tensor.to's signatures
        _, bound = parser("Tensor", "to").parse(args, kwargs)
        if "copy" in bound:
            raise RuntimeError(".to() does not accept copy argument")
        # `to` takes a number as a tensor (a wrapped number: a float is a double)
        like = as_tensor(bound["tensor"]) if "tensor" in bound else None
        device = like.device if like is not None else bound.get("device")
        dtype = like.dtype if like is not None else bound.get("dtype")
        if device is not None:
            self._move(device, empty=False)
        memory_format = bound.get("memory_format")
        if dtype is None and memory_format is None:
            return self
        if dtype is not None and dtype.category < dtypes.FLOATING:
            raise TypeError(f"nn.Module.to only accepts floating point or complex dtypes, but got desired "
                            f"dtype={dtype}")
        return self._convert(dtype, memory_format)

    def float(self) -> "Module":
        return self._convert(dtypes.float32)

    def double(self) -> "Module":
        return self._convert(dtypes.float64)

    def half(self) -> "Module":
        return self._convert(dtypes.float16)

    def bfloat16(self) -> "Module":
        return self._convert(dtypes.bfloat16)

    def type(self, dst_type: Any) -> "Module":
        return self._convert(dst_type if isinstance(dst_type, DType) else dtypes.float32)

    def cpu(self) -> "Module":
        return self

    def cuda(self, device: Any = None) -> "Module":
        return self.to("cuda")

    def share_memory(self) -> "Module":
        return self

    def to_empty(self, *, device: Any, recurse: bool = True) -> "Module":
        """Parameters and buffers moved to `device` without their values (from the meta device: storage to
        initialise, as the meta-device notes do with reset_parameters)."""
        return self._move(device, empty=True, recurse=recurse)

    def _move(self, device: Any, empty: bool, recurse: bool = True) -> "Module":
        """Parameters (the same objects, as torch's _apply keeps them) and buffers on `device`: the CPU or meta."""
        check_device(device)
        with grad_mode.no_grad():
            for module in self.modules() if recurse else (self,):
                for param in module._parameters.values():
                    if param is not None and param.is_meta != meta.wants_meta(device):
                        param.data = meta.moved(param, device, empty)
                for name, buffer in module._buffers.items():
                    if buffer is not None and buffer.is_meta != meta.wants_meta(device):
                        module._buffers[name] = meta.moved(buffer, device, empty)
        return self

    def _convert(self, dtype: Optional[DType], memory_format: Any = None) -> "Module":
        """The floating parameters and buffers take `dtype` (and those of 4 or 5 dims
        `memory_format`, when given): a Parameter object stays the same (its data and grad change),
        a buffer is replaced, as torch's _apply does."""

        def converted(t: Any) -> Any:
            kind = dtype if dtype is not None and t.dtype.category >= dtypes.FLOATING else t.dtype
            if memory_format is not None and t.dim() in (4, 5):
                return t.to(kind, memory_format=memory_format)
            return t.to(kind)

        with grad_mode.no_grad():
            for module in self.modules():
                for param in module._parameters.values():
                    if param is None:
                        continue
                    data = converted(param)
                    if data is not param:
                        param.data = data
                    if param.grad is not None:
                        param.grad = converted(param.grad)
                for name, buffer in module._buffers.items():
                    if buffer is not None and buffer.dtype.category >= dtypes.FLOATING:
                        module._buffers[name] = converted(buffer)
        return self

    # -------------------------------------------------------------- state

    def state_dict(self, *args: Any, destination: Optional[dict] = None, prefix: str = "",
                   keep_vars: bool = False) -> dict:
        if args:
            destination = args[0]
            prefix = args[1] if len(args) > 1 else prefix
            keep_vars = args[2] if len(args) > 2 else keep_vars
        if destination is None:
            destination = OrderedDict()
        for name, param in self._parameters.items():
            if param is not None:
                destination[prefix + name] = param if keep_vars else param.detach()
        for name, buffer in self._buffers.items():
            if buffer is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = buffer if keep_vars else buffer.detach()
        for name, module in self._modules.items():
            if module is not None:
                module.state_dict(destination=destination, prefix=prefix + name + ".", keep_vars=keep_vars)
        return destination

    def _load_from_state_dict(self, state_dict: dict, prefix: str, strict: bool, missing_keys: list,
                              unexpected_keys: list, error_msgs: list, assign: bool) -> None:
        persistent = {k: v for k, v in self._buffers.items() if k not in self._non_persistent_buffers_set}
        local_state = {k: v for k, v in itertools.chain(self._parameters.items(), persistent.items())
                       if v is not None}
        for name, param in local_state.items():
            key = prefix + name
            if key not in state_dict:
                if strict:
                    missing_keys.append(key)
                continue
            value = state_dict[key]
            if not isinstance(value, Tensor):
                error_msgs.append(f"While copying the parameter named \"{key}\", expected torch.Tensor or "
                                  f"Tensor-like object from checkpoint but received {type(value)}")
                continue
            if len(param.shape) == 0 and len(value.shape) == 1 and value.shape[0] == 1:
                value = value[0]
            if value.shape != param.shape:
                error_msgs.append(f"size mismatch for {key}: copying a param with shape {value.shape} from "
                                  f"checkpoint, the shape in current model is {param.shape}.")
                continue
            with grad_mode.no_grad():
                if assign:
                    if isinstance(param, Parameter) and not isinstance(value, Parameter):
                        value = Parameter(value, requires_grad=param.requires_grad)
                    setattr(self, name, value)
                else:
                    param.copy_(value)
        if strict:
            for key in state_dict:
                if key.startswith(prefix) and key != prefix + "_extra_state":
                    parts = key[len(prefix):].split(".", 1)
                    if len(parts) > 1:
                        if parts[0] not in self._modules:
                            unexpected_keys.append(key)
                    elif parts[0] not in local_state:
                        unexpected_keys.append(key)

    def load_state_dict(self, state_dict: Mapping, strict: bool = True, assign: bool = False) -> _IncompatibleKeys:
        if not isinstance(state_dict, Mapping):
            raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
        missing_keys: list = []
        unexpected_keys: list = []
        error_msgs: list = []
        state_dict = OrderedDict(state_dict)

        def load(module: Module, local: dict, prefix: str = "") -> None:
            for hook in list(module.__dict__.get("_load_state_dict_pre_hooks", {}).values()):
                hook(local, prefix, {}, True, missing_keys, unexpected_keys, error_msgs)
            module._load_from_state_dict(local, prefix, True, missing_keys, unexpected_keys, error_msgs, assign)
            for name, child in module._modules.items():
                if child is not None:
                    child_prefix = prefix + name + "."
                    load(child, {k: v for k, v in local.items() if k.startswith(child_prefix)}, child_prefix)

        load(self, state_dict)
        if strict:
            if unexpected_keys:
                error_msgs.insert(0, "Unexpected key(s) in state_dict: {}. ".format(
                    ", ".join(f'"{k}"' for k in unexpected_keys)))
            if missing_keys:
                error_msgs.insert(0, "Missing key(s) in state_dict: {}. ".format(
                    ", ".join(f'"{k}"' for k in missing_keys)))
        if error_msgs:
            raise RuntimeError("Error(s) in loading state_dict for {}:\n\t{}".format(type(self).__name__,
                                                                                    "\n\t".join(error_msgs)))
        return _IncompatibleKeys(missing_keys, unexpected_keys)

    # -------------------------------------------------------------- repr

    def extra_repr(self) -> str:
        return ""

    def _get_name(self) -> str:
        return type(self).__name__

    def __repr__(self) -> str:
        extra = self.extra_repr()
        extra_lines = extra.split("\n") if extra else []
        child_lines = [f"({name}): {add_indent(repr(module), 2)}" for name, module in self._modules.items()]
        lines = extra_lines + child_lines
        text = self._get_name() + "("
        if lines:
            if len(extra_lines) == 1 and not child_lines:
                text += extra_lines[0]
            else:
                text += "\n  " + "\n  ".join(lines) + "\n"
        return text + ")"
