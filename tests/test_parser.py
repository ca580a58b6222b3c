"""Tests of the language front end: grammar, tree building, syntax errors, is_complete.

The tree gradcalc builds is Python's own `ast`: every check compares it, positions included,
with what CPython's parser builds from the same source.
"""
from __future__ import annotations

import ast as py
import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gradcalc.language.parser import GradcalcSyntaxError, is_complete, parse, parse_with_lark

REPO = Path(__file__).resolve().parent.parent
CORPUS = REPO.parent / "shared" / "oracle" / "corpus"
GOLDEN = REPO / "tests" / "golden"


def dump(tree: py.AST) -> str:
    return py.dump(tree, include_attributes=True)


def same_as_python(source: str) -> None:
    assert dump(parse_with_lark(source).module) == dump(py.parse(source))


def body(source: str) -> list:
    return parse_with_lark(source).module.body


# ------------------------------------------------------------ real programs

def _programs() -> list:
    found = sorted(GOLDEN.rglob("*.grad")) + sorted((REPO / "examples").glob("*.grad"))
    if CORPUS.is_dir():
        found += sorted(CORPUS.rglob("*.grad"))
    return found


def _expects_syntax_error(program: Path) -> bool:
    expected = program.with_suffix(".expected.json")
    if not expected.is_file():
        return False
    return json.loads(expected.read_text(encoding="utf-8"))["stderr"].startswith("SyntaxError")


@pytest.mark.parametrize("program", _programs(), ids=lambda p: str(p.relative_to(p.parents[1]).with_suffix("")))
def test_program_parses_as_python_does(program: Path) -> None:
    source = program.read_text(encoding="utf-8")
    try:
        expected = py.parse(source)
    except SyntaxError:
        with pytest.raises(GradcalcSyntaxError):
            parse(source, str(program))
        return
    assert dump(parse_with_lark(source, str(program)).module) == dump(expected)


def test_corpus_syntax_error_message() -> None:
    program = CORPUS / "features" / "language" / "l12_syntax_error.grad"
    if not program.is_file():
        pytest.skip("the shared oracle corpus is not here")
    with pytest.raises(GradcalcSyntaxError) as caught:
        parse(program.read_text(encoding="utf-8"), str(program))
    assert str(caught.value) == "'(' was never closed"
    assert (caught.value.line, caught.value.column) == (2, 11)


# --------------------------------------------------------- same as Python

