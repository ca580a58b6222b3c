"""The REPL's meta-commands: its own views and actions, outside the program and its sandbox.

They read the program's objects only through display/inspection.py, and write (`:save`)
between inputs, when no program code runs.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Protocol

if TYPE_CHECKING:  # the session's modules load after the first prompt (see app.Loader)
    from ..session import Session, TextOutput
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
    def session(self) -> Session: ...

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
    from ..display import variables
    from ..display.console import show

    found = variables.collect(context.session.namespace)
    show(variables.render(found, context.width()), context.output.stdout, context.color, context.width())


def _graph(context: Context, argument: str) -> None:
    from ..display import graph
    from ..display.console import show

    if not argument:
        context.output.error(":graph needs the name of a tensor, as in :graph y")
        return
    session = context.session
    try:
        drawn = graph.collect(graph.lookup_tensor(session.namespace, session.builtins, argument), argument,
                              session.namespace)
    except graph.GraphError as error:
        context.output.error(f":graph: {error}")
        return
    show(graph.render(drawn), context.output.stdout, context.color, context.width(), whole_lines=True)


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
