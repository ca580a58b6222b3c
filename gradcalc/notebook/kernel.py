"""The Jupyter kernel, as the kernelspec (install.py) starts it: `python -m gradcalc.notebook -f
CONNECTION_FILE` (__main__.py). A front end only: every cell, completion and inspection goes to a
jailed worker (gradcalc.worker), launched before ipykernel is even imported.

Built on ipykernel's Kernel base, as a "wrapper kernel": it brings the wire protocol (message
signing, heartbeat, the control channel, interrupt by signal, history and comm replies) that every
front end (JupyterLab, Notebook, VS Code, nbclient) relies on, leaving this module to say what a
cell does."""
from __future__ import annotations

import fnmatch
import json
import os
import re
from html import escape
from typing import Any, Optional

from ipykernel.kernelbase import Kernel

from .. import __version__
from ..worker.client import Worker, WorkerDied
from .outputs import cell_outputs, error_output

_NAME_AT_END = re.compile(r"[A-Za-z_][\w.]*$")
_NAME_AT_START = re.compile(r"^\w*(?:\.\w+)*")
_IDENTIFIER_END = re.compile(r"\w*$")
# IPython's help syntax: `torch.nn.Module?`, `??x`, `torch.*Tensor?` (a name with wildcards)
_HELP = re.compile(r"^(\?{0,2})([A-Za-z_*][\w.*]*)(\?{0,2})$")
_DOCS_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "torch_docs.json")
# magics gradcalc refuses by design, with why (a notebook check reports their cells as skipped)
_REFUSED_MAGICS = {"matplotlib": "gradcalc draws no plots (its own picture is %graph)",
                   "pip": "gradcalc installs nothing", "conda": "gradcalc installs nothing",
                   "run": "gradcalc reads no files", "load": "gradcalc reads no files",
                   "cd": "gradcalc reads no files", "writefile": "gradcalc writes no files"}
VARS_WIDTH = 100


def _docs() -> dict:
    try:
        with open(_DOCS_FILE, encoding="utf-8") as handle:
            return json.load(handle)
    except (OSError, ValueError):
        return {}


def name_at(code: str, cursor: int) -> str:
    """The dotted name under the cursor, else the function whose call the cursor is in."""
    before = _NAME_AT_END.search(code[:cursor])
    after = _NAME_AT_START.match(code[cursor:])
    if before is not None:
        return (before.group(0) + (after.group(0) if after else "")).strip(".")
    depth = 0
    for index in range(cursor - 1, -1, -1):
        char = code[index]
        if char in ")]}":
            depth += 1
        elif char in "([{":
            if depth == 0:
                call = _NAME_AT_END.search(code[:index]) if char == "(" else None
                return call.group(0).strip(".") if call else ""
            depth -= 1
        elif char == "\n" and depth == 0 and not code[:index].rstrip().endswith((",", "(", "\\")):
            break
    return ""


def vars_html(tensors: list, modules: list) -> str:
    """The :vars rows as HTML tables (the columns of gradcalc.display.variables)."""
    from ..display.variables import MODULE_COLUMNS, TENSOR_COLUMNS

    parts = []
    for title, columns, rows in (("Tensors", TENSOR_COLUMNS, tensors), ("Modules", MODULE_COLUMNS, modules)):
        if not rows:
            continue
        head = "".join(f"<th>{escape(column)}</th>" for column in columns)
        body = "".join("<tr>" + "".join(f"<td>{escape(cell)}</td>" for cell in row) + "</tr>" for row in rows)
        parts.append(f"<table><caption>{title}</caption><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>")
    return "".join(parts) or "<p><em>No tensors or modules yet.</em></p>"


