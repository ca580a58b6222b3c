"""gradcalc serve under a class's load, on loopback (the issue's 20 clients × 10 runs, under a minute on two cores):
CLIENTS clients × RUNS runs of the seed programs, every answer byte for byte the command line's,
while one more client sends a memory bomb, a CPU bomb and a fork attempt, one after the other, for
as long as they run: each ends in its limit's message and no honest run meets a limit."""
from __future__ import annotations

import http.client
import json
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Iterator
from urllib.parse import urlsplit

import pytest
from serving import serving

pytest.importorskip("starlette", reason="gradcalc serve needs the serve extra: pip install 'gradcalc[serve]'")
pytest.importorskip("uvicorn", reason="gradcalc serve needs the serve extra: pip install 'gradcalc[serve]'")

CLIENTS, RUNS = 20, 10
TIME_LIMIT = 6
EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
SEEDS = ["s000_01_backward", "s002_09_retain_grad", "s004_06_data_shares_storage"]
BOMBS = [("a = []\nwhile True:\n    a.append(' ' * 50_000_000)\n", "memory", "Memory limit"),
         ("while True:\n    pass\n", "time", "Time limit exceeded"),
         ("import subprocess\nsubprocess.run(['true'])\n", None,
          "ImportError: gradcalc programs cannot import subprocess")]


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    with serving("--queue", str(CLIENTS * 2), "--time-limit", str(TIME_LIMIT)) as url:
        yield url + "api/run"


def _post(url: str, source: str) -> dict:
    request = urllib.request.Request(url, data=json.dumps({"source": source}).encode(),
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=120) as response:
        return json.loads(response.read())


def test_a_connection_left_idle_between_runs_still_takes_the_next(server: str) -> None:
    """A browser posts the next run on the connection of the last one, however long the student
    took to type it: one the server had closed meanwhile would fail as "Failed to fetch"."""
    where = urlsplit(server)
    connection = http.client.HTTPConnection(where.hostname, where.port, timeout=60)
    try:
        for pause in (7, 0):  # 7: longer than uvicorn's default keep-alive (5 s)
            connection.request("POST", where.path, body=b"print(1 + 1)", headers={"Content-Type": "text/plain"})
            answer = connection.getresponse()
            assert answer.status == 200 and json.loads(answer.read())["stdout"] == "2\n"
            time.sleep(pause)
    finally:
        connection.close()


@pytest.mark.slow
def test_a_class_at_once_with_an_attacker(server: str) -> None:
    sources = [(EXAMPLES / f"{name}.grad").read_text() for name in SEEDS]
    expected = []
    for source in sources:
        done = subprocess.run([sys.executable, "-m", "gradcalc", "-"], input=source.encode(), capture_output=True,
                              timeout=60)
        expected.append((done.stdout.decode(), done.stderr.decode(), done.returncode))
    honest: list = []
    attacks: list = []
    failures: list = []
    finished = threading.Event()

    def student(number: int) -> None:
        try:
            for run in range(RUNS):
                which = (number + run) % len(sources)
                honest.append((which, _post(server, sources[which])))
        except (OSError, urllib.error.HTTPError) as error:
            failures.append(repr(error))

    def attacker() -> None:
        while not finished.is_set():
            for source, limit, message in BOMBS:
                started = time.monotonic()
                attacks.append((limit, message, _post(server, source)))
                time.sleep(max(0.0, 1.0 - (time.monotonic() - started)))

    threads = [threading.Thread(target=student, args=(number,)) for number in range(CLIENTS)]
    bomber = threading.Thread(target=attacker)
    bomber.start()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    finished.set()
    bomber.join()

    assert not failures
    assert len(honest) == CLIENTS * RUNS
    for which, answer in honest:
        assert answer["limit"] is None
        assert (answer["stdout"], answer["stderr"], answer["status"]) == expected[which]
    assert len(attacks) >= len(BOMBS)
    for limit, message, answer in attacks:
        assert answer["limit"] == limit and message in answer["stderr"], answer
