"""Tensor repr formatting that reproduces PyTorch's ``repr(tensor)`` byte for byte.

The rules follow PyTorch's ``torch/_tensor_str.py`` for dense CPU tensors:

* Every real-valued part of a tensor (the whole tensor, or the real and the
  imaginary parts of a complex tensor) gets one formatter.  It looks at the
  elements that will be shown (all of them, or only the edge items when the
  tensor is summarised) and picks a mode and a common width.
* Floating parts are printed in integer mode (``1.``), fixed mode
  (``1.2500``) or scientific mode (``1.2500e+10``); only non-zero finite
  values decide the mode and the width, so ``0.``, ``nan`` and ``inf`` never
  widen a column.
* Rows longer than ``linewidth`` wrap, nested dimensions indent by one column
  per level, and 3-d and deeper tensors separate their blocks with blank lines.
* Suffixes such as ``dtype=torch.int32`` and ``grad_fn=<MulBackward0>`` follow
  the closing bracket and move to a new line when the last line would
  overflow.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..warnings import warn


@dataclass
class PrintOptions:
    """The options ``torch.set_printoptions`` controls."""

    precision: int = 4
    threshold: float = 1000
    edgeitems: int = 3
    linewidth: int = 80
    sci_mode: bool | None = None


_OPTIONS = PrintOptions()

# (precision, threshold, edgeitems, linewidth) of each named profile.
_PROFILES: dict[str, tuple[int, float, int, int]] = {
    "default": (4, 1000, 3, 80),
    "short": (2, 1000, 2, 80),
    "full": (4, math.inf, 3, 80),
}

# How each supported dtype's elements are printed.
_DTYPE_KINDS: dict[str, str] = {
    "float32": "float",
    "float64": "float",
    "float16": "float",
    "bfloat16": "float",
    "int8": "int",
    "int16": "int",
    "int32": "int",
    "int64": "int",
    "uint8": "int",
    "uint16": "int",
    "uint32": "int",
    "uint64": "int",
    "bool": "int",
    "complex64": "complex",
    "complex128": "complex",
}

_PREFIX = "tensor("


def set_printoptions(
    precision: int | None = None,
    threshold: float | None = None,
    edgeitems: int | None = None,
    linewidth: int | None = None,
    profile: str | None = None,
    sci_mode: bool | None = None,
) -> None:
    """Change the current print options the way ``torch.set_printoptions`` does.

    A profile is applied first and explicit options override it.  As in
    PyTorch, an unknown profile name is ignored and ``sci_mode`` is always
    assigned, so any call without it returns to automatic mode selection.
    """
    if profile in _PROFILES:
        (
            _OPTIONS.precision,
            _OPTIONS.threshold,
            _OPTIONS.edgeitems,
            _OPTIONS.linewidth,
        ) = _PROFILES[profile]
    if precision is not None:
        _OPTIONS.precision = precision
    if threshold is not None:
        _OPTIONS.threshold = threshold
    if edgeitems is not None:
        _OPTIONS.edgeitems = edgeitems
    if linewidth is not None:
        _OPTIONS.linewidth = linewidth
    _OPTIONS.sci_mode = sci_mode


def get_printoptions() -> dict[str, Any]:
    """Return the current options as keyword arguments for ``set_printoptions``."""
    return dataclasses.asdict(_OPTIONS)


def format_tensor(
    values: np.ndarray,
    dtype: str,
    *,
    grad_fn: str | None = None,
    requires_grad: bool = False,
    default_dtype: str = "float32",
    tangent: str | None = None,
) -> str:
    """Return what ``repr`` prints for a CPU tensor holding ``values``.

    ``values`` holds the elements in the numpy dtype matching ``dtype``
    (bfloat16 elements come as float32).  ``grad_fn`` is the class name of the
    tensor's autograd node; ``requires_grad`` marks a leaf that requires grad.
    ``default_dtype`` is the name of the current default floating dtype;
    ``tangent`` the repr of a dual tensor's tangent at the current level.
    """
    if dtype not in _DTYPE_KINDS:
        raise ValueError(f"unsupported dtype {dtype!r}")
    values = np.asarray(values)
    opts = _OPTIONS
    indent = len(_PREFIX)
    suffixes: list[str] = []

    if values.size == 0:
        # Only a 1-d empty tensor has a shape implied by "[]"; with no elements
        # the dtype cannot be inferred either, so anything but the default shows.
        if values.ndim != 1:
            suffixes.append(f"size={_shape_str(values.shape)}")
        if dtype != default_dtype:
            suffixes.append(f"dtype=torch.{dtype}")
        body = "[]"
    else:
        if not opts.edgeitems:
            suffixes.append(f"size={_shape_str(values.shape)}")
        default_complex = "complex128" if default_dtype == "float64" else "complex64"
        if dtype not in (default_dtype, default_complex, "int64", "bool"):
            suffixes.append(f"dtype=torch.{dtype}")
        body = _tensor_body(values, _DTYPE_KINDS[dtype], indent, opts)

    if grad_fn is not None:
        suffixes.append(f"grad_fn=<{grad_fn}>")
    elif requires_grad:
        suffixes.append("requires_grad=True")
    if tangent is not None:
        suffixes.append(f"tangent={tangent}")
    return _add_suffixes(_PREFIX + body, suffixes, indent, opts.linewidth)


def format_meta(shape: tuple[int, ...], dtype: str, *, grad_fn: str | None = None, requires_grad: bool = False,
                default_dtype: str = "float32") -> str:
    """What ``repr`` prints for a meta tensor: its shape, and its dtype unless the default one."""
    suffixes = ["device='meta'", f"size={_shape_str(shape)}"]
    if dtype != default_dtype:
        suffixes.append(f"dtype=torch.{dtype}")
    if grad_fn is not None:
        suffixes.append(f"grad_fn=<{grad_fn}>")
    elif requires_grad:
        suffixes.append("requires_grad=True")
    return _add_suffixes(_PREFIX + "...", suffixes, len(_PREFIX), _OPTIONS.linewidth)


def _shape_str(shape: tuple[int, ...]) -> str:
    return str(tuple(int(n) for n in shape))


def _add_suffixes(text: str, suffixes: list[str], indent: int, linewidth: int) -> str:
    # PyTorch counts two columns more than the last line really has.
    last_line_len = len(text) - text.rfind("\n") + 1
    parts = [text]
    for suffix in suffixes:
        if last_line_len + len(suffix) + 2 > linewidth:
            parts.append(",\n" + " " * indent + suffix)
            last_line_len = indent + len(suffix)
        else:
            parts.append(", " + suffix)
            last_line_len += len(suffix) + 2
    parts.append(")")
    return "".join(parts)


def _tensor_body(values: np.ndarray, kind: str, indent: int, opts: PrintOptions) -> str:
    """Format the bracketed contents of a non-empty tensor."""
    summarize = values.size > opts.threshold
    edge = opts.edgeitems
    if summarize and values.ndim:
        _ = values.shape[0] > 2 * edge  # torch's first use of edgeitems: Python's TypeError for a non-number
    if summarize and not edge and values.ndim:
        # No edge items: the outermost summarised dimension collapses to "...".
        return "[...]"

    if summarize and edge < 0 and values.ndim:
        return _negative_edge_body(values, kind, indent, opts)
    # Only the elements that are shown are formatted, and only they decide the
    # formatting mode and width, exactly as PyTorch's summarised data does.
    folded = tuple(summarize and n > 2 * edge for n in values.shape)
    if any(folded):
        # torch slices a vector with edgeitems and ranges over it otherwise: Python's TypeError for a non-int
        _ = slice(None, edge).indices(1) if values.ndim == 1 else range(edge)
        index = [
            np.r_[0:edge, n - edge : n] if fold else np.arange(n)
            for n, fold in zip(values.shape, folded)
        ]
        shown = values[np.ix_(*index)]
    else:
        shown = values

    cells, element_len = _cells(shown, kind, opts)
    if shown.ndim == 0:
        return cells.item()
    return _nest(cells, folded, indent, edge, element_len, opts.linewidth)


def _cells(shown: np.ndarray, kind: str, opts: PrintOptions) -> tuple[np.ndarray, int]:
    """The formatted elements, in an object array of ``shown``'s shape, and the room each takes."""
    if kind == "complex":
        real, real_width = _format_part(shown.real, True, opts)
        imag, imag_width = _format_part(shown.imag, True, opts)
        texts = [_join_complex(r, i) for r, i in zip(real, imag)]
        # Room for ", " between elements and the "j" of the imaginary part.
        element_len = real_width + 2 + imag_width + 1
    else:
        texts, width = _format_part(shown, kind == "float", opts)
        element_len = width + 2
    cells = np.empty(len(texts), dtype=object)
    cells[:] = texts
    return cells.reshape(shown.shape), element_len


