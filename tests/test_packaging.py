"""The wheel carries the grammar, the generated parser and the compiled kernels, and an installed
gradcalc runs away from the source tree."""
from __future__ import annotations

import _sre
import json
import os
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent


def build_wheel(out: Path) -> Path:
    # with the test environment's build backend (the test extra has it): an isolated build would fetch
    # hatchling and lark again for each wheel, which a busy machine or package index can fail
    done = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
                           "-w", str(out), str(REPO)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-3000:]
    (found,) = out.glob("gradcalc-*.whl")
    return found


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_wheel(tmp_path_factory.mktemp("wheel"))


def test_two_builds_of_one_commit_give_the_same_wheel(wheel: Path, tmp_path: Path) -> None:
    again = build_wheel(tmp_path)
    first, second = zipfile.ZipFile(wheel), zipfile.ZipFile(again)
    assert first.namelist() == second.namelist()
    for name in first.namelist():  # a readable failure first: which member differs
        assert first.read(name) == second.read(name), name
    assert wheel.read_bytes() == again.read_bytes()


def test_wheel_ships_the_grammar_inside_the_package(wheel: Path) -> None:
    names = zipfile.ZipFile(wheel).namelist()
    assert "gradcalc/grammar/gradcalc.lark" in names
    grammar = zipfile.ZipFile(wheel).read("gradcalc/grammar/gradcalc.lark")
    assert grammar == (REPO / "grammar" / "gradcalc.lark").read_bytes()


def test_wheel_ships_the_classroom_page_and_its_examples(wheel: Path) -> None:
    names = zipfile.ZipFile(wheel).namelist()
    for asset in ("index.html", "app.js", "style.css", "favicon.svg"):
        assert f"gradcalc/serve/static/{asset}" in names
    assert "gradcalc/examples/s002_09_retain_grad.grad" in names


def test_wheel_ships_the_generated_parser(wheel: Path) -> None:
    names = zipfile.ZipFile(wheel).namelist()
    assert "gradcalc/language/_lark_runtime.py" in names
    assert "gradcalc/language/_lark_tables.py" in names
    assert "gradcalc/language/_lark_digest.py" in names
    # generated at build time only
    assert not (REPO / "gradcalc" / "language" / "_lark_runtime.py").exists()


def test_wheel_carries_the_license_its_metadata_names(wheel: Path) -> None:
    archive = zipfile.ZipFile(wheel)
    (dist_info,) = {name.split("/")[0] for name in archive.namelist() if ".dist-info/" in name}
    assert archive.read(f"{dist_info}/licenses/LICENSE") == (REPO / "LICENSE").read_bytes()
    metadata = archive.read(f"{dist_info}/METADATA").decode()
    assert "License-Expression: MIT\n" in metadata and "License-File: LICENSE\n" in metadata
    assert (REPO / "LICENSE").read_text().startswith("MIT License\n")


def test_wheel_carries_the_compiled_kernels_not_their_source(wheel: Path) -> None:
    """Built where a C compiler is (as here), the wheel carries the native kernels for this
    Python and says so in its tag; the C sources stay in the sdist."""
    if not (shutil.which("cc") or shutil.which("gcc")):
        pytest.skip("no C compiler here: the wheel is pure Python")
    names = zipfile.ZipFile(wheel).namelist()
    assert f"gradcalc/autograd/_native{sysconfig.get_config_var('EXT_SUFFIX')}" in names
    assert not [name for name in names if name.endswith((".c", ".h"))]
    assert not wheel.name.endswith("-none-any.whl")


@pytest.fixture(scope="module")
def site(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    target = tmp_path_factory.mktemp("site")
    subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "-q", "--target", str(target), str(wheel)],
                   check=True, capture_output=True)
    return target


