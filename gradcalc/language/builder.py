"""Lark's parse tree to Python's own `ast`, with positions, raising the syntax errors that
CPython's parser raises (the ones its compiler raises are left to compile()).

Each grammar rule (or alias) has a method of the same name, called with the rule's position
and its already built children; the tree is walked with an explicit stack, since long operator
chains make deep trees.
"""
from __future__ import annotations

import ast
import warnings
from typing import Any, Callable

from .fstrings import FStringReader, string_prefix
from .syntax_errors import GradcalcSyntaxError, UNSUPPORTED_KEYWORDS, make_error, unsupported

_BINARY = {"+": ast.Add, "-": ast.Sub, "*": ast.Mult, "/": ast.Div, "//": ast.FloorDiv, "%": ast.Mod,
           "**": ast.Pow, "@": ast.MatMult, "&": ast.BitAnd, "|": ast.BitOr, "^": ast.BitXor,
           "<<": ast.LShift, ">>": ast.RShift}
_UNARY = {"-": ast.USub, "+": ast.UAdd, "~": ast.Invert}
_COMPARE = {"<": ast.Lt, ">": ast.Gt, "==": ast.Eq, ">=": ast.GtE, "<=": ast.LtE, "!=": ast.NotEq,
            "in": ast.In, "not in": ast.NotIn, "is": ast.Is, "is not": ast.IsNot}


def _located(node: ast.AST, meta: Any) -> Any:
    """`node` placed where the rule matched (Lark counts columns from 1, ast from 0)."""
    if getattr(meta, "empty", False):
        node.lineno, node.col_offset, node.end_lineno, node.end_col_offset = 1, 0, 1, 0
    else:
        node.lineno, node.col_offset = meta.line, meta.column - 1
        node.end_lineno, node.end_col_offset = meta.end_line, meta.end_column - 1
    return node


def _compound(node: ast.stmt, meta: Any, last: list) -> Any:
    """A block statement, which ends where its last statement does (Lark's rule also holds the newline)."""
    _located(node, meta)
    if last:
        node.end_lineno, node.end_col_offset = last[-1].end_lineno, last[-1].end_col_offset
    return node


def _at_token(node: ast.AST, token: Any) -> Any:
    node.lineno, node.col_offset = token.line, token.column - 1
    node.end_lineno, node.end_col_offset = token.end_line, token.end_column - 1
    return node


def _starts_with(node: ast.AST, meta: Any) -> bool:
    """Whether a child starts where its parent rule does (it is not in brackets)."""
    return (node.lineno, node.col_offset) == (meta.line, meta.column - 1)


def _bracketed_managers(context: ast.expr) -> bool:
    """Whether a `with` statement's one item is Python's bracketed list of managers: a tuple (one
    in a with item is always in brackets) of one or more elements, none starred."""
    return isinstance(context, ast.Tuple) and bool(context.elts) and not any(
        isinstance(element, ast.Starred) for element in context.elts)


def _flatten(children: list) -> list:
    out: list = []
    for child in children:
        if isinstance(child, list):
            out.extend(child)
        elif child is not None:
            out.append(child)
    return out


def _set_context(node: ast.AST, context: ast.expr_context) -> ast.AST:
    node.ctx = context
    if isinstance(node, (ast.Tuple, ast.List)):
        for element in node.elts:
            _set_context(element, context)
    elif isinstance(node, ast.Starred):
        _set_context(node.value, context)
    return node


_TARGET_WORDS = [
    (ast.Call, "function call"), (ast.BinOp, "expression"), (ast.UnaryOp, "expression"),
    (ast.BoolOp, "expression"), (ast.Compare, "comparison"), (ast.IfExp, "conditional expression"),
    (ast.Lambda, "lambda"), (ast.Dict, "dict literal"), (ast.Set, "set display"),
    (ast.ListComp, "list comprehension"), (ast.SetComp, "set comprehension"),
    (ast.DictComp, "dict comprehension"), (ast.GeneratorExp, "generator expression"),
    (ast.JoinedStr, "f-string expression"), (ast.Starred, "starred"), (ast.NamedExpr, "named expression"),
    (ast.Yield, "yield expression"), (ast.YieldFrom, "yield expression"),
]


