#!/usr/bin/env python3
"""The parser on a large source: time and peak memory of parsing it and making every statement's
tree, as a run does.

Usage:  python benchmarks/parser.py [--megabytes N]
The source is real material repeated to N MB (default 5): the functions and classes of
benchmarks/realworld/ and of the micrograd golden programs, with their imports once at the top.
Four variants: (a) valid, parsed by CPython's parser; (b) the same with a syntax error at its
end; (c) with a `match` statement at its end, which the grammar words gradcalc's error for; (d)
with a line only the grammar takes (`match = 1`: the word may start a `match` statement). Each is parsed in a fresh process; wall and CPU time, peak resident
memory.
"""
from __future__ import annotations

import argparse
import ast
import os
import pathlib
import subprocess
import sys
import tempfile

REPO = pathlib.Path(__file__).resolve().parent.parent
MATERIAL = sorted((REPO / "benchmarks" / "realworld").glob("*.py")) + sorted(
    (REPO / "tests" / "golden" / "python" / "micrograd").glob("*.grad"))
ENDINGS = {"(a) valid": "", "(b) a syntax error at the end": "x = (1,\ny = 2 +\n",
           "(c) a match statement at the end": "match x:\n    case 1:\n        pass\n",
           "(d) `match = ...` at the end": "match = 1\n"}
MEASURE = """\
import resource, sys, time
from gradcalc.language.parser import GradcalcSyntaxError, parse
source = open(sys.argv[1], encoding="utf-8").read()
wall, cpu = time.perf_counter(), time.process_time()
try:
    outcome = f"{sum(1 for _ in parse(source).statements())} statements"
except GradcalcSyntaxError as error:
    outcome = f"SyntaxError: {error}"
print(outcome, time.perf_counter() - wall, time.process_time() - cpu,
      resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, sep="\\t")
"""


def real_material() -> tuple[str, str]:
    """(the imports, the top-level functions and classes) of the material, in their own text."""
    imports: list = []
    definitions: list = []
    for path in MATERIAL:
        text = path.read_text(encoding="utf-8")
        lines = text.splitlines(keepends=True)
        for node in ast.parse(text).body:
            first = node.decorator_list[0].lineno if getattr(node, "decorator_list", None) else node.lineno
            segment = "".join(lines[first - 1:node.end_lineno])
            if isinstance(node, (ast.Import, ast.ImportFrom)) and segment not in imports:
                imports.append(segment)
            elif isinstance(node, (ast.FunctionDef, ast.ClassDef)):
                definitions.append(segment + "\n\n")
    return "".join(imports) + "\n", "".join(definitions)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--megabytes", type=float, default=5.0)
    args = parser.parse_args()
    print("load average before: {:.2f} {:.2f} {:.2f}".format(*os.getloadavg()))
    head, unit = real_material()
    source = head + unit * max(1, round((args.megabytes * 1e6 - len(head)) / len(unit)))
    print(f"source: {len(source) / 1e6:.1f} MB, {source.count(chr(10)):,} lines")
    print(f"{'variant':36} {'wall':>7} {'CPU':>7} {'peak':>9}  outcome")
    with tempfile.TemporaryDirectory() as folder:
        for name, ending in ENDINGS.items():
            program = pathlib.Path(folder, "program.grad")
            program.write_text(source + ending, encoding="utf-8")
            result = subprocess.run([sys.executable, "-c", MEASURE, str(program)], capture_output=True, text=True,
                                    check=True)
            outcome, wall, cpu, peak = result.stdout.rstrip("\n").split("\t")
            print(f"{name:36} {float(wall):6.2f}s {float(cpu):6.2f}s {float(peak):5.0f} MiB  {outcome}")


if __name__ == "__main__":
    main()