def test_installed_wheel_runs_without_the_source_tree(site: Path, tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(site), "XDG_CACHE_HOME": str(tmp_path / "cache"), "NO_COLOR": "1"}
    program = "x = tensor(3.0, requires_grad=True); y = x**2+3*x+2; y.backward(); x.grad"
    for _ in range(2):
        done = subprocess.run([sys.executable, "-m", "gradcalc", "-e", program], cwd=tmp_path, env=env,
                              capture_output=True, text=True, timeout=120)
        assert (done.stdout, done.stderr, done.returncode) == ("tensor(9.)\n", "", 0)
    # a syntax error is worded by the grammar's parser: the first run builds its cache, the second loads it
    for _ in range(2):
        failed = subprocess.run([sys.executable, "-m", "gradcalc", "-e", "x = = 1"], cwd=tmp_path, env=env,
                                capture_output=True, text=True, timeout=120)
        assert failed.returncode == 1 and "expected an expression" in failed.stdout + failed.stderr
    # with the cache built, a start reads it and leaves Lark's runtime for the first syntax error
    preloaded = subprocess.run([sys.executable, "-c", "import sys; from gradcalc.language import parser; "
                                "parser.preload(); print('gradcalc.language._lark_runtime' in sys.modules, "
                                "parser._stored_parser is not None)"], cwd=tmp_path, env=env, capture_output=True,
                               text=True, check=True)
    assert preloaded.stdout == "False True\n"
    located = subprocess.run([sys.executable, "-c", "import gradcalc; print(gradcalc.__file__)"], cwd=tmp_path,
                             env=env, capture_output=True, text=True, check=True)
    assert located.stdout.startswith(str(site))
    if shutil.which("cc") or shutil.which("gcc"):  # the wheel's own native kernels, loaded
        loaded = subprocess.run([sys.executable, "-c", "from gradcalc.autograd import native; "
                                 "print(native.kernels.__file__)"], cwd=tmp_path, env=env, capture_output=True,
                                text=True, check=True)
        assert loaded.stdout.startswith(str(site))
    assert any((tmp_path / "cache" / "gradcalc").iterdir())


# What the parser makes of a few programs, valid or not, as JSON: run by an installed gradcalc and
# by the source tree's, which use the generated parser and the lark package respectively.
_PARSE_REPORT = """
import ast, json, sys
from gradcalc.language import parser

report = []
for source in json.load(sys.stdin):
    try:
        tree = parser.parse(source).module
        report.append(ast.dump(tree, include_attributes=True))
    except parser.GradcalcSyntaxError as error:
        report.append([error.type_name, str(error), error.line, error.column, list(error.expected),
                       error.input_ended])
print(json.dumps({"runtime": parser._runtime_module().__name__, "report": report}))
"""

_SOURCES = [
    "x = tensor(3.0, requires_grad=True); y = x**2+3*x+2; y.backward(); x.grad",
    "def f(a, *b, c=1, **d):\n    return [i for i in b if i]\n",
    "print(f'{x!r:>{width}} and {y=}')",
    "if x:\n  y\nelif z:\n  w\nelse:\n  pass\n",
    "f(a b)", "if x:\n1", "x = (1,\n", "x = 1 +", "a = 0x", "print 1", "x = ]", "  x = 1",
    "if x:\n    a\n  b\n", "s = 'abc", "x = 1 $ 2", "f(x for x in y, 1)", "print(f'{1+}')",
]


def _parse_report(env: dict) -> dict:
    done = subprocess.run([sys.executable, "-c", _PARSE_REPORT], input=json.dumps(_SOURCES), env=env, cwd=env["HOME"],
                          capture_output=True, text=True, check=True, timeout=120)
    return json.loads(done.stdout)


def test_generated_parser_parses_as_the_lark_package_does(site: Path, tmp_path: Path) -> None:
    source_tree = _parse_report({**os.environ, "PYTHONPATH": str(REPO), "HOME": str(tmp_path),
                                 "XDG_CACHE_HOME": str(tmp_path / "source-cache")})
    assert source_tree["runtime"] == "lark"
    env = {**os.environ, "PYTHONPATH": str(site), "HOME": str(tmp_path), "XDG_CACHE_HOME": str(tmp_path / "cache")}
    cache = tmp_path / "cache" / "gradcalc"
    cache.mkdir(parents=True)
    tag = f"py{sys.version_info[0]}{sys.version_info[1]}"
    # what earlier builds left, for this Python (before and since the name had the compiled
    # expressions' format) and for another one
    stale = [f"parser-0123456789abcdef-{tag}.pickle", f"parser-fedcba9876543210-{tag}-sre{_sre.MAGIC}.pickle"]
    for name in stale:
        (cache / name).write_bytes(b"stale")
    (cache / "parser-0123456789abcdef-py30.pickle").write_bytes(b"another Python's")
    for _ in range(2):  # built from the tables, then unpickled from the cache
        installed = _parse_report(env)
        assert installed == {"runtime": "gradcalc.language._lark_runtime", "report": source_tree["report"]}
    assert not any((cache / name).exists() for name in stale)
    assert (cache / "parser-0123456789abcdef-py30.pickle").exists()
    (pickled,) = cache.glob(f"parser-*-{tag}-sre*.pickle")
    pickled.write_bytes(b"not a pickle")  # a damaged cache is rebuilt
    assert _parse_report(env)["report"] == source_tree["report"]
    assert pickled.read_bytes() != b"not a pickle"
    blocked = tmp_path / "file-not-dir"
    blocked.write_text("")
    assert _parse_report({**env, "XDG_CACHE_HOME": str(blocked)})["report"] == source_tree["report"]
