"""The Jupyter kernel, driven as JupyterLab drives it: jupyter_client's kernel manager starts the
kernelspec `gradcalc kernel install` wrote, and every message of a cell is checked."""
from __future__ import annotations

import gc
import importlib.util
import logging
import os
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Iterator

import pytest

EXTRA = "the jupyter extra is not installed (pip install -e '.[test,jupyter]')"
pytest.importorskip("ipykernel", reason=EXTRA)
pytest.importorskip("jupyter_client", reason=EXTRA)

from jupyter_client.kernelspec import KernelSpecManager  # noqa: E402
from jupyter_client.manager import KernelManager  # noqa: E402

from gradcalc.notebook.kernel import name_at  # noqa: E402


@pytest.fixture(scope="module")
def kernel_dirs(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    prefix = tmp_path_factory.mktemp("prefix")
    done = subprocess.run([sys.executable, "-m", "gradcalc", "kernel", "install", "--prefix", str(prefix)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "Installed the kernelspec gradcalc" in done.stdout
    return [str(prefix / "share" / "jupyter" / "kernels")]


@pytest.fixture(autouse=True)
def _clients_finalised_here() -> Iterator[None]:
    """jupyter_client's objects end here, not in a later test's program. The audit hook is up during
    every collection in a process that runs programs, so their `__del__` must not log (logging looks
    at frames): its records are off meanwhile."""
    yield
    logging.disable(logging.CRITICAL)
    try:
        gc.collect()
    finally:
        logging.disable(logging.NOTSET)


@pytest.fixture(scope="module")
def kernel(kernel_dirs: list[str]):
    manager = KernelManager(kernel_name="gradcalc", kernel_spec_manager=KernelSpecManager(kernel_dirs=kernel_dirs))
    manager.start_kernel()
    client = manager.client()
    client.start_channels()
    client.wait_for_ready(timeout=120)
    yield manager, client
    client.stop_channels()
    manager.shutdown_kernel(now=True)
    del client, manager


def run(client, code: str, timeout: float = 120) -> tuple[str, list]:
    """The reply's status and the cell's iopub messages (type, content), status messages aside."""
    messages: list = []
    reply = client.execute_interactive(code, timeout=timeout,
                                       output_hook=lambda m: messages.append((m["msg_type"], m["content"])))
    return reply["content"]["status"], [m for m in messages if m[0] not in ("status", "execute_input")]


def test_the_kernelspec(kernel_dirs: list[str]) -> None:
    spec = KernelSpecManager(kernel_dirs=kernel_dirs).get_kernel_spec("gradcalc")
    assert spec.display_name == "gradcalc (PyTorch 2.13 autograd)"
    assert spec.language == "python" and spec.interrupt_mode == "signal"
    assert spec.argv[1:4] == ["-P", "-m", "gradcalc.notebook"]


def test_streams_and_the_result_as_ipython_shows_it(kernel) -> None:
    _, client = kernel
    status, messages = run(client, "x = ones(2, 2, requires_grad=True)\nprint('hi')\nx")
    assert status == "ok"
    assert messages[0] == ("stream", {"name": "stdout", "text": "hi\n"})
    kind, content = messages[1]
    assert kind == "execute_result"
    assert content["data"] == {"text/plain": "tensor([[1., 1.],\n        [1., 1.]], requires_grad=True)"}
    # a tensor inside a tuple is indented under the bracket, as IPython's pretty printer lays it out
    status, messages = run(client, "y = (x * x).sum(); y.backward()\nx\nx.grad, y")
    assert [kind for kind, _ in messages] == ["execute_result"]
    assert messages[0][1]["data"]["text/plain"] == ("(tensor([[2., 2.],\n         [2., 2.]]),\n"
                                                    " tensor(4., grad_fn=<SumBackward0>))")
    assert run(client, "x;")[1] == []  # a trailing semicolon hides the value


def test_an_error_and_a_warning(kernel) -> None:
    _, client = kernel
    status, messages = run(client, "print('before')\nones(2).sum().backward()")
    assert status == "error"
    assert messages[0] == ("stream", {"name": "stdout", "text": "before\n"})
    error = "element 0 of tensors does not require grad and does not have a grad_fn"  # SPEC §2's example
    assert messages[1] == ("error", {"ename": "RuntimeError", "evalue": error,
                                     "traceback": [f"RuntimeError: {error}"]})
    status, messages = run(client, "a = ones(2, requires_grad=True)\nb = a * 2\nb.grad")
    assert status == "ok"
    assert messages[0][0] == "stream" and messages[0][1]["name"] == "stderr"
    assert messages[0][1]["text"].startswith("<cell>:3: UserWarning: The .grad attribute of a Tensor that is not a "
                                             "leaf Tensor is being accessed.")
    assert messages[0][1]["text"].endswith("\n  b.grad\n")


def test_completion_and_inspection(kernel) -> None:
    _, client = kernel
    run(client, "w = ones(2, requires_grad=True)")
    reply = client.complete("w.requ", 6, reply=True, timeout=60)["content"]
    assert reply["matches"] == ["requires_grad", "requires_grad_"]
    assert (reply["cursor_start"], reply["cursor_end"]) == (2, 6)
    reply = client.inspect("torch.add(w, ", 13, reply=True, timeout=60)["content"]
    assert reply["found"]
    assert reply["data"]["text/plain"].splitlines()[:2] == [
        "Signature: torch.add(input, other, *, alpha=1, out=None) -> Tensor",
        "Docstring: Adds other, scaled by alpha, to input."]
    reply = client.inspect("w.backward", 4, reply=True, timeout=60)["content"]
    assert "Signature: torch.Tensor.backward(self, gradient=None" in reply["data"]["text/plain"]
    assert not client.inspect("nothing_here", 3, reply=True, timeout=60)["content"]["found"]


def test_help_syntax_answers_in_the_pager(kernel) -> None:
    """`name?` as in IPython (the NYU course's tensor notebook asks `torch.*Tensor?`): the answer is
    a page payload of the reply, not an output."""
    _, client = kernel

    def pages(code: str) -> tuple[list, list]:
        messages: list = []
        reply = client.execute_interactive(code, timeout=120, output_hook=lambda m: messages.append(m["msg_type"]))
        assert reply["content"]["status"] == "ok"
        return [p["data"]["text/plain"] for p in reply["content"]["payload"] if p["source"] == "page"], messages

    found, messages = pages("torch.*Tensor?")
    assert "stream" not in messages and "error" not in messages
    # IPython 9's list under PyTorch 2.13
    assert found == ["torch.BFloat16Tensor\ntorch.BoolTensor\ntorch.ByteTensor\ntorch.CharTensor\n"
                     "torch.DoubleTensor\ntorch.FloatTensor\ntorch.HalfTensor\ntorch.IntTensor\n"
                     "torch.LongTensor\ntorch.ShortTensor\ntorch.Tensor"]
    found, _ = pages("torch.add?")
    assert found[0].startswith("Signature: torch.add(input, other, *, alpha=1, out=None) -> Tensor")
    found, _ = pages("??torch.nn.Module")
    assert "Type:      type" in found[0]
    status, messages = run(client, "nothing_here?")
    assert status == "ok" and messages == [("stream", {"name": "stdout", "text": "Object `nothing_here` not found.\n"})]


def test_name_at_the_cursor() -> None:
    assert name_at("y = torch.add(x, 1)", 9) == "torch.add"
    assert name_at("y = torch.add(x, 1)", 14) == "torch.add"
    assert name_at("y = F.relu(x.grad", 17) == "x.grad"
    assert name_at("", 0) == ""


def test_vars_and_graph_magics(kernel) -> None:
    _, client = kernel
    run(client, "g = ones(2, requires_grad=True)\nh = (g * 3).sum()")
    status, messages = run(client, "%vars")
    assert status == "ok" and messages[0][0] == "display_data"
    html = messages[0][1]["data"]["text/html"]
    assert "<th>requires_grad</th>" in html and "<td>h</td><td>Tensor</td><td>[]</td>" in html
    status, messages = run(client, "%graph h")
    assert status == "ok" and messages[0][0] == "display_data"
    data = messages[0][1]["data"]
    assert "SumBackward0" in data["text/plain"]
    # the picture comes with the web page's SVG renderer (display/picture.py), where gradcalc has it
    has_picture = importlib.util.find_spec("gradcalc.display.picture") is not None
    assert ("image/svg+xml" in data) == has_picture
    if has_picture:
        assert data["image/svg+xml"].startswith("<svg") and "SumBackward0" in data["image/svg+xml"]
    status, messages = run(client, "%matplotlib inline")
    assert status == "error" and messages[0][1]["ename"] == "UsageError"
    status, messages = run(client, "!ls")
    assert status == "error" and "runs no shell commands" in messages[0][1]["evalue"]
    status, messages = run(client, "%%time\nx = 1")
    assert status == "error" and messages[0][1]["evalue"].startswith("Cell magic `%%time` not found")


def test_interrupt_ends_an_endless_loop_and_keeps_the_variables(kernel) -> None:
    manager, client = kernel
    run(client, "kept = tensor(3.)")
    timer = threading.Timer(2.0, manager.interrupt_kernel)
    timer.start()
    started = time.monotonic()
    status, messages = run(client, "while True:\n    pass")
    assert status == "error" and messages[-1] == ("error", {"ename": "KeyboardInterrupt", "evalue": "",
                                                            "traceback": ["KeyboardInterrupt"]})
    assert time.monotonic() - started < 60
    assert run(client, "kept")[1][0][1]["data"]["text/plain"] == "tensor(3.)"


def test_a_running_cell_streams_its_output(kernel) -> None:
    """A print before an endless loop shows while the loop runs; the interrupt then ends it."""
    manager, client = kernel
    message_id = client.execute("print('started')\nwhile True:\n    pass")
    seen = []
    while not any(kind == "stream" for kind, _ in seen):
        message = client.get_iopub_msg(timeout=60)
        if message["parent_header"].get("msg_id") == message_id:
            seen.append((message["msg_type"], message["content"]))
    assert ("stream", {"name": "stdout", "text": "started\n"}) in seen
    manager.interrupt_kernel()
    reply = client.get_shell_msg(timeout=60)
    assert reply["parent_header"]["msg_id"] == message_id and reply["content"]["ename"] == "KeyboardInterrupt"


def _worker_of(kernel_pid: int) -> int:
    children = []
    for task in Path(f"/proc/{kernel_pid}/task").iterdir():
        children += (task / "children").read_text().split()
    return int(children[0])


def test_a_killed_worker_is_said_and_replaced(kernel) -> None:
    manager, client = kernel
    run(client, "lost = tensor(1.)")
    os.kill(_worker_of(manager.provisioner.process.pid), 9)
    status, messages = run(client, "lost")
    assert status == "error"
    assert messages[-1][1]["ename"] == "WorkerDied"
    assert messages[-1][1]["evalue"].startswith("the worker was killed by SIGKILL")
    status, messages = run(client, "lost")
    assert status == "error" and messages[-1][1]["ename"] == "NameError"
    assert run(client, "tensor(2.) * 2")[1][0][1]["data"]["text/plain"] == "tensor(4.)"


def test_restart_gives_a_fresh_worker(kernel) -> None:
    manager, client = kernel
    run(client, "before_restart = 1")
    manager.restart_kernel(now=True)
    client.wait_for_ready(timeout=120)
    status, messages = run(client, "before_restart")
    assert status == "error" and messages[-1][1]["evalue"] == "name 'before_restart' is not defined"


def test_nbclient_runs_a_notebook_with_the_kernel(kernel_dirs: list[str]) -> None:
    nbclient = pytest.importorskip("nbclient", reason=EXTRA)
    nbformat = pytest.importorskip("nbformat", reason=EXTRA)
    notebook = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_code_cell("x = tensor([1., 2.], requires_grad=True)\n(x ** 2).sum().backward()"),
        nbformat.v4.new_code_cell("print(x.grad)\nx.grad * 2"),
        nbformat.v4.new_code_cell("x.grad.foo"),
    ])
    manager = KernelManager(kernel_name="gradcalc", kernel_spec_manager=KernelSpecManager(kernel_dirs=kernel_dirs))
    nbclient.NotebookClient(notebook, km=manager, timeout=120, allow_errors=True).execute()
    assert notebook.cells[0].outputs == []
    assert [o["output_type"] for o in notebook.cells[1].outputs] == ["stream", "execute_result"]
    assert notebook.cells[1].outputs[1]["data"]["text/plain"] == "tensor([4., 8.])"
    assert notebook.cells[2].outputs[0]["ename"] == "AttributeError"


@pytest.mark.parametrize("name", ["tutorial_s002", "course_pytorch_autograd_basics"])
def test_a_recorded_course_notebook_through_the_kernel(kernel_dirs: list[str], name: str) -> None:
    """The kernel gives, cell by cell, the outputs PyTorch's kernel stored (as nbcheck compares them)."""
    nbclient = pytest.importorskip("nbclient", reason=EXTRA)
    nbformat = pytest.importorskip("nbformat", reason=EXTRA)
    from gradcalc.notebook.check import normalize

    path = Path(__file__).parent / "notebooks" / f"{name}.ipynb"
    expected = nbformat.read(str(path), as_version=4)
    notebook = nbformat.read(str(path), as_version=4)
    manager = KernelManager(kernel_name="gradcalc", kernel_spec_manager=KernelSpecManager(kernel_dirs=kernel_dirs))
    nbclient.NotebookClient(notebook, km=manager, timeout=120, allow_errors=True).execute()
    pairs = [(want, got) for want, got in zip(expected.cells, notebook.cells) if want.cell_type == "code"]
    assert any(output.output_type == "error" for want, _ in pairs for output in want.outputs)
    for want, got in pairs:
        assert normalize(got.outputs) == normalize(want.outputs), want.source
