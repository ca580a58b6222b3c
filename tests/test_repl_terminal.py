"""The REPL on a real (pseudo-)terminal, as a person uses it: every feature end to end, and the
views (:vars, :graph) checked against what the same session's program reads."""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from terminal import Terminal, gradcalc_command, gradcalc_environment

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="needs a POSIX pseudo-terminal")


@pytest.fixture
def start(tmp_path: Path):
    """start(*args, columns=..., **environment) -> a Terminal running `gradcalc *args`."""
    terminals = []

    def starter(*args: str, columns: int = 100, **environment: str) -> Terminal:
        term = Terminal(gradcalc_command(*args), gradcalc_environment(tmp_path, **environment), columns=columns)
        terminals.append(term)
        term.expect("PyTorch 2.13 semantics")
        term.expect(">>>")
        return term

    yield starter
    for term in terminals:
        term.close()


def run(term: Terminal, line: str) -> str:
    """Type one line (short enough not to wrap) and Enter; what it printed before the next prompt."""
    assert len(line) < 90
    term.send(line + "\r")
    term.expect(line + "\n")  # the input as it is drawn once run (it was drawn as typed before)
    return term.expect(">>>")


def run_block(term: Terminal, keys: str) -> None:
    """Type a block (its lines and the blank line that ends it) and wait until it has run. Each
    line typed redraws the prompt, and keys typed while a program runs are echoed by the terminal:
    neither can be taken for the end; the output of a print that needs the block done can."""
    term.send(keys + "\r\rprint('block' + ' done')\r")
    term.expect("block done\n")
    term.expect(">>>")


def test_real_terminal(start, tmp_path: Path) -> None:
    terminal = start()
    terminal.send("x = tensor(2.0, requires_grad=True)\r")
    terminal.send("for i in range(3):\r")
    terminal.expect("...")
    terminal.send("x * i\r\r")
    terminal.expect("tensor(0., grad_fn=<MulBackward0>)\ntensor(2., grad_fn=<MulBackward0>)\n"
                    "tensor(4., grad_fn=<MulBackward0>)\n")
    terminal.send("undefined_name\r")
    terminal.expect("NameError: name 'undefined_name' is not defined")
    terminal.send("x ** 3\r")
    terminal.expect("tensor(8., grad_fn=<PowBackward0>)")

    # Ctrl-C stops a running program; the session and its variables stay
    terminal.send("for i in range(10**12):\rif i == 0:\rprint('running')\r\r\r")
    terminal.expect("running\n")
    # once the terminal is back in its usual mode, ^C is a signal; each try waits long enough on a
    # busy machine, since a ^C too many reaches the next prompt and drops what is typed there
    for _ in range(6):
        terminal.send("\x03")
        try:
            terminal.expect("KeyboardInterrupt", timeout=5)
            break
        except AssertionError:
            continue
    else:
        raise AssertionError("Ctrl-C did not interrupt the program")
    terminal.expect(">>>")
    terminal.send("x + 40\r")
    terminal.expect("tensor(42., grad_fn=<AddBackward0>)")

    terminal.send("half = x.requ\t")  # Tab completes as far as the candidates agree
    terminal.expect("requires_grad")
    terminal.send("\x03\x04")  # drop the input, then leave
    assert terminal.wait() == 0
    assert "+x = tensor(2.0, requires_grad=True)" in (tmp_path / "gradcalc" / "history").read_text()


def test_a_worker_that_cannot_start_is_said_at_each_input_without_a_traceback(start) -> None:
    terminal = start("--max-memory", "1M")
    terminal.send("1 + 1\r")
    terminal.expect("gradcalc: a fresh worker did not start: it ended with exit status 1")
    terminal.expect(">>>")  # (a Ctrl-D typed before the editor reads again would be the terminal's)
    terminal.send("\x04")
    assert terminal.wait() == 0
    assert "gradcalc: the worker could not go on: out of memory while starting" in terminal.raw
    assert "Traceback" not in terminal.raw and "Unhandled exception" not in terminal.raw


def test_keys_typed_at_the_first_prompt_wait_for_the_editor(tmp_path: Path) -> None:
    """The banner and first prompt show before the editor is loaded (repl/early.py): what is typed
    meanwhile is neither lost nor echoed twice, and the terminal's settings come back at the end."""
    import termios

    terminal = Terminal(gradcalc_command(), gradcalc_environment(tmp_path))
    try:
        at_start = termios.tcgetattr(terminal.fd)
        terminal.expect("PyTorch 2.13 semantics")
        terminal.expect(">>>")
        terminal.send("a = 20\ra + 22\r")  # before the editor has drawn its own prompt
        terminal.expect("42\n")
        terminal.expect(">>>")
        assert terminal.raw.count("a + 22") <= 2  # as typed and as run, not echoed by the terminal too
        terminal.send("\x04")
        assert terminal.wait() == 0
        assert termios.tcgetattr(terminal.fd) == at_start
    finally:
        terminal.close()


