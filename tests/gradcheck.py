"""Numerical gradient checks for gradcalc's autograd, after torch.autograd.gradcheck.

`gradcheck(fn, *inputs)` builds float64 leaves that require grad, computes the full Jacobian of
`fn` twice -- once with gradcalc's `autograd.grad` (one one-hot grad_output per output element)
and once by central finite differences on the numpy data -- and fails when they differ by more
than PyTorch's tolerances. `gradgradcheck` does the same for the function that maps the inputs
and some grad_outputs to the first derivatives computed with `create_graph=True`, so it checks
the derivatives of the backward formulas themselves.

An input is a numpy array (a contiguous leaf) or an `Input` naming a non-contiguous layout for
the leaf's storage, so that the ops under test also see transposed and strided data.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Optional, Sequence, Union

import numpy as np

from gradcalc.autograd import api, dtypes, forward_ad, forward_mode, random
from gradcalc.autograd.ops import creation
from gradcalc.autograd.tensor import Tensor

# torch.autograd.gradcheck's defaults
EPS = 1e-6
ATOL = 1e-5
RTOL = 1e-3

LAYOUTS = ("contiguous", "transposed", "strided")


@dataclass(frozen=True)
class Input:
    """The values of one leaf and how its storage is laid out."""

    array: np.ndarray
    layout: str = "contiguous"


InputLike = Union[np.ndarray, Input]
Function = Callable[..., Union[Tensor, Sequence[Optional[Tensor]]]]


def as_input(value: InputLike) -> Input:
    if isinstance(value, Input):
        return Input(np.asarray(value.array, dtype=np.float64), value.layout)
    return Input(np.asarray(value, dtype=np.float64))


def make_leaf(values: np.ndarray, layout: str = "contiguous") -> Tensor:
    """A float64 leaf that requires grad, holding `values` in the given storage layout."""
    if layout == "contiguous" or values.ndim == 0 or (layout == "transposed" and values.ndim < 2):
        leaf = creation.tensor(values.tolist(), dtype=dtypes.float64)
    elif layout == "transposed":
        # the storage holds the transpose; the leaf is its transposed (non-contiguous) view
        stored = creation.tensor(np.swapaxes(values, -1, -2).tolist(), dtype=dtypes.float64)
        leaf = stored.transpose(-1, -2).detach()
    elif layout == "strided":
        # every other element of a buffer twice as long in the last dimension
        buffer = np.zeros(values.shape[:-1] + (2 * values.shape[-1],))
        buffer[..., ::2] = values
        leaf = creation.tensor(buffer.tolist(), dtype=dtypes.float64)[..., ::2].detach()
    else:
        raise ValueError(f"unknown layout {layout!r}")
    return leaf.requires_grad_()


def outputs_of(result: Union[Tensor, Sequence[Optional[Tensor]]]) -> list:
    """The differentiable outputs of a function under test (None stands for an unused one)."""
    items = [result] if isinstance(result, Tensor) else list(result)
    return [item for item in items if item is not None and item.dtype.is_floating_point]


def to_numpy(tensor: Tensor) -> np.ndarray:
    return np.asarray(tensor.detach().tolist(), dtype=np.float64)


def _evaluate(fn: Function, inputs: Sequence[Input], arrays: Sequence[np.ndarray]) -> np.ndarray:
    leaves = [make_leaf(array, spec.layout) for array, spec in zip(arrays, inputs)]
    values = [to_numpy(out).reshape(-1) for out in outputs_of(fn(*leaves))]
    return np.concatenate(values) if values else np.zeros(0)


def numerical_jacobians(fn: Function, inputs: Sequence[Input], eps: float = EPS) -> list:
    """d(outputs)/d(input) for each input, by central differences: one (n_out, n_in) matrix each."""
    arrays = [spec.array.copy() for spec in inputs]
    jacobians = []
    for index, spec in enumerate(inputs):
        columns = []
        for position in range(spec.array.size):
            flat = arrays[index].reshape(-1)
            original = flat[position]
            flat[position] = original + eps
            plus = _evaluate(fn, inputs, arrays)
            flat[position] = original - eps
            minus = _evaluate(fn, inputs, arrays)
            flat[position] = original
            columns.append((plus - minus) / (2 * eps))
        n_out = _evaluate(fn, inputs, arrays).size
        jacobians.append(np.stack(columns, axis=1) if columns else np.zeros((n_out, 0)))
    return jacobians


def analytical_jacobians(fn: Function, inputs: Sequence[Input]) -> list:
    """d(outputs)/d(input) for each input, one row per output element, from autograd.grad."""
    leaves = [make_leaf(spec.array, spec.layout) for spec in inputs]
    outs = outputs_of(fn(*leaves))
    rows: list = [[] for _ in leaves]
    for out in outs:
        for position in range(out.numel()):
            if not out.requires_grad:
                # an output that does not depend on any input: a zero row
                grads: tuple = (None,) * len(leaves)
            else:
                one_hot = np.zeros(out.numel(), dtype=out.dtype._numpy)
                one_hot[position] = 1
                grad_output = creation.tensor(one_hot.reshape(out.shape).tolist(), dtype=out.dtype)
                grads = api.grad([out], leaves, [grad_output], retain_graph=True, allow_unused=True)
            for index, (leaf, grad) in enumerate(zip(leaves, grads)):
                if grad is None:
                    rows[index].append(np.zeros(leaf.numel()))
                    continue
                assert grad.shape == leaf.shape, f"grad of input {index} has shape {grad.shape}, not {leaf.shape}"
                assert grad.dtype is leaf.dtype, f"grad of input {index} has dtype {grad.dtype}, not {leaf.dtype}"
                rows[index].append(to_numpy(grad).reshape(-1))
    return [np.stack(r) if r else np.zeros((0, leaf.numel())) for r, leaf in zip(rows, leaves)]


def gradcheck(fn: Function, *inputs: InputLike, eps: float = EPS, atol: float = ATOL, rtol: float = RTOL) -> None:
    """Assert that autograd's Jacobian of `fn` at `inputs` matches finite differences."""
    specs = [as_input(value) for value in inputs]
    numerical = numerical_jacobians(fn, specs, eps)
    analytical = analytical_jacobians(fn, specs)
    for index, (n, a) in enumerate(zip(numerical, analytical)):
        assert n.shape == a.shape, f"input {index}: Jacobian shapes differ: numerical {n.shape}, analytical {a.shape}"
        if not np.allclose(a, n, rtol=rtol, atol=atol):
            raise AssertionError(f"Jacobian mismatch for input {index} ({specs[index].layout}, shape "
                                 f"{specs[index].array.shape}):\nnumerical:\n{n}\nanalytical:\n{a}")


