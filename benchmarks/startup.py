#!/usr/bin/env python3
"""How long `gradcalc -e` takes to answer, against `python3 -c "import numpy"` on this machine.

Usage:  python benchmarks/startup.py [--runs N] [--gradcalc PATH]
Measure a non-editable install (`pip install .`): with PYTHONDONTWRITEBYTECODE=1 an editable
install recompiles every module at each start. Prints the median wall time of each and their ratio.
"""
from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import time

PROGRAM = "x = tensor(3.0, requires_grad=True); y = x**2+3*x+2; y.backward(); x.grad"


def median_seconds(command: list, runs: int) -> float:
    subprocess.run(command, capture_output=True, check=True)  # warm the file cache and the parser cache
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(command, capture_output=True, check=True)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=21)
    parser.add_argument("--gradcalc", default=shutil.which("gradcalc", path=os.path.dirname(sys.executable))
                        or shutil.which("gradcalc"))
    args = parser.parse_args()
    numpy_time = median_seconds([sys.executable, "-c", "import numpy"], args.runs)
    gradcalc_time = median_seconds([args.gradcalc, "-e", PROGRAM], args.runs)
    print(f"python -c 'import numpy': {numpy_time * 1000:6.1f} ms (median of {args.runs})")
    print(f"gradcalc -e '{PROGRAM[:30]}...': {gradcalc_time * 1000:6.1f} ms (median of {args.runs})")
    print(f"ratio: {gradcalc_time / numpy_time:.2f}x (target: at most 1.5x)")


if __name__ == "__main__":
    main()
