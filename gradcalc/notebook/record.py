"""`gradcalc nbcheck --record PYTHON`: run the notebook under another Python, one with torch and
ipykernel, through nbclient, and store its outputs in the notebook: the expectations `nbcheck`
then holds gradcalc to. That Python is not jailed: the cells nbcheck skips (shell commands, package
installs, files, downloads, magics) are not run there either, and keep the outputs they had; those
skipped only for plots, CUDA or help are run, for what else they define."""
from __future__ import annotations

import json
import os
import subprocess
import tempfile

from .check import recordable, skip_reason

_KERNEL = "gradcalc-record"
_SKIP_TAG = "gradcalc-record-skip"


def record(path: str, python: str, timeout: int = 600) -> None:
    """Execute the notebook at `path` with `python`'s ipykernel and write it back with its outputs.
    RuntimeError saying why when it cannot be run."""
    try:
        import nbclient
        import nbformat
        from jupyter_client.kernelspec import KernelSpecManager
        from jupyter_client.manager import KernelManager
    except ImportError:
        raise RuntimeError("--record needs nbclient: pip install 'gradcalc[jupyter]'") from None
    _check_python(python)
    try:
        notebook = nbformat.read(path, as_version=4)
    except Exception as error:  # nbformat's: not JSON, not a notebook, not readable
        raise RuntimeError(f"can't read '{path}' as a notebook: {error}") from None
    skipped = [cell for cell in notebook.cells
               if cell.cell_type == "code" and skip_reason(cell.source) and not recordable(cell.source)]
    for cell in skipped:
        cell.metadata.setdefault("tags", []).append(_SKIP_TAG)
    with tempfile.TemporaryDirectory() as directory:
        spec_dir = os.path.join(directory, _KERNEL)
        os.makedirs(spec_dir)
        # one thread, as the reference runner records: threads change a sum's last bits
        spec = {"argv": [python, "-m", "ipykernel_launcher", "-f", "{connection_file}"], "display_name": _KERNEL,
                "language": "python", "env": {"OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}}
        with open(os.path.join(spec_dir, "kernel.json"), "w", encoding="utf-8") as handle:
            json.dump(spec, handle)
        manager = KernelManager(kernel_name=_KERNEL, kernel_spec_manager=KernelSpecManager(kernel_dirs=[directory]))
        client = nbclient.NotebookClient(notebook, km=manager, timeout=timeout, allow_errors=True,
                                         record_timing=False, skip_cells_with_tag=_SKIP_TAG,
                                         resources={"metadata": {"path": os.path.dirname(os.path.abspath(path))}})
        try:
            # cleanup_kc: a client given its manager leaves the kernel running and its channels
            # open unless told otherwise (whose client then logs from its finalizer)
            client.execute(cleanup_kc=True)
        except Exception as error:  # nbclient's own: a kernel that did not start or died
            raise RuntimeError(f"running '{path}' under {python} failed: {error}") from None
        finally:
            for cell in skipped:
                cell.metadata.tags.remove(_SKIP_TAG)
                if not cell.metadata.tags:
                    del cell.metadata["tags"]
    from ..autograd import cpu

    # what PyTorch's last digits depend on, for nbcheck to compute as there (check.recorded_machine)
    notebook.metadata.setdefault("gradcalc", {})["machine"] = cpu.machine_record()
    nbformat.write(notebook, path)


def _check_python(python: str) -> None:
    """RuntimeError unless `python` runs and has ipykernel (nbclient waits forever on a kernel whose
    command cannot start)."""
    try:
        done = subprocess.run([python, "-c", "import ipykernel"], capture_output=True, timeout=300)
    except (OSError, subprocess.TimeoutExpired) as error:
        raise RuntimeError(f"--record: can't run {python}: {getattr(error, 'strerror', None) or error}") from None
    if done.returncode != 0:
        raise RuntimeError(f"--record: {python} has no ipykernel ({python} -m pip install ipykernel)")
