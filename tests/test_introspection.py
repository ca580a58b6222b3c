"""inspect.signature on gradcalc's callables hands a program their parameters' defaults and
annotations: each default must be a value the sandbox policy lets a program hold (a default of an
internal type would be a door to gradcalc's machinery), each annotation PyTorch's text."""
from __future__ import annotations

import inspect

from gradcalc.autograd.dtypes import DType
from gradcalc.autograd.random import Generator
from gradcalc.autograd.tensor import Device, Size, Tensor
from gradcalc.language import policy
from gradcalc.language.modules import ModuleTable
from gradcalc.language.modules.introspection import ShownAnnotation, signature
from gradcalc.language.modules.namespace import members

MODULES = ("torch", "torch.nn", "torch.nn.functional", "torch.nn.init", "torch.nn.utils", "torch.nn.parallel",
           "torch.optim", "torch.optim.lr_scheduler", "torch.utils.data", "torch.utils.checkpoint", "torch.autograd",
           "torch.autograd.functional", "torch.autograd.forward_ad", "torch.autograd.graph", "torch.func",
           "torch.random", "torch.cuda", "torch.distributions", "torch.linalg", "torch.special", "torch.fft",
           "torch.testing")


PLAIN = (int, float, bool, str, complex, None, Tensor, Size, DType, Device, Generator)


def test_signature_defaults_are_values_a_program_may_hold() -> None:
    policy.install()
    table = ModuleTable()
    refused = []
    for module in MODULES:
        for name, value in members(table.get(module)).items():
            try:
                found = signature(value)
            except (TypeError, ValueError):  # no signature: a builtin, or not callable
                continue
            for parameter in found.parameters.values():
                default = parameter.default
                if default is inspect.Parameter.empty or isinstance(default, type):
                    continue
                if policy.class_rule(type(default)) is None:
                    refused.append((module, name, parameter.name, type(default).__qualname__))
            # PyTorch's annotations: as text, or the classes a program holds anyway; never gradcalc's own objects
            assert all(p.annotation is inspect.Parameter.empty or type(p.annotation) is ShownAnnotation
                       or p.annotation in PLAIN for p in found.parameters.values()), (module, name)
    assert not refused
