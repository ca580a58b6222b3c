#!/usr/bin/env python3
"""Which golden programs' answers move with the processor: run each under real PyTorch once per
CPU capability gradcalc emulates (ATen's, MKL's and oneDNN's code paths forced as
autograd/cpu.py says, numpy pinned as gradcalc pins it) and write every answer to a JSON file.

Usage (with a Python that has torch 2.13, on a processor with AVX-512, which can run both):
    python tools/capability_survey.py OUT.json tests/golden examples
then, with gradcalc's Python:
    python tools/capability_survey.py --apply OUT.json
which splits each program whose answers differ by capability (or differ from its expected file)
into one expected file per machine (gradcalc/golden/__init__.py), each naming its machine.

A warm parent imports torch once per capability and forks a child per program, so ~1,300
programs take minutes, not an hour.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

TIMEOUT = 300
REPOSITORY = Path(__file__).resolve().parent.parent


def _child(program: Path, folder: Path) -> None:
    """In a forked child: run PROGRAM as the reference runner does (in an empty FOLDER of its own,
    as the recorder does: the files one run writes are not there for the next), its streams in files."""
    sys.path.insert(0, str(REPOSITORY / "gradcalc" / "golden"))
    import reference

    folder.mkdir()
    os.chdir(folder)
    try:
        reference.run(program.read_text(encoding="utf-8"), program.name)
    except SystemExit as end:
        code = end.code
        if code is not None and not isinstance(code, int):  # as Python ends: the message on stderr
            sys.stdout.flush()
            print(code, file=sys.stderr)
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code if isinstance(code, int) else 0 if code is None else 1)
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)


def _run_all(programs: list[Path]) -> dict:
    """In a parent that has the capability's environment: every program's answer."""
    import signal
    import tempfile

    import numpy  # noqa: F401 - loaded once, before the forks
    import torch

    torch.set_num_threads(1)
    answers = {}
    with tempfile.TemporaryDirectory() as scratch:
        out_path, err_path = Path(scratch, "out"), Path(scratch, "err")
        for number, program in enumerate(programs):
            with open(out_path, "w") as out, open(err_path, "w") as err:
                sys.stdout.flush()
                pid = os.fork()
                if pid == 0:
                    os.dup2(out.fileno(), 1)
                    os.dup2(err.fileno(), 2)
                    sys.stdout = open(1, "w", closefd=False)
                    sys.stderr = open(2, "w", closefd=False)
                    signal.alarm(TIMEOUT)
                    _child(program, Path(scratch, f"run{number}"))
                _, status = os.waitpid(pid, 0)
            rc = os.waitstatus_to_exitcode(status)
            answers[str(program)] = {"stdout": out_path.read_text(errors="replace"),
                                     "stderr": err_path.read_text(errors="replace"), "rc": rc}
    return answers


# the machine the expected files were recorded on before they named it: MKL's AVX-512 sgemm order
# (blocks of four rows fused) is in them, which MKL runs on Intel's processors only
EARLIER = {"aten": "avx512", "sgemm": "avx512",
           "processor": "GenuineIntel, with AVX-512 (recorded before expected files named their machine)"}


def apply(survey_path: Path) -> None:
    """Split the programs whose answers move with the machine, from a survey made on this machine."""
    sys.path.insert(0, str(REPOSITORY))
    from gradcalc.autograd.cpu import machine_record
    from gradcalc.golden import differences, expected_path, read_expected, write_expected

    survey = json.loads(survey_path.read_text())
    split = 0
    for name, here in survey["avx512"].items():
        program = REPOSITORY / name
        if not expected_path(program).is_file():
            continue
        kept, below = read_expected(program), survey["avx2"][name]
        if not differences(kept, here) and not differences(kept, below):
            continue
        write_expected(program, below, machine_record("avx2"))
        write_expected(program, here, machine_record("avx512"))
        if differences(kept, here) and differences(kept, below) and machine_record("avx512")["sgemm"] != "avx512":
            write_expected(program, kept, EARLIER)
        expected_path(program).unlink()
        split += 1
        print(f"{name}: {'same' if not differences(kept, here) else 'other'} here as on AVX-512, "
              f"{'same' if not differences(kept, below) else 'other'} as on AVX2")
    print(f"{split} programs split by machine")


def main(argv: list[str]) -> None:
    if argv[:1] == ["--apply"]:
        apply(Path(argv[1]))
        return
    if len(argv) >= 2 and argv[0] == "--worker":
        programs = [Path(line) for line in sys.stdin.read().splitlines()]
        json.dump(_run_all(programs), sys.stdout)
        return
    out, folders = Path(argv[0]), argv[1:]
    programs = sorted(str(path.resolve()) for folder in folders for path in Path(folder).rglob("*.grad"))
    sys.path.insert(0, str(REPOSITORY))
    from gradcalc.autograd.cpu import CAPABILITIES
    from gradcalc.machine import numpy_pins

    survey = {}
    for name, settings in CAPABILITIES.items():
        env = dict(os.environ, **settings, **numpy_pins(), OMP_NUM_THREADS="1")
        done = subprocess.run([sys.executable, __file__, "--worker", name], input="\n".join(programs), env=env,
                              capture_output=True, text=True, check=True)
        survey[name] = {str(Path(path).relative_to(REPOSITORY)): answer
                        for path, answer in json.loads(done.stdout).items()}
        print(f"{name}: {len(survey[name])} programs", file=sys.stderr)
    out.write_text(json.dumps(survey, indent=0, ensure_ascii=False))


if __name__ == "__main__":
    main(sys.argv[1:])
