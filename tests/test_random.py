"""Differential test: gradcalc's random draws against draws recorded from PyTorch.

The cases in random_cases/random_cases.json come from
random_cases/record_random_cases.py, which documents the file format.  Every
value must match bit for bit, and every later draw too, so each case also
checks how much of the stream a call consumed.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from gradcalc.autograd import random as R

CASES_FILE = Path(__file__).parent / "random_cases" / "random_cases.json"
CASES: list[dict[str, Any]] = json.loads(CASES_FILE.read_text())["cases"]


def decode(expected: dict[str, Any]) -> np.ndarray:
    dtype = np.dtype(expected["dtype"])
    values = expected["values"]
    if isinstance(values, dict):
        flat = np.frombuffer(base64.b64decode(values["b64"]), dtype=dtype.newbyteorder("<")).astype(dtype)
    elif dtype.kind == "f":
        flat = np.array([float.fromhex(v) for v in values], dtype=np.float64).astype(dtype)
    else:
        flat = np.array(values, dtype=dtype)
    return flat.reshape(expected["shape"])


def assert_same(got: np.ndarray, expected: dict[str, Any], where: str) -> None:
    want = decode(expected)
    assert got.dtype == want.dtype, f"{where}: dtype {got.dtype} != {want.dtype}"
    assert got.shape == want.shape, f"{where}: shape {got.shape} != {want.shape}"
    got_bytes = got.reshape(-1).view(np.uint8).reshape(got.size, got.itemsize)
    want_bytes = want.reshape(-1).view(np.uint8).reshape(want.size, want.itemsize)
    diff = np.flatnonzero((got_bytes != want_bytes).any(axis=1))  # bytes, so -0.0 counts
    if diff.size:
        first = diff[0]
        raise AssertionError(
            f"{where}: {diff.size} elements differ, first at {first}: "
            f"{got.ravel()[first]!r} != {want.ravel()[first]!r}"
        )


def arg(call: dict[str, Any], key: str) -> Any:
    value = call[key]
    return float.fromhex(value) if isinstance(value, str) else value


def replay(call: dict[str, Any], gen: R.Generator) -> Any:
    op = call["op"]
    dtype = call.get("dtype", "float32")
    shape = tuple(call.get("shape", ()))
    if op in ("rand", "rand_like"):
        return R.rand(shape, dtype, gen)
    if op in ("randn", "randn_like"):
        return R.randn(shape, dtype, gen)
    if op == "uniform_":
        return R.uniform_(shape, arg(call, "low"), arg(call, "high"), dtype, gen)
    if op == "normal_":
        return R.normal_(shape, arg(call, "mean"), arg(call, "std"), dtype, gen)
    if op == "randint":
        return R.randint(call["low"], call["high"], shape, dtype, gen)
    if op == "randperm":
        return R.randperm(call["n"], dtype, gen)
    if op == "bernoulli_":
        return R.bernoulli_(shape, arg(call, "p"), dtype, gen)
    if op == "bernoulli":
        return R.bernoulli(np.array([float.fromhex(v) for v in call["p"]]).astype(dtype), gen)
    if op == "dropout":
        return R.bernoulli_(shape, 1.0 - arg(call, "p"), "bool", gen)
    if op == "linear":
        return R.linear_init(call["in_features"], call["out_features"], call["bias"], dtype, gen)
    if op == "manual_seed":
        return gen.manual_seed(call["seed"]).initial_seed()
    if op == "get_state":
        return gen._state_bytes().tobytes().hex()
    if op == "set_state":
        gen._load_state(np.frombuffer(bytes.fromhex(call["state"]), dtype=np.uint8))
        return None
    raise ValueError(op)


@pytest.mark.parametrize("case", CASES, ids=[case["id"] for case in CASES])
def test_random_case(case: dict[str, Any]) -> None:
    if case["generator"] == "own":
        gen = R.Generator().manual_seed(case["seed"])
    else:
        gen = R.manual_seed(case["seed"])
        assert gen is R.default_generator
    for i, call in enumerate(case["calls"]):
        where = f"call {i} ({call['op']})"
        if "error" in call:
            expected = call["error"]
            with pytest.raises(Exception) as info:
                replay(call, gen)
            assert type(info.value).__name__ == expected["type"], where
            assert str(info.value) == expected["message"], where
            continue
        got = replay(call, gen)
        want = call["result"]
        if call["op"] == "linear":
            weight, bias = got
            assert_same(weight, want["weight"], f"{where} weight")
            if want["bias"] is None:
                assert bias is None, where
            else:
                assert_same(bias, want["bias"], f"{where} bias")
        elif call["op"] == "dropout":
            # Dropout keeps an element when bernoulli_(1 - p) draws 1.
            assert np.array_equal(got, decode(want) != 0), where
        elif isinstance(want, dict):
            assert_same(got, want, where)
        else:
            assert got == want, where


def test_state_round_trip_continues_the_stream() -> None:
    gen = R.Generator().manual_seed(31)
    R.randn(5, generator=gen)  # leaves a cached normal sample behind
    R.rand(700, generator=gen)  # and crosses a 624-word block
    copy = R.Generator().set_state(gen.get_state())
    for draw in (lambda g: R.randn(1, generator=g), lambda g: R.randn(40, generator=g),
                 lambda g: R.randint(-9, 9, (30,), generator=g), lambda g: R.rand(3, "float64", g)):
        assert draw(gen).tobytes() == draw(copy).tobytes()


def test_generators_are_independent() -> None:
    a = R.Generator().manual_seed(3)
    b = R.Generator().manual_seed(3)
    first = R.rand(4, generator=a)
    R.rand(100, generator=R.Generator().manual_seed(3))
    R.manual_seed(3)
    R.rand(50)
    assert R.rand(4, generator=b).tobytes() == first.tobytes()


def test_seed_reseeds_and_reports_the_seed() -> None:
    gen = R.Generator()
    assert gen.initial_seed() == 67280421310721
    new = gen.seed()
    assert gen.initial_seed() == new
    assert R.rand(3, generator=gen).tobytes() == R.rand(3, generator=R.Generator._seeded(new)).tobytes()


@pytest.mark.parametrize("n", [0, 1, 5, 16, 1000])
def test_shapes_and_dtypes(n: int) -> None:
    gen = R.Generator()
    assert R.rand((n, 2), "float64", gen).shape == (n, 2)
    assert R.randn((2, n), "float16", gen).dtype == np.float16
    assert R.randint(0, 3, (n,), "int32", gen).dtype == np.int32
    assert sorted(R.randperm(n, "int64", gen).tolist()) == list(range(n))