SNIPPETS = [
    # precedence
    "-2 ** 2", "2 ** -1", "2 ** 3 ** 2", "-x ** -y", "not a == b", "a if b else c if d else e",
    "1 < 2 < 3", "x @ y + z", "a + b * c - d / e // f % g", "a | b ^ c & d << e >> f",
    "~a + +b - -c", "not not a", "a or b and c", "a and not b or c", "a < b == c is not d not in e in f",
    "x is None", "lambda: 0", "lambda a, b=2, *c, d, e=5, **f: a", "(lambda x: x)(1)",
    "a if b else lambda: c", "x = lambda t: t ** 2 + 1",
    "f(a)(b)[c].d", "(a + b) * c", "-(a + b)", "a[b](c)",
    # literals
    "1_000", "0x1F", "0o17", "0b101", "1.5", "1e-3", ".5", "5.", "2j", "1.5e2j", "1 + 2j",
    "'a' 'b'", "'''tri\nple'''", "r'\\d+'", "'\\n\\t\\x41\\u00e9\\N{BULLET}'", "u'x'", "\"a#b\"",
    "True, False, None, ...",
    # displays
    "[]", "[1, 2, 3,]", "()", "(1,)", "(1, 2)", "1,", "a, b", "{}", "{1: 2, **d}", "{1, 2}",
    "[*a, *b]", "{*a}", "[x for x in y]", "[x for x in y if x if z for w in x]",
    "{k: v for k, v in d.items()}", "{x for x in y}", "(x for x in y)", "sum(x for x in y)",
    "[a if b else c for a in d]",
    # calls and subscripts
    "f()", "f(a, b=1, *c, **d)", "f(*a, b, *c, d=1, **e)", "f(a,)", "f(\n  a,\n  b,\n)",
    "x[0]", "x[1:2]", "x[::2]", "x[:]", "x[1:]", "x[:-1]", "x[:, 0]", "x[..., None]", "x[0, 1]",
    "x[0,]", "x[None]", "x[()]", "x[a:b, ...]", "x[1:2:3, ::, :]", "m[m > 1]", "x[[0, 0, 1]]",
    # statements
    "a = b = 1", "a, b = b, a", "(c, d), e = (3, 4), 5", "[u, v] = [1, 2]", "a, *b = c",
    "*a, b = c", "(d,) = f(x)", "x.y = 1", "x[0] = 5", "x.grad = None", "x[1:] = y",
    "a += 1", "a -= 1", "a *= 1", "a /= 1", "a //= 1", "a %= 1", "a **= 1", "a @= 1",
    "a &= 1", "a |= 1", "a ^= 1", "a <<= 1", "a >>= 1", "x[0] += 1", "w.grad -= 1",
    "del x", "del x, y[0], z.a", "pass", "return", "return 1", "return a, b", "raise", "raise E(1)",
    "global a, b", "nonlocal a", "assert x", "assert x, 'msg'",
    "import torch", "import torch.nn as nn, os", "from torch import nn",
    "from torch.autograd import grad as g, backward", "from m import (a, b,)", "from m import *",
    "3; 4; y = 6", "x = 1;",
    # compound statements
    "if a:\n    b\nelif c:\n    d\nelif e:\n    f\nelse:\n    g\n",
    "if a: b\n", "if a: b; c\nelse: d\n", "while x:\n    x -= 1\nelse:\n    done()\n",
    "for i in range(3):\n    i\n", "for a, b in zip(x, y):\n    pass\nelse:\n    pass\n",
    "for (a, b), c in x: pass\n", "for x in 1, 2: pass\n",
    "with torch.no_grad():\n    y = x * 2\n", "with a as b, c:\n    pass\n", "with a as (b, c): pass\n",
    "def f(): pass\n", "def f(x, p=2):\n    y = x ** p\n    return y\n",
    "def f(a, *, b, c=1, **d):\n    return a\n", "def f(*args, **kwargs): pass\n",
    "@torch.no_grad()\ndef f(t):\n    return t * 2\n", "@a\n@b.c\ndef f(): pass\n",
    "def outer():\n    x = 1\n    def inner():\n        nonlocal x\n        x += 1\n    inner()\n    return x\n",
    "while True:\n    if n > 7:\n        break\n    continue\n",
    # layout
    "x = 1\n\n\n# comment\n   # indented comment\ny = 2\n", "if x:\n    a\n\n    b\n# c\n    c\n",
    "if x:\n\ty\n", "x = [1,\n  2]\n", "x = 1 + \\\n    2\n", "if a and \\\n   b:\n    pass\n",
    "m = tensor([[1., 2.],   # comment\n            [3., 4.]])\n", "s = 'a # not a comment'\n",
    "s = '(' + \")\"\n", "x = 1  # comment without newline", "if x:\n    if y:\n        z\nw\n",
    "x = '''\n  # not a comment\n(\n'''\n",
    # f-strings
    "f'{x}'", "f'value: {x.item():.3f}'", "f'{x=}'", "f'{x.item()=:.2f}'", "f'{name = }'",
    "f'{3.14159:.2f}|{42:05d}|{\"ab\":>5}|{1e-5:e}|{255:x}|{0.5:%}'", "f'{{braces}} {x!r}'",
    "f'{x:{w}.{p}}'", "f'{x!s:>{w}}'", "f'a' 'b' f'{c}'", "'a' f'{b}'", "f'{a[\"k\"]}'",
    "f'{x, y}'", "f'{d[\"a\"]:>{w}} end'", "rf'\\d{x}'", "f'\\n{x}\\t'", "f'{x == y}'",
    "f'{a != b}'", "f'{x!r}'", "f'{f\"{y}\"}'", "f'{ x + 1 }'", "f'''{\nx\n}'''", "F'{x}'",
    "f'{lambda_}'", "f'{x:}'", "f'{{{x}}}'", "f'{x=!s}'", "f'{x = !r:>10}'", "f'\\N{BULLET} {x}'",
]

