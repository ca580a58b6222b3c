"""The command line's options, help and usage errors, as click makes them (see cli.py)."""
from __future__ import annotations

import sys
from typing import Optional

import click

from . import __version__
from .language import limits
from .report import answer_json
from .runner import interrupted, run, set_graph_format, start_repl


def _show_version(context: click.Context, parameter: click.Parameter, value: bool) -> None:
    if not value or context.resilient_parsing:
        return
    from . import jail
    from .autograd import mkl

    click.echo(f"gradcalc {__version__}\nsandbox: {jail.walls()}\nbackend: {mkl.describe()}")
    context.exit()


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
@click.option("-V", "--version", is_flag=True, expose_value=False, is_eager=True, callback=_show_version,
              help="Show the version, which of the sandbox's OS walls this system puts up and which backend gives "
                   "PyTorch's MKL results, and exit.")
def command(file: Optional[str], code: Optional[str], graph: Optional[str], color: Optional[bool],
            history_file: Optional[str], max_memory: Optional[str]) -> None:
    """An autograd calculator that prints exactly what PyTorch prints.

    \b
    gradcalc                 start the interactive REPL (:help there lists its commands)
    gradcalc FILE.grad       run a script
    gradcalc -e "CODE"       run one line
    gradcalc -               read a program from standard input
    gradcalc kernel install  install the Jupyter kernel
    gradcalc nbcheck NB      compare a notebook's stored outputs with gradcalc's
    gradcalc serve           the classroom web page (gradcalc serve --help)

    \b
    Exit status: 0 success, 1 an error in the program, 2 a usage error,
    130 interrupted (Ctrl-C).
    """
    try:
        _dispatch(file, code, graph, color, history_file, max_memory)
    except KeyboardInterrupt:  # click would say "Aborted!" and exit 1
        sys.exit(interrupted())


def _source(data: bytes, filename: str) -> str:
    """A program's text; bytes that are not UTF-8 end the run as Python's tokenizer ends it."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        sys.stderr.write(f"SyntaxError: Non-UTF-8 code starting with '\\x{data[error.start]:02x}' in file {filename} "
                         f"on line {line}, but no encoding declared; see https://peps.python.org/pep-0263/ for "
                         "details\n")
        sys.exit(1)


def _dispatch(file: Optional[str], code: Optional[str], graph: Optional[str], color: Optional[bool],
              history_file: Optional[str], max_memory: Optional[str]) -> None:
    """What the command line asks for, in the order its docstring lists."""
    if code is not None and file is not None:
        raise click.UsageError("give either FILE or -e CODE, not both")
    try:
        memory = limits.memory_limit_from(max_memory)
    except ValueError:
        raise click.BadParameter(f"'{max_memory}' is not a size such as 2G, 512M or 0",
                                 param_hint="--max-memory") from None
    if code is not None or file is not None or not sys.stdin.isatty():
        limits.set_memory_limit(memory)  # the program runs in this process (the REPL's, in its worker)
    if code is not None:
        sys.exit(run(code, "<string>", color, graph))
    if file == "-" or (file is None and not sys.stdin.isatty()):
        sys.exit(run(_source(sys.stdin.buffer.read(), "<stdin>"), "<stdin>", color, graph))
    if file is not None:
        try:
            with open(file, "rb") as handle:
                data = handle.read()
        except OSError as error:
            raise click.UsageError(f"can't open file '{file}': {error.strerror}") from None
        sys.exit(run(_source(data, file), file, color, graph))
    if graph is not None:
        raise click.UsageError("--graph needs a program to run: a FILE, -e CODE or -")
    start_repl(color, history_file, memory)
