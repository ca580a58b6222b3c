"""The interpreter: walks the syntax tree of ast.py with Python's semantics.

Top-level expression statements echo their value as Python's interactive interpreter does
(also inside top-level blocks, never inside function bodies). Attribute access goes through
the sandbox, so a program reaches gradcalc's objects only.
"""
from __future__ import annotations

import operator
from itertools import islice
from types import MethodType
from typing import Any, Callable, Iterator, Optional

from . import ast, classes, sandbox
from .builtins import SuperBuiltin
from .modules import import_module, import_from
from ..display.names import torch_class

BINARY = {
    "+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv, "//": operator.floordiv,
    "%": operator.mod, "**": operator.pow, "@": operator.matmul, "&": operator.and_, "|": operator.or_,
    "^": operator.xor, "<<": operator.lshift, ">>": operator.rshift,
}
AUGMENTED = {
    "+": operator.iadd, "-": operator.isub, "*": operator.imul, "/": operator.itruediv, "//": operator.ifloordiv,
    "%": operator.imod, "**": operator.ipow, "@": operator.imatmul, "&": operator.iand, "|": operator.ior,
    "^": operator.ixor, "<<": operator.ilshift, ">>": operator.irshift,
}
UNARY = {"-": operator.neg, "+": operator.pos, "~": operator.invert, "not": operator.not_}
COMPARE = {
    "<": operator.lt, ">": operator.gt, "==": operator.eq, "!=": operator.ne, "<=": operator.le, ">=": operator.ge,
    "in": lambda a, b: a in b, "not in": lambda a, b: a not in b, "is": operator.is_, "is not": operator.is_not,
}


class _Break(Exception):
    pass


class _Continue(Exception):
    pass


class _Return(Exception):
    def __init__(self, value: Any) -> None:
        self.value = value


class Scope:
    """The variables of the module or of one function call."""

    __slots__ = ("vars", "parent", "info")

    def __init__(self, vars: dict, parent: Optional["Scope"] = None, info: Optional["ScopeInfo"] = None) -> None:
        self.vars = vars
        self.parent = parent  # the enclosing function's scope, for closures
        self.info = info  # None for the module scope


class ScopeInfo:
    """Which names a function body binds (its locals) and declares global or nonlocal."""

    __slots__ = ("locals", "globals", "nonlocals", "prefix", "owner", "first")

    def __init__(self, params: list, body: list, prefix: str) -> None:
        self.prefix = prefix  # the start of the qualified names defined inside: "f.<locals>."
        # for super(): the class body the function is defined in (Python's __class__ cell),
        # and the parameter holding its instance
        self.owner: Optional[ClassInfo] = None
        self.first: Optional[str] = params[0].name if params and params[0].kind == "normal" else None
        self.locals: set = {p.name for p in params}
        self.globals: set = set()
        self.nonlocals: set = set()
        stack = list(body)
        while stack:
            node = stack.pop()
            if isinstance(node, (ast.Assign,)):
                for target in node.targets:
                    self._bind(target)
            elif isinstance(node, (ast.AugAssign,)):
                self._bind(node.target)
            elif isinstance(node, ast.For):
                self._bind(node.target)
            elif isinstance(node, ast.With):
                for item in node.items:
                    if item.optional_vars is not None:
                        self._bind(item.optional_vars)
            elif isinstance(node, (ast.FunctionDef, ast.ClassDef)):
                self.locals.add(node.name)
                continue
            elif isinstance(node, (ast.Import, ast.ImportFrom)):
                for alias in node.names:
                    self.locals.add(alias.asname or alias.name.split(".")[0])
            elif isinstance(node, ast.Delete):
                for target in node.targets:
                    self._bind(target)
            elif isinstance(node, ast.Global):
                self.globals.update(node.names)
            elif isinstance(node, ast.Nonlocal):
                self.nonlocals.update(node.names)
            for block in ("body", "orelse"):
                stack.extend(getattr(node, block, ()) or ())
        self.locals -= self.globals | self.nonlocals

    def _bind(self, target: Any) -> None:
        if isinstance(target, ast.Name):
            self.locals.add(target.id)
        elif isinstance(target, (ast.TupleExpr, ast.ListExpr)):
            for element in target.elts:
                self._bind(element)
        elif isinstance(target, ast.Starred):
            self._bind(target.value)