# the rest of Python 3.11 that tutorials write
SNIPPETS += [
    "try:\n    f()\nexcept (A, B) as e:\n    raise C from e\nexcept:\n    pass\nelse:\n    x = 1\n"
    "finally:\n    y = 2\n",
    "try:\n    x\nfinally:\n    y\n", "try:\n    f()\nexcept* ValueError as e:\n    pass\n",
    "raise E from None", "def g():\n    x = yield\n    y = yield 1, 2\n    z = (yield)\n    yield from h()\n",
    "if (n := len(a)) > 10: pass", "[y := f(x), y ** 2]", "a[b := 1]", "f(x := 1)", "while (line := f()):\n    pass\n",
    "def f(a, b=2, /, c=3, *args: int, d, e: str = 'x', **kw) -> int:\n    return a\n", "lambda a, /, b: a",
    "x: int", "x: int = 3", "(a): int = 1", "a.b: int = 3", "a[0]: float",
    "class A(B, C, metaclass=M):\n    x: int = 3\n    def f(self) -> None: ...\n",
    "@dataclass(frozen=True)\nclass C:\n    a: int = 1\n", "@x.setter\ndef x(self, v): pass\n",
    "from . import x", "from ..a.b import (c as d, e,)", "from ... import y", "import a.b.c as d, e",
    "from __future__ import annotations", "x = b'ab' b'cd'", "x = rb'\\d' + Br'x'", "u'x'",
    "print(*a, sep='')", "f(**a, b=1)", "{**a, 'b': 1}", "async_ = 1", "match = re.match(p, s)",
    "def f():\n    global a\n    nonlocal b\n", "async_def = 2", "__name__ == '__main__'",
    "α = 0.5\nβ = tensor(2.)\nloss = α * β",
]


@pytest.mark.parametrize("source", SNIPPETS)
def test_same_tree_as_python(source: str) -> None:
    same_as_python(source)


def test_long_operator_chain() -> None:
    (stmt,) = body("x = " + " + ".join(["1"] * 3000))
    depth, node = 0, stmt.value
    while isinstance(node, py.BinOp):
        depth, node = depth + 1, node.left
    assert depth == 2999


def test_windows_newlines_and_byte_order_mark() -> None:
    assert py.dump(parse("\ufeffif x:\r\n    y\r\n").module) == py.dump(parse("if x:\n    y\n").module)


def test_empty_program() -> None:
    assert body("") == [] and body("\n\n# only a comment\n") == []


@pytest.mark.parametrize("source, message", [
    ("async def f(): pass", "'async' is not supported in gradcalc"),
    ("await x", "'await' is not supported in gradcalc"),
    ("match x:\n    case 1: pass\n", "'match' is not supported in gradcalc"),
])
def test_what_gradcalc_leaves_out_says_so(source: str, message: str) -> None:
    with pytest.raises(GradcalcSyntaxError) as caught:
        parse(source)
    assert str(caught.value) == message


def test_bracket_depth_is_pythons() -> None:
    # Python's tokenizer stops at 200 nested brackets; so does gradcalc, long before the host's stack would
    assert body("(" * 199 + "1" + ")" * 199)
    with pytest.raises(GradcalcSyntaxError) as caught:
        parse("(" * 12000 + "x for x in y" + ")" * 12000)
    assert str(caught.value) == "too many nested parentheses"


# ----------------------------------------------------------- syntax errors

def error_of(source: str) -> GradcalcSyntaxError:
    with pytest.raises(GradcalcSyntaxError) as caught:
        parse(source)
    return caught.value


def python_error(source: str) -> SyntaxError:
    with pytest.raises(SyntaxError) as caught:
        py.parse(source)
    return caught.value


