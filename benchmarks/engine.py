#!/usr/bin/env python3
"""The engine's and interpreter's cost, against PyTorch eager when it is installed.

Usage:  python benchmarks/engine.py [--nodes N] [--ops N] [--torch PYTHON] [--only a|b]
(a) a chain of N nodes `y = y * 1.00001` then `y.backward()`: time and peak memory;
(b) N scalar ops in a loop then one backward: the per-op overhead of interpreter and engine.
(The polynomial fits of "Learning PyTorch with Examples" are benchmarks/realworld/polynomial_fits.py.)
Each workload is one gradcalc program run by `gradcalc`, and the same program run under
PyTorch by gradcalc/golden/reference.py with the Python given by --torch (skipped without it).
The program times itself (CPU time, which the machine's other work does not inflate as it does
wall time), so start-up is left out exactly; "end to end" is the CPU time of the whole process,
start-up included. Peak memory is the whole process's. Each figure is the best of three runs.
"""
from __future__ import annotations

import argparse
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile

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
# the workload between two readings of the process's CPU clock, printed last
TIMED = """\
import time as _time
_start = _time.process_time()
{source}print(f"workload: {{_time.process_time() - _start:.3f}}")
"""


def measure(command: list) -> tuple:
    """(CPU seconds of the whole process, peak resident MiB, stdout) of one run in a child process."""
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        child = subprocess.Popen(command, stdout=out, stderr=err)
        _, status, usage = os.wait4(child.pid, 0)  # this child's own time and peak memory
        child.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        if child.returncode != 0:
            raise SystemExit(f"{' '.join(command)} failed:\n{err.read()}")
        return usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, out.read().strip()


def timed_program(command: list, source: str) -> tuple:
    """(workload seconds, end-to-end seconds, peak MiB, stdout without the timing) of `source`,
    the best of three runs."""
    with tempfile.NamedTemporaryFile("w", suffix=".grad", delete=False) as handle:
        handle.write(TIMED.format(source=source))
    try:
        runs = [measure(command + [handle.name]) for _ in range(3)]
    finally:
        os.unlink(handle.name)
    workload = min(float(out.rsplit("workload: ", 1)[1]) for _, _, out in runs)
    stdout = runs[0][2].rsplit("workload: ", 1)[0].strip()
    return workload, min(run[0] for run in runs), max(run[1] for run in runs), stdout


def run_workload(name: str, source: str, gradcalc: str, torch_python: str | None) -> None:
    seconds, end_to_end, peak, out = timed_program([gradcalc], source)
    print(f"{name}: gradcalc {seconds:7.2f} s ({end_to_end:.2f} s end to end), peak {peak:7.1f} MiB "
          f"-> {_last_line(out)}")
    if torch_python:
        torch_seconds, torch_end_to_end, torch_peak, torch_out = timed_program([torch_python, str(REFERENCE)],
                                                                               source)
        print(f"{name}: PyTorch  {torch_seconds:7.2f} s ({torch_end_to_end:.2f} s end to end), peak "
              f"{torch_peak:7.1f} MiB -> {_last_line(torch_out)}")
        print(f"{name}: ratio {seconds / torch_seconds:.2f}x time ({end_to_end / torch_end_to_end:.2f}x end to "
              f"end), {peak / torch_peak:.2f}x peak memory" + ("" if _masked(out) == _masked(torch_out) else "; the outputs differ"))


def _masked(out: str) -> str:
    """The output with memory addresses masked (an echoed object's repr holds one)."""
    return re.sub(r"0x[0-9a-fA-F]+", "0x", out)


def _last_line(out: str) -> str:
    return out.splitlines()[-1] if out else out


def workload_parser(description: str) -> argparse.ArgumentParser:
    """The options every benchmark takes: --torch (run each workload under PyTorch too) and --gradcalc."""
    parser = argparse.ArgumentParser(description=description, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--torch", help="a Python with torch installed")
    parser.add_argument("--gradcalc", default=shutil.which("gradcalc", path=os.path.dirname(sys.executable))
                        or shutil.which("gradcalc"))
    return parser


def main() -> None:
    parser = workload_parser(__doc__)
    parser.add_argument("--nodes", type=int, default=100_000)
    parser.add_argument("--ops", type=int, default=20_000)
    parser.add_argument("--only", choices=("a", "b"), help="run one workload")
    args = parser.parse_args()
    workloads = {
        "a": (f"(a) chain of {args.nodes:,} nodes", CHAIN.format(n=args.nodes)),
        "b": (f"(b) {args.ops:,} scalar ops", SCALAR_OPS.format(n=args.ops)),
    }
    for key, (name, source) in workloads.items():
        if args.only in (None, key):
            run_workload(name, source, args.gradcalc, args.torch)


if __name__ == "__main__":
    main()