# ------------------------------------------------------------------ :vars and :graph

PROGRAM = [
    "x = tensor([1., 2.], requires_grad=True)",
    "w = tensor(3., requires_grad=True)",
    "y = x * w; y.retain_grad()",
    "z = (y + x.exp()).sum()",
    "z.backward()",
    "d = y.detach(); y2 = (x * 2).detach_()",
]
ATTRIBUTES = "shape dtype requires_grad is_leaf grad_fn grad retains_grad _version".split()


def vars_rows(text: str) -> dict:
    """The tensors' table, one row per name, as {name: {column: cell}}."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    header = lines.index(next(line for line in lines if line.startswith("name")))
    columns = re.split(r"\s{2,}", lines[header])
    rows = {}
    for line in lines[header + 2:]:
        if line.startswith("Modules"):
            break
        cells = re.split(r"\s{2,}", line)
        rows[cells[0]] = dict(zip(columns, cells))
    return rows


def test_vars_show_what_the_program_reads(start) -> None:
    terminal = start(columns=200)
    for line in PROGRAM:
        run(terminal, line)
    rows = vars_rows(run(terminal, ":vars"))
    assert sorted(rows) == ["d", "w", "x", "y", "y2", "z"]
    # the same attributes, read by the program in the same session
    run(terminal, "import warnings; warnings.simplefilter('ignore')")
    run(terminal, "first = lambda t: [list(t.shape), t.dtype, t.requires_grad, t.is_leaf]")
    run(terminal, "node = lambda t: type(t.grad_fn).__name__ if t.grad_fn else None")
    run(terminal, "rest = lambda t: [node(t), t.grad, t.retains_grad, t._version]")
    for name in rows:
        shown = run(terminal, f"print(*first({name}), *rest({name}), sep='|')")
        size, dtype, requires_grad, is_leaf, grad_fn, grad, retains, version = shown.strip().split("|")
        row = rows[name]
        assert row["shape"] == size and "torch." + row["dtype"] == dtype
        assert (row["requires_grad"], row["is_leaf"], row["grad_fn"]) == (requires_grad, is_leaf, grad_fn)
        assert (row["grad"], row["retains_grad"], row["version"]) == (grad, retains, version)
    assert rows["y"]["grad"] == "tensor([1., 1.])" and rows["y2"]["is_leaf"] == "True"


def test_graph_shows_what_the_program_reads(start) -> None:
    terminal = start()
    for line in PROGRAM[:4]:
        run(terminal, line)
    drawn = run(terminal, ":graph z").strip().splitlines()
    assert drawn[0] == "z: tensor [] float32, grad_fn=<SumBackward0>"
    assert drawn[1] == "6 nodes, 2 leaves"
    names = [re.sub(r"^[│├└─ ]*", "", line).split()[0] for line in drawn[2:] if "(drawn above)" not in line]
    # the nodes, depth first, as the program walks next_functions from z.grad_fn
    run(terminal, "order, stack = [], [z.grad_fn]")
    run(terminal, "inputs = lambda n: [f for f, _ in n.next_functions if f is not None]")
    run_block(terminal, "while stack: n = stack.pop(); new = n not in order; order += [n] * new; "
                        "stack += reversed(inputs(n) * new)")
    walked = run(terminal, "print(*[type(n).__name__ for n in order])")
    assert names == walked.split()
    assert "grad_fn of y" in drawn[4] and "retains grad: y.grad = None" in drawn[4]
    assert "x [2] float32, grad=None" in drawn[5] and "(drawn above)" in drawn[-1]
    run(terminal, "z.backward()")
    after = run(terminal, ":graph z")
    assert "retains grad: y.grad = tensor([1., 1.])" in after and "grad=tensor(3.)" in after
    assert ":graph: name 'q' is not defined" in run(terminal, ":graph q")


def test_big_graph_is_drawn_short_on_the_terminal(start) -> None:
    terminal = start()
    run(terminal, "x = tensor(1., requires_grad=True); y = x")
    run_block(terminal, "for i in range(10_000):\ry = y * 1.0001")
    text = run(terminal, ":graph y")
    assert "10,001 nodes, 1 leaf" in text and "MulBackward0 ×9,999  +1 None" in text
    run_block(terminal, "for i in range(5_000):\ry = y * 2 + 1")  # alternating nodes: cut and summarised
    text = run(terminal, ":graph y")
    assert "20,001 nodes, 1 leaf" in text and "19,951 more nodes not drawn: MulBackward0 ×14,975, " \
        "AddBackward0 ×4,975, AccumulateGrad ×1" in text
    assert len(text.strip().splitlines()) < 70


# ------------------------------------------------------------------ commands, pasting, editing

def test_help_save_and_reset(start, tmp_path: Path) -> None:
    terminal = start()
    assert ":graph NAME" in run(terminal, ":help")
    run(terminal, "a = tensor([1., 2.], requires_grad=True)")
    run(terminal, "b = (a ** 2).sum(); b.backward(); print(a.grad)")
    run(terminal, "c = nothing")
    script = tmp_path / "saved.grad"
    assert f"Saved to {script}" in run(terminal, f":save {script}")
    assert "A fresh session" in run(terminal, ":reset")
    assert "NameError: name 'a' is not defined" in run(terminal, "a")
    terminal.send("\x04")
    assert terminal.wait() == 0
    again = subprocess.run(gradcalc_command(str(script)), capture_output=True, text=True, timeout=300)
    assert (again.stdout, again.stderr, again.returncode) == ("tensor([2., 4.])\n", "", 0)


def test_pasted_transcript(start) -> None:
    terminal = start()
    terminal.send("\x1b[200~>>> a = torch.tensor([2., 3.], requires_grad=True)\n>>> (a ** 2).sum()\n"
                  "tensor(13., grad_fn=<SumBackward0>)\n>>> for i in range(2):\n...     print(i * 10)\n...\n"
                  "0\n10\n\x1b[201~")
    terminal.send("\r")
    terminal.expect("\ntensor(13., grad_fn=<SumBackward0>)\n0\n10\n")
    terminal.expect(">>>")
    assert "SyntaxError" not in terminal.seen


def test_did_you_mean_on_the_terminal(start) -> None:
    terminal = start()
    assert "NameError: name 'tensr' is not defined. Did you mean: 'tensor'?" in run(terminal, "tensr")
    run(terminal, "x = ones(2)")
    assert "AttributeError: 'Tensor' object has no attribute 'sumd'. Did you mean: 'sum'?" in run(terminal, "x.sumd")
    script = subprocess.run(gradcalc_command("-e", "tensr"), capture_output=True, text=True, timeout=300)
    assert script.stderr == "NameError: name 'tensr' is not defined\n"  # what PyTorch's run prints


def test_matching_bracket_is_highlighted(start) -> None:
    terminal = start()
    reverse = r"\x1b\[[0-9;]*7m"  # the pair's characters in reverse video, the rest as it is
    terminal.send("y = (1 + (2))")  # the cursor after the last ')': it and its '(' are shown
    terminal.expect_raw(reverse + r"\((?:\x1b\[0m)?1 \+ \(2\)" + reverse + r"\)")
    terminal.send("\x03\x04")
    assert terminal.wait() == 0


def test_suggestion_from_history_and_history_file_option(start, tmp_path: Path) -> None:
    history = tmp_path / "my-history"
    history.write_text("\n# 2024-01-01\n+x = tensor([5., 6.], requires_grad=True)\n")
    terminal = start("--history-file", str(history))
    terminal.send("x = t")
    terminal.expect_raw(r"\x1b\[[0-9;]*2[0-9;]*mensor\(\[5\., 6\.\], requires_grad=True\)")  # dim: a suggestion
    terminal.send("\x1b[C\r")  # Right arrow takes it
    terminal.expect(">>>")
    assert run(terminal, "x") == "tensor([5., 6.], requires_grad=True)\n"
    terminal.send("\x04")
    assert terminal.wait() == 0
    assert history.read_text().endswith("\n+x\n")  # (a repeat of the last entry is not stored again)
    assert not (tmp_path / "gradcalc" / "history").exists()


def test_history_variable(start, tmp_path: Path) -> None:
    path = tmp_path / "from-variable"
    terminal = start(GRADCALC_HISTORY=str(path))
    run(terminal, "1 + 1")
    terminal.send("\x04")
    assert terminal.wait() == 0
    assert "+1 + 1" in path.read_text()


def test_views_are_coloured_on_a_terminal(tmp_path: Path) -> None:
    terminal = Terminal(gradcalc_command(), {**gradcalc_environment(tmp_path), "NO_COLOR": ""}, columns=120)
    try:
        terminal.expect(">>>")
        terminal.send("x = ones(2, requires_grad=True); y = x * 2\r:graph y\r")
        terminal.expect_raw(r"\x1b\[[0-9;]*m[^\x1b]*MulBackward0")
        terminal.expect("[2] float32, grad=None\n")
        terminal.expect(">>>")
        terminal.send("\x04")
        assert terminal.wait() == 0
    finally:
        terminal.close()


@pytest.mark.parametrize("line, status", [("import sys; sys.exit(3)", 3), ("raise SystemExit(5)", 5), ("exit()", 0)])
def test_leaving_with_an_exit_status_as_pythons_repl(start, line: str, status: int) -> None:
    terminal = start()
    terminal.send(line + "\r")
    assert terminal.wait() == status
