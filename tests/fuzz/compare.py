#!/usr/bin/env python3
"""Differential fuzzing: run generated programs through gradcalc and through real PyTorch.

Usage:  python tests/fuzz/compare.py --torch /tmp/torch/bin/python [--seed N] [--count N] [--out DIR]

Programs come from generate.py. gradcalc runs them in-process (a fresh Session after
reset_global_state for each); PyTorch runs them through oracle_driver.py (one torch import,
one forked child per program, the rules of gradcalc/golden/reference.py). Outputs are compared as
test_golden does (memory addresses masked; a syntax error only by its first word). Each
mismatch is written to DIR/<seed>_<index>.grad with DIR/<seed>_<index>.diff.json holding both
answers; a summary of mismatches by first differing line goes to stdout.
"""
from __future__ import annotations

import argparse
import collections
import io
import json
import re
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from generate import programs  # noqa: E402

from gradcalc.session import Session, TextOutput, reset_global_state  # noqa: E402

ADDRESS = re.compile(r"0x[0-9a-fA-F]+")
# the names tempfile draws at random (`/tmp/tmpk3j_x9a1.txt`): another in each run, as an address
TEMPORARY = re.compile(r"(?<=/tmp/)tmp[a-z0-9_]{8}")
TIMEOUT = 20
# Python's and numpy's own errors, which PyTorch's code seldom raises: one of them where PyTorch
# raised something else is gradcalc's code failing, not a wording
PYTHON_ERRORS = ("ValueError", "AttributeError", "KeyError", "TypeError", "ZeroDivisionError", "NameError",
                 "UnboundLocalError", "OverflowError", "RecursionError", "AssertionError", "StopIteration",
                 "IndexError", "NotImplementedError", "MemoryError", "FloatingPointError", "SystemError",
                 "LinAlgError", "numpy.linalg.LinAlgError")
# the first line of an error as the runners print it (`ErrorType: message`); a message's later
# lines (PyTorch's lists of signatures, say) start otherwise
ERROR_START = re.compile(r"^[A-Za-z_][\w.]*(?:Error|Exception|Exit|Interrupt|Iteration|Warning)(?::|$)", re.MULTILINE)


def run_gradcalc(source: str) -> dict:
    reset_global_state()
    stdout, stderr = io.StringIO(), io.StringIO()

    def too_long(*_):
        raise TimeoutError("gradcalc took too long")

    signal.signal(signal.SIGALRM, too_long)
    signal.alarm(TIMEOUT)
    session = None
    try:
        session = Session(TextOutput(stdout, stderr))
        ok = session.run(source, "fuzz.grad")
    except BaseException as error:  # a failure escaping the Session is itself a bug to report ...
        # ... but this run's own alarm, landing after the program's error (while freeing what it filled
        # the memory with), is a time-out
        own_alarm = type(error) is TimeoutError and str(error) == "gradcalc took too long"
        stderr.write(f"{'' if own_alarm else 'ESCAPED '}{type(error).__name__}: {error}\n")
        ok = False
    finally:
        signal.alarm(0)
    # the status the command line ends with (runner.run): sys.exit()'s own, else the run's
    status = session.exit_status if session is not None else None
    # the program's objects go before the answer is built: a program that filled the memory
    # ceiling would leave none for it (those in reference cycles stay: collecting them under a
    # full ceiling may crash the process)
    session = None
    rc = status if status is not None else 0 if ok else 1
    return {"stdout": stdout.getvalue(), "stderr": stderr.getvalue(), "rc": rc}


def _masked(text: str) -> str:
    # tempfile's names first: one may hold "0x" and hex digits, which the address mask would cut
    return ADDRESS.sub("0x?", TEMPORARY.sub("tmp?", text))


def normal(answer: dict) -> dict:
    stderr = _masked(answer["stderr"])
    # a syntax error by its first word, wherever its message puts it (PyTorch's runner prints the
    # source line and its carets first)
    if stderr.startswith("SyntaxError:") or error_type(final_error(stderr)) == "SyntaxError":
        stderr = "SyntaxError:"
    return {"stdout": _masked(answer["stdout"]), "stderr": stderr, "rc": answer["rc"]}


