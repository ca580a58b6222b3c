"""`gradcalc serve`'s options (click), and the uvicorn server they start."""
from __future__ import annotations

import logging
import os
import sys

import click

from ..language.limits import parse_size

# seconds an idle browser connection stays open: uvicorn's 5 s default closes it while a student
# types the next program, and a run posted on it just then fails ("Failed to fetch")
KEEP_ALIVE = 75


def _missing_walls() -> str:
    """What of the OS wall this system cannot put up ("" when all of it)."""
    from .. import jail

    up = jail.walls().partition(";")[0]  # what follows names the missing ones
    return ", ".join(name for name in ("landlock", "seccomp") if name not in up)


def _size(context: click.Context, parameter: click.Parameter, value: str) -> int:
    try:
        size = parse_size(value)
    except ValueError:
        size = 0
    if size <= 0:
        raise click.BadParameter(f"'{value}' is not a size such as 512M or 100K")
    return size


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--host", default="127.0.0.1", show_default=True, help="The address to listen on (0.0.0.0: every one).")
@click.option("--port", default=8000, show_default=True, type=click.IntRange(0, 65535), help="The port to listen on.")
@click.option("--workers", default=os.cpu_count() or 1, show_default="the core count", type=click.IntRange(1, 256),
              help="Runs at once.")
@click.option("--queue", default=None, type=click.IntRange(0, 10_000), show_default="4 per worker",
              help="Runs waiting for a worker; past them a visitor gets 503.")
@click.option("--time-limit", default=10.0, show_default=True, type=click.FloatRange(0.1, 3600),
              help="Seconds of wall clock a run may take.")
@click.option("--memory-limit", default="512M", show_default=True, callback=_size, help="Memory a run may use.")
@click.option("--output-limit", default="1M", show_default=True, callback=_size,
              help="Output (stdout and stderr) a run may print; the rest is cut with a note.")
@click.option("--source-limit", default="100K", show_default=True, callback=_size, help="Size of a program.")
@click.option("--rate", default=120.0, show_default=True, type=click.FloatRange(0),
              help="Runs a minute per client address, after a burst of 20 (0: no limit).")
@click.option("--fork/--spawn", default=True, show_default=True,
              help="Fork each run from a warm process (fast), or start a new interpreter for each.")
@click.option("--without-os-wall", is_flag=True,
              help="Start even where this system lacks the sandbox's OS wall (Landlock, seccomp).")
def serve(host: str, port: int, workers: int, queue: int | None, time_limit: float, memory_limit: int,
          output_limit: int, source_limit: int, rate: float, fork: bool, without_os_wall: bool) -> None:
    """The classroom page: paste a snippet, see what PyTorch prints and the graph it built."""
    missing = _missing_walls()
    if missing and not without_os_wall:
        raise click.UsageError(f"this system lacks the sandbox's OS wall ({missing}): strangers' programs would "
                               "run behind gradcalc's policy alone. Start with --without-os-wall to accept that.")
    try:
        import uvicorn

        from .app import Settings, create_app
        from .runs import Limits
    except ImportError as error:
        raise click.UsageError(f"gradcalc serve needs the serve extra ({error.name} is missing): "
                               "pip install 'gradcalc[serve]'") from None
    settings = Settings(Limits(time_limit, memory_limit, output_limit, source_limit), workers,
                        4 * workers if queue is None else queue, rate, fork=fork)
    logging.basicConfig(level=logging.INFO, format="%(message)s", stream=sys.stderr)
    click.echo(f"gradcalc serve: http://{host}:{port}/  ({workers} workers; Ctrl-C stops)", err=True)
    uvicorn.run(create_app(settings), host=host, port=port, access_log=False, log_level="warning",
                timeout_keep_alive=KEEP_ALIVE)
