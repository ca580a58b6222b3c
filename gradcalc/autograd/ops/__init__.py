"""Every operation of gradcalc, one family per module, declared once in the registry
(registry.py), with Tensor's methods and torch's functions generated from the declarations
(generate.py). `torch_namespaces()` is what the language layer offers programs as `torch`,
`torch.linalg`, `torch.special`, `torch.fft`, `torch.autograd`, ...

The families import each other in one direction only (common, registry, shape, indexing,
conversion, inplace, comparison, arithmetic, pointwise, joining, reduction, statistics,
sorting, linalg, creation, sampling, activation, loss, cross_entropy); a backward formula that
needs an op of a later family calls it as a Tensor method.
"""
from __future__ import annotations

import math
from typing import Any

from .. import anomaly_mode, api, dtypes, engine, grad_mode, random
from ..tensor import Device, Size, Tensor
from ..sequence_slots import index_tree_as_mapping_only
from ...display import tensor_repr
from . import (activation, arithmetic, arrangement, calculus, common, comparison, conversion, convolution, copies,
               creation, cross_entropy, ctc, decompositions, determinants, distance, elementwise, embedding,
               factories, generate, geometry, grid_sampler, hooks, im2col, indexing, info, inplace, joining, legacy,
               linalg, loss, matrix_functions, normalization, order, pointwise, pooling, pooling3d, products, queries,
               reduction, registry, removed, sampling, selection, settings, shape, shuffle, sorting, special,
               spectral, statistics, tensor_members, tensor_numpy, upsampling)
from .common import ReturnTypes
from .generate import BuiltinFunction, namespace_members, shown_function
from .parser import parser, register_kind

register_kind("Generator", random.Generator)


def _bound_arguments(name: str) -> Any:
    """torch._C's parser of `name`: (args, kwargs) -> the arguments by parameter name."""
    return lambda args, kwargs: parser("_C", name).parse(args, kwargs)[1]


# torch.device, set_grad_enabled and set_anomaly_enabled live below the registry and parse as
# torch's C code does
Device._parse_arguments = staticmethod(_bound_arguments("device"))
grad_mode.set_grad_enabled._parse_arguments = staticmethod(_bound_arguments("set_grad_enabled"))
anomaly_mode.parse_arguments = _bound_arguments("set_anomaly_enabled")
engine.sum_to_size = reduction.sum_to_size
generate.install(Tensor)
tensor_members.install(Tensor)
tensor_numpy.install(Tensor)
info.install(Tensor)
settings.install(Tensor)
Tensor.__new__ = legacy.tensor_new  # torch.Tensor([1, 2]): the legacy constructor
index_tree_as_mapping_only(Tensor)  # after the last special method set on Tensor

__all__ = ["torch_namespaces", "ReturnTypes", "BuiltinFunction", "activation", "arithmetic", "common", "comparison",
           "conversion", "creation", "indexing", "inplace", "joining", "linalg", "loss", "pointwise", "reduction",
           "registry", "sampling", "shape", "sorting", "statistics"]


def is_tensor(obj: Any, /) -> bool:
    """torch.is_tensor, a Python function in torch: `<function is_tensor at 0x...>`."""
    return isinstance(obj, Tensor)


is_tensor.__module__ = "torch"


def _python(module: str, function: Any) -> Any:
    function.__module__ = module
    return function


def _result_type(*args: Any, **kwargs: Any) -> dtypes.DType:
    """torch.result_type, its arguments parsed as torch's (two tensors or numbers)."""
    return dtypes.result_type(list(parser("torch", "result_type").parse(args, kwargs)[1].values()))


def _promote_types(*args: Any, **kwargs: Any) -> dtypes.DType:
    """torch.promote_types, its arguments parsed as torch's (two dtypes)."""
    return dtypes.promote_types(*parser("torch", "promote_types").parse(args, kwargs)[1].values())


def torch_namespaces() -> dict:
    """Each of torch's namespaces that gradcalc's ops make, as a program sees it: module name ->
    {member name: value}. The language layer adds torch.nn, torch.optim and their kin."""
    grad_modes = dict(no_grad=grad_mode.no_grad, enable_grad=grad_mode.enable_grad,
                      set_grad_enabled=grad_mode.set_grad_enabled, inference_mode=grad_mode.inference_mode)
    torch: dict = namespace_members("torch")
    torch.update(dtypes.ALIASES)
    torch.update(grad_modes)
    torch.update(
        from_numpy=shown_function("from_numpy", tensor_numpy.from_numpy),
        Tensor=Tensor, Size=Size, device=Device, dtype=dtypes.DType, Generator=random.Generator,
        default_generator=random.default_generator, is_tensor=is_tensor,
        is_grad_enabled=shown_function("is_grad_enabled", grad_mode.is_grad_enabled, module_level=True),
        is_inference_mode_enabled=shown_function("is_inference_mode_enabled", grad_mode.is_inference_mode_enabled,
                                                 module_level=True),
        get_default_dtype=shown_function("get_default_dtype", dtypes.get_default_dtype, module_level=True),
        set_default_dtype=_python("torch", dtypes.set_default_dtype),
        set_printoptions=_python("torch._tensor_str", tensor_repr.set_printoptions),
        promote_types=shown_function("promote_types", _promote_types),
        result_type=shown_function("result_type", _result_type),
        manual_seed=_python("torch.random", random.manual_seed), seed=_python("torch.random", random.seed),
        initial_seed=_python("torch.random", random.initial_seed),
        get_rng_state=_python("torch.random", random.get_rng_state),
        set_rng_state=_python("torch.random", random.set_rng_state),
        # torch's math constants (tutorials write torch.pi where they cannot import math)
        pi=math.pi, e=math.e, inf=math.inf, nan=math.nan, newaxis=None,
    )
    torch.update(info.members())
    torch.update(settings.members())
    torch.update({name: shown_function(name, function, module_level=True)
                  for name, function in info.MODULE_FUNCTIONS.items()})
    torch.update(legacy.LEGACY_TYPES, UntypedStorage=legacy.UntypedStorage, TypedStorage=legacy.TypedStorage)
    autograd = dict(grad=_python("torch.autograd", api.grad), backward=_python("torch.autograd", api.backward),
                    set_detect_anomaly=anomaly_mode.set_detect_anomaly, detect_anomaly=anomaly_mode.detect_anomaly,
                    Variable=legacy.Variable, **grad_modes)
    return {"torch": torch, "torch.linalg": dict(namespace_members("linalg"), LinAlgError=decompositions.LinAlgError), "torch.special": namespace_members("special"),
            "torch.fft": namespace_members("fft"), "torch.autograd": autograd,
            "torch.cuda": dict(is_available=lambda: False, device_count=lambda: 0)}