def _describe_target(node: ast.AST) -> str:
    if isinstance(node, ast.Constant):
        if node.value is None or isinstance(node.value, bool):
            return str(node.value)
        return "ellipsis" if node.value is Ellipsis else "literal"
    for kind, words in _TARGET_WORDS:
        if isinstance(node, kind):
            return words
    return "expression"


def _describe(node: ast.AST) -> str:
    """The name Python uses for a node in augmented-assignment and annotation errors."""
    if isinstance(node, ast.Tuple):
        return "tuple"
    if isinstance(node, ast.List):
        return "list"
    return _describe_target(node)


class Builder:
    """Builds a Python `ast.Module` (or one f-string field's expression) from Lark's tree."""

    def __init__(self, text: str, filename: str, parse_field: Callable[[str], Any]) -> None:
        self.text = text
        self.filename = filename
        self.parse_field = parse_field  # parses an f-string field's "(expression)" to its tree
        self.warnings: list = []  # (category, message) of Python's tokenizer: invalid escapes

    def transform(self, root: Any, tree_class: type) -> Any:
        results: list = []
        stack = [(root, False)]
        while stack:
            node, ready = stack.pop()
            if not isinstance(node, tree_class):
                results.append(node)
            elif ready:
                count = len(node.children)
                children = results[len(results) - count:]
                del results[len(results) - count:]
                results.append(getattr(self, node.data)(node.meta, children))
            else:
                stack.append((node, True))
                stack.extend((child, False) for child in reversed(node.children))
        return results[0]

    def fail(self, message: str, where: Any, **extra: Any) -> GradcalcSyntaxError:
        if isinstance(where, ast.AST):
            line, column = where.lineno, where.col_offset + 1
        else:
            line, column = where.line, where.column
        return make_error(self.text, self.filename, message, line, column, **extra)

    # ---- module and statements

    def file_input(self, meta, children):
        return _byte_columns(ast.Module(body=_flatten(children), type_ignores=[]), self.text)

    def fexpr(self, meta, children):
        return children[0]

    def simple_stmt(self, meta, children):
        return children  # a list: `a; b` holds several statements

    def suite(self, meta, children):
        return _flatten(children)

    def expr_stmt(self, meta, children):
        return _located(ast.Expr(value=children[0]), meta)

    def assign_stmt(self, meta, children):
        *targets, value = children
        for target in targets:
            if isinstance(target, (ast.Yield, ast.YieldFrom)):
                raise self.fail("assignment to yield expression not possible", target)
        targets = [self.target(t, ast.Store(), top=True) for t in targets]
        return _located(ast.Assign(targets=targets, value=value, type_comment=None), meta)

    def annassign_stmt(self, meta, children):
        target, annotation, *value = children  # `[= value]` of an inlined rule leaves no placeholder
        value = value[0] if value else None
        if isinstance(target, (ast.Tuple, ast.List)):
            raise self.fail(f"only single target (not {_describe(target)}) can be annotated", target)
        if not isinstance(target, (ast.Name, ast.Attribute, ast.Subscript)):
            raise self.fail("illegal target for annotation", target)
        simple = int(isinstance(target, ast.Name) and _starts_with(target, meta))
        return _located(ast.AnnAssign(target=_set_context(target, ast.Store()), annotation=annotation,
                                      value=value, simple=simple), meta)

    def augassign_stmt(self, meta, children):
        target, op, value = children
        if not isinstance(target, (ast.Name, ast.Attribute, ast.Subscript)):
            raise self.fail(f"'{_describe(target)}' is an illegal expression for augmented assignment", target)
        return _located(ast.AugAssign(target=_set_context(target, ast.Store()), op=_BINARY[op](), value=value), meta)

    def augassign_op(self, meta, children):
        return str(children[0])[:-1]

    def del_stmt(self, meta, children):
        target = children[0]
        # `del a, b` deletes two names; `del (a, b)` deletes one tuple of them
        if isinstance(target, ast.Tuple) and target.elts and self._unbracketed(target):
            targets = target.elts
        else:
            targets = [target]
        return _located(ast.Delete(targets=[self.target(t, ast.Del()) for t in targets]), meta)

    @staticmethod
    def _unbracketed(node: ast.Tuple) -> bool:
        first = node.elts[0]
        return (first.lineno, first.col_offset) == (node.lineno, node.col_offset)

    def pass_stmt(self, meta, children):
        return _located(ast.Pass(), meta)

    def break_stmt(self, meta, children):
        return _located(ast.Break(), meta)

    def continue_stmt(self, meta, children):
        return _located(ast.Continue(), meta)

    def return_stmt(self, meta, children):
        return _located(ast.Return(value=children[0]), meta)

    def raise_stmt(self, meta, children):
        exc, cause = children
        return _located(ast.Raise(exc=exc, cause=cause), meta)

    def global_stmt(self, meta, children):
        return _located(ast.Global(names=[str(t) for t in children]), meta)

    def nonlocal_stmt(self, meta, children):
        return _located(ast.Nonlocal(names=[str(t) for t in children]), meta)

    def assert_stmt(self, meta, children):
        return _located(ast.Assert(test=children[0], msg=children[1]), meta)

    def import_name(self, meta, children):
        return _located(ast.Import(names=children), meta)

    def dotted_as_name(self, meta, children):
        name, asname = children
        return _located(ast.alias(name=name, asname=None if asname is None else str(asname)), meta)

    def dotted_name(self, meta, children):
        return ".".join(str(t) for t in children)

    def relative_module(self, meta, children):
        level = sum(child for child in children if isinstance(child, int))
        names = [child for child in children if isinstance(child, str)]
        return (names[0] if names else None), level

    def import_dot(self, meta, children):
        return 1

    def import_ellipsis(self, meta, children):
        return 3

    def import_from(self, meta, children):
        (module, level), *names = children
        return _located(ast.ImportFrom(module=module, names=names, level=level), meta)

    def import_star(self, meta, children):
        return _located(ast.alias(name="*", asname=None), meta)

    def import_as_name(self, meta, children):
        name, asname = children
        return _located(ast.alias(name=str(name), asname=None if asname is None else str(asname)), meta)

    def if_stmt(self, meta, children):
        test, body, *elifs, orelse = children
        orelse = orelse or []
        # `elif` chains become nested Ifs, each alone in its parent's orelse, ending where the chain ends
        for clause in reversed(elifs):
            clause.orelse = orelse
            last = (orelse or clause.body)[-1]
            clause.end_lineno, clause.end_col_offset = last.end_lineno, last.end_col_offset
            orelse = [clause]
        return _compound(ast.If(test=test, body=body, orelse=orelse), meta, orelse or body)

    def elif_clause(self, meta, children):
        return _compound(ast.If(test=children[0], body=children[1], orelse=[]), meta, children[1])

    def else_clause(self, meta, children):
        return children[0]

    def while_stmt(self, meta, children):
        test, body, orelse = children
        return _compound(ast.While(test=test, body=body, orelse=orelse or []), meta, orelse or body)

    def for_stmt(self, meta, children):
        target, iterable, body, orelse = children
        return _compound(ast.For(target=self.target(target, ast.Store()), iter=iterable, body=body,
                                 orelse=orelse or [], type_comment=None), meta, orelse or body)

    def try_stmt(self, meta, children):
        body, *rest = children
        handlers = [c for c in rest if isinstance(c, ast.ExceptHandler)]
        tail = [c for c in rest if not isinstance(c, ast.ExceptHandler)]
        if handlers:
            orelse, finalbody = tail
        else:
            orelse, finalbody = None, tail[0]
        last = finalbody or orelse or (handlers[-1].body if handlers else body)
        return _compound(ast.Try(body=body, handlers=handlers, orelse=orelse or [], finalbody=finalbody or []), meta,
                         last)

    def try_star_stmt(self, meta, children):
        body, *rest = children
        handlers = [c for c in rest if isinstance(c, ast.ExceptHandler)]
        orelse, finalbody = [c for c in rest if not isinstance(c, ast.ExceptHandler)]
        last = finalbody or orelse or handlers[-1].body
        return _compound(ast.TryStar(body=body, handlers=handlers, orelse=orelse or [], finalbody=finalbody or []),
                         meta, last)

    def except_clause(self, meta, children):
        kind, name, body = children
        return _compound(ast.ExceptHandler(type=kind, name=None if name is None else str(name), body=body), meta,
                         body)

    except_star_clause = except_clause

    def finally_clause(self, meta, children):
        return children[0]

    def with_stmt(self, meta, children):
        *items, body = children
        if len(items) == 1 and items[0].optional_vars is None and _bracketed_managers(items[0].context_expr):
            # `with (a, b):` is two context managers in Python 3.11, not a tuple
            items = [ast.withitem(context_expr=element, optional_vars=None) for element in items[0].context_expr.elts]
        return _compound(ast.With(items=items, body=body, type_comment=None), meta, body)

    def with_item(self, meta, children):
        context, target = children
        if target is not None:
            target = self.target(target, ast.Store())
        return ast.withitem(context_expr=context, optional_vars=target)

    def decorated(self, meta, children):
        *decorators, definition = children
        definition.decorator_list = decorators
        return definition

    def decorator(self, meta, children):
        return children[0]

    def funcdef(self, meta, children):
        name, params, returns, body = children
        return _compound(ast.FunctionDef(name=str(name), args=params or self._arguments([]), body=body,
                                         decorator_list=[], returns=returns, type_comment=None), meta, body)

    def classdef(self, meta, children):
        name, arguments, body = children
        bases, keywords = arguments if arguments is not None else ([], [])
        return _compound(ast.ClassDef(name=str(name), bases=bases, keywords=keywords, body=body,
                                      decorator_list=[]), meta, body)

    # ---- parameters

    def parameters(self, meta, children):
        return self._arguments(children)

    lambda_parameters = parameters

    @staticmethod
    def _arg(name: Any, annotation: Any) -> ast.arg:
        """A parameter, spanning its name and annotation (not its default)."""
        node = _at_token(ast.arg(arg=str(name), annotation=annotation, type_comment=None), name)
        if annotation is not None:
            node.end_lineno, node.end_col_offset = annotation.end_lineno, annotation.end_col_offset
        return node

    def param(self, meta, children):
        name, annotation, default = children
        return "normal", self._arg(name, annotation), default

    def lambda_param(self, meta, children):
        name, default = children
        return "normal", self._arg(name, None), default

    def star_param(self, meta, children):
        name, annotation = (list(children) + [None])[:2]
        # a bare `*` only marks where keyword-only parameters start
        return "varargs", None if name is None else self._arg(name, annotation), meta

    def lambda_star_param(self, meta, children):
        name = children[0]
        return "varargs", None if name is None else self._arg(name, None), meta

    def dstar_param(self, meta, children):
        name, annotation = (list(children) + [None])[:2]
        return "kwargs", self._arg(name, annotation), None

    def lambda_dstar_param(self, meta, children):
        return "kwargs", self._arg(children[0], None), None

    def slash(self, meta, children):
        return "slash", None, meta

    def _arguments(self, params: list) -> ast.arguments:
        """Python's parameter-order rules, with its messages, and the `ast.arguments` they make."""
        positional: list = []
        posonly: list = []
        defaults: list = []
        kwonly: list = []
        kw_defaults: list = []
        vararg = kwarg = None
        star_seen = slash_seen = False
        bare_star = None
        for kind, arg, extra in params:
            where = arg if arg is not None else extra
            if kwarg is not None:
                raise self.fail("arguments cannot follow var-keyword argument", where)
            if kind == "slash":
                if slash_seen:
                    raise self.fail("/ may appear only once", where)
                if star_seen:
                    raise self.fail("/ must be ahead of *", where)
                if not positional:
                    raise self.fail("at least one argument must precede /", where)
                slash_seen = True
                posonly, positional = positional, []
                continue
            if kind == "varargs":
                if star_seen:
                    raise self.fail("* argument may appear only once", where)
                star_seen = True
                vararg = arg
                bare_star = extra if arg is None else None
                continue
            if kind == "kwargs":
                if bare_star is not None:
                    raise self.fail("named arguments must follow bare *", bare_star)
                kwarg = arg
                continue
            bare_star = None
            if star_seen:
                kwonly.append(arg)
                kw_defaults.append(extra)
            else:
                if extra is not None:
                    defaults.append(extra)
                elif defaults:
                    raise self.fail("non-default argument follows default argument", arg)
                positional.append(arg)
        if bare_star is not None:
            raise self.fail("named arguments must follow bare *", bare_star)
        return ast.arguments(posonlyargs=posonly, args=positional, vararg=vararg, kwonlyargs=kwonly,
                             kw_defaults=kw_defaults, kwarg=kwarg, defaults=defaults)

    # ---- assignment targets

    def target(self, node: ast.AST, context: ast.expr_context, top: bool = False) -> ast.AST:
        """Check that `node` can be assigned to (or deleted) and give it that context."""
        self._check_target(node, isinstance(context, ast.Del), top)
        return _set_context(node, context)

    def _check_target(self, node: ast.AST, deleting: bool, top: bool) -> None:
        if isinstance(node, (ast.Name, ast.Attribute, ast.Subscript)):
            return
        if isinstance(node, (ast.Tuple, ast.List)):
            for item in node.elts:
                self._check_target(item, deleting, False)
            return
        if isinstance(node, ast.Starred) and not deleting:
            # a lone starred target is reported by Python's compiler
            self._check_target(node.value, deleting, False)
            return
        what = _describe_target(node)
        if deleting:
            raise self.fail(f"cannot delete {what}", node)
        if top and what not in ("None", "True", "False"):
            raise self.fail(f"cannot assign to {what} here. Maybe you meant '==' instead of '='?", node)
        raise self.fail(f"cannot assign to {what}", node)

    # ---- expressions

    def tuple(self, meta, children):
        return _located(ast.Tuple(elts=list(children), ctx=ast.Load()), meta)

    def list(self, meta, children):
        return _located(ast.List(elts=list(children), ctx=ast.Load()), meta)

    def set(self, meta, children):
        return _located(ast.Set(elts=list(children)), meta)

    def dict(self, meta, children):
        return _located(ast.Dict(keys=[key for key, _ in children], values=[value for _, value in children]), meta)

    def key_value(self, meta, children):
        return (children[0], children[1])

    def dict_unpack(self, meta, children):
        return (None, children[0])

    def star_expr(self, meta, children):
        return _located(ast.Starred(value=children[0], ctx=ast.Load()), meta)

    def paren_star(self, meta, children):
        raise self.fail("cannot use starred expression here", children[0])

    def yield_expr(self, meta, children):
        return _located(ast.Yield(value=children[0]), meta)

    def yield_from(self, meta, children):
        return _located(ast.YieldFrom(value=children[0]), meta)

    def namedexpr(self, meta, children):
        name, value = children
        target = _at_token(ast.Name(id=str(name), ctx=ast.Store()), name)
        return _located(ast.NamedExpr(target=target, value=value), meta)

    def ifexp(self, meta, children):
        body, test, orelse = children
        return _located(ast.IfExp(test=test, body=body, orelse=orelse), meta)

    def lambdef(self, meta, children):
        params, body = children
        return _located(ast.Lambda(args=params or self._arguments([]), body=body), meta)

    def or_op(self, meta, children):
        return self._boolop(ast.Or, meta, children)

    def and_op(self, meta, children):
        return self._boolop(ast.And, meta, children)

    def _boolop(self, op: type, meta, children):
        left, right = children
        # `a or b or c` is one BoolOp with three values, as in Python, but not
        # `(a or b) or c`: a bracketed left operand starts after this node does
        if isinstance(left, ast.BoolOp) and isinstance(left.op, op) and _starts_with(left, meta):
            return _located(ast.BoolOp(op=op(), values=left.values + [right]), meta)
        return _located(ast.BoolOp(op=op(), values=[left, right]), meta)

    def not_op(self, meta, children):
        return _located(ast.UnaryOp(op=ast.Not(), operand=children[0]), meta)

    def compare(self, meta, children):
        ops = [_COMPARE[op]() for op in children[1::2]]
        return _located(ast.Compare(left=children[0], ops=ops, comparators=list(children[2::2])), meta)

    def comp_op(self, meta, children):
        return " ".join(str(t) for t in children)

    def binop(self, meta, children):
        left, op, right = children
        return _located(ast.BinOp(left=left, op=_BINARY[str(op)](), right=right), meta)

    def unaryop(self, meta, children):
        op, operand = children
        return _located(ast.UnaryOp(op=_UNARY[str(op)](), operand=operand), meta)

    def attribute(self, meta, children):
        value, name = children
        return _located(ast.Attribute(value=value, attr=str(name), ctx=ast.Load()), meta)

    def call(self, meta, children):
        func, arguments = children
        args, keywords = arguments if arguments is not None else ([], [])
        node = _located(ast.Call(func=func, args=args, keywords=keywords), meta)
        if len(args) == 1 and isinstance(args[0], ast.GeneratorExp) and getattr(args[0], "bare", False):
            # `f(x for x in y)`: the generator's brackets are the call's
            genexp = args[0]
            del genexp.bare
            genexp.lineno, genexp.col_offset = func.end_lineno, func.end_col_offset
            genexp.end_lineno, genexp.end_col_offset = node.end_lineno, node.end_col_offset
        return node

    def arguments(self, meta, children):
        args, keywords = [], []
        seen_keyword = seen_dstar = False
        for item in children:
            if isinstance(item, ast.keyword):
                if item.arg is None:
                    seen_dstar = True
                else:
                    seen_keyword = True
                keywords.append(item)
                continue
            if isinstance(item, ast.Starred):
                if seen_dstar:
                    raise self.fail("iterable argument unpacking follows keyword argument unpacking", item)
            elif seen_dstar:
                raise self.fail("positional argument follows keyword argument unpacking", item)
            elif seen_keyword:
                raise self.fail("positional argument follows keyword argument", item)
            args.append(item)
        return args, keywords

    def genexp_arguments(self, meta, children):
        elt, generators = children[0]
        genexp = _located(ast.GeneratorExp(elt=elt, generators=generators), meta)
        genexp.bare = True  # placed by `call`
        return [genexp], []

    def keyword(self, meta, children):
        name, value = children
        if not isinstance(name, ast.Name) or not _starts_with(name, meta):
            raise self.fail('expression cannot contain assignment, perhaps you meant "=="?', name)
        return _located(ast.keyword(arg=name.id, value=value), meta)

    def star_arg(self, meta, children):
        return _located(ast.Starred(value=children[0], ctx=ast.Load()), meta)

    def dstar_arg(self, meta, children):
        return _located(ast.keyword(arg=None, value=children[0]), meta)

    def subscript(self, meta, children):
        value, index = children
        return _located(ast.Subscript(value=value, slice=index, ctx=ast.Load()), meta)

    def slice(self, meta, children):
        lower, upper, step = (list(children) + [None])[:3]
        return _located(ast.Slice(lower=lower, upper=upper, step=step), meta)

    def comprehension(self, meta, children):
        elt, *generators = children
        if isinstance(elt, ast.Starred):
            raise self.fail("iterable unpacking cannot be used in comprehension", elt)
        return elt, generators

    def dict_comprehension(self, meta, children):
        key, value, *generators = children
        return key, value, generators

    def comp_for(self, meta, children):
        target, iterable, *ifs = children
        return ast.comprehension(target=self.target(target, ast.Store()), iter=iterable, ifs=ifs, is_async=0)

    def comp_if(self, meta, children):
        return children[0]

    def genexp(self, meta, children):
        elt, generators = children[0]
        return _located(ast.GeneratorExp(elt=elt, generators=generators), meta)

    def listcomp(self, meta, children):
        elt, generators = children[0]
        return _located(ast.ListComp(elt=elt, generators=generators), meta)

    def setcomp(self, meta, children):
        elt, generators = children[0]
        return _located(ast.SetComp(elt=elt, generators=generators), meta)

    def dictcomp(self, meta, children):
        key, value, generators = children[0]
        return _located(ast.DictComp(key=key, value=value, generators=generators), meta)

    # ---- atoms

    def name(self, meta, children):
        token = children[0]
        if token in UNSUPPORTED_KEYWORDS:
            raise self.fail(unsupported(str(token)), token)
        return _at_token(ast.Name(id=str(token), ctx=ast.Load()), token)

    def number(self, meta, children):
        token = children[0]
        digits = token.replace("_", "")
        if token.type == "IMAG_NUMBER":
            value: Any = complex(0, float(digits[:-1]))
        elif token.type == "FLOAT_NUMBER":
            value = float(digits)
        else:
            value = int(digits, 0)
        return _at_token(ast.Constant(value=value), token)

    def ellipsis(self, meta, children):
        return _located(ast.Constant(value=Ellipsis), meta)

    def const_none(self, meta, children):
        return _located(ast.Constant(value=None), meta)

    def const_true(self, meta, children):
        return _located(ast.Constant(value=True), meta)

    def const_false(self, meta, children):
        return _located(ast.Constant(value=False), meta)

    def strings(self, meta, children):
        kinds = {"b" in string_prefix(token) for token in children}
        if len(kinds) > 1:
            raise self.fail("cannot mix bytes and nonbytes literals", children[0])
        if kinds == {True}:
            return _located(ast.Constant(value=b"".join(self._literal(token) for token in children)), meta)
        parts: list = []
        tokens: dict = {}  # id of a formatted field -> the f-string token it came from
        for token in children:
            if "f" in string_prefix(token):
                reader = FStringReader(token, self.text, self.filename, self.warnings, self.parse_field)
                fields = reader.read()
                tokens.update((id(part), token) for part in fields if not isinstance(part, str))
                parts.extend(fields)
            else:
                parts.append(self._literal(token))
        if not tokens and not any("f" in string_prefix(token) for token in children):
            kind = "u" if string_prefix(children[0]) == "u" else None
            return _located(ast.Constant(value="".join(parts), kind=kind), meta)
        return _located(joined_string(parts, meta, tokens), meta)

    def _literal(self, token: Any) -> Any:
        # the token is exactly a Python string literal, so Python may decode it
        try:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                value = ast.literal_eval(str(token))
        except (SyntaxError, ValueError) as error:
            raise self.fail(getattr(error, "msg", None) or str(error), token) from None
        self.warnings.extend((warning.category.__name__, str(warning.message)) for warning in caught)
        return value


