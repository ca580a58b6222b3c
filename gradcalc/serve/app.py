"""The classroom page's server: the page, its assets, the examples and `POST /api/run`.

Fair under a class's load: at most `workers` runs at once, at most `queue` more waiting (past it,
503), and a per-client token bucket (past it, 429), both with Retry-After. Bad input is refused
before any child starts: a body that is not UTF-8 text, a NUL byte, a source over the size limit.
Every run is logged as one JSON line without the program's text.
"""
from __future__ import annotations

import asyncio
import json
import logging
import time
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any, Optional

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Route

from .runs import Limits, Runner, SubprocessRunner
from .zygote import ZygoteRunner

log = logging.getLogger("gradcalc.serve")
STATIC = Path(str(resources.files("gradcalc.serve") / "static"))
# seed.grad: the program the page starts with (the benchmark and the tests run it too)
ASSETS = {"app.js": "text/javascript", "style.css": "text/css", "favicon.svg": "image/svg+xml",
          "seed.grad": "text/plain; charset=utf-8"}
SEED = (STATIC / "seed.grad").read_text(encoding="utf-8")
JSON_OVERHEAD = 6  # a JSON string may take six bytes (\u0000) for each byte of text


@dataclass
class Settings:
    """What `gradcalc serve`'s flags set."""

    limits: Limits = field(default_factory=Limits)
    workers: int = 2
    queue: int = 16  # runs waiting for a worker, past which the server answers 503
    rate: float = 120.0  # runs per minute per client, 0 for no limit
    burst: int = 20  # runs a client may make at once before the rate applies
    fork: bool = True  # runs forked from a warm zygote (zygote.py), else each a new interpreter


class _Buckets:
    """Per-client token buckets: `burst` runs at once, then `rate` a minute."""

    def __init__(self, rate: float, burst: int) -> None:
        self.rate, self.burst = rate / 60.0, burst
        self.levels: dict[str, tuple[float, float]] = {}  # client -> (tokens, when)

    def take(self, client: str) -> float:
        """0 if the client may run now, else the seconds until it may."""
        if self.rate <= 0:
            return 0.0
        now = time.monotonic()
        tokens, when = self.levels.get(client, (float(self.burst), now))
        tokens = min(float(self.burst), tokens + (now - when) * self.rate)
        if tokens < 1.0:
            self.levels[client] = (tokens, now)
            return (1.0 - tokens) / self.rate
        self.levels[client] = (tokens - 1.0, now)
        if len(self.levels) > 10_000:  # full buckets carry no information: forget them
            self.levels = {key: value for key, value in self.levels.items() if value[0] < self.burst - 1}
        return 0.0


class BadRequest(Exception):
    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


def create_app(settings: Optional[Settings] = None, runner: Optional[Runner] = None) -> Starlette:
    """The ASGI application (uvicorn serves it; tests call it directly)."""
    settings = settings or Settings()
    runner = runner or (ZygoteRunner() if settings.fork else SubprocessRunner())
    slots = asyncio.Semaphore(settings.workers)
    buckets = _Buckets(settings.rate, settings.burst)
    state = {"waiting": 0}

    async def page(request: Request) -> Response:
        return FileResponse(STATIC / "index.html", media_type="text/html", headers=_PAGE_HEADERS)

    async def asset(request: Request) -> Response:
        name = request.path_params["name"]
        if name not in ASSETS:
            return JSONResponse({"error": "no such file"}, status_code=404)
        return FileResponse(STATIC / name, media_type=ASSETS[name], headers={"Cache-Control": "no-cache"})

    async def examples(request: Request) -> Response:
        return JSONResponse(_examples())

    async def limits(request: Request) -> Response:
        shown = settings.limits
        return JSONResponse({"time": shown.time, "memory": shown.memory, "output": shown.output,
                             "source": shown.source, "workers": settings.workers, "queue": settings.queue})

    async def run(request: Request) -> Response:
        started = time.monotonic()
        client = request.client.host if request.client else "-"
        try:
            source, graphs = await _read_run(request, settings.limits)
        except BadRequest as error:
            return _refuse(client, error.status, error.message, started)
        wait = buckets.take(client)
        if wait:
            return _refuse(client, 429, f"Too many runs from this address: try again in {wait:.0f} s.", started,
                           retry=wait)
        if state["waiting"] >= settings.workers + settings.queue:
            return _refuse(client, 503, "The server is busy: every worker is running a program and the queue is "
                                        "full. Try again in a few seconds.", started, retry=2)
        state["waiting"] += 1
        try:
            async with slots:
                outcome = await runner.run(source, graphs, settings.limits)
        finally:
            state["waiting"] -= 1
        answer = dict(outcome.answer, limit=outcome.limit, elapsed_ms=round(outcome.elapsed * 1000))
        _log(client, 200, started, exit=answer.get("status"), limit=outcome.limit,
             bytes=len(source.encode("utf-8")))
        return JSONResponse(answer)

    routes = [Route("/", page), Route("/static/{name}", asset), Route("/api/examples", examples),
              Route("/api/limits", limits), Route("/api/run", run, methods=["POST"])]
    @asynccontextmanager
    async def lifespan(app: Starlette) -> Any:
        await runner.start()
        yield
        await runner.close()

    return Starlette(routes=routes, lifespan=lifespan)


