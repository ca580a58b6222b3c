"""Tests of the language front end: grammar, tree building, syntax errors, is_complete.

Most tree checks compare against Python's own parser: a snippet is parsed by
both and Python's tree is translated into gradcalc's ast nodes.
"""
from __future__ import annotations

import ast as py
import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gradcalc.language import ast
from gradcalc.language.parser import GradcalcSyntaxError, is_complete, parse

REPO = Path(__file__).resolve().parent.parent
CORPUS = REPO.parent / "shared" / "oracle" / "corpus"


# ------------------------------------------------------- Python ast -> ours

_BINOPS = {py.Add: "+", py.Sub: "-", py.Mult: "*", py.Div: "/", py.FloorDiv: "//", py.Mod: "%",
           py.Pow: "**", py.MatMult: "@", py.BitAnd: "&", py.BitOr: "|", py.BitXor: "^",
           py.LShift: "<<", py.RShift: ">>"}
_UNARY = {py.USub: "-", py.UAdd: "+", py.Invert: "~", py.Not: "not"}
_CMP = {py.Lt: "<", py.Gt: ">", py.Eq: "==", py.NotEq: "!=", py.LtE: "<=", py.GtE: ">=",
        py.In: "in", py.NotIn: "not in", py.Is: "is", py.IsNot: "is not"}


def convert(node):
    """Python's tree for a snippet, as gradcalc's nodes (positions 1-based)."""
    if isinstance(node, list):
        return [convert(item) for item in node]
    if node is None:
        return None
    result = _convert(node)
    if hasattr(node, "lineno") and isinstance(result, ast.Node):
        result.line, result.column = node.lineno, node.col_offset + 1
    return result


def _params(args: py.arguments) -> list:
    out = []
    defaults = [None] * (len(args.args) - len(args.defaults)) + list(args.defaults)
    for arg, default in zip(args.args, defaults):
        out.append(ast.Param(arg.arg, convert(default), "normal"))
    if args.vararg:
        out.append(ast.Param(args.vararg.arg, None, "varargs"))
    for arg, default in zip(args.kwonlyargs, args.kw_defaults):
        out.append(ast.Param(arg.arg, convert(default), "kwonly"))
    if args.kwarg:
        out.append(ast.Param(args.kwarg.arg, None, "kwargs"))
    return out


def _fstring(node: py.JoinedStr) -> ast.FString:
    parts = []
    for value in node.values:
        if isinstance(value, py.Constant):
            parts.append(value.value)
        else:
            spec = _fstring(value.format_spec) if value.format_spec is not None else None
            conversion = None if value.conversion == -1 else chr(value.conversion)
            parts.append(ast.FormattedValue(convert(value.value), conversion, spec, None))
    return ast.FString(parts)


