"""The native call of the generated ops (csrc/dispatch.c) against their Python functions: the same
results and the same errors for the calls whose binding the parser remembered, with no Python
parse on the way; every other call still reaches the Python function."""
from __future__ import annotations

import importlib
import sys
from typing import Any, Callable

import numpy as np
import pytest

from gradcalc.autograd import native
from gradcalc.display.console import make_output
from gradcalc.session import Session

parser = importlib.import_module("gradcalc.autograd.ops.parser")  # (the package's `parser` is its function)
pytestmark = pytest.mark.skipif(native.kernels is None, reason="gradcalc's native kernels are not built here")


@pytest.fixture(autouse=True)
def _no_meta_tensors(monkeypatch: pytest.MonkeyPatch) -> None:
    """(An earlier test's meta tensor would send every call to the Python functions.)"""
    from gradcalc.autograd import meta

    monkeypatch.setitem(meta.state, "made", False)


@pytest.fixture(scope="module")
def torch() -> Any:
    session = Session(make_output(False))
    session.run("import torch\n", "<setup>")
    return session.namespace["torch"]


def _python_function(native_function: Callable) -> Callable:
    """The Python function a native wrapper stands in for (the last item of its entry)."""
    (cell,) = native_function.__closure__
    return cell.cell_contents[-1]


def _outcome(call: Callable) -> tuple:
    """What a call gives, comparable: a tensor's dtype, shape, values, requires_grad and grad_fn,
    or the error's type and words."""
    try:
        result = call()
    except Exception as error:  # noqa: BLE001 - the error is what is compared
        return ("error", type(error).__name__, str(error))
    if hasattr(result, "_data"):
        node = result.grad_fn
        return ("tensor", str(result.dtype), tuple(result.shape), result._data.tolist(), result.requires_grad,
                None if node is None else node.name())
    return ("value", repr(result))


def _method_cases(torch: Any) -> list:
    x = torch.arange(6.0).view(2, 3).requires_grad_()
    return [
        (x, "view", (-1,), {}), (x, "view", (3, 2), {}), (x, "view", ((6,),), {}), (x, "view", (2 ** 63,), {}),
        (x, "view", (-(2 ** 62) - 1,), {}), (x, "view", (1.5,), {}), (x, "view", (True,), {}),
        (x, "view", (torch.float64,), {}), (x, "view", (), {"size": (6,)}), (x, "reshape", (-1,), {}),
        (x, "sum", (), {}), (x, "sum", (0,), {}), (x, "sum", (), {"dim": 1, "keepdim": True}),
        (x, "sum", (2 ** 64,), {}), (x, "sum", ((0, 1),), {}), (x, "exp", (), {}), (x, "exp", (1,), {}),
        (x, "exp", (), {"x": 1}), (x, "mean", (), {"dtype": torch.float64}), (x, "permute", (1, 0), {}),
        (x, "permute", (1, 2 ** 63), {}), (x, "transpose", (0, 1), {}), (x, "add", (1.0,), {"alpha": 2}),
        (x, "expand", (4, 2, 3), {}), (x, "repeat", (2,), {}), (x, "new_zeros", (2,), {}),
        (x, "new_zeros", ((2,),), {"dtype": torch.int64}), (x, "unsqueeze", (-1,), {}), (x, "unsqueeze", (9,), {}),
        (x, "pow", (2,), {}), (x, "pow", (2.5,), {}), (x, "pow", (2 ** 63,), {}), (x, "pow", (2 ** 64,), {}),
        (x, "pow", (True,), {}), (x, "mul", (3,), {}), (x, "div", (2.0,), {}), (x, "clamp", (), {"min": 0}),
        (x, "add", (1,), {"alpha": 2}), (x, "add", (2 ** 70,), {}),
    ]