MISSING = re.compile(r"AttributeError: (?:module '[\w.]+'|'Tensor' object) has no attribute '(\w+)'")


# gradcalc failing itself: a traceback, its "internal error", an error escaping the Session, a
# forked run ended by a signal (mutate.py's)
FAILURE_MARKS = ("Traceback", "internal error", "ESCAPED", "KILLED")


def failure_marked(expected: dict, got: dict) -> bool:
    """Whether gradcalc's stderr has a mark of its own failure more often than PyTorch's (a traceback
    the program printed itself, with `logging.exception`, is in both)."""
    return any(got["stderr"].count(mark) > expected["stderr"].count(mark) for mark in FAILURE_MARKS)


def internal_looking(expected: dict, got: dict) -> bool:
    """A mark of gradcalc's own failure, or a Python error where PyTorch gave another."""
    stderr = got["stderr"]
    if failure_marked(expected, got):
        return True
    error = error_type(final_error(stderr))
    return (error in PYTHON_ERRORS or error.startswith("numpy.")) and error_type(final_error(expected["stderr"])) != error


def final_error(stderr: str) -> str:
    """The error that ended a run, all its lines (a program's last output on stderr); '' if none.
    A message of several lines is one error: its type is on the first."""
    text = stderr.rstrip()
    starts = [match.start() for match in ERROR_START.finditer(text)]
    if starts:
        return text[starts[-1]:]
    return text.rsplit("\n", 1)[-1]


def error_type(error: str) -> str:
    return error.split("\n", 1)[0].split(":", 1)[0]


def first_difference(expected: dict, got: dict) -> str:
    missing = MISSING.search(got["stderr"])
    if missing and missing.group(0) not in expected["stderr"]:
        return f"missing: {missing.group(1)}"  # an operation gradcalc lacks: one cause whatever torch said
    for stream in ("stderr", "stdout"):
        want, have = expected[stream].splitlines(), got[stream].splitlines()
        for index in range(max(len(want), len(have))):
            w = want[index] if index < len(want) else "<none>"
            h = have[index] if index < len(have) else "<none>"
            if w != h:
                return f"{stream}: torch {w[:100]!r} / gradcalc {h[:100]!r}"
    return f"rc: torch {expected['rc']} / gradcalc {got['rc']}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--torch", default="/tmp/torch/bin/python", help="a Python with torch 2.13")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--count", type=int, default=200)
    parser.add_argument("--out", type=Path, default=Path("/tmp/gradcalc-fuzz"))
    args = parser.parse_args()
    sources = programs(args.seed, args.count)
    with tempfile.TemporaryDirectory() as tmp:
        inputs, outputs = Path(tmp) / "in.json", Path(tmp) / "out.json"
        inputs.write_text(json.dumps(sources), encoding="utf-8")
        oracle = subprocess.Popen([args.torch, str(HERE / "oracle_driver.py"), str(inputs), str(outputs)])
        mine = [run_gradcalc(source) for source in sources]
        oracle.wait()
        theirs = json.loads(outputs.read_text(encoding="utf-8"))
    args.out.mkdir(parents=True, exist_ok=True)
    causes = collections.Counter()
    mismatches = internal = 0
    for index, (source, expected, got) in enumerate(zip(sources, theirs, mine)):
        expected, got = normal(expected), normal(got)
        bad = internal_looking(expected, got)
        if expected == got and not bad:
            continue
        mismatches += 1
        internal += bad
        cause = first_difference(expected, got) if expected != got else f"internal: {got['stderr'][:100]!r}"
        causes[cause] += 1
        stem = args.out / f"{args.seed}_{index}"
        stem.with_suffix(".grad").write_text(source, encoding="utf-8")
        stem.with_suffix(".diff.json").write_text(json.dumps({"torch": expected, "gradcalc": got, "cause": cause},
                                                             indent=1), encoding="utf-8")
    print(f"seed {args.seed}: {len(sources)} programs, {mismatches} mismatches, {internal} internal-looking")
    for cause, count in causes.most_common():
        print(f"{count:5d}  {cause}")


if __name__ == "__main__":
    main()
