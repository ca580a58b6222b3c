"""torch.func.functional_call and stack_module_state: a module run with tensors in place of its
parameters and buffers; the parameters of several modules stacked for vmap."""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..autograd.ops.joining import stack
from ..autograd.tensor import Tensor
from ..torch_code import copied_from_torch


def functional_call(module: Any, parameter_and_buffer_dicts: Any, args: Any = None, kwargs: Any = None, *,
                    tie_weights: bool = True, strict: bool = False) -> Any:
    if isinstance(parameter_and_buffer_dicts, dict):
        replacements = dict(parameter_and_buffer_dicts)
    elif isinstance(parameter_and_buffer_dicts, Sequence):  # (a str too, as torch's check)
        if not all(isinstance(d, dict) for d in parameter_and_buffer_dicts):
            raise ValueError("Expected all elements of parameter_and_buffer_dicts to be dictionaries")
        counts: dict = {}
        for mapping in parameter_and_buffer_dicts:
            for key in mapping:
                counts[key] = counts.get(key, 0) + 1
        repeated = [key for key, count in counts.items() if count > 1]
        if repeated:
            raise ValueError(f"{repeated} appeared in multiple dictionaries; behavior of functional call is ambiguous")
        replacements = {key: value for mapping in parameter_and_buffer_dicts for key, value in mapping.items()}
    else:
        raise ValueError(f"Expected parameter_and_buffer_dicts to be a dict, or a list/tuple of dicts, but got "
                         f"{type(parameter_and_buffer_dicts)}")
    if args is None:
        args = ()
    elif not isinstance(args, tuple):
        args = (args,)
    kwargs = kwargs or {}
    if tie_weights:
        replacements = _untie_named_tensors_map(module, replacements)
    if strict:
        expected = {name for name, _ in module.named_parameters()} | {name for name, _ in _named_buffers(module)}
        missing, unexpected = sorted(expected - set(replacements)), sorted(set(replacements) - expected)
        if missing or unexpected:
            parts = []
            if unexpected:
                parts.append(f"Unexpected key(s): {', '.join(repr(k) for k in unexpected)}.")
            if missing:
                parts.append(f"Missing key(s): {', '.join(repr(k) for k in missing)}.")
            raise RuntimeError(f"Error(s) in reparametrizing for {type(module).__name__}:\n\t" + "\n\t".join(parts))
    saved = []
    try:
        for name, tensor in replacements.items():
            owner, attribute = _owner(module, name)
            if not isinstance(tensor, Tensor) and tensor is not None:  # (NamedMemberAccessor.swap_tensor's check)
                raise TypeError(f"{tensor} is not an instance of torch.Tensor")
            registry = _registry_of(owner, attribute)
            saved.append((registry, attribute, registry.get(attribute, _MISSING) if registry is not None else _MISSING,
                          owner))
            if registry is None:
                raise AttributeError(f"'{type(owner).__name__}' object has no attribute '{attribute}'")
            registry[attribute] = tensor
        return module(*args, **kwargs)
    finally:
        for registry, attribute, previous, _ in reversed(saved):
            if registry is None:
                continue
            if previous is _MISSING:
                registry.pop(attribute, None)
            else:
                registry[attribute] = previous


_MISSING = object()


@copied_from_torch
def _untie_named_tensors_map(module: Any, parameters_and_buffers: dict) -> dict:
    """torch.nn.utils.stateless's: a value given for one of several names of one tensor (tied
    weights) replaces it under each of them."""
    all_named_tensors: dict = {}
    all_named_tensors.update(module.named_parameters(remove_duplicate=False))
    all_named_tensors.update(module.named_buffers(remove_duplicate=False))
    tensor_to_tied_names_map: dict = {}
    for name, tensor in all_named_tensors.items():
        if tensor not in tensor_to_tied_names_map:
            tensor_to_tied_names_map[tensor] = set()
        tensor_to_tied_names_map[tensor].add(name)
    tied_names_map: dict = {}
    for tied_names in tensor_to_tied_names_map.values():
        if len(tied_names) > 1:
            for tied_name in tied_names:
                tied_names_map[tied_name] = tied_names
    given_names = set(parameters_and_buffers.keys())
    given_names_for_tied_tensors: set = set()
    for name in given_names:
        if name in tied_names_map:
            given_names_for_tied_tensors.add(name)
    for given_name in given_names_for_tied_tensors:
        tied_names = tied_names_map[given_name]
        if (len(tied_names.intersection(given_names_for_tied_tensors)) > 1
                and len({parameters_and_buffers[tied_name] for tied_name in tied_names}) != 1):
            raise ValueError(f"functional_call got multiple values for keys {sorted(tied_names)}, "
                             f"which are tied. Consider using tie_weights=False")
    untied_parameters_and_buffers = parameters_and_buffers.copy()
    for given_name in given_names_for_tied_tensors:
        for tied_name in tied_names_map[given_name]:
            untied_parameters_and_buffers[tied_name] = parameters_and_buffers[given_name]
    return untied_parameters_and_buffers


def _owner(module: Any, name: str) -> tuple:
    *path, attribute = name.split(".")
    owner = module
    for part in path:
        owner = getattr(owner, part)
    return owner, attribute


def _registry_of(owner: Any, attribute: str) -> Any:
    """The dict a module keeps that name in: its parameters or its buffers."""
    for registry_name in ("_parameters", "_buffers"):
        registry = owner.__dict__.get(registry_name)
        if registry is not None and attribute in registry:
            return registry
    return None


def _named_buffers(module: Any) -> list:
    named = getattr(module, "named_buffers", None)
    return list(named()) if named is not None else []


def stack_module_state(models: Sequence[Any]) -> tuple:
    if len(models) == 0:
        raise RuntimeError("stack_module_state: Expected at least one model, got 0.")
    if not (all(m.training for m in models) or all(not m.training for m in models)):
        raise RuntimeError("stack_module_state: Expected all models to have the same training/eval mode.")
    first = type(models[0])
    if not all(type(m) is first for m in models):
        raise RuntimeError(f"stack_module_state: Expected all models to be of the same class, got: "
                           f"{[type(m) for m in models]}")
    all_params = [dict(m.named_parameters()) for m in models]
    params = {name: _stacked_leaf([p[name] for p in all_params], name) for name in all_params[0]}
    all_buffers = [dict(_named_buffers(m)) for m in models]
    buffers = {name: _stacked_leaf([b[name] for b in all_buffers], name) for name in all_buffers[0]}
    return params, buffers


def _stacked_leaf(tensors: Sequence[Tensor], name: str) -> Tensor:
    requiring = [t.requires_grad for t in tensors]
    if any(requiring) and not all(requiring):
        raise RuntimeError(f"Expected {name} from each model to have the same .requires_grad")
    result = stack(list(tensors))
    if all(requiring):
        result = result.detach().requires_grad_()
    return result