def _convert(node):
    kind = type(node)
    if kind is py.Module:
        return ast.Module(convert(node.body))
    if kind is py.Expr:
        return ast.ExprStmt(convert(node.value))
    if kind is py.Assign:
        return ast.Assign(convert(node.targets), convert(node.value))
    if kind is py.AugAssign:
        return ast.AugAssign(convert(node.target), _BINOPS[type(node.op)], convert(node.value))
    if kind is py.Delete:
        return ast.Delete(convert(node.targets))
    if kind in (py.Pass, py.Break, py.Continue):
        return {py.Pass: ast.Pass, py.Break: ast.Break, py.Continue: ast.Continue}[kind]()
    if kind is py.Return:
        return ast.Return(convert(node.value))
    if kind is py.If:
        return ast.If(convert(node.test), convert(node.body), convert(node.orelse))
    if kind is py.While:
        return ast.While(convert(node.test), convert(node.body), convert(node.orelse))
    if kind is py.For:
        return ast.For(convert(node.target), convert(node.iter), convert(node.body), convert(node.orelse))
    if kind is py.With:
        items = [ast.WithItem(convert(i.context_expr), convert(i.optional_vars)) for i in node.items]
        return ast.With(items, convert(node.body))
    if kind is py.FunctionDef:
        return ast.FunctionDef(node.name, _params(node.args), convert(node.body), convert(node.decorator_list))
    if kind is py.Assert:
        return ast.Assert(convert(node.test), convert(node.msg))
    if kind is py.Raise:
        return ast.Raise(convert(node.exc))
    if kind is py.Global:
        return ast.Global(list(node.names))
    if kind is py.Nonlocal:
        return ast.Nonlocal(list(node.names))
    if kind is py.Import:
        return ast.Import([ast.Alias(a.name, a.asname) for a in node.names])
    if kind is py.ImportFrom:
        return ast.ImportFrom(node.module, [ast.Alias(a.name, a.asname) for a in node.names])
    if kind is py.Constant:
        return ast.Constant(node.value)
    if kind is py.JoinedStr:
        return _fstring(node)
    if kind is py.Name:
        return ast.Name(node.id)
    if kind is py.List:
        return ast.ListExpr(convert(node.elts))
    if kind is py.Tuple:
        return ast.TupleExpr(convert(node.elts))
    if kind is py.Set:
        return ast.SetExpr(convert(node.elts))
    if kind is py.Dict:
        return ast.DictExpr(convert(node.keys), convert(node.values))
    if kind is py.Starred:
        return ast.Starred(convert(node.value))
    if kind is py.BinOp:
        return ast.BinOp(_BINOPS[type(node.op)], convert(node.left), convert(node.right))
    if kind is py.UnaryOp:
        return ast.UnaryOp(_UNARY[type(node.op)], convert(node.operand))
    if kind is py.BoolOp:
        return ast.BoolOp("and" if isinstance(node.op, py.And) else "or", convert(node.values))
    if kind is py.Compare:
        return ast.Compare(convert(node.left), [_CMP[type(op)] for op in node.ops], convert(node.comparators))
    if kind is py.IfExp:
        return ast.IfExp(convert(node.test), convert(node.body), convert(node.orelse))
    if kind is py.Attribute:
        return ast.Attribute(convert(node.value), node.attr)
    if kind is py.Slice:
        return ast.Slice(convert(node.lower), convert(node.upper), convert(node.step))
    if kind is py.Subscript:
        return ast.Subscript(convert(node.value), convert(node.slice))
    if kind is py.Call:
        return ast.Call(convert(node.func), convert(node.args),
                        [ast.Keyword(k.arg, convert(k.value)) for k in node.keywords])
    if kind is py.Lambda:
        return ast.Lambda(_params(node.args), convert(node.body))
    if kind in (py.ListComp, py.GeneratorExp, py.SetComp):
        gens = [ast.Comprehension(convert(g.target), convert(g.iter), convert(g.ifs)) for g in node.generators]
        cls = {py.ListComp: ast.ListComp, py.GeneratorExp: ast.GeneratorExp, py.SetComp: ast.SetComp}[kind]
        return cls(convert(node.elt), gens)
    if kind is py.DictComp:
        gens = [ast.Comprehension(convert(g.target), convert(g.iter), convert(g.ifs)) for g in node.generators]
        return ast.DictComp(convert(node.key), convert(node.value), gens)
    raise AssertionError(f"no translation for {kind.__name__}")


def expand_debug(node):
    """Our `{x=}` keeps "x=" on the field; Python puts it in the literal text before."""
    if isinstance(node, list):
        return [expand_debug(item) for item in node]
    if isinstance(node, ast.FString):
        parts = []
        for part in node.parts:
            if isinstance(part, ast.FormattedValue) and part.debug_text is not None:
                if parts and isinstance(parts[-1], str):
                    parts[-1] += part.debug_text
                else:
                    parts.append(part.debug_text)
                part = ast.FormattedValue(expand_debug(part.value), part.conversion,
                                          expand_debug(part.format_spec), None)
            parts.append(expand_debug(part))
        node.parts = parts
        return node
    if isinstance(node, ast.Node):
        for name, value in vars(node).items():
            if name not in ("line", "column"):
                setattr(node, name, expand_debug(value))
    return node


# Nodes whose positions Python records differently or not at all.
_NO_POSITION = (ast.FString, ast.FormattedValue, ast.Comprehension, ast.WithItem, ast.Param,
                ast.Keyword, ast.Alias, ast.Module, ast.GeneratorExp)


