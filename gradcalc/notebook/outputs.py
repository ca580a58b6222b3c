"""A worker's reply to a cell as the outputs a notebook stores (nbformat's output dicts), shared by
the kernel, which publishes them, and the notebook check, which compares them with a notebook's."""
from __future__ import annotations

import re
from typing import Optional

_ERROR_LINE = re.compile(r"^([A-Za-z_][\w.]*)(?::\s?(.*))?$", re.DOTALL)


def split_error(text: str) -> tuple[str, str]:
    """("RuntimeError", "message") from gradcalc's error line, as IPython's ename and evalue (the
    class's own name, without its module)."""
    first, _, rest = text.partition("\n")
    match = _ERROR_LINE.match(first)
    if match is None:
        return "Error", text
    value = match.group(2) or ""
    return match.group(1).rpartition(".")[2], value + ("\n" + rest if rest else "")


def error_output(ename: str, evalue: str, text: Optional[str] = None) -> dict:
    """An error output; its traceback is the one-line error, as the terminal shows it."""
    return {"output_type": "error", "ename": ename, "evalue": evalue,
            "traceback": [text or (f"{ename}: {evalue}" if evalue else ename)]}


def cell_outputs(reply: dict, execution_count: Optional[int]) -> list[dict]:
    """The outputs of a cell run by the worker (Worker.run(..., cell=True)), in IPython's order:
    the streams, the result, then the error that ended the cell."""
    outputs: list[dict] = []
    # a reply of {"error": ...} alone is the worker's own fault, said in one line
    status = reply.get("status", "error" if "error" in reply else None)
    stderr = str(reply.get("stderr") or "")
    if status == "interrupted":  # said as the error below
        stderr = stderr.removesuffix("KeyboardInterrupt\n")
    for name, text in (("stdout", str(reply.get("stdout") or "")), ("stderr", stderr)):
        if text:
            outputs.append({"output_type": "stream", "name": name, "text": text})
    if reply.get("result") is not None:
        outputs.append({"output_type": "execute_result", "execution_count": execution_count,
                        "data": {"text/plain": reply["result"]}, "metadata": {}})
    if status == "interrupted":
        outputs.append(error_output("KeyboardInterrupt", ""))
    elif status == "exit":
        outputs.append(error_output("SystemExit", str(reply.get("exit_code"))))
    elif status == "error":
        text = str(reply.get("error") or "Error")
        outputs.append(error_output(*split_error(text), text=text))
    return outputs
