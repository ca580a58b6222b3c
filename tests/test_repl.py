"""The REPL in-process: completion, editing keys, transcripts, hints, meta-commands and history,
the loop driven through prompt_toolkit's pipe input. (A real terminal: test_repl_terminal.py.)"""
from __future__ import annotations

import io
import sys
from pathlib import Path

import pytest
from prompt_toolkit.completion import CompleteEvent
from prompt_toolkit.document import Document
from prompt_toolkit.history import InMemoryHistory
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from gradcalc.repl.app import Loader, Repl, indent_for_next_line
from gradcalc.repl.commands import HELP
from gradcalc.display.completion import complete
from gradcalc.repl.completion import SessionCompleter
from gradcalc.repl.history import SafeFileHistory, history_path, open_history
from gradcalc.repl.transcript import InputLog, strip_prompts
from gradcalc.session import Session, TextOutput


@pytest.fixture
def session() -> Session:
    stderr = io.StringIO()
    session = Session(TextOutput(io.StringIO(), stderr))
    assert session.run("x = tensor([1., 2.], requires_grad=True); y = x * 2; w = nn.Linear(2, 1)")
    return session


# ------------------------------------------------------------------ completion

def test_attribute_completion(session: Session) -> None:
    assert complete(session, "x.requ") == ["requires_grad", "requires_grad_"]
    everything = complete(session, "x.")
    assert {"backward", "grad", "detach", "retain_grad", "shape"} <= set(everything)
    assert not [name for name in everything if name.startswith("_")]
    assert "__class__" not in complete(session, "x.__") and "_data" not in complete(session, "x._")
    assert complete(session, "torch.nn.functional.mse") == ["mse_loss"]
    assert "weight" in complete(session, "w.") and "next_functions" in complete(session, "y.grad_fn.")
    assert complete(session, "print(x.grad_fn.is_") == []  # x is a leaf: its grad_fn is None, nothing to offer


def test_name_completion(session: Session) -> None:
    assert complete(session, "tens") == ["tensor"]
    assert complete(session, "x = wh") == ["while"]
    assert "print" in complete(session, "pr") and "__name__" not in complete(session, "__")
    assert complete(session, "f(y") == ["y", "yield"]
    assert not [name for name in complete(session, "") if name.startswith("$")]


def test_completion_never_calls_or_warns(session: Session) -> None:
    assert complete(session, "x.detach().") == []
    assert complete(session, "print('x.re") == [] and complete(session, "1 # x.re") == []
    assert complete(session, "len.") == [] and complete(session, "nothing.") == []
    assert complete(session, "y.grad.") == []  # a non-leaf's .grad warns in a program, never while typing
    assert session.output.stderr.getvalue() == ""


def test_completer_replaces_the_word_and_knows_the_commands(session: Session) -> None:
    event = CompleteEvent(completion_requested=True)
    completer = SessionCompleter(lambda text: complete(session, text))
    completions = list(completer.get_completions(Document("z = x.requ"), event))
    assert [(c.text, c.start_position) for c in completions] == [("requires_grad", -4), ("requires_grad_", -4)]
    assert [c.text for c in completer.get_completions(Document(":gr"), event)] == [":graph"]
    assert [c.text for c in completer.get_completions(Document(":graph w.w"), event)] == ["weight"]


# ------------------------------------------------------------------ editing

@pytest.mark.parametrize("line, indent", [
    ("for i in range(3):", 4), ("    if x:  # comment", 8), ("    y = 1", 4), ("        return y", 4),
    ("    pass", 0), ("s = '#:'", 0), ("x = {", 0),
])
def test_auto_indent(line: str, indent: int) -> None:
    assert indent_for_next_line(line) == " " * indent


# ------------------------------------------------------------------ the loop, through a pipe

def drive(keys: str, history: object = None) -> tuple[str, str, Repl]:
    stdout, stderr = io.StringIO(), io.StringIO()
    with create_pipe_input() as pipe:
        pipe.send_text(keys)
        repl = Repl(Loader(lambda: TextOutput(stdout, stderr), False), False, history or InMemoryHistory(), pipe,
                    DummyOutput(), banner_stream=stderr)
        repl.run()
    return stdout.getvalue(), stderr.getvalue(), repl


def test_blocks_errors_and_leaving() -> None:
    out, err, _ = drive(
        "x = tensor(2.0, requires_grad=True)\r"
        "for i in range(2):\rx * i\r\r"  # the body is indented for us; an empty line ends the block
        "with no_grad():\rif True:\rx * 3\r\r"
        "def f(a):\rreturn a + 1\r\r"
        "undefined_name\r"
        "\x03"  # Ctrl-C drops an (empty) input
        "f(x)\r"
        "exit\r"
        "x\r"  # never reached
    )
    assert out.splitlines() == [
        "tensor(0., grad_fn=<MulBackward0>)", "tensor(2., grad_fn=<MulBackward0>)", "tensor(6.)",
        "tensor(3., grad_fn=<AddBackward0>)",
    ]
    banner, error = err.splitlines()
    assert banner.startswith("gradcalc ") and "PyTorch 2.13" in banner and ":help" in banner
    assert error == "NameError: name 'undefined_name' is not defined"


