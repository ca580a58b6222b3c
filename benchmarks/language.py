#!/usr/bin/env python3
"""Program code in gradcalc against plain CPython: the compiled language's speed.

Usage:  python benchmarks/language.py [--runs N]
Each workload is one program run by `gradcalc FILE` and by `python FILE` (the Python gradcalc
is installed in), which times itself with time.process_time (CPU time, which the machine's other
work inflates less than wall time; start-up is not counted); the figure is the best of N runs.
(a) a million additions in a loop; (b) 200,000 calls of a program's function; (c) a
micrograd `Value` MLP (2-16-16-1, 20 points) trained for 40 steps, the program of
tests/golden/python/micrograd/13_demo_svm_training.grad with the demo notebook's network.
"""
from __future__ import annotations

import argparse
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile

REPO = pathlib.Path(__file__).resolve().parent.parent
MICROGRAD = REPO / "tests" / "golden" / "python" / "micrograd" / "13_demo_svm_training.grad"

ADDITIONS = """\
total = 0
for i in range(1000000):
    total = total + i
"""
CALLS = """\
def step(x, y):
    return x * y + 1

acc = 0
for i in range(200000):
    acc = step(i, 2) - acc
"""
TIMED = "import time as _clock\n_started = _clock.process_time()\n{program}\nprint(_clock.process_time() - _started)\n"


def micrograd_program() -> str:
    """The demo's training with the demo notebook's network (2-16-16-1), for 40 steps."""
    source = MICROGRAD.read_text(encoding="utf-8")
    for old, new in (("MLP(2, [8, 8, 1])", "MLP(2, [16, 16, 1])"), ("for k in range(15):", "for k in range(40):")):
        assert old in source, old
        source = source.replace(old, new)
    return source


def best_seconds(command: list, runs: int) -> float:
    """The best of the times the program reports."""
    return min(float(subprocess.run(command, capture_output=True, text=True, check=True).stdout.split()[-1])
               for _ in range(runs))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--gradcalc", default=shutil.which("gradcalc", path=os.path.dirname(sys.executable))
                        or shutil.which("gradcalc"))
    args = parser.parse_args()
    workloads = {"(a) 1,000,000 additions": ADDITIONS, "(b) 200,000 calls of a function": CALLS,
                 "(c) micrograd MLP, 40 steps": micrograd_program()}
    with tempfile.TemporaryDirectory() as folder:
        print(f"{'workload':36} {'gradcalc':>10} {'CPython':>10} {'ratio':>7}")
        for name, source in workloads.items():
            program = pathlib.Path(folder, "program.grad")
            program.write_text(TIMED.format(program=source))
            ours = best_seconds([args.gradcalc, str(program)], args.runs)
            theirs = best_seconds([sys.executable, str(program)], args.runs)
            print(f"{name:36} {ours:9.3f}s {theirs:9.3f}s {ours / theirs:6.2f}x")


if __name__ == "__main__":
    main()
