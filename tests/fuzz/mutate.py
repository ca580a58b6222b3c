#!/usr/bin/env python3
"""Mutation fuzzing from real programs: the project's golden programs, each changed in one to
three places, run under gradcalc and, with --torch, under real PyTorch.

Usage:  python tests/fuzz/mutate.py [--torch PYTHON] [--seed N] [--count N] [--out DIR]

The golden programs are snippets from PyTorch's docs, tutorials and books; a mutation changes one
node of a program's syntax tree: a number becomes an edge value (0, -1, 2**63, 10**20, nan, None,
a tuple, a string), a call loses, repeats or swaps an argument or gets a stray keyword, a dtype
becomes another. Most mutants fail, in PyTorch as in gradcalc, and how they fail is the test:

* internal: gradcalc failed itself (a traceback, `gradcalc: internal error`, an error escaping
  the session, a Python error where PyTorch raised another);
* wording: both ended in the same error type (or warning category) but other words (all the
  lines of a message of several);
* mismatch: any other difference from PyTorch (needs --torch);
* resources: gradcalc ran out of memory under its ceiling (--max-memory) or out of time;
* unanswered: PyTorch's own run was ended by its time-out.

Counts are given per 10,000 programs; each finding goes to DIR/<seed>_<index>.grad with its
answers in .diff.json. The same seed always gives the same mutants (`mutants(seed, count)`).
tests/test_fuzz_mutations.py runs a few in CI against PyTorch's answers recorded with --record.
"""
from __future__ import annotations

import argparse
import ast
import collections
import gc
import json
import os
import random
import re
import subprocess
import sys
import tempfile
import warnings
from pathlib import Path
from typing import Optional

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
sys.path.insert(0, str(HERE))
from gradcalc.language import limits  # noqa: E402
from compare import (FAILURE_MARKS, error_type, final_error, failure_marked, first_difference,  # noqa: E402
                     internal_looking, normal, run_gradcalc)

# programs of this size at most: the long ones train models, and a mutant of them runs for long
MAX_SOURCE = 1500
EDGE_VALUES = ("0", "-1", "1", "2", "3", "2**31", "2**63", "-2**63 - 1", "10**20", "0.0", "-0.5", "1e308",
               "float('nan')", "float('inf')", "True", "False", "None", "(1, 2)", "[]", "'a'", "tensor([1., 2.])",
               "torch.float16", "torch.int64", "torch.bool")
DTYPES = ("float16", "bfloat16", "float32", "float64", "int8", "uint8", "int32", "int64", "bool", "complex64")


# the regression programs of what fuzzing and issues found: probes of errors, not snippets, and
# growing with each fix, which would change every seed's mutants
NOT_SEEDS = ("answers", "fuzz_found")


def seed_programs() -> list:
    """The golden programs short enough to mutate, in a fixed order."""
    golden = REPO / "tests" / "golden"
    found = sorted(path for path in golden.rglob("*.grad") if path.relative_to(golden).parts[0] not in NOT_SEEDS)
    found += sorted((REPO / "examples").glob("*.grad"))
    sources = []
    for path in found:
        text = path.read_text(encoding="utf-8")
        if len(text) <= MAX_SOURCE:
            try:
                with warnings.catch_warnings():  # programs about invalid escapes warn as they parse
                    warnings.simplefilter("ignore")
                    ast.parse(text)
            except SyntaxError:  # the syntax error programs: nothing to mutate
                continue
            sources.append(text)
    return sources


class _Sites(ast.NodeVisitor):
    """The nodes a mutation may change."""

    def __init__(self) -> None:
        self.constants: list = []
        self.calls: list = []
        self.dtypes: list = []

    def visit_Constant(self, node: ast.Constant) -> None:
        if isinstance(node.value, (int, float)):
            self.constants.append(node)

    def visit_Call(self, node: ast.Call) -> None:
        self.calls.append(node)
        self.generic_visit(node)

    def visit_Attribute(self, node: ast.Attribute) -> None:
        if node.attr in DTYPES and isinstance(node.value, ast.Name) and node.value.id == "torch":
            self.dtypes.append(node)
        self.generic_visit(node)


class _Replace(ast.NodeTransformer):
    def __init__(self, target: ast.AST, replacement: ast.expr) -> None:
        self.target, self.replacement = target, replacement

    def visit_Constant(self, node: ast.Constant) -> ast.expr:
        return self.replacement if node is self.target else node


def _expression(text: str) -> ast.expr:
    return ast.parse(text, mode="eval").body


def _mutate_once(tree: ast.Module, rng: random.Random) -> bool:
    """Change one node of `tree` in place; False if it has nothing to change."""
    sites = _Sites()
    sites.visit(tree)
    kinds = [kind for kind, found in (("constant", sites.constants), ("call", sites.calls),
                                      ("dtype", sites.dtypes)) if found]
    if not kinds:
        return False
    kind = rng.choice(kinds)
    if kind == "constant":
        _Replace(rng.choice(sites.constants), _expression(rng.choice(EDGE_VALUES))).visit(tree)
    elif kind == "dtype":
        rng.choice(sites.dtypes).attr = rng.choice(DTYPES)
    else:
        _mutate_call(rng.choice(sites.calls), rng)
    return True


