#!/usr/bin/env python3
"""Run many programs under real PyTorch in one process, each as gradcalc/golden/reference.py would.

Usage (with a Python that has torch 2.13):  python oracle_driver.py IN.json OUT.json
IN.json is a list of program texts; OUT.json gets one {"stdout", "stderr", "rc"} per program.
torch is imported once; each program then runs in a child forked from that process, so it
starts from a fresh interpreter state (print options, default dtype, grad mode, the RNG and
PyTorch's warn-once flags) without paying torch's import again.
"""
import json
import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "gradcalc" / "golden"))
import reference  # noqa: E402  (imports torch)
import torch  # noqa: E402,F401

TIMEOUT = 20


def run_one(source: str, workdir: str) -> dict:
    out_path, err_path = os.path.join(workdir, "out"), os.path.join(workdir, "err")
    pid = os.fork()
    if pid == 0:
        code = 0
        try:
            with open(out_path, "w") as out, open(err_path, "w") as err:
                os.dup2(out.fileno(), 1)
                os.dup2(err.fileno(), 2)
                signal_alarm(TIMEOUT)
                sys.argv = ["main.py"]  # the program's own argv, as gradcalc gives it (not this driver's)
                try:
                    reference.run(source, "fuzz.grad")
                except SystemExit as done:  # as Python ends on it: a status, or a message and status 1
                    if done.code is None or isinstance(done.code, int):
                        code = done.code or 0
                    else:
                        sys.stderr.write(f"{done.code}\n")
                        code = 1
                sys.stdout.flush()
                sys.stderr.flush()
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    rc = os.waitstatus_to_exitcode(status)
    with open(out_path) as out, open(err_path) as err:
        return {"stdout": out.read(), "stderr": err.read(), "rc": rc}


def signal_alarm(seconds: int) -> None:
    import signal
    signal.alarm(seconds)


def main() -> None:
    sources = json.loads(Path(sys.argv[1]).read_text(encoding="utf-8"))
    with tempfile.TemporaryDirectory() as workdir:
        results = [run_one(source, workdir) for source in sources]
    Path(sys.argv[2]).write_text(json.dumps(results), encoding="utf-8")


if __name__ == "__main__":
    main()
