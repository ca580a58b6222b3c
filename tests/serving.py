"""A `gradcalc serve` started for a test on a free loopback port, ready when its page answers."""
from __future__ import annotations

import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from contextlib import contextmanager
from typing import Iterator

import pytest


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@contextmanager
def serving(*options: str) -> Iterator[str]:
    """`gradcalc serve --workers 2 --rate 0 OPTIONS` until the block ends; its base URL."""
    port = free_port()
    log = tempfile.TemporaryFile()  # not a pipe: its access log would fill one and stop the server
    process = subprocess.Popen([sys.executable, "-m", "gradcalc", "serve", "--port", str(port), "--workers", "2",
                                "--rate", "0", *options], stdout=subprocess.DEVNULL, stderr=log)
    url = f"http://127.0.0.1:{port}/"
    try:
        for _ in range(300):
            try:
                urllib.request.urlopen(url, timeout=1).close()
                break
            except OSError:
                if process.poll() is not None:
                    log.seek(0)
                    pytest.fail(f"gradcalc serve ended: {log.read().decode()}")
                time.sleep(0.1)
        yield url
    finally:
        process.terminate()
        process.wait(timeout=10)
        log.close()