class GradcalcKernel(Kernel):
    implementation = "gradcalc"
    implementation_version = __version__
    language = "python"
    language_version = "3.11"
    # Python's, so that notebooks written for PyTorch highlight and export as Python
    language_info = {"name": "python", "version": "3.11", "mimetype": "text/x-python", "file_extension": ".py",
                     "pygments_lexer": "ipython3", "codemirror_mode": {"name": "ipython", "version": 3},
                     "nbconvert_exporter": "python"}
    banner = f"gradcalc {__version__}: PyTorch 2.13's autograd, every cell run in a jailed worker"
    help_links = [{"text": "gradcalc", "url": "https://pypi.org/project/gradcalc/"}]

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        global _launched
        # the worker __main__ launched before ipykernel was imported, warm by now
        self.worker, _launched = _launched or Worker(capture=True), None
        self.worker.launch()
        self._docs: Optional[dict] = None

    # ------------------------------------------------------------------ execute

    async def do_execute(self, code: str, silent: bool, store_history: bool = True,
                         user_expressions: Optional[dict] = None, allow_stdin: bool = False, **_: Any) -> dict:
        magic = code.strip()
        if magic.startswith(("%", "!")):
            return self._magic(magic, silent)
        help_request = _HELP.match(magic)
        if help_request and bool(help_request[1]) != bool(help_request[3]):
            return self._help(help_request[2], silent)
        try:
            reply = self.worker.run(code, cell=True, on_stream=None if silent else self._stream)
        except WorkerDied as died:
            return self._worker_died(died, silent)
        except KeyboardInterrupt:  # Ctrl-C between two messages: the program had not started or was done
            return self._error("KeyboardInterrupt", "", silent)
        outputs = cell_outputs(reply, self.execution_count)
        if not silent:
            for output in outputs:
                content = {key: value for key, value in output.items() if key != "output_type"}
                self.send_response(self.iopub_socket, output["output_type"], content)
        if outputs and outputs[-1]["output_type"] == "error":
            return {"status": "error", "execution_count": self.execution_count,
                    **{key: value for key, value in outputs[-1].items() if key != "output_type"}}
        return self._ok()

    def _stream(self, name: str, text: str) -> None:
        """Output of the running cell, as the worker hands it over."""
        self.send_response(self.iopub_socket, "stream", {"name": name, "text": text})

    def _ok(self) -> dict:
        return {"status": "ok", "execution_count": self.execution_count, "payload": [], "user_expressions": {}}

    def _error(self, ename: str, evalue: str, silent: bool) -> dict:
        content = error_output(ename, evalue)
        del content["output_type"]
        if not silent:
            self.send_response(self.iopub_socket, "error", content)
        return {"status": "error", "execution_count": self.execution_count, **content}

    def _worker_died(self, died: WorkerDied, silent: bool) -> dict:
        """The cell's error says how the worker ended; a fresh one takes its place."""
        try:
            self.worker.restart()
        except WorkerDied:  # the next request starts one again
            self.worker.close()
        return self._error("WorkerDied", f"the worker {died}: a fresh one took its place, without the variables",
                           silent)

    def _display(self, data: dict, silent: bool) -> None:
        if not silent:
            self.send_response(self.iopub_socket, "display_data", {"data": data, "metadata": {}})

    def _magic(self, line: str, silent: bool) -> dict:
        """%vars, %graph NAME; the magics gradcalc refuses, as errors."""
        first = line.splitlines()[0]
        word, _, argument = first.lstrip("%!").partition(" ")
        argument = argument.strip()
        try:
            if line.startswith("%") and word == "vars" and not argument:
                rows = self.worker.inspect("vars", rows=True)
                text = self.worker.inspect("vars", width=VARS_WIDTH).get("text", "")
                self._display({"text/html": vars_html(rows.get("tensors", []), rows.get("modules", [])),
                               "text/plain": text}, silent)
                return self._ok()
            if line.startswith("%") and word == "graph" and argument.replace(".", "").replace("_", "").isalnum():
                return self._graph(argument, silent)
        except WorkerDied as died:
            return self._worker_died(died, silent)
        if line.startswith("!") or word in _REFUSED_MAGICS:
            why = _REFUSED_MAGICS.get(word, "gradcalc runs no shell commands")
            return self._error("UsageError", f"{first}: {why}", silent)
        if line.startswith("%%"):  # IPython's words for a magic it does not know
            return self._error("UsageError", f"Cell magic `%%{word}` not found (gradcalc has %vars and %graph NAME).",
                               silent)
        return self._error("UsageError", f"Line magic function `%{word}` not found (gradcalc has %vars and "
                           "%graph NAME).", silent)

    def _graph(self, name: str, silent: bool) -> dict:
        """The graph behind `name`: as SVG where the worker has the web page's renderer, and as the
        REPL's text view (what a front end without SVG shows)."""
        drawn = self.worker.inspect("graph", name=name, width=VARS_WIDTH)
        if "error" in drawn:
            return self._error("UsageError", str(drawn["error"]), silent)
        data = {"text/plain": drawn.get("text", "")}
        picture = self.worker.inspect("graph", name=name, format="svg")
        if "svg" in picture:
            data["image/svg+xml"] = picture["svg"]
        self._display(data, silent)
        return self._ok()

    def _help(self, name: str, silent: bool) -> dict:
        """`name?`, as IPython answers it: the inspection in the front end's pager (a payload, not
        an output); `module.*pattern?` lists the names that match."""
        try:
            if "*" in name:
                module, _, pattern = name.rpartition(".")
                prefix = module + "." if module else ""
                names = [prefix + found for found in self.worker.complete(prefix)]
                page = "\n".join(sorted(found for found in names if fnmatch.fnmatchcase(found, prefix + pattern)))
            else:
                found = self.worker.inspect("describe", name=name)
                page = "" if "error" in found else self._inspection_text(found)
        except WorkerDied as died:
            return self._worker_died(died, silent)
        if not page:
            if not silent:
                self._stream("stdout", f"Object `{name}` not found.\n")
            return self._ok()
        reply = self._ok()
        reply["payload"] = [{"source": "page", "data": {"text/plain": page}, "start": 0}]
        return reply

    # ------------------------------------------------------------------ completion, inspection

    async def do_complete(self, code: str, cursor_pos: Optional[int]) -> dict:
        cursor = len(code) if cursor_pos is None else cursor_pos
        try:
            matches = self.worker.complete(code, cursor)
        except (WorkerDied, KeyboardInterrupt):
            matches = []
        typed = _IDENTIFIER_END.search(code[:cursor])
        start = cursor - len(typed.group(0)) if typed else cursor
        return {"status": "ok", "matches": matches, "cursor_start": start, "cursor_end": cursor, "metadata": {}}

    async def do_inspect(self, code: str, cursor_pos: int, detail_level: int = 0, omit_sections: Any = ()) -> dict:
        name = name_at(code, cursor_pos)
        found: dict = {}
        if name:
            try:
                found = self.worker.inspect("describe", name=name)
            except (WorkerDied, KeyboardInterrupt):
                found = {}
        if not found or "error" in found:
            return {"status": "ok", "found": False, "data": {}, "metadata": {}}
        return {"status": "ok", "found": True, "data": {"text/plain": self._inspection_text(found)}, "metadata": {}}

    def _inspection_text(self, found: dict) -> str:
        """As IPython's Shift-Tab: the signature, the docstring's first line, the type."""
        if self._docs is None:
            self._docs = _docs()
        signature, summary = self._docs.get(found.get("name", ""), ("", ""))
        lines = []
        if signature:
            module = found["name"].rpartition(".")[0]
            lines.append(f"Signature: {module}.{signature}" if module else f"Signature: {signature}")
        if found.get("type") not in ("function", "builtin_function_or_method", "method", "type"):
            lines.append(f"String form: {found.get('repr', '')}")
        if summary:
            lines.append(f"Docstring: {summary}")
        lines.append(f"Type:      {found.get('type', '')}")
        return "\n".join(lines)

    async def do_shutdown(self, restart: bool) -> dict:
        self.worker.close()
        return {"status": "ok", "restart": restart}


_launched: Optional[Worker] = None


def main(worker: Optional[Worker] = None) -> None:
    """Run the kernel, with `worker` (launched, not yet waited for) as its first worker."""
    from ipykernel.kernelapp import IPKernelApp

    global _launched
    _launched = worker
    IPKernelApp.launch_instance(kernel_class=GradcalcKernel)
