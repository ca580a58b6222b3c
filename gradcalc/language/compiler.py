"""The policy pass and compile(): a parsed statement becomes a code object that reads, writes
and deletes attributes only through the guard (guard.py).

The pass rewrites:
  * `a.b` (read)            -> `$getattr(a, 'b')`; called, `a.b(...)` -> `$getattr(a, 'b', True)(...)`;
                               for a name or a literal `a` and a `b` not a dunder, first
                               `a.b if $type(a) in $fast['b']` (`$fast['b()']` for a call; guard.FastReads:
                               built-in methods, modules, a program's own classes, tensors' properties and,
                               called, their ops; for a private `b`, a program's own classes only)
  * `a.b = v`               -> `$setattr(v, a, 'b')` (the value first: Python evaluates it first)
  * `del a.b`               -> `$delattr(a, 'b')`
  * `a.b += v`              -> a read, the operator, and a write
  * attribute targets of tuple assignments, `for`, `with` and `except`: through temporaries
  * `x ** y`, `x << y`      -> `$pow(x, y)`, `$lshift(x, y)` (integers that would not fit in memory;
                               not of two constants CPython's compiler computes itself)
  * `f(**m)`                -> `f(**$kwargs(m))`: keyword names as exact strings (a `str` subclass
    as a name would decide, by its own `__eq__` and `__hash__`, which attribute a helper sets)
  * `import a.b as c`, `from m import x` -> assignments from `$import`, `$import_from` (the session's
    modules; `from __future__ import ...` stays a statement, as compile() must see it)
  * an expression statement outside function and class bodies -> `$echo(value)`, as Python's
    interactive interpreter prints it.

Names beginning with `$` cannot be written in a program, so the program cannot shadow the
guard, nor see the temporaries (`$t1`, ...); `__builtins__` cannot be named at all. Everything
else is Python's own compile().
"""
from __future__ import annotations

import ast
import opcode
import warnings
from typing import Any, Iterator, Optional

from .policy import CLASS_BODY_DUNDERS, FORBIDDEN_CLASS_NAMES, is_dunder

GETATTR, SETATTR, DELATTR, ECHO = "$getattr", "$setattr", "$delattr", "$echo"
TYPE, FAST = "$type", "$fast"
IMPORT, IMPORT_FROM, IMPORT_STAR = "$import", "$import_from", "$import_star"
POW, LSHIFT = "$pow", "$lshift"
KWARGS = "$kwargs"
_TEMP = "$t"
# the in-place operators, by the ast operator they come from (`a.b **= c` must stay guarded)
INPLACE = {ast.Add: "$iadd", ast.Sub: "$isub", ast.Mult: "$imul", ast.Div: "$itruediv", ast.FloorDiv: "$ifloordiv",
           ast.Mod: "$imod", ast.Pow: "$ipow", ast.MatMult: "$imatmul", ast.BitAnd: "$iand", ast.BitOr: "$ior",
           ast.BitXor: "$ixor", ast.LShift: "$ilshift", ast.RShift: "$irshift"}
# the builtins a program may not name: its namespace's builtins, and the import and class
# machinery that C code finds there (the import statement goes through `$import`)
FORBIDDEN_NAMES = frozenset({"__builtins__", "__import__", "__build_class__", "__loader__", "__spec__"})


def _fast_candidate(value: ast.expr, name: str) -> bool:
    """`name.attr` or `'literal'.attr` with an attribute not a dunder: its object's type may be one
    whose read needs no guard."""
    return isinstance(value, (ast.Name, ast.Constant)) and not is_dunder(name)


def _again(value: ast.expr) -> ast.expr:
    """A name or a literal once more (evaluating either again has no effect of its own)."""
    if isinstance(value, ast.Name):
        return _name(value.id, value)
    return ast.copy_location(ast.Constant(value=value.value), value)


def _fast_or_guarded(value: ast.expr, name: str, direct: ast.expr, guarded: ast.expr, node: ast.AST) -> ast.expr:
    """`direct if $type(value) in $fast[name] else guarded`: an attribute guard.FastReads allows
    read as Python reads it, without the guard's Python frame; any other through the guard."""
    types = ast.Subscript(value=_name(FAST, node), slice=ast.Constant(value=name), ctx=ast.Load())
    test = ast.Compare(left=_call(TYPE, [_again(value)], node), ops=[ast.In()], comparators=[types])
    return ast.copy_location(ast.IfExp(test=ast.copy_location(test, node), body=direct, orelse=guarded), node)


