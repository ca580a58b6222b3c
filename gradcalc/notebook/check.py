"""`gradcalc nbcheck NOTEBOOK.ipynb`: run a notebook's code cells in gradcalc, one jailed worker for
the whole notebook (state kept across cells, as a kernel keeps it), and compare each cell's outputs
with those the notebook stores (PyTorch's, when it was run under PyTorch: `--record`).

Compared per cell: stdout, stderr (a warning's location and quoted line dropped, as they name
the file that raised it), the result's text/plain and the error's name and message; memory
addresses are masked. Cells that use what gradcalc refuses by design are skipped, with why."""
from __future__ import annotations

import ast
import difflib
import json
import re
from dataclasses import dataclass, field
from typing import Optional

from .outputs import cell_outputs

_SHELL = re.compile(r"^\s*!", re.MULTILINE)
_INSTALL = re.compile(r"^\s*%+\s*(pip|conda)\b", re.MULTILINE)
_FILES = re.compile(r"\bopen\(|\btorch\.load\(|\bnp\.load(txt)?\(|\bread_csv\(|\bDataLoader\b|\bdatasets\b|\burlopen\b"
                    r"|\brequests\.|\bwget\b|\bos\.path\b|\btorchvision\b", re.MULTILINE)
# what gradcalc refuses by design, found in a cell's source: (pattern, why the cell is skipped)
_SKIPPED = [
    (_SHELL, "runs a shell command"),
    (_INSTALL, "installs packages"),
    (re.compile(r"^\s*%+\s*matplotlib\b|\bmatplotlib\b|\bplt\.", re.MULTILINE), "plots (matplotlib)"),
    (re.compile(r"\bcuda\b|\bmps\b", re.IGNORECASE), "uses CUDA"),
    (_FILES, "uses files or downloads"),
    (re.compile(r"^\s*%", re.MULTILINE), "uses an IPython magic"),
    # the kernel answers it in the pager, which a notebook does not store
    (re.compile(r"\A\s*(\?{1,2}[\w.*]+|[\w.*]+\?{1,2})\s*\Z"), "asks for help (NAME?)"),
]
# what the recording Python, which is not jailed, must not run either
_UNSAFE = [_SHELL, _INSTALL, _FILES, re.compile(r"^\s*%(?!\s*matplotlib\b)", re.MULTILINE)]
_ADDRESS = re.compile(r"0x[0-9a-fA-F]{4,}")
# Python's warnings: "FILE:LINE: Category: message" and the quoted source line after it
_WARNING = re.compile(r"^\S.*?:\d+: (\w+): (.*)$")
_TRIGGERED = re.compile(r"\s*\(Triggered internally at [^)]*\)\s*$")


_COMMENT = re.compile(r"#[^\n]*")  # a comment that names matplotlib or CUDA uses neither
# asking whether CUDA is there is not using it: gradcalc answers as PyTorch's CPU build does, to
# the question, to the seeds and counts torch.cuda takes without a GPU, and by the branch it takes
_GPU_QUESTION = re.compile(r"torch\.(cuda|backends\.mps)\.is_available\(\)")
_CUDA_QUESTION = re.compile(r"""["']cuda(:\d+)?["']\)?\s+if\s+torch\.cuda\.is_available\(\)|"""
                            rf"{_GPU_QUESTION.pattern}|torch\.cuda\.(device_count|manual_seed(_all)?)\b")


