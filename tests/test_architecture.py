"""The shape of gradcalc/autograd: its modules import each other in one direction only, at the
top of the file, and the ops live in autograd/ops, one family per module."""
from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "gradcalc"
AUTOGRAD = PACKAGE / "autograd"


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _modules() -> dict:
    return {_module_name(path): path for path in AUTOGRAD.rglob("*.py")}


def _resolve(module: str, node: ast.ImportFrom, is_package: bool) -> str:
    base = module.split(".") if is_package else module.split(".")[:-1]
    if node.level:
        base = base[:len(base) - node.level + 1]
    return ".".join(base + ([node.module] if node.module else []))


def _is_type_checking(node: ast.AST) -> bool:
    test = node.test if isinstance(node, ast.If) else None
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _module_level(statements: list) -> list:
    """The statements that run when the module is imported: those of the module's body and of the
    blocks in it (try, if, with), but not of `if TYPE_CHECKING:`, functions or classes."""
    found = []
    for node in statements:
        if _is_type_checking(node):
            continue
        found.append(node)
        if isinstance(node, (ast.If, ast.Try, ast.With)):
            for block in ("body", "orelse", "finalbody"):
                found += _module_level(getattr(node, block, []))
            for handler in getattr(node, "handlers", []):
                found += _module_level(handler.body)
    return found


def _imports(name: str, path: Path, known: dict, top_level_only: bool) -> set:
    """The autograd modules `name` imports (module-level statements only, or only those inside functions)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    nodes = _module_level(tree.body) if top_level_only else [
        n for f in ast.walk(tree) if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef)) for n in ast.walk(f)]
    found = set()
    for node in nodes:
        found |= _imports_of(node, name, path, known)
    return found


# gradcalc's compiled modules (built from autograd/csrc/ by hatch_build.py)
_COMPILED = frozenset({"gradcalc.autograd._native"})


def _imports_of(node: ast.AST, name: str, path: Path, known: dict) -> set:
    found = set()
    if isinstance(node, ast.ImportFrom):
        target = _resolve(name, node, path.name == "__init__.py")
        for alias in node.names:
            candidate = f"{target}.{alias.name}"
            if candidate in _COMPILED:
                continue  # imports nothing of gradcalc
            found.add(candidate if candidate in known else target)
    elif isinstance(node, ast.Import):
        found.update(alias.name for alias in node.names)
    return {module for module in found if module in known}


def test_no_import_circle_inside_autograd() -> None:
    known = _modules()
    graph = {name: _imports(name, path, known, top_level_only=True) - {name} for name, path in known.items()}
    visiting, done = set(), set()

    def visit(module: str, trail: list) -> None:
        if module in done:
            return
        assert module not in visiting, f"import circle: {' -> '.join(trail + [module])}"
        visiting.add(module)
        for imported in sorted(graph[module]):
            visit(imported, trail + [module])
        visiting.discard(module)
        done.add(module)

    for module in sorted(graph):
        visit(module, [])


def test_no_import_inside_functions_of_autograd_modules() -> None:
    known = _modules()
    late = {name: _imports(name, path, known, top_level_only=False) for name, path in known.items()}
    assert not {name: found for name, found in late.items() if found}


def test_autograd_modules_import_at_the_top() -> None:
    """An import of another autograd module after the module's first function or class is one
    made at the bottom of a file to get around a circle."""
    known = _modules()
    late = {}
    for name, path in known.items():
        started = False
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                started = True
            elif started:
                late.update({name: inner.lineno for inner in _module_level([node])
                             if _imports_of(inner, name, path, known)})
    assert not late


def test_ops_live_in_families() -> None:
    families = {path.stem for path in (AUTOGRAD / "ops").glob("*.py")}
    assert {"arithmetic", "pointwise", "comparison", "reduction", "shape", "indexing", "joining", "linalg",
            "sampling", "creation", "conversion", "activation", "loss"} <= families
    assert not (AUTOGRAD / "functions.py").exists()
