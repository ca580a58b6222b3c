"""Record PyTorch's tensor reprs as differential test cases for gradcalc.

Run with a Python that has PyTorch installed (the only place torch is used):

    python tests/repr_cases/record_repr_cases.py

It writes ``repr_cases.jsonl`` next to this file, one JSON object per line:

``id``             unique, readable case name
``dtype``          torch dtype name of the printed tensor, e.g. ``"int32"``
``shape``          shape of the stored values (before ``permute``)
``values``         the elements in C order, stored exactly, as one of
                   ``{"enc": "list", "data": [...]}`` with floats as
                   ``float.hex`` strings (trailing zero digits dropped, which
                   ``float.fromhex`` accepts), complex numbers as ``[re, im]`` hex
                   pairs, ints and bools as JSON ints and bools;
                   ``{"enc": "b64", "data": ...}``: little-endian raw bytes of
                   the numpy dtype; or ``{"enc": "arange", "start": hex,
                   "step": hex}``: ``arange(n) * step + start`` in float64
                   (int64 for integer dtypes), cast to the dtype.
                   bfloat16 elements are stored as float32.
``permute``        axes order applied to the rebuilt array, or null; it makes
                   the printed tensor a non-contiguous view
``options``        keyword arguments for ``set_printoptions`` (a threshold of
                   ``"inf"`` means ``float("inf")``), applied before printing;
                   the defaults are restored afterwards
``default_dtype``  the default floating dtype while printing
``grad_fn``        autograd node name shown in the repr, or null
``requires_grad``  whether the tensor requires grad
``expected``       ``repr(tensor)`` as printed by PyTorch

All values come from a fixed numpy seed, so re-running gives the same file.
"""

from __future__ import annotations

import base64
import json
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import torch

SEED = 20250214
OUT = Path(__file__).with_name("repr_cases.jsonl")
# Cases up to this many elements keep readable lists; larger ones use base64.
LIST_LIMIT = 256

NUMPY_DTYPES: dict[str, Any] = {
    "float32": np.float32,
    "float64": np.float64,
    "float16": np.float16,
    "bfloat16": np.float32,
    "int8": np.int8,
    "int16": np.int16,
    "int32": np.int32,
    "int64": np.int64,
    "uint8": np.uint8,
    "bool": np.bool_,
    "complex64": np.complex64,
    "complex128": np.complex128,
}
FLOATS = ["float32", "float64", "float16", "bfloat16"]
INTS = ["int8", "int16", "int32", "int64", "uint8"]
COMPLEX = ["complex64", "complex128"]
ALL_DTYPES = FLOATS + INTS + ["bool"] + COMPLEX
SPECIALS = [math.nan, math.inf, -math.inf, 0.0, -0.0]
# Values whose rounding changes a column's width or sits on a mode threshold.
BOUNDARIES = [
    0.99995, 0.999949, 9.99995, 9.99994, 99.99995, 999.99995, 9999.99995,
    99999.5, 0.00005, 0.00015, 1e-4, 9.9999e-5, 1.00001e-4, 1e8, 1e8 + 1,
    99999999.0, 1000.0, 1.0, 1e-5, 0.5, 2.5, 0.125, 1.25e-5, 123456789.0,
    1e-300, 1e300, 65504.0, 6e-8, 5e-5, 0.00006103515625, 1.5, 12.125,
    3.14159265358979, 2.718281828, 1e-10, 1e12, 999.5, 0.05, 0.0005,
]