ERRORS = [
    # source, message, line, column
    ("x = tensor([1., 2.]\ny = x * 2\n", "'(' was never closed", 1, 11),
    ("x = (1,\n", "'(' was never closed", 1, 5),
    ("f(a", "'(' was never closed", 1, 2),
    ("x = [1, 2)", "closing parenthesis ')' does not match opening parenthesis '['", 1, 10),
    ("x = (1,\n2]", "closing parenthesis ']' does not match opening parenthesis '(' on line 1", 2, 2),
    (")", "unmatched ')'", 1, 1),
    ("x = 1 +", "invalid syntax", 1, 8),
    ("1 2", "invalid syntax", 1, 3),
    ("if x\n  y", "expected ':'", 1, 5),
    ("def f()\n  pass", "expected ':'", 1, 8),
    ("  x = 1", "unexpected indent", 1, 3),
    ("x = 1\n    y = 2\n", "unexpected indent", 2, 5),
    ("if x:\ny", "expected an indented block after 'if' statement on line 1", 2, 1),
    ("for i in x:\n", "expected an indented block after 'for' statement on line 1", 1, 12),
    ("def f():\nreturn", "expected an indented block after function definition on line 1", 2, 1),
    ("if x:\n    y\nelse:\nz", "expected an indented block after 'else' statement on line 3", 4, 1),
    ("if x:\n    y\n  z", "unindent does not match any outer indentation level", 3, 3),
    ("s = 'abc", "unterminated string literal (detected at line 1)", 1, 5),
    ("x = 1\ns = f'abc", "unterminated string literal (detected at line 2)", 2, 5),
    ("s = '''abc\n\n", "unterminated triple-quoted string literal (detected at line 2)", 1, 5),
    ("tensor([1. 2.])", "invalid syntax. Perhaps you forgot a comma?", 1, 12),
    ("1abc", "invalid decimal literal", 1, 1),
    ("print 'x'", "Missing parentheses in call to 'print'. Did you mean print(...)?", 1, 1),
    ("f() = 1", "cannot assign to function call here. Maybe you meant '==' instead of '='?", 1, 1),
    ("1 = x", "cannot assign to literal here. Maybe you meant '==' instead of '='?", 1, 1),
    ("a + b = 1", "cannot assign to expression here. Maybe you meant '==' instead of '='?", 1, 1),
    ("None = 1", "cannot assign to None", 1, 1),
    ("for f() in x: pass", "cannot assign to function call", 1, 5),
    ("[x for f() in y]", "cannot assign to function call", 1, 8),
    ("with a as f(): pass", "cannot assign to function call", 1, 11),
    ("del f()", "cannot delete function call", 1, 5),
    ("f() += 1", "'function call' is an illegal expression for augmented assignment", 1, 1),
    ("(a, b) += 1", "'tuple' is an illegal expression for augmented assignment", 1, 1),
    ("f(a=1, b)", "positional argument follows keyword argument", 1, 8),
    ("f(**k, *a)", "iterable argument unpacking follows keyword argument unpacking", 1, 8),
    ("f(**k, a)", "positional argument follows keyword argument unpacking", 1, 8),
    ("f(a.b=1)", 'expression cannot contain assignment, perhaps you meant "=="?', 1, 3),
    ("def f(a=1, b): pass", "non-default argument follows default argument", 1, 12),
    ("def f(*): pass", "named arguments must follow bare *", 1, 7),
    ("def f(**k, a): pass", "arguments cannot follow var-keyword argument", 1, 12),
    ("f'{x!z}'", "f-string: invalid conversion character: expected 's', 'r', or 'a'", 1, 6),
    ("f'{}'", "f-string: empty expression not allowed", 1, 4),
    ("f'{x'", "f-string: expecting '}'", 1, 5),
    ("f'}'", "f-string: single '}' is not allowed", 1, 3),
    ("f'{a b}'", "f-string: invalid syntax. Perhaps you forgot a comma?", 1, 6),
    ("x = $", "invalid syntax", 1, 5),
    ("x = 1 \\ 2", "unexpected character after line continuation character", 1, 7),
    ("x = 1 \\", "unexpected EOF while parsing", 1, 8),
    ("from m import a,", "invalid syntax", 1, 17),
]


