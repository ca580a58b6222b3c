"""Every example in README.md and docs/*.md is run and compared, so that none goes stale.

* ```console blocks: each `$ COMMAND` runs in bash through the installed `gradcalc`, in a scratch
  folder holding a copy of `examples/` and of `docs/exercises/` (as `exercises/`); the lines after
  it are its stdout and stderr as a terminal shows them (one stream, in order).
* ```text blocks that start with `>>> `: a REPL transcript. Each input (`>>> ` and its `... `
  lines, or a `:command`) is pasted into one REPL session and run; the lines after it are what it
  printed, stdout and stderr together.

Memory addresses (0x...) are masked on both sides. A line that is only `...` in a console block's
output stands for any lines (pytest's header, a time). Other blocks (```sh, ```python, ```text
without a prompt) are not run: they show what cannot be (an install) or is not a command.

`GRADCALC_UPDATE_DOCS=1 pytest tests/test_docs_examples.py` rewrites each block that differs from
what gradcalc prints now (blocks with `...` lines are left for a person to fix): re-run, never
typed. Output that is PyTorch's must then be checked once against PyTorch (docs/testing.md).
"""
from __future__ import annotations

import io
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
DOCUMENTS = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
FENCE = re.compile(r"^```(\w*)\n(.*?)^```$", re.M | re.S)
ADDRESS = re.compile(r"0x[0-9a-f]+")
ANY_LINES = "..."
SEPARATOR = "\x1e"  # written between the outputs of two inputs or commands
UPDATE = os.environ.get("GRADCALC_UPDATE_DOCS") == "1"


@dataclass
class Example:
    path: Path
    line: int
    kind: str  # "console" or "repl"
    body: str

    @property
    def id(self) -> str:
        return f"{self.path.relative_to(REPO)}:{self.line}"


def find_examples() -> list[Example]:
    found = []
    for path in DOCUMENTS:
        text = path.read_text(encoding="utf-8")
        for fence in FENCE.finditer(text):
            language, body = fence.group(1), fence.group(2)
            line = text.count("\n", 0, fence.start()) + 1
            if language == "console":
                found.append(Example(path, line, "console", body))
            elif language == "text" and body.startswith(">>> "):
                found.append(Example(path, line, "repl", body))
    return found


EXAMPLES = find_examples()


def mask(text: str) -> str:
    return ADDRESS.sub("0x…", text)


# ------------------------------------------------------------------ reading a block

def console_steps(body: str) -> list[tuple[str, str]]:
    """[(command, the output shown after it)]."""
    steps: list[tuple[str, str]] = []
    for line in body.splitlines(keepends=True):
        if line.startswith("$ "):
            steps.append((line[2:].rstrip("\n"), ""))
        else:
            assert steps, f"a console block must start with a `$ ` command, not {line!r}"
            command, output = steps[-1]
            steps[-1] = (command, output + line)
    return steps


def transcript_steps(body: str) -> list[tuple[str, str, str]]:
    """[(the input's lines as shown, its code, the output shown after it)]."""
    steps: list[tuple[str, str, str]] = []
    for line in body.splitlines(keepends=True):
        if line.startswith(">>> "):
            steps.append((line, line[4:], ""))
        elif (line.startswith("... ") or line.rstrip("\n") == "...") and steps and not steps[-1][2]:
            shown, code, _ = steps[-1]
            steps[-1] = (shown + line, code + line[4:], "")
        else:
            shown, code, output = steps[-1]
            steps[-1] = (shown, code, output + line)
    return steps


# ------------------------------------------------------------------ running it

def run_console(steps: list[tuple[str, str]], folder: Path) -> list[str]:
    """Each command's stdout and stderr, together, as one bash session runs them in order."""
    script = "".join(f"{command}\n__status=$?; printf '{SEPARATOR}'; (exit $__status)\n" for command, _ in steps)
    env = {key: value for key, value in os.environ.items() if not key.startswith(("FORCE_COLOR", "GRADCALC_"))}
    env.update(PATH=str(Path(sys.executable).parent) + os.pathsep + env.get("PATH", ""), NO_COLOR="1", COLUMNS="80",
               TERM="dumb", PYTEST_ADDOPTS="-p no:cacheprovider", HOME=str(folder))
    done = subprocess.run(["bash", "-c", script], cwd=folder, env=env, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True, timeout=600)
    outputs = done.stdout.split(SEPARATOR)
    assert len(outputs) == len(steps) + 1 and outputs[-1] == "", done.stdout
    return outputs[:-1]


def run_transcript(steps: list[tuple[str, str, str]]) -> list[str]:
    """Each input pasted into one REPL session and run as it stands (Esc Enter): what it printed."""
    from prompt_toolkit.history import InMemoryHistory
    from prompt_toolkit.input import create_pipe_input
    from prompt_toolkit.output import DummyOutput

    from gradcalc.repl.app import Loader, Repl
    from gradcalc.session import TextOutput, reset_global_state

    reset_global_state()
    printed = io.StringIO()  # stdout and stderr in one stream, in order, as on a terminal
    keys = "".join(f"\x1b[200~{code.rstrip()}\x1b[201~\x1b\r" for _, code, _ in steps) + "\x04"
    with create_pipe_input() as pipe:
        pipe.send_text(keys)
        repl = Repl(Loader(lambda: TextOutput(printed, printed), False), False, InMemoryHistory(), pipe,
                    DummyOutput(), banner_stream=io.StringIO())
        execute = repl.execute

        def marked(text: str) -> bool:
            printed.write(SEPARATOR)
            return execute(text)

        repl.execute = marked  # type: ignore[method-assign]
        repl.run()
    outputs = printed.getvalue().split(SEPARATOR)
    assert outputs[0] == "" and len(outputs) == len(steps) + 1, printed.getvalue()
    return outputs[1:]


