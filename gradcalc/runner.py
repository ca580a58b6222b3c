"""A program or the REPL run as a Unix tool runs: exit status 0 on success, 1 for an error in the
program, 2 for a usage error; Ctrl-C prints `KeyboardInterrupt` and ends the process by SIGINT
(status 130 in the shell, and a shell loop stops); a reader that goes away (`gradcalc ... | head`)
ends it quietly by SIGPIPE. Shared by the fast paths of cli.py and click's command (command.py).
"""
from __future__ import annotations

import gc
import os
import sys

from . import jail

# typing and signal cost as much as the rest of what the REPL's first prompt needs: imported when used
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Optional

USAGE_ERROR = 2
INTERRUPTED = 130
_graph_format = "text"  # how --graph draws: text, dot or svg (--format)
_ending = False  # whether the process is ending by a Ctrl-C (interrupted())


def set_graph_format(context: Any, parameter: Any, form: str) -> None:
    """`--format` (click's callback): text (as :graph), dot or svg (display/picture.py)."""
    global _graph_format
    _graph_format = form


def end_quietly_on_a_closed_pipe() -> None:
    # signal's functions are _signal's wrapped to give enums, whose making costs `gradcalc -e` 1% of
    # its start: the bare ones do here
    import _signal

    if hasattr(_signal, "SIGPIPE"):
        # gradcalc's programs cannot open pipes or sockets: a closed pipe is only ever stdout's reader
        _signal.signal(_signal.SIGPIPE, _signal.SIG_DFL)


def start_repl(color: Optional[bool], history_file: Optional[str], max_memory: Optional[int] = None) -> None:
    """The REPL, its first prompt shown before anything else is loaded (see repl/early.py);
    `max_memory` is its worker's ceiling (None: the default), not the REPL's own."""
    from .repl.early import show_first_prompt

    early = show_first_prompt()
    try:
        end_quietly_on_a_closed_pipe()
        from .display.color import use_color
        from .worker.client import Worker

        # launched before the editor loads, which takes as long: the worker loads numpy and gradcalc
        # on another processor meanwhile; the program's output goes straight to this process's fds
        worker = Worker(color=use_color(color), hints=True, max_memory=max_memory)
        worker.launch()
        from .repl.app import run_repl

        status = run_repl(color, history_file, early, loaded=end_of_start_up, worker=worker)
    except KeyboardInterrupt:  # Ctrl-C before the editor took over the terminal
        if early is not None:
            early.restore()  # now: interrupted() ends the process by the signal
        sys.exit(interrupted())
    finally:
        if early is not None:
            early.restore()
    if status:  # sys.exit(3) in the REPL leaves with 3, as in Python's
        sys.exit(status)


def interrupted() -> int:
    """As Python ends on Ctrl-C: `KeyboardInterrupt` on stderr, then death by SIGINT, so that a
    shell sees status 130 and stops the loop it runs gradcalc in (a plain exit would not stop it)."""
    global _ending
    _ending = True
    try:
        sys.stdout.flush()
    except OSError:
        pass
    sys.stderr.write("KeyboardInterrupt\n")
    sys.stderr.flush()
    import signal

    # a Ctrl-C pressed again just before the handler goes back to the default one is reported by
    # CPython as an error ("Signal 2 ignored due to race condition"): the process is ending by one
    hook, sys.unraisablehook = sys.unraisablehook, lambda unraisable: None
    try:
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGINT)
    except (OSError, ValueError):  # no such signal here, or the sandbox's wall is up for good
        pass
    finally:
        sys.unraisablehook = hook
    return INTERRUPTED


def _ctrl_c(number: int, frame: Any) -> None:
    """SIGINT's handler while a program runs: KeyboardInterrupt, as Python's, but not once the
    process is ending by one, nor in this module's own lines, which call interrupted() (a Ctrl-C
    pressed again while the first is reported would escape as a traceback)."""
    if not _ending and (frame is None or frame.f_globals is not globals()):
        raise KeyboardInterrupt


def run(source: str, filename: str, color: Optional[bool], graph: Optional[str] = None) -> int:
    """Run a whole program, then draw the graph behind tensor `graph` if asked; the exit status."""
    import _signal

    from .language import limits

    _signal.signal(_signal.SIGINT, _ctrl_c)
    session = None
    try:
        from .display.console import make_output
        from .language.parser import preload
        from .session import Session, format_error

        session = Session(make_output(color))
        preload()  # the grammar's parser, unpickled if the program needs it (the jail keeps its cache out)
        end_of_start_up()
        # the OS's wall, for the rest of this process: the program runs in it (no second process, for start-up's sake)
        jail.apply()
        ok = session.run(source, filename)
        status = session.exit_status if session.exit_status is not None else 0 if ok else 1
        if graph is not None:  # drawn whatever the program's end: the graph is what it left
            drawn = _show_graph(session, graph, color)
            status = status or drawn
        # what is left of the program (generators closed at exit, say) runs behind the wall too
        limits.wall_up_for_good()
        sys.stdout.flush()
    except KeyboardInterrupt:
        return interrupted()
    except Exception as error:  # a failure of gradcalc itself: one clean line, never a traceback
        sys.stdout.flush()
        if session is None and limits.starved(error):  # its own loading, under too low a ceiling
            sys.stderr.write(f"gradcalc: {limits.TOO_LOW_TO_LOAD}\n")
        else:
            sys.stderr.write(f"gradcalc: internal error: {type(error).__name__}: {error}\n"
                             if session is None else f"gradcalc: internal error: {format_error(error)}\n")
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
    if _graph_format != "text":
        from .display import picture

        sys.stdout.write(picture.to_dot(drawn) if _graph_format == "dot" else picture.to_svg(drawn))
        return 0
    colour = use_color(color)
    show(graph.render(drawn), sys.stdout, colour, whole_lines=True)
    return 0


def end_of_start_up() -> None:
    """Start-up is over: what it made is frozen out of the collector's reach, which comes back on
    for the program."""
    gc.freeze()
    gc.enable()