def _byte_columns(tree: ast.AST, text: str) -> ast.AST:
    """Python counts columns in UTF-8 bytes: convert where a line has other than ASCII."""
    if text.isascii():
        return tree
    lines = text.split("\n")

    def convert(line: int, column: int) -> int:
        source = lines[line - 1] if 0 < line <= len(lines) else ""
        return column if source.isascii() else len(source[:column].encode("utf-8"))

    for node in ast.walk(tree):
        if getattr(node, "lineno", None) is not None:
            node.col_offset = convert(node.lineno, node.col_offset)
            node.end_col_offset = convert(node.end_lineno, node.end_col_offset)
    return tree


def joined_string(parts: list, meta: Any, tokens: dict) -> ast.JoinedStr:
    """An f-string's `ast.JoinedStr`: neighbouring literal pieces joined, empty ones dropped; its
    pieces placed where the whole (implicitly concatenated) string is, as Python 3.11 places them.
    A format spec sits where its own f-string token is; so do its pieces, unless it holds a nested
    field (then they sit where the whole string is). `tokens` maps a field's id to its token."""
    values: list = []
    for part in parts:
        if isinstance(part, str):
            if not part:
                continue
            if values and isinstance(values[-1], ast.Constant):
                values[-1].value += part
                continue
            part = ast.Constant(value=part)
        values.append(part)
    for value in values:
        _located(value, meta)
        spec = getattr(value, "format_spec", None)
        if spec is not None:
            token = tokens.get(id(value), meta)
            _located(spec, token)
            nested = any(isinstance(piece, ast.FormattedValue) for piece in spec.values)
            for piece in spec.values:
                _located(piece, meta if nested else token)
    return ast.JoinedStr(values=values)