class Recorder:
    """Builds torch tensors from numpy arrays and collects their reprs."""

    def __init__(self) -> None:
        self.cases: list[dict[str, Any]] = []

    def add(
        self,
        name: str,
        base: np.ndarray,
        dtype: str,
        *,
        permute: list[int] | None = None,
        options: dict[str, Any] | None = None,
        default_dtype: str = "float32",
        op: Callable[[torch.Tensor], torch.Tensor] | None = None,
        recipe: dict[str, Any] | None = None,
    ) -> None:
        """Record one case; ``op`` is applied to a leaf requiring grad."""
        options = options or {}
        torch.set_default_dtype(getattr(torch, default_dtype))
        try:
            tensor = to_torch(base, dtype)
            if permute is not None:
                tensor = tensor.permute(permute)
            if op is not None:
                tensor = op(tensor.detach().clone().requires_grad_(True))
            torch.set_printoptions(**decode_options(options))
            try:
                expected = repr(tensor)
            finally:
                torch.set_printoptions(profile="default")
        finally:
            torch.set_default_dtype(torch.float32)

        if op is not None:
            # The printed tensor is the op's result: store its values instead.
            dtype = str(tensor.dtype).removeprefix("torch.")
            base = to_numpy(tensor.detach())
            permute, recipe = None, None
        self.cases.append(
            {
                "id": f"{len(self.cases):04d}-{name}",
                "dtype": dtype,
                "shape": list(base.shape),
                "values": recipe or encode(base, dtype),
                "permute": permute,
                "options": options,
                "default_dtype": default_dtype,
                "grad_fn": grad_fn_name(tensor),
                "requires_grad": bool(tensor.requires_grad),
                "expected": expected,
            }
        )


def to_torch(values: np.ndarray, dtype: str) -> torch.Tensor:
    # A C-ordered copy (np.ascontiguousarray would turn 0-d into 1-d).
    tensor = torch.from_numpy(np.array(values, order="C"))
    return tensor.to(torch.bfloat16) if dtype == "bfloat16" else tensor


def to_numpy(tensor: torch.Tensor) -> np.ndarray:
    if tensor.dtype == torch.bfloat16:
        tensor = tensor.float()
    return np.array(tensor.numpy(), order="C")


def grad_fn_name(tensor: torch.Tensor) -> str | None:
    # The same name PyTorch's repr shows.
    node = tensor.grad_fn
    if node is None:
        return None
    name = type(node).__name__
    return node.name().rsplit("::", 1)[-1] if name == "CppFunction" else name


def decode_options(options: dict[str, Any]) -> dict[str, Any]:
    if options.get("threshold") == "inf":
        return {**options, "threshold": math.inf}
    return options


def encode(values: np.ndarray, dtype: str) -> dict[str, Any]:
    flat = values.reshape(-1)
    if flat.size > LIST_LIMIT:
        raw = flat.astype(np.dtype(NUMPY_DTYPES[dtype]).newbyteorder("<")).tobytes()
        return {"enc": "b64", "data": base64.b64encode(raw).decode("ascii")}
    if dtype in COMPLEX:
        data: list[Any] = [[short_hex(v.real), short_hex(v.imag)] for v in flat.tolist()]
    elif dtype in FLOATS:
        data = [short_hex(v) for v in flat.tolist()]
    else:
        data = flat.tolist()
    return {"enc": "list", "data": data}


def short_hex(value: float) -> str:
    """``float.hex`` without the trailing zeros of the fraction, to keep the file small."""
    text = float(value).hex()
    if "p" not in text:  # nan and inf
        return text
    mantissa, exponent = text.split("p")
    return mantissa.rstrip("0").rstrip(".") + "p" + exponent


def cast(values: np.ndarray, dtype: str) -> np.ndarray:
    """Cast generated float64/complex128/int values exactly as a tensor would hold them."""
    with np.errstate(over="ignore", invalid="ignore"):
        out = values.astype(NUMPY_DTYPES[dtype])
    if dtype == "bfloat16":
        out = torch.from_numpy(out).to(torch.bfloat16).float().numpy()
    return out


# ----------------------------------------------------------------- generators


def random_shape(rng: np.random.Generator, max_numel: int = 120) -> tuple[int, ...]:
    while True:
        ndim = int(rng.choice([0, 1, 1, 1, 2, 2, 2, 3, 3, 4]))
        if ndim == 1:
            shape: tuple[int, ...] = (int(rng.integers(1, 61)),)
        else:
            shape = tuple(int(rng.choice([1, 1, 2, 2, 3, 3, 4, 5, 6, 7, 9, 12])) for _ in range(ndim))
        if math.prod(shape) <= max_numel:
            return shape