def elides(body: str) -> bool:
    return ANY_LINES + "\n" in body.splitlines(keepends=True)


def matches(expected: str, got: str, kind: str) -> bool:
    if kind != "console" or not elides(expected):
        return mask(expected) == mask(got)
    pattern = "".join("(?:.*\n)*?" if line == ANY_LINES + "\n" else re.escape(line)
                      for line in mask(expected).splitlines(keepends=True))
    return re.fullmatch(pattern, mask(got)) is not None


# ------------------------------------------------------------------ the tests

@pytest.fixture
def scratch(tmp_path: Path) -> Path:
    shutil.copytree(REPO / "examples", tmp_path / "examples")
    shutil.copytree(REPO / "docs" / "exercises", tmp_path / "exercises")
    return tmp_path


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda example: example.id)
def test_example_prints_what_the_document_shows(example: Example, scratch: Path) -> None:
    if example.kind == "console":
        steps = console_steps(example.body)
        outputs = run_console(steps, scratch)
        shown = [f"$ {command}\n{output}" for command, output in steps]
        now = [f"$ {command}\n{output}" for (command, _), output in zip(steps, outputs)]
        ok = all(matches(expected, got, "console") for (_, expected), got in zip(steps, outputs))
    else:
        steps3 = transcript_steps(example.body)
        outputs = run_transcript(steps3)
        shown = [lines + output for lines, _, output in steps3]
        now = [lines + output for (lines, _, _), output in zip(steps3, outputs)]
        ok = all(matches(expected, got, "repl") for (_, _, expected), got in zip(steps3, outputs))
    if ok:
        return
    if UPDATE and not (example.kind == "console" and elides(example.body)):
        text = example.path.read_text(encoding="utf-8")
        assert text.count(example.body) == 1, "the block's text is not unique in its document"
        example.path.write_text(text.replace(example.body, "".join(now)), encoding="utf-8")
        return
    assert mask("".join(now)) == mask("".join(shown)), f"{example.id} shows what gradcalc no longer prints"


def test_every_example_is_found() -> None:
    """A console block or transcript out of the fence pattern's reach (indented, in a list) is an error."""
    for path in DOCUMENTS:
        text = path.read_text(encoding="utf-8")
        fences = re.findall(r"^[ \t]*```(console|text)\n", text, re.M)
        kinds = [example for example in EXAMPLES if example.path == path]
        texts = [fence for fence in FENCE.finditer(text) if fence.group(1) in ("console", "text")]
        assert len(fences) == len(texts), f"{path.name}: a ```console or ```text fence is indented"
        assert len([f for f in texts if f.group(1) == "console"]) == len([k for k in kinds if k.kind == "console"])
    assert len(EXAMPLES) >= 8


def test_a_stale_example_is_caught() -> None:
    """The README's :graph example as it stood before its nodes showed their saved values: it must fail."""
    stale = (">>> x = tensor([1., 2.], requires_grad=True); w = tensor(3., requires_grad=True)\n"
             ">>> y = x * w; y.retain_grad(); z = (y + x.exp()).sum(); z.backward()\n"
             ">>> :graph z\n"
             "z: tensor [] float32, grad_fn=<SumBackward0>\n"
             "6 nodes, 2 leaves\n"
             "SumBackward0  grad_fn of z\n")
    steps = transcript_steps(stale)
    (_, _, expected), got = steps[-1], run_transcript(steps)[-1]
    assert got.startswith("z: tensor [] float32, grad_fn=<SumBackward0>\n6 nodes, 2 leaves\n")
    assert not matches(expected, got, "repl")
    # addresses are masked; `...` elides lines in a console block only
    assert matches("<object at 0x7f00>\n", "<object at 0xdeadbeef>\n", "console")
    assert matches("a\n...\nd\n", "a\nb\nc\nd\n", "console") and not matches("a\n...\nd\n", "a\nb\n", "console")
    assert not matches("a\n...\nd\n", "a\nb\nc\nd\n", "repl")


def _anchors(text: str) -> set[str]:
    """GitHub's anchors of a document's headings: lower case, punctuation dropped, spaces as hyphens."""
    headings = re.findall(r"^#+ (.+)$", FENCE.sub("", text), re.M)
    return {re.sub(r"[^\w\- ]", "", heading.lower()).replace(" ", "-") for heading in headings}


def test_links_between_the_documents_resolve() -> None:
    for path in [*DOCUMENTS, REPO / "CHANGELOG.md"]:
        text = path.read_text(encoding="utf-8")
        for target in re.findall(r"\]\(([^)\s]+)\)", FENCE.sub("", text)):
            if re.match(r"[a-z]+:", target):
                continue  # a web address
            file, _, anchor = target.partition("#")
            linked = (path.parent / file).resolve() if file else path
            assert linked.exists(), f"{path.name} links to {target}, which does not exist"
            if anchor:
                assert anchor in _anchors(linked.read_text(encoding="utf-8")), f"{path.name}: no heading for {target}"
