"""`gradcalc kernel install` and `gradcalc nbcheck`, reached from cli.py before the main command
(whose FILE argument would take their names)."""
from __future__ import annotations

import sys
from typing import Optional

import click

_EXTRA = "needs the jupyter extra: pip install 'gradcalc[jupyter]'"


class _CannotCheck(click.ClickException):
    """A notebook that could not be run at all: not a difference, so not exit status 1."""

    exit_code = 2


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
def kernel() -> None:
    """gradcalc's Jupyter kernel."""


@kernel.command()
@click.option("--user", is_flag=True, help="Install for this user only (~/.local/share/jupyter).")
@click.option("--sys-prefix", is_flag=True, help="Install into this Python's environment (sys.prefix).")
@click.option("--prefix", metavar="DIR", default=None, help="Install under DIR (DIR/share/jupyter/kernels).")
def install(user: bool, sys_prefix: bool, prefix: Optional[str]) -> None:
    """Write the kernelspec "gradcalc (PyTorch 2.13 autograd)" where Jupyter finds it."""
    if sum((user, sys_prefix, prefix is not None)) > 1:
        raise click.UsageError("give one of --user, --sys-prefix, --prefix")
    try:
        import ipykernel  # noqa: F401  the kernel's own dependency, checked before its spec is written

        from .install import install as install_spec
    except ImportError:
        raise click.ClickException(f"the kernel {_EXTRA}") from None
    try:
        where = install_spec(user=user, prefix=sys.prefix if sys_prefix else prefix)
    except OSError as error:
        raise click.ClickException(f"could not write the kernelspec: {error.strerror or error}") from None
    click.echo(f"Installed the kernelspec gradcalc in {where}")


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("notebooks", nargs=-1, required=True, type=click.Path(dir_okay=False))
@click.option("--record", metavar="PYTHON", default=None,
              help="First re-run each notebook under PYTHON (with torch and ipykernel) and store its outputs.")
def nbcheck(notebooks: tuple, record: Optional[str]) -> None:
    """Run each notebook's code cells in gradcalc and compare their outputs with the notebook's.

    \b
    Exit status: 0 every cell the same (or skipped), 1 a cell differs, 2 a usage error
    or a notebook that could not be run.
    """
    from ..worker.client import WorkerDied
    from .check import check_notebook, load, report_text

    failed = False
    for path in notebooks:
        if record is not None:
            from .record import record as record_outputs

            try:
                record_outputs(path, record)
            except RuntimeError as error:
                raise _CannotCheck(str(error)) from None
        try:
            notebook = load(path)
        except ValueError as error:
            raise click.UsageError(str(error)) from None
        try:
            reports = check_notebook(notebook)
        except WorkerDied as died:
            raise _CannotCheck(f"the worker {died}") from None
        click.echo(report_text(path, reports), nl=False)
        failed = failed or any(report.verdict == "differs" for report in reports)
    sys.exit(1 if failed else 0)
