"""Runs a case program the way the oracle runs a gradcalc program, in plain Python.

Shared by record_nn_cases.py (namespaces from PyTorch) and test_nn.py (namespaces from
gradcalc): each top-level statement runs in "single" mode, so an expression's repr is echoed;
warnings print as `Category: message`; the first error prints `Type: message` and ends the
program. Memory addresses are masked, since they differ from run to run.
"""
from __future__ import annotations

import ast
import contextlib
import io
import re
import traceback
from typing import Callable

ADDRESS = re.compile(r"0x[0-9a-f]+")


def run_program(source: str, namespace: dict, set_warning_sink: Callable[[Callable[[str, str], None]], None]) -> str:
    out = io.StringIO()
    set_warning_sink(lambda category, message: out.write(f"{category}: {message}\n"))
    with contextlib.redirect_stdout(out):
        try:
            for node in ast.parse(source).body:
                exec(compile(ast.Interactive(body=[node]), "<case>", "single"), namespace)
        except Exception as exc:  # noqa: BLE001 - the program's error is the expected output
            out.write("".join(traceback.format_exception_only(type(exc), exc)).rstrip("\n") + "\n")
    return ADDRESS.sub("0x?", out.getvalue())
