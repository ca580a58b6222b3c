#!/usr/bin/env python3
"""Record PyTorch's float32 results whose last bits depend on the machine's SIMD code (on one
thread, as the oracle runs) for test_simd_split.py: the split of an element-wise kernel between
its SIMD loop (whole pairs of registers) and its scalar loop (sigmoid, silu, pow with a
number for exponent or base), the lanes of a
reduction (softmax, log_softmax along the last dim, whose sums' log is SLEEF's), fused multiply-adds (tanh's gradient), the
lanes of Welford's updates (layer_norm, the input's weight and bias from the same generators) and
oneDNN's code (gelu and its gradient). Inputs come from seeded numpy generators; the file keeps
the sizes, the capability, the processor and digests.

Usage (with a Python that has torch 2.13):  python record_simd_cases.py CAPABILITY
writes simd_cases_CAPABILITY.json beside this file (avx512 needs a processor with AVX-512).
"""
import hashlib
import json
import os
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent

SIZES = list(range(1, 70)) + [100, 257]
OPS = ("sigmoid", "silu", "pow", "rpow", "softmax", "log_softmax", "log_softmax_rows", "gelu", "gelu_backward",
       "tanh_backward", "layer_norm")


def values(size: int) -> np.ndarray:
    return (np.random.default_rng(size).standard_normal(size) * 4).astype(np.float32)


def grads(size: int) -> np.ndarray:
    """Incoming gradients for the backward functions."""
    return np.random.default_rng(size + 1000).standard_normal(size).astype(np.float32)


def tanh_outputs(size: int) -> np.ndarray:
    """Values tanh gives (in (-1, 1), many near saturation), as the saved result of tanh's gradient."""
    return np.random.default_rng(size + 2000).uniform(-1, 1, size).astype(np.float32) ** 3 * np.float32(0.1) \
        + np.sign(np.random.default_rng(size + 3000).uniform(-1, 1, size)).astype(np.float32) * np.float32(0.9)


def rows(size: int) -> np.ndarray:
    """SIZE rows of 22 values, for log_softmax along rows: the log of each row's sum is SLEEF's."""
    return (np.random.default_rng(size + 4000).standard_normal((size, 22)) * 8).astype(np.float32)


def digest(array: np.ndarray) -> str:
    return hashlib.sha256(np.ascontiguousarray(array).tobytes()).hexdigest()[:16]


def _torch_results(torch, size: int) -> dict:
    x, g = torch.from_numpy(values(size)), torch.from_numpy(grads(size))
    gelu_input = x.clone().requires_grad_()
    gelu = torch.nn.functional.gelu(gelu_input)
    gelu.backward(g)
    results = {"sigmoid": torch.sigmoid(x), "silu": torch.nn.functional.silu(x), "pow": x.abs() ** 1.7,
               "rpow": 1.3 ** x, "softmax": torch.softmax(x, 0), "log_softmax": torch.log_softmax(x, 0),
               "log_softmax_rows": torch.log_softmax(torch.from_numpy(rows(size)), 1),
               "gelu": gelu.detach(), "gelu_backward": gelu_input.grad,
               "tanh_backward": torch.ops.aten.tanh_backward(g, torch.from_numpy(tanh_outputs(size))),
               "layer_norm": torch.nn.functional.layer_norm(x, (size,), g, torch.from_numpy(tanh_outputs(size)))}
    return {name: digest(result.numpy()) for name, result in results.items()}


def in_capability(capability: str) -> None:
    """Run this script again, unless it runs already, with CAPABILITY's code paths forced for
    PyTorch, numpy pinned as gradcalc pins it, and one thread (gradcalc's settings, from the repository)."""
    sys.path.insert(0, str(HERE.parent.parent))
    from gradcalc.autograd.cpu import CAPABILITIES
    from gradcalc.machine import numpy_pins

    settings = {**CAPABILITIES[capability], **numpy_pins(), "OMP_NUM_THREADS": "1"}
    if any(os.environ.get(name) != value for name, value in settings.items()):
        os.execve(sys.executable, [sys.executable, *sys.argv], {**os.environ, **settings})


def header(torch, capability: str) -> str:
    """The file's opening: torch's version and the machine the answers hold for (gradcalc/autograd/cpu.py)."""
    from gradcalc.autograd.cpu import machine_record

    assert torch.backends.cpu.get_cpu_capability().lower() == capability, "this processor cannot run it"
    return json.dumps({"torch": torch.__version__, "machine": machine_record()})[:-1]


def main() -> None:
    capability = sys.argv[1]
    in_capability(capability)
    import torch  # only the recording needs it: the test imports this file's inputs and digest

    torch.set_num_threads(1)
    cases = [{"size": size, "input": digest(values(size)) + digest(grads(size)) + digest(tanh_outputs(size)),
              **_torch_results(torch, size)} for size in SIZES]
    lines = ",\n".join(json.dumps(case) for case in cases)
    (HERE / f"simd_cases_{capability}.json").write_text(f'{header(torch, capability)}, "cases": [\n{lines}\n]}}\n')


if __name__ == "__main__":
    main()
