"""Programs run in a worker process apart from the front end, as a Jupyter kernel runs apart from
its notebook: the REPL's editor, the pytest plugin (and a web page, a notebook kernel) never run
program code; a worker does, jailed (gradcalc.jail) before it reads its first request.

The protocol (protocol.py): on two pipes the front end hands over (their descriptor numbers are
the worker's arguments), each message is a 4-byte big-endian length and that many bytes of UTF-8
JSON. The worker first says `{"ready": true, "sandbox": "landlock 7, seccomp, rlimits"}`, then
answers each request in turn:

    {"op": "run", "source": S, "capture": bool, "cell": bool}
        -> {"status": "ok" | "error" | "exit" | "interrupted", "exit_code": int | null,
            "statements_done": int, "stdout": str, "stderr": str, "result": str | null,
            "error": str | null}  (the two texts when captured; else the program wrote on the
            worker's fds 1 and 2, which the front end chose; "cell": run as IPython runs a
            notebook cell: the last expression's value is not printed but in "result", as IPython
            shows it, and the error that ended the cell is in "error", not in stderr)
        with "stream": true (and "capture"), the reply comes after {"stream": "stdout" | "stderr",
        "text": str} messages that carry the two texts while the program runs (every 0.1 s), and
        its own "stdout" and "stderr" are empty: gradcalc.notebook.cell.Streamer
    {"op": "complete", "text": S}             -> {"candidates": [str, ...]}  (S: the text before the cursor)
    {"op": "inspect", "what": "vars", "width": int}
    {"op": "inspect", "what": "graph", "name": S, "width": int}
                                              -> {"text": str} or {"error": str}  (:vars and :graph, drawn)
    {"op": "inspect", "what": "vars", "rows": true}
                                              -> {"tensors": [[str, ...], ...], "modules": [...]}  (the
                                                 rows of :vars, in display.variables' column order)
    {"op": "inspect", "what": "graph", "name": S, "format": "svg"}
                                              -> {"svg": str} or {"error": str}  (%graph: the picture of
                                                 display/picture.py, where this installation has it)
    {"op": "inspect", "what": "describe", "name": S}
                                              -> {"name": torch name, "type": str, "repr": str} or
                                                 {"error": str}  (Shift-Tab: gradcalc.notebook.introspect)
    {"op": "inspect", "what": "names"}        -> {"names": [str, ...]}  (the session's own names)
    {"op": "reset"}                           -> {"ok": true}  (no variables, default settings)

Any request may instead be answered {"error": str}: an unknown request, or a fault of gradcalc's
own, in one line. The front end reads no message longer than protocol.MAX_MESSAGE, and stops a
worker that breaks the protocol: an escaped program could write on the reply pipe.

Interrupting is SIGINT to the worker, which ends the running program with KeyboardInterrupt
(status "interrupted"); idle, it ignores it. A worker that dies is the front end's to replace
(client.Worker.restart).
"""