def _mutate_call(call: ast.Call, rng: random.Random) -> None:
    args = call.args
    choice = rng.randrange(5)
    if choice == 0 and args:
        args.pop(rng.randrange(len(args)))
    elif choice == 1 and args:
        args.insert(rng.randrange(len(args) + 1), args[rng.randrange(len(args))])
    elif choice == 2 and len(args) >= 2:
        i, j = rng.sample(range(len(args)), 2)
        args[i], args[j] = args[j], args[i]
    elif choice == 3 and call.keywords:
        call.keywords.pop(rng.randrange(len(call.keywords)))
    else:
        name = rng.choice(("foo", "dim", "dtype", "out", "inplace", "requires_grad", "keepdim"))
        call.keywords.append(ast.keyword(arg=name, value=_expression(rng.choice(EDGE_VALUES))))


def mutants(seed: int, count: int) -> list:
    """`count` mutated programs, the same ones for the same seed."""
    rng = random.Random(seed)
    sources = seed_programs()
    result = []
    while len(result) < count:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tree = ast.parse(rng.choice(sources))
        changed = sum(_mutate_once(tree, rng) for _ in range(rng.randint(1, 3)))
        if not changed:
            continue
        ast.fix_missing_locations(tree)
        try:
            text = ast.unparse(tree) + "\n"
        except (ValueError, TypeError, AttributeError, RecursionError):  # a mutant ast cannot print
            continue
        result.append(text)
    return result


def torch_answers(python: str, sources: list) -> list:
    """PyTorch's answers, one forked child of one torch import per program (oracle_driver.py)."""
    with tempfile.TemporaryDirectory() as tmp:
        inputs, outputs = Path(tmp) / "in.json", Path(tmp) / "out.json"
        inputs.write_text(json.dumps(sources), encoding="utf-8")
        subprocess.run([python, str(HERE / "oracle_driver.py"), str(inputs), str(outputs)], check=True)
        return json.loads(outputs.read_text(encoding="utf-8"))


# the C++ backtrace some PyTorch messages carry (THPUtils_unpackLong's): gradcalc gives their first line
BACKTRACE = re.compile(r"\nException raised from .*?\n\"", re.DOTALL)
# a traceback's frame in a file other than the program's (Python's own, the oracle runner's), with the
# lines it quotes: a traceback gradcalc prints (logging's) shows the program's frames only
OTHER_FRAME = re.compile(r'^  File "(?!fuzz\.grad")[^"\n]*", line \d+, in .*\n(?:    .*\n)*', re.MULTILINE)


def without_backtraces(answer: dict) -> dict:
    return {key: OTHER_FRAME.sub("", BACKTRACE.sub("", value)) if isinstance(value, str) else value
            for key, value in answer.items()}




