"""Record PyTorch's seeded random draws as test cases for gradcalc.autograd.random.

Run with a Python that has PyTorch installed (the only place torch is used):

    python tests/random_cases/record_random_cases.py

It writes ``random_cases.json`` next to this file:

``torch_version``  the PyTorch that produced the values
``cases``          a list of cases, each with
    ``id``         unique, readable case name
    ``generator``  ``"default"`` (``torch.manual_seed``) or ``"own"``
                   (a fresh ``torch.Generator()`` passed to every call)
    ``seed``       the seed the case starts from
    ``calls``      the calls, run in order on that generator; each has ``op``,
                   its arguments, and either ``result`` or ``error``.

Ops and their arguments (shapes are lists, dtypes numpy names):

``rand``, ``randn``             ``shape``, ``dtype``
``rand_like``, ``randn_like``   ``shape``, ``dtype`` of the tensor passed in
``uniform_``                    ``shape``, ``low``, ``high``, ``dtype``
``normal_``                     ``shape``, ``mean``, ``std``, ``dtype``
``randint``                     ``low``, ``high``, ``shape``, ``dtype``
``randperm``                    ``n``, ``dtype``
``bernoulli_``                  ``shape``, ``p``, ``dtype``
``bernoulli``                   ``p``: list of ``float.hex`` probabilities, ``dtype``:
                                ``torch.bernoulli(tensor(p, dtype=dtype))``
``dropout``                     ``shape``, ``p``: ``F.dropout(ones(shape), p)``
``linear``                      ``in_features``, ``out_features``, ``bias``,
                                ``dtype``; the result is ``{"weight", "bias"}``
``manual_seed``                 ``seed``; the result is ``initial_seed()``
``get_state``                   the result is the state bytes as hex
``set_state``                   ``state``: bytes as hex, loaded into the generator

Arrays are ``{"dtype", "shape", "values"}`` with values stored exactly: a
list (floats as ``float.hex``, so -0.0 keeps its sign; ints and bools as
JSON) for up to 64 elements, otherwise ``{"b64": ...}``, the little-endian
raw bytes.  Float arguments are ``float.hex`` strings too.  An ``error`` is
``{"type", "message"}`` with the first line of PyTorch's message.

All sequences come from a fixed Python seed, so re-running gives the same file.
"""

from __future__ import annotations

import base64
import json
import random
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F

OUT = Path(__file__).with_name("random_cases.json")

DTYPES = {
    "float16": torch.float16,
    "float32": torch.float32,
    "float64": torch.float64,
    "int64": torch.int64,
    "int32": torch.int32,
    "int16": torch.int16,
    "int8": torch.int8,
    "uint8": torch.uint8,
    "bool": torch.bool,
}


def encode_array(t: torch.Tensor) -> dict[str, Any]:
    a = t.detach().numpy()
    out: dict[str, Any] = {"dtype": str(a.dtype), "shape": list(a.shape)}
    if a.size <= 64:
        flat = a.ravel().tolist()
        out["values"] = [float(v).hex() for v in flat] if a.dtype.kind == "f" else flat
    else:
        out["values"] = {"b64": base64.b64encode(a.astype(a.dtype.newbyteorder("<")).tobytes()).decode()}
    return out


def hexf(x: float) -> str:
    return float(x).hex()