def _without_gpu_branches(source: str) -> str:
    """The source with every `if` statement and conditional expression that asks for a GPU blanked:
    on a CPU build the GPU's branch never runs. Source that is not Python (a magic) stays."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return source
    starts = [0]
    for line in source.splitlines(keepends=True):
        starts.append(starts[-1] + len(line))
    text = list(source)
    for node in ast.walk(tree):
        if isinstance(node, (ast.If, ast.IfExp)) and _GPU_QUESTION.search(ast.unparse(node.test)):
            begin = starts[node.lineno - 1] + node.col_offset
            end = starts[node.end_lineno - 1] + node.end_col_offset
            text[begin:end] = [char if char == "\n" else " " for char in text[begin:end]]
    return "".join(text)


def skip_reason(source: str) -> Optional[str]:
    """Why gradcalc does not run this cell (what it refuses by design), or None."""
    source = _CUDA_QUESTION.sub("", _COMMENT.sub("", _without_gpu_branches(source)))
    for pattern, why in _SKIPPED:
        if pattern.search(source):
            return why
    return None


def recordable(source: str) -> bool:
    """Whether `--record` runs this cell under the other Python although nbcheck skips it: a cell
    skipped for its plots, CUDA or a help request runs there, so that what else it does (often the
    notebook's `import torch`, or its variables) is there for the cells after it."""
    source = _COMMENT.sub("", source)
    return not any(pattern.search(source) for pattern in _UNSAFE)


def not_compared(cell: dict) -> Optional[str]:
    """Why the notebook's author left this cell out of the comparison (its metadata's
    `"nbcheck": {"skip": "why"}`), or None. Such a cell still runs, for the cells after it."""
    settings = cell.get("metadata", {}).get("nbcheck")
    why = settings.get("skip") if isinstance(settings, dict) else None
    return str(why) if why else None


def _text(value: object) -> str:
    return "".join(value) if isinstance(value, list) else str(value or "")


def _normal_stderr(text: str) -> str:
    lines, quoted = [], False
    for line in text.splitlines():
        if quoted and line.startswith("  "):  # the line the warning quotes
            continue
        match = _WARNING.match(line)
        quoted = match is not None
        if match:
            line = f"{match.group(1)}: {_TRIGGERED.sub('', match.group(2))}"
        lines.append(line)
    return "\n".join(lines)


def normalize(outputs: list) -> list[str]:
    """The comparable part of a cell's outputs, one text per kind, addresses masked."""
    stdout, stderr, results, errors = [], [], [], []
    for output in outputs:
        kind = output.get("output_type")
        if kind == "stream":
            (stdout if output.get("name") == "stdout" else stderr).append(_text(output.get("text")))
        elif kind == "execute_result":
            results.append("result:\n" + _text(output.get("data", {}).get("text/plain")))
        elif kind == "error":
            ename = str(output.get("ename"))
            # a syntax error agrees on its name only (gradcalc's message says more: SPEC §1)
            syntax = ename in ("SyntaxError", "IndentationError")
            evalue = "" if syntax else _TRIGGERED.sub("", str(output.get("evalue")))
            errors.append(f"error:\n{ename}: {evalue}")
    found = []
    if stdout:
        found.append("stdout:\n" + "".join(stdout))
    if stderr and _normal_stderr("".join(stderr)):
        found.append("stderr:\n" + _normal_stderr("".join(stderr)))
    found += results + errors
    return [_ADDRESS.sub("0x…", text).rstrip("\n") for text in found]


@dataclass
class CellReport:
    index: int  # the code cell's number, from 1
    verdict: str  # "same", "differs" or "skipped"
    why: str = ""  # a skip's reason
    diff: list[str] = field(default_factory=list)


def _diff(expected: list[str], actual: list[str], limit: int = 12) -> list[str]:
    lines = list(difflib.unified_diff("\n".join(expected).splitlines(), "\n".join(actual).splitlines(),
                                      "notebook", "gradcalc", lineterm="", n=1))
    return lines[:limit] + (["..."] if len(lines) > limit else [])


def check_notebook(notebook: dict) -> list[CellReport]:
    """Run the notebook's code cells in a fresh worker, computing as on the machine its outputs were
    recorded on (see recorded_machine); one report per code cell."""
    from ..autograd import cpu
    from ..worker.client import Worker, WorkerDied

    reports = []
    machine = recorded_machine(notebook)
    worker = Worker(capture=True, settings=cpu.machine_environment(machine) if machine else None)
    try:
        worker.start()
        code_cells = [cell for cell in notebook.get("cells", []) if cell.get("cell_type") == "code"]
        for index, cell in enumerate(code_cells, 1):
            source = _text(cell.get("source"))
            why = skip_reason(source)
            if why is not None:
                reports.append(CellReport(index, "skipped", why))
                continue
            if not source.strip():
                continue
            try:
                reply = worker.run(source, cell=True)
            except WorkerDied as died:
                reply = {"status": "error", "error": f"WorkerDied: the worker {died}"}
                worker.restart()
            expected, actual = normalize(cell.get("outputs", [])), normalize(cell_outputs(reply, index))
            why = not_compared(cell)
            if why is not None:
                reports.append(CellReport(index, "skipped", f"not compared: {why}"))
            elif expected == actual:
                reports.append(CellReport(index, "same"))
            else:
                reports.append(CellReport(index, "differs", diff=_diff(expected, actual)))
    finally:
        worker.close()
    return reports


def recorded_machine(notebook: dict) -> Optional[dict]:
    """The machine `--record` ran the notebook on (its metadata's `gradcalc.machine`, a
    cpu.machine_record()): PyTorch's last digits depend on its processor, as golden tests' do. None
    for a notebook recorded otherwise, which is checked as this machine computes."""
    metadata = notebook.get("metadata")
    ours = metadata.get("gradcalc") if isinstance(metadata, dict) else None
    machine = ours.get("machine") if isinstance(ours, dict) else None
    if isinstance(machine, dict) and machine.get("aten") in ("avx2", "avx512") and \
            machine.get("sgemm") in ("avx2", "avx512"):
        return machine
    return None


def load(path: str) -> dict:
    """The notebook's JSON; ValueError saying why it is not one."""
    try:
        with open(path, encoding="utf-8") as handle:
            notebook = json.load(handle)
    except OSError as error:
        raise ValueError(f"can't open '{path}': {error.strerror}") from None
    except (ValueError, UnicodeDecodeError):
        raise ValueError(f"'{path}' is not a notebook (not JSON)") from None
    if not isinstance(notebook, dict) or not isinstance(notebook.get("cells"), list):
        raise ValueError(f"'{path}' is not a notebook (no cells)")
    return notebook


def report_text(path: str, reports: list[CellReport]) -> str:
    lines = [path]
    for report in reports:
        lines.append(f"  cell {report.index}: {report.verdict}" + (f" ({report.why})" if report.why else ""))
        lines.extend("      " + line for line in report.diff)
    counts = {verdict: sum(report.verdict == verdict for report in reports)
              for verdict in ("same", "differs", "skipped")}
    lines.append(f"{counts['same']} same, {counts['differs']} differ, {counts['skipped']} skipped")
    return "\n".join(lines) + "\n"
