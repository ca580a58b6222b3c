"""The pytest plugin (entry point `pytest11`): every `NAME.grad` with a `NAME.expected.json` beside
it is a test that runs the program through gradcalc and compares (see __init__.py).

    pytest                                   run them
    pytest --gradcalc-update                 write the expected files from gradcalc
    pytest --gradcalc-oracle PYTHON          record them from PyTorch (PYTHON has torch), then compare

With either option, a `NAME.grad` that has no expected file yet is collected too, to get one.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, Optional

import pytest

from . import Answer, OracleError, differences, expected_path, read_expected, record, run, write_expected


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
    if file_path.suffix == ".grad" and (expected_path(file_path).is_file() or _writing(parent.config)):
        return GradFile.from_parent(parent, path=file_path)
    return None


class GradFile(pytest.File):
    def collect(self) -> Any:
        yield GradItem.from_parent(self, name=self.path.name.removesuffix(".grad"))


class GoldenMismatch(Exception):
    """gradcalc's answer differs from the expected file: the message is the diff."""


class GradItem(pytest.Item):
    def runtest(self) -> None:
        config = self.config
        oracle = config.getoption("gradcalc_oracle")
        got = run(self.path)
        if config.getoption("gradcalc_update"):
            self._write(got)
            return
        if oracle:
            self._write(record(oracle, self.path))
        expected = read_expected(self.path)
        diff = differences(expected, got)
        if diff:
            raise GoldenMismatch(diff)

    def _write(self, answer: Answer) -> None:
        if not expected_path(self.path).is_file() or read_expected(self.path) != answer:
            write_expected(self.path, answer)
            self.config.stash[_WRITTEN].append(expected_path(self.path))

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> str:
        if isinstance(excinfo.value, GoldenMismatch):
            return (f"gradcalc's output differs from {expected_path(self.path).name} (addresses masked as 0x…):\n"
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
