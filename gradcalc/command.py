"""The command line's options, help and usage errors, as click makes them (see cli.py)."""
from __future__ import annotations

import sys
from typing import Optional

import click

from . import __version__
from .language import limits
from .report import answer_json
from .runner import interrupted, run, set_graph_format, start_repl


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("file", required=False, type=click.Path(dir_okay=False, allow_dash=True))
@click.option("-e", "--exec", "code", metavar="CODE", help="Run CODE (statements separated by ';' or newlines).")
@click.option("--graph", metavar="NAME",
              help="After the program, draw the autograd graph behind tensor NAME (as the REPL's :graph).")
@click.option("--format", type=click.Choice(["text", "dot", "svg"]), default="text", expose_value=False,
              callback=set_graph_format,
              help="How --graph draws: text (as :graph), dot (Graphviz, as torchviz) or svg (a picture).")
@click.option("--json", is_flag=True, is_eager=True, expose_value=False, callback=answer_json,
              help="Read {\"source\": ...} as JSON on stdin, print one JSON answer (gradcalc serve's worker).")
@click.option("--color/--no-color", default=None,
              help="Colour the output (default: on a terminal; NO_COLOR and FORCE_COLOR are honoured).")
@click.option("--history-file", metavar="PATH", default=None,
              help="The REPL's history file (default: $GRADCALC_HISTORY, else "
                   "$XDG_DATA_HOME/gradcalc/history or ~/.local/share/gradcalc/history).")
@click.option("--max-memory", metavar="SIZE", default=None,
              help="Memory ceiling for the program, such as 2G or 512M; 0 for none (default: a quarter of RAM).")
@click.version_option(__version__, "-V", "--version", prog_name="gradcalc", message="%(prog)s %(version)s")
def command(file: Optional[str], code: Optional[str], graph: Optional[str], color: Optional[bool],
            history_file: Optional[str], max_memory: Optional[str]) -> None:
    """An autograd calculator that prints exactly what PyTorch prints.

    \b
    gradcalc                 start the interactive REPL (:help there lists its commands)
    gradcalc FILE.grad       run a script
    gradcalc -e "CODE"       run one line
    gradcalc -               read a program from standard input
    gradcalc serve           the classroom web page (gradcalc serve --help)

    \b
    Exit status: 0 success, 1 an error in the program, 2 a usage error,
    130 interrupted (Ctrl-C).
    """
    try:
        _dispatch(file, code, graph, color, history_file, max_memory)
    except KeyboardInterrupt:  # click would say "Aborted!" and exit 1
        sys.exit(interrupted())


def _dispatch(file: Optional[str], code: Optional[str], graph: Optional[str], color: Optional[bool],
              history_file: Optional[str], max_memory: Optional[str]) -> None:
    """What the command line asks for, in the order its docstring lists."""
    if code is not None and file is not None:
        raise click.UsageError("give either FILE or -e CODE, not both")
    try:
        limits.set_memory_limit(limits.memory_limit_from(max_memory))
    except ValueError:
        raise click.BadParameter(f"'{max_memory}' is not a size such as 2G, 512M or 0",
                                 param_hint="--max-memory") from None
    if code is not None:
        sys.exit(run(code, "<string>", color, graph))
    if file == "-" or (file is None and not sys.stdin.isatty()):
        sys.exit(run(sys.stdin.read(), "<stdin>", color, graph))
    if file is not None:
        try:
            with open(file, encoding="utf-8") as handle:
                source = handle.read()
        except OSError as error:
            raise click.UsageError(f"can't open file '{file}': {error.strerror}") from None
        except UnicodeDecodeError:
            raise click.UsageError(f"'{file}' is not UTF-8 text") from None
        sys.exit(run(source, file, color, graph))
    if graph is not None:
        raise click.UsageError("--graph needs a program to run: a FILE, -e CODE or -")
    start_repl(color, history_file)
