#!/usr/bin/env python3
"""Regenerate docs/notebook.png, the README's picture of a notebook: a small notebook executed
with the gradcalc kernel (nbclient), exported to HTML as JupyterLab lays it out (nbconvert's lab
template), and photographed by headless Chromium (Playwright driving the system's chromium,
never a downloaded browser), then quantized by pngquant where it is installed.

    pip install -e '.[jupyter,docs]'     # nbconvert; playwright comes with the test extra
    apt-get install chromium pngquant
    python tools/notebook_screenshot.py [OUT.png]
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import nbformat
from jupyter_client.kernelspec import KernelSpecManager
from jupyter_client.manager import KernelManager
from nbclient import NotebookClient
from nbconvert import HTMLExporter
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook
from playwright.sync_api import sync_playwright

from gradcalc.notebook.install import KERNEL_NAME, install

OUT = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parent.parent / "docs" / "notebook.png"
CHROMIUM = os.environ.get("GRADCALC_CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
# as the serve tests start it: no sandbox (root), and none of the connections a closed network refuses
BROWSER_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
                "--disable-component-update", "--disable-sync"]
WIDTH = 1100

CELLS = [
    new_markdown_cell("### A neuron, its gradients and its graph"),
    new_code_cell("x = torch.tensor([1.0, -2.0, 3.0], requires_grad=True)\n"
                  "w = torch.tensor([0.5, 0.25, -1.0], requires_grad=True)\n"
                  "y = torch.tanh(x @ w + 1.5)\n"
                  "y.backward()\n"
                  "x.grad, w.grad"),
    new_code_cell("%vars"),
    new_code_cell("%graph y"),
]


def executed_notebook(kernel_dirs: str) -> nbformat.NotebookNode:
    notebook = new_notebook(cells=CELLS)
    manager = KernelManager(kernel_name=KERNEL_NAME, kernel_spec_manager=KernelSpecManager(kernel_dirs=[kernel_dirs]))
    NotebookClient(notebook, km=manager, timeout=120).execute()
    return notebook


def main() -> None:
    if CHROMIUM is None:
        sys.exit("no chromium on PATH (apt-get install chromium)")
    with tempfile.TemporaryDirectory() as directory:
        install(prefix=directory)
        notebook = executed_notebook(os.path.join(directory, "share", "jupyter", "kernels"))
        html, _ = HTMLExporter(template_name="lab").from_notebook_node(notebook)
        page = Path(directory, "notebook.html")
        page.write_text(html, encoding="utf-8")
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=BROWSER_ARGS)
            tab = browser.new_page(viewport={"width": WIDTH, "height": 600}, device_scale_factor=1)
            # the page's MathJax and require.js come from the network, which this picture does without
            tab.route("http*://**", lambda route: route.abort())
            tab.goto(page.as_uri())
            tab.screenshot(path=str(OUT), full_page=True)
            browser.close()
    if shutil.which("pngquant"):
        subprocess.run(["pngquant", "--force", "--skip-if-larger", "--strip", "--output", str(OUT), str(OUT)],
                       check=False)
    print(f"wrote {OUT} ({OUT.stat().st_size // 1024} KiB)")


if __name__ == "__main__":
    main()