def test_open_brackets_help_and_ctrl_d() -> None:
    out, err, _ = drive("t = tensor([1.,\r2.])\rt.sum(\r)\rhelp\r:help\r\x04")
    assert out == "tensor(3.)\n" + HELP + HELP  # help and :help say the same
    assert ":vars" in HELP and ":graph NAME" in HELP and ":save FILE" in HELP
    assert err.count("\n") == 1  # the banner only


def test_did_you_mean_hints_in_the_repl_only() -> None:
    _, err, repl = drive("tensr(1.)\rx = ones(2)\rx.gradd\rdef f():\rreturn totall\r\rtotal = 1\rf()\r"
                         "xx\rimport math\rmath.sine\r\x04")
    assert err.splitlines()[1:] == [
        "NameError: name 'tensr' is not defined. Did you mean: 'tensor'?",
        "AttributeError: 'Tensor' object has no attribute 'gradd'. Did you mean: 'grad'?",
        "NameError: name 'totall' is not defined. Did you mean: 'total'?",
        "NameError: name 'xx' is not defined. Did you mean: 'x'?",
        "AttributeError: module 'math' has no attribute 'sine'. Did you mean: 'sin'?",
    ]
    # a script prints what PyTorch's run prints: no hints (test_cli.py runs one)
    script = Session(TextOutput(io.StringIO(), io.StringIO()))
    script.run("tensr(1.)")
    assert script.output.stderr.getvalue() == "NameError: name 'tensr' is not defined\n"


def test_missing_libraries_name_what_gradcalc_offers_in_the_repl_only() -> None:
    _, err, _ = drive("import torchvision.transforms as T\rimport nosuchlib\r\x04")
    assert err.splitlines()[1:] == [
        "ModuleNotFoundError: No module named 'torchvision'. gradcalc has no torchvision: make image batches with "
        "torch.rand(N, C, H, W) and datasets with torch.utils.data.TensorDataset",
        "ModuleNotFoundError: No module named 'nosuchlib'"]
    script = Session(TextOutput(io.StringIO(), io.StringIO()))
    script.run("import torchvision")
    assert script.output.stderr.getvalue() == "ModuleNotFoundError: No module named 'torchvision'\n"


def test_hints_offer_only_what_the_program_may_read() -> None:
    _, err, _ = drive("program = 1\rprogra\rx = ones(1)\rx._dat\r\x04")
    assert err.splitlines()[1] == "NameError: name 'progra' is not defined. Did you mean: 'program'?"
    assert err.splitlines()[2] == "AttributeError: 'Tensor' object has no attribute '_dat'"  # no '_data'
    _, err, _ = drive("progra\r\x04")  # `$program`, the compiler's, is never offered
    assert err.splitlines()[1] == "NameError: name 'progra' is not defined"


def test_pasted_transcript_runs_without_prompts_and_outputs() -> None:
    paste = (">>> a = tensor([1., 2.], requires_grad=True)\n"
             ">>> b = (a * a).sum()\n"
             ">>> b\n"
             "tensor(5., grad_fn=<SumBackward0>)\n"
             ">>> for i in range(2):\n"
             "...     print(i)\n"
             "...\n"
             "0\n1\n")
    out, err, _ = drive("\x1b[200~" + paste + "\x1b[201~\r\x04")
    assert out == "tensor(5., grad_fn=<SumBackward0>)\n0\n1\n"
    assert err.count("\n") == 1


@pytest.mark.parametrize("text, code", [
    (">>> x = 1\n>>> x\n1\n", "x = 1\nx"),
    ("    >>> y = torch.ones(2)\n    >>> if True:\n    ...     y\n    tensor([1., 1.])\n",  # a docstring's indent
     "y = torch.ones(2)\nif True:\n    y"),
    (">>>x = 1", ">>>x = 1"),  # no prompt: Python's own error for it
    ("x = 1\n>>> y", "x = 1\n>>> y"),  # only a paste that starts with a prompt is a transcript
    (">>> s = '''\n... >>> not a prompt\n... '''\n", "s = '''\n>>> not a prompt\n'''"),
])
def test_strip_prompts(text: str, code: str) -> None:
    assert strip_prompts(text) == code