@pytest.mark.parametrize("source, message, line, column", ERRORS)
def test_syntax_error(source: str, message: str, line: int, column: int) -> None:
    error = error_of(source)
    assert (str(error), error.line, error.column) == (message, line, column)


@pytest.mark.parametrize("source, message", [(s, m) for s, m, _, _ in ERRORS])
def test_python_also_rejects(source: str, message: str) -> None:
    # every error case is an error for Python too, most with the very same message
    error = python_error(source)
    if message not in ("invalid syntax", "unexpected EOF while parsing") and not message.startswith("f-string"):
        assert error.msg == message


def test_indentation_errors_say_so() -> None:
    assert error_of("  x").type_name == "IndentationError"
    assert error_of("if x:\ny").type_name == "IndentationError"
    assert error_of("x = (").type_name == "SyntaxError"


def test_error_inside_later_line_of_program() -> None:
    error = error_of("x = 1\ny = 2\nz = (3 4)\n")
    assert (error.line, error.column) == (3, 8)
    assert error.source_line == "z = (3 4)"


def test_detail_report() -> None:
    error = error_of("x = 1\ny = (3 4)\n")
    assert error.detail() == "\n".join([
        "line 2, column 8",
        "    y = (3 4)",
        "           ^",
        "expected ')', ',' or an operator",
    ])


def test_detail_names_the_file() -> None:
    with pytest.raises(GradcalcSyntaxError) as caught:
        parse("x = = 1", "prog.grad")
    assert caught.value.detail().startswith("prog.grad, line 1, column 5\n")
    assert caught.value.detail().endswith("expected an expression")


def test_detail_expected_colon() -> None:
    assert error_of("if x\n    y\n").detail().endswith("expected ':'")


def test_compile_time_syntax_errors_are_left_to_the_compiler() -> None:
    # Python reports these only when it compiles the statement, after running those before it
    for source in ("return 1", "break", "f(a=1, a=2)", "def f(a, a): pass", "x = *a", "*a", "a, *b, *c = d",
                   "*a = b"):
        parse(source)


# --------------------------------------------------------------- is_complete

@pytest.mark.parametrize("source", [
    "x = (1,", "x = [\n  1,", "f(", "s = '''abc", "s = '''abc\n", "x = 1 + \\",
    "for i in range(3):", "for i in range(3):\n    print(i)", "if x: y", "def f():\n    return 1",
    "@torch.no_grad()", "if x:\n    y\nelse:", "with a:\n    b\n    c", "(1,\n\n",
    "if x:\n    y\n    # comment",
])
def test_incomplete(source: str) -> None:
    assert not is_complete(source)


@pytest.mark.parametrize("source", [
    "", "   ", "x = 1", "x = 1\n", "1 +", "x = (1 2", ")", "for i in range(3):\n    print(i)\n",
    "if x: y\n", "def f():\n    return 1\n", "for i in x:\n", "x = 1 + \\\n", "s = 'abc", "if x:\n    y\n  \n",
    "if x:\n    y\nz", "  x = 1",
])
def test_complete(source: str) -> None:
    assert is_complete(source)


# ------------------------------------------------------------------ loading

def test_import_is_cheap() -> None:
    import subprocess
    import sys

    code = ("import sys, gradcalc.language.parser as p; "
            "print(p._lark is None, 'lark' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, check=True)
    assert out.stdout.split() == ["True", "False"]


def test_unwritable_cache_directory_still_parses(tmp_path, monkeypatch) -> None:
    import gradcalc.language.parser as parser_module

    blocked = tmp_path / "file-not-dir"
    blocked.write_text("")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocked))
    monkeypatch.setattr(parser_module, "_lark", None)
    assert parser_module._cache_file("parser.lark-cache") is None
    same_as_python("x = 1")


