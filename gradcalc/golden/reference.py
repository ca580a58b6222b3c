#!/usr/bin/env python3
"""Run a gradcalc program under real PyTorch: the reference gradcalc is tested against.

Usage (with a Python that has torch 2.13):  python reference.py FILE.grad
`pytest --gradcalc-oracle PYTHON` records expected outputs with it (gradcalc/golden/__init__.py);
it runs in that Python, never inside gradcalc.
The rules are gradcalc's execution model (SPEC §2-3): the prelude is in scope; each top-level
statement runs as in the interactive interpreter (a non-None expression value is echoed);
a warning prints `Category: message`; the first error prints `ErrorType: message` on stderr
and ends the run with status 1.
"""
import ast
import os
import re
import sys
import traceback
import warnings

PRELUDE = """\
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch import (tensor, ones, zeros, ones_like, zeros_like, full, full_like,
                   arange, linspace, eye, rand, randn, randint, rand_like, randn_like,
                   manual_seed, no_grad, enable_grad, set_grad_enabled, autograd,
                   exp, log, sin, cos, tanh, sigmoid, relu, sqrt, matmul, stack, cat)
"""
INTERNAL_NOTE = re.compile(r"\s*\(Triggered internally at [^)]*\)\s*$")


def show_warning(message, category, filename, lineno, file=None, line=None):
    sys.stdout.flush()
    sys.stderr.write(f"{category.__name__}: {INTERNAL_NOTE.sub('', str(message))}\n")
    sys.stderr.flush()


def fail(error):
    sys.stdout.flush()
    text = "".join(traceback.format_exception_only(type(error), error)).rstrip("\n")
    if isinstance(error, SyntaxError):
        text = text.splitlines()[-1]
    sys.stderr.write(text + "\n")
    sys.exit(1)


def run(source, filename):
    warnings.simplefilter("always")
    warnings.showwarning = show_warning
    namespace = {"__name__": "__main__"}
    exec(compile(PRELUDE, "<prelude>", "exec"), namespace)
    # one thread, as the shared oracle runner: multi-threaded conv and matmul move last digits
    namespace["torch"].set_num_threads(1)
    try:
        tree = ast.parse(source, filename)
    except SyntaxError as error:
        fail(error)
    for statement in tree.body:
        try:
            exec(compile(ast.Interactive(body=[statement]), filename, "single"), namespace)
        except SystemExit:  # sys.exit() ends the run with its own status, as in Python
            raise
        except BaseException as error:  # noqa: BLE001 - every error of the program, as the interpreter
            fail(error)
    sys.stdout.flush()


def main():
    # a frame of its own, as the shared oracle runner's: a program's statements then stand as deep in
    # the stack, where a runaway recursion meets its limit (gradcalc's limits.REFERENCE_ROOM)
    with open(sys.argv[1], encoding="utf-8") as handle:
        run(handle.read(), os.path.basename(sys.argv[1]))  # named as gradcalc names a program it runs


if __name__ == "__main__":
    main()
