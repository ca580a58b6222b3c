#!/usr/bin/env python3
"""The engine's and interpreter's cost, against PyTorch eager when it is installed.

Usage:  python benchmarks/engine.py [--nodes N] [--ops N] [--torch PYTHON]
(a) a chain of N nodes `y = y * 1.00001` then `y.backward()`: wall time and peak memory;
(b) N scalar ops in a loop then one backward: the per-op overhead of interpreter and engine.
Each workload is one gradcalc program run by `gradcalc`, and the same program run under
PyTorch by gradcalc/golden/reference.py with the Python given by --torch (skipped without it).
Times exclude start-up (the time of an empty program is subtracted); peak memory is the
whole process's.
"""
from __future__ import annotations

import argparse
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import time

REPO = pathlib.Path(__file__).resolve().parent.parent
REFERENCE = REPO / "gradcalc" / "golden" / "reference.py"

CHAIN = """\
x = tensor(1.0, requires_grad=True)
y = x
for i in range({n}):
    y = y * 1.00001
y.backward()
print(x.grad)
"""
SCALAR_OPS = """\
x = tensor(0.5, requires_grad=True)
acc = tensor(0.0)
for i in range({n} // 4):
    acc = acc + x * 0.5 - x / 3.0 + 0.1
acc.backward()
print(x.grad)
"""


def measure(command: list) -> tuple:
    """(seconds, peak resident MiB, stdout) of one run in a child process."""
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        start = time.perf_counter()
        child = subprocess.Popen(command, stdout=out, stderr=err)
        _, status, usage = os.wait4(child.pid, 0)  # this child's own peak memory
        seconds = time.perf_counter() - start
        child.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        if child.returncode != 0:
            raise SystemExit(f"{' '.join(command)} failed:\n{err.read()}")
        return seconds, usage.ru_maxrss / 1024, out.read().strip()


def timed_program(command: list, source: str) -> tuple:
    """(seconds, peak MiB, stdout) of running `source`, less the start-up time of an empty program."""
    paths = []
    try:
        for text in (source, "pass\n"):
            with tempfile.NamedTemporaryFile("w", suffix=".grad", delete=False) as handle:
                handle.write(text)
            paths.append(handle.name)
        # the best of three runs of each: the machine's other work only ever adds time
        runs = [measure(command + [paths[0]]) for _ in range(3)]
        start_up = min(measure(command + [paths[1]])[0] for _ in range(3))
        seconds = min(run[0] for run in runs)
        return seconds - start_up, max(run[1] for run in runs), runs[0][2]
    finally:
        for path in paths:
            os.unlink(path)


def run_workload(name: str, source: str, gradcalc: str, torch_python: str | None) -> None:
    seconds, peak, out = timed_program([gradcalc], source)
    print(f"{name}: gradcalc {seconds:7.2f} s, peak {peak:7.1f} MiB -> {out}")
    if torch_python:
        torch_seconds, torch_peak, torch_out = timed_program([torch_python, str(REFERENCE)], source)
        print(f"{name}: PyTorch  {torch_seconds:7.2f} s, peak {torch_peak:7.1f} MiB -> {torch_out}")
        print(f"{name}: ratio {seconds / torch_seconds:.2f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--nodes", type=int, default=100_000)
    parser.add_argument("--ops", type=int, default=20_000)
    parser.add_argument("--torch", help="a Python with torch installed")
    parser.add_argument("--gradcalc", default=shutil.which("gradcalc", path=os.path.dirname(sys.executable))
                        or shutil.which("gradcalc"))
    args = parser.parse_args()
    run_workload(f"(a) chain of {args.nodes:,} nodes", CHAIN.format(n=args.nodes), args.gradcalc, args.torch)
    run_workload(f"(b) {args.ops:,} scalar ops", SCALAR_OPS.format(n=args.ops), args.gradcalc, args.torch)


if __name__ == "__main__":
    main()