class PolicyError(Exception):
    """A construct the sandbox refuses at compile time; reported as a SyntaxError at `node`."""

    def __init__(self, message: str, node: ast.AST) -> None:
        super().__init__(message)
        self.message = message
        self.node = node


def _name(identifier: str, node: ast.AST, context: Optional[ast.expr_context] = None) -> ast.Name:
    return ast.copy_location(ast.Name(id=identifier, ctx=context or ast.Load()), node)


def _call(function: str, args: list, node: ast.AST) -> ast.Call:
    return ast.copy_location(ast.Call(func=_name(function, node), args=args, keywords=[]), node)


def _statement(call: ast.Call) -> ast.Expr:
    return ast.copy_location(ast.Expr(value=call), call)


class _Policy(ast.NodeTransformer):
    """Rewrites one top-level statement, tracking the kind of body it is in (an expression
    statement echoes only outside function and class bodies)."""

    def __init__(self) -> None:
        self.fast_names: set = set()  # the names of the `$fast[name]` the statement reads
        self.fast_reads: list = []  # the `direct if ... else guarded` expressions made
        self.scopes = ["module"]
        self.classes: list = []  # names of the class bodies we are in, for private-name mangling
        self.count = 0

    def mangle(self, name: str) -> str:
        """`self.__x` inside class C reads `_C__x`, as Python's compiler does for attributes."""
        if not self.classes or not name.startswith("__") or name.endswith("__") or "." in name:
            return name
        owner = self.classes[-1].lstrip("_")
        return f"_{owner}{name}" if owner else name

    def temporary(self) -> str:
        self.count += 1
        return f"{_TEMP}{self.count}"

    def _body(self, node: Any, kind: str) -> Any:
        self.scopes.append(kind)
        try:
            node.body = self._statements(node.body)
        finally:
            self.scopes.pop()
        return node

    def _statements(self, statements: list) -> list:
        out: list = []
        for statement in statements:
            result = self.visit(statement)
            out.extend(result if isinstance(result, list) else [result])
        return out

    def visit_FunctionDef(self, node: ast.FunctionDef) -> Any:
        node.decorator_list = [self.visit(d) for d in node.decorator_list]
        node.args = self.visit(node.args)
        if node.returns is not None:
            node.returns = self.visit(node.returns)
        return self._body(node, "function")

    def visit_ClassDef(self, node: ast.ClassDef) -> Any:
        node.decorator_list = [self.visit(d) for d in node.decorator_list]
        node.bases = [self.visit(b) for b in node.bases]
        node.keywords = [self.visit(k) for k in node.keywords]
        node.keywords = [self._keyword(k) for k in node.keywords]
        for name, where in _class_body_names(node.body):
            if name in FORBIDDEN_CLASS_NAMES or (is_dunder(name) and name not in CLASS_BODY_DUNDERS):
                raise PolicyError(f"defining '{name}' in a class is not supported in gradcalc", where)
        for where in _class_body_nodes(node.body):
            # the annotations dict is Python's own, keyed by the names written: dataclass and
            # NamedTuple format those keys into source text they run
            if isinstance(where, ast.Name) and where.id == "__annotations__":
                raise PolicyError("using '__annotations__' in a class body is not supported in gradcalc", where)
        self.classes.append(node.name)
        try:
            return self._body(node, "class")
        finally:
            self.classes.pop()

    def generic_visit(self, node: ast.AST) -> ast.AST:
        # statement lists may grow (a rewritten assignment is several statements)
        for field, value in ast.iter_fields(node):
            if isinstance(value, list) and value and isinstance(value[0], ast.stmt):
                setattr(node, field, self._statements(value))
            elif isinstance(value, list):
                setattr(node, field, [self.visit(item) if isinstance(item, ast.AST) else item for item in value])
            elif isinstance(value, ast.AST):
                setattr(node, field, self.visit(value))
        return node

    def visit_Expr(self, node: ast.Expr) -> Any:
        node.value = self.visit(node.value)
        # `*a` alone is left for compile() to refuse in Python's words
        if self.scopes[-1] == "module" and not isinstance(node.value, ast.Starred):
            node.value = _call(ECHO, [node.value], node)
        return node

    # ---- names

    def visit_Name(self, node: ast.Name) -> Any:
        if node.id in FORBIDDEN_NAMES:
            raise PolicyError(f"'{node.id}' is not available in gradcalc", node)
        return node

    # ---- imports

    def visit_Import(self, node: ast.Import) -> Any:
        out = []
        for alias in node.names:
            top = alias.name.partition(".")[0]
            bound = alias.asname or top
            # `import a.b` binds a; `import a.b as c` binds the module a.b
            call = _call(IMPORT, [ast.Constant(value=alias.name), ast.Constant(value=alias.asname is not None)], node)
            out.append(ast.copy_location(ast.Assign(targets=[_name(bound, node, ast.Store())], value=call), node))
        return out

    def visit_ImportFrom(self, node: ast.ImportFrom) -> Any:
        if node.module == "__future__" and not node.level:
            return node
        module = ast.Constant(value=node.module or "")
        level = ast.Constant(value=node.level)
        if any(alias.name == "*" for alias in node.names):
            if self.scopes[-1] != "module":
                raise PolicyError("import * only allowed at module level", node)
            return _statement(_call(IMPORT_STAR, [module, level], node))
        names = ast.Tuple(elts=[ast.Constant(value=alias.name) for alias in node.names], ctx=ast.Load())
        targets = ast.Tuple(elts=[_name(alias.asname or alias.name, node, ast.Store()) for alias in node.names],
                            ctx=ast.Store())
        return ast.copy_location(ast.Assign(targets=[targets], value=_call(IMPORT_FROM, [module, names, level], node)),
                                 node)

    # ---- attributes and the operators that could exhaust memory

    def visit_Attribute(self, node: ast.Attribute) -> Any:
        # reads only: stores and deletes are rewritten by the statements that hold them
        value, name = self.visit(node.value), self.mangle(node.attr)
        guarded = _call(GETATTR, [value, ast.Constant(value=name)], node)
        if not _fast_candidate(value, name):
            return guarded
        self.fast_names.add(name)
        direct = ast.copy_location(ast.Attribute(value=_again(value), attr=name, ctx=ast.Load()), node)
        return self._fast_or_guarded(value, name, direct, guarded, node)

    def visit_Call(self, node: ast.Call) -> Any:
        if not isinstance(node.func, ast.Attribute):
            node = self.generic_visit(node)
            node.keywords = [self._keyword(k) for k in node.keywords]
            return node
        # `a.b(...)` reads `a.b` as CPython's method call does: `$getattr(a, 'b', True)(...)`
        attribute = node.func
        value, name = self.visit(attribute.value), self.mangle(attribute.attr)
        args = [self.visit(arg) for arg in node.args]
        keywords = [self._keyword(self.visit(keyword)) for keyword in node.keywords]
        read = _call(GETATTR, [value, ast.Constant(value=name), ast.Constant(value=True)], attribute)
        guarded = ast.copy_location(ast.Call(func=read, args=args, keywords=keywords), node)
        if not _fast_candidate(value, name):
            return guarded
        key = name + "()"  # (a call's entry: guard.FastReads)
        self.fast_names.add(key)
        method = ast.copy_location(ast.Attribute(value=_again(value), attr=name, ctx=ast.Load()), attribute)
        direct = ast.copy_location(ast.Call(func=method, args=args, keywords=keywords), node)
        return self._fast_or_guarded(value, key, direct, guarded, node)

    def _fast_or_guarded(self, value: ast.expr, name: str, direct: ast.expr, guarded: ast.expr,
                         node: ast.AST) -> ast.expr:
        made = _fast_or_guarded(value, name, direct, guarded, node)
        self.fast_reads.append(made)
        return made

    def guarded_only(self) -> None:
        """Each fast read made its guarded branch alone (`guarded if True else None`): a call's
        arguments, which both branches share, then compile once."""
        for made in self.fast_reads:
            made.body, made.orelse = made.orelse, ast.copy_location(ast.Constant(value=None), made)
            made.test = ast.copy_location(ast.Constant(value=True), made)

    def _keyword(self, keyword: ast.keyword) -> ast.keyword:
        if keyword.arg is None:  # `**mapping`
            keyword.value = _call(KWARGS, [keyword.value], keyword.value)
        return keyword

    def visit_BinOp(self, node: ast.BinOp) -> Any:
        node = self.generic_visit(node)
        if isinstance(node.op, (ast.Pow, ast.LShift)) and _folded_by_python(node):
            return node
        if isinstance(node.op, ast.Pow):
            return _call(POW, [node.left, node.right], node)
        if isinstance(node.op, ast.LShift):
            return _call(LSHIFT, [node.left, node.right], node)
        return node

    # ---- assignments

    def _store(self, target: ast.AST, value: ast.expr) -> list:
        """Statements assigning `value` (an expression evaluated once) to `target`."""
        if isinstance(target, ast.Attribute):
            holder = self.visit(target.value)
            return [_statement(_call(SETATTR, [value, holder, ast.Constant(value=self.mangle(target.attr))], target))]
        return [ast.copy_location(ast.Assign(targets=[self.visit(target)], value=value), target)]

    def _lower_target(self, target: ast.AST) -> tuple[ast.AST, list]:
        """`target` with every attribute in it replaced by a temporary name, and the statements
        that then store the temporaries to those attributes, in order."""
        if isinstance(target, ast.Attribute):
            temporary = self.temporary()
            return _name(temporary, target, ast.Store()), self._store(target, _name(temporary, target))
        if isinstance(target, (ast.Tuple, ast.List)):
            after: list = []
            elements = []
            for element in target.elts:
                lowered, stores = self._lower_target(element)
                elements.append(lowered)
                after.extend(stores)
            target.elts = elements
            return target, after
        if isinstance(target, ast.Starred):
            target.value, after = self._lower_target(target.value)
            return target, after
        return self.visit(target), []

    def visit_Assign(self, node: ast.Assign) -> Any:
        node.value = self.visit(node.value)
        if len(node.targets) == 1 and isinstance(node.targets[0], ast.Attribute):
            return self._store(node.targets[0], node.value)
        if not any(_has_attribute(t) for t in node.targets):
            node.targets = [self.visit(t) for t in node.targets]
            return node
        value = self.temporary()
        out = [ast.copy_location(ast.Assign(targets=[_name(value, node, ast.Store())], value=node.value), node)]
        for target in node.targets:
            lowered, after = self._lower_target(target)
            out.append(ast.copy_location(ast.Assign(targets=[lowered], value=_name(value, node)), node))
            out.extend(after)
        return out

    def visit_AnnAssign(self, node: ast.AnnAssign) -> Any:
        node.annotation = self.visit(node.annotation)
        if node.value is not None:
            node.value = self.visit(node.value)
        if not isinstance(node.target, ast.Attribute):
            node.target = self.visit(node.target)
            return node
        # `a.b: T = v` evaluates T outside functions only, as Python does for a non-simple target
        out: list = []
        if self.scopes[-1] != "function":
            out.append(ast.copy_location(ast.Expr(value=node.annotation), node))
        if node.value is not None:
            out.extend(self._store(node.target, node.value))
        else:
            out.append(ast.copy_location(ast.Expr(value=self.visit(node.target.value)), node))
        return out

    def visit_AugAssign(self, node: ast.AugAssign) -> Any:
        value = self.visit(node.value)
        target = node.target
        if isinstance(target, ast.Attribute):
            holder = self.visit(target.value)
            out: list = []
            if not isinstance(holder, ast.Name):  # evaluate the holder once
                temporary = self.temporary()
                out.append(ast.copy_location(ast.Assign(targets=[_name(temporary, node, ast.Store())],
                                                        value=holder), node))
                holder = _name(temporary, node)
            current = _call(GETATTR, [holder, ast.Constant(value=self.mangle(target.attr))], node)
            result = _call(INPLACE[type(node.op)], [current, value], node)
            out.append(_statement(_call(SETATTR, [result, holder, ast.Constant(value=self.mangle(target.attr))], node)))
            return out
        if isinstance(node.op, (ast.Pow, ast.LShift)) and isinstance(target, ast.Name):
            load = _name(target.id, target)
            return ast.copy_location(ast.Assign(targets=[target], value=_call(
                INPLACE[type(node.op)], [load, value], node)), node)
        node.target = self.visit(target)
        node.value = value
        return node

    def visit_Delete(self, node: ast.Delete) -> Any:
        out: list = []
        plain: list = []
        for target in node.targets:
            if isinstance(target, ast.Attribute):
                if plain:
                    out.append(ast.copy_location(ast.Delete(targets=plain), node))
                    plain = []
                name = ast.Constant(value=self.mangle(target.attr))
                out.append(_statement(_call(DELATTR, [self.visit(target.value), name], target)))
            elif _has_attribute(target):
                raise PolicyError("deleting an attribute inside a tuple is not supported in gradcalc", target)
            else:
                plain.append(self.visit(target))
        if plain:
            out.append(ast.copy_location(ast.Delete(targets=plain), node))
        return out

    def visit_For(self, node: ast.For) -> Any:
        node.iter = self.visit(node.iter)
        node.target, after = self._lower_target(node.target)
        node.body = after + self._statements(node.body)
        node.orelse = self._statements(node.orelse)
        return node

    def visit_With(self, node: ast.With) -> Any:
        after: list = []
        for item in node.items:
            item.context_expr = self.visit(item.context_expr)
            if item.optional_vars is not None:
                item.optional_vars, stores = self._lower_target(item.optional_vars)
                after.extend(stores)
        node.body = after + self._statements(node.body)
        return node

    def visit_comprehension(self, node: ast.comprehension) -> Any:
        if _has_attribute(node.target):
            raise PolicyError("an attribute as the target of a comprehension is not supported in gradcalc",
                              node.target)
        return self.generic_visit(node)


