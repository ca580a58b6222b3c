"""torch.optim: every optimizer of PyTorch 2.13 (one module each, as torch lays them out) and
torch.optim.lr_scheduler."""
from __future__ import annotations

from . import lr_scheduler
from .adadelta import Adadelta
from .adagrad import Adagrad
from .adam import Adam
from .adamax import Adamax
from .adamw import AdamW
from .asgd import ASGD
from .lbfgs import LBFGS
from .nadam import NAdam
from .optimizer import Optimizer
from .radam import RAdam
from .rmsprop import RMSprop
from .rprop import Rprop
from .sgd import SGD

__all__ = ["Optimizer", "SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "Adadelta", "Adamax", "NAdam", "RAdam", "ASGD",
           "Rprop", "LBFGS", "lr_scheduler"]


def optimizers() -> dict:
    """The members of the torch.optim namespace (but its submodules)."""
    return {name: globals()[name] for name in __all__ if name != "lr_scheduler"}


def schedulers() -> dict:
    """The members of the torch.optim.lr_scheduler namespace (and the private base old schedulers derive from)."""
    return {name: getattr(lr_scheduler, name) for name in (*lr_scheduler.__all__, "_LRScheduler")}