def positions(node, out=None) -> list:
    """(type, line, column) of every node that Python positions the same way."""
    out = [] if out is None else out
    if isinstance(node, list):
        for item in node:
            positions(item, out)
    elif isinstance(node, ast.FString):
        out.append(("FString", node.line, node.column))  # its insides are not compared
    elif isinstance(node, ast.Node):
        if not isinstance(node, _NO_POSITION):
            out.append((type(node).__name__, node.line, node.column))
        for name, value in vars(node).items():
            if name not in ("line", "column"):
                positions(value, out)
    return out


def same_as_python(source: str, check_positions: bool = True) -> None:
    ours = parse(source)
    theirs = convert(py.parse(source))
    if check_positions:
        assert positions(ours) == positions(theirs)
    assert expand_debug(ours) == theirs


# ------------------------------------------------------------------- corpus

def _corpus_programs() -> list:
    if not CORPUS.is_dir():
        return []
    return sorted(CORPUS.rglob("*.grad"))


def _expects_syntax_error(program: Path) -> bool:
    expected = program.with_name(program.name[:-len(".grad")] + ".expected.json")
    if not expected.is_file():
        return False
    return json.loads(expected.read_text(encoding="utf-8"))["stderr"].startswith("SyntaxError")


@pytest.mark.skipif(not CORPUS.is_dir(), reason="the shared oracle corpus is not here")
@pytest.mark.parametrize("program", _corpus_programs(), ids=lambda p: p.stem)
def test_corpus_program_parses(program: Path) -> None:
    source = program.read_text(encoding="utf-8")
    if _expects_syntax_error(program):
        with pytest.raises(GradcalcSyntaxError):
            parse(source, str(program))
    else:
        same_as_python(source)


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


@pytest.mark.parametrize("source", SNIPPETS)
def test_same_tree_as_python(source: str) -> None:
    same_as_python(source, check_positions="f'" not in source.lower() and 'f"' not in source)


# ----------------------------------------------------------- selected trees

def body(source: str) -> list:
    return parse(source).body


def test_power_binds_tighter_than_unary_minus() -> None:
    assert body("-2 ** 2") == [ast.ExprStmt(ast.UnaryOp("-", ast.BinOp("**", ast.Constant(2), ast.Constant(2))))]
    assert body("2 ** -1") == [ast.ExprStmt(ast.BinOp("**", ast.Constant(2), ast.UnaryOp("-", ast.Constant(1))))]


def test_chained_comparison_is_one_node() -> None:
    (stmt,) = body("a < b <= c")
    assert stmt.value == ast.Compare(ast.Name("a"), ["<", "<="], [ast.Name("b"), ast.Name("c")])


def test_not_in_and_is_not() -> None:
    (stmt,) = body("a not in b is not c")
    assert stmt.value.ops == ["not in", "is not"]


def test_elif_is_nested_if() -> None:
    (stmt,) = body("if a:\n    b\nelif c:\n    d\nelse:\n    e\n")
    assert stmt == ast.If(ast.Name("a"), [ast.ExprStmt(ast.Name("b"))],
                          [ast.If(ast.Name("c"), [ast.ExprStmt(ast.Name("d"))], [ast.ExprStmt(ast.Name("e"))])])


def test_parameters_kinds() -> None:
    (stmt,) = body("def f(a, b=1, *args, c, d=2, **kw): pass")
    assert [(p.name, p.kind) for p in stmt.params] == [
        ("a", "normal"), ("b", "normal"), ("args", "varargs"), ("c", "kwonly"), ("d", "kwonly"), ("kw", "kwargs")]
    (stmt,) = body("def f(a, *, b): pass")
    assert [(p.name, p.kind) for p in stmt.params] == [("a", "normal"), ("b", "kwonly")]


def test_decorators_are_kept() -> None:
    (stmt,) = body("@torch.no_grad()\ndef f(t):\n    return t\n")
    assert stmt.decorators == [ast.Call(ast.Attribute(ast.Name("torch"), "no_grad"), [], [])]
    assert (stmt.line, stmt.column) == (2, 1)


