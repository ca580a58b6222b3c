"""The torch and Tensor names that real PyTorch code uses (tests/api/api-usage.tsv: counts over
Dive into Deep Learning, pytorch/examples and nn-zero-to-hero) all exist in gradcalc, but for
those the name test's exclusions give a reason for (files, processes, sparse tensors,
compilation); so do the torch.optim, torch.utils.data, torch.distributions and torch.nn names."""
from __future__ import annotations

from pathlib import Path

import pytest

from gradcalc.autograd.ops import torch_namespaces
from gradcalc.autograd.tensor import Tensor
from gradcalc.language.modules.torch import templates
from test_api_names import _excluded

USAGE = Path(__file__).parent / "api" / "api-usage.tsv"


def _used_names(namespaces: tuple = ("torch", "Tensor")) -> list:
    rows = []
    for line in USAGE.read_text().splitlines():
        if line.startswith("#") or not line.strip():
            continue
        namespace, name, uses = line.split("\t")
        if namespace in namespaces:
            rows.append((namespace, name, int(uses)))
    return rows


@pytest.mark.parametrize("namespace, name, uses", _used_names(), ids=lambda value: str(value))
def test_used_name_exists(namespace: str, name: str, uses: int) -> None:
    if namespace == "Tensor":
        assert hasattr(Tensor, name) or _excluded("torch.Tensor", name), f"Tensor.{name} ({uses} uses)"
    else:
        assert name in torch_namespaces()["torch"] or _excluded("torch", name), f"torch.{name} ({uses} uses)"


# the namespaces of the training loop: what a program imports from them is the language's template
TRAINING_NAMESPACES = ("torch.optim", "torch.optim.lr_scheduler", "torch.utils.data", "torch.distributions")


@pytest.mark.parametrize("namespace, name, uses", _used_names(TRAINING_NAMESPACES), ids=lambda value: str(value))
def test_used_training_name_exists(namespace: str, name: str, uses: int) -> None:
    assert name in templates()[namespace], f"{namespace}.{name} ({uses} uses)"


# torch.nn names the material uses that gradcalc does not have yet, and why
NN_NOT_YET: dict = {}


@pytest.mark.parametrize("namespace, name, uses", _used_names(("torch.nn", "torch.nn.functional")),
                         ids=lambda value: str(value))
def test_used_nn_name_exists(namespace: str, name: str, uses: int) -> None:
    members = templates()[namespace]
    if name in NN_NOT_YET:
        assert name not in members, f"{namespace}.{name} exists now: take it off NN_NOT_YET"
        return
    assert name in members, f"{namespace}.{name} ({uses} uses)"
