"""The `gradcalc` command: `gradcalc` (REPL), `gradcalc FILE.grad`, `gradcalc -e CODE`, `gradcalc -`.

Its options, help and usage errors are click's (command.py), whose import alone costs a tenth of
numpy's. The two everyday uses go without it: the REPL, whose first prompt waits for nothing, and
`gradcalc -e CODE`, the calculator, of whose two arguments click would make nothing else
(`-e --help` runs `--help` as code).
"""
from __future__ import annotations

import gc
import os
import sys

# (numpy's and OpenBLAS's settings are made when the package loads: gradcalc/machine.py)
from .runner import end_quietly_on_a_closed_pipe, interrupted, run, start_repl

TYPE_CHECKING = False  # typing costs as much as the rest of what the REPL's first prompt needs
if TYPE_CHECKING:
    from typing import Optional

# click's shell completion, asked for through the environment, needs click's command
_COMPLETION = "_GRADCALC_COMPLETE"


def main(args: Optional[list] = None) -> None:
    """The console script and `python -m gradcalc`."""
    # Start-up (numpy, the op registry, the session's modules, click) makes hundreds of thousands of
    # objects that live as long as the process: collections meanwhile would only walk them again
    # and again. The collector stays off until the session is ready (runner.end_of_start_up).
    gc.disable()
    args = sys.argv[1:] if args is None else args
    if _COMPLETION not in os.environ:
        if not args and sys.stdin.isatty():
            start_repl(None, None)
            return
        if len(args) == 2 and args[0] in ("-e", "--exec"):
            sys.exit(_run_code(args[1]))
    end_quietly_on_a_closed_pipe()
    if args[:1] in (["kernel"], ["nbcheck"]):  # notebooks: their own commands (notebook/command.py)
        from .notebook import command as notebook_command

        getattr(notebook_command, args[0]).main(args[1:], prog_name=f"gradcalc {args[0]}")
        return
    if args[:1] == ["serve"]:  # the classroom page: its own options (serve/command.py)
        from .serve.command import serve

        serve.main(args[1:], prog_name="gradcalc serve")
        return
    try:
        from .command import command

        command.main(args, prog_name="gradcalc")
    except KeyboardInterrupt:
        sys.exit(interrupted())


def _run_code(code: str) -> int:
    """`gradcalc -e CODE`, as click's command runs it with no other option."""
    try:
        end_quietly_on_a_closed_pipe()
        from .language import limits

        limits.set_memory_limit(limits.default_memory_limit())
    except KeyboardInterrupt:
        return interrupted()
    return run(code, "<string>", None)
