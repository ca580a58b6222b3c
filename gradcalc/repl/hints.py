"""Python's "Did you mean: 'tensor'?" after a NameError or an AttributeError, in the REPL only
(a script prints exactly what PyTorch's run prints, and that has no hints).

The candidates are what the program can reach: the names in scope (never the compiler's
temporaries) and the attributes the policy lets it read. The choice among them is Python's own,
made by the interpreter.
"""
from __future__ import annotations

import io
import re
import sys
from typing import Any

from ..language import limits
from ..session import Session, format_error
from ..display.completion import attribute_names, scope_names

_HINT = re.compile(r"\. Did you mean: '(?P<name>[^']*)'\?$")


# Libraries learners' snippets import that gradcalc does not have, and what it offers instead
# (the REPL's one line after Python's ModuleNotFoundError)
ALTERNATIVES = {
    "torchvision": "make image batches with torch.rand(N, C, H, W) and datasets with torch.utils.data.TensorDataset",
    "torchtext": "make token ids with torch.randint or torch.tensor and datasets with torch.utils.data",
    "torchaudio": "make signals with torch.sin, torch.randn and torch.stft",
    "matplotlib": "gradcalc draws no plots: print the values, or summaries such as tensor.mean() and tensor.std()",
    "pandas": "keep tables as tensors, lists or dicts; the csv module reads and writes a program's own CSV files",
    "sklearn": "split and scale data with torch.randperm, tensor.mean() and tensor.std(); metrics with torch ops",
    "scipy": "torch.special, torch.linalg and torch.fft have the special functions and linear algebra",
    "tqdm": "loop over the iterable itself, printing the progress you need",
    "PIL": "an image is a tensor: torch.rand(C, H, W), or torch.randint(0, 256, (H, W, C), dtype=torch.uint8)",
    "einops": "tensor.reshape, tensor.permute and torch.einsum do what rearrange and reduce do",
    "requests": "a program reaches no network: put the data in the program, or in a file it writes itself",
    "yaml": "json.dump and json.load keep a config in a file of the program's own",
    "wandb": "log the metrics with print, logging or a CSV file of the program's own",
    "tensorboardX": "log the metrics with print, logging or a CSV file of the program's own",
}


def describe(session: Session, error: BaseException) -> str:
    """The error's line as the REPL shows it: with a hint when Python would give one, or what gradcalc offers
    for a library it does not have."""
    text = format_error(error)
    name = getattr(error, "name", None)
    if isinstance(error, ModuleNotFoundError) and isinstance(name, str):
        alternative = ALTERNATIVES.get(name.partition(".")[0])
        return text if alternative is None else f"{text}. gradcalc has no {name.partition('.')[0]}: {alternative}"
    if not isinstance(error, (NameError, AttributeError)) or not isinstance(name, str) or text.startswith("gradcalc:"):
        return text
    if isinstance(error, AttributeError):
        candidates = attribute_names(getattr(error, "obj", None))
    else:
        candidates = _local_names(error) + scope_names(session)
    suggestion = _pythons_choice(name, candidates)
    if suggestion is None:
        return text
    lines = text.split("\n")
    notes = getattr(error, "__notes__", None)
    message_end = len(lines) - (len(notes) if isinstance(notes, list) else 0)
    lines[message_end - 1] += f". Did you mean: '{suggestion}'?"
    return "\n".join(lines)


def _local_names(error: BaseException) -> list[str]:
    """The local names of the program's function where a NameError happened (Python offers them first)."""
    trace = error.__traceback__
    if trace is None:
        return []
    while trace.tb_next is not None:
        trace = trace.tb_next
    with limits.reading_frames():  # the error's line is made behind the wall: gradcalc's own look
        frame = trace.tb_frame
        return [] if frame.f_locals is frame.f_globals else list(frame.f_locals)


class _Listing:
    """An object whose dir() is the candidates: how Python is asked to choose among them."""

    def __init__(self, names: list[str]) -> None:
        self._names = names

    def __dir__(self) -> list[str]:
        return self._names


def _pythons_choice(wrong: str, candidates: list[str]) -> Any:
    """Python's own pick (its interpreter's, whose suggestions Python 3.11's traceback module
    lacks): the hint it prints for an AttributeError on an object with these attributes."""
    stand_in = AttributeError(name=wrong, obj=_Listing(list(dict.fromkeys(candidates))))
    shown, saved = io.StringIO(), sys.stderr
    sys.stderr = shown
    try:
        sys.__excepthook__(AttributeError, stand_in, None)
    finally:
        sys.stderr = saved
    match = _HINT.search(shown.getvalue().rstrip("\n"))
    return match.group("name") if match else None
