"""What Python's compiler checks in a top-level statement just before running it.

The interactive interpreter compiles each statement only when it comes to it, so these
errors (`'break' outside loop`, `keyword argument repeated`, `no binding for nonlocal`)
end a program only once the statements before them have run, and the compiler's
SyntaxWarnings (`"is" with a literal`) show just before their statement runs. The parser
has already rejected everything Python's parser rejects.
"""
from __future__ import annotations

import operator
from typing import Any, Callable, Optional

from . import ast


class CompileError(Exception):
    """A SyntaxError of Python's compiler, at a node."""

    def __init__(self, message: str, node: ast.Node) -> None:
        super().__init__(message)
        self.message = message
        self.line = node.line
        self.column = node.column


def check(statement: ast.Node, warn: Callable[[str], None]) -> None:
    """Check one top-level statement as Python compiles it: first its scopes (symtable errors),
    then the code (warnings passed to `warn` in the compiler's order, errors raised)."""
    _Scopes().check(statement)
    _CodeChecker(warn).statement(statement)


# ----------------------------------------------------------------- scopes (symtable)

# an import binds a name too, but Python does not count it as an assignment before `global`
_PARAMETER, _USED, _ASSIGNED, _IMPORTED, _GLOBAL, _NONLOCAL = 1, 2, 4, 8, 16, 32


class _Block:
    """The names of the statement's module, a function or a comprehension, as Python's symtable
    records them."""

    __slots__ = ("flags", "declarations", "parent", "is_class")

    def __init__(self, parent: Optional["_Block"], is_class: bool = False) -> None:
        self.flags: dict = {}
        self.declarations: dict = {}  # name -> its first global or nonlocal statement
        self.parent = parent  # None for the module
        self.is_class = is_class  # a class body's names are no variables of the functions inside


class _Scopes:
    """Python's symtable errors: duplicate parameters, global and nonlocal declarations.
    A first pass in source order, then the checks that need every block's names."""

    def __init__(self) -> None:
        self.blocks: list = []

    def check(self, statement: Any) -> None:
        module = _Block(None)
        self.blocks.append(module)
        self.statement(statement, module)
        for block in self.blocks:
            for name, node in block.declarations.items():
                flag = block.flags[name]
                if flag & _GLOBAL and flag & _NONLOCAL:
                    raise CompileError(f"name '{name}' is nonlocal and global", node)
                if flag & _NONLOCAL and block is module:
                    raise CompileError("nonlocal declaration not allowed at module level", node)
                if flag & _NONLOCAL and not _bound_outside(block, name):
                    raise CompileError(f"no binding for nonlocal '{name}' found", node)

    def function(self, params: list, body: Any, parent: _Block, is_lambda: bool) -> None:
        block = _Block(parent)
        self.blocks.append(block)
        for param in params:
            if param.name in block.flags:
                raise CompileError(f"duplicate argument '{param.name}' in function definition", param)
            block.flags[param.name] = _PARAMETER
        if is_lambda:
            self.expression(body, block)
        else:
            for statement in body:
                self.statement(statement, block)

    def statement(self, node: Any, block: _Block) -> None:
        kind = type(node)
        if kind is ast.Global or kind is ast.Nonlocal:
            self.declare(node, block)
        elif kind is ast.FunctionDef:
            _mark(block, node.name, _ASSIGNED)
            for expression in [p.default for p in node.params if p.default is not None] + node.decorators:
                self.expression(expression, block)
            self.function(node.params, node.body, block, is_lambda=False)
        elif kind is ast.ClassDef:
            _mark(block, node.name, _ASSIGNED)
            if node.base is not None:
                self.expression(node.base, block)
            body = _Block(block, is_class=True)
            self.blocks.append(body)
            for statement in node.body:
                self.statement(statement, body)
        elif kind is ast.With:
            for item in node.items:
                self.expression(item.context_expr, block)
                if item.optional_vars is not None:
                    self.target(item.optional_vars, block)
            for statement in node.body:
                self.statement(statement, block)
        elif kind is ast.Import or kind is ast.ImportFrom:
            if block.parent is not None and node.names[0].name == "*":
                raise CompileError("import * only allowed at module level", node)
            for alias in node.names:
                _mark(block, alias.asname or alias.name.split(".")[0], _IMPORTED)
        else:
            for name in node._fields:
                value = getattr(node, name)
                if name in ("body", "orelse"):
                    for statement in value:
                        self.statement(statement, block)
                elif name in ("targets", "target"):
                    for target in value if isinstance(value, list) else [value]:
                        self.target(target, block)
                elif isinstance(value, ast.Node):
                    self.expression(value, block)

    def declare(self, node: Any, block: _Block) -> None:
        word = "global" if type(node) is ast.Global else "nonlocal"
        for name in node.names:
            current = block.flags.get(name, 0)
            if current & _PARAMETER:
                raise CompileError(f"name '{name}' is parameter and {word}", node)
            if current & _USED:
                raise CompileError(f"name '{name}' is used prior to {word} declaration", node)
            if current & _ASSIGNED:
                raise CompileError(f"name '{name}' is assigned to before {word} declaration", node)
            block.flags[name] = current | (_GLOBAL if word == "global" else _NONLOCAL)
            block.declarations.setdefault(name, node)

    def target(self, node: Any, block: _Block) -> None:
        if isinstance(node, ast.Name):
            _mark(block, node.id, _ASSIGNED)
        elif isinstance(node, (ast.TupleExpr, ast.ListExpr)):
            for element in node.elts:
                self.target(element, block)
        elif isinstance(node, ast.Starred):
            self.target(node.value, block)
        else:
            self.expression(node, block)

    def expression(self, node: Any, block: _Block) -> None:
        stack = [node]
        while stack:
            node = stack.pop()
            if isinstance(node, list):
                stack.extend(node)
            elif type(node) is ast.Name:
                _mark(block, node.id, _USED)
            elif type(node) is ast.Lambda:
                stack.extend(p.default for p in node.params if p.default is not None)
                self.function(node.params, node.body, block, is_lambda=True)
            elif type(node) in (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp):
                # a scope of its own, but for its first iterable
                stack.append(node.generators[0].iter)
                inner = _Block(block)
                self.blocks.append(inner)
                for index, clause in enumerate(node.generators):
                    self.target(clause.target, inner)
                    self.expression([clause.ifs] + ([clause.iter] if index else []), inner)
                parts = [node.key, node.value] if type(node) is ast.DictComp else [node.elt]
                self.expression(parts, inner)
            elif isinstance(node, ast.Node):
                stack.extend(getattr(node, name) for name in node._fields)


