#!/usr/bin/env python3
"""torch.func's cost, against PyTorch when it is installed.

Usage:  python benchmarks/func.py [--torch PYTHON]
(a) vmap of a per-example gradient over a batch of 64 on a small MLP (per-sample-gradients);
(b) hessian of a function of 100 inputs.
Each workload is one gradcalc program, and the same program run under PyTorch by
gradcalc/golden/reference.py; times exclude start-up (see engine.py).
"""
from __future__ import annotations

from engine import run_workload, workload_parser

PER_SAMPLE_GRADS = """\
import torch.nn as nn
import torch.nn.functional as F
from torch.func import functional_call, grad, vmap
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 4))
params = {k: v.detach() for k, v in model.named_parameters()}
data = torch.randn(64, 16)
targets = torch.randint(4, (64,))
def loss(params, x, y):
    return F.cross_entropy(functional_call(model, params, (x.unsqueeze(0),)), y.unsqueeze(0))
grads = vmap(grad(loss), in_dims=(None, 0, 0))(params, data, targets)
print(grads['2.bias'].sum().item() != 0)
"""
HESSIAN = """\
from torch.func import hessian
torch.manual_seed(0)
x = torch.randn(100)
def f(x):
    return (x.sin() * x.cos().cumsum(0)).sum()
print(hessian(f)(x).shape)
"""


def main() -> None:
    args = workload_parser(__doc__).parse_args()
    run_workload("(a) vmap(grad) per-sample gradients, batch 64", PER_SAMPLE_GRADS, args.gradcalc, args.torch)
    run_workload("(b) hessian of 100 inputs", HESSIAN, args.gradcalc, args.torch)


if __name__ == "__main__":
    main()
