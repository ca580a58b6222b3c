#!/usr/bin/env python3
"""Record the expected output of golden programs from real PyTorch.

Usage:  /path/to/python-with-torch tests/golden/record.py [PATH ...]
Each PATH is a .grad file or a folder (default: this folder). For every NAME.grad it runs
reference.py in a fresh process, in the program's folder, and writes NAME.expected.json =
{"stdout", "stderr", "rc"}. Never write an expected file by hand.
"""
import json
import pathlib
import subprocess
import sys

HERE = pathlib.Path(__file__).resolve().parent
REFERENCE = HERE / "reference.py"


def record(program: pathlib.Path) -> dict:
    done = subprocess.run([sys.executable, str(REFERENCE), program.name], cwd=program.parent,
                          capture_output=True, text=True, timeout=300)
    return {"stdout": done.stdout, "stderr": done.stderr, "rc": done.returncode}


def main(paths):
    for path in map(pathlib.Path, paths or [HERE]):
        for program in [path] if path.is_file() else sorted(path.rglob("*.grad")):
            answer = record(program)
            target = program.with_suffix(".expected.json")
            target.write_text(json.dumps(answer, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
            print(f"{program}: rc={answer['rc']}")


if __name__ == "__main__":
    main(sys.argv[1:])
