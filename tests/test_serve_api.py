"""gradcalc serve's API: each limit and each bad input answers with its status and one clear message.

The app is called in-process (Starlette's TestClient); each accepted run is a real `gradcalc --json`
child. Refusals that start no child, the queue and the rate limit use a stand-in runner.
"""
from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import threading
import time
import warnings

import pytest

pytest.importorskip("starlette", reason="gradcalc serve needs the serve extra: pip install 'gradcalc[serve]'")
pytest.importorskip("httpx", reason="Starlette's TestClient needs httpx (the test extra)")

with warnings.catch_warnings():  # recent Starlette would rather have httpx2 than httpx: either does
    warnings.filterwarnings("ignore", message="Using `httpx`")
    from starlette.testclient import TestClient  # noqa: E402

from gradcalc.serve import app as app_module  # noqa: E402
from gradcalc.serve.app import Settings, create_app  # noqa: E402
from gradcalc.serve.runs import Limits, Outcome, empty_answer  # noqa: E402
from gradcalc.serve.zygote import ZygoteRunner  # noqa: E402

# the page's own program, and a warning and an in-place change through .data after it
SEED = app_module.SEED + "x.grad.data.add_(1)\nprint(torch.ones(2).requires_grad_().sum().grad)\n"

LIMITS = Limits(time=4.0, memory=512 << 20, output=10_000, source=2_000)


@pytest.fixture(scope="module")
def client() -> TestClient:
    with TestClient(create_app(Settings(LIMITS, workers=2, queue=8, rate=0))) as test_client:
        yield test_client


def cli(source: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "gradcalc", "-"], input=source.encode(), capture_output=True,
                          timeout=60)


def run(client: TestClient, source: str, graphs: object = "*") -> dict:
    response = client.post("/api/run", json={"source": source, "graphs": graphs})
    assert response.status_code == 200, response.text
    return response.json()


def test_a_run_answers_as_the_command_line_with_the_vars_and_graphs(client: TestClient) -> None:
    answer = run(client, SEED)
    expected = cli(SEED)
    assert answer["stdout"].encode() == expected.stdout
    assert answer["stderr"].encode() == expected.stderr
    assert "UserWarning" in answer["stderr"]  # the .grad of a non-leaf
    assert answer["status"] == expected.returncode == 0
    assert answer["limit"] is None
    rows = {row["name"]: row for row in answer["vars"]["tensors"]}
    assert rows["x"]["grad_fn"] == "AddBackward0" and rows["w"]["is_leaf"] == "True"
    assert "AddBackward0" in answer["graphs"]["x"] and answer["graphs"]["x"].startswith("<svg")
    assert "freed by backward" in answer["graphs"]["x"]


def test_runs_spawned_without_the_zygote_answer_the_same(client: TestClient) -> None:
    with TestClient(create_app(Settings(LIMITS, rate=0, fork=False))) as spawning:
        spawned = run(spawning, SEED)
        cut = run(spawning, "while True:\n    print('spam')\n", [])
    forked = run(client, SEED)
    assert {key: value for key, value in spawned.items() if key != "elapsed_ms"} == \
        {key: value for key, value in forked.items() if key != "elapsed_ms"}
    assert cut["limit"] == "output"


def test_a_zygote_that_dies_is_replaced() -> None:
    runner = ZygoteRunner()
    with TestClient(create_app(Settings(LIMITS, rate=0), runner=runner)) as test_client:
        assert run(test_client, "print(1)\n", [])["stdout"] == "1\n"
        os.kill(runner.process.pid, signal.SIGKILL)
        for _ in range(100):
            if runner.process.returncode is not None:
                break
            time.sleep(0.05)
        assert run(test_client, "print(2)\n", [])["stdout"] == "2\n"


def test_text_plain_body_and_graphs_on_request(client: TestClient) -> None:
    response = client.post("/api/run", content=b"import torch\ny = torch.ones(2, requires_grad=True) * 3\n",
                           headers={"Content-Type": "text/plain"})
    assert response.status_code == 200
    assert response.json()["graphs"] == {}
    answer = run(client, "import torch\ny = torch.ones(2, requires_grad=True) * 3\n", ["y", "nope"])
    assert "MulBackward0" in answer["graphs"]["y"]
    assert "name 'nope' is not defined" in answer["graphs"]["nope"]