class Recorder:
    def __init__(self) -> None:
        self.cases: list[dict[str, Any]] = []

    def case(self, case_id: str, seed: int, calls: list[dict[str, Any]], own: bool = False) -> None:
        gen = torch.Generator().manual_seed(seed) if own else torch.manual_seed(seed)
        kw = {"generator": gen} if own else {}
        recorded = []
        for call in calls:
            call = dict(call)
            try:
                call["result"] = self.run(call, gen, kw)
            except Exception as exc:  # noqa: BLE001 - the error itself is the expected outcome
                call["error"] = {"type": type(exc).__name__, "message": str(exc).splitlines()[0]}
            for key in ("low", "high", "mean", "std", "p"):
                if isinstance(call.get(key), float):
                    call[key] = hexf(call[key])
            recorded.append(call)
        self.cases.append(
            {"id": case_id, "generator": "own" if own else "default", "seed": seed, "calls": recorded}
        )

    @staticmethod
    def run(call: dict[str, Any], gen: torch.Generator, kw: dict[str, Any]) -> Any:
        op = call["op"]
        dt = DTYPES.get(call.get("dtype", "float32"))
        shape = tuple(call.get("shape", ()))
        if op == "rand":
            return encode_array(torch.rand(shape, dtype=dt, **kw))
        if op == "randn":
            return encode_array(torch.randn(shape, dtype=dt, **kw))
        if op == "rand_like":
            return encode_array(torch.rand_like(torch.ones(shape, dtype=dt), **kw))
        if op == "randn_like":
            return encode_array(torch.randn_like(torch.ones(shape, dtype=dt), **kw))
        if op == "uniform_":
            return encode_array(torch.empty(shape, dtype=dt).uniform_(call["low"], call["high"], **kw))
        if op == "normal_":
            return encode_array(torch.empty(shape, dtype=dt).normal_(call["mean"], call["std"], **kw))
        if op == "randint":
            return encode_array(torch.randint(call["low"], call["high"], shape, dtype=dt, **kw))
        if op == "randperm":
            return encode_array(torch.randperm(call["n"], dtype=dt, **kw))
        if op == "bernoulli_":
            return encode_array(torch.empty(shape, dtype=dt).bernoulli_(call["p"], **kw))
        if op == "bernoulli":
            p = torch.tensor([float.fromhex(v) for v in call["p"]], dtype=dt)
            return encode_array(torch.bernoulli(p, **kw))
        if op == "dropout":
            # F.dropout takes no generator: only recorded on the default one.
            return encode_array(F.dropout(torch.ones(shape), call["p"], training=True))
        if op == "linear":
            # nn.Linear draws from the default generator only.
            lin = torch.nn.Linear(call["in_features"], call["out_features"], bias=call["bias"], dtype=dt)
            return {
                "weight": encode_array(lin.weight),
                "bias": None if lin.bias is None else encode_array(lin.bias),
            }
        if op == "manual_seed":
            return gen.manual_seed(call["seed"]).initial_seed()
        if op == "get_state":
            return bytes(gen.get_state().numpy()).hex()
        if op == "set_state":
            gen.set_state(torch.tensor(list(bytes.fromhex(call["state"])), dtype=torch.uint8))
            return None
        raise ValueError(op)


def state_after(seed: int, draws: int, normals: int) -> str:
    """A generator state mid-block, optionally holding a cached normal sample."""
    g = torch.Generator().manual_seed(seed)
    torch.rand(draws, generator=g)
    torch.randn(normals, generator=g)
    return bytes(g.get_state().numpy()).hex()