def _mark(block: _Block, name: str, flag: int) -> None:
    block.flags[name] = block.flags.get(name, 0) | flag


def _bound_outside(block: _Block, name: str) -> bool:
    """Whether an enclosing function binds `name` (what a nonlocal declaration needs)."""
    outer = block.parent
    while outer.parent is not None:  # the module's names do not count
        flag = outer.flags.get(name, 0)
        if flag & (_PARAMETER | _ASSIGNED | _IMPORTED) and not flag & _GLOBAL and not outer.is_class:
            return True
        outer = outer.parent
    return False


# ----------------------------------------------------------------- code generation

# Python's constant folding, which decides what counts as a literal in the compiler's warnings.
_NOT_CONSTANT = object()
_MAX_INT_BITS, _MAX_COLLECTION, _MAX_STR = 128, 256, 4096
_BINARY = {
    "+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv, "//": operator.floordiv,
    "%": operator.mod, "**": operator.pow, "&": operator.and_, "|": operator.or_, "^": operator.xor,
    "<<": operator.lshift, ">>": operator.rshift,
}
_UNARY = {"-": operator.neg, "+": operator.pos, "~": operator.invert, "not": operator.not_}


def _folded(node: Any) -> Any:
    """The constant Python's AST optimiser turns a node into, or _NOT_CONSTANT."""
    kind = type(node)
    if kind is ast.Constant:
        return node.value
    if kind is ast.TupleExpr:
        items = tuple(_folded(element) for element in node.elts)
        return _NOT_CONSTANT if any(item is _NOT_CONSTANT for item in items) else items
    if kind is ast.UnaryOp:
        operand = _folded(node.operand)
        return _NOT_CONSTANT if operand is _NOT_CONSTANT else _apply(_UNARY[node.op], operand)
    if kind is ast.BinOp and node.op in _BINARY:
        left, right = _folded(node.left), _folded(node.right)
        if left is _NOT_CONSTANT or right is _NOT_CONSTANT or _too_big(node.op, left, right):
            return _NOT_CONSTANT
        return _apply(_BINARY[node.op], left, right)
    if kind is ast.Subscript and type(node.index) is not ast.Slice:
        value, index = _folded(node.value), _folded(node.index)
        if value is _NOT_CONSTANT or index is _NOT_CONSTANT:
            return _NOT_CONSTANT
        return _apply(operator.getitem, value, index)
    return _NOT_CONSTANT


def _apply(function: Callable, *args: Any) -> Any:
    try:
        return function(*args)
    except Exception:  # the optimiser leaves a failing operation to run time
        return _NOT_CONSTANT


