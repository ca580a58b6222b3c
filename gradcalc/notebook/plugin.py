"""The pytest plugin for notebooks (entry point `pytest11`): with `--gradcalc-notebooks`, every
`.ipynb` file collected is checked as `gradcalc nbcheck` checks it, one test per code cell (a cell
gradcalc refuses by design is skipped with why).

    pytest --gradcalc-notebooks tests/notebooks
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, Iterator, Optional

import pytest

from .check import CellReport, check_notebook, load


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("gradcalc-notebooks", "gradcalc notebook checks")
    group.addoption("--gradcalc-notebooks", action="store_true", default=False,
                    help="check each .ipynb collected: its code cells run in gradcalc must print the outputs "
                         "the notebook stores (record them with gradcalc nbcheck --record PYTHON)")


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> Optional[pytest.Collector]:
    if file_path.suffix == ".ipynb" and parent.config.getoption("gradcalc_notebooks"):
        return NotebookFile.from_parent(parent, path=file_path)
    return None


class NotebookFile(pytest.File):
    """A notebook: run once, in one worker, when its first cell's test runs."""

    _reports: Optional[dict] = None

    def collect(self) -> Iterator[pytest.Item]:
        try:
            notebook = load(str(self.path))
        except ValueError as error:
            raise self.CollectError(str(error)) from None
        code_cells = [cell for cell in notebook["cells"] if cell.get("cell_type") == "code"]
        for index, cell in enumerate(code_cells, 1):
            source = cell.get("source")
            if ("".join(source) if isinstance(source, list) else str(source or "")).strip():
                yield NotebookCell.from_parent(self, name=f"cell {index}", index=index)

    def report(self, index: int) -> Optional[CellReport]:
        if self._reports is None:
            self._reports = {report.index: report for report in check_notebook(load(str(self.path)))}
        return self._reports.get(index)


class CellDiffers(Exception):
    """The cell's outputs in gradcalc differ from the notebook's: the message is the diff."""


class NotebookCell(pytest.Item):
    def __init__(self, *, index: int, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.index = index

    def runtest(self) -> None:
        assert isinstance(self.parent, NotebookFile)
        report = self.parent.report(self.index)
        if report is None or report.verdict == "same":
            return
        if report.verdict == "skipped":
            pytest.skip(report.why)
        raise CellDiffers("\n".join(report.diff))

    def repr_failure(self, excinfo: Any, style: Any = None) -> str:
        if isinstance(excinfo.value, CellDiffers):
            return f"{self.path.name}, {self.name}: gradcalc's outputs differ from the notebook's\n{excinfo.value}"
        return super().repr_failure(excinfo, style)

    def reportinfo(self) -> tuple:
        return self.path, None, f"{self.path.name}::{self.name}"