def test_cache_file_name_follows_the_grammar(tmp_path, monkeypatch) -> None:
    import gradcalc.language.parser as parser_module

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert parser_module._cache_file("parser.lark-cache") == str(tmp_path / "gradcalc" / "parser.lark-cache")
    first = parser_module._lark_cache_name("grammar one", "1.0")
    assert parser_module._lark_cache_name("grammar two", "1.0") != first
    assert parser_module._lark_cache_name("grammar one", "1.1") != first


# ------------------------------------------------- generated expressions

_ATOMS = st.sampled_from(["a", "b", "x", "0", "1", "2.5", "1e3", "3j", "'s'", "True", "None", "..."])
_BINARY = ["+", "-", "*", "/", "//", "%", "**", "@", "|", "^", "&", "<<", ">>", "and", "or",
           "<", ">", "==", "!=", "<=", ">=", "in", "not in", "is", "is not"]


def _compose(children):
    # Operands are put together with any operator, so some results are not valid
    # Python: then gradcalc must reject them too.
    pair = st.tuples(children, children)
    return st.one_of(
        st.builds(lambda p, op: f"{p[0]} {op} {p[1]}", pair, st.sampled_from(_BINARY)),
        st.builds(lambda e, op: f"{op}{e}", children, st.sampled_from(["-", "+", "~", "not "])),
        st.builds(lambda e: f"({e})", children),
        st.builds(lambda t: f"{t[0]} if {t[1]} else {t[2]}", st.tuples(children, children, children)),
        st.builds(lambda e: f"lambda q: {e}", children),
        st.builds(lambda p: f"({p[0]})({p[1]}, k={p[1]})", pair),
        st.builds(lambda e: f"({e}).attr", children),
        st.builds(lambda p: f"({p[0]})[{p[1]}:, ::{p[1]}]", pair),
        st.builds(lambda p: f"[{p[0]}, *{p[1]}]", pair),
        st.builds(lambda p: f"{{{p[0]}: {p[1]}}}", pair),
        st.builds(lambda p: f"[{p[0]} for v in {p[1]} if {p[0]}]", pair),
        st.builds(lambda p: f"(v := {p[0]})", pair),
        st.builds(lambda e: f"(yield {e})", children),
        st.builds(lambda p: f"{p[0]}, {p[1]}", pair),
    )


_EXPRESSIONS = st.recursive(_ATOMS, _compose, max_leaves=8)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_EXPRESSIONS)
def test_generated_expressions_match_python(source: str) -> None:
    try:
        expected = py.parse(source)
    except SyntaxError:
        with pytest.raises(GradcalcSyntaxError):
            parse(source)
        return
    assert dump(parse_with_lark(source).module) == dump(expected)


_SIMPLE = st.sampled_from([
    "x = a", "a, b = b, a", "x[0] += 1", "del x", "pass", "return a", "print(f'{a=}')",
    "y = [1,\n  2]", "z = a + \\\n  b", "break", "assert a, 'm'", "import torch.nn as nn",
    "s = '#('  # )", "a; b", "x: int = 1", "y = yield a", "raise E from e", "nonlocal a", "b = (c := 2)",
])
_HEADERS = st.sampled_from(["if a:", "elif b:", "else:", "for v in a:", "while b:", "def f(p, q=1):",
                            "with a as w, b:", "@dec\ndef g():", "for (i, j) in a:", "try:", "except E as e:",
                            "except:", "finally:", "class K(B):", "def h(a, /, *, b) -> int:"])


def _block(children):
    return st.builds(lambda header, body: (header, body), _HEADERS, st.lists(children, min_size=1, max_size=3))


def _render(stmt, indent: str = "") -> str:
    if isinstance(stmt, str):
        return "".join(indent + line + "\n" for line in stmt.split("\n"))
    header, body = stmt
    lines = "".join(indent + line + "\n" for line in header.split("\n"))
    return lines + "".join(_render(child, indent + "    ") for child in body)


