#!/usr/bin/env python3
"""Record PyTorch's float32 sigmoid (on one thread, as the oracle runs) for test_simd_split.py:
the SIMD loop of ATen's kernel takes whole pairs of registers and the scalar loop the rest, so
the last bits of an element depend on its position and on the machine's capability. Inputs come
from a seeded numpy generator; the file keeps the sizes, the capability and digests.

Usage (with a Python that has torch 2.13):  python record_simd_cases.py > simd_cases.json
"""
import hashlib
import json

import numpy as np

SIZES = list(range(1, 70)) + [100, 257]


def values(size: int) -> np.ndarray:
    return (np.random.default_rng(size).standard_normal(size) * 4).astype(np.float32)


def digest(array: np.ndarray) -> str:
    return hashlib.sha256(np.ascontiguousarray(array).tobytes()).hexdigest()[:16]


def main() -> None:
    import torch  # only the recording needs it: the test imports this file's values and digest

    torch.set_num_threads(1)
    cases = [{"size": size, "input": digest(values(size)), "sigmoid": digest(torch.sigmoid(torch.from_numpy(values(size))).numpy())}
             for size in SIZES]
    lines = ",\n".join(json.dumps(case) for case in cases)
    capability = torch.backends.cpu.get_cpu_capability()
    print(f'{{"torch": "{torch.__version__}", "capability": "{capability}", "cases": [\n{lines}\n]}}')


if __name__ == "__main__":
    main()
