#!/usr/bin/env python3
"""How long gradcalc takes to start on this machine: `gradcalc -e` against `python3 -c "import numpy"`,
and the REPL on a pseudo-terminal (its first prompt, and its answer to a first input typed at once)
beside Python's own (`python3 -i`).

Usage:  python benchmarks/startup.py [--runs N] [--gradcalc PATH]
Measure a non-editable install (`pip install .`): with PYTHONDONTWRITEBYTECODE=1 an editable
install recompiles every module at each start. Prints the median wall time of each.
"""
from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from terminal import Terminal, gradcalc_environment  # noqa: E402 (the tests' pseudo-terminal)

PROGRAM = "x = tensor(3.0, requires_grad=True); y = x**2+3*x+2; y.backward(); x.grad"


def median_seconds(command: list, runs: int) -> float:
    subprocess.run(command, capture_output=True, check=True)  # warm the file cache and the parser cache
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(command, capture_output=True, check=True)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def repl_seconds(command: list, runs: int) -> tuple[float, float]:
    """Medians of (the first prompt shown, the answer to `1 + 1` typed as soon as it shows)."""
    prompts, answers = [], []
    with tempfile.TemporaryDirectory() as data_home:
        for run in range(runs + 1):  # the first run warms the file cache
            start = time.perf_counter()
            terminal = Terminal(command, gradcalc_environment(Path(data_home)))
            try:
                terminal.expect(">>>")
                shown = time.perf_counter()
                terminal.send("1 + 1\r")
                terminal.expect("\n2\n")
                answered = time.perf_counter()
                terminal.expect(">>>")
                terminal.send("\x04")
                terminal.wait()
            finally:
                terminal.close()
            if run:
                prompts.append(shown - start)
                answers.append(answered - start)
    return statistics.median(prompts), statistics.median(answers)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=21)
    parser.add_argument("--gradcalc", default=shutil.which("gradcalc", path=os.path.dirname(sys.executable))
                        or shutil.which("gradcalc"))
    args = parser.parse_args()
    print("load average before: {:.2f} {:.2f} {:.2f}".format(*os.getloadavg()))
    numpy_time = median_seconds([sys.executable, "-c", "import numpy"], args.runs)
    gradcalc_time = median_seconds([args.gradcalc, "-e", PROGRAM], args.runs)
    print(f"python -c 'import numpy': {numpy_time * 1000:6.1f} ms (median of {args.runs})")
    print(f"gradcalc -e '{PROGRAM[:30]}...': {gradcalc_time * 1000:6.1f} ms (median of {args.runs})")
    print(f"ratio: {gradcalc_time / numpy_time:.2f}x (target: at most 1.5x)")
    for name, command, target in (("gradcalc", [args.gradcalc], "; target: at most 300 ms"),
                                  ("python3 -i", [sys.executable, "-i"], "")):
        prompt_time, answer_time = repl_seconds(command, args.runs)
        print(f"{name} (REPL) first prompt: {prompt_time * 1000:6.1f} ms, answer to '1 + 1' typed at once: "
              f"{answer_time * 1000:6.1f} ms (medians of {args.runs}{target})")


if __name__ == "__main__":
    main()
