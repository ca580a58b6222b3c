"""The command line: `gradcalc` (REPL), `gradcalc FILE.grad`, `gradcalc -e CODE`, `gradcalc -`.

A Unix tool: exit status 0 on success, 1 for an error in the program, 2 for a usage error; Ctrl-C
prints `KeyboardInterrupt` and ends the process by SIGINT (status 130 in the shell, and a shell
loop stops); a reader that goes away (`gradcalc ... | head`) ends it quietly by SIGPIPE.
click is imported only when there are arguments, so the REPL's first prompt does not wait for it.
"""
from __future__ import annotations

import gc
import os
import sys

# Start-up (click, numpy, the op registry, the session's modules) makes hundreds of thousands of
# objects that live as long as the process: collections meanwhile would only walk them again and
# again. The collector stays off from here until the session is ready (`_started`).
gc.disable()

from . import __version__  # noqa: E402

# typing and signal cost as much as the rest of what the REPL's first prompt needs: imported when used
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Optional

USAGE_ERROR = 2
INTERRUPTED = 130


def main(args: Optional[list] = None) -> None:
    """The console script and `python -m gradcalc`."""
    args = sys.argv[1:] if args is None else args
    if not args and sys.stdin.isatty():
        _start_repl(None, None, default_memory_limit=True)
        return
    _end_quietly_on_a_closed_pipe()
    try:
        _command().main(args, prog_name="gradcalc")
    except KeyboardInterrupt:
        sys.exit(_interrupted())


def _end_quietly_on_a_closed_pipe() -> None:
    import signal

    if hasattr(signal, "SIGPIPE"):
        # gradcalc's programs cannot open pipes or sockets: a closed pipe is only ever stdout's reader
        signal.signal(signal.SIGPIPE, signal.SIG_DFL)


def _start_repl(color: Optional[bool], history_file: Optional[str], default_memory_limit: bool = False) -> None:
    """The REPL, its first prompt shown before anything else is loaded (see repl/early.py)."""
    from .repl.early import show_first_prompt

    early = show_first_prompt()
    try:
        _end_quietly_on_a_closed_pipe()
        if default_memory_limit:
            from .language import limits

            limits.set_memory_limit(limits.default_memory_limit())
        from .repl.app import run_repl

        run_repl(color, history_file, early, loaded=_started)  # the session loads behind the first prompt
    except KeyboardInterrupt:  # Ctrl-C before the editor took over the terminal
        if early is not None:
            early.restore()  # now: _interrupted() ends the process by the signal
        sys.exit(_interrupted())
    finally:
        if early is not None:
            early.restore()


def _interrupted() -> int:
    """As Python ends on Ctrl-C: `KeyboardInterrupt` on stderr, then death by SIGINT, so that a
    shell sees status 130 and stops the loop it runs gradcalc in (a plain exit would not stop it)."""
    try:
        sys.stdout.flush()
    except OSError:
        pass
    sys.stderr.write("KeyboardInterrupt\n")
    sys.stderr.flush()
    import signal

    try:
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGINT)
    except (OSError, ValueError):  # no such signal here, or the sandbox's wall is up for good
        pass
    return INTERRUPTED


def _run(source: str, filename: str, color: Optional[bool], graph: Optional[str]) -> int:
    from .display.console import make_output
    from .language import limits
    from .session import Session, format_error

    try:
        session = Session(make_output(color))
        _started()
        ok = session.run(source, filename)
        status = session.exit_status if session.exit_status is not None else 0 if ok else 1
        if graph is not None:  # drawn whatever the program's end: the graph is what it left
            drawn = _show_graph(session, graph, color)
            status = status or drawn
        # what is left of the program (generators closed at exit, say) runs behind the wall too
        limits.wall_up_for_good()
        sys.stdout.flush()
    except KeyboardInterrupt:
        return _interrupted()
    except Exception as error:  # a failure of gradcalc itself: one clean line, never a traceback
        sys.stdout.flush()
        sys.stderr.write(f"gradcalc: internal error: {format_error(error)}\n")
        return 1
    return status


def _show_graph(session: Any, name: str, color: Optional[bool]) -> int:
    """--graph NAME: the graph behind NAME as the program left it, as `:graph NAME` shows it; a
    usage error if NAME names no tensor."""
    from .display import graph
    from .display.color import use_color
    from .display.console import show

    try:
        drawn = graph.collect(graph.lookup_tensor(session.namespace, session.builtins, name), name,
                              session.namespace)
    except graph.GraphError as error:
        sys.stdout.flush()
        sys.stderr.write(f"gradcalc: --graph: {error}\n")
        return USAGE_ERROR
    colour = use_color(color)
    show(graph.render(drawn), sys.stdout, colour, whole_lines=True)
    return 0


def _started() -> None:
    """Start-up is over: what it made is frozen out of the collector's reach, which comes back on
    for the program."""
    gc.freeze()
    gc.enable()


def _command() -> Any:
    """The click command (built on demand: see the module's docstring)."""
    import click

    @click.command(context_settings={"help_option_names": ["-h", "--help"]})
    @click.argument("file", required=False, type=click.Path(dir_okay=False, allow_dash=True))
    @click.option("-e", "--exec", "code", metavar="CODE", help="Run CODE (statements separated by ';' or newlines).")
    @click.option("--graph", metavar="NAME",
                  help="After the program, draw the autograd graph behind tensor NAME (as the REPL's :graph).")
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

        \b
        Exit status: 0 success, 1 an error in the program, 2 a usage error,
        130 interrupted (Ctrl-C).
        """
        try:
            _dispatch(file, code, graph, color, history_file, max_memory)
        except KeyboardInterrupt:  # click would say "Aborted!" and exit 1
            sys.exit(_interrupted())

    return command


def _dispatch(file: Optional[str], code: Optional[str], graph: Optional[str], color: Optional[bool],
              history_file: Optional[str], max_memory: Optional[str]) -> None:
    """What the command line asks for, in the order its docstring lists."""
    import click

    if code is not None and file is not None:
        raise click.UsageError("give either FILE or -e CODE, not both")
    from .language import limits

    try:
        limits.set_memory_limit(limits.memory_limit_from(max_memory))
    except ValueError:
        raise click.BadParameter(f"'{max_memory}' is not a size such as 2G, 512M or 0",
                                 param_hint="--max-memory") from None
    if code is not None:
        sys.exit(_run(code, "<string>", color, graph))
    if file == "-" or (file is None and not sys.stdin.isatty()):
        sys.exit(_run(sys.stdin.read(), "<stdin>", color, graph))
    if file is not None:
        try:
            with open(file, encoding="utf-8") as handle:
                source = handle.read()
        except OSError as error:
            raise click.UsageError(f"can't open file '{file}': {error.strerror}") from None
        except UnicodeDecodeError:
            raise click.UsageError(f"'{file}' is not UTF-8 text") from None
        sys.exit(_run(source, file, color, graph))
    if graph is not None:
        raise click.UsageError("--graph needs a program to run: a FILE, -e CODE or -")
    _start_repl(color, history_file)