def _too_big(op: str, left: Any, right: Any) -> bool:
    """The optimiser's limits on the size of a folded result (CPython's safe_multiply and co)."""
    ints = isinstance(left, int) and isinstance(right, int)
    if op == "*":
        if ints:
            return bool(left and right) and left.bit_length() + right.bit_length() > _MAX_INT_BITS
        count, sized = (left, right) if isinstance(left, int) else (right, left)
        if isinstance(count, int) and isinstance(sized, (tuple, frozenset, str)) and len(sized):
            limit = _MAX_COLLECTION if isinstance(sized, (tuple, frozenset)) else _MAX_STR
            return count < 0 or count > limit // len(sized)
    elif op == "**" and ints and left and right > 0:
        return left.bit_length() > _MAX_INT_BITS // right
    elif op == "<<" and ints and left and right:
        return right > _MAX_INT_BITS or left.bit_length() > _MAX_INT_BITS - right
    elif op == "%":
        return isinstance(left, str)  # never folds %-formatting
    return False


_DISPLAY_TYPES = {
    ast.TupleExpr: "tuple", ast.ListExpr: "list", ast.ListComp: "list", ast.DictExpr: "dict", ast.DictComp: "dict",
    ast.SetExpr: "set", ast.SetComp: "set", ast.GeneratorExp: "generator", ast.Lambda: "function",
    ast.FString: "str",
}
_NOT_CALLABLE = (ast.Constant, ast.TupleExpr, ast.ListExpr, ast.ListComp, ast.DictExpr, ast.DictComp, ast.SetExpr,
                 ast.SetComp, ast.GeneratorExp, ast.FString)


def _inferred(node: Any) -> Optional[str]:
    """The type name Python's compiler infers for a node (after folding), None if unknown."""
    value = _folded(node)
    if value is not _NOT_CONSTANT:
        return type(value).__name__
    return _DISPLAY_TYPES.get(type(node))