def exponent_range(dtype: str) -> tuple[int, int]:
    return (-8, 4) if dtype == "float16" else (-10, 12)


def float_values(rng: np.random.Generator, n: int, dtype: str) -> tuple[str, np.ndarray]:
    """Pick a value family and draw n float64 values from it."""
    lo, hi = exponent_range(dtype)
    family = str(
        rng.choice(
            ["normal", "uniform", "positive", "intvalued", "smallint", "logmix",
             "special", "onlyspecial", "boundary", "ratio", "decimal"]
        )
    )
    scale = 10.0 ** int(rng.integers(lo, hi + 1))
    if family == "normal":
        values = rng.standard_normal(n) * scale
    elif family == "uniform":
        values = rng.uniform(-1, 1, n) * scale
    elif family == "positive":
        values = np.abs(rng.standard_normal(n)) * scale
    elif family == "intvalued":
        values = np.round(rng.standard_normal(n) * 10.0 ** int(rng.integers(0, hi + 1)))
    elif family == "smallint":
        values = rng.integers(-10, 11, n).astype(np.float64)
    elif family == "logmix":
        a, b = sorted(rng.uniform(lo, hi, 2))
        values = rng.choice([-1.0, 1.0], n) * 10.0 ** rng.uniform(a, b, n)
    elif family == "special":
        values = rng.standard_normal(n) * scale
        mask = rng.random(n) < 0.3
        values[mask] = rng.choice(SPECIALS, int(mask.sum()))
    elif family == "onlyspecial":
        values = rng.choice(SPECIALS, n)
    elif family == "boundary":
        values = rng.choice(BOUNDARIES, n) * rng.choice([-1.0, 1.0], n)
    elif family == "ratio":
        x = 10.0 ** rng.uniform(lo + 2, hi - 3)
        values = x * rng.choice([1.0, 999.9, 1000.0, 1000.0001, 1001.0, 10.0], n)
    else:  # "decimal": short decimals such as 0.25 or 12.125
        values = rng.integers(-100000, 100000, n) / 2.0 ** int(rng.integers(0, 12))
    return family, values


def int_values(rng: np.random.Generator, n: int, dtype: str) -> np.ndarray:
    info = np.iinfo(NUMPY_DTYPES[dtype])
    kind = int(rng.integers(0, 5))
    if kind == 0:
        values = rng.integers(max(info.min, -9), 10, n)
    elif kind == 1:
        values = rng.integers(max(info.min, -1000), min(info.max, 1000) + 1, n)
    elif kind == 2:
        values = rng.integers(0, min(info.max, 100) + 1, n)
    else:
        values = rng.integers(info.min, info.max, n, endpoint=True, dtype=np.int64)
        if kind == 4:
            values[rng.random(n) < 0.3] = info.min
    return values.astype(NUMPY_DTYPES[dtype])


def random_values(rng: np.random.Generator, shape: tuple[int, ...], dtype: str) -> tuple[str, np.ndarray]:
    n = math.prod(shape)
    if dtype in FLOATS:
        family, values = float_values(rng, n, dtype)
    elif dtype in COMPLEX:
        real_family, real = float_values(rng, n, dtype)
        imag_family, imag = float_values(rng, n, dtype)
        # Assigned part by part: real + 1j * imag would turn an infinite imag into nan.
        values = np.empty(n, np.complex128)
        values.real, values.imag = real, imag
        family = f"{real_family}+{imag_family}"
    elif dtype == "bool":
        family, values = "bool", rng.random(n) < rng.random()
    else:
        family, values = "int", int_values(rng, n, dtype)
    return family, cast(np.asarray(values), dtype).reshape(shape)


