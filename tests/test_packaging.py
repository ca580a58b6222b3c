"""The wheel carries the grammar, and an installed gradcalc finds it away from the source tree."""
from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(out), str(REPO)],
                   check=True, capture_output=True)
    (found,) = out.glob("gradcalc-*.whl")
    return found


def test_wheel_ships_the_grammar_inside_the_package(wheel: Path) -> None:
    names = zipfile.ZipFile(wheel).namelist()
    assert "gradcalc/grammar/gradcalc.lark" in names
    grammar = zipfile.ZipFile(wheel).read("gradcalc/grammar/gradcalc.lark")
    assert grammar == (REPO / "grammar" / "gradcalc.lark").read_bytes()


def test_installed_wheel_runs_without_the_source_tree(wheel: Path, tmp_path: Path) -> None:
    site = tmp_path / "site"
    subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "-q", "--target", str(site), str(wheel)],
                   check=True, capture_output=True)
    env = {**os.environ, "PYTHONPATH": str(site), "XDG_CACHE_HOME": str(tmp_path / "cache"), "NO_COLOR": "1"}
    program = "x = tensor(3.0, requires_grad=True); y = x**2+3*x+2; y.backward(); x.grad"
    for _ in range(2):  # the first run builds the parser cache, the second loads it
        done = subprocess.run([sys.executable, "-m", "gradcalc", "-e", program], cwd=tmp_path, env=env,
                              capture_output=True, text=True, timeout=120)
        assert (done.stdout, done.stderr, done.returncode) == ("tensor(9.)\n", "", 0)
    located = subprocess.run([sys.executable, "-c", "import gradcalc; print(gradcalc.__file__)"], cwd=tmp_path,
                             env=env, capture_output=True, text=True, check=True)
    assert located.stdout.startswith(str(site))
    assert any((tmp_path / "cache" / "gradcalc").iterdir())