class _CodeChecker:
    """The compiler's checks while generating code, in its order."""

    def __init__(self, warn: Callable[[str], None]) -> None:
        self.warn = warn
        self.in_function = False
        self.in_loop = False

    def block(self, body: list) -> None:
        for statement in body:
            self.statement(statement)

    def statement(self, node: Any) -> None:
        kind = type(node)
        if kind is ast.ExprStmt:
            self.expression(node.value)
        elif kind is ast.Assign:
            self.expression(node.value)
            for target in node.targets:
                self.target(target)
        elif kind is ast.AugAssign:
            self.target(node.target)
            self.expression(node.value)
        elif kind is ast.Delete:
            for target in node.targets:
                self.target(target)
        elif kind is ast.Return:
            if not self.in_function:
                raise CompileError("'return' outside function", node)
            self.optional(node.value)
        elif kind is ast.Break:
            if not self.in_loop:
                raise CompileError("'break' outside loop", node)
        elif kind is ast.Continue:
            if not self.in_loop:
                raise CompileError("'continue' not properly in loop", node)
        elif kind is ast.If:
            self.expression(node.test)
            self.block(node.body)
            self.block(node.orelse)
        elif kind is ast.While or kind is ast.For:
            if kind is ast.For:
                self.expression(node.iter)
                self.target(node.target)
            else:
                self.expression(node.test)
            self.loop_body(node.body)
            self.block(node.orelse)
        elif kind is ast.With:
            for item in node.items:
                self.expression(item.context_expr)
                if item.optional_vars is not None:
                    self.target(item.optional_vars)
            self.block(node.body)
        elif kind is ast.FunctionDef:
            for decorator in node.decorators:
                self.expression(decorator)
            self.function(node.params, node.body, is_lambda=False)
        elif kind is ast.ClassDef:
            self.optional(node.base)
            self.block(node.body)  # methods, class attributes and docstrings only
        elif kind is ast.Assert:
            if type(node.test) is ast.TupleExpr and node.test.elts:
                self.warn("assertion is always true, perhaps remove parentheses?")
            self.expression(node.test)
            self.optional(node.msg)
        elif kind is ast.Raise:
            self.optional(node.exc)

    def loop_body(self, body: list) -> None:
        outer, self.in_loop = self.in_loop, True
        try:
            self.block(body)
        finally:
            self.in_loop = outer

    def function(self, params: list, body: Any, is_lambda: bool) -> None:
        for param in params:
            self.optional(param.default)
        outer = self.in_function, self.in_loop
        self.in_function, self.in_loop = True, False
        try:
            if is_lambda:
                self.expression(body)
            else:
                self.block(body)
        finally:
            self.in_function, self.in_loop = outer

    def optional(self, node: Any) -> None:
        if node is not None:
            self.expression(node)

    def target(self, node: Any) -> None:
        """An assignment or `del` target: its parts are evaluated, the target itself is not loaded."""
        kind = type(node)
        if kind is ast.Subscript:
            self.expression(node.value)
            self.index(node.index)
        elif kind is ast.Attribute:
            self.expression(node.value)
        elif kind is ast.Starred:
            raise CompileError("starred assignment target must be in a list or tuple", node)
        elif kind is ast.TupleExpr or kind is ast.ListExpr:
            starred = [element for element in node.elts if type(element) is ast.Starred]
            if len(starred) > 1:
                raise CompileError("multiple starred expressions in assignment", starred[1])
            for element in node.elts:
                self.target(element.value if type(element) is ast.Starred else element)

    def index(self, node: Any) -> None:
        if type(node) is ast.Slice:
            for part in (node.lower, node.upper, node.step):
                self.optional(part)
        elif type(node) is ast.TupleExpr:
            for element in node.elts:
                self.index(element)
        else:
            self.expression(node)

    def items(self, elements: list) -> None:
        """The items of a display or a call's positional arguments: `*x` is allowed there."""
        for element in elements:
            self.expression(element.value if type(element) is ast.Starred else element)

    def expression(self, node: Any) -> None:
        kind = type(node)
        if kind is ast.Compare:
            self.compare(node, negated=False)
        elif kind is ast.UnaryOp and node.op == "not" and type(node.operand) is ast.Compare \
                and len(node.operand.ops) == 1:
            self.compare(node.operand, negated=True)  # the optimiser turns `not a is b` into `a is not b`
        elif kind is ast.Call:
            self.call(node)
        elif kind is ast.Subscript:
            self.subscript(node)
        elif kind is ast.Starred:
            raise CompileError("can't use starred expression here", node)
        elif kind in (ast.ListExpr, ast.TupleExpr, ast.SetExpr):
            self.items(node.elts)
        elif kind is ast.DictExpr:
            for key, value in zip(node.keys, node.values):
                self.optional(key)
                self.expression(value)
        elif kind is ast.Lambda:
            self.function(node.params, node.body, is_lambda=True)
        elif kind in (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp):
            self.comprehension(node)
        elif kind is ast.FString:
            for part in node.parts:
                if isinstance(part, ast.FormattedValue):
                    self.expression(part.value)
                    if part.format_spec is not None:
                        self.expression(part.format_spec)
        elif kind is ast.Slice:
            self.index(node)
        elif kind is not ast.Constant and kind is not ast.Name:
            for name in node._fields:
                value = getattr(node, name)
                if isinstance(value, list):
                    for item in value:
                        self.expression(item)
                elif isinstance(value, ast.Node):
                    self.expression(value)

    def compare(self, node: ast.Compare, negated: bool) -> None:
        left = node.left
        for op, right in zip(node.ops, node.comparators):
            if op in ("is", "is not") and (_is_literal(left) or _is_literal(right)):
                shown = {"is": "is not", "is not": "is"}[op] if negated else op
                suggestion = "==" if shown == "is" else "!="
                self.warn(f'"{shown}" with a literal. Did you mean "{suggestion}"?')
                break
            left = right
        self.expression(node.left)
        for comparator in node.comparators:
            self.expression(comparator)

    def call(self, node: ast.Call) -> None:
        if isinstance(node.func, _NOT_CALLABLE):
            self.warn(f"'{_inferred(node.func)}' object is not callable; perhaps you missed a comma?")
        self.expression(node.func)
        self.items(node.args)
        seen: set = set()
        for keyword in node.keywords:
            if keyword.name is not None:
                if keyword.name in seen:
                    raise CompileError(f"keyword argument repeated: {keyword.name}", keyword)
                seen.add(keyword.name)
            self.expression(keyword.value)

    def subscript(self, node: ast.Subscript) -> None:
        value = node.value
        folded = _folded(value)
        if (folded is not _NOT_CONSTANT and (folded is None or folded is Ellipsis
                                             or isinstance(folded, (int, float, complex, frozenset)))) \
                or type(value) in (ast.SetExpr, ast.SetComp, ast.GeneratorExp, ast.Lambda):
            self.warn(f"'{_inferred(value)}' object is not subscriptable; perhaps you missed a comma?")
        else:
            index_type = None if type(node.index) is ast.Slice else _inferred(node.index)
            if index_type not in (None, "int", "bool") and (
                    isinstance(folded, (str, tuple))
                    or type(value) in (ast.TupleExpr, ast.ListExpr, ast.ListComp, ast.FString)):
                self.warn(f"{_inferred(value)} indices must be integers or slices, not {index_type}; "
                          "perhaps you missed a comma?")
        self.expression(value)
        self.index(node.index)

    def comprehension(self, node: Any) -> None:
        """As CPython compiles it: the inner parts first, then the first iterable."""
        generators = node.generators
        for index, clause in enumerate(generators):
            if index:
                self.expression(clause.iter)
            self.target(clause.target)
            for test in clause.ifs:
                self.expression(test)
        if type(node) is ast.DictComp:
            self.expression(node.key)
            self.expression(node.value)
        else:
            self.expression(node.elt)
        self.expression(generators[0].iter)


def _is_literal(node: Any) -> bool:
    value = _folded(node)
    return value is not _NOT_CONSTANT and value is not None and value is not Ellipsis and not isinstance(value, bool)
