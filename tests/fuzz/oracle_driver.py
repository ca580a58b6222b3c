#!/usr/bin/env python3
"""Run many programs under real PyTorch in one process, each as gradcalc/golden/reference.py would.

Usage (with a Python that has torch 2.13):  python oracle_driver.py IN.json OUT.json
IN.json is a list of program texts; OUT.json gets one {"stdout", "stderr", "rc"} per program.
torch is imported once; each program then runs in a child forked from that process, so it
starts from a fresh interpreter state (print options, default dtype, grad mode, the RNG and
PyTorch's warn-once flags) without paying torch's import again, in an empty folder of its own.
"""
import json
import os
import shutil
import signal
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "gradcalc" / "golden"))
import reference  # noqa: E402  (imports torch)
import torch  # noqa: E402,F401

TIMEOUT = 20


def main() -> None:
    sources = json.loads(Path(sys.argv[1]).read_text(encoding="utf-8"))
    results = []
    with tempfile.TemporaryDirectory() as workdir:
        out_path, err_path = os.path.join(workdir, "out"), os.path.join(workdir, "err")
        for source in sources:
            folder = tempfile.mkdtemp(dir=workdir)  # the files it writes start from nothing, as in gradcalc
            pid = os.fork()
            if pid == 0:
                code = 0
                try:
                    os.chdir(folder)
                    start_child(out_path, err_path)
                    try:
                        # called from this frame: the program stands as deep in the stack as under the
                        # shared oracle runner (its module, main() and run()), where a runaway
                        # recursion meets its limit
                        reference.run(source, "fuzz.grad")
                    except SystemExit as done:
                        code = exit_status(done)
                    sys.stdout.flush()
                    sys.stderr.flush()
                finally:
                    os._exit(code)
            _, status = os.waitpid(pid, 0)
            shutil.rmtree(folder, ignore_errors=True)
            with open(out_path) as out, open(err_path) as err:
                results.append({"stdout": out.read(), "stderr": err.read(),
                                "rc": os.waitstatus_to_exitcode(status)})
    Path(sys.argv[2]).write_text(json.dumps(results), encoding="utf-8")


def start_child(out_path: str, err_path: str) -> None:
    """A program's child: its output to the two files, its time limited, its own argv."""
    with open(out_path, "w") as out, open(err_path, "w") as err:
        os.dup2(out.fileno(), 1)
        os.dup2(err.fileno(), 2)
    signal.alarm(TIMEOUT)
    sys.argv = ["main.py"]  # the program's own argv, as gradcalc gives it (not this driver's)


def exit_status(done: SystemExit) -> int:
    """As Python ends on sys.exit(): a status (the low byte of a C long, 255 for an int no long
    holds), or a message and status 1."""
    if done.code is None:
        return 0
    if isinstance(done.code, int):
        return done.code & 0xFF if -2 ** 63 <= done.code < 2 ** 63 else 0xFF
    sys.stderr.write(f"{done.code}\n")
    return 1


if __name__ == "__main__":
    main()
