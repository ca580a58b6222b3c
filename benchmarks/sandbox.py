#!/usr/bin/env python3
"""What the sandbox's OS wall costs: `gradcalc -e 1` against `python -c "import numpy"` (its
start-up budget, the jail included), the jail's own time in a started process, a REPL round trip
(`1 + 1` answered by a warm jailed worker, against the same input run in-process), and a golden
program in a jailed child of the pytest process against one run in-process.

Usage:  python benchmarks/sandbox.py [--runs N] [--gradcalc PATH]
Prints medians of wall time and, where the machine's load would blur them, CPU time too.
"""
from __future__ import annotations

import argparse
import io
import os
import resource
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from startup import median_seconds  # noqa: E402 (the start-up benchmark's way of timing a command)

GOLDEN = Path(__file__).resolve().parent.parent / "tests" / "golden" / "language"


def jail_ms(runs: int) -> float:
    code = ("import time, numpy, gradcalc.session; start = time.process_time(); import gradcalc.jail; "
            "gradcalc.jail.apply(); print(time.process_time() - start)")
    # BLAS on one thread, as gradcalc runs it: Landlock holds no thread started before it
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "1"}
    return statistics.median(float(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                                                  check=True, env=env).stdout) for _ in range(runs)) * 1000


def round_trip_ms(runs: int) -> tuple[float, float]:
    """Medians of `1 + 1` answered by a warm worker, and run by a Session in this process."""
    from gradcalc.session import Session, TextOutput
    from gradcalc.worker.client import Worker

    worker = Worker(capture=True)
    worker.start()
    try:
        worker.run("1 + 1")
        remote = []
        for _ in range(runs):
            start = time.perf_counter()
            worker.run("1 + 1")
            remote.append(time.perf_counter() - start)
    finally:
        worker.close()
    session = Session(TextOutput(io.StringIO(), io.StringIO()))
    local = []
    for _ in range(runs):
        start = time.perf_counter()
        session.run("1 + 1")
        local.append(time.perf_counter() - start)
    return statistics.median(remote) * 1000, statistics.median(local) * 1000


def _cpu() -> float:
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def golden_ms(count: int) -> tuple[tuple[float, float], tuple[float, float]]:
    """(wall, CPU) per program: in jailed children (the pytest plugin's way), and in-process."""
    from gradcalc.session import Session, TextOutput, reset_global_state
    from gradcalc.worker.zygote import run_in_child

    programs = [(path.read_text(encoding="utf-8"), path.name) for path in sorted(GOLDEN.rglob("*.grad"))[:count]]
    run_in_child("1", "warm")
    cpu, start = _cpu(), time.perf_counter()
    for source, name in programs:
        run_in_child(source, name)
    jailed = ((time.perf_counter() - start) / count * 1000, (_cpu() - cpu) / count * 1000)
    cpu, start = _cpu(), time.perf_counter()
    for source, name in programs:
        reset_global_state()
        Session(TextOutput(io.StringIO(), io.StringIO())).run(source, name)
    local = ((time.perf_counter() - start) / count * 1000, (_cpu() - cpu) / count * 1000)
    return jailed, local


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=21)
    parser.add_argument("--gradcalc", default=shutil.which("gradcalc", path=os.path.dirname(sys.executable))
                        or shutil.which("gradcalc"))
    args = parser.parse_args()
    numpy_time = median_seconds([sys.executable, "-c", "import numpy"], args.runs) * 1000
    gradcalc_time = median_seconds([args.gradcalc, "-e", "1"], args.runs) * 1000
    print(f"python -c 'import numpy':  {numpy_time:6.1f} ms (median of {args.runs})")
    print(f"gradcalc -e 1 (jailed):    {gradcalc_time:6.1f} ms, {gradcalc_time / numpy_time:.2f}x (target: 1.5x)")
    print(f"the jail itself:           {jail_ms(args.runs):6.1f} ms CPU (gradcalc.jail.apply in a started process)")
    remote, local = round_trip_ms(args.runs * 10)
    print(f"REPL round trip of 1 + 1:  {remote:6.2f} ms in a warm worker, {local:6.2f} ms in-process "
          f"(target: within 20 ms)")
    (jailed_wall, jailed_cpu), (local_wall, local_cpu) = golden_ms(args.runs * 4)
    print(f"a golden program:          {jailed_wall:6.1f} ms wall, {jailed_cpu:.1f} ms CPU in a jailed child; "
          f"{local_wall:.1f} ms wall, {local_cpu:.1f} ms CPU in-process ({args.runs * 4} programs)")


if __name__ == "__main__":
    main()