@pytest.mark.parametrize("source, message", [
    ('x = "abc\n', "SyntaxError: unterminated string literal"),
    ("x = " + "(" * 500 + "1" + ")" * 500 + "\n", "SyntaxError: too many nested parentheses"),
    ("import os\nos.fork()\n", "AttributeError: module 'os' has no attribute 'fork'"),
    ("import subprocess\n", "ImportError"),
])
def test_bad_programs_end_in_one_error_line(client: TestClient, source: str, message: str) -> None:
    answer = run(client, source, [])
    assert answer["status"] == 1 and answer["limit"] is None
    assert message in answer["stderr"]
    assert "Traceback" not in answer["stderr"]


def test_memory_bombs_end_at_the_ceiling(client: TestClient) -> None:
    answer = run(client, "a = []\nwhile True:\n    a.append('x' * 10_000_000)\n", [])
    assert answer["limit"] == "memory"
    assert answer["stderr"].startswith("MemoryError\n") and "512 MiB" in answer["stderr"]
    answer = run(client, "import torch\nx = torch.zeros(100000, 100000)\n", [])
    assert answer["limit"] == "memory" and "can't allocate memory" in answer["stderr"]


def test_a_cpu_bomb_ends_at_the_time_limit(client: TestClient) -> None:
    answer = run(client, "while True:\n    pass\n", [])
    assert answer["limit"] == "time"
    assert answer["stderr"] == "Time limit exceeded: the program ran longer than 4 s and was stopped.\n"
    assert 4000 <= answer["elapsed_ms"] < 8000


def test_printing_forever_is_cut_at_the_output_limit(client: TestClient) -> None:
    answer = run(client, "import torch\nx = torch.ones(3, requires_grad=True)\nwhile True:\n    print('spam')\n")
    assert answer["limit"] == "output" and answer["truncated"]
    assert len(answer["stdout"].encode()) <= LIMITS.output
    assert answer["stderr"].endswith("[output cut at 10,000 bytes: the program was stopped there]\n")
    assert [row["name"] for row in answer["vars"]["tensors"]] == ["x"]  # the views as the program left them


def test_each_run_draws_its_own_random_numbers(client: TestClient) -> None:
    source = "import torch, random\nprint(torch.rand(2), random.random())\n"
    assert run(client, source, [])["stdout"] != run(client, source, [])["stdout"]


def test_an_exit_status_comes_back(client: TestClient) -> None:
    answer = run(client, "import sys\nprint('bye')\nsys.exit(3)\n", [])
    assert (answer["stdout"], answer["status"]) == ("bye\n", 3)


@pytest.mark.parametrize("body, content_type, status, message", [
    (b"\xff\xfe\x00binary", "text/plain", 400, "not UTF-8 text"),
    (b"print(1)\x00", "text/plain", 400, "NUL byte"),
    (b"x = 1\n" * 400, "text/plain", 413, "at most 2,000 bytes"),
    (b"#" * 20_000_000, "text/plain", 413, "at most 2,000 bytes"),
    (b"{not json", "application/json", 400, "not a JSON document"),
    (b"[" * 100_000 + b"]" * 100_000, "application/json", 413, "too large"),
    (b"[" * 6_000 + b"]" * 6_000, "application/json", 400, "JSON"),
    (b'{"source": 12}', "application/json", 400, "needs \"source\""),
    (b'{"source": "x = 1", "graphs": {"a": 1}}', "application/json", 400, "list of tensor names"),
    (b'{"source": "\\ud800"}', "application/json", 400, "not valid Unicode"),
])
def test_bad_requests_are_refused_before_any_run(body: bytes, content_type: str, status: int, message: str) -> None:
    with TestClient(create_app(Settings(LIMITS, rate=0), runner=_Refusing())) as test_client:
        response = test_client.post("/api/run", content=body, headers={"Content-Type": content_type})
    assert response.status_code == status
    assert message in response.json()["error"]


class _Refusing:
    async def start(self) -> None:
        pass

    async def close(self) -> None:
        pass

    async def run(self, source: str, graphs: object, limits: Limits) -> Outcome:
        raise AssertionError("no run was expected")


