"""The torch modules a program imports: torch, torch.nn, torch.nn.functional, torch.autograd, ...
as member tables; the session makes each into a Namespace of its own (see __init__.py)."""
from __future__ import annotations

from ..builtins import Builtin
from .namespace import Submodule


def templates() -> dict:
    """The members of torch and of each of its modules, submodules named by Submodule."""
    from ...autograd.ops import torch_namespaces
    from ...nn import functional, init, modules, parameter, utils
    from ... import optim, serialization
    from ...utils import data
    from ...utils.data import dataloader, dataset, sampler
    from ...autograd import (anomaly_mode, forward_ad, function as autograd_function,
                             functional as autograd_functional, gradcheck, graph)
    from ... import func, testing

    namespaces = torch_namespaces()
    nn = {name: getattr(modules, name) for name in modules.__all__}
    nn.update(Parameter=parameter.Parameter, UninitializedParameter=parameter.UninitializedParameter,
              functional=Submodule("torch.nn.functional"), init=Submodule("torch.nn.init"),
              utils=Submodule("torch.nn.utils"), modules=Submodule("torch.nn.modules"),
              parameter=Submodule("torch.nn.parameter"), parallel=Submodule("torch.nn.parallel"))
    autograd = namespaces.pop("torch.autograd")
    autograd.update(functional=Submodule("torch.autograd.functional"), function=Submodule("torch.autograd.function"),
                    Function=autograd_function.Function, anomaly_mode=Submodule("torch.autograd.anomaly_mode"),
                    gradcheck=gradcheck.gradcheck, gradgradcheck=gradcheck.gradgradcheck,
                    graph=Submodule("torch.autograd.graph"), forward_ad=Submodule("torch.autograd.forward_ad"))
    torch = namespaces.pop("torch")
    torch.update(
        autograd=Submodule("torch.autograd"), nn=Submodule("torch.nn"), cuda=Submodule("torch.cuda"),
        optim=Submodule("torch.optim"), backends=Submodule("torch.backends"),
        accelerator=Submodule("torch.accelerator"), linalg=Submodule("torch.linalg"),
        special=Submodule("torch.special"), fft=Submodule("torch.fft"), utils=Submodule("torch.utils"),
        save=serialization.save, load=serialization.load, func=Submodule("torch.func"), vmap=func.vmap,
        testing=Submodule("torch.testing"),
    )
    return {
        "torch": torch, "torch.nn": nn, "torch.autograd": autograd,
        "torch.linalg": namespaces["torch.linalg"], "torch.special": namespaces["torch.special"],
        "torch.fft": namespaces["torch.fft"],
        "torch.nn.modules": {name: getattr(modules, name) for name in modules.__all__},
        "torch.nn.parallel": dict(DataParallel=modules.DataParallel),
        "torch.nn.parameter": dict(Parameter=parameter.Parameter, is_lazy=parameter.is_lazy,
                                   UninitializedParameter=parameter.UninitializedParameter),
        "torch.nn.functional": {name: getattr(functional, name) for name in functional.__all__},
        "torch.nn.init": {name: getattr(init, name) for name in init.__all__},
        "torch.nn.utils": {name: getattr(utils, name) for name in utils.__all__},
        "torch.optim": dict(optim.optimizers(), lr_scheduler=Submodule("torch.optim.lr_scheduler")),
        "torch.optim.lr_scheduler": optim.schedulers(),
        "torch.utils": dict(data=Submodule("torch.utils.data")),
        "torch.utils.data": dict(data.members(), dataset=Submodule("torch.utils.data.dataset"),
                                 dataloader=Submodule("torch.utils.data.dataloader"),
                                 sampler=Submodule("torch.utils.data.sampler")),
        "torch.utils.data.dataset": {name: getattr(dataset, name) for name in dataset.__all__},
        "torch.utils.data.dataloader": {name: getattr(dataloader, name) for name in dataloader.__all__},
        "torch.utils.data.sampler": {name: getattr(sampler, name) for name in sampler.__all__},
        "torch.autograd.function": {name: getattr(autograd_function, name) for name in autograd_function.__all__},
        "torch.autograd.gradcheck": {name: getattr(gradcheck, name) for name in gradcheck.__all__},
        "torch.autograd.anomaly_mode": {name: getattr(anomaly_mode, name) for name in anomaly_mode.__all__},
        "torch.autograd.graph": {name: getattr(graph, name) for name in graph.__all__},
        "torch.autograd.functional": {name: getattr(autograd_functional, name)
                                      for name in autograd_functional.__all__},
        "torch.func": {name: getattr(func, name) for name in func.__all__},
        "torch.testing": {name: getattr(testing, name) for name in testing.__all__},
        "torch.autograd.forward_ad": {name: getattr(forward_ad, name) for name in forward_ad.__all__},
        "torch.cuda": dict(is_available=Builtin("is_available", lambda: False),
                           device_count=Builtin("device_count", lambda: 0)),
        # seeded scripts set these; a CPU build has no cuDNN and no MPS
        # a CPU build has no accelerator (pytorch/examples ask before choosing the device)
        "torch.accelerator": dict(is_available=Builtin("is_available", lambda: False),
                                  current_accelerator=Builtin("current_accelerator",
                                                              lambda check_available=False: None),
                                  device_count=Builtin("device_count", lambda: 0)),
        "torch.backends": dict(cudnn=Submodule("torch.backends.cudnn"), mps=Submodule("torch.backends.mps")),
        "torch.backends.cudnn": dict(deterministic=False, benchmark=False, enabled=True,
                                     is_available=Builtin("is_available", lambda: False)),
        "torch.backends.mps": dict(is_available=Builtin("is_available", lambda: False),
                                   is_built=Builtin("is_built", lambda: False)),
    }
