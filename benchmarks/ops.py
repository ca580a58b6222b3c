#!/usr/bin/env python3
"""One op on small tensors, as a training loop calls it: gradcalc's cost against PyTorch eager's.

Usage:  python benchmarks/ops.py [--torch PYTHON] [--gradcalc GRADCALC] [--calls N]
Each statement below (the ops of makemore's and the polynomial fits' steps, on their tensors'
sizes) runs N times in a loop inside one program, under gradcalc and, with --torch, under PyTorch
(gradcalc/golden/reference.py); the program times itself, so start-up is left out. Printed: the
time of one call (the best of three loops), PyTorch's, and what gradcalc adds to it.
"""
from __future__ import annotations

import os
import tempfile

from engine import REFERENCE, measure, workload_parser

SETUP = """\
import time
import torch
import torch.nn.functional as F
g = torch.Generator().manual_seed(2147483647)
a = torch.tensor(2.0, requires_grad=True)
b = torch.tensor(3.0)
x = torch.randn((32, 3, 10), generator=g)
W = torch.randn((30, 200), generator=g, requires_grad=True)
h = torch.randn((32, 200), generator=g, requires_grad=True)
v = torch.randn(3, requires_grad=True)
logits = torch.randn((32, 27), generator=g, requires_grad=True)
Y = torch.randint(0, 27, (32,), generator=g)
C = torch.randn((27, 10), generator=g)
"""
STATEMENTS = [
    "x.view(-1, 30)", "x[0]", "C[Y]", "a * b", "a + 1.0", "h * 0.5", "v.sum()", "a.exp()", "torch.tanh(a)",
    "h.tanh()", "v.pow(2)", "F.cross_entropy(logits, Y)", "torch.randint(0, 27, (32,), generator=g)",
    "torch.randn(3, generator=g)", "torch.randn((32, 200), generator=g)", "a.item()",
]
LOOP = """\
def _timed(call, calls):
    best = None
    for _ in range(3):
        start = time.perf_counter()
        for _ in range(calls):
            call()
        elapsed = time.perf_counter() - start
        best = elapsed if best is None else min(best, elapsed)
    return best / calls


for _statement, _call in [{cases}]:
    print(f"{{_statement}}\\t{{_timed(_call, {calls}) * 1e9:.0f}}")
"""


def timings(command: list, calls: int) -> dict:
    """statement -> nanoseconds a call, from one run of the program."""
    with tempfile.NamedTemporaryFile("w", suffix=".grad", delete=False) as handle:
        cases = ", ".join(f"({statement!r}, lambda: {statement})" for statement in STATEMENTS)
        handle.write(SETUP + LOOP.format(cases=cases, calls=calls))
    try:
        _, _, out = measure(command + [handle.name])
    finally:
        os.unlink(handle.name)
    return {statement: float(ns) for statement, ns in (line.rsplit("\t", 1) for line in out.splitlines())}


def main() -> None:
    parser = workload_parser(__doc__)
    parser.add_argument("--calls", type=int, default=20_000)
    args = parser.parse_args()
    ours = timings([args.gradcalc], args.calls)
    theirs = timings([args.torch, str(REFERENCE)], args.calls) if args.torch else {}
    print(f"{'op':44} {'gradcalc':>10} {'PyTorch':>10} {'added':>10} {'ratio':>7}")
    for statement in STATEMENTS:
        line = f"{statement:44} {ours[statement] / 1000:8.2f}us"
        if statement in theirs:
            added = ours[statement] - theirs[statement]
            line += f" {theirs[statement] / 1000:8.2f}us {added / 1000:8.2f}us {ours[statement] / theirs[statement]:6.2f}x"
        print(line)


if __name__ == "__main__":
    main()