def random_permute(rng: np.random.Generator, ndim: int) -> list[int] | None:
    if ndim < 2 or rng.random() > 0.25:
        return None
    return [int(i) for i in rng.permutation(ndim)]


def random_options(rng: np.random.Generator) -> dict[str, Any]:
    options: dict[str, Any] = {}
    if rng.random() < 0.15:
        options["profile"] = str(rng.choice(["default", "short", "full"]))
    if rng.random() < 0.5:
        options["precision"] = int(rng.choice([0, 1, 2, 3, 5, 6, 8, 10, 12]))
    if rng.random() < 0.45:
        thresholds: list[Any] = [0, 1, 3, 5, 8, 10, 20, 50, 100, 500, "inf"]
        options["threshold"] = thresholds[int(rng.integers(len(thresholds)))]
    if rng.random() < 0.45:
        options["edgeitems"] = int(rng.choice([0, 1, 2, 4, 5]))
    if rng.random() < 0.4:
        options["linewidth"] = int(rng.choice([1, 10, 20, 30, 40, 50, 60, 75, 100, 120, 150, 200]))
    if rng.random() < 0.4:
        options["sci_mode"] = bool(rng.choice([True, False]))
    return options


# Autograd ops applied to a leaf; "leaf" prints the leaf itself.
GRAD_OPS: dict[str, Callable[[torch.Tensor], torch.Tensor]] = {
    "leaf": lambda t: t,
    "mul1": lambda t: t * 1,
    "mul2": lambda t: t * 2,
    "add0": lambda t: t + 0,
    "neg": lambda t: -t,
    "clone": lambda t: t.clone(),
    "div3": lambda t: t / 3,
    "sum": lambda t: t.sum(),
    "mean": lambda t: t.mean(),
    "exp": torch.exp,
    "tanh": torch.tanh,
    "pow2": lambda t: t**2,
    "reshape": lambda t: t.reshape(-1),
    "unsqueeze": lambda t: t.unsqueeze(0),
    "select": lambda t: t[0],
    "transpose": lambda t: t.transpose(0, -1),
    "widen": lambda t: t.to(torch.complex128 if t.is_complex() else torch.float64),
    "norm": torch.linalg.vector_norm,
    "cumsum": lambda t: t.cumsum(0),
}


# ----------------------------------------------------------------- case groups


def plain_cases(rec: Recorder, rng: np.random.Generator) -> None:
    """Random shapes and values of every dtype with default options."""
    counts = {**{d: 300 for d in FLOATS}, **{d: 50 for d in INTS}, "bool": 80}
    counts.update({d: 130 for d in COMPLEX})
    for dtype, count in counts.items():
        for _ in range(count):
            shape = random_shape(rng)
            family, values = random_values(rng, shape, dtype)
            rec.add(f"{dtype}-{family}", values, dtype, permute=random_permute(rng, len(shape)))


def empty_cases(rec: Recorder, rng: np.random.Generator) -> None:
    shapes = [(0,), (0, 3), (3, 0), (2, 0, 4), (0, 0), (1, 0), (0, 1, 2)]
    for dtype in ALL_DTYPES:
        for shape in shapes:
            values = np.zeros(shape, NUMPY_DTYPES[dtype])
            rec.add(f"empty-{dtype}", values, dtype)
        for default in ["float64", "float16"]:
            rec.add(f"empty-{dtype}-default-{default}", np.zeros((0,), NUMPY_DTYPES[dtype]), dtype, default_dtype=default)
        rec.add(f"empty-{dtype}-options", np.zeros((2, 0), NUMPY_DTYPES[dtype]), dtype, options=random_options(rng))