def test_reset_and_save(tmp_path: Path) -> None:
    target = tmp_path / "lesson.grad"
    out, err, repl = drive(
        "x = tensor(2.0, requires_grad=True)\r"
        "y = x ** 2; z = undefined; w = 3\r"
        "@no_grad()\rdef f(t):\rreturn t * 2\r\r"
        "z = f(y)\r"
        "print(z\r)\r"
        f":save {target}\r"
        ":save\r"
        f":save {tmp_path}/no/such/dir.grad\r"
        ":reset\r"
        "x\r"
        ":vars\r"
        "\x04")
    assert f"Saved to {target}" in out and "A fresh session" in out and "No tensors or modules yet." in out
    assert err.splitlines()[1:] == [
        "NameError: name 'undefined' is not defined",
        ":save needs a file name, as in :save lesson.grad",
        f":save: can't write '{tmp_path}/no/such/dir.grad': No such file or directory",
        "NameError: name 'x' is not defined",
    ]
    saved = target.read_text()
    assert "# ended in an error (left out):\n# z = undefined; w = 3\n" in saved
    # the script reproduces the session: what it prints, and its end
    rerun = Session(TextOutput(io.StringIO(), io.StringIO()))
    assert rerun.run(saved, str(target))
    assert rerun.output.stdout.getvalue() == "tensor(8.)\n"
    assert rerun.namespace["y"].grad_fn is not None and rerun.namespace["z"].grad_fn is None


def test_input_log_cuts_a_failed_input_at_its_statement() -> None:
    log = InputLog()
    log.add("a = 1", True, 1)
    log.add("b = 'é'; c = d; e = 1", False, 1)
    log.add("f(\n", False, 0)  # a syntax error runs nothing
    log.add("@deco\ndef g():\n    pass\n", False, 0)
    assert log.script().split("\n")[1:] == [
        "a = 1", "b = 'é'", "# ended in an error (left out):", "# c = d; e = 1",
        "# ended in an error (left out):", "# f(",
        "# ended in an error (left out):", "# @deco", "# def g():", "#     pass", ""]


# ------------------------------------------------------------------ history

def test_history_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GRADCALC_HISTORY", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    assert history_path() == tmp_path / "data" / "gradcalc" / "history"
    monkeypatch.setenv("XDG_DATA_HOME", "relative/path")
    assert history_path() == Path.home() / ".local" / "share" / "gradcalc" / "history"
    monkeypatch.setenv("GRADCALC_HISTORY", str(tmp_path / "from-env"))
    assert history_path() == tmp_path / "from-env"
    assert history_path(str(tmp_path / "from-option")) == tmp_path / "from-option"  # --history-file wins


def test_history_never_stops_the_repl(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GRADCALC_HISTORY", raising=False)
    (tmp_path / "a-file").write_text("")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "a-file"))
    assert type(open_history()).__name__ == "InMemoryHistory"  # no directory for the file: history in memory
    blocked = SafeFileHistory(str(tmp_path / "missing-dir" / "history"))
    blocked.store_string("x = 1")  # unwritable: kept in memory, never an error
    assert list(blocked.load_history_strings()) == []
    (tmp_path / "binary").write_bytes(b"\xff\xfe+x\n")
    assert list(SafeFileHistory(str(tmp_path / "binary")).load_history_strings()) == []


def test_history_is_written_between_inputs_not_by_the_program(tmp_path: Path) -> None:
    history = SafeFileHistory(str(tmp_path / "history"))
    drive("x = 1\rprint(open)\r\x04", history)
    assert "+x = 1" in (tmp_path / "history").read_text()


def test_the_first_prompt_waits_for_nothing_heavy() -> None:
    """The banner and first prompt need neither the editor nor anything of the session; the editor's
    modules load without numpy, the session, Rich, click or pygments: those come after the first
    prompt (app.Loader)."""
    import subprocess

    heavy = "{'numpy', 'rich', 'click', 'pygments', 'lark', 'prompt_toolkit'}"
    code = ("import sys, gradcalc.cli, gradcalc.repl.early\n"
            f"print(sorted({{m.split('.')[0] for m in sys.modules}} & {heavy}))\n"
            "import gradcalc.repl.app\n"
            f"print(sorted({{m.split('.')[0] for m in sys.modules}} & {heavy} - {{'prompt_toolkit'}}),"
            " 'gradcalc.session' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, check=True)
    assert done.stdout == "[]\n[] False\n"


def test_the_front_end_loads_no_numpy() -> None:
    # numpy and the library are the worker's to load: the front end loading them too, on a 2-core
    # machine, would take a processor from the worker while the first input waits for it
    import subprocess

    code = ("import sys\nfrom gradcalc.repl.app import Loader\nfrom gradcalc.display.console import make_output\n"
            "from gradcalc.language.parser import is_complete\nfrom gradcalc.worker.client import Worker\n"
            "make_output(True), make_output(False), is_complete('x = (1,\\n')\n"
            "print(sorted(name for name in sys.modules if name.split('.')[0] == 'numpy'"
            " or name.startswith(('gradcalc.session', 'gradcalc.autograd'))))\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert (done.stdout, done.returncode) == ("[]\n", 0), done.stderr
