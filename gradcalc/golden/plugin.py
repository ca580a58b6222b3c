"""The pytest plugin (entry point `pytest11`): every `NAME.grad` with a `NAME.expected.json` beside
it is a test that runs the program through gradcalc and compares (see __init__.py).

    pytest                                   run them
    pytest --gradcalc-update                 write the expected files from gradcalc
    pytest --gradcalc-oracle PYTHON          record them from PyTorch (PYTHON has torch), then compare

With either option, a `NAME.grad` that has no expected file yet is collected too, to get one.
A program whose answers differ by machine (`NAME.avx512.expected.json`, ...) is one test per
machine, `NAME[avx2]`, run as on that machine; the oracle records every ATen capability this
processor can run and keeps one answer if they agree.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Optional

import pytest

from . import (Answer, OracleError, differences, expected_machines, expected_path, read_expected,
               record_on_every_machine, run, write_expected)


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("gradcalc", "gradcalc golden programs (NAME.grad with NAME.expected.json)")
    group.addoption("--gradcalc-update", action="store_true", default=False,
                    help="write each NAME.expected.json from gradcalc's own output")
    group.addoption("--gradcalc-oracle", metavar="PYTHON", default=None,
                    help="record each NAME.expected.json from real PyTorch, run by PYTHON (a Python with torch "
                         "2.13) through gradcalc's reference runner, then compare gradcalc with it")


def pytest_configure(config: pytest.Config) -> None:
    if config.getoption("gradcalc_update") and config.getoption("gradcalc_oracle"):
        raise pytest.UsageError("--gradcalc-update and --gradcalc-oracle both write the expected files: give one")
    config.stash[_WRITTEN] = []


def _writing(config: pytest.Config) -> bool:
    return bool(config.getoption("gradcalc_update") or config.getoption("gradcalc_oracle"))


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> Optional[pytest.Collector]:
    if file_path.suffix == ".grad" and (expected_machines(file_path) or _writing(parent.config)):
        return GradFile.from_parent(parent, path=file_path)
    return None


class GradFile(pytest.File):
    def collect(self) -> Any:
        name = self.path.name.removesuffix(".grad")
        if _writing(self.config):  # one test writes all of the program's answers
            yield GradItem.from_parent(self, name=name, machine=None)
            return
        for machine in expected_machines(self.path):
            yield GradItem.from_parent(self, name=f"{name}[{machine}]" if machine else name, machine=machine)


class GoldenMismatch(Exception):
    """gradcalc's answer differs from the expected file: the message is the diff."""


class GradItem(pytest.Item):
    def __init__(self, *, machine: Optional[str], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.machine = machine  # the label of the machine its answer holds for, where it depends on one

    def runtest(self) -> None:
        config = self.config
        oracle = config.getoption("gradcalc_oracle")
        if config.getoption("gradcalc_update"):
            for label in expected_machines(self.path) or [None]:
                machine = read_expected(self.path, label).get("machine") if label else None
                self._keep([(machine, run(self.path, machine))])
            return
        if oracle:
            self._keep(record_on_every_machine(oracle, self.path))
        diffs = []
        for label in expected_machines(self.path) if oracle else [self.machine]:
            expected = read_expected(self.path, label)
            diff = differences(expected, run(self.path, expected.get("machine")))
            if diff:
                diffs.append(f"as on {label}:\n{diff}" if label and oracle else diff)
        if diffs:
            raise GoldenMismatch("".join(diffs))

    def _keep(self, answers: list[tuple[Optional[dict], Answer]]) -> None:
        """Write the answers that changed; remove the answers of other machines (or the one for every
        machine) when the new ones say the program depends on the machine (or not)."""
        written = set()
        for machine, answer in answers:
            path = expected_path(self.path)
            if machine:
                from ..autograd.cpu import machine_label

                path = expected_path(self.path, machine_label(machine))
            kept = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else None
            if kept is None or {**kept, "machine": None} != {**answer, "machine": None}:
                self.config.stash[_WRITTEN].append(write_expected(self.path, answer, machine))
            written.add(path)
        for label in expected_machines(self.path):
            path = expected_path(self.path, label)
            if path not in written and (label is None) != (answers[0][0] is None):
                path.unlink()

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> str:
        if isinstance(excinfo.value, GoldenMismatch):
            return (f"gradcalc's output differs from {expected_path(self.path, self.machine).name} "
                    f"(addresses masked as 0x…):\n"
                    f"{excinfo.value}")
        if isinstance(excinfo.value, OracleError):
            return f"--gradcalc-oracle: {excinfo.value}"
        return str(super().repr_failure(excinfo, style))

    def reportinfo(self) -> tuple[Path, Optional[int], str]:
        return self.path, None, f"gradcalc golden program {self.name}"


_WRITTEN = pytest.StashKey[list]()


def pytest_terminal_summary(terminalreporter: Any, config: pytest.Config) -> None:
    written = config.stash.get(_WRITTEN, [])
    if _writing(config):
        source = "PyTorch" if config.getoption("gradcalc_oracle") else "gradcalc"
        terminalreporter.write_line(f"gradcalc: {len(written)} expected file(s) written from {source}'s output")
