#!/usr/bin/env python3
"""Record PyTorch's float32 matrix products (torch.mm on one thread, as the oracle runs) for
test_matmul_order.py: each case's factors come from a seeded numpy generator, so the file
keeps only the seed, the shape and digests of the factors and of the product's bits.

Usage (with a Python that has torch 2.13):  python record_matmul_cases.py > matmul_cases.json
"""
import hashlib
import json
import os

import numpy as np
from numpy._core import _multiarray_umath

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
    # MKL's sgemm adds in another order with its AVX-512 kernels: the test follows the recording's
    branch = os.environ.get("MKL_CBWR", "AUTO").upper()
    avx512 = branch.startswith("AVX512") if branch != "AUTO" else \
        bool(_multiarray_umath.__cpu_features__.get("AVX512F")) and \
        os.environ.get("MKL_ENABLE_INSTRUCTIONS", "AVX512").upper().startswith("AVX512")
    print(f'{{"torch": "{torch.__version__}", "sgemm_avx512": {json.dumps(avx512)}, "cases": [\n{lines}\n]}}')


if __name__ == "__main__":
    main()