def forward_jacobians(fn: Function, inputs: Sequence[Input]) -> list:
    """d(outputs)/d(input) for each input, one column per input element, from forward mode: the
    input carries a one-hot tangent, the outputs' tangents are the column."""
    primals = [make_leaf(spec.array, spec.layout) for spec in inputs]
    jacobians = []
    for index, primal in enumerate(primals):
        columns = []
        for position in range(primal.numel()):
            one_hot = np.zeros(primal.numel())
            one_hot[position] = 1
            level = forward_mode.enter_level()
            try:
                tangent = creation.tensor(one_hot.reshape(primal.shape).tolist(), dtype=dtypes.float64)
                duals = [forward_mode.dual(p, tangent, level) if i == index else p for i, p in enumerate(primals)]
                outs = outputs_of(fn(*duals))
                column = []
                for out in outs:
                    out_tangent = forward_mode.tangent_of(out, level)
                    if out_tangent is None:
                        column.append(np.zeros(out.numel()))
                        continue
                    assert out_tangent.shape == out.shape, f"tangent of shape {out_tangent.shape}, not {out.shape}"
                    assert out_tangent.dtype is out.dtype, f"tangent of dtype {out_tangent.dtype}, not {out.dtype}"
                    column.append(to_numpy(out_tangent).reshape(-1))
            finally:
                forward_mode.exit_level(level)
            columns.append(np.concatenate(column) if column else np.zeros(0))
        n_out = _evaluate(fn, inputs, [spec.array for spec in inputs]).size
        jacobians.append(np.stack(columns, axis=1) if columns else np.zeros((n_out, 0)))
    return jacobians


