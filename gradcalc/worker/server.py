"""The worker: `python -m gradcalc.worker IN_FD OUT_FD [--color] [--hints] [--max-memory BYTES]
[--cpu SECONDS]`, started by client.Worker from an empty environment. It loads gradcalc and
everything a program needs, jails itself (gradcalc.jail), says it is ready, then answers the
front end's requests (see __init__.py) until the request pipe closes."""
from __future__ import annotations

import gc

import io
import os
import sys
from typing import Any, Callable, Optional

from .. import jail
from ..display.console import make_output, show
from ..language import limits
from ..language.parser import preload
from ..output import TextOutput
from ..runner import end_of_start_up, end_quietly_on_a_closed_pipe
from ..session import Session, format_error, reset_global_state
from .protocol import ChannelClosed, Receiver, send


class _Interruptible:
    """SIGINT ends the running program with KeyboardInterrupt; between requests it is ignored,
    so that an interrupt that comes late never cuts a reply in two."""

    def __init__(self) -> None:
        self.running = False
        import signal

        signal.signal(signal.SIGINT, self._on_interrupt)

    def _on_interrupt(self, number: int, frame: Any) -> None:
        if self.running:
            raise KeyboardInterrupt


class Kernel:
    """One session and the requests that reach it."""

    def __init__(self, color: bool, hints: bool) -> None:
        self.color = color
        self.hints = hints
        self.output = make_output(color)
        self.session = self._new_session()
        self.interrupts = _Interruptible()
        self.send: Optional[Callable[[dict], None]] = None  # to the front end, for messages before a reply

    def _new_session(self) -> Session:
        session = Session(self.output)
        if self.hints:
            from ..repl.hints import describe

            session.describe_error = lambda error: describe(session, error)
        return session

    def handle(self, request: dict) -> dict:
        """The reply to one request; a fault of gradcalc's own is one line in it, and the worker goes on."""
        try:
            return self._handle(request)
        except Exception as error:
            return {"error": f"gradcalc: internal error: {format_error(error)}"}

    def _handle(self, request: dict) -> dict:
        op = request.get("op")
        if op == "run":
            return self.run(str(request.get("source", "")), bool(request.get("capture")), bool(request.get("cell")),
                            bool(request.get("stream")))
        if op == "complete":
            from ..display.completion import complete

            return {"candidates": complete(self.session, str(request.get("text", "")))}
        if op == "inspect":
            return self.inspect(request)
        if op == "reset":
            with limits.wall_up():  # the old session's objects end here: their finalisers are the program's
                self.session = None
                gc.collect()
            reset_global_state()
            self.session = self._new_session()
            return {"ok": True}
        return {"error": f"unknown request {op!r}"}

    def run(self, source: str, capture: bool, cell: bool = False, stream: bool = False) -> dict:
        session = self.session
        cell_run = None
        streamer = None
        captured = TextOutput(io.StringIO(), io.StringIO()) if capture else None
        if capture and stream and self.send is not None:  # a notebook's streams, sent as they come
            from ..notebook.cell import Streamer

            streamer = Streamer(self.send)
            captured = streamer.output()
        session.output = captured or self.output
        session.exit_status = None
        status = "ok"
        try:
            self.interrupts.running = True
            try:
                if cell:  # a notebook's cell: only its last expression shows, as its result
                    from ..notebook.cell import run_cell

                    cell_run = run_cell(session, source)
                    ok = cell_run.ok
                else:
                    ok = session.run(source, "<stdin>")
            finally:
                self.interrupts.running = False
            if session.exit_status is not None:
                status = "exit"
            elif not ok:
                status = "error"
        except KeyboardInterrupt:
            session.output.error("KeyboardInterrupt")
            status = "interrupted"
        except Exception as error:  # a fault of gradcalc's own: one line, and the session goes on
            session.output.error(format_error(error))
            status = "error"
        finally:
            session.output = self.output
            _flush()
            if streamer is not None:
                streamer.finish()
        reply = {"status": status, "exit_code": session.exit_status, "statements_done": session.statements_done}
        if cell_run is not None:
            reply.update(result=cell_run.result, error=cell_run.error)
        if captured is not None:
            reply.update(stdout=captured.stdout.getvalue(), stderr=captured.stderr.getvalue())
        return reply

    def inspect(self, request: dict) -> dict:
        from ..display import graph, variables

        what = request.get("what")
        width = int(request.get("width") or 80)
        session = self.session
        if what == "names":
            return {"names": [name for name in session.namespace if isinstance(name, str)]}
        if what == "vars" and request.get("rows"):  # the rows as text, for a front end that draws them
            found = variables.collect(session.namespace)
            return {"tensors": [list(row) for row in found.tensors], "modules": [list(row) for row in found.modules]}
        if what == "vars":
            drawn = variables.render(variables.collect(session.namespace), width)
            return {"text": _drawn(drawn, self.color, width, whole_lines=False)}
        if what == "graph" and request.get("format") == "svg":  # a notebook's %graph
            from ..notebook.introspect import graph_svg

            return graph_svg(session, str(request.get("name", "")))
        if what == "graph":
            name = str(request.get("name", ""))
            try:
                found = graph.collect(graph.lookup_tensor(session.namespace, session.builtins, name), name,
                                      session.namespace)
            except graph.GraphError as error:
                return {"error": str(error)}
            return {"text": _drawn(graph.render(found), self.color, width, whole_lines=True)}
        if what == "describe":  # a notebook's Shift-Tab
            from ..notebook.introspect import describe

            return describe(session, str(request.get("name", "")))
        return {"error": f"nothing to inspect named {what!r}"}


