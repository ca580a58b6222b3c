"""The REPL's meta-commands: its own views and actions, outside the program and its sandbox.

The views (`:vars`, `:graph`) are drawn by the worker, where the program's objects are (through
display/inspection.py); `:save` writes here, in the front end, what the session ran.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Protocol

if TYPE_CHECKING:  # loaded after the first prompt (see app.Loader)
    from ..session import TextOutput
    from ..worker.client import Worker
    from .transcript import InputLog

HELP = """\
gradcalc runs PyTorch snippets and prints what PyTorch 2.13 prints. torch, nn, F, tensor, ones,
zeros, no_grad, ... are already in scope; the language is Python's. For example:
    x = tensor(3.0, requires_grad=True); y = x**2 + 3*x; y.backward(); x.grad

Commands
  :vars           the session's tensors (requires_grad, is_leaf, grad_fn, .grad, ...) and modules
  :graph NAME     the autograd graph behind tensor NAME: its nodes, what they saved, the leaves
  :save FILE      write what this session ran as a script (gradcalc FILE runs it again)
  :reset          start afresh: no variables, default settings
  :help           this text

Keys
  Enter           runs the input; a block (for, if, def, class, ...) ends with an empty line
  Esc Enter       runs the input as it stands
  Tab             completes names, attributes and commands
  Right arrow     takes the grey suggestion from the history
  Up/Down, Ctrl-R search the history
  Ctrl-C          drops the input, or stops a running program
  Ctrl-D, exit    leaves

Pasted examples with >>> and ... prompts run without them; their output lines are left out.
"""


class Context(Protocol):
    """What the commands need of the REPL."""

    output: TextOutput
    color: bool
    inputs: InputLog

    @property
    def worker(self) -> Worker: ...

    def width(self) -> int: ...

    def reset(self) -> None: ...


def run_command(context: Context, line: str) -> None:
    """Run `:name argument`; an unknown command or a wrong argument gets one line on stderr."""
    name, _, argument = line.strip().partition(" ")
    command = COMMANDS.get(name)
    if command is None:
        context.output.error(f"unknown command {name}: :help lists the commands")
        return
    command(context, argument.strip())


def _help(context: Context, argument: str) -> None:
    context.output.write(HELP)


def _vars(context: Context, argument: str) -> None:
    drawn = context.worker.inspect("vars", width=context.width())
    if "error" in drawn:
        context.output.error(drawn["error"])
        return
    # drawn already (coloured as the REPL is): onto the stream as it is
    context.output.stdout.write(drawn["text"])


def _graph(context: Context, argument: str) -> None:
    if not argument:
        context.output.error(":graph needs the name of a tensor, as in :graph y")
        return
    drawn = context.worker.inspect("graph", name=argument, width=context.width())
    if "error" in drawn:
        context.output.error(f":graph: {drawn['error']}")
        return
    context.output.stdout.write(drawn["text"])


def _reset(context: Context, argument: str) -> None:
    context.reset()
    context.output.write("A fresh session: every variable is gone.\n")


def _save(context: Context, argument: str) -> None:
    if not argument:
        context.output.error(":save needs a file name, as in :save lesson.grad")
        return
    try:
        with open(argument, "w", encoding="utf-8") as handle:
            handle.write(context.inputs.script())
    except OSError as error:
        context.output.error(f":save: can't write '{argument}': {error.strerror}")
        return
    context.output.write(f"Saved to {argument}; `gradcalc {argument}` runs it again.\n")


COMMANDS: dict[str, Callable[[Any, str], None]] = {
    ":help": _help, ":vars": _vars, ":graph": _graph, ":reset": _reset, ":save": _save,
}