class ClassInfo(ScopeInfo):
    """A class body's scope: its names become the class's attributes, which the functions
    defined in it do not see as variables."""

    __slots__ = ("cls",)

    def __init__(self, qualname: str) -> None:
        super().__init__([], [], qualname + ".")
        self.cls: Optional[type] = None  # set once the body has run


def _enclosing(scope: Scope) -> Optional[Scope]:
    """The scope whose variables a function or comprehension defined in `scope` sees: None for
    the module's (globals are looked up apart), and a class body's is skipped, as in Python."""
    if type(scope.info) is ClassInfo:
        return scope.parent
    return scope if scope.info is not None else None


# Python's default recursion limit is 1000 frames, a few of which the interactive top level
# uses; a deeper user recursion ends in RecursionError here too, long before the host's C
# stack (which every user call also uses) could overflow.
MAX_CALL_DEPTH = 996


@torch_class("function")
class UserFunction:
    """A function defined by `def` or `lambda` in a program."""

    def __init__(self, interpreter: "Interpreter", name: str, params: list, body: Any, scope: Scope,
                 is_lambda: bool = False) -> None:
        self.interpreter = interpreter
        self.name = name
        # Python's qualified name (`outer.<locals>.inner`), shown in reprs and argument errors
        self.qualname = _qualified(scope, name)
        self.params = params
        self.body = body
        self.is_lambda = is_lambda
        self.defaults = {p.name: interpreter.eval(p.default, scope) for p in params if p.default is not None}
        self.info = ScopeInfo(params, [] if is_lambda else body, self.qualname + ".<locals>.")
        self.info.owner = scope.info if type(scope.info) is ClassInfo else getattr(scope.info, "owner", None)
        self.closure = _enclosing(scope)
        self.positional = [p.name for p in params if p.kind == "normal"]
        self.kwonly = [p.name for p in params if p.kind == "kwonly"]
        self.keywords = set(self.positional) | set(self.kwonly)
        self.varargs = next((p.name for p in params if p.kind == "varargs"), None)
        self.varkw = next((p.name for p in params if p.kind == "kwargs"), None)
        self.slots = len(self.keywords) + (self.varargs is not None) + (self.varkw is not None)
        self.__name__ = name
        self.__qualname__ = self.qualname
        self.__module__ = "__main__"
        self.__doc__ = None

    def __repr__(self) -> str:
        return f"<function {self.qualname} at {hex(id(self))}>"

    def __get__(self, instance: Any, owner: Optional[type] = None) -> Any:
        """As a class attribute, a method: bound to the instance it is read from."""
        return self if instance is None else MethodType(self, instance)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        interpreter = self.interpreter
        if interpreter.depth >= MAX_CALL_DEPTH:
            raise RecursionError("maximum recursion depth exceeded")
        local = self._bind(args, kwargs)
        scope = Scope(local, self.closure, self.info)
        interpreter.depth += 1
        try:
            if self.is_lambda:
                return interpreter.eval(self.body, scope)
            try:
                interpreter.exec_block(self.body, scope, echo=False)
            except _Return as returned:
                return returned.value
            return None
        finally:
            interpreter.depth -= 1

    def _bind(self, args: tuple, kwargs: dict) -> dict:
        """The call's local variables; errors checked in CPython's order, with its messages."""
        positional = self.positional
        local = dict(zip(positional, args))
        if self.varargs is not None:
            local[self.varargs] = args[len(positional):]
        if kwargs or self.varkw is not None:
            extra: dict = {}
            for key, value in kwargs.items():
                if key in self.keywords:
                    if key in local:
                        raise TypeError(f"{self.qualname}() got multiple values for argument '{key}'")
                    local[key] = value
                elif self.varkw is not None:
                    extra[key] = value
                else:
                    raise TypeError(f"{self.qualname}() got an unexpected keyword argument '{key}'")
            if self.varkw is not None:
                local[self.varkw] = extra
        if len(args) > len(positional) and self.varargs is None:
            raise TypeError(self._too_many(len(args), local))
        if len(local) < self.slots:
            self._complete(local)
        return local

    def _too_many(self, given: int, local: dict) -> str:
        takes = len(self.positional)
        defaults = sum(name in self.defaults for name in self.positional)
        count = f"from {takes - defaults} to {takes}" if defaults else str(takes)
        plural = "s" if defaults or takes != 1 else ""
        kwonly_given = sum(name in local for name in self.kwonly)
        if kwonly_given:
            keywords = f" positional argument{'s' if given != 1 else ''} (and {kwonly_given} " \
                       f"keyword-only argument{'s' if kwonly_given != 1 else ''})"
            return f"{self.qualname}() takes {count} positional argument{plural} but {given}{keywords} were given"
        return (f"{self.qualname}() takes {count} positional argument{plural} but {given} "
                f"{'was' if given == 1 else 'were'} given")

    def _complete(self, local: dict) -> None:
        """Fill in defaults; a parameter still without a value is missing (positional ones first)."""
        for kind, names in (("positional", self.positional), ("keyword-only", self.kwonly)):
            missing = [name for name in names if name not in local and name not in self.defaults]
            if missing:
                quoted = [f"'{name}'" for name in missing]
                listed = " and ".join(quoted) if len(quoted) < 3 else ", ".join(quoted[:-1]) + ", and " + quoted[-1]
                raise TypeError(f"{self.qualname}() missing {len(missing)} required {kind} "
                                f"argument{'s' if len(missing) > 1 else ''}: {listed}")
            for name in names:
                if name not in local:
                    local[name] = self.defaults[name]