def _drawn(renderable: Any, color: bool, width: int, whole_lines: bool) -> str:
    text = io.StringIO()
    show(renderable, text, color, width, whole_lines=whole_lines)
    return text.getvalue()


def _flush() -> None:
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass


def _end_with_the_front_end(requests: int) -> None:
    """A front end that goes away (killed, its terminal closed) closes the request pipe: the
    worker then ends at once, even in the middle of a program that would never end. Started
    after the jail, whose Landlock domain holds only the threads made after it."""
    import select
    import threading

    def watch() -> None:
        hangup = select.poll()
        hangup.register(requests, 0)  # no events asked: poll says only POLLHUP and POLLERR
        while not hangup.poll():
            pass
        os._exit(0)

    threading.Thread(target=watch, name="gradcalc-front-end-watch", daemon=True).start()


def _option(args: list, name: str) -> Optional[str]:
    return args[args.index(name) + 1] if name in args else None


def main(args: Optional[list] = None) -> None:
    """The worker's life; a failure to start is one line on its stderr, never a traceback."""
    try:
        _serve(sys.argv[1:] if args is None else args)
    except Exception as error:
        why = limits.TOO_LOW_TO_LOAD if limits.starved(error) else format_error(error)
        sys.stderr.write(f"gradcalc: the worker could not go on: {why}\n")
        sys.exit(1)


def _serve(args: list) -> None:
    requests, replies = int(args[0]), int(args[1])
    end_quietly_on_a_closed_pipe()
    limits.set_memory_limit(int(_option(args, "--max-memory") or 0))
    kernel = Kernel("--color" in args, "--hints" in args)
    preload()  # the grammar's parser, unpickled when an input first needs it (the jail keeps its cache out)
    # what the REPL's views and hints load on first use, loaded while the front end's editor starts
    from ..display import completion, graph, variables  # noqa: F401
    from ..repl import hints  # noqa: F401

    end_of_start_up()
    cpu = _option(args, "--cpu")
    sandbox = jail.apply(cpu_seconds=int(cpu) if cpu else None)
    _end_with_the_front_end(requests)
    kernel.send = lambda message: send(replies, message)
    send(replies, {"ready": True, "sandbox": sandbox})
    receiver = Receiver(requests)
    while True:
        try:
            request = receiver.receive()
        except ChannelClosed:
            # what is left of the programs (generators closed as the worker ends) runs behind the wall too
            limits.wall_up_for_good()
            return
        send(replies, kernel.handle(request))