_PROGRAMS = st.lists(st.recursive(_SIMPLE, _block, max_leaves=6), min_size=1, max_size=4).map(
    lambda stmts: "".join(_render(s) for s in stmts))


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_PROGRAMS, st.sampled_from(["", "\n", "# trailing comment", "\n\n   \n"]))
def test_generated_programs_match_python(program: str, tail: str) -> None:
    source = program + tail
    try:
        expected = py.parse(source)
    except SyntaxError as error:
        with pytest.raises(GradcalcSyntaxError) as caught:
            parse(source)
        if isinstance(error, IndentationError):
            assert caught.value.type_name == "IndentationError"
        return
    assert dump(parse_with_lark(source).module) == dump(expected)


# ------------------------------------------------------------ grammar health

def test_grammar_has_no_lalr_conflicts() -> None:
    # Lark settles shift/reduce conflicts silently (logging them); the grammar must have none
    import logging

    import lark

    import gradcalc.language.parser as parser_module

    records: list = []
    handler = logging.Handler()
    handler.emit = records.append
    previous_level = lark.logger.level
    lark.logger.addHandler(handler)
    lark.logger.setLevel(logging.DEBUG)
    try:
        lark.Lark(Path(parser_module._grammar_path()).read_text(encoding="utf-8"), parser="lalr", lexer="basic",
                  start=["file_input", "fexpr"], debug=True)
    finally:
        lark.logger.removeHandler(handler)
        lark.logger.setLevel(previous_level)
    assert not [r.getMessage() for r in records if "conflict" in r.getMessage().lower()]


def test_cached_tables_are_reused(tmp_path, monkeypatch) -> None:
    import gradcalc.language.parser as parser_module

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setattr(parser_module, "_lark", None)
    assert body("x = 1")
    (cache,) = (tmp_path / "gradcalc").iterdir()
    written = cache.stat().st_mtime_ns
    monkeypatch.setattr(parser_module, "_lark", None)
    assert body("y = f'{x=}'")
    assert cache.stat().st_mtime_ns == written


# ------------------------------------------------ CPython's parser for what needs no grammar

@pytest.mark.parametrize("program", [p for p in _programs() if p.parent.name == "language"][:80],
                         ids=lambda p: p.stem)
def test_public_parse_builds_the_grammars_tree(program: Path) -> None:
    source = program.read_text(encoding="utf-8")
    try:
        expected = parse_with_lark(source, str(program))
    except GradcalcSyntaxError as error:
        with pytest.raises(GradcalcSyntaxError) as caught:
            parse(source, str(program))
        assert str(caught.value) == str(error)
        return
    found = parse(source, str(program))
    assert dump(found.module) == dump(expected.module) and found.warnings == expected.warnings


@pytest.mark.parametrize("source, message", [
    ("with (a as b, c as d):\n    pass\n", "invalid syntax"),
    ("async def f(): pass", "'async' is not supported in gradcalc"),
    ("x = 1\nmatch x:\n    case 1: pass\n", "'match' is not supported in gradcalc"),
])
def test_left_out_constructs_reach_the_grammar(source: str, message: str) -> None:
    with pytest.raises(GradcalcSyntaxError) as caught:
        parse(source)
    assert str(caught.value) == message


def test_escape_warnings_as_the_grammar_gives_them() -> None:
    source = 'x = "\\d" + f"\\q{1}" + "\\777"\ny = 1if x else 2\n'
    assert parse(source).warnings == parse_with_lark(source).warnings == [
        ("DeprecationWarning", "invalid escape sequence '\\d'"), ("DeprecationWarning", "invalid escape sequence '\\q'"),
        ("DeprecationWarning", "invalid octal escape sequence '\\777'")]


@pytest.mark.parametrize("source", [
    # a form feed is indentation to Python's tokenizer: the quick look at the words must not be
    # the only guard, since a class pattern reads attributes by name past the sandbox's guard
    "def f():\n    pass\n\x0cmatch f:\n    case object(__globals__=g):\n        g\n",
    "x = 1\nmatch x:\n    case 1:\n        pass\n",
    "async def f():\n    await g()\n",
])
def test_what_the_language_leaves_out_never_comes_from_the_host_parser(source: str) -> None:
    with pytest.raises(GradcalcSyntaxError, match="is not supported in gradcalc"):
        parse(source)


