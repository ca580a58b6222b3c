"""`gradcalc --json`: one program run for a machine (gradcalc serve's page), in this process.

The request is one JSON document on stdin: {"source": "...", "graphs": ["y", ...] or "*",
"max_output": BYTES, "max_memory": BYTES (0 for none; by default, the command line's)}. The
answer is one JSON document on stdout: {"stdout", "stderr" (each what `gradcalc FILE` prints on
that stream, byte for byte), "status" (its exit status), "truncated", "vars" ({"tensors": [...],
"modules": [...]}, the rows of `:vars`, as objects keyed by column), "graphs" ({name: SVG}), and
"views_error" if reading them failed (at the memory ceiling, say)}. A request gradcalc cannot
read gets status 2 and the reason on stderr.

gradcalc serve runs each request in a fresh process (this one, or a child of its zygote) and keeps
the wall clock from outside; the output cap is kept here, so that a program that prints forever
ends at the cap with its answer (and the vars table as they were) rather than killed.
"""
from __future__ import annotations

import json
import os
import sys
from typing import Any

from .runner import USAGE_ERROR, end_of_start_up

DEFAULT_MAX_OUTPUT = 1 << 20
MAX_GRAPHS = 40  # graphs drawn for "*": a program with more tensors gets the first ones
CUT_NOTE = "\n[output cut at {size}: the program was stopped there]\n"


class OutputCap(BaseException):
    """Raised by _CappedText once the program's output passes the cap (past `except Exception`)."""


class _CappedText:
    """One of a run's two streams, kept in memory; both share the cap on what they hold together."""

    def __init__(self, budget: list[int]) -> None:
        self.parts: list[str] = []
        self.budget = budget  # [bytes left], shared by stdout and stderr

    def write(self, text: str) -> None:
        size = len(text.encode("utf-8", "surrogatepass"))
        if size > self.budget[0]:
            kept = text.encode("utf-8", "surrogatepass")[:self.budget[0]].decode("utf-8", "ignore")
            self.parts.append(kept)
            self.budget[0] = -1
            raise OutputCap
        self.budget[0] -= size
        self.parts.append(text)

    def flush(self) -> None:
        """Nothing to flush: the text is sent with the answer."""

    def getvalue(self) -> str:
        return "".join(self.parts)


def answer_json(context: Any, parameter: Any, value: bool) -> None:
    """`--json` (click's eager callback): answer the request on stdin, then exit with its status."""
    if value and not context.resilient_parsing:
        context.exit(answer_request(sys.stdin.buffer.read()))


def answer_request(request: bytes) -> int:
    """Run the requested program and print the answer; the exit status is the answer's."""
    from .language import limits

    try:
        given = _read_request(request)
        limits.set_memory_limit(given["max_memory"])
    except ValueError as error:
        _send({"stdout": "", "stderr": f"gradcalc: --json: {error}\n", "status": USAGE_ERROR, "truncated": False,
               "vars": {"tensors": [], "modules": []}, "graphs": {}})
        return USAGE_ERROR
    answer = run_program(given["source"], given["graphs"], given["max_output"])
    _send(answer)
    return answer["status"]


def _read_request(request: bytes) -> dict:
    try:
        given = json.loads(request.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError):
        raise ValueError("the request is not a JSON document") from None
    if not isinstance(given, dict) or not isinstance(given.get("source"), str):
        raise ValueError('the request has no "source" string')
    graphs = given.get("graphs", [])
    if graphs != "*" and not (isinstance(graphs, list) and all(isinstance(name, str) for name in graphs)):
        raise ValueError('"graphs" is a list of names or "*"')
    max_output = given.get("max_output", DEFAULT_MAX_OUTPUT)
    if type(max_output) is not int or max_output <= 0:
        raise ValueError('"max_output" is a positive number of bytes')
    max_memory = given.get("max_memory")
    if max_memory is None:
        from .language import limits

        max_memory = limits.default_memory_limit()
    if type(max_memory) is not int or max_memory < 0:
        raise ValueError('"max_memory" is a number of bytes, 0 for no ceiling')
    return {"source": given["source"], "graphs": graphs, "max_output": max_output, "max_memory": max_memory}


