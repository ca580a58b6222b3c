"""Differential test: gradcalc's tensor repr against reprs recorded from PyTorch.

The cases in repr_cases/repr_cases.jsonl come from repr_cases/record_repr_cases.py,
which documents the file format.
"""

from __future__ import annotations

import base64
import json
import math
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from gradcalc.display.tensor_repr import format_tensor, get_printoptions, set_printoptions

CASES_FILE = Path(__file__).parent / "repr_cases" / "repr_cases.jsonl"

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


def load_cases() -> list[dict[str, Any]]:
    with CASES_FILE.open() as lines:
        return [json.loads(line) for line in lines]


CASES = load_cases()


def rebuild(case: dict[str, Any]) -> np.ndarray:
    """The exact numpy array PyTorch printed, including a non-contiguous view."""
    np_dtype = NUMPY_DTYPES[case["dtype"]]
    shape = tuple(case["shape"])
    encoded = case["values"]
    if encoded["enc"] == "list":
        data = encoded["data"]
        if case["dtype"].startswith("complex"):
            data = [complex(float.fromhex(re), float.fromhex(im)) for re, im in data]
        elif np.issubdtype(np_dtype, np.floating):
            data = [float.fromhex(v) for v in data]
        values = np.array(data, dtype=np_dtype)
    elif encoded["enc"] == "b64":
        raw = base64.b64decode(encoded["data"])
        values = np.frombuffer(raw, dtype=np.dtype(np_dtype).newbyteorder("<")).astype(np_dtype)
    else:  # "arange"
        n = math.prod(shape)
        if np.issubdtype(np_dtype, np.integer):
            values = np.arange(n, dtype=np.int64) * encoded["step"] + encoded["start"]
        else:
            step, start = float.fromhex(encoded["step"]), float.fromhex(encoded["start"])
            values = np.arange(n, dtype=np.float64) * step + start
        values = values.astype(np_dtype)
    values = values.reshape(shape)
    if case["permute"] is not None:
        values = values.transpose(case["permute"])
    return values


def print_options(case: dict[str, Any]) -> dict[str, Any]:
    options = dict(case["options"])
    if options.get("threshold") == "inf":
        options["threshold"] = math.inf
    return options


@pytest.fixture(autouse=True)
def default_print_options() -> Iterator[None]:
    # Every case starts from, and leaves behind, the default options.
    set_printoptions(profile="default")
    yield
    set_printoptions(profile="default")


def test_enough_cases() -> None:
    assert len(CASES) >= 2500


@pytest.mark.parametrize("case", CASES, ids=[case["id"] for case in CASES])
def test_repr_matches_pytorch(case: dict[str, Any]) -> None:
    set_printoptions(**print_options(case))
    got = format_tensor(
        rebuild(case),
        case["dtype"],
        grad_fn=case["grad_fn"],
        requires_grad=case["requires_grad"],
        default_dtype=case["default_dtype"],
    )
    assert got == case["expected"]


@pytest.mark.parametrize(
    ("profile", "expected"),
    [
        ("default", {"precision": 4, "threshold": 1000, "edgeitems": 3, "linewidth": 80, "sci_mode": None}),
        ("short", {"precision": 2, "threshold": 1000, "edgeitems": 2, "linewidth": 80, "sci_mode": None}),
        ("full", {"precision": 4, "threshold": math.inf, "edgeitems": 3, "linewidth": 80, "sci_mode": None}),
    ],
)
def test_profiles(profile: str, expected: dict[str, Any]) -> None:
    set_printoptions(precision=7, sci_mode=True)
    set_printoptions(profile=profile)
    assert get_printoptions() == expected


def test_options_override_profile_and_sci_mode_resets() -> None:
    set_printoptions(profile="short", linewidth=120, sci_mode=False)
    assert get_printoptions() == {
        "precision": 2, "threshold": 1000, "edgeitems": 2, "linewidth": 120, "sci_mode": False,
    }
    set_printoptions(threshold=5)
    assert get_printoptions()["sci_mode"] is None
    set_printoptions(**get_printoptions())
    assert get_printoptions()["threshold"] == 5


def test_summarised_large_tensor_is_fast() -> None:
    values = np.arange(4_000_000, dtype=np.float32).reshape(2000, 2000)
    start = time.perf_counter()
    text = format_tensor(values, "float32")
    assert time.perf_counter() - start < 0.5
    assert text.startswith("tensor([[0.0000e+00, 1.0000e+00, 2.0000e+00,  ...,")
