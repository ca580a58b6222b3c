"""The torch modules a program imports: torch, torch.nn, torch.nn.functional, torch.autograd, ...
as member tables; the session makes each into a Namespace of its own (see __init__.py).

Each table is built the first time a program reaches its module, so `import torch` does not
load torch.nn, torch.optim, torch.func or torch.utils.data: their imports sit in the builders."""
from __future__ import annotations

import functools
import importlib
from typing import Callable

from ...autograd import cpu
from ..builtins import Builtin
from .namespace import Deferred, Submodule


@functools.cache
def _namespaces() -> dict:
    from ...autograd.ops import torch_namespaces

    return torch_namespaces()


def _all(module: object) -> dict:
    return {name: getattr(module, name) for name in module.__all__}


def _torch() -> dict:
    from ... import serialization

    torch = dict(_namespaces()["torch"])
    torch.update(
        autograd=Submodule("torch.autograd"), nn=Submodule("torch.nn"), cuda=Submodule("torch.cuda"),
        optim=Submodule("torch.optim"), backends=Submodule("torch.backends"),
        accelerator=Submodule("torch.accelerator"), linalg=Submodule("torch.linalg"),
        special=Submodule("torch.special"), fft=Submodule("torch.fft"), utils=Submodule("torch.utils"),
        save=serialization.save, load=serialization.load, func=Submodule("torch.func"),
        vmap=Deferred(_vmap), testing=Submodule("torch.testing"), distributions=Submodule("torch.distributions"),
        functional=Submodule("torch.functional"), random=Submodule("torch.random"), amp=Submodule("torch.amp"),
        distributed=Submodule("torch.distributed"),
    )
    return torch


# torch/functional.py's __all__: functions torch also exports, which older tutorials import from there
# (`import torch.functional as F`)
_FUNCTIONAL = ("atleast_1d", "atleast_2d", "atleast_3d", "broadcast_shapes", "broadcast_tensors",
               "cartesian_prod", "block_diag", "cdist", "chain_matmul", "einsum", "istft", "lu", "norm",
               "meshgrid", "pca_lowrank", "split", "stft", "svd_lowrank", "tensordot", "unique",
               "unique_consecutive", "unravel_index")


def _functional() -> dict:
    torch = _namespaces()["torch"]
    return {name: torch[name] for name in _FUNCTIONAL if name in torch}


def _vmap() -> Callable:
    from ... import func

    return func.vmap


def _autograd() -> dict:
    from ...autograd import function, gradcheck

    autograd = dict(_namespaces()["torch.autograd"])
    autograd.update(functional=Submodule("torch.autograd.functional"), function=Submodule("torch.autograd.function"),
                    Function=function.Function, anomaly_mode=Submodule("torch.autograd.anomaly_mode"),
                    gradcheck=gradcheck.gradcheck, gradgradcheck=gradcheck.gradgradcheck,
                    graph=Submodule("torch.autograd.graph"), forward_ad=Submodule("torch.autograd.forward_ad"))
    return autograd


def _nn() -> dict:
    from ...nn import modules, parameter

    nn = _all(modules)
    nn.update(Parameter=parameter.Parameter, UninitializedParameter=parameter.UninitializedParameter,
              Buffer=parameter.Buffer, UninitializedBuffer=parameter.UninitializedBuffer,
              functional=Submodule("torch.nn.functional"), init=Submodule("torch.nn.init"),
              utils=Submodule("torch.nn.utils"), modules=Submodule("torch.nn.modules"),
              parameter=Submodule("torch.nn.parameter"), parallel=Submodule("torch.nn.parallel"))
    return nn


def _nn_utils() -> dict:
    from ...nn import utils

    package = _all(utils)
    package.update({name: Submodule(f"torch.nn.utils.{name}") for name in utils.SUBMODULES})
    return package


def _nn_parameter() -> dict:
    from ...nn import parameter

    return dict(Parameter=parameter.Parameter, is_lazy=parameter.is_lazy,
                UninitializedParameter=parameter.UninitializedParameter, Buffer=parameter.Buffer,
                UninitializedBuffer=parameter.UninitializedBuffer)


def _optim() -> dict:
    from ... import optim

    return dict(optim.optimizers(), lr_scheduler=Submodule("torch.optim.lr_scheduler"),
                swa_utils=Submodule("torch.optim.swa_utils"), optimizer=Submodule("torch.optim.optimizer"))


def _lr_scheduler() -> dict:
    from ... import optim

    return optim.schedulers()


def _data() -> dict:
    from ...utils import data

    return dict(data.members(), dataset=Submodule("torch.utils.data.dataset"),
                dataloader=Submodule("torch.utils.data.dataloader"), sampler=Submodule("torch.utils.data.sampler"))


def _distributions() -> dict:
    from ... import distributions

    package = _all(distributions)
    package.update({name: Submodule(f"torch.distributions.{name}") for name in distributions.SUBMODULES})
    return package


def _distribution_module(name: str) -> Callable[[], dict]:
    """The builder of torch.distributions.NAME: the names that module defines."""
    def build() -> dict:
        from ... import distributions

        module = getattr(distributions, name)
        return {member: getattr(module, member) for member in distributions.SUBMODULES[name]}
    return build


def _module_all(path: str) -> Callable[[], dict]:
    """The builder of a module whose members are its __all__ (path relative to gradcalc)."""
    def build() -> dict:
        return _all(importlib.import_module(f"gradcalc.{path}"))
    return build


# torch.nn.modules' own modules (torch.nn.modules.loss, .module, ...): gradcalc's files of those names
NN_MODULE_FILES = ("activation", "adaptive", "batchnorm", "channelshuffle", "container", "conv", "distance",
                   "dropout", "flatten", "fold", "instancenorm", "lazy", "linear", "loss", "module", "normalization",
                   "padding", "pixelshuffle", "pooling", "rnn", "sparse", "transformer", "upsampling", "utils")