def run_isolated(source: str) -> dict:
    """gradcalc's answer to `source` from a forked child: a crash, a hang past the time-out or a
    state the program leaves behind (the audit hook's wall) ends with the child, not the fuzzer;
    a child ended by a signal answers `KILLED by signal N`."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read)
        # opened before the program runs: a wall its run leaves up (a time-out landing in a
        # collection's callback) refuses to open a file for writing, and the answer would be lost
        out = os.fdopen(write, "wb")
        try:
            try:
                answer = json.dumps(_kept(run_gradcalc(source), COMPARED_CHARACTERS)).encode("utf-8")
            except MemoryError:  # a graph grown to the ceiling, still held by its cycles, leaves no room for it
                gc.collect()
                answer = json.dumps({"stdout": "", "stderr": f"{OUT_OF_ROOM}\n", "rc": 1}).encode("utf-8")
            with out:
                out.write(answer)
        finally:
            os._exit(0)
    os.close(write)
    with os.fdopen(read, "rb") as answer_pipe:
        answer = answer_pipe.read()
    _, status = os.waitpid(pid, 0)
    if os.WIFSIGNALED(status) or not answer:
        signal_number = os.WTERMSIG(status) if os.WIFSIGNALED(status) else 0
        return {"stdout": "", "stderr": f"KILLED by signal {signal_number}\n", "rc": -signal_number}
    return json.loads(answer)
# the answer of a child whose program left no memory under the ceiling to build its answer in
OUT_OF_ROOM = "MemoryError: no room left under the memory ceiling for the answer"
OUT_OF_RESOURCES = ("MemoryError", "numpy._core._exceptions._ArrayMemoryError", "numpy.core._exceptions._ArrayMemoryError")
TIMED_OUT = "TimeoutError: gradcalc took too long"
# PyTorch's allocator failing, in its words, as gradcalc gives them at its memory ceiling
ALLOCATOR_FAILED = "DefaultCPUAllocator: can't allocate memory"


def classify(expected: Optional[dict], got: dict) -> Optional[str]:
    """internal, wording, mismatch or None (the same answer), as the module docstring tells."""
    if expected is None:  # gradcalc alone: only its own failures show
        return "internal" if any(mark in got["stderr"] for mark in FAILURE_MARKS) else None
    expected, got = _kept(expected, COMPARED_CHARACTERS), _kept(got, COMPARED_CHARACTERS)
    expected, got = normal(without_backtraces(expected)), normal(got)
    if expected == got:
        return None
    if failure_marked(expected, got):
        return "internal"
    if expected["rc"] < 0:  # PyTorch's run was ended by a signal (its time-out): no answer to compare
        return "unanswered"
    have, want = final_error(got["stderr"]), final_error(expected["stderr"])
    # PyTorch's allocator failing is gradcalc's ceiling only where PyTorch's run went further without an
    # error of another kind (an argument's TypeError comes before any allocation)
    out_of_memory = ALLOCATOR_FAILED in have and error_type(want) in ("", "RuntimeError")
    if error_type(have) in OUT_OF_RESOURCES or have.startswith(TIMED_OUT) or out_of_memory:
        return "resources"  # a memory ceiling or time limit PyTorch's run did not have
    if internal_looking(expected, got):
        return "internal"
    # the same error in other words; an identical error with another difference is a mismatch
    want, have = final_error(expected["stderr"]), final_error(got["stderr"])
    if want and have and want != have and error_type(want) == error_type(have):
        return "wording"
    return "mismatch"


KINDS = ("internal", "wording", "mismatch", "resources", "unanswered")
# what a finding's file keeps of each output: a program printing gigabytes would not fit beside
# them under the fuzzer's own memory ceiling
KEPT_CHARACTERS = 100_000
# what is compared of each output: a program printing gigabytes would leave the fuzzer, whose own
# memory has gradcalc's ceiling, no room to compare them (their beginnings decide)
COMPARED_CHARACTERS = 4_000_000


def _kept(answer: Optional[dict], characters: int = KEPT_CHARACTERS) -> Optional[dict]:
    if answer is None:
        return None
    return {key: value[:characters] if isinstance(value, str) else value for key, value in answer.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--torch", default=None, help="a Python with torch 2.13, to compare with PyTorch")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--count", type=int, default=200)
    parser.add_argument("--out", type=Path, default=Path("/tmp/gradcalc-mutants"))
    parser.add_argument("--record", type=Path, default=None,
                        help="write the programs and PyTorch's answers to this JSON file (with --torch)")
    parser.add_argument("--replay", type=Path, default=None,
                        help="the programs and PyTorch's answers of a --record run, instead of new ones")
    parser.add_argument("--all-causes", action="store_true", help="list every cause, not the 40 most common")
    parser.add_argument("--max-memory", default="2G",
                        help="gradcalc's memory ceiling, as its --max-memory (its programs run in this process)")
    args = parser.parse_args()
    if args.replay is not None:
        recorded = json.loads(args.replay.read_text(encoding="utf-8"))
        sources, theirs = [case["source"] for case in recorded], [case["torch"] for case in recorded]
    else:
        sources = mutants(args.seed, args.count)
        theirs = torch_answers(args.torch, sources) if args.torch else [None] * len(sources)
    if args.record is not None and args.torch:
        args.record.write_text(json.dumps([{"source": source, "torch": answer}
                                           for source, answer in zip(sources, theirs)], indent=1) + "\n",
                               encoding="utf-8")
    # as the command line's own ceiling: a mutant asking for terabytes fails as in gradcalc, not by the OOM killer
    limits.set_memory_limit(limits.mapped_bytes() + limits.parse_size(args.max_memory))
    args.out.mkdir(parents=True, exist_ok=True)
    counts: collections.Counter = collections.Counter()
    causes: collections.Counter = collections.Counter()
    for index, (source, expected) in enumerate(zip(sources, theirs)):
        got, expected = run_isolated(source), _kept(expected, COMPARED_CHARACTERS)
        kind = classify(expected, got)
        if kind is None:
            continue
        counts[kind] += 1
        cause = (first_difference(normal(without_backtraces(expected)), normal(got)) if expected
                 else got["stderr"][:100])
        causes[f"{kind}: {cause}"] += 1
        stem = args.out / f"{args.seed}_{index}"
        stem.with_suffix(".grad").write_text(source, encoding="utf-8")
        stem.with_suffix(".diff.json").write_text(json.dumps({"torch": _kept(expected), "gradcalc": _kept(got),
                                                              "kind": kind}, indent=1), encoding="utf-8")
    per = 10_000 / max(len(sources), 1)
    print(f"seed {args.seed}: {len(sources)} programs; per 10,000: "
          + ", ".join(f"{kind} {counts[kind] * per:.1f}" for kind in KINDS)
          + "; counts: " + ", ".join(f"{kind} {counts[kind]}" for kind in KINDS))
    for cause, count in causes.most_common(40 if args.all_causes is False else None):
        print(f"{count:5d}  {cause}")


if __name__ == "__main__":
    main()