def large_cases(rec: Recorder, rng: np.random.Generator) -> None:
    """Tensors past the default threshold of 1000 elements."""
    shapes = [(1001,), (2000,), (40, 40), (40, 50), (10, 10, 11), (2, 3, 13, 13), (7, 150), (1100, 1), (1, 1, 1001)]
    dtypes = FLOATS * 3 + INTS + ["bool"] + COMPLEX
    for i in range(60):
        shape = shapes[i % len(shapes)]
        dtype = dtypes[int(rng.integers(len(dtypes)))]
        family, values = random_values(rng, shape, dtype)
        options = random_options(rng) if i % 3 == 0 else {}
        rec.add(f"large-{dtype}-{family}", values, dtype, permute=random_permute(rng, len(shape)), options=options)
    # Very large tensors come from a recipe so the file stays small.
    recipes = [
        ((1000, 1000), "float32", 0.0, 1.0),
        ((1000, 1000), "int64", -500000, 1),
        ((1000, 1000), "float64", 0.5, 0.001),
        ((100, 100, 100), "float32", 1.0, 0.0),
        ((20, 20, 20, 20), "float64", -3.0, 1.0 / 1024),
        ((5000,), "float16", 0.0, 0.25),
        ((3000,), "complex64", 1.0, 2.0),
    ]
    for shape, dtype, start, step in recipes:
        n = math.prod(shape)
        if dtype in INTS:
            values = (np.arange(n, dtype=np.int64) * step + start).astype(NUMPY_DTYPES[dtype])
            recipe = {"enc": "arange", "start": start, "step": step}
        else:
            values = cast(np.arange(n, dtype=np.float64) * step + start, dtype)
            recipe = {"enc": "arange", "start": short_hex(start), "step": short_hex(step)}
        for options in [{}, {"edgeitems": 1}, {"sci_mode": True, "precision": 2}]:
            rec.add(f"recipe-{dtype}", values.reshape(shape), dtype, options=options, recipe=recipe)


def option_cases(rec: Recorder, rng: np.random.Generator) -> None:
    """Random tensors under random non-default print options."""
    for _ in range(520):
        dtype = ALL_DTYPES[int(rng.integers(len(ALL_DTYPES)))]
        shape = random_shape(rng, max_numel=150)
        family, values = random_values(rng, shape, dtype)
        rec.add(
            f"options-{dtype}-{family}", values, dtype,
            permute=random_permute(rng, len(shape)), options=random_options(rng),
        )


def grad_cases(rec: Recorder, rng: np.random.Generator) -> None:
    """Tensors printed with requires_grad=True or a grad_fn suffix."""
    names = list(GRAD_OPS)
    for i in range(280):
        dtype = (FLOATS + COMPLEX)[int(rng.integers(len(FLOATS) + 2))]
        shape = random_shape(rng, max_numel=60)
        name = names[i % len(names)]
        if name in ("select", "cumsum") and not shape:
            shape = (3,)
        if name == "transpose" and len(shape) < 2:
            shape = (2, 3)
        family, values = random_values(rng, shape, dtype)
        options = random_options(rng) if i % 4 == 0 else {}
        default = "float64" if i % 7 == 0 else "float32"
        rec.add(f"grad-{name}-{dtype}-{family}", values, dtype, options=options, default_dtype=default, op=GRAD_OPS[name])


def default_dtype_cases(rec: Recorder, rng: np.random.Generator) -> None:
    """The dtype suffix depends on the default dtype."""
    for i in range(100):
        default = "float16" if i % 5 == 0 else "float64"
        dtype = ALL_DTYPES[int(rng.integers(len(ALL_DTYPES)))]
        shape = random_shape(rng, max_numel=40)
        family, values = random_values(rng, shape, dtype)
        options = random_options(rng) if i % 3 == 0 else {}
        rec.add(f"default-{default}-{dtype}-{family}", values, dtype, options=options, default_dtype=default)


def wrap_cases(rec: Recorder, rng: np.random.Generator) -> None:
    """Rows and suffixes around the line width, where wrapping starts."""
    for n in range(1, 31):
        for dtype in ["float64", "int32", "complex64", "float16"]:
            _, values = random_values(rng, (n,), dtype)
            rec.add(f"wrap-{dtype}-{n}", values, dtype)
        values = cast(rng.standard_normal(n) * 10.0 ** int(rng.integers(0, 6)), "float64")
        rec.add(f"wrap-grad-{n}", values, "float64", op=torch.linalg.vector_norm if n == 1 else GRAD_OPS["mul2"])
        rec.add(f"wrap-leaf-{n}", values.reshape(1, n), "float64", op=GRAD_OPS["leaf"], options={"linewidth": int(rng.integers(30, 120))})


