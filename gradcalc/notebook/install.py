"""`gradcalc kernel install [--user|--sys-prefix|--prefix DIR]`: the kernelspec that JupyterLab,
Notebook, VS Code and nbclient find, naming this Python to start the kernel."""
from __future__ import annotations

import json
import os
import sys
import tempfile
from typing import Optional

KERNEL_NAME = "gradcalc"
DISPLAY_NAME = "gradcalc (PyTorch 2.13 autograd)"


def kernel_json() -> dict:
    return {
        # -P: the notebook's folder (the kernel's working directory) is not on the path
        "argv": [sys.executable, "-P", "-m", "gradcalc.notebook", "-f", "{connection_file}"],
        "display_name": DISPLAY_NAME,
        "language": "python",
        # Ctrl-C as SIGINT to the kernel, which passes it to its worker
        "interrupt_mode": "signal",
        "metadata": {"debugger": False},
    }


def install(user: bool = False, prefix: Optional[str] = None) -> str:
    """Write the kernelspec; the directory it went to."""
    from jupyter_client.kernelspec import KernelSpecManager

    with tempfile.TemporaryDirectory() as directory:
        with open(os.path.join(directory, "kernel.json"), "w", encoding="utf-8") as handle:
            json.dump(kernel_json(), handle, indent=1)
        return KernelSpecManager().install_kernel_spec(directory, KERNEL_NAME, user=user, prefix=prefix)
