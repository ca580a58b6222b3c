"""The small syntax tree the parser builds and the interpreter walks.

Every node keeps the line and column (both 1-based) where it starts, for error messages.
Nodes are plain classes declared by their field annotations (as Python's own ast is): the
module is imported at every start, and dataclasses would cost several milliseconds there.
"""
from __future__ import annotations

from typing import Any, Optional, Union


class Node:
    """Fields come from the class's annotations, in order; defaults from class attributes."""

    __slots__ = ("line", "column")
    _fields: tuple = ()

    def __init_subclass__(cls) -> None:
        own = tuple(name for name in cls.__dict__.get("__annotations__", {}))
        cls._fields = cls._fields + own
        cls._defaults = {name: cls.__dict__[name] for name in own if name in cls.__dict__}

    def __init__(self, *args: Any, line: int = 0, column: int = 0, **kwargs: Any) -> None:
        fields = self._fields
        if len(args) > len(fields):
            raise TypeError(f"{type(self).__name__} takes {len(fields)} fields")
        for name, value in zip(fields, args):
            setattr(self, name, value)
        for name in fields[len(args):]:
            setattr(self, name, kwargs.pop(name) if name in kwargs else self._defaults[name])
        if kwargs:
            raise TypeError(f"{type(self).__name__} has no field {next(iter(kwargs))!r}")
        self.line = line
        self.column = column

    def __eq__(self, other: object) -> bool:
        return type(self) is type(other) and all(getattr(self, f) == getattr(other, f) for f in self._fields)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"{type(self).__name__}({', '.join(f'{f}={getattr(self, f)!r}' for f in self._fields)})"


# ---------------------------------------------------------------- expressions

class Constant(Node):
    value: Any  # int, float, complex, str, bool, None or Ellipsis


class FormattedValue(Node):
    """One `{...}` field of an f-string."""
    value: "Expr"
    conversion: Optional[str]  # "r", "s", "a" or None
    format_spec: Optional["FString"]  # the spec may itself contain fields
    debug_text: Optional[str]  # `{x = }` keeps "x = " verbatim; None otherwise


class FString(Node):
    parts: list  # str | FormattedValue


class Name(Node):
    id: str


class ListExpr(Node):
    elts: list


class TupleExpr(Node):
    elts: list


class SetExpr(Node):
    elts: list


class DictExpr(Node):
    keys: list  # an entry None stands for `**mapping`
    values: list


class Starred(Node):
    value: "Expr"


class BinOp(Node):
    op: str  # + - * / // % ** @ & | ^ << >>
    left: "Expr"
    right: "Expr"


class UnaryOp(Node):
    op: str  # - + ~ not
    operand: "Expr"


class BoolOp(Node):
    op: str  # and / or
    values: list


class Compare(Node):
    left: "Expr"
    ops: list  # < > == != <= >= in "not in" is "is not"
    comparators: list


class IfExp(Node):
    test: "Expr"
    body: "Expr"
    orelse: "Expr"


class Attribute(Node):
    value: "Expr"
    attr: str


class Slice(Node):
    lower: Optional["Expr"]
    upper: Optional["Expr"]
    step: Optional["Expr"]


class Subscript(Node):
    value: "Expr"
    index: "Expr"  # an expression, a Slice, or a TupleExpr whose items may be Slices


class Keyword(Node):
    name: Optional[str]  # None for `**mapping`
    value: "Expr"


class Call(Node):
    func: "Expr"
    args: list  # Expr | Starred
    keywords: list  # Keyword


class Param(Node):
    name: str
    default: Optional["Expr"] = None
    kind: str = "normal"  # normal, varargs (*args), kwonly (after * or *args), kwargs (**kw)


class Lambda(Node):
    params: list  # Param
    body: "Expr"


class Comprehension(Node):
    target: "Expr"
    iter: "Expr"
    ifs: list


class ListComp(Node):
    elt: "Expr"
    generators: list  # Comprehension


class GeneratorExp(Node):
    elt: "Expr"
    generators: list


class SetComp(Node):
    elt: "Expr"
    generators: list


class DictComp(Node):
    key: "Expr"
    value: "Expr"
    generators: list


Expr = Union[Constant, FString, Name, ListExpr, TupleExpr, SetExpr, DictExpr, Starred, BinOp, UnaryOp,
             BoolOp, Compare, IfExp, Attribute, Slice, Subscript, Call, Lambda, ListComp, GeneratorExp,
             SetComp, DictComp]


# ----------------------------------------------------------------- statements

class ExprStmt(Node):
    value: Expr


class Assign(Node):
    targets: list  # `a = b = 1` has two; a target is Name, Attribute, Subscript, TupleExpr, ListExpr or Starred
    value: Expr


class AugAssign(Node):
    target: Expr
    op: str  # the binary operator without "=": + - * / // % ** @ & | ^ << >>
    value: Expr


class Delete(Node):
    targets: list


class Pass(Node):
    pass


class Break(Node):
    pass


class Continue(Node):
    pass


class Return(Node):
    value: Optional[Expr]


class If(Node):
    test: Expr
    body: list
    orelse: list  # `elif` is an If alone in orelse


class While(Node):
    test: Expr
    body: list
    orelse: list


class For(Node):
    target: Expr
    iter: Expr
    body: list
    orelse: list


class WithItem(Node):
    context_expr: Expr
    optional_vars: Optional[Expr]


class With(Node):
    items: list  # WithItem
    body: list


class FunctionDef(Node):
    name: str
    params: list  # Param
    body: list
    decorators: list  # Expr


class ClassDef(Node):
    name: str
    base: Optional[Expr]  # the one base class gradcalc supports
    body: list  # FunctionDef, Assign, ExprStmt (a docstring) and Pass only


class Assert(Node):
    test: Expr
    msg: Optional[Expr]


class Raise(Node):
    exc: Optional[Expr]


class Global(Node):
    names: list


class Nonlocal(Node):
    names: list


class Alias(Node):
    name: str  # dotted: "torch.nn.functional"
    asname: Optional[str]


class Import(Node):
    names: list  # Alias


class ImportFrom(Node):
    module: str  # dotted
    names: list  # Alias; a single Alias("*") for `from m import *`


class Module(Node):
    body: list
    warnings: tuple = ()  # (category, message) pairs the tokenizer gives, such as an invalid escape
