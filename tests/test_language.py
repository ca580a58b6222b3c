"""Language behaviour that the golden programs cannot pin down: where gradcalc deliberately
differs from the oracle (imports), what only gradcalc prints (its syntax error details), and
runs that must end cleanly whatever the program does (runaway recursion)."""
from __future__ import annotations

import ast as python_ast
import io
import subprocess
import sys
import warnings

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from gradcalc.language.compile_checks import CompileError, check
from gradcalc.language.parser import GradcalcSyntaxError, parse
from gradcalc.session import Session, TextOutput, reset_global_state


def run(source: str, session: Session = None) -> tuple:
    reset_global_state()
    stdout, stderr = io.StringIO(), io.StringIO()
    session = session or Session(TextOutput(stdout, stderr))
    session.output.stdout, session.output.stderr = stdout, stderr
    ok = session.run(source, "prog.grad")
    return ok, stdout.getvalue(), stderr.getvalue()


@pytest.mark.parametrize("source, module", [
    ("import numpy", "numpy"),
    ("import numpy as np", "numpy"),
    ("import os.path", "os.path"),
    ("from numpy import array", "numpy"),
    ("import torch.optim.lr_scheduler_x", "torch.optim.lr_scheduler_x"),
])
def test_imports_beyond_torch_are_module_not_found(source: str, module: str) -> None:
    ok, stdout, stderr = run(f'print("before")\n{source}\nprint("after")\n')
    assert not ok
    assert stdout == "before\n"
    assert stderr == f"ModuleNotFoundError: No module named '{module}'\n"


def test_torch_imports_bind_their_names() -> None:
    ok, stdout, stderr = run("import torch.nn as tnn\nfrom torch.autograd import grad\n"
                             "from torch.nn import functional as Fn\nprint(tnn.Linear, grad is torch.autograd.grad)\n")
    assert ok, stderr
    assert stdout == "<class 'torch.nn.modules.linear.Linear'> True\n"


RUNAWAY = [
    "def f(n):\n    return f(n + 1)\nf(0)\n",
    # each level also goes through C code (sorted, a key function, map), which uses the host's stack
    "def f(n):\n    return sorted([n], key=lambda v: max([v], key=lambda w: sum(map(lambda u: f(u + 1), [w]))))\nf(0)\n",
    "def d(fn):\n    def w(*a, **k):\n        return fn(*a, **k)\n    return w\n@d\ndef f(n):\n    return list(map(f, [n + 1]))\nf(0)\n",
    "x = tensor(1., requires_grad=True)\ndef f(t):\n    with torch.no_grad():\n        return f(t * 2)\nf(x)\n",
]