@pytest.mark.parametrize("case", range(39))
def test_a_method_called_natively_gives_what_its_python_function_gives(torch, monkeypatch, case):
    from gradcalc.autograd.tensor import Tensor

    tensor, name, args, kwargs = _method_cases(torch)[case]
    wrapper = Tensor.__dict__[name]
    python = _python_function(wrapper)
    expected = [_outcome(lambda: python(tensor, *args, **kwargs)) for _ in range(2)]  # (the second remembered)
    parses = []
    monkeypatch.setattr(parser.Parser, "parse", lambda *a, **k: parses.append(a) or _parse(*a, **k))
    assert _outcome(lambda: wrapper(tensor, *args, **kwargs)) == expected[1]
    remembered = parser.parser("Tensor", name)._bindings.get(parser._call_key(args, kwargs))
    if remembered is not None and remembered[4] is not None:
        assert not parses, "a remembered binding was parsed again"


_parse = parser.Parser.parse


def _function_cases(torch: Any) -> list:
    x = torch.arange(6.0).view(2, 3).requires_grad_()
    return [
        ("zeros", (3,), {}), ("zeros", (2, 3), {"dtype": torch.float64}), ("zeros", ((2, 3),), {}),
        ("zeros", (2 ** 64,), {}), ("zeros", (2,), {"device": "cuda"}), ("tanh", (x,), {}), ("tanh", (x, x), {}),
        ("randint", (0, 27, (4,)), {"generator": torch.Generator().manual_seed(3)}),
        ("add", (x.detach(), 1), {"out": torch.empty(2, 3)}), ("add", (x, 2.0), {"alpha": 3}),
        ("full", ((2,), 1.5), {}), ("cat", ([x, x],), {}), ("cat", ([x, x],), {"dim": 1}),
        ("sum", (x,), {}), ("sum", (x, 1), {}), ("ones", (2,), {"layout": torch.strided}),
        ("arange", (5,), {}), ("matmul", (x, x.t()), {}), ("matmul", (x, x), {}),
        ("pdist", (x, 2), {}), ("pdist", (x, 1.5), {}), ("dist", (x, x.flip(0), 3), {}), ("pow", (2, x), {}),
        ("pow", (x, -1), {}), ("add", (x, 2 ** 64), {}),
    ]


@pytest.mark.parametrize("case", range(25))
def test_a_function_called_natively_gives_what_its_python_function_gives(torch, monkeypatch, case):
    name, args, kwargs = _function_cases(torch)[case]
    wrapper = getattr(torch, name)._function
    python = _python_function(wrapper)
    generator = kwargs.get("generator")
    expected = []
    for _ in range(2):
        if generator is not None:
            generator.manual_seed(3)
        expected.append(_outcome(lambda: python(*args, **kwargs)))
    if generator is not None:
        generator.manual_seed(3)
    parses = []
    monkeypatch.setattr(parser.Parser, "parse", lambda *a, **k: parses.append(a) or _parse(*a, **k))
    assert _outcome(lambda: wrapper(*args, **kwargs)) == expected[1]
    remembered = parser.parser("torch", name)._bindings.get(parser._call_key(args, kwargs))
    if remembered is not None and remembered[4] is not None:
        assert not parses, "a remembered binding was parsed again"


def test_the_common_calls_are_remembered_for_the_native_call(torch):
    """What the native call exists for: a loop's `x.view(-1)`, `x.sum()`, `torch.zeros(n)` bind
    without the parser once they have bound before."""
    x = torch.randn(6)
    for _ in range(2):
        x.view(-1), x.view(2, 3), x.sum(), x.exp(), torch.zeros(3), torch.tanh(x), x.sum(0)
    for namespace, name, args in [("Tensor", "view", (-1,)), ("Tensor", "view", (2, 3)), ("Tensor", "sum", ()),
                                  ("torch", "zeros", (3,)), ("torch", "tanh", (x,)), ("Tensor", "sum", (0,))]:
        remembered = parser.parser(namespace, name)._bindings.get(parser._call_key(args, {}))
        assert remembered is not None and remembered[4] is not None, (namespace, name, args)


