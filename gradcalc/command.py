"""The command line's options, help and usage errors, as click makes them (see cli.py)."""
from __future__ import annotations

import sys
from typing import Optional

import click

from . import __version__
from .cli import end_of_start_up, run


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("file", required=False, type=click.Path(dir_okay=False, allow_dash=True))
@click.option("-e", "--exec", "code", metavar="CODE", help="Run CODE (statements separated by ';' or newlines).")
@click.option("--color/--no-color", default=None, help="Colour the output (default: only on a terminal).")
@click.option("--max-memory", metavar="SIZE", default=None,
              help="Memory ceiling for the program, such as 2G or 512M; 0 for none (default: a quarter of RAM).")
@click.version_option(__version__, "-V", "--version", prog_name="gradcalc", message="%(prog)s %(version)s")
def command(file: Optional[str], code: Optional[str], color: Optional[bool], max_memory: Optional[str]) -> None:
    """An autograd calculator that prints exactly what PyTorch prints.

    \b
    gradcalc                 start the interactive REPL
    gradcalc FILE.grad       run a script
    gradcalc -e "CODE"       run one line
    gradcalc -               read a program from standard input
    """
    if code is not None and file is not None:
        raise click.UsageError("give either FILE or -e CODE, not both")
    from .language import limits

    try:
        limits.set_memory_limit(limits.memory_limit_from(max_memory))
    except ValueError:
        raise click.BadParameter(f"'{max_memory}' is not a size such as 2G, 512M or 0", param_hint="--max-memory")
    if code is not None:
        sys.exit(run(code, "<string>", color))
    if file == "-" or (file is None and not sys.stdin.isatty()):
        sys.exit(run(sys.stdin.read(), "<stdin>", color))
    if file is not None:
        try:
            with open(file, encoding="utf-8") as handle:
                source = handle.read()
        except OSError as error:
            raise click.UsageError(f"can't open file '{file}': {error.strerror}") from None
        except UnicodeDecodeError:
            raise click.UsageError(f"'{file}' is not UTF-8 text") from None
        sys.exit(run(source, file, color))
    from .repl import run_repl

    end_of_start_up()
    run_repl(color)