def main() -> None:
    warnings.simplefilter("ignore")  # float randint ranges beyond 2^24 warn; values still matter
    rec = Recorder()
    floats = ["float32", "float64", "float16"]
    sizes = [0, 1, 2, 3, 15, 16, 17, 31, 32, 33, 100, 1000]

    # Each sampler on its own, per dtype and size, followed by a probe that
    # shows how much of the stream it consumed.
    for dt in floats:
        for n in sizes:
            for op in ("rand", "randn"):
                rec.case(f"{op}_{dt}_{n}", 0, [
                    {"op": op, "shape": [n], "dtype": dt},
                    {"op": op, "shape": [n], "dtype": dt},
                    {"op": "rand", "shape": [3], "dtype": "float64"},
                ])
    for seed in (1, 42, 2**32 + 5, 2**63, 2**64 - 1, 123456789):
        rec.case(f"seeds_{seed}", seed, [
            {"op": "rand", "shape": [2, 3], "dtype": "float32"},
            {"op": "randn", "shape": [4], "dtype": "float32"},
            {"op": "randn", "shape": [4, 5], "dtype": "float32"},
            {"op": "randint", "low": 0, "high": 10, "shape": [5], "dtype": "int64"},
        ])
    for seed in (-1, -(2**63), 2**64, -(2**63) - 1):
        rec.case(f"seed_edge_{seed}", 0, [
            {"op": "manual_seed", "seed": seed},
            {"op": "rand", "shape": [3], "dtype": "float32"},
        ])

    # uniform_ with assorted bounds: this is also nn.Linear's draw.
    bounds = [(0.0, 1.0), (-1.0, 1.0), (-0.1, 0.7), (3.3, 1e4), (-0.5773502691896258, 0.5773502691896258),
              (2.0, 2.0), (-0.0, 0.0), (-1e-45, 1e-45), (0.1, 0.1000001), (-1e30, 1e30), (5.0, 1000.0)]
    for dt in floats:
        for i, (lo, hi) in enumerate(bounds):
            if dt == "float16" and abs(hi) > 6e4:
                continue
            for n in (1, 17, 100):
                rec.case(f"uniform_{dt}_{i}_{n}", 7, [
                    {"op": "uniform_", "shape": [n], "low": lo, "high": hi, "dtype": dt},
                    {"op": "rand", "shape": [2], "dtype": "float32"},
                ])
    # normal_ with a mean and std, through both Box-Muller paths.
    for dt in floats:
        for mean, std in ((0.0, 1.0), (0.3, 1.7), (-12.5, 0.01), (1e3, 3.0), (0.0, 0.0)):
            for n in (1, 3, 15, 16, 17, 100, 1000):
                rec.case(f"normal_{dt}_{mean}_{std}_{n}", 11, [
                    {"op": "normal_", "shape": [n], "mean": mean, "std": std, "dtype": dt},
                    {"op": "randn", "shape": [1], "dtype": "float32"},
                ])

    # randint: small, negative, 2^28 boundary (32- vs 64-bit draws), huge, and dtypes.
    ranges = [(0, 10, "int64"), (-5, 5, "int64"), (-100, -50, "int64"), (0, 2**28 - 1, "int64"),
              (0, 2**28, "int64"), (5, 5 + 2**28, "int64"), (0, 2**32 - 1, "int64"), (0, 2**32, "int64"),
              (-(2**40), 2**40, "int64"), (-(2**63), 2**63 - 1, "int64"), (0, 100, "int32"),
              (0, 2**31 - 1, "int32"), (-3, 3, "int8"), (0, 255, "uint8"), (0, 2, "bool"), (-7, 9, "int16"),
              (0, 10, "float32"), (0, 2**30, "float32"), (-(2**30) - 1, 5, "float32"), (0, 2**33, "float32"),
              (0, 2**33, "float64"), (-100, 100, "float16"), (2047, 2051, "float16")]
    for lo, hi, dt in ranges:
        rec.case(f"randint_{lo}_{hi}_{dt}", 3, [
            {"op": "randint", "low": lo, "high": hi, "shape": [6, 2], "dtype": dt},
            {"op": "rand", "shape": [2], "dtype": "float32"},
        ])

    for n in (0, 1, 2, 5, 100, 1000):
        for dt in ("int64", "int32", "float32"):
            rec.case(f"randperm_{n}_{dt}", 5, [
                {"op": "randperm", "n": n, "dtype": dt},
                {"op": "rand", "shape": [2], "dtype": "float32"},
            ])

    for p in (0.0, 0.3, 0.5, 1.0):
        for dt in ("float32", "int64", "bool"):
            rec.case(f"bernoulli_{p}_{dt}", 9, [
                {"op": "bernoulli_", "shape": [40], "p": p, "dtype": dt},
                {"op": "rand", "shape": [2], "dtype": "float32"},
            ])
    probs = [hexf(i / 37) for i in range(38)]
    for dt in floats:
        rec.case(f"bernoulli_tensor_{dt}", 9, [
            {"op": "bernoulli", "p": probs, "dtype": dt},
            {"op": "bernoulli", "p": [hexf(0.5), hexf(1.5), hexf(0.2)], "dtype": dt},
            {"op": "rand", "shape": [2], "dtype": "float32"},
        ], own=dt == "float64")
    for p in (0.1, 0.5):
        rec.case(f"dropout_{p}", 9, [{"op": "dropout", "shape": [5, 8], "p": p},
                                     {"op": "rand", "shape": [2], "dtype": "float32"}])

    # nn.Linear's initial parameters.
    for seed in (0, 1, 42):
        for fin, fout in ((1, 1), (3, 2), (10, 5), (100, 20), (0, 3), (3, 0), (7, 16), (784, 10)):
            for bias in (True, False):
                rec.case(f"linear_{seed}_{fin}_{fout}_{bias}", seed, [
                    {"op": "linear", "in_features": fin, "out_features": fout, "bias": bias,
                     "dtype": "float32"},
                    {"op": "randn", "shape": [2], "dtype": "float32"},
                ])
    for dt in ("float64", "float16"):
        rec.case(f"linear_{dt}", 0, [
            {"op": "linear", "in_features": 3, "out_features": 4, "bias": True, "dtype": dt},
            {"op": "linear", "in_features": 4, "out_features": 1, "bias": True, "dtype": dt},
        ])
    rec.case("linear_stack", 0, [
        {"op": "linear", "in_features": 2, "out_features": 8, "bias": True, "dtype": "float32"},
        {"op": "linear", "in_features": 8, "out_features": 8, "bias": True, "dtype": "float32"},
        {"op": "randn", "shape": [4, 2], "dtype": "float32"},
        {"op": "linear", "in_features": 8, "out_features": 1, "bias": True, "dtype": "float32"},
    ])

    # The corpus program features/creation/c07_random_seeded.grad.
    rec.case("corpus_c07", 0, [
        {"op": "rand", "shape": [3], "dtype": "float32"},
        {"op": "randn", "shape": [2, 2], "dtype": "float32"},
        {"op": "randint", "low": 0, "high": 10, "shape": [5], "dtype": "int64"},
        {"op": "rand", "shape": [2], "dtype": "float32"},
        {"op": "rand_like", "shape": [2, 2], "dtype": "float32"},
        {"op": "randn_like", "shape": [2, 2], "dtype": "float32"},
        {"op": "manual_seed", "seed": 42},
        {"op": "rand", "shape": [2, 3], "dtype": "float32"},
        {"op": "randint", "low": 0, "high": 5, "shape": [2, 2], "dtype": "int64"},
        {"op": "manual_seed", "seed": 0},
        {"op": "rand", "shape": [3], "dtype": "float32"},
    ])
    # The cached second Box-Muller value survives other draws, and manual_seed drops it.
    rec.case("normal_cache", 0, [
        {"op": "randn", "shape": [1], "dtype": "float32"},
        {"op": "rand", "shape": [2], "dtype": "float32"},
        {"op": "randn", "shape": [20], "dtype": "float32"},
        {"op": "randn", "shape": [1], "dtype": "float64"},
        {"op": "randn", "shape": [3], "dtype": "float32"},
        {"op": "get_state"},
        {"op": "manual_seed", "seed": 0},
        {"op": "get_state"},
        {"op": "randn", "shape": [1], "dtype": "float32"},
        {"op": "randn", "shape": [1], "dtype": "float32"},
    ])
    rec.case("brief_interleave", 0, [
        {"op": "rand", "shape": [3], "dtype": "float32"},
        {"op": "randn", "shape": [2], "dtype": "float32"},
        {"op": "randint", "low": 0, "high": 10, "shape": [4], "dtype": "int64"},
        {"op": "randn", "shape": [20], "dtype": "float32"},
        {"op": "rand", "shape": [1], "dtype": "float32"},
    ])
    # States: crossing the 624-word block, and loading torch's own state bytes.
    rec.case("state_blocks", 5, [
        {"op": "get_state"},
        {"op": "rand", "shape": [623], "dtype": "float32"},
        {"op": "get_state"},
        {"op": "rand", "shape": [1], "dtype": "float32"},
        {"op": "get_state"},
        {"op": "rand", "shape": [1], "dtype": "float32"},
        {"op": "get_state"},
    ], own=True)
    rec.case("set_state", 0, [
        {"op": "set_state", "state": state_after(123, 700, 3)},
        {"op": "randn", "shape": [3], "dtype": "float32"},
        {"op": "get_state"},
        {"op": "set_state", "state": state_after(9, 0, 0)},
        {"op": "get_state"},
        {"op": "rand", "shape": [2], "dtype": "float64"},
    ], own=True)

    # Errors PyTorch raises for bad arguments.
    rec.case("errors", 0, [
        {"op": "randint", "low": 5, "high": 5, "shape": [2], "dtype": "int64"},
        {"op": "randint", "low": 0, "high": 2**63, "shape": [2], "dtype": "int64"},
        {"op": "randint", "low": 0, "high": 300, "shape": [2], "dtype": "uint8"},
        {"op": "randint", "low": -(2**40), "high": 0, "shape": [2], "dtype": "int8"},
        {"op": "randint", "low": 0, "high": 3, "shape": [2], "dtype": "bool"},
        {"op": "randint", "low": 0, "high": 70000, "shape": [2], "dtype": "float16"},
        {"op": "uniform_", "shape": [3], "low": 1.0, "high": 0.0, "dtype": "float32"},
        {"op": "uniform_", "shape": [3], "low": -3e38, "high": 3e38, "dtype": "float32"},
        {"op": "uniform_", "shape": [3], "low": 0.0, "high": 1e5, "dtype": "float16"},
        {"op": "uniform_", "shape": [3], "low": float("nan"), "high": 1.0, "dtype": "float32"},
        {"op": "normal_", "shape": [3], "mean": 0.0, "std": -1.0, "dtype": "float32"},
        {"op": "randn", "shape": [3], "dtype": "int64"},
        {"op": "rand", "shape": [3], "dtype": "int64"},
        {"op": "randn", "shape": [-1, 2], "dtype": "float32"},
        {"op": "randperm", "n": -1, "dtype": "int64"},
        {"op": "randperm", "n": 3000, "dtype": "float16"},
        {"op": "randperm", "n": 300, "dtype": "uint8"},
        {"op": "randperm", "n": 5, "dtype": "bool"},
        {"op": "bernoulli_", "shape": [3], "p": 1.5, "dtype": "float32"},
        {"op": "manual_seed", "seed": 2**64},
        {"op": "rand", "shape": [2], "dtype": "float32"},
    ])

    # Random interleavings on both kinds of generator.
    pick = random.Random(20240611)
    for k in range(40):
        own = k % 2 == 1
        calls = []
        for _ in range(14):
            ops = ["rand", "randn", "randn", "normal_", "uniform_", "randint", "randperm", "bernoulli_"]
            op = pick.choice(ops + ([] if own else ["linear", "dropout"]))
            dt = pick.choice(floats)
            n = pick.choice([1, 2, 3, 5, 15, 16, 17, 33, pick.randrange(1, 300)])
            if op in ("rand", "randn"):
                calls.append({"op": op, "shape": [n], "dtype": dt})
            elif op == "normal_":
                calls.append({"op": op, "shape": [n], "mean": round(pick.uniform(-5, 5), 3),
                              "std": round(pick.uniform(0, 3), 3), "dtype": dt})
            elif op == "uniform_":
                lo = round(pick.uniform(-5, 5), 4)
                calls.append({"op": op, "shape": [n], "low": lo, "high": lo + round(pick.uniform(0, 5), 4),
                              "dtype": dt})
            elif op == "randint":
                lo = pick.randrange(-(2**pick.randrange(1, 40)), 100)
                calls.append({"op": op, "low": lo, "high": lo + pick.randrange(1, 2**pick.randrange(1, 40)),
                              "shape": [n], "dtype": "int64"})
            elif op == "randperm":
                calls.append({"op": op, "n": n, "dtype": "int64"})
            elif op == "bernoulli_":
                calls.append({"op": op, "shape": [n], "p": round(pick.random(), 3), "dtype": "float32"})
            elif op == "linear":
                calls.append({"op": op, "in_features": pick.randrange(1, 20),
                              "out_features": pick.randrange(1, 20), "bias": pick.random() < 0.8,
                              "dtype": "float32"})
            else:
                calls.append({"op": op, "shape": [n], "p": round(pick.uniform(0.05, 0.95), 2)})
        rec.case(f"interleave_{k}", pick.randrange(2**64), calls, own=own)

    # One case per line keeps diffs of the file readable.
    lines = ",\n".join(json.dumps(case, separators=(",", ":")) for case in rec.cases)
    OUT.write_text(f'{{"torch_version":{json.dumps(torch.__version__)},"cases":[\n{lines}\n]}}\n')
    print(f"wrote {len(rec.cases)} cases to {OUT}")


if __name__ == "__main__":
    main()
