"""The command line: `gradcalc` (REPL), `gradcalc FILE.grad`, `gradcalc -e CODE`, `gradcalc -`."""
from __future__ import annotations

import gc
import sys
from typing import Optional

# Start-up (click, numpy, the op registry, the session's modules) makes hundreds of thousands of
# objects that live as long as the process: collections meanwhile would only walk them again and
# again. The collector stays off from here until the session is ready (`_started`).
gc.disable()

import click  # noqa: E402

from . import __version__  # noqa: E402


def _run(source: str, filename: str, color: Optional[bool]) -> int:
    from .display.console import make_output
    from .language import limits
    from .session import Session, format_error

    try:
        session = Session(make_output(color))
        _started()
        ok = session.run(source, filename)
        # what is left of the program (generators closed at exit, say) runs behind the wall too
        limits.wall_up_for_good()
    except KeyboardInterrupt:
        sys.stdout.flush()
        sys.stderr.write("KeyboardInterrupt\n")
        return 130
    except BrokenPipeError:
        _quiet_pipe()
        return 0
    except Exception as error:  # a failure of gradcalc itself: one clean line, never a traceback
        sys.stdout.flush()
        sys.stderr.write(f"gradcalc: internal error: {format_error(error)}\n")
        return 1
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        _quiet_pipe()
    if session.exit_status is not None:
        return session.exit_status
    return 0 if ok else 1


def _started() -> None:
    """Start-up is over: what it made is frozen out of the collector's reach, which comes back on
    for the program."""
    gc.freeze()
    gc.enable()


def _quiet_pipe() -> None:
    """A reader that went away (`gradcalc ... | head`): end without a word, as Unix tools do."""
    import os

    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("file", required=False, type=click.Path(dir_okay=False, allow_dash=True))
@click.option("-e", "--exec", "code", metavar="CODE", help="Run CODE (statements separated by ';' or newlines).")
@click.option("--color/--no-color", default=None, help="Colour the output (default: only on a terminal).")
@click.option("--max-memory", metavar="SIZE", default=None,
              help="Memory ceiling for the program, such as 2G or 512M; 0 for none (default: a quarter of RAM).")
@click.version_option(__version__, "-V", "--version", prog_name="gradcalc", message="%(prog)s %(version)s")
def main(file: Optional[str], code: Optional[str], color: Optional[bool], max_memory: Optional[str]) -> None:
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

    _started()
    run_repl(color)
