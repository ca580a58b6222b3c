#!/usr/bin/env python3
"""Record PyTorch's interpolation results for test_upsampling_cases.py: generated calls of
F.interpolate in every mode (nearest, nearest-exact, linear, bilinear, bicubic, trilinear, area,
and antialiased bilinear, bicubic and lanczos) over float32, float64, float16, bfloat16 and uint8,
contiguous and channels-last inputs (images and videos) of 1 to 40 channels, by size and by scale factor, with and
without align_corners; each case's output and its input's gradient (for a seeded incoming
gradient) kept as digests. Inputs come from seeded numpy generators (case_inputs below).

Usage (with a Python that has torch 2.13):  python record_upsampling_cases.py CAPABILITY
writes upsampling_cases_CAPABILITY.json beside this file (avx512 needs a processor with AVX-512).
"""
import hashlib
import json
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "simd_cases"))
from record_simd_cases import header, in_capability  # noqa: E402 - the same settings and header
COUNT = 500
DTYPES = ("float32", "float64", "float16", "bfloat16", "uint8")
# mode -> (spatial dims, antialias)
MODES = {"nearest": (2, False), "nearest-exact": (2, False), "linear": (1, False), "bilinear": (2, False),
         "bicubic": (2, False), "trilinear": (3, False), "bilinear-aa": (2, True), "bicubic-aa": (2, True),
         "lanczos": (2, True), "area-2d": (2, False), "area-3d": (3, False)}
_BYTE_MODES = ("nearest", "bilinear", "bicubic", "bilinear-aa", "bicubic-aa", "lanczos")
_SCALES = (0.3, 0.5, 0.77, 1.0, 1.3, 1.6, 2.0, 2.5)


def case(index: int) -> dict:
    """The call of case INDEX: dtype, mode, input shape, layout and interpolate's arguments."""
    rng = np.random.default_rng(index)
    dtype = DTYPES[index % len(DTYPES)]
    modes = [m for m in MODES if (dtype != "uint8" or m in _BYTE_MODES)
             and not (MODES[m][1] and dtype in ("float16", "bfloat16"))]
    mode = modes[int(rng.integers(len(modes)))]
    dims, antialias = MODES[mode]
    channels = int(rng.choice([1, 2, 3, 4, 5, 8, 16, 21, 40]))
    spatial = [int(rng.integers(1, 12)) for _ in range(dims)]
    kwargs = {"mode": mode.split("-")[0] if mode.startswith("area") else mode.removesuffix("-aa")}
    if rng.integers(2):
        kwargs["size"] = [int(rng.integers(1, 15)) for _ in range(dims)]
    else:
        scales = [float(rng.choice(_SCALES)) for _ in range(dims)]
        if any(int(s * f) < 1 for s, f in zip(spatial, scales)):
            scales = [2.0] * dims
        kwargs["scale_factor"] = scales
    if kwargs["mode"] not in ("nearest", "nearest-exact", "lanczos", "area"):
        kwargs["align_corners"] = bool(rng.integers(2))
    if antialias:
        kwargs["antialias"] = True
    return {"dtype": dtype, "shape": [int(rng.integers(1, 3)), channels, *spatial],
            "channels_last": bool(dims > 1 and rng.integers(2)), "kwargs": kwargs}


def case_inputs(index: int, call: dict, output_shape: tuple) -> tuple:
    """The input (contiguous) and the incoming gradient, as numpy arrays of the computing dtype
    (float32 for float16 and bfloat16, rounded by the caller)."""
    rng = np.random.default_rng(10_000 + index)
    if call["dtype"] == "uint8":
        x = rng.integers(0, 256, call["shape"]).astype(np.uint8)
    else:
        x = rng.standard_normal(call["shape"]).astype(np.float64 if call["dtype"] == "float64" else np.float32)
    grad = rng.standard_normal(output_shape).astype(np.float64 if call["dtype"] == "float64" else np.float32)
    return x, grad


def laid_out(call: dict, x: np.ndarray) -> np.ndarray:
    """X with its channels innermost in memory where the case says so (a permuted copy, as a
    program makes one from an image in HWC order)."""
    if not call["channels_last"]:
        return x
    order = (0, *range(2, x.ndim), 1)
    return np.ascontiguousarray(x.transpose(order)).transpose(np.argsort(order))


def digest(array: np.ndarray) -> str:
    return hashlib.sha256(np.ascontiguousarray(array).tobytes()).hexdigest()[:16]


def _torch_case(torch, index: int) -> dict:
    import torch.nn.functional as F

    call = case(index)
    dtype = getattr(torch, call["dtype"])
    probe = torch.zeros(call["shape"], dtype=torch.float32)
    shape = tuple(F.interpolate(probe, **{**call["kwargs"], "mode": "nearest", "antialias": False,
                                          **({"align_corners": None} if "align_corners" in call["kwargs"] else {})}
                                ).shape)
    x, grad = case_inputs(index, call, shape)
    leaf = torch.from_numpy(laid_out(call, x)).to(dtype)
    if dtype.is_floating_point:
        leaf.requires_grad_()
    out = F.interpolate(leaf, **call["kwargs"])
    result = {"index": index, "output": _digest(out.detach())}
    if dtype.is_floating_point:
        out.backward(torch.from_numpy(grad).to(dtype))
        result["grad"] = _digest(leaf.grad)
    return result


def _digest(tensor) -> str:
    """bfloat16 as its float32 values (gradcalc keeps it so), the other dtypes as they are."""
    return digest((tensor.float() if str(tensor.dtype) == "torch.bfloat16" else tensor).contiguous().numpy())


def main() -> None:
    capability = sys.argv[1]
    in_capability(capability)
    import torch  # only the recording needs it: the test imports this file's cases and digest

    torch.set_num_threads(1)
    lines = ",\n".join(json.dumps(_torch_case(torch, index)) for index in range(COUNT))
    (HERE / f"upsampling_cases_{capability}.json").write_text(
        f'{header(torch, capability)}, "cases": [\n{lines}\n]}}\n')


if __name__ == "__main__":
    main()