# CPython's compiler computes `2 ** 63`, `1 << 100` or `(-0.5 ** 31) ** 20` itself when its ast
# optimizer folds the constants (a small result): left to it, such an expression costs no call at
# run time, as in Python, the compiler's own warnings see its constant (`[1][2.0 ** 3]`), and a deep
# recursion meets its limit where Python's does. Whether it folds is asked of CPython: the
# expression compiled alone is then one constant.
_CONSTANT_CODE = frozenset(opcode.opmap[name] for name in ("RESUME", "LOAD_CONST", "RETURN_VALUE", "RETURN_CONST",
                                                           "CACHE", "NOP") if name in opcode.opmap)


def _folded_by_python(node: ast.BinOp) -> bool:
    """Whether CPython folds this expression of constants (and unary and binary operators)."""
    stack: list = [node]
    while stack:
        part = stack.pop()
        if isinstance(part, ast.UnaryOp):
            stack.append(part.operand)
        elif isinstance(part, ast.BinOp):
            stack += [part.left, part.right]
        elif not isinstance(part, ast.Constant):
            return False
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        code = compile(ast.fix_missing_locations(ast.Expression(body=node)), "<constant>", "eval")
    return set(code.co_code[0::2]) <= _CONSTANT_CODE


def _class_body_nodes(body: list) -> Iterator[ast.AST]:
    """The nodes of a class body, in its blocks too but not in its methods (their names yes)."""
    stack = list(body)
    while stack:
        node = stack.pop()
        yield node
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            stack.extend(ast.iter_child_nodes(node))


