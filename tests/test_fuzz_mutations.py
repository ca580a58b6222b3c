"""The mutation fuzzer's brief run in CI: mutants of the golden programs, with PyTorch's answers
recorded by `python tests/fuzz/mutate.py --torch PYTHON --seed 26 --count 40 --record
tests/fuzz/recorded_mutants.json`, must get PyTorch's answers from gradcalc too (run it at length
by hand: see tests/fuzz/mutate.py)."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

FUZZ = Path(__file__).resolve().parent / "fuzz"
sys.path.insert(0, str(FUZZ))
from mutate import classify  # noqa: E402
from compare import run_gradcalc  # noqa: E402

RECORDED = json.loads((FUZZ / "recorded_mutants.json").read_text(encoding="utf-8"))
# and findings of the long runs whose PyTorch answer shows what only the classifier's normal form
# can compare (PyTorch's own frames in a report of an ignored exception): each mutant and PyTorch's
# answer as its run recorded them (`seed`, `index`: the run's `mutants(seed, index + 1)[index]`)
FOUND = json.loads((FUZZ / "found_mutants.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("case", RECORDED + FOUND, ids=[f"recorded{i}" for i in range(len(RECORDED))]
                         + [f"found{case['seed']}_{case['index']}" for case in FOUND])
def test_recorded_mutant_gets_pytorchs_answer(case: dict) -> None:
    got = run_gradcalc(case["source"])
    assert classify(case["torch"], got) is None, (case["source"], case["torch"], got)


def test_mutants_are_the_same_for_the_same_seed() -> None:
    from mutate import mutants

    assert mutants(3, 5) == mutants(3, 5)
    assert mutants(3, 5) != mutants(4, 5)


def _answer(stderr: str, stdout: str = "", rc: int = 1) -> dict:
    return {"stdout": stdout, "stderr": stderr, "rc": rc}


def test_a_message_of_several_lines_is_judged_whole() -> None:
    torch_says = _answer("TypeError: f() received an invalid combination of arguments - got (int), but expected one of:\n"
                         " * (Tensor input)\n")
    other_first_line = _answer("TypeError: f() got an unexpected keyword argument 'x'\n * (Tensor input)\n")
    assert classify(torch_says, other_first_line) == "wording"
    assert classify(torch_says, _answer("TypeError: f() takes 1 positional argument but 2 were given\n")) == "wording"
    assert classify(torch_says, _answer("RuntimeError: nope\n * (Tensor input)\n")) == "mismatch"


def test_an_identical_error_is_no_wording_and_pythons_errors_are_internal() -> None:
    error = "RuntimeError: shapes differ\n"
    assert classify(_answer(error, "1\n"), _answer(error, "2\n")) == "mismatch"
    assert classify(_answer(error), _answer(error)) is None
    assert classify(_answer(error), _answer("IndexError: index 3 is out of bounds for axis 0 with size 2\n")) \
        == "internal"
    assert classify(_answer("", "tensor(1.)\n", 0), _answer("ValueError: x\n * y\n")) == "internal"
    assert classify(_answer("ValueError: a\n"), _answer("UserWarning: w\nValueError: b\n")) == "wording"


def test_runs_out_of_resources_and_pytorchs_time_outs_are_counted_apart() -> None:
    assert classify(_answer("", "", -14), _answer("MemoryError\n")) == "unanswered"
    assert classify(_answer("TypeError: x\n"), _answer("MemoryError\n")) == "resources"
    assert classify(_answer("", "1\n", 0), _answer("TimeoutError: gradcalc took too long\n")) == "resources"
    out_of_memory = ("RuntimeError: [enforce fail at alloc_cpu.cpp:127] err == 0. DefaultCPUAllocator: can't allocate "
                     "memory: you tried to allocate 8589934592 bytes. Error code 12 (Cannot allocate memory)\n")
    assert classify(_answer("RuntimeError: approximate argument must be either none or tanh.\n"),
                    _answer(out_of_memory)) == "resources"
    assert classify(_answer("TypeError: ones(): argument 'requires_grad' must be bool, not int\n"),
                    _answer(out_of_memory)) == "mismatch"
    assert classify(_answer("", "", -14), _answer("gradcalc: internal error: ValueError: x\n")) == "internal"


def test_a_run_ended_by_a_signal_is_internal() -> None:
    from mutate import run_isolated

    answered = run_isolated("print(1)\n")  # from a forked child, as the fuzzer runs each mutant
    assert answered == {"stdout": "1\n", "stderr": "", "rc": 0}
    assert classify(_answer("", "", 0), {"stdout": "", "stderr": "KILLED by signal 11\n", "rc": -11}) == "internal"


def test_a_traceback_the_program_printed_is_no_internal_error() -> None:
    logged = "ERROR:root:failed\nTraceback (most recent call last):\n  File \"fuzz.grad\", line 3, in <module>\nKeyError: 'k'\n"
    assert classify(_answer(logged + "ValueError: a\n"), _answer(logged + "ValueError: b\n")) == "wording"
    assert classify(_answer(logged), _answer(logged + "Traceback (most recent call last):\nValueError: b\n")) \
        == "internal"


def test_temporary_file_names_are_masked_as_addresses() -> None:
    torch_says = _answer("FileNotFoundError: [Errno 2] No such file or directory: '/tmp/tmp0c687uin.txt'\n")
    gradcalc_says = _answer("FileNotFoundError: [Errno 2] No such file or directory: '/tmp/tmprfas3dsl.txt'\n")
    assert classify(torch_says, gradcalc_says) is None
    assert classify(torch_says, _answer("FileNotFoundError: [Errno 2] No such file or directory: 'b.txt'\n")) \
        == "wording"


def test_a_syntax_error_is_judged_by_its_first_word_wherever_it_stands() -> None:
    torch_says = _answer("    print(1, foo=2, foo=3)\n                ^^^^^\nSyntaxError: keyword argument repeated: foo\n")
    gradcalc_says = _answer("SyntaxError: keyword argument repeated: foo\nfuzz.grad, line 1, column 17\n")
    assert classify(torch_says, gradcalc_says) is None


def test_a_traceback_is_judged_by_the_programs_frames() -> None:
    torch_says = _answer('--- Logging error ---\nTraceback (most recent call last):\n'
                         '  File "/usr/lib/python3.11/logging/__init__.py", line 377, in getMessage\n'
                         '    msg = msg % self.args\n          ~~~~^~~~~~~~~~~\n'
                         'TypeError: not all arguments converted during string formatting\nCall stack:\n'
                         '  File "/work/tests/fuzz/oracle_driver.py", line 65, in <module>\n    main()\n'
                         '  File "fuzz.grad", line 3, in <module>\nMessage: \'x\'\nArguments: (1,)\n', rc=0)
    shown = ('--- Logging error ---\nTraceback (most recent call last):\n'
             'TypeError: not all arguments converted during string formatting\nCall stack:\n'
             '  File "fuzz.grad", line {}, in <module>\nMessage: \'x\'\nArguments: (1,)\n')
    assert classify(torch_says, _answer(shown.format(3), rc=0)) is None
    assert classify(torch_says, _answer(shown.format(4), rc=0)) == "wording"


def test_a_temporary_name_is_masked_whole() -> None:
    # a random name may hold "0x" and hex digits, which are no address
    torch_says = _answer("FileNotFoundError: [Errno 2] No such file or directory: '/tmp/tmpab_cd3ef.txt'\n")
    assert classify(torch_says, _answer("FileNotFoundError: [Errno 2] No such file or directory: "
                                        "'/tmp/tmpl4f0x3bh.txt'\n")) is None