def handpicked_cases(rec: Recorder) -> None:
    """Small cases that pin down individual rules."""
    f32 = np.float32
    picks: list[tuple[str, list[Any], str]] = [
        ("sci-small", [1e-5, 1.0], "float32"),
        ("sci-large", [1e10, 1.0], "float32"),
        ("sci-ratio", [0.1, 100000.0], "float32"),
        ("ratio-1000", [1.0, 1000.0], "float32"),
        ("ratio-1000-plus", [1.0, 1000.5], "float32"),
        ("max-1e8", [1e8], "float64"),
        ("max-above-1e8", [100000001.0], "float64"),
        ("min-1e-4", [1e-4], "float64"),
        ("nonfinite", [math.inf, -math.inf, math.nan, 1.0], "float32"),
        ("zeros", [0.0, -0.0], "float32"),
        ("all-nan", [math.nan, math.nan], "float64"),
        ("inf-sci", [1e20, math.inf], "float32"),
        ("round-up", [9.99995, 1.0], "float64"),
        ("negative-zero-fixed", [-0.00001, 0.5], "float64"),
        ("int-extremes", [-(2**63), 2**63 - 1, 0], "int64"),
        ("uint8-extremes", [0, 255], "uint8"),
    ]
    for name, data, dtype in picks:
        rec.add(f"pick-{name}", cast(np.array(data, dtype=np.float64 if dtype in FLOATS else object), dtype), dtype)
    for value in [-0.0, 1e-8, 3.0, math.nan, -math.inf, 0.5]:
        rec.add("pick-scalar", np.array(value, f32), "float32")
        rec.add("pick-scalar-complex", np.array(complex(value, -value), np.complex64), "complex64")
    rec.add("pick-scalar-int", np.array(3, np.int32), "int32")
    rec.add("pick-scalar-bool", np.array(False), "bool")
    rec.add("pick-complex", np.array([1 + 2j, 3 - 1j], np.complex64), "complex64")
    rec.add("pick-complex-negzero", np.array([complex(1, -0.0), complex(-0.0, 0.0)], np.complex128), "complex128")
    rec.add("pick-bool", np.array([True, False]), "bool")
    rec.add("pick-3d", np.arange(1, 9, dtype=f32).reshape(2, 2, 2), "float32")
    rec.add("pick-4d", np.arange(16, dtype=f32).reshape(2, 2, 2, 2) / f32(3), "float32")
    rec.add("pick-5d", np.arange(32, dtype=np.int64).reshape(2, 2, 2, 2, 2), "int64")
    rec.add("pick-edgeitems0-scalar", np.array(2.5, f32), "float32", options={"edgeitems": 0, "threshold": 0})
    rec.add("pick-edgeitems0-small", np.arange(4, dtype=f32), "float32", options={"edgeitems": 0})
    for profile in ["default", "short", "full"]:
        rec.add(f"pick-profile-{profile}", np.arange(1200, dtype=f32) / f32(7), "float32", options={"profile": profile})


def main() -> None:
    rng = np.random.default_rng(SEED)
    rec = Recorder()
    handpicked_cases(rec)
    plain_cases(rec, rng)
    empty_cases(rec, rng)
    large_cases(rec, rng)
    option_cases(rec, rng)
    grad_cases(rec, rng)
    default_dtype_cases(rec, rng)
    wrap_cases(rec, rng)
    with OUT.open("w") as out:
        for case in rec.cases:
            out.write(json.dumps(case, separators=(",", ":")) + "\n")
    print(f"wrote {len(rec.cases)} cases to {OUT}")


if __name__ == "__main__":
    main()