# the page loads nothing from elsewhere: a strict policy keeps a share link's content from trying
_PAGE_HEADERS = {"Content-Security-Policy": "default-src 'self'; img-src 'self' data:; style-src 'self' "
                                            "'unsafe-inline'; object-src 'none'; base-uri 'none'",
                 "Cache-Control": "no-cache", "X-Content-Type-Options": "nosniff"}


async def _read_run(request: Request, limits: Limits) -> tuple[str, Any]:
    """The source and the graphs asked for: a JSON body {"source", "graphs"}, or the program as text/plain."""
    body = bytearray()
    cap = limits.source * JSON_OVERHEAD + 4096
    async for chunk in request.stream():
        body += chunk
        if len(body) > cap:
            raise BadRequest(413, f"The program is too large: a run takes at most {limits.source:,} bytes.")
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError:
        raise BadRequest(400, "The program is not UTF-8 text (binary data cannot run).") from None
    graphs: Any = []
    if request.headers.get("content-type", "").split(";")[0].strip() == "application/json":
        try:
            given = json.loads(text)
        except (json.JSONDecodeError, RecursionError):
            raise BadRequest(400, "The request is not a JSON document.") from None
        if not isinstance(given, dict) or not isinstance(given.get("source"), str):
            raise BadRequest(400, 'The request needs "source", the program as a string.')
        text, graphs = given["source"], given.get("graphs", [])
        if graphs != "*" and not (isinstance(graphs, list) and all(isinstance(name, str) for name in graphs)):
            raise BadRequest(400, '"graphs" is a list of tensor names, or "*" for all.')
    if len(text.encode("utf-8", "surrogatepass")) > limits.source:
        raise BadRequest(413, f"The program is too large: a run takes at most {limits.source:,} bytes.")
    if "\x00" in text:
        raise BadRequest(400, "The program contains a NUL byte: binary data cannot run.")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate escaped in the JSON
        raise BadRequest(400, "The program is not valid Unicode text.") from None
    return text, graphs


def _refuse(client: str, status: int, message: str, started: float, retry: float = 0) -> Response:
    _log(client, status, started)
    headers = {"Retry-After": str(max(1, round(retry)))} if retry else None
    return JSONResponse({"error": message}, status_code=status, headers=headers)


def _log(client: str, status: int, started: float, **more: Any) -> None:
    """One line per request, without the program's text."""
    record = {"time": time.strftime("%Y-%m-%dT%H:%M:%S"), "client": client, "path": "/api/run", "status": status,
              "ms": round((time.monotonic() - started) * 1000), **more}
    log.info(json.dumps(record))


def _examples() -> list[dict]:
    """The snippets of examples/, shipped in the wheel (gradcalc/examples) or read from a checkout."""
    found = []
    for folder in (Path(str(resources.files("gradcalc"))) / "examples",
                   Path(str(resources.files("gradcalc"))).parent / "examples"):
        if folder.is_dir():
            for path in sorted(folder.glob("*.grad")):
                found.append({"name": _title(path.stem), "source": path.read_text(encoding="utf-8")})
            break
    return found


def _title(stem: str) -> str:
    """`s002_09_retain_grad` -> `2.9 retain grad`."""
    parts = stem.split("_")
    if len(parts) > 2 and parts[0][1:].isdigit() and parts[1].isdigit():
        return f"{int(parts[0][1:])}.{int(parts[1])} {' '.join(parts[2:])}"
    return stem.replace("_", " ")
