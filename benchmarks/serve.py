#!/usr/bin/env python3
"""gradcalc serve's speed: runs per second and p50/p95 latency of POST /api/run for the seed
program (with its vars table and every graph) at 1, 10 and 20 concurrent clients, against a
server started here on loopback, with runs forked from the zygote (default) or spawned (--spawn).

Usage:  python benchmarks/serve.py [--runs N] [--workers N] [--spawn] [--clients 1,10,20] [--pause S]
Targets: p50 <= 50 ms at 1 client, >= 30 runs/s at 10 clients. --pause: each client waits S seconds
after each answer, as a student reads it (default 0: the next run at once).
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import socket
import statistics
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

# the program the page starts with
SEED = (Path(__file__).resolve().parent.parent / "gradcalc" / "serve" / "static" / "seed.grad").read_text()


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _post(url: str) -> float:
    body = json.dumps({"source": SEED, "graphs": "*"}).encode()
    request = urllib.request.Request(url, data=body, headers={"Content-Type": "application/json"})
    started = time.perf_counter()
    with urllib.request.urlopen(request, timeout=120) as response:
        answer = json.loads(response.read())
    if answer["status"] != 0 or answer["limit"] is not None:
        raise SystemExit(f"a run failed: {answer}")
    return time.perf_counter() - started


def measure(url: str, clients: int, runs: int, pause: float = 0.0) -> tuple[float, float, float]:
    """(runs per second, p50 seconds, p95 seconds) for `clients` clients making `runs` runs each,
    `pause` seconds apart."""
    latencies: list[float] = []

    def client() -> None:
        for _ in range(runs):
            latencies.append(_post(url))
            time.sleep(pause)

    threads = [threading.Thread(target=client) for _ in range(clients)]
    started = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    elapsed = time.perf_counter() - started
    ordered = sorted(latencies)
    return len(ordered) / elapsed, statistics.median(ordered), ordered[min(len(ordered) - 1,
                                                                           int(len(ordered) * 0.95))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10, help="runs per client (default 10)")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--spawn", action="store_true", help="a new interpreter per run, not a fork")
    parser.add_argument("--clients", default="1,10,20")
    parser.add_argument("--pause", type=float, default=0.0, help="seconds a client waits after each answer")
    options = parser.parse_args()
    port = _free_port()
    command = [sys.executable, "-m", "gradcalc", "serve", "--port", str(port), "--workers", str(options.workers),
               "--rate", "0", "--queue", "1000", "--spawn" if options.spawn else "--fork"]
    server = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}/api/run"
    try:
        for _ in range(600):
            try:
                _post(url)  # the server is up and its zygote warm
                break
            except OSError:
                time.sleep(0.1)
        print(f"{'forked' if not options.spawn else 'spawned'} runs, {options.workers} workers, "
              f"{os.cpu_count()} cores")
        print(f"{'clients':>8} {'runs/s':>8} {'p50 ms':>8} {'p95 ms':>8}")
        total = 1
        for clients in (int(text) for text in options.clients.split(",")):
            rate, p50, p95 = measure(url, clients, options.runs, options.pause)
            total += clients * options.runs
            print(f"{clients:>8} {rate:>8.1f} {p50 * 1000:>8.0f} {p95 * 1000:>8.0f}")
    finally:
        server.terminate()
        server.wait(timeout=30)
    # the server, its zygote and every run's child, all reaped by now: what a run costs, whatever else
    # the machine was doing meanwhile
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    print(f"CPU per run (server, zygote and child, start-up included): "
          f"{(used.ru_utime + used.ru_stime) / total * 1000:.0f} ms; load average {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