def _class_body_names(body: list) -> Iterator[tuple]:
    """(name, node) of what a class body binds, in its blocks too but not in its methods."""
    for node in _class_body_nodes(body):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            yield node.name, node
        elif isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            yield node.id, node
        elif isinstance(node, ast.alias):
            yield (node.asname or node.name).partition(".")[0], node


def _has_attribute(target: ast.AST) -> bool:
    if isinstance(target, ast.Attribute):
        return True
    if isinstance(target, (ast.Tuple, ast.List)):
        return any(_has_attribute(e) for e in target.elts)
    if isinstance(target, ast.Starred):
        return _has_attribute(target.value)
    return False


def compile_statement(statement: ast.stmt, filename: str) -> tuple:
    """The code object of one top-level statement, run in the session's namespace, and the
    attribute names whose `$fast` entries it reads (guard.FastReads.cover)."""
    policy = _Policy()
    rewritten = policy.visit(statement)
    body = rewritten if isinstance(rewritten, list) else [rewritten]
    module = ast.Module(body=body, type_ignores=[])
    ast.fix_missing_locations(module)
    # dont_inherit: gradcalc's own `from __future__ import annotations` must not reach programs
    if not policy.fast_reads:
        return compile(module, filename, "exec", dont_inherit=True), policy.fast_names
    # a fast read's two branches share a call's arguments: a warning Python's compiler gives of
    # them (`x is 1`) would come twice; then the statement compiles with the guarded branches alone
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            code = compile(module, filename, "exec", dont_inherit=True)
    except SyntaxError:
        caught = [None]
    if caught:
        policy.guarded_only()
        code = compile(module, filename, "exec", dont_inherit=True)
    return code, policy.fast_names