class Interpreter:
    """Runs statements against one module namespace (kept across REPL inputs)."""

    def __init__(self, namespace: dict, builtins: dict, echo: Callable[[Any], None]) -> None:
        self.globals = namespace
        self.builtins = builtins
        self.echo_value = echo
        self.module_scope = Scope(namespace)
        self.depth = 0  # user function calls under way, for MAX_CALL_DEPTH
        self._exec = {cls: getattr(self, "exec_" + cls.__name__) for cls in _STATEMENTS}
        self._eval = {cls: getattr(self, "eval_" + cls.__name__) for cls in _EXPRESSIONS}

    # --------------------------------------------------------------- statements

    def run_statement(self, statement: Any) -> None:
        """Run one top-level statement, echoing expression values as the interactive interpreter does."""
        self._exec[type(statement)](statement, self.module_scope, True)

    def exec_block(self, body: list, scope: Scope, echo: bool) -> None:
        run = self._exec
        for statement in body:
            run[type(statement)](statement, scope, echo)

    def exec_ExprStmt(self, node: ast.ExprStmt, scope: Scope, echo: bool) -> None:
        value = self.eval(node.value, scope)
        if echo and value is not None:
            self.builtins["_"] = value  # as Python's displayhook does: a global `_` hides it
            self.echo_value(value)

    def exec_Assign(self, node: ast.Assign, scope: Scope, echo: bool) -> None:
        value = self.eval(node.value, scope)
        for target in node.targets:
            self.assign(target, value, scope)

    def exec_AugAssign(self, node: ast.AugAssign, scope: Scope, echo: bool) -> None:
        function = AUGMENTED[node.op]
        target = node.target
        if isinstance(target, ast.Name):
            current = self.lookup(target.id, scope)
            self.store(target.id, function(current, self.eval(node.value, scope)), scope)
        elif isinstance(target, ast.Attribute):
            owner = self.eval(target.value, scope)
            current = sandbox.get_attribute(owner, target.attr)
            sandbox.set_attribute(owner, target.attr, function(current, self.eval(node.value, scope)))
        elif isinstance(target, ast.Subscript):
            owner = self.eval(target.value, scope)
            index = self.eval_index(target.index, scope)
            owner[index] = function(owner[index], self.eval(node.value, scope))
        else:
            raise SyntaxError("'tuple' is an illegal expression for augmented assignment")

    def exec_Delete(self, node: ast.Delete, scope: Scope, echo: bool) -> None:
        for target in node.targets:
            self.delete(target, scope)

    def exec_Pass(self, node: ast.Pass, scope: Scope, echo: bool) -> None:
        pass

    def exec_Break(self, node: ast.Break, scope: Scope, echo: bool) -> None:
        raise _Break()

    def exec_Continue(self, node: ast.Continue, scope: Scope, echo: bool) -> None:
        raise _Continue()

    def exec_Return(self, node: ast.Return, scope: Scope, echo: bool) -> None:
        raise _Return(None if node.value is None else self.eval(node.value, scope))

    def exec_If(self, node: ast.If, scope: Scope, echo: bool) -> None:
        if self.eval(node.test, scope):
            self.exec_block(node.body, scope, echo)
        elif node.orelse:
            self.exec_block(node.orelse, scope, echo)

    def exec_While(self, node: ast.While, scope: Scope, echo: bool) -> None:
        while self.eval(node.test, scope):
            if not self._loop_body(node.body, scope, echo):
                return
        self.exec_block(node.orelse, scope, echo)

    def exec_For(self, node: ast.For, scope: Scope, echo: bool) -> None:
        for item in self.eval(node.iter, scope):
            self.assign(node.target, item, scope)
            if not self._loop_body(node.body, scope, echo):
                return
        self.exec_block(node.orelse, scope, echo)

    def _loop_body(self, body: list, scope: Scope, echo: bool) -> bool:
        """Run one iteration; False when it ends in `break`."""
        try:
            self.exec_block(body, scope, echo)
        except _Break:
            return False
        except _Continue:
            pass
        return True

    def exec_With(self, node: ast.With, scope: Scope, echo: bool) -> None:
        self._run_with(node.items, node.body, scope, echo)

    def _run_with(self, items: list, body: list, scope: Scope, echo: bool) -> None:
        if not items:
            self.exec_block(body, scope, echo)
            return
        item = items[0]
        manager = self.eval(item.context_expr, scope)
        if not (hasattr(type(manager), "__enter__") and hasattr(type(manager), "__exit__")):
            raise TypeError(f"'{type(manager).__name__}' object does not support the context manager protocol")
        entered = type(manager).__enter__(manager)
        if item.optional_vars is not None:
            self.assign(item.optional_vars, entered, scope)
        try:
            self._run_with(items[1:], body, scope, echo)
        except (_Break, _Continue, _Return):
            type(manager).__exit__(manager, None, None, None)
            raise
        except BaseException as error:  # a KeyboardInterrupt too: Ctrl-C must not leave no_grad on
            if not type(manager).__exit__(manager, type(error), error, None):
                raise
        else:
            type(manager).__exit__(manager, None, None, None)

    def exec_FunctionDef(self, node: ast.FunctionDef, scope: Scope, echo: bool) -> None:
        decorators = [self.eval(d, scope) for d in node.decorators]
        function: Any = UserFunction(self, node.name, node.params, node.body, scope)
        for decorator in reversed(decorators):
            function = decorator(function)
        self.store(node.name, function, scope)

    def exec_ClassDef(self, node: ast.ClassDef, scope: Scope, echo: bool) -> None:
        base = None if node.base is None else self.eval(node.base, scope)
        if base is not None:
            classes.check_base(base)
        qualname = _qualified(scope, node.name)
        info = ClassInfo(qualname)
        body = Scope({}, _enclosing(scope), info)
        self.exec_block(node.body, body, echo=False)
        info.cls = classes.make_class(node.name, qualname, base, body.vars)
        self.store(node.name, info.cls, scope)

    def exec_Assert(self, node: ast.Assert, scope: Scope, echo: bool) -> None:
        if not self.eval(node.test, scope):
            if node.msg is None:
                raise AssertionError()
            raise AssertionError(self.eval(node.msg, scope))

    def exec_Raise(self, node: ast.Raise, scope: Scope, echo: bool) -> None:
        if node.exc is None:
            raise RuntimeError("No active exception to reraise")
        error = self.eval(node.exc, scope)
        if isinstance(error, type) and issubclass(error, Exception):
            raise error()
        if isinstance(error, Exception):
            raise error
        raise TypeError("exceptions must derive from BaseException")

    def exec_Global(self, node: ast.Global, scope: Scope, echo: bool) -> None:
        pass

    def exec_Nonlocal(self, node: ast.Nonlocal, scope: Scope, echo: bool) -> None:
        pass

    def exec_Import(self, node: ast.Import, scope: Scope, echo: bool) -> None:
        for alias in node.names:
            module = import_module(alias.name)
            if alias.asname:
                self.store(alias.asname, module, scope)
            else:
                top = alias.name.split(".")[0]
                self.store(top, import_module(top), scope)

    def exec_ImportFrom(self, node: ast.ImportFrom, scope: Scope, echo: bool) -> None:
        for name, value in import_from(node.module, [(a.name, a.asname) for a in node.names]):
            self.store(name, value, scope)

    # --------------------------------------------------------------- names and targets

    def lookup(self, name: str, scope: Scope) -> Any:
        info = scope.info
        if info is not None:
            if name in info.locals:
                try:
                    return scope.vars[name]
                except KeyError:
                    raise UnboundLocalError(
                        f"cannot access local variable '{name}' where it is not associated with a value") from None
            if name not in info.globals:
                if name in scope.vars:  # a class body's attributes (a function's variables are its locals)
                    return scope.vars[name]
                outer = scope.parent
                while outer is not None:
                    if name in outer.vars:
                        return outer.vars[name]
                    if name in outer.info.locals:
                        raise NameError(f"cannot access free variable '{name}' where it is not associated "
                                        "with a value in enclosing scope")
                    outer = outer.parent
        try:
            return self.globals[name]
        except KeyError:
            pass
        try:
            return self.builtins[name]
        except KeyError:
            raise NameError(f"name '{name}' is not defined") from None

    def store(self, name: str, value: Any, scope: Scope) -> None:
        info = scope.info
        if info is None or name in info.globals:
            self.globals[name] = value
        elif name in info.nonlocals:
            outer = scope.parent
            while name not in outer.info.locals:  # compile_checks made sure an enclosing function binds it
                outer = outer.parent
            outer.vars[name] = value
        else:
            scope.vars[name] = value

    def assign(self, target: Any, value: Any, scope: Scope) -> None:
        kind = type(target)
        if kind is ast.Name:
            self.store(target.id, value, scope)
        elif kind is ast.Attribute:
            sandbox.set_attribute(self.eval(target.value, scope), target.attr, value)
        elif kind is ast.Subscript:
            owner = self.eval(target.value, scope)
            owner[self.eval_index(target.index, scope)] = value
        elif kind in (ast.TupleExpr, ast.ListExpr):
            self._unpack(target.elts, value, scope)
        else:
            raise SyntaxError("cannot assign to expression")

    def _unpack(self, targets: list, value: Any, scope: Scope) -> None:
        try:
            iterator = iter(value)
        except TypeError:
            if hasattr(type(value), "__iter__") or hasattr(type(value), "__getitem__"):
                raise  # the value's own refusal, such as a 0-d tensor's
            raise TypeError(f"cannot unpack non-iterable {type(value).__name__} object") from None
        starred = [i for i, t in enumerate(targets) if isinstance(t, ast.Starred)]
        if not starred:
            # as Python, take one value more than the targets, never all of a long iterable
            items = list(islice(iterator, len(targets) + 1))
            if len(items) > len(targets):
                raise ValueError(f"too many values to unpack (expected {len(targets)})")
            if len(items) < len(targets):
                raise ValueError(f"not enough values to unpack (expected {len(targets)}, got {len(items)})")
            for target, item in zip(targets, items):
                self.assign(target, item, scope)
            return
        items = list(iterator)
        star = starred[0]
        after = len(targets) - star - 1
        if len(items) < len(targets) - 1:
            raise ValueError(f"not enough values to unpack (expected at least {len(targets) - 1}, got {len(items)})")
        for target, item in zip(targets[:star], items[:star]):
            self.assign(target, item, scope)
        self.assign(targets[star].value, items[star:len(items) - after], scope)
        for target, item in zip(targets[star + 1:], items[len(items) - after:]):
            self.assign(target, item, scope)

    def delete(self, target: Any, scope: Scope) -> None:
        if isinstance(target, ast.Name):
            variables = self.globals if scope.info is None or target.id in scope.info.globals else scope.vars
            if target.id not in variables:
                raise NameError(f"name '{target.id}' is not defined")
            del variables[target.id]
        elif isinstance(target, ast.Subscript):
            owner = self.eval(target.value, scope)
            del owner[self.eval_index(target.index, scope)]
        elif isinstance(target, ast.Attribute):
            sandbox.delete_attribute(self.eval(target.value, scope), target.attr)
        elif isinstance(target, (ast.TupleExpr, ast.ListExpr)):
            for element in target.elts:
                self.delete(element, scope)
        else:
            raise SyntaxError("cannot delete expression")

    # --------------------------------------------------------------- expressions

    def eval(self, node: Any, scope: Scope) -> Any:
        return self._eval[type(node)](node, scope)

    def eval_Constant(self, node: ast.Constant, scope: Scope) -> Any:
        return node.value

    def eval_Name(self, node: ast.Name, scope: Scope) -> Any:
        return self.lookup(node.id, scope)

    def eval_FString(self, node: ast.FString, scope: Scope) -> str:
        pieces = []
        for part in node.parts:
            if isinstance(part, str):
                pieces.append(part)
                continue
            value = self.eval(part.value, scope)
            conversion = part.conversion
            if part.debug_text is not None:
                pieces.append(part.debug_text)
                if conversion is None and part.format_spec is None:
                    conversion = "r"
            if conversion == "r":
                value = repr(value)
            elif conversion == "s":
                value = str(value)
            elif conversion == "a":
                value = ascii(value)
            spec = self.eval_FString(part.format_spec, scope) if part.format_spec is not None else ""
            pieces.append(format(value, spec))
        return "".join(pieces)

    def eval_ListExpr(self, node: ast.ListExpr, scope: Scope) -> list:
        return self._elements(node.elts, scope)

    def eval_TupleExpr(self, node: ast.TupleExpr, scope: Scope) -> tuple:
        return tuple(self._elements(node.elts, scope))

    def eval_SetExpr(self, node: ast.SetExpr, scope: Scope) -> set:
        return set(self._elements(node.elts, scope))

    def _elements(self, elements: list, scope: Scope, function: Any = None) -> list:
        """The values of a display's or a call's items, `*iterable` unpacked (`function`: the callee)."""
        values = []
        for element in elements:
            if isinstance(element, ast.Starred):
                value = self.eval(element.value, scope)
                try:
                    values.extend(value)
                except TypeError:
                    if hasattr(type(value), "__iter__") or hasattr(type(value), "__getitem__"):
                        raise  # an iterable's own error, such as a 0-d tensor's
                    # Python names the callee only when `*x` is the call's sole positional part
                    where = "Value" if function is None or len(elements) > 1 else f"{_function_str(function)} argument"
                    raise TypeError(f"{where} after * must be an iterable, not {type(value).__name__}") from None
            else:
                values.append(self.eval(element, scope))
        return values

    def eval_DictExpr(self, node: ast.DictExpr, scope: Scope) -> dict:
        result = {}
        for key, value in zip(node.keys, node.values):
            if key is None:
                mapping = self.eval(value, scope)
                if not hasattr(type(mapping), "keys"):
                    raise TypeError(f"'{type(mapping).__name__}' object is not a mapping")
                result.update(mapping)
            else:
                result[self.eval(key, scope)] = self.eval(value, scope)
        return result

    def eval_BinOp(self, node: ast.BinOp, scope: Scope) -> Any:
        return BINARY[node.op](self.eval(node.left, scope), self.eval(node.right, scope))

    def eval_UnaryOp(self, node: ast.UnaryOp, scope: Scope) -> Any:
        return UNARY[node.op](self.eval(node.operand, scope))

    def eval_BoolOp(self, node: ast.BoolOp, scope: Scope) -> Any:
        value = None
        if node.op == "and":
            for operand in node.values:
                value = self.eval(operand, scope)
                if not value:
                    return value
            return value
        for operand in node.values:
            value = self.eval(operand, scope)
            if value:
                return value
        return value

    def eval_Compare(self, node: ast.Compare, scope: Scope) -> Any:
        left = self.eval(node.left, scope)
        result: Any = True
        for op, comparator in zip(node.ops, node.comparators):
            right = self.eval(comparator, scope)
            result = COMPARE[op](left, right)
            if len(node.ops) > 1 and not result:
                return result
            left = right
        return result

    def eval_IfExp(self, node: ast.IfExp, scope: Scope) -> Any:
        return self.eval(node.body, scope) if self.eval(node.test, scope) else self.eval(node.orelse, scope)

    def eval_Attribute(self, node: ast.Attribute, scope: Scope) -> Any:
        return sandbox.get_attribute(self.eval(node.value, scope), node.attr)

    def eval_Subscript(self, node: ast.Subscript, scope: Scope) -> Any:
        return self.eval(node.value, scope)[self.eval_index(node.index, scope)]

    def eval_index(self, node: Any, scope: Scope) -> Any:
        if isinstance(node, ast.Slice):
            return self.eval_Slice(node, scope)
        if isinstance(node, ast.TupleExpr):
            return tuple(self.eval_index(element, scope) for element in node.elts)
        return self.eval(node, scope)

    def eval_Slice(self, node: ast.Slice, scope: Scope) -> slice:
        return slice(*(None if part is None else self.eval(part, scope) for part in (node.lower, node.upper, node.step)))

    def eval_Call(self, node: ast.Call, scope: Scope) -> Any:
        function = self.eval(node.func, scope)
        if type(function) is SuperBuiltin and not node.args and not node.keywords:
            return self._implicit_super(scope)
        args = self._elements(node.args, scope, function)
        kwargs = {}
        for keyword in node.keywords:
            if keyword.name is None:
                mapping = self.eval(keyword.value, scope)
                if not hasattr(type(mapping), "keys"):
                    raise TypeError(f"{_function_str(function)} argument after ** must be a mapping, "
                                    f"not {type(mapping).__name__}")
                for key in mapping.keys():
                    if key in kwargs:
                        raise TypeError(f"{_function_str(function)} got multiple values for keyword argument '{key}'")
                    kwargs[key] = mapping[key]
            else:
                # the parser rejects a repeated name: a clash here is with an earlier `**mapping`
                if keyword.name in kwargs:
                    raise TypeError(f"{_function_str(function)} got multiple values for keyword argument "
                                    f"'{keyword.name}'")
                kwargs[keyword.name] = self.eval(keyword.value, scope)
        if not callable(function):
            raise TypeError(f"'{type(function).__name__}' object is not callable")
        return function(*args, **kwargs)

    def _implicit_super(self, scope: Scope) -> classes.Super:
        """`super()`: the class the running function is defined in and its first argument,
        checked in CPython's order, with its messages."""
        info = scope.info
        if info is None or info.first is None:
            raise RuntimeError("super(): no arguments")
        if info.first not in scope.vars:
            raise RuntimeError("super(): arg[0] deleted")
        if info.owner is None:
            raise RuntimeError("super(): __class__ cell not found")
        if info.owner.cls is None:
            raise RuntimeError("super(): empty __class__ cell")
        return classes.Super(info.owner.cls, scope.vars[info.first])

    def eval_Lambda(self, node: ast.Lambda, scope: Scope) -> UserFunction:
        return UserFunction(self, "<lambda>", node.params, node.body, scope, is_lambda=True)

    def _comprehension(self, generators: list, scope: Scope, kind: str) -> Iterator[Scope]:
        """The scope of each iteration of a comprehension's `for ... if ...` clauses. As in Python,
        the first iterable is evaluated at once, even for a generator expression."""
        info = ScopeInfo([], [], _qualified(scope, kind) + ".")
        for clause in generators:
            info._bind(clause.target)
        inner = Scope({}, _enclosing(scope), info)
        return self._clauses(generators, 0, inner, iter(self.eval(generators[0].iter, scope)))

    def _clauses(self, generators: list, index: int, inner: Scope, iterable: Iterator) -> Iterator[Scope]:
        clause = generators[index]
        last = index + 1 == len(generators)
        for item in iterable:
            self.assign(clause.target, item, inner)
            if all(self.eval(test, inner) for test in clause.ifs):
                if last:
                    yield inner
                else:
                    yield from self._clauses(generators, index + 1, inner,
                                             self.eval(generators[index + 1].iter, inner))

    def eval_ListComp(self, node: ast.ListComp, scope: Scope) -> list:
        return [self.eval(node.elt, inner) for inner in self._comprehension(node.generators, scope, "<listcomp>")]

    def eval_SetComp(self, node: ast.SetComp, scope: Scope) -> set:
        return {self.eval(node.elt, inner) for inner in self._comprehension(node.generators, scope, "<setcomp>")}

    def eval_DictComp(self, node: ast.DictComp, scope: Scope) -> dict:
        return {self.eval(node.key, inner): self.eval(node.value, inner)
                for inner in self._comprehension(node.generators, scope, "<dictcomp>")}

    def eval_GeneratorExp(self, node: ast.GeneratorExp, scope: Scope) -> Iterator:
        generator = (self.eval(node.elt, inner) for inner in self._comprehension(node.generators, scope, "<genexpr>"))
        # shown as Python shows one: <generator object f.<locals>.<genexpr> at 0x...>
        generator.__qualname__ = _qualified(scope, "<genexpr>")
        return generator


