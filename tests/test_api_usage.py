"""The torch and Tensor names that real PyTorch code uses (tests/api/api-usage.tsv: counts over
Dive into Deep Learning, pytorch/examples and nn-zero-to-hero) all exist in gradcalc, but for
those the name test's exclusions give a reason for (torch.nn and torch.optim are another issue's;
files, processes, sparse tensors, compilation)."""
from __future__ import annotations

from pathlib import Path

import pytest

from gradcalc.autograd.ops import torch_namespaces
from gradcalc.autograd.tensor import Tensor
from test_api_names import _excluded

USAGE = Path(__file__).parent / "api" / "api-usage.tsv"


def _used_names() -> list:
    rows = []
    for line in USAGE.read_text().splitlines():
        if line.startswith("#") or not line.strip():
            continue
        namespace, name, uses = line.split("\t")
        if namespace in ("torch", "Tensor"):
            rows.append((namespace, name, int(uses)))
    return rows


@pytest.mark.parametrize("namespace, name, uses", _used_names(), ids=lambda value: str(value))
def test_used_name_exists(namespace: str, name: str, uses: int) -> None:
    if namespace == "Tensor":
        assert hasattr(Tensor, name) or _excluded("torch.Tensor", name), f"Tensor.{name} ({uses} uses)"
    else:
        assert name in torch_namespaces()["torch"] or _excluded("torch", name), f"torch.{name} ({uses} uses)"
