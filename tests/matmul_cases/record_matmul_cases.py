#!/usr/bin/env python3
"""Record PyTorch's float32 matrix products (torch.mm on one thread, as the oracle runs) for
test_matmul_order.py: each case's factors come from a seeded numpy generator, so the file
keeps only the seed, the shape and digests of the factors and of the product's bits.

Usage (with a Python that has torch 2.13):  python record_matmul_cases.py avx2
writes matmul_cases_SGEMM.json beside this file, SGEMM the code path MKL took (avx512 on an Intel
processor with AVX-512, else avx2).
"""
import hashlib
import json
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "simd_cases"))
from record_simd_cases import header, in_capability  # noqa: E402 - the same settings and header

# (m, k, n): rows of the result, length of each sum, columns; each with the right factor
# contiguous and transposed (as nn.Linear's x @ W.t())
SHAPES = [
    (4, 16, 12), (8, 64, 32), (5, 100, 13), (16, 192, 16), (16, 193, 16), (4, 200, 12), (16, 256, 16),
    (16, 257, 16), (12, 300, 20), (64, 400, 120), (32, 512, 128), (8, 1000, 16), (120, 64, 400),
    (5, 1000, 13), (7, 400, 24),
    (1, 500, 20), (2, 300, 5), (3, 300, 64), (2, 250, 10), (10, 250, 2), (64, 300, 1), (8, 400, 3),
    (3, 3, 3), (6, 2, 20), (1, 8, 1), (64, 784, 128),
]


def factors(seed: int, m: int, k: int, n: int, transposed: bool) -> tuple:
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((m, k)).astype(np.float32)
    b = rng.standard_normal((n, k)).astype(np.float32).T if transposed else rng.standard_normal((k, n)).astype(np.float32)
    return a, b


def digest(array: np.ndarray) -> str:
    return hashlib.sha256(np.ascontiguousarray(array).tobytes()).hexdigest()[:16]


def main() -> None:
    capability = sys.argv[1]
    in_capability(capability)
    import torch  # only the recording needs it: the test imports this file's factors and digest

    torch.set_num_threads(1)
    cases = []
    for seed, (m, k, n) in enumerate(SHAPES):
        for transposed in (False, True):
            a, b = factors(seed, m, k, n, transposed)
            product = torch.mm(torch.from_numpy(a), torch.from_numpy(np.ascontiguousarray(b.T)).t() if transposed
                               else torch.from_numpy(b)).numpy()
            cases.append({"seed": seed, "shape": [m, k, n], "transposed": transposed,
                          "factors": digest(a) + digest(b), "product": digest(product)})
    lines = ",\n".join(json.dumps(case) for case in cases)
    from gradcalc.autograd.cpu import SGEMM_AVX512

    out = HERE / f"matmul_cases_{'avx512' if SGEMM_AVX512 else 'avx2'}.json"
    out.write_text(f'{header(torch, capability)}, "cases": [\n{lines}\n]}}\n')


if __name__ == "__main__":
    main()
