"""The pytest plugin as a course author uses it: a folder of NAME.grad with NAME.expected.json,
`pytest` in it, `--gradcalc-update`, `--gradcalc-oracle PYTHON`."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from gradcalc.golden import REFERENCE, record, run


LEAF = "x = tensor([1., 2.], requires_grad=True)\n(x * x).sum().backward()\nx.grad\n"
# an address in the output, which the comparison masks
ADDRESSED = "class A:\n    pass\nprint(A())\n"
# a real PyTorch, when this machine has one (it is never needed otherwise)
TORCH_PYTHON = os.environ.get("GRADCALC_TORCH_PYTHON", "/tmp/torch/bin/python")


class Folder:
    """A course author's folder of programs, and pytest run in it (in a process of its own, as the
    author runs it; pytest's in-process runner would unload numpy, which loads once per process)."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def program(self, name: str, source: str) -> Path:
        program = self.path / f"{name}.grad"
        program.write_text(source, encoding="utf-8")
        return program

    def expected(self, name: str) -> dict:
        return json.loads((self.path / f"{name}.expected.json").read_text(encoding="utf-8"))

    def write_expected(self, name: str, answer: dict) -> None:
        (self.path / f"{name}.expected.json").write_text(json.dumps(answer), encoding="utf-8")

    def pytest(self, *args: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-v", *args], cwd=self.path,
                              capture_output=True, text=True, timeout=300)


def outcomes(done: subprocess.CompletedProcess) -> dict:
    last = done.stdout.strip().splitlines()[-1]
    return {kind: int(count) for count, kind in re.findall(r"(\d+) (passed|failed|error)", last)}


@pytest.fixture
def folder(tmp_path: Path) -> Folder:
    return Folder(tmp_path)


def test_programs_with_expected_files_are_collected_and_pass(folder: Folder) -> None:
    leaf, addressed = folder.program("leaf", LEAF), folder.program("addressed", ADDRESSED)
    folder.program("draft", "1 + 1\n")
    folder.write_expected("leaf", run(leaf))
    answer = run(addressed)
    assert "0x" in answer["stdout"]
    folder.write_expected("addressed", {**answer, "stdout": answer["stdout"].replace("0x", "0xdead")})
    done = folder.pytest()
    assert outcomes(done) == {"passed": 2}, done.stdout  # draft.grad has no expected file: not a test
    assert "leaf.grad::leaf PASSED" in done.stdout and "addressed.grad::addressed PASSED" in done.stdout


def test_a_mismatch_shows_a_readable_diff(folder: Folder) -> None:
    right = run(folder.program("leaf", LEAF))
    wrong = right["stdout"].replace("4.", "5.")
    folder.write_expected("leaf", {"stdout": wrong, "stderr": "", "rc": 1})
    done = folder.pytest()
    assert outcomes(done) == {"failed": 1}
    report = done.stdout
    assert "gradcalc's output differs from leaf.expected.json (addresses masked as 0x…):" in report
    diff = ["--- expected stdout", "+++ gradcalc stdout", "@@ -1 +1 @@", "-" + wrong.strip(),
            "+" + right["stdout"].strip()]
    assert "\n".join(diff) in report and "exit status: expected 1, gradcalc 0" in report
    assert "Traceback" not in report and "runtest" not in report


def test_syntax_errors_agree_on_the_first_word(folder: Folder) -> None:
    folder.program("broken", "x = (1,\n")
    folder.write_expected("broken", {"stdout": "", "stderr": "SyntaxError: '(' was never closed\n", "rc": 1})
    assert outcomes(folder.pytest()) == {"passed": 1}


def test_update_writes_the_expected_files_from_gradcalc(folder: Folder) -> None:
    leaf, failing = folder.program("leaf", LEAF), folder.program("failing", "tensor(1.).backward()\n")
    done = folder.pytest("--gradcalc-update")
    assert outcomes(done) == {"passed": 2}
    assert "gradcalc: 2 expected file(s) written from gradcalc's output" in done.stdout
    assert folder.expected("leaf") == run(leaf) and folder.expected("failing") == run(failing)
    assert folder.expected("failing")["rc"] == 1
    assert outcomes(folder.pytest()) == {"passed": 2}
    assert "gradcalc: 0 expected file(s) written" in folder.pytest("--gradcalc-update").stdout


