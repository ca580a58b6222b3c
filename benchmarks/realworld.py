#!/usr/bin/env python3
"""Real material under gradcalc and under PyTorch, side by side: the ratio of their own times.

Usage:  python benchmarks/realworld.py --torch PYTHON [--runs N] [NAME ...]
Each program in benchmarks/realworld/ is a shortened but faithful copy of a published one (its
first lines say which and what was shortened). It runs as `gradcalc FILE` and as `PYTHON FILE`
(PYTHON a Python with torch 2.13), times itself with time.process_time (CPU time, which the
machine's other work inflates less than wall time; start-up and imports are not counted) and
prints that time last, as "seconds T". Both run with OMP_NUM_THREADS=1 unless it is set (PyTorch
on one thread, as gradcalc's BLAS). Runs alternate between the two, so a busy machine's load
falls on both alike; the figure is the median of N runs. The two runs' printed answers are
compared too: a workload whose answers differ is marked.
"""
from __future__ import annotations

import argparse
import os
import pathlib
import shutil
import statistics
import subprocess
import sys

HERE = pathlib.Path(__file__).resolve().parent / "realworld"


def timed_run(command: list) -> tuple[float, str]:
    """The time the program reports, and what it printed before it."""
    environment = {"OMP_NUM_THREADS": "1", **os.environ}
    out = subprocess.run(command, capture_output=True, text=True, check=True, env=environment).stdout
    answers, _, last = out.rstrip("\n").rpartition("\n")
    return float(last.split()[-1]), answers


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("names", nargs="*", help="workloads to run (file stems); all by default")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--torch", required=True, help="a Python with torch 2.13")
    parser.add_argument("--gradcalc", default=shutil.which("gradcalc", path=os.path.dirname(sys.executable))
                        or shutil.which("gradcalc"))
    args = parser.parse_args()
    programs = sorted(HERE.glob("*.py"))
    if args.names:
        programs = [p for p in programs if p.stem in args.names]
    print(f"{'workload':28} {'gradcalc':>10} {'PyTorch':>10} {'ratio':>7}")
    for program in programs:
        ours, theirs, same = [], [], True
        for _ in range(args.runs):
            seconds, our_answers = timed_run([args.gradcalc, str(program)])
            ours.append(seconds)
            seconds, their_answers = timed_run([args.torch, str(program)])
            theirs.append(seconds)
            same = same and our_answers == their_answers
        mine, torch = statistics.median(ours), statistics.median(theirs)
        note = "" if same else "  (answers differ)"
        print(f"{program.stem:28} {mine:9.2f}s {torch:9.2f}s {mine / torch:6.2f}x{note}", flush=True)


if __name__ == "__main__":
    main()
