"""The small syntax tree the parser builds and the interpreter walks.

Every node keeps the line and column (both 1-based) where it starts, for error messages.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Optional, Union


@dataclass
class Node:
    line: int = field(default=0, kw_only=True, compare=False, repr=False)
    column: int = field(default=0, kw_only=True, compare=False, repr=False)


# ---------------------------------------------------------------- expressions

@dataclass
class Constant(Node):
    value: Any  # int, float, complex, str, bool, None or Ellipsis


@dataclass
class FormattedValue(Node):
    """One `{...}` field of an f-string."""
    value: "Expr"
    conversion: Optional[str]  # "r", "s", "a" or None
    format_spec: Optional["FString"]  # the spec may itself contain fields
    debug_text: Optional[str]  # `{x = }` keeps "x = " verbatim; None otherwise


@dataclass
class FString(Node):
    parts: list  # str | FormattedValue


@dataclass
class Name(Node):
    id: str


@dataclass
class ListExpr(Node):
    elts: list


@dataclass
class TupleExpr(Node):
    elts: list


@dataclass
class SetExpr(Node):
    elts: list


@dataclass
class DictExpr(Node):
    keys: list  # an entry None stands for `**mapping`
    values: list


@dataclass
class Starred(Node):
    value: "Expr"


@dataclass
class BinOp(Node):
    op: str  # + - * / // % ** @ & | ^ << >>
    left: "Expr"
    right: "Expr"


@dataclass
class UnaryOp(Node):
    op: str  # - + ~ not
    operand: "Expr"


@dataclass
class BoolOp(Node):
    op: str  # and / or
    values: list


@dataclass
class Compare(Node):
    left: "Expr"
    ops: list  # < > == != <= >= in "not in" is "is not"
    comparators: list


@dataclass
class IfExp(Node):
    test: "Expr"
    body: "Expr"
    orelse: "Expr"


@dataclass
class Attribute(Node):
    value: "Expr"
    attr: str


@dataclass
class Slice(Node):
    lower: Optional["Expr"]
    upper: Optional["Expr"]
    step: Optional["Expr"]


@dataclass
class Subscript(Node):
    value: "Expr"
    index: "Expr"  # an expression, a Slice, or a TupleExpr whose items may be Slices


@dataclass
class Keyword(Node):
    name: Optional[str]  # None for `**mapping`
    value: "Expr"


@dataclass
class Call(Node):
    func: "Expr"
    args: list  # Expr | Starred
    keywords: list  # Keyword


@dataclass
class Param(Node):
    name: str
    default: Optional["Expr"] = None
    kind: str = "normal"  # normal, varargs (*args), kwonly (after * or *args), kwargs (**kw)


@dataclass
class Lambda(Node):
    params: list  # Param
    body: "Expr"


@dataclass
class Comprehension(Node):
    target: "Expr"
    iter: "Expr"
    ifs: list


@dataclass
class ListComp(Node):
    elt: "Expr"
    generators: list  # Comprehension


@dataclass
class GeneratorExp(Node):
    elt: "Expr"
    generators: list


@dataclass
class SetComp(Node):
    elt: "Expr"
    generators: list


@dataclass
class DictComp(Node):
    key: "Expr"
    value: "Expr"
    generators: list


Expr = Union[Constant, FString, Name, ListExpr, TupleExpr, SetExpr, DictExpr, Starred, BinOp, UnaryOp,
             BoolOp, Compare, IfExp, Attribute, Slice, Subscript, Call, Lambda, ListComp, GeneratorExp,
             SetComp, DictComp]


# ----------------------------------------------------------------- statements

@dataclass
class ExprStmt(Node):
    value: Expr


@dataclass
class Assign(Node):
    targets: list  # `a = b = 1` has two; a target is Name, Attribute, Subscript, TupleExpr, ListExpr or Starred
    value: Expr


@dataclass
class AugAssign(Node):
    target: Expr
    op: str  # the binary operator without "=": + - * / // % ** @ & | ^ << >>
    value: Expr


@dataclass
class Delete(Node):
    targets: list


@dataclass
class Pass(Node):
    pass


@dataclass
class Break(Node):
    pass


@dataclass
class Continue(Node):
    pass


@dataclass
class Return(Node):
    value: Optional[Expr]


@dataclass
class If(Node):
    test: Expr
    body: list
    orelse: list  # `elif` is an If alone in orelse


@dataclass
class While(Node):
    test: Expr
    body: list
    orelse: list


@dataclass
class For(Node):
    target: Expr
    iter: Expr
    body: list
    orelse: list


@dataclass
class WithItem(Node):
    context_expr: Expr
    optional_vars: Optional[Expr]


@dataclass
class With(Node):
    items: list  # WithItem
    body: list


@dataclass
class FunctionDef(Node):
    name: str
    params: list  # Param
    body: list
    decorators: list  # Expr


@dataclass
class Assert(Node):
    test: Expr
    msg: Optional[Expr]


@dataclass
class Raise(Node):
    exc: Optional[Expr]


@dataclass
class Global(Node):
    names: list


@dataclass
class Nonlocal(Node):
    names: list


@dataclass
class Alias(Node):
    name: str  # dotted: "torch.nn.functional"
    asname: Optional[str]


@dataclass
class Import(Node):
    names: list  # Alias


@dataclass
class ImportFrom(Node):
    module: str  # dotted
    names: list  # Alias; a single Alias("*") for `from m import *`


@dataclass
class Module(Node):
    body: list