def fake_python(folder: Folder) -> str:
    """A stand-in for a Python with torch: it checks how it is called, then gives one answer for LEAF
    and another for any other program."""
    script = folder.path / "fake-python"
    script.write_text(f"""#!{sys.executable}
import os, sys
# the runner of the gradcalc that pytest loads (an installed copy, or this checkout when editable)
assert open(sys.argv[1]).read() == {REFERENCE.read_text()!r}, sys.argv
assert os.path.isabs(sys.argv[2]) and os.path.isfile(sys.argv[2]), sys.argv  # the program, by its path
assert os.listdir(".") == [], os.listdir(".")  # run in an empty folder: the files it writes start from none
if open(sys.argv[2]).read() == {LEAF!r}:
    print("the answer for LEAF")
else:
    print("what PyTorch says"); sys.exit(1)
""")
    script.chmod(0o755)
    return str(script)


def recorded_here(folder: Folder, name: str) -> dict:
    """What the oracle recorded for NAME on this processor: one answer where it ran both ATen
    capabilities and they agreed (a processor with AVX-512), else the answer of the one machine it
    could run (AVX2 only), kept in that machine's file, which names it."""
    from gradcalc.autograd import cpu

    if cpu.processor_has_avx512():
        return folder.expected(name)
    machine = cpu.machine_record("avx2")
    answer = json.loads((folder.path / f"{name}.{cpu.machine_label(machine)}.expected.json").read_text())
    assert answer.pop("machine") == machine
    return answer


def test_oracle_records_through_the_reference_runner(folder: Folder) -> None:
    python = fake_python(folder)
    folder.program("leaf", LEAF)
    folder.program("other", "1 + 1\n")
    done = folder.pytest(f"--gradcalc-oracle={python}")
    assert outcomes(done) == {"failed": 2}  # recorded, then gradcalc compared with the record
    for line in ("-the answer for LEAF", "-what PyTorch says", "+2", "exit status: expected 1, gradcalc 0",
                 "gradcalc: 2 expected file(s) written from PyTorch's output"):
        assert line in done.stdout.splitlines(), line
    assert recorded_here(folder, "leaf") == {"stdout": "the answer for LEAF\n", "stderr": "", "rc": 0}


def test_oracle_without_torch_says_so(folder: Folder) -> None:
    folder.program("leaf", LEAF)
    done = folder.pytest(f"--gradcalc-oracle={sys.executable}")
    assert outcomes(done) == {"failed": 1}
    assert f"--gradcalc-oracle: {sys.executable} has no torch" in done.stdout
    assert not (folder.path / "leaf.expected.json").exists()


def test_update_and_oracle_together_are_a_usage_error(folder: Folder) -> None:
    done = folder.pytest("--gradcalc-update", f"--gradcalc-oracle={sys.executable}")
    assert done.returncode == pytest.ExitCode.USAGE_ERROR
    assert "--gradcalc-update and --gradcalc-oracle both write the expected files" in done.stderr


@pytest.mark.skipif(not os.path.exists(TORCH_PYTHON), reason="no PyTorch on this machine")
def test_the_real_oracle_agrees_with_gradcalc(tmp_path: Path) -> None:
    program = tmp_path / "leaf.grad"
    program.write_text(LEAF + "x.grad.sum().item() + 0.5\ntorch.ones(2).backward()\n")
    assert record(TORCH_PYTHON, program) == run(program)


@pytest.mark.skipif(not os.path.exists(TORCH_PYTHON), reason="no PyTorch on this machine")
def test_an_answer_that_moves_with_the_processor_is_kept_per_machine(folder: Folder) -> None:
    from gradcalc.autograd import cpu

    folder.program("capability", "torch.backends.cpu.get_cpu_capability()\n")
    folder.program("leaf", LEAF)
    done = folder.pytest(f"--gradcalc-oracle={TORCH_PYTHON}")
    assert outcomes(done) == {"passed": 2}, done.stdout
    here = [cpu.machine_record(aten) for aten in (("avx512", "avx2") if cpu.processor_has_avx512() else ("avx2",))]
    labels = sorted(cpu.machine_label(machine) for machine in here)
    files = sorted(path.name for path in folder.path.glob("capability.*"))
    assert files == sorted([f"capability.{label}.expected.json" for label in labels] + ["capability.grad"])
    for machine in here:
        kept = json.loads((folder.path / f"capability.{cpu.machine_label(machine)}.expected.json").read_text())
        assert kept["machine"] == machine and kept["stdout"] == f"'{machine['aten'].upper()}'\n"
    assert recorded_here(folder, "leaf")["rc"] == 0  # (the same answer everywhere: one file, on AVX-512)
    done = folder.pytest()
    assert outcomes(done) == {"passed": 1 + len(labels)}, done.stdout
    for label in labels:
        assert f"capability.grad::capability[{label}] PASSED" in done.stdout
