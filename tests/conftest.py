"""The project's golden programs (tests/golden/, examples/) run through gradcalc's own pytest plugin
(gradcalc/golden/plugin.py); those that reach parts of PyTorch gradcalc lacks are strict expected
failures, named in tests/golden/known_gaps.json (`NAME[avx2]` for the answer of one machine).

Tests run as on this processor, unless ATEN_CPU_CAPABILITY and MKL_CBWR say otherwise (.ci/run
runs the machine-dependent ones once more as on the other capability); an expectation whose
answer depends on the processor carries the machine it was recorded on and is run as there."""
from __future__ import annotations

import os

import pytest
from golden_programs import golden_name, known_gap

from gradcalc import machine
from gradcalc.autograd import mkl
from gradcalc.golden.plugin import GradItem


# The expected answers were recorded on other machines and are emulated as there: MKL, which follows
# this processor, stays off (here and in the gradcalc processes the tests start) unless a test turns it on.
os.environ["GRADCALC_MKL"] = "0"
mkl.turn(False)


def pytest_configure(config: pytest.Config) -> None:
    if not machine.PINNED:
        raise pytest.UsageError("numpy was loaded before gradcalc could pin its code paths (gradcalc/machine.py): "
                                "the tests' numbers would follow this processor's numpy")
    # the plugin comes through its entry point: an install older than it would collect no golden program
    if not config.pluginmanager.has_plugin("gradcalc"):
        raise pytest.UsageError("gradcalc's pytest plugin, which runs the golden programs, is not installed: "
                                "pip install -e '.[test]' again")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if isinstance(item, GradItem):
            item.add_marker(pytest.mark.machine)
        gap = known_gap(golden_name(item.path), item.machine) if isinstance(item, GradItem) else None
        if gap:
            item.add_marker(pytest.mark.xfail(reason=f"not yet in gradcalc: {gap}", strict=True))