@pytest.mark.parametrize("error", [MemoryError, RecursionError])
def test_errors_inside_the_native_call_read_as_the_python_functions(torch, error):
    """A MemoryError or RecursionError of the implementation, called natively, is reworded as the
    Python function rewords it (PyTorch's out-of-memory error, the op's recursion error)."""
    from gradcalc.autograd.ops.generate import make_function, make_method

    def failing(input: Any) -> None:
        raised = error("maximum recursion depth exceeded while calling a Python object")
        raised._total_size = 2 ** 40  # (numpy's _ArrayMemoryError carries the size it could not allocate)
        raise raised

    x = torch.randn(2)
    for _ in range(2):
        x.exp(), torch.exp(x)  # (the calls' bindings remembered)
    for made, arguments in [(make_method("exp", failing, "input"), (x,)), (make_function("torch", "exp", failing), (x,))]:
        with pytest.raises(Exception) as native_error:
            made(*arguments)
        with pytest.raises(Exception) as python_error:
            _python_function(made)(*arguments)
        assert type(native_error.value) is type(python_error.value)
        assert str(native_error.value) == str(python_error.value)
        if error is MemoryError:  # (PyTorch's allocator's words; a recursion's keep CPython's C-call words)
            assert "DefaultCPUAllocator" in str(native_error.value)


@pytest.mark.parametrize("device", ["cuda", "meta", 1])
@pytest.mark.parametrize("size", [2, -1])
def test_a_remembered_factory_still_reads_its_options(torch, device, size):
    """A factory's device is read at each call, before its sizes (`device="cpu"` remembered, then
    another device: a CUDA one fails whatever the sizes)."""
    expected = _outcome(lambda: _python_function(torch.zeros._function)(size, device=device))
    for _ in range(2):
        torch.zeros(2, device="cpu")
    assert _outcome(lambda: torch.zeros(size, device=device)) == expected
    assert expected[0] == "error" or (device == "meta" and size > 0)


@pytest.mark.parametrize("size", [2, -1])
def test_a_remembered_factory_still_checks_its_out_tensor(torch, size):
    """`out=` against the dtype asked for, read at each call, before the sizes (check_out_type_matches)."""
    out = torch.empty(2)
    expected = _outcome(lambda: _python_function(torch.zeros._function)(size, dtype=torch.float64, out=out))
    for _ in range(2):
        torch.zeros(2, dtype=torch.float32, out=out)
    assert _outcome(lambda: torch.zeros(size, dtype=torch.float64, out=out)) == expected
    assert expected[0] == "error"


def test_built_in_functions_are_released(torch):
    """A torch function's object (of the native module's _Call) is freed as any object is, its type
    kept (a fault here ends the process)."""
    import gc

    from gradcalc.autograd.ops.generate import BuiltinFunction, builtin_function

    references = sys.getrefcount(BuiltinFunction)
    for _ in range(2000):
        made = builtin_function("tanh", torch.tanh._function, "<built-in method tanh>")
        assert made(torch.zeros(1)).tolist() == [0.0]
        cycle = [made]
        cycle.append(cycle)
        del made, cycle
    gc.collect()
    assert sys.getrefcount(BuiltinFunction) == references


def test_plain_ints_is_the_python_check() -> None:
    """parser.plain_ints in C gives the Python check's answer: exact ints only (not bools, floats,
    numpy's), none below the least, none past int64, a non-empty tuple (not a list)."""
    python = parser.plain_int_tuple
    cases = [(2, 3), (-1, 30), (-2, 3), (0,), (), [2, 3], (True, 2), (2.0,), (np.int64(2),), (2 ** 63 - 1,),
             (2 ** 63,), (-(2 ** 63),), (-(2 ** 63) - 1,), (3, "4"), 5, None]
    for least in (-1, 0, -(2 ** 63)):
        for case in cases:
            expected = bool(python(case) and least <= min(case) and max(case) < 2 ** 63)
            assert native.kernels.plain_ints(case, least) is expected, (case, least)
    assert parser.plain_ints is native.kernels.plain_ints
