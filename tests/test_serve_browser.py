"""gradcalc serve's page in a real browser: headless Chromium (Debian's, never a downloaded one),
driven by Playwright, against a `gradcalc serve` started here. On a failure the page's screenshot
is kept in the test's tmp folder (its path is printed)."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Iterator

import pytest
from serving import serving

pytest.importorskip("starlette", reason="gradcalc serve needs the serve extra: pip install 'gradcalc[serve]'")
pytest.importorskip("uvicorn", reason="gradcalc serve needs the serve extra: pip install 'gradcalc[serve]'")
sync_api = pytest.importorskip("playwright.sync_api", reason="the browser tests drive Chromium with playwright")

CHROMIUM = os.environ.get("GRADCALC_CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
if CHROMIUM is None:
    pytest.skip("no chromium on PATH (apt-get install chromium)", allow_module_level=True)

BROWSER_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                "--disable-component-update", "--disable-sync", "--no-first-run"]
SEED = (Path(__file__).resolve().parent.parent / "gradcalc" / "serve" / "static" / "seed.grad").read_text()
TIME_LIMIT = 3


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    with serving("--time-limit", str(TIME_LIMIT)) as url:
        yield url


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    with sync_api.sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, args=BROWSER_ARGS)
        yield launched
        launched.close()


def _cli(source: str) -> str:
    return subprocess.run([sys.executable, "-m", "gradcalc", "-"], input=source.encode(), capture_output=True,
                          timeout=60).stdout.decode()


def _until(read: object, seconds: float = 20) -> object:
    """What `read()` gives once it gives something (the page's CSP forbids wait_for_function's eval)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        value = read()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError("the page never got there")


def test_the_page_runs_shows_the_graph_shares_and_stops_a_loop(server: str, browser: object,
                                                                  tmp_path: Path) -> None:
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    try:
        page.goto(server)
        page.wait_for_selector("#examples option:nth-child(2)", state="attached")
        editor = page.locator("#source")
        assert _until(lambda: editor.input_value() or None) == SEED  # the page starts with the seed program
        editor.click()
        page.keyboard.press("Control+A")
        page.keyboard.press("Delete")
        page.keyboard.type(SEED)
        assert editor.input_value() == SEED
        page.keyboard.press("Control+Enter")
        page.wait_for_selector("#vars table", timeout=60_000)
        assert page.locator("#stdout").text_content() == _cli(SEED)

        page.click("#vars button[data-name='x']")
        picture = page.locator("#graph svg")
        assert "AddBackward0" in picture.text_content()
        assert page.locator("#graph-name").text_content() == "of x"

        page.click("#share")
        page.wait_for_selector("#share-note:not([hidden])")
        link = _until(lambda: page.url if "#code=" in page.url else None)
        shared = context.new_page()
        shared.goto(link)
        assert _until(lambda: shared.locator("#source").input_value() or None) == SEED
        shared.close()

        editor.click()
        page.keyboard.press("Control+A")
        page.keyboard.press("Delete")
        page.keyboard.type("while True:\npass")  # Enter after ':' indents the next line
        assert editor.input_value() == "while True:\n    pass"
        page.click("#run")
        page.wait_for_selector("#stderr .o-limit", timeout=60_000)
        assert page.locator("#stderr").text_content() == \
            f"Time limit exceeded: the program ran longer than {TIME_LIMIT} s and was stopped."
    except Exception:
        shot = tmp_path / "gradcalc-serve-failure.png"
        page.screenshot(path=str(shot), full_page=True)
        print(f"screenshot: {shot}")
        raise
    finally:
        context.close()