def run_program(source: str, graphs: Any, max_output: int) -> dict:
    """What the answer holds, the program run in a fresh session of this process."""
    return answer_in(jailed_session(), source, graphs, max_output)


def jailed_session() -> Any:
    """A fresh session in this process, and the OS wall (gradcalc.jail) up around it: what a run
    needs before its program is known (gradcalc serve's zygote makes it ahead of the request)."""
    from .output import TextOutput
    from .session import Session

    session = Session(TextOutput())  # the run's own streams are set by answer_in
    end_of_start_up()
    _jail()
    return session


def answer_in(session: Any, source: str, graphs: Any, max_output: int) -> dict:
    """What the answer holds, the program run in `session` (of jailed_session, which runs no other)."""
    from .output import TextOutput
    from .session import format_error

    budget = [max_output]
    stdout, stderr = _CappedText(budget), _CappedText(budget)
    session.output = TextOutput(stdout, stderr)
    truncated = False
    try:
        ok = session.run(source, "<stdin>")
        status = session.exit_status if session.exit_status is not None else 0 if ok else 1
    except OutputCap:
        truncated, status = True, 1
    except Exception as error:  # a failure of gradcalc itself: one clean line, never a traceback
        stderr.parts.append(f"gradcalc: internal error: {format_error(error)}\n")
        status = 1
    text_out, text_err = stdout.getvalue(), stderr.getvalue()
    if truncated:
        text_err += CUT_NOTE.format(size=_size(max_output))
    answer = {"stdout": text_out, "stderr": text_err, "status": status, "truncated": truncated,
              "vars": {"tensors": [], "modules": []}, "graphs": {}}
    try:
        answer["vars"], answer["graphs"] = views(session, graphs)
    except Exception as error:  # the views read the program's objects: never let that cost the answer
        answer["views_error"] = format_error(error)  # not in stderr: that stays the command line's
    return answer


def _jail() -> None:
    """The OS wall (gradcalc.jail) before the program's first line; what the program's parse reads
    from outside the installation (the parser's cache) is read first (a zygote's child has it)."""
    from . import jail
    from .language.parser import preload

    preload()
    jail.apply(warn=False)


def views(session: Any, graphs: Any) -> tuple[dict, dict]:
    """The `:vars` rows and the pictures of the graphs asked for."""
    from .display import graph, picture, variables

    rows = variables.collect(session.namespace)
    table = {"tensors": [dict(zip(variables.TENSOR_COLUMNS, row)) for row in rows.tensors],
             "modules": [dict(zip(variables.MODULE_COLUMNS, row)) for row in rows.modules]}
    names = [row[0] for row in rows.tensors][:MAX_GRAPHS] if graphs == "*" else graphs[:MAX_GRAPHS]
    pictures = {}
    for name in names:
        try:
            drawn = graph.collect(graph.lookup_tensor(session.namespace, session.builtins, name), name,
                                  session.namespace)
        except graph.GraphError as error:
            drawn = graph.Graph(name, [], str(error))
        pictures[name] = picture.to_svg(drawn)
    return table, pictures


def _size(count: int) -> str:
    for unit, scale in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if count >= scale and count % scale == 0:
            return f"{count // scale} {unit}"
    return f"{count:,} bytes"


def _send(answer: dict) -> None:
    data = json.dumps(answer, ensure_ascii=False).encode("utf-8", "surrogatepass") + b"\n"
    sys.stdout.flush()
    view = memoryview(data)
    while view:  # os.write: the program may have replaced nothing, but sys.stdout is not ours to trust
        view = view[os.write(1, view):]