class _Waiting(_Refusing):
    """A runner whose runs last until released."""

    def __init__(self) -> None:
        self.release = threading.Event()

    async def run(self, source: str, graphs: object, limits: Limits) -> Outcome:
        while not self.release.is_set():
            await asyncio.sleep(0.01)
        return Outcome(empty_answer(status=0), None, 0.0)


def test_past_the_queue_the_server_answers_503() -> None:
    runner = _Waiting()
    with TestClient(create_app(Settings(LIMITS, workers=1, queue=1, rate=0), runner=runner)) as test_client:
        results: list = []
        threads = []
        while not any(response.status_code == 503 for response in results) and len(threads) < 20:
            # one more run, given time to be admitted (then it waits) or refused
            thread = threading.Thread(target=lambda: results.append(test_client.post("/api/run", content=b"x = 1")))
            thread.start()
            thread.join(timeout=0.5)
            threads.append(thread)
        runner.release.set()
        for thread in threads:
            thread.join()
    refused = [response for response in results if response.status_code == 503]
    assert refused and "queue is full" in refused[0].json()["error"]
    assert refused[0].headers["Retry-After"] == "2"
    assert sorted(response.status_code for response in results).count(200) == 2  # one run, one waiting


def test_past_the_rate_a_client_gets_429() -> None:
    runner = _Waiting()
    runner.release.set()
    with TestClient(create_app(Settings(LIMITS, rate=6, burst=2), runner=runner)) as test_client:
        statuses = [test_client.post("/api/run", content=b"x = 1").status_code for _ in range(3)]
        refused = test_client.post("/api/run", content=b"x = 1")
    assert statuses == [200, 200, 429]
    assert "Too many runs" in refused.json()["error"] and int(refused.headers["Retry-After"]) >= 1


def test_the_access_log_has_one_json_line_per_run_without_the_program(caplog: pytest.LogCaptureFixture) -> None:
    runner = _Waiting()
    runner.release.set()
    with caplog.at_level("INFO", logger="gradcalc.serve"), \
            TestClient(create_app(Settings(LIMITS, rate=0), runner=runner)) as test_client:
        test_client.post("/api/run", content="secret = 'Ω'\n".encode())
        test_client.post("/api/run", content=b"secret\x00")
    records = [json.loads(record.getMessage()) for record in caplog.records if record.name == "gradcalc.serve"]
    assert [(record["status"], record.get("bytes")) for record in records] == [(200, 14), (400, None)]
    assert {"time", "client", "ms"} <= set(records[0]) and records[0]["exit"] == 0
    assert "secret" not in caplog.text


def test_the_page_its_assets_examples_and_limits(client: TestClient) -> None:
    page = client.get("/")
    assert page.status_code == 200 and "<textarea" in page.text
    assert "default-src 'self'" in page.headers["Content-Security-Policy"]
    assert "http" not in page.text.replace("http-equiv", "")  # nothing loaded from elsewhere
    for name in ("app.js", "style.css", "favicon.svg"):
        assert client.get(f"/static/{name}").status_code == 200
    assert client.get("/static/../app.py").status_code == 404
    examples = client.get("/api/examples").json()
    assert len(examples) > 10 and all(example["source"] for example in examples)
    assert client.get("/api/limits").json()["time"] == 4.0


def test_the_json_mode_refuses_a_bad_request_in_json() -> None:
    done = subprocess.run([sys.executable, "-m", "gradcalc", "--json"], input=b"not json", capture_output=True,
                          timeout=60)
    assert done.returncode == 2
    assert json.loads(done.stdout)["stderr"] == "gradcalc: --json: the request is not a JSON document\n"


def test_the_page_does_not_start_where_a_wall_is_missing(monkeypatch: pytest.MonkeyPatch) -> None:
    from gradcalc import jail
    from gradcalc.serve import command

    monkeypatch.setattr(jail, "walls", lambda: "seccomp, rlimits; missing: landlock")
    assert command._missing_walls() == "landlock"
    monkeypatch.setattr(jail, "walls", lambda: "none (not Linux)")
    assert command._missing_walls() == "landlock, seccomp"
    monkeypatch.setattr(jail, "walls", lambda: "landlock 7, seccomp, rlimits")
    assert command._missing_walls() == ""