def _negative_edge_body(values: np.ndarray, kind: str, indent: int, opts: PrintOptions) -> str:
    """A summarised tensor with negative edgeitems, as torch's _tensor_str takes it: a vector shows
    ``v[:edge]``, " ..." and ``v[-edge:]`` (sliced twice, each slice's bound clipped as an index's);
    more dimensions collect no rows at all, and stacking them fails."""
    if values.ndim > 1:
        raise RuntimeError("stack expects a non-empty TensorList")
    from ..autograd.ops.indexing import LEAST_SLICE_BOUND
    edge = opts.edgeitems
    if edge < LEAST_SLICE_BOUND:
        for _ in range(2):  # once for the summarised data, once for the elements shown
            warn("UserWarning", "Truncating the start/stop/step of slice. This is likely because of saved old "
                                "models when the start/stop/step were larger.")
    head, tail = values[:max(edge, LEAST_SLICE_BOUND)], values[-edge:]
    shown = np.concatenate([head, tail])
    if not shown.size:
        return "[ ...]"
    cells, element_len = _cells(shown, kind, opts)
    return _nest(cells, (True,), indent, len(head), element_len, opts.linewidth)


def _join_complex(real: str, imag: str) -> str:
    imag = (imag + "j").lstrip()
    # A sign of its own (including that of -0. and -inf) replaces the "+".
    return real + imag if imag[0] in "+-" else real + "+" + imag