def test_fstring_fields() -> None:
    (stmt,) = body("f'{x=} {y!r:>{w}} {{z}}'")
    x, y = stmt.value.parts[0], stmt.value.parts[2]
    assert x == ast.FormattedValue(ast.Name("x"), "r", None, "x=")
    assert y == ast.FormattedValue(ast.Name("y"), "r", ast.FString([">", ast.FormattedValue(ast.Name("w"), None, None, None)]), None)
    assert stmt.value.parts[1] == " " and stmt.value.parts[3] == " {z}"


def test_fstring_debug_text_is_verbatim() -> None:
    (stmt,) = body('print(f"{name = }")')
    field = stmt.value.args[0].parts[0]
    assert field.debug_text == "name = " and field.conversion == "r"
    (stmt,) = body('f"{x.item()=:.2f}"')
    field = stmt.value.parts[0]
    assert field.debug_text == "x.item()=" and field.conversion is None
    assert field.format_spec == ast.FString([".2f"])


def test_fstring_field_positions_point_into_the_file() -> None:
    stmt = body("y = 1\nz = f'ab{x + 1}'")[1]
    field = stmt.value.parts[1]
    assert (field.value.line, field.value.column) == (2, 10)
    assert (field.value.right.line, field.value.right.column) == (2, 14)


def test_adjacent_strings_concatenate() -> None:
    assert body("'a' \"b\" '''c'''") == [ast.ExprStmt(ast.Constant("abc"))]


def test_strings_with_hash_and_brackets_do_not_confuse_layout() -> None:
    (stmt,) = body("s = '# ( [ {'  # real comment")
    assert stmt.value == ast.Constant("# ( [ {")


def test_positions_are_one_based() -> None:
    (stmt,) = body("\n  \nx = y + 1")
    assert (stmt.line, stmt.column) == (3, 1)
    assert (stmt.value.line, stmt.value.column) == (3, 5)
    assert (stmt.value.right.line, stmt.value.right.column) == (3, 9)


def test_empty_program() -> None:
    assert body("") == [] and body("\n\n# only a comment\n") == []


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


def test_runtime_syntax_errors_are_left_to_the_interpreter() -> None:
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
    assert parse("x = 1").body == [ast.Assign([ast.Name("x")], ast.Constant(1))]


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
        st.builds(lambda p: f"{p[0]}, {p[1]}", pair),
    )


_EXPRESSIONS = st.recursive(_ATOMS, _compose, max_leaves=8)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_EXPRESSIONS)
def test_generated_expressions_match_python(source: str) -> None:
    try:
        expected = convert(py.parse(source))
    except SyntaxError:
        with pytest.raises(GradcalcSyntaxError):
            parse(source)
        return
    ours = parse(source)
    assert positions(ours) == positions(expected)
    assert ours == expected


_SIMPLE = st.sampled_from([
    "x = a", "a, b = b, a", "x[0] += 1", "del x", "pass", "return a", "print(f'{a=}')",
    "y = [1,\n  2]", "z = a + \\\n  b", "break", "assert a, 'm'", "import torch.nn as nn",
    "s = '#('  # )", "a; b",
])
_HEADERS = st.sampled_from(["if a:", "elif b:", "else:", "for v in a:", "while b:", "def f(p, q=1):",
                            "with a as w, b:", "@dec\ndef g():", "for (i, j) in a:"])


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
        expected = convert(py.parse(source))
    except SyntaxError as error:
        with pytest.raises(GradcalcSyntaxError) as caught:
            parse(source)
        if isinstance(error, IndentationError):
            assert caught.value.type_name == "IndentationError"
        return
    ours = parse(source)
    assert positions(ours) == positions(expected)
    assert expand_debug(ours) == expected


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
    assert parse("x = 1").body
    (cache,) = (tmp_path / "gradcalc").iterdir()
    written = cache.stat().st_mtime_ns
    monkeypatch.setattr(parser_module, "_lark", None)
    assert parse("y = f'{x=}'").body
    assert cache.stat().st_mtime_ns == written


def test_long_operator_chain() -> None:
    (stmt,) = body("x = " + " + ".join(["1"] * 3000))
    depth, node = 0, stmt.value
    while isinstance(node, ast.BinOp):
        depth, node = depth + 1, node.left
    assert depth == 2999


def test_windows_newlines_and_byte_order_mark() -> None:
    assert body("\ufeffif x:\r\n    y\r\n") == body("if x:\n    y\n")