@pytest.mark.parametrize("source", RUNAWAY)
def test_runaway_recursion_ends_in_one_clean_line(source: str) -> None:
    done = subprocess.run([sys.executable, "-m", "gradcalc", "-e", source + "\nprint('not reached')"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 1
    assert done.stdout == ""
    assert done.stderr == "RecursionError: maximum recursion depth exceeded\n"


def test_session_goes_on_after_recursion_and_grad_mode_is_restored() -> None:
    session = Session(TextOutput())
    ok, _, stderr = run("def f(n):\n    with torch.no_grad():\n        return f(n + 1)\nf(0)\n", session)
    assert not ok and stderr.startswith("RecursionError")
    ok, stdout, stderr = run("def g(n):\n    return 0 if n == 0 else 1 + g(n - 1)\ng(900), torch.is_grad_enabled()\n",
                             session)
    assert ok, stderr
    assert stdout == "(900, True)\n"


def test_syntax_error_shows_where_and_what_was_expected() -> None:
    ok, stdout, stderr = run('print("not run")\nx = [1, 2\ny = 3\n')
    assert not ok and stdout == ""
    assert stderr == ("SyntaxError: '[' was never closed\n"
                      "prog.grad, line 2, column 5\n"
                      "    x = [1, 2\n"
                      "        ^\n"
                      "expected a matching ']'\n")


def test_compile_time_syntax_error_comes_when_its_statement_is_reached() -> None:
    ok, stdout, stderr = run('print("runs")\nfor i in range(2):\n    pass\nelse:\n    break\n')
    assert not ok
    assert stdout == "runs\n"
    assert stderr == ("SyntaxError: 'break' outside loop\n"
                      "prog.grad, line 5, column 5\n"
                      "        break\n"
                      "        ^\n")


def test_indentation_error_is_pythons_line() -> None:
    # only a SyntaxError may say more than Python (SPEC §1)
    assert run("if True:\nx = 1\n")[2] == "IndentationError: expected an indented block after 'if' statement on line 1\n"


@pytest.mark.parametrize("source", ["if (n := 10) > 5:\n    pass\n", "if n := 10:\n    pass\n", "[y := 1]\n"])
def test_walrus_is_reported_as_unsupported(source: str) -> None:
    assert run(source)[2].startswith("SyntaxError: ':=' is not supported in gradcalc\n")


@pytest.mark.parametrize("source, message", [
    ("class A(metaclass=type):\n    pass\n", "SyntaxError: keyword arguments in a class definition "
     "(such as metaclass=) are not supported in gradcalc"),
    ("try:\n    x = 1\nexcept ValueError:\n    pass\n", "SyntaxError: 'try' is not supported in gradcalc"),
])
def test_unsupported_statements_say_so(source: str, message: str) -> None:
    assert run(source)[2].splitlines()[0] == message


@pytest.mark.parametrize("source, message", [
    ("x = tensor(1.)\nx.foo = 1\n", "AttributeError: 'Tensor' object has no attribute 'foo'"),
    ("torch.foo = 1\n", "AttributeError: attribute 'foo' of 'module' objects cannot be set in gradcalc"),
    ("torch.Tensor.foo = 1\n", "AttributeError: cannot set 'foo' attribute of class 'Tensor' in gradcalc"),
    ("type('X', (), {})\n", "TypeError: type() with 3 arguments (making a class) is not supported in gradcalc"),
    ("str.format('{0.__class__}', 1)\n", "AttributeError: type object 'str' has no attribute 'format'"),
])
def test_refusals_read_well(source: str, message: str) -> None:
    assert run(source)[2] == message + "\n"


def test_plain_types_offer_their_methods_but_not_types() -> None:
    ok, stdout, stderr = run('dict.fromkeys("ab", 0), sorted(["b", "A"], key=str.lower)\n')
    assert ok, stderr
    assert stdout == "({'a': 0, 'b': 0}, ['A', 'b'])\n"
    assert run("int.mro()\n")[2] == "AttributeError: type object 'int' has no attribute 'mro'\n"


# ------------------------------------------------ compile-time checks against Python's compiler

_STATEMENTS = st.sampled_from([
    "x = a", "a, *b = c", "*a = b", "a, *b, *c = d", "del x", "pass", "return a", "break", "continue",
    "global x", "global a", "nonlocal x", "nonlocal a", "x += 1", "a = x", "print(x)", "f(a=1, a=2)",
    "f(**k, a=1)", "x is 1", "x is not ()", "not x is 'a'", "x is None", "1 is x is 2", "y = (1, 2)(3)",
    "[1][x]", "[1]['a']", "'s'[1.5]", "None[0]", "(i for i in a)[0]", "(lambda: 0)[0]", "x[1] = 'a'[0]",
    "assert (x, 'm')", "assert ()", "from torch import *", "import torch as x", "lambda x, x: 0",
    "[x for x in a if x is 2]", "(lambda q=x is 1: q)", "*a", "f(*a)", "x = *a, b",
])
_HEADERS = st.sampled_from(["if a:", "else:", "for x in a:", "while b:", "def f(x, y=1):", "def g(a, a):",
                            "with a as x:", "@dec\ndef h():", "for a, *x in b:", "def k(*x, **a):"])


def _render(statement, indent: str = "") -> str:
    if isinstance(statement, str):
        return indent + statement + "\n"
    header, body = statement
    lines = "".join(indent + line + "\n" for line in header.split("\n"))
    return lines + "".join(_render(child, indent + "    ") for child in body)


_PROGRAMS = st.lists(st.recursive(_STATEMENTS, lambda children: st.tuples(
    _HEADERS, st.lists(children, min_size=1, max_size=3)), max_leaves=6), min_size=1, max_size=4).map(
    lambda statements: "".join(_render(s) for s in statements))


@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_PROGRAMS)
def test_compile_checks_agree_with_pythons_compiler(source: str) -> None:
    try:
        theirs = python_ast.parse(source)
    except SyntaxError:
        return  # the parser's business (tests/test_parser.py)
    try:
        ours = parse(source)
    except GradcalcSyntaxError:
        return  # a construct gradcalc leaves out
    for mine, python in zip(ours.body, theirs.body):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                compile(python_ast.Interactive(body=[python]), "f", "single")
                expected_error = None
            except SyntaxError as error:
                expected_error = error.msg
        expected = [str(w.message) for w in caught if w.category is SyntaxWarning]
        got: list = []
        try:
            check(mine, got.append)
            error = None
        except CompileError as raised:
            error = raised.message
        assert (error, got) == (expected_error, expected), source
        if error is not None:
            return