def _format_part(values: np.ndarray, floating: bool, opts: PrintOptions) -> tuple[list[str], int]:
    """Format every element (C order) right-aligned to a shared width.

    Returns the strings and the width.  A string may be longer than the width:
    the width only accounts for non-zero finite values of floating parts.
    """
    flat = values.reshape(-1)
    if not floating:
        texts = [str(v) for v in flat.tolist()]
        width = max(1, max(len(t) for t in texts))
        return [t.rjust(width) for t in texts], width

    as_double = flat.astype(np.float64)
    items = as_double.tolist()
    decisive = np.isfinite(as_double) & (as_double != 0)
    nonzero = as_double[decisive]
    precision = opts.precision

    if nonzero.size == 0:
        # Nothing decides the mode: integer mode with a minimal width.
        return [_int_mode_text(v) for v in items], 1

    magnitudes = np.abs(nonzero)
    smallest, largest = float(magnitudes.min()), float(magnitudes.max())
    if opts.sci_mode is None:
        sci_mode = largest / smallest > 1000.0 or largest > 1.0e8 or smallest < 1.0e-4
    else:
        sci_mode = bool(opts.sci_mode)

    if sci_mode:
        texts = [f"{v:.{precision}e}" for v in items]
    elif bool(np.all(nonzero == np.ceil(nonzero))):
        texts = [_int_mode_text(v) for v in items]
    else:
        texts = [f"{v:.{precision}f}" for v in items]

    width = max(1, max(len(t) for t, d in zip(texts, decisive.tolist()) if d))
    return [t.rjust(width) for t in texts], width


def _int_mode_text(value: float) -> str:
    # The trailing "." marks finite values of a floating tensor in integer mode.
    text = f"{value:.0f}"
    return text + "." if math.isfinite(value) else text


def _nest(
    cells: np.ndarray,
    folded: tuple[bool, ...],
    indent: int,
    edge: int,
    element_len: int,
    linewidth: int,
) -> str:
    """Lay out formatted cells as nested brackets; ``folded`` marks summarised axes."""
    if cells.ndim == 1:
        items = cells.tolist()
        if folded[0]:
            items = items[:edge] + [" ..."] + items[edge:]
        per_line = max(1, int(math.floor((linewidth - indent) / element_len)))  # (torch's _tensor_str's words)
        lines = [", ".join(items[i : i + per_line]) for i in range(0, len(items), per_line)]
        return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"

    blocks = [
        _nest(block, folded[1:], indent + 1, edge, element_len, linewidth) for block in cells
    ]
    if folded[0]:
        blocks = blocks[:edge] + ["..."] + blocks[edge:]
    separator = "," + "\n" * (cells.ndim - 1) + " " * (indent + 1)
    return "[" + separator.join(blocks) + "]"
