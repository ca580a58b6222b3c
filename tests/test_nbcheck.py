"""`gradcalc nbcheck` and the notebook plugin: cells the same, a cell that differs, cells skipped by
design; the course notebooks in tests/notebooks, recorded under PyTorch (`--record`), cell by cell."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from gradcalc.notebook.check import check_notebook, load, normalize, recordable, skip_reason
from gradcalc.notebook.outputs import cell_outputs
from gradcalc.notebook.pretty import pretty

NOTEBOOKS = sorted((Path(__file__).parent / "notebooks").glob("*.ipynb"))
# a real PyTorch, when this machine has one (it is never needed otherwise)
TORCH_PYTHON = os.environ.get("GRADCALC_TORCH_PYTHON", "/tmp/torch/bin/python")


def _cell(source: str, outputs: list) -> dict:
    return {"cell_type": "code", "metadata": {}, "execution_count": None, "source": source, "outputs": outputs}


def _result(text: str) -> dict:
    return {"output_type": "execute_result", "execution_count": 1, "data": {"text/plain": text}, "metadata": {}}


def _notebook(*cells: dict) -> dict:
    return {"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [{"cell_type": "markdown", "metadata": {},
                                                                          "source": "# t"}, *cells]}


SAME = _notebook(
    _cell("x = tensor(3., requires_grad=True)\ny = x ** 2\ny.backward()\nprint('grad:', x.grad)\ny",
          [{"output_type": "stream", "name": "stdout", "text": "grad: tensor(6.)\n"},
           _result("tensor(9., grad_fn=<PowBackward0>)")]),
    _cell("y.grad_fn", [_result("<PowBackward0 at 0x7f0012345678>")]),
    # the notebook's warning names IPython's file for the cell and quotes the line: both are dropped
    _cell("import warnings\nwarnings.warn('careful')", [{"output_type": "stream", "name": "stderr", "text": (
        "/tmp/ipykernel_1/2.py:2: UserWarning: careful\n  warnings.warn('careful')\n")}]),
    _cell("print('before')\n1 / 0", [{"output_type": "stream", "name": "stdout", "text": "before\n"},
                                      {"output_type": "error", "ename": "ZeroDivisionError",
                                       "evalue": "division by zero", "traceback": ["\x1b[31m...long..."]}]),
    _cell("!pip install torch", []),
    _cell("%matplotlib inline", []),
    _cell("x.cuda()", []),
    _cell("data = open('train.csv').read()", []),
)


def test_a_notebook_whose_cells_are_the_same() -> None:
    reports = check_notebook(SAME)
    assert [(r.index, r.verdict) for r in reports] == [(1, "same"), (2, "same"), (3, "same"), (4, "same"),
                                                       (5, "skipped"), (6, "skipped"), (7, "skipped"),
                                                       (8, "skipped")]
    assert [r.why for r in reports[4:]] == ["runs a shell command", "plots (matplotlib)", "uses CUDA",
                                            "uses files or downloads"]


def test_a_cell_that_differs_says_how(tmp_path: Path) -> None:
    path = tmp_path / "differs.ipynb"
    path.write_text(json.dumps(_notebook(_cell("tensor([1., 2.]) * 2", [_result("tensor([2., 5.])")]))))
    done = subprocess.run([sys.executable, "-m", "gradcalc", "nbcheck", str(path)], capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 1
    assert "cell 1: differs" in done.stdout
    assert "-tensor([2., 5.])" in done.stdout and "+tensor([2., 4.])" in done.stdout
    assert done.stdout.endswith("0 same, 1 differ, 0 skipped\n")


def test_nbcheck_exit_status_and_usage_errors(tmp_path: Path) -> None:
    path = tmp_path / "same.ipynb"
    path.write_text(json.dumps(SAME))
    done = subprocess.run([sys.executable, "-m", "gradcalc", "nbcheck", str(path)], capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stdout
    assert "cell 5: skipped (runs a shell command)" in done.stdout
    done = subprocess.run([sys.executable, "-m", "gradcalc", "nbcheck", str(tmp_path / "none.ipynb")],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and "can't open" in done.stderr and "Traceback" not in done.stderr
    done = subprocess.run([sys.executable, "-m", "gradcalc", "nbcheck", "--record", str(tmp_path / "no-python"),
                           str(path)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and "--record: can't run" in done.stderr and "Traceback" not in done.stderr


def test_normalize_masks_addresses_and_warning_locations() -> None:
    assert normalize([_result("<AddBackward0 at 0x7f3a00000000>")]) == ["result:\n<AddBackward0 at 0x…>"]
    assert normalize([{"output_type": "stream", "name": "stderr",
                       "text": "<cell>:3: UserWarning: careful\n  y.grad\n"}]) == ["stderr:\nUserWarning: careful"]
    assert skip_reason("y = x * 2") is None
    assert skip_reason('device = torch.device("cuda" if torch.cuda.is_available() else "cpu")') is None
    assert skip_reason('device = torch.device("cuda") if torch.cuda.is_available() else torch.device("cpu")') is None
    assert skip_reason("x = x.to('cuda:0')") == "uses CUDA"
    # the branches a CPU build never takes, and what torch.cuda answers without a GPU (UvA's set_seed)
    assert skip_reason("torch.manual_seed(1)\nif torch.cuda.is_available():\n    torch.cuda.manual_seed(1)\n"
                       "    x = x.cuda()\ntorch.cuda.manual_seed_all(1)") is None
    assert skip_reason('device = torch.device("cpu") if not torch.cuda.is_available() else torch.device("cuda:0")') \
        is None
    assert skip_reason("if torch.cuda.is_available():\n    x = x.cuda()\nx = x.cuda()") == "uses CUDA"
    assert skip_reason("if torch.cuda.is_available():\n    x = x.cuda()\nplt.plot(x)") == "plots (matplotlib)"


def test_a_cell_its_author_left_out_still_runs() -> None:
    left_out = _cell("x = tensor(5.)\nx", [_result("tensor(4.)")])
    left_out["metadata"]["nbcheck"] = {"skip": "differs in the last bits (a known issue)"}
    reports = check_notebook(_notebook(left_out, _cell("x * 2", [_result("tensor(10.)")])))
    assert [(r.verdict, r.why) for r in reports] == [
        ("skipped", "not compared: differs in the last bits (a known issue)"), ("same", "")]


def test_a_help_request_is_skipped() -> None:
    # the kernel answers `name?` in the pager, of which a notebook stores nothing to compare
    assert skip_reason("torch.nn.Module?") == "asks for help (NAME?)"
    assert skip_reason("# every tensor type\ntorch.*Tensor?") == "asks for help (NAME?)"
    assert skip_reason("??x") == "asks for help (NAME?)"
    assert skip_reason("y = x if x else None") is None


def test_a_fault_of_the_worker_is_the_cells_error() -> None:
    assert cell_outputs({"error": "gradcalc: internal error: KeyError: 'x'"}, 1) == [
        {"output_type": "error", "ename": "gradcalc", "evalue": "internal error: KeyError: 'x'",
         "traceback": ["gradcalc: internal error: KeyError: 'x'"]}]


def test_the_ipython_layout_of_values() -> None:
    assert pretty([1, 2]) == "[1, 2]"
    assert pretty((1,)) == "(1,)"
    assert pretty(list(range(30))) == "[0,\n 1,\n" + "".join(f" {i},\n" for i in range(2, 29)) + " 29]"
    assert pretty({"b": 1, "a": [2]}) == "{'b': 1, 'a': [2]}"
    assert pretty({3, 1, 2}) == "{1, 2, 3}" and pretty(set()) == "set()"


def test_the_plugin_checks_notebooks_cell_by_cell(tmp_path: Path) -> None:
    (tmp_path / "course.ipynb").write_text(json.dumps(_notebook(
        _cell("tensor(2.) ** 2", [_result("tensor(4.)")]),
        _cell("tensor(2.) + 2", [_result("tensor(5.)")]),
        _cell("!pip install torch", []))))
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--gradcalc-notebooks",
                           "-rs", str(tmp_path)], capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert "1 failed, 1 passed, 1 skipped" in done.stdout, done.stdout
    assert "course.ipynb, cell 2: gradcalc's outputs differ from the notebook's" in done.stdout
    assert "runs a shell command" in done.stdout


def test_record_runs_the_notebook_under_another_python(tmp_path: Path) -> None:
    pytest.importorskip("nbclient", reason="the jupyter extra is not installed (pip install -e '.[test,jupyter]')")
    pytest.importorskip("ipykernel", reason="the jupyter extra is not installed (pip install -e '.[test,jupyter]')")
    path = tmp_path / "plain.ipynb"
    path.write_text(json.dumps(_notebook(_cell("print('a')\n[1, 2]", []), _cell("1/0", []),
                                         _cell("!echo never run", []))))
    # this Python has no torch, but plain Python cells run the same in both
    done = subprocess.run([sys.executable, "-m", "gradcalc", "nbcheck", "--record", sys.executable, str(path)],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    cells = [cell for cell in load(str(path))["cells"] if cell["cell_type"] == "code"]
    assert "".join(cells[0]["outputs"][1]["data"]["text/plain"]) == "[1, 2]"  # stored as a list of lines
    assert cells[1]["outputs"][0]["ename"] == "ZeroDivisionError"
    assert cells[2]["outputs"] == [] and "tags" not in cells[2]["metadata"]  # a skipped cell is not run there
    assert "3: skipped (runs a shell command)" in done.stdout


def _has_torch_and_ipykernel(python: str) -> bool:
    if not os.path.exists(python):
        return False
    return subprocess.run([python, "-c", "import torch, ipykernel"], capture_output=True, timeout=300).returncode == 0


@pytest.mark.skipif(not _has_torch_and_ipykernel(TORCH_PYTHON), reason="no PyTorch with ipykernel on this machine")
def test_a_notebook_is_checked_as_the_machine_it_was_recorded_on(tmp_path: Path) -> None:
    """PyTorch's last digits depend on the processor: `--record` keeps the machine it ran on in the
    notebook's metadata, and the check computes as that machine does (here, the cell that asks for
    ATen's capability passes as recorded, and differs when the metadata names the other one)."""
    pytest.importorskip("nbclient", reason="the jupyter extra is not installed (pip install -e '.[test,jupyter]')")
    from gradcalc.autograd import cpu

    path = tmp_path / "machine.ipynb"
    path.write_text(json.dumps(_notebook(_cell("import torch\ntorch.backends.cpu.get_cpu_capability()", []))))
    done = subprocess.run([sys.executable, "-m", "gradcalc", "nbcheck", "--record", TORCH_PYTHON, str(path)],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    notebook = load(str(path))
    machine = notebook["metadata"]["gradcalc"]["machine"]
    assert machine == cpu.machine_record()
    other = "avx2" if machine["aten"] == "avx512" else "avx512"
    notebook["metadata"]["gradcalc"]["machine"] = {**machine, "aten": other}
    assert [report.verdict for report in check_notebook(notebook)] == ["differs"]


def test_record_runs_a_plotting_cell_for_its_imports(tmp_path: Path) -> None:
    """A lecture's first cell often imports torch beside matplotlib: under PyTorch it must run, or
    every cell after it fails there. Shell commands and other magics still do not run."""
    pytest.importorskip("nbclient", reason="the jupyter extra is not installed (pip install -e '.[test,jupyter]')")
    pytest.importorskip("ipykernel", reason="the jupyter extra is not installed (pip install -e '.[test,jupyter]')")
    from gradcalc.notebook.record import record

    assert recordable("import math\nimport matplotlib.pyplot as plt\n%matplotlib inline")
    assert recordable("x = x.to('cuda')") and recordable("torch.*Tensor?")
    assert not recordable("plt.plot(xs)\n!rm -rf data") and not recordable("%%bash\necho plt.x")
    assert not recordable("xs = open('names.txt').read()  # plt.")
    path = tmp_path / "lecture.ipynb"
    path.write_text(json.dumps(_notebook(_cell("import math\nimport matplotlib.pyplot as plt\n%matplotlib inline", []),
                                         _cell("math.floor(2.5)", []), _cell("%%bash\necho plt.never", []))))
    record(str(path), sys.executable)
    cells = [cell for cell in load(str(path))["cells"] if cell["cell_type"] == "code"]
    assert "".join(cells[1]["outputs"][0]["data"]["text/plain"]) == "2"
    assert cells[2]["outputs"] == []


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[path.stem for path in NOTEBOOKS])
def test_course_notebooks_recorded_under_pytorch(path: Path) -> None:
    reports = check_notebook(load(str(path)))
    differing = [f"cell {r.index}:\n" + "\n".join(r.diff) for r in reports if r.verdict == "differs"]
    assert not differing, "\n".join(differing)