def _function_str(function: Any) -> str:
    """How Python names a callable in call errors: `print()`, `__main__.f()`, `list()`."""
    qualname = getattr(function, "__qualname__", None)
    if not isinstance(qualname, str):
        return str(function)
    module = getattr(function, "__module__", None)
    return f"{qualname}()" if module in (None, "builtins") else f"{module}.{qualname}()"


def _qualified(scope: Scope, name: str) -> str:
    """Python's qualified name for `name` defined in `scope`."""
    return name if scope.info is None else scope.info.prefix + name


_STATEMENTS = (ast.ExprStmt, ast.Assign, ast.AugAssign, ast.Delete, ast.Pass, ast.Break, ast.Continue, ast.Return,
               ast.If, ast.While, ast.For, ast.With, ast.FunctionDef, ast.ClassDef, ast.Assert, ast.Raise, ast.Global,
               ast.Nonlocal, ast.Import, ast.ImportFrom)
_EXPRESSIONS = (ast.Constant, ast.Name, ast.FString, ast.ListExpr, ast.TupleExpr, ast.SetExpr, ast.DictExpr,
                ast.BinOp, ast.UnaryOp, ast.BoolOp, ast.Compare, ast.IfExp, ast.Attribute,
                ast.Subscript, ast.Slice, ast.Call, ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp,
                ast.GeneratorExp)
