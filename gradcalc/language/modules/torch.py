"""The torch modules a program imports: torch, torch.nn, torch.nn.functional, torch.autograd, ...
as member tables; the session makes each into a Namespace of its own (see __init__.py)."""
from __future__ import annotations

from ..builtins import Builtin
from .namespace import Submodule


def templates() -> dict:
    """The members of torch and of each of its modules, submodules named by Submodule."""
    from ...autograd.ops import torch_namespaces
    from ...nn import functional, init, modules, parameter, utils
    from ... import optim
    from ...autograd import functional as autograd_functional

    namespaces = torch_namespaces()
    nn = {name: getattr(modules, name) for name in modules.__all__}
    nn.update(Parameter=parameter.Parameter, functional=Submodule("torch.nn.functional"),
              init=Submodule("torch.nn.init"), utils=Submodule("torch.nn.utils"))
    autograd = namespaces.pop("torch.autograd")
    autograd.update(functional=Submodule("torch.autograd.functional"))
    torch = namespaces.pop("torch")
    torch.update(
        autograd=Submodule("torch.autograd"), nn=Submodule("torch.nn"), cuda=Submodule("torch.cuda"),
        optim=Submodule("torch.optim"), backends=Submodule("torch.backends"),
        accelerator=Submodule("torch.accelerator"), linalg=Submodule("torch.linalg"),
        special=Submodule("torch.special"), fft=Submodule("torch.fft"),
    )
    return {
        "torch": torch, "torch.nn": nn, "torch.autograd": autograd,
        "torch.linalg": namespaces["torch.linalg"], "torch.special": namespaces["torch.special"],
        "torch.fft": namespaces["torch.fft"],
        "torch.nn.functional": {name: getattr(functional, name) for name in functional.__all__},
        "torch.nn.init": {name: getattr(init, name) for name in init.__all__},
        "torch.nn.utils": {name: getattr(utils, name) for name in utils.__all__},
        "torch.optim": optim.optimizers(),
        "torch.autograd.functional": {name: getattr(autograd_functional, name)
                                      for name in autograd_functional.__all__},
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