def _nn_modules() -> dict:
    members = _module_all("nn.modules")()
    members.update({name: Submodule(f"torch.nn.modules.{name}") for name in NN_MODULE_FILES})
    return members


def _nn_module_file(name: str) -> Callable[[], dict]:
    """The builder of torch.nn.modules.NAME: what gradcalc's file of that name holds as torch's
    module holds it (the classes and functions whose __module__ is that module's name)."""
    def build() -> dict:
        module = importlib.import_module(f"gradcalc.nn.modules.{name}")
        path = f"torch.nn.modules.{name}"
        return {key: value for key, value in vars(module).items()
                if getattr(value, "__module__", None) == path and not key.startswith("__")}
    return build


def _cuda() -> dict:
    from ... import cuda

    return dict(cuda.cuda_members(), amp=Submodule("torch.cuda.amp"))


def _amp(name: str) -> Callable[[], dict]:
    def build() -> dict:
        from ... import amp

        return amp.amp_members() if name == "torch.amp" else amp.cuda_amp_members()
    return build


def _distributed() -> dict:
    from ... import distributed

    return distributed.members()


def _random() -> dict:
    from ... import cuda

    return cuda.random_members()


def _no_device(**members: Callable) -> Callable[[], dict]:
    return lambda: {name: Builtin(name, function) for name, function in members.items()}


# a CPU build: no CUDA, no accelerator (pytorch/examples ask before choosing the device), no
# cuDNN and no MPS (seeded scripts set cudnn's flags)
BUILDERS: dict = {
    "torch": _torch, "torch.autograd": _autograd, "torch.nn": _nn, "torch.functional": _functional,
    "torch.linalg": lambda: dict(_namespaces()["torch.linalg"]),
    "torch.special": lambda: dict(_namespaces()["torch.special"]), "torch.fft": lambda: dict(_namespaces()["torch.fft"]),
    "torch.nn.modules": _nn_modules,
    **{f"torch.nn.modules.{name}": _nn_module_file(name) for name in NN_MODULE_FILES},
    "torch.nn.parallel": _module_all("nn.parallel"),
    "torch.nn.parameter": _nn_parameter,
    "torch.nn.functional": _module_all("nn.functional"),
    "torch.nn.init": _module_all("nn.init"),
    "torch.nn.utils": _nn_utils,
    "torch.optim": _optim, "torch.optim.lr_scheduler": _lr_scheduler,
    "torch.optim.swa_utils": _module_all("optim.swa_utils"),
    "torch.optim.optimizer": _module_all("optim.optimizer"),
    "torch.utils": lambda: dict(data=Submodule("torch.utils.data"), checkpoint=Submodule("torch.utils.checkpoint")),
    "torch.utils.checkpoint": _module_all("utils.checkpoint"),
    "torch.utils.data": _data,
    "torch.utils.data.dataset": _module_all("utils.data.dataset"),
    "torch.utils.data.dataloader": _module_all("utils.data.dataloader"),
    "torch.utils.data.sampler": _module_all("utils.data.sampler"),
    "torch.autograd.function": _module_all("autograd.function"),
    "torch.autograd.gradcheck": _module_all("autograd.gradcheck"),
    "torch.autograd.anomaly_mode": _module_all("autograd.anomaly_mode"),
    "torch.autograd.graph": _module_all("autograd.graph"),
    "torch.autograd.functional": _module_all("autograd.functional"),
    "torch.autograd.forward_ad": _module_all("autograd.forward_ad"),
    "torch.func": _module_all("func"),
    "torch.testing": _module_all("testing"),
    "torch.cuda": _cuda, "torch.random": _random, "torch.amp": _amp("torch.amp"),
    "torch.cuda.amp": _amp("torch.cuda.amp"), "torch.distributed": _distributed,
    "torch.accelerator": _no_device(is_available=lambda: False,
                                    current_accelerator=lambda check_available=False: None,
                                    device_count=lambda: 0),
    "torch.backends": lambda: dict(cpu=Submodule("torch.backends.cpu"), cudnn=Submodule("torch.backends.cudnn"),
                                   mps=Submodule("torch.backends.mps")),
    # the capability whose kernels gradcalc follows (ATen's on this processor, or as ATEN_CPU_CAPABILITY says)
    "torch.backends.cpu": _no_device(get_cpu_capability=lambda: "AVX512" if cpu.ATEN_AVX512 else "AVX2"),
    "torch.backends.cudnn": lambda: dict(deterministic=False, benchmark=False, enabled=True,
                                         is_available=Builtin("is_available", lambda: False)),
    "torch.backends.mps": _no_device(is_available=lambda: False, is_built=lambda: False),
    "torch.distributions": _distributions,
}
# torch.nn.utils' modules (the package lists them in SUBMODULES)
BUILDERS.update({f"torch.nn.utils.{name}": _module_all(f"nn.utils.{name}") for name in (
    "clip_grad", "convert_parameters", "init", "parametrize", "parametrizations", "prune", "rnn")})
# torch.distributions' modules: what each defines (the package lists them in SUBMODULES)
BUILDERS.update({f"torch.distributions.{name}": _distribution_module(name) for name in (
    "bernoulli", "binomial", "categorical", "constraints", "distribution", "exp_family", "exponential", "gamma",
    "independent", "kl", "laplace", "multinomial", "multivariate_normal", "normal", "one_hot_categorical",
    "poisson", "uniform", "utils")})


def templates() -> dict:
    """Every torch module's member table (for tests and listings; a session builds one at a time)."""
    return {name: build() for name, build in BUILDERS.items()}
