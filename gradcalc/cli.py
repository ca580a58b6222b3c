"""The command line: `gradcalc` (REPL), `gradcalc FILE.grad`, `gradcalc -e CODE`, `gradcalc -`."""
from __future__ import annotations

import sys
from typing import Optional

import click

from . import __version__


def _run(source: str, filename: str, color: Optional[bool]) -> int:
    from .display.console import make_output
    from .session import Session, format_error

    try:
        output = make_output(color)
        ok = Session(output).run(source, filename)
    except Exception as error:  # a failure of gradcalc itself: one clean line, never a traceback
        sys.stdout.flush()
        sys.stderr.write(f"gradcalc: internal error: {format_error(error)}\n")
        return 1
    return 0 if ok else 1


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("file", required=False, type=click.Path(dir_okay=False, allow_dash=True))
@click.option("-e", "--exec", "code", metavar="CODE", help="Run CODE (statements separated by ';' or newlines).")
@click.option("--color/--no-color", default=None, help="Colour the output (default: only on a terminal).")
@click.version_option(__version__, "-V", "--version", prog_name="gradcalc", message="%(prog)s %(version)s")
def main(file: Optional[str], code: Optional[str], color: Optional[bool]) -> None:
    """An autograd calculator that prints exactly what PyTorch prints.

    \b
    gradcalc                 start the interactive REPL
    gradcalc FILE.grad       run a script
    gradcalc -e "CODE"       run one line
    gradcalc -               read a program from standard input
    """
    if code is not None and file is not None:
        raise click.UsageError("give either FILE or -e CODE, not both")
    if code is not None:
        sys.exit(_run(code, "<string>", color))
    if file == "-" or (file is None and not sys.stdin.isatty()):
        sys.exit(_run(sys.stdin.read(), "<stdin>", color))
    if file is not None:
        try:
            with open(file, encoding="utf-8") as handle:
                source = handle.read()
        except OSError as error:
            raise click.UsageError(f"can't open file '{file}': {error.strerror}") from None
        except UnicodeDecodeError:
            raise click.UsageError(f"'{file}' is not UTF-8 text") from None
        sys.exit(_run(source, file, color))
    from .repl import run_repl

    run_repl(color)
