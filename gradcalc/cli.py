"""The `gradcalc` command: `gradcalc` (REPL), `gradcalc FILE.grad`, `gradcalc -e CODE`, `gradcalc -`.

Its options, help and usage errors are click's (command.py). `gradcalc -e CODE`, the calculator's
everyday use, runs without importing click, whose import alone costs a tenth of numpy's: click
makes nothing else of those two arguments (`-e --help` runs `--help` as code).
"""
from __future__ import annotations

import gc
import os
import sys
from typing import Optional

# click's shell completion, asked for through the environment, needs click's command
_COMPLETION = "_GRADCALC_COMPLETE"


def main() -> None:
    """The entry point of the `gradcalc` command."""
    # Start-up (numpy, the op registry, the session's modules, click) makes hundreds of thousands of
    # objects that live as long as the process: collections meanwhile would only walk them again
    # and again. The collector stays off until the session is ready (end_of_start_up).
    gc.disable()
    arguments = sys.argv[1:]
    if len(arguments) == 2 and arguments[0] in ("-e", "--exec") and _COMPLETION not in os.environ:
        from .language import limits

        try:
            limits.set_memory_limit(limits.memory_limit_from(None))
            status = run(arguments[1], "<string>", None)
        except KeyboardInterrupt:  # before the program started: as click says it
            sys.stderr.write("\nAborted!\n")
            status = 1
        sys.exit(status)
    from .command import command

    command()


def run(source: str, filename: str, color: Optional[bool]) -> int:
    """Run a whole program; the exit status."""
    from .display.console import make_output
    from .language import limits
    from .session import Session, format_error

    try:
        session = Session(make_output(color))
        end_of_start_up()
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


def end_of_start_up() -> None:
    """Start-up is over: what it made is frozen out of the collector's reach, which comes back on
    for the program."""
    gc.freeze()
    gc.enable()


def _quiet_pipe() -> None:
    """A reader that went away (`gradcalc ... | head`): end without a word, as Unix tools do."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