# ------------------------------------------------ a program parsed a piece at a time

@pytest.fixture
def tiny_pieces(monkeypatch):
    """Every line that may start a piece ends one, and no piece's trees are kept: a small program
    goes through what only a large one meets otherwise."""
    import gradcalc.language.parser as parser_module

    monkeypatch.setattr(parser_module, "_PIECE_CHARS", 1)
    monkeypatch.setattr(parser_module, "_KEPT_CHARS", 0)


def _same_outcome(source: str, filename: str = "<string>") -> None:
    """`parse` a piece at a time gives what the grammar gives for the whole source at once."""
    try:
        expected = parse_with_lark(source, filename)
    except GradcalcSyntaxError as error:
        with pytest.raises(GradcalcSyntaxError) as caught:
            parse(source, filename)
        found = caught.value
        assert (str(found), found.line, found.column, found.type_name, found.input_ended) == (
            str(error), error.line, error.column, error.type_name, error.input_ended)
        return
    found = parse(source, filename)
    assert dump(found.module) == dump(expected.module) and found.warnings == expected.warnings


@pytest.mark.parametrize("program", [p for p in _programs() if p.parent.name == "language"],
                         ids=lambda p: p.stem)
def test_a_program_in_pieces_is_the_whole_program(program: Path, tiny_pieces) -> None:
    _same_outcome(program.read_text(encoding="utf-8"), str(program))


@pytest.mark.parametrize("source", [
    # a line at column 0 inside a string, brackets or after a backslash is no statement's start
    'x = """\nclass A:\n    pass\n"""\ny = 1\n',
    "x = [\n1,\n2]\ny = x\n",
    "x = 1 + \\\n2\ny = 3\n",
    # a decorator and its function, a statement and the clauses that continue it
    "@f\n@g(\n1)\ndef h():\n    pass\nz = 1\n",
    "if a:\n    b\n# note\nelse:\n    c\ntry:\n    d\nexcept E:\n    e\nfinally:\n    f\nfor i in j:\n    k\nelse:\n    l\n",
    "if a:\n    b\nelif c:\n    d\n",
    # the grammar for one piece (a word that may start a `match` statement), CPython's for the others
    "x = 1\nmatch = x\nmatch.y = 2\nz = 'a\\d'\n",
    "x = 1\n\x0cmatch x:\n    case object(__globals__=g):\n        pass\n",
    "x = 1\nasync def f():\n    pass\n",
    "x = 1\ny = f(await)\n",
    # errors in a later piece, and a tokenizer error after it that Python reports first
    "x = 1\ny = 2\nz = (3,\nw = 4\n",
    "x = 1\ny = 2 +\nz = 3\n",
    "x = 1\ny = 2 +\nz = 'never closed\n",
    "x = 1\n  y = 2\n",
    "x = 1\ny = 2\nelse:\n    z\n",
    "x = 1\ndef f():\n    return 1\n  y = 2\n",
    "x = 1\ny = )\n",
    'x = 1\ny = """never\nclosed\n',
])
def test_pieces_end_where_statements_end(source: str, tiny_pieces) -> None:
    _same_outcome(source)


def test_a_large_program_keeps_its_line_numbers() -> None:
    # the default piece size: a few hundred pieces, those after the first ones made again when run
    unit = 'def f(x):\n    """Doc.\nclass Not:\n    a statement\n"""\n    return x + 1\n\n\ny = [f(i)\nfor i in range(3)]\n'
    source = unit * 12000 + "if y:\n    z = 1\nelse:\n    z = 2\n"
    found = parse(source)
    expected = py.parse(source)
    assert len(found._pieces) > 10 and found._pieces[-1].kept is None
    assert all(dump(a) == dump(b) for a, b in zip(found.statements(), expected.body, strict=True))
