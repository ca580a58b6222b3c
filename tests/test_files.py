"""A program's own files: whose they are and how long they last, in each way a program runs.

What the file modules print is PyTorch's and Python's (tests/golden/files); what they refuse is
probed in tests/sandbox/files. Here: a session's files are its own, the REPL keeps them until
`:reset`, and every run of `gradcalc serve` starts with none.
"""
from __future__ import annotations

import io
import warnings

import pytest

from gradcalc.session import Session, TextOutput
from gradcalc.worker.server import Kernel

WRITE = "with open('notes.txt', 'w') as f:\n    _ = f.write('kept')\n"
LIST = "import os\nprint(sorted(os.listdir()))\n"


def _session() -> Session:
    return Session(TextOutput(io.StringIO(), io.StringIO()))


def test_each_session_has_files_of_its_own() -> None:
    first, second = _session(), _session()
    assert first.run(WRITE)
    assert second.run(LIST)
    assert second.output.stdout.getvalue() == "[]\n"
    assert first.run("print(open('notes.txt').read())")
    assert first.output.stdout.getvalue() == "kept\n"


def test_the_repl_keeps_files_until_reset() -> None:
    kernel = Kernel(color=False, hints=False)

    def run(source: str) -> str:
        reply = kernel.handle({"op": "run", "source": source, "capture": True})
        assert reply["status"] == "ok", reply
        return reply["stdout"]

    run(WRITE)
    assert run("print(open('notes.txt').read())") == "kept\n"
    assert kernel.handle({"op": "reset"}) == {"ok": True}
    assert run(LIST) == "[]\n"


def test_every_serve_run_starts_with_no_files() -> None:
    pytest.importorskip("starlette", reason="gradcalc serve needs the serve extra: pip install 'gradcalc[serve]'")
    pytest.importorskip("httpx", reason="Starlette's TestClient needs httpx (the test extra)")
    with warnings.catch_warnings():  # recent Starlette would rather have httpx2 than httpx: either does
        warnings.filterwarnings("ignore", message="Using `httpx`")
        from starlette.testclient import TestClient

    from gradcalc.serve.app import Settings, create_app
    from gradcalc.serve.runs import Limits

    limits = Limits(time=4.0, memory=512 << 20, output=10_000, source=2_000)
    with TestClient(create_app(Settings(limits, workers=1, queue=4, rate=0))) as client:
        answers = [client.post("/api/run", json={"source": WRITE + LIST, "graphs": []}).json()["stdout"]
                   for _ in range(2)]
    assert answers == ["['notes.txt']\n", "['notes.txt']\n"]


def test_the_repl_says_what_to_do_without_requests_or_yaml() -> None:
    from gradcalc.repl.hints import describe

    session = _session()
    session.describe_error = lambda error: describe(session, error)
    session.run("import yaml")
    assert session.output.stderr.getvalue() == (
        "ModuleNotFoundError: No module named 'yaml'. gradcalc has no yaml: json.dump and json.load keep a config "
        "in a file of the program's own\n")