def jvpcheck(fn: Function, *inputs: InputLike, eps: float = EPS, atol: float = ATOL, rtol: float = RTOL) -> None:
    """Assert that the Jacobian forward mode computes for `fn` at `inputs` matches finite differences."""
    specs = [as_input(value) for value in inputs]
    numerical = numerical_jacobians(fn, specs, eps)
    forward = forward_jacobians(fn, specs)
    for index, (n, a) in enumerate(zip(numerical, forward)):
        assert n.shape == a.shape, f"input {index}: Jacobian shapes differ: numerical {n.shape}, forward {a.shape}"
        if not np.allclose(a, n, rtol=rtol, atol=atol):
            raise AssertionError(f"forward Jacobian mismatch for input {index} ({specs[index].layout}, shape "
                                 f"{specs[index].array.shape}):\nnumerical:\n{n}\nforward:\n{a}")


def first_derivatives(fn: Function, n_inputs: int) -> Function:
    """The function `(inputs..., grad_outputs...) -> d(fn)/d(inputs) . grad_outputs`, recorded with
    create_graph=True so that it can be differentiated again."""

    def derivative(*tensors: Tensor) -> list:
        leaves, grad_outputs = tensors[:n_inputs], tensors[n_inputs:]
        outs = outputs_of(fn(*leaves))
        return list(api.grad(outs, leaves, list(grad_outputs), create_graph=True, allow_unused=True))

    return derivative


def gradgradcheck(fn: Function, *inputs: InputLike, seed: int = 0, eps: float = EPS, atol: float = ATOL,
                  rtol: float = RTOL) -> None:
    """Assert that the second derivatives of `fn` (through create_graph=True) match finite
    differences of its first derivatives, for random grad_outputs."""
    specs = [as_input(value) for value in inputs]
    outs = outputs_of(fn(*[make_leaf(spec.array, spec.layout) for spec in specs]))
    rng = np.random.default_rng(seed)
    grad_outputs = [Input(rng.uniform(-1, 1, size=out.shape)) for out in outs]
    gradcheck(first_derivatives(fn, len(specs)), *specs, *grad_outputs, eps=eps, atol=atol, rtol=rtol)


# ------------------------------------------------------------------ cases and their values

def rand(*shape: int, low: float = -2.0, high: float = 2.0, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).uniform(low, high, size=shape)


def away_from_zero(*shape: int, seed: int = 0) -> np.ndarray:
    """Values with magnitudes in [0.3, 2] and random signs: clear of kinks at zero."""
    rng = np.random.default_rng(seed)
    return rng.uniform(0.3, 2.0, size=shape) * rng.choice([-1.0, 1.0], size=shape)


def distinct(*shape: int, seed: int = 0) -> np.ndarray:
    """Values at least 0.1 apart, in random order: no ties for max and min."""
    n = int(np.prod(shape, dtype=np.int64))
    return np.random.default_rng(seed).permutation(np.linspace(-2.0, 2.0, n) if n > 1 else np.ones(1)).reshape(shape)


def long_tensor(values: list) -> Tensor:
    return creation.tensor(values, dtype=dtypes.int64)


def bool_tensor(values: list) -> Tensor:
    return creation.tensor(values, dtype=dtypes.bool_)


def constant(array: np.ndarray) -> Tensor:
    """A float64 tensor that does not require grad."""
    return creation.tensor(array.tolist(), dtype=dtypes.float64)


def nonleaf(x: Tensor) -> Tensor:
    """A fresh non-leaf copy of a leaf, so that in-place operations on it are allowed."""
    return x * 1


@dataclass
class Case:
    name: str
    fn: Callable
    inputs: list
    second_order: bool = False  # also run gradgradcheck
    options: dict = field(default_factory=dict)  # eps / atol / rtol overrides

    def __str__(self) -> str:
        return self.name


def seeded(make: Callable) -> Tensor:
    """`make()` after seeding PyTorch's stream: the same draws at every evaluation of a check."""
    random.manual_seed(0)
    return make()
