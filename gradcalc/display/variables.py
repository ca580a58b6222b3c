"""`:vars`: the session's tensors and modules, one row each, in a Rich table.

The columns are the attributes a learner of autograd checks one by one (`requires_grad`,
`is_leaf`, `grad_fn`, `.grad`, `retains_grad`, the version counter); a module shows how many
parameters it holds and how many of them have a gradient.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..autograd.tensor import Tensor
from . import inspection
from .inspection import reading_program, tensor_property

TENSOR_COLUMNS = ("name", "type", "shape", "dtype", "requires_grad", "is_leaf", "grad_fn", "grad", "retains_grad",
                  "version")
MODULE_COLUMNS = ("name", "type", "parameters", "elements", "requires_grad", "with grad", "training")


@dataclass
class Variables:
    """What `:vars` shows, as text: one tuple per row, in the order of the columns above."""

    tensors: list[tuple[str, ...]]
    modules: list[tuple[str, ...]]


def collect(namespace: dict) -> Variables:
    """The rows for the tensors and modules a session's namespace holds."""
    from ..nn.modules import Module

    tensors, modules = [], []
    with reading_program():
        for name, value in inspection.variables(namespace):
            if isinstance(value, Tensor):
                tensors.append(_tensor_row(name, value))
            elif isinstance(value, Module):
                modules.append(_module_row(name, value))
    return Variables(tensors, modules)


def _tensor_row(name: str, tensor: Tensor) -> tuple[str, ...]:
    grad_fn = tensor_property(tensor, "grad_fn")
    grad = inspection.grad_of(tensor)
    version = inspection.version_of(tensor)
    return (
        name,
        "Parameter" if getattr(type(tensor), "is_parameter", False) else type(tensor).__name__,
        inspection.describe_shape(tensor),
        inspection.describe_dtype(tensor),
        str(tensor_property(tensor, "requires_grad")),
        str(tensor_property(tensor, "is_leaf")),
        inspection.node_name(grad_fn) if grad_fn is not None else "None",
        inspection.short_value(grad) if grad is not None else "None",
        str(tensor_property(tensor, "retains_grad")),
        str(version) if version is not None else "-",
    )


def _module_row(name: str, module: Any) -> tuple[str, ...]:
    parameters = inspection.module_parameters(module)
    trainable = [p for p in parameters if tensor_property(p, "requires_grad")]
    with_grad = [p for p in parameters if inspection.grad_of(p) is not None]
    training = object.__getattribute__(module, "__dict__").get("training")
    return (
        name,
        type(module).__name__,
        str(len(parameters)),
        f"{sum(Tensor.numel(p) for p in parameters):,}",
        f"{len(trainable)} of {len(parameters)}",
        f"{len(with_grad)} of {len(parameters)}",
        str(training),
    )


# ------------------------------------------------------------------ rendering

def render(variables: Variables, width: int) -> Any:
    """A Rich renderable for a terminal `width` columns wide: a table of the tensors, one row each
    (or, when that is too wide, one column each, in as many tables as it takes), then the modules'."""
    from rich.console import Group
    from rich.text import Text

    if not variables.tensors and not variables.modules:
        return Text("No tensors or modules yet.", style="dim")
    parts: list = []
    if variables.tensors:
        columns, rows = TENSOR_COLUMNS, variables.tensors
        if all(row[1] == "Tensor" for row in rows):  # the type column would say nothing
            columns, rows = columns[:1] + columns[2:], [row[:1] + row[2:] for row in rows]
        parts.extend(_fitting_tables("Tensors", columns, rows, width))
    if variables.modules:
        parts.extend(_fitting_tables("Modules", MODULE_COLUMNS, variables.modules, width))
    return Group(*parts)


def _fitting_tables(title: str, columns: tuple, rows: list[tuple[str, ...]], width: int) -> list:
    table = _table(title, columns, rows)
    if _natural_width(table) <= width:
        return [table]
    # one column per variable, as many variables to a table as fit
    transposed = [tuple(row[i] for row in rows) for i in range(1, len(columns))]
    tables = []
    start = 0
    while start < len(rows):
        count = len(rows) - start
        while True:
            names = ("",) + tuple(row[0] for row in rows[start:start + count])
            cells = [(label,) + values[start:start + count] for label, values in zip(columns[1:], transposed)]
            table = _table(title if not tables else "", names, cells, label_column=True)
            if count == 1 or _natural_width(table) <= width:
                break
            count -= 1
        tables.append(table)
        start += count
    return tables


def _table(title: str, columns: tuple, rows: list, label_column: bool = False) -> Any:
    from rich import box
    from rich.table import Table
    from rich.text import Text

    table = Table(title=title or None, title_justify="left", title_style="bold", header_style="bold",
                  box=box.SIMPLE_HEAD, pad_edge=False)
    for column in columns:
        table.add_column(column, overflow="fold", style=_COLUMN_STYLES.get(column))
    for row in rows:
        attributes = [row[0]] * len(row) if label_column else columns
        table.add_row(*[Text(cell, style="bold" if label_column and i == 0 else _cell_style(attribute, cell))
                        for i, (attribute, cell) in enumerate(zip(attributes, row))])
    return table


def _natural_width(table: Any) -> int:
    from rich.console import Console
    from rich.measure import Measurement

    console = Console(width=10_000)
    return Measurement.get(console, console.options, table).maximum


_COLUMN_STYLES = {"name": "bold", "grad_fn": "magenta", "dtype": "bright_blue"}


def _cell_style(column: str, cell: str) -> str:
    if cell == "True":
        return "green"
    if cell in ("False", "None", "-"):
        return "dim"
    if column == "grad":
        return "cyan"
    return ""
