"""Arranging elements: broadcasting, stacking and splitting in numpy's spellings, diagonals,
rotations, tiles, unfold, meshgrid, complex views, and the composite ops PyTorch builds from
others (their grad_fns are those of the ops they are made of, as in PyTorch)."""
from __future__ import annotations

from itertools import combinations as index_combinations, combinations_with_replacement
from typing import Any, Optional, Sequence

import numpy as np

from .. import dtypes
from ..layout import in_suggested_format
from ...warnings import warn_once
from ..tensor import Size, Tensor, wrap_dim
from .common import broadcast_shapes as shapes_broadcast, int64_tensor, is_conj, kernel_scalar, zeros_like
from .joining import cat, stack
from .parser import parser
from .registry import LINEAR, node, op, record
from .shape import expand, infer_size, narrow, unsafe_view

DIAGONAL = node("DiagonalBackward0", ("self",), jvp=LINEAR,
                self=lambda grad, self_sym_sizes, offset, dim1, dim2: _diagonal_backward(grad, self_sym_sizes, offset,
                                                                                         dim1, dim2))
DIAG_EMBED = node("DiagEmbedBackward0", ("self",), jvp=LINEAR,
                  self=lambda grad, offset, dim1, dim2: grad.diagonal(offset, dim1, dim2))
DIAGONAL_SCATTER = node("DiagonalScatterBackward0", ("self", "src"), jvp=LINEAR,
                        self=lambda grad, offset, dim1, dim2: diagonal_scatter(grad, zeros_like(
                            grad.diagonal(offset, dim1, dim2)), offset, dim1, dim2),
                        src=lambda grad, offset, dim1, dim2: grad.diagonal(offset, dim1, dim2))
SELECT_SCATTER = node("SelectScatterBackward0", ("self", "src"), jvp=LINEAR,
                      self=lambda grad, dim, index: select_scatter(grad, zeros_like(grad.select(dim, index)), dim,
                                                                   index),
                      src=lambda grad, dim, index: grad.select(dim, index))
SLICE_SCATTER = node("SliceScatterBackward0", ("self", "src"), jvp=LINEAR,
                     self=lambda grad, dim, start, end, step: slice_scatter(
                         grad, zeros_like(_sliced(grad, dim, start, end, step)), dim, start, end, step),
                     src=lambda grad, dim, start, end, step: _sliced(grad, dim, start, end, step))
ROT90 = node("Rot90Backward0", ("self",), jvp=LINEAR, self=lambda grad, k, dims: grad.rot90(-k, dims))
UNFOLD = node("UnfoldBackward0", ("self",), jvp=LINEAR,
              self=lambda grad, self_sym_sizes, dimension, size, step: _unfold_backward(grad, self_sym_sizes,
                                                                                        dimension, size, step))
TRACE = node("TraceBackward0", ("self",), jvp=LINEAR,
             self=lambda grad, self_sym_sizes: Tensor._make(np.eye(*self_sym_sizes, dtype=grad._dtype._numpy),
                                                            grad._dtype) * grad)
VIEW_AS_REAL = node("ViewAsRealBackward0", ("self",), jvp=LINEAR, self=lambda grad: view_as_complex(grad))
VIEW_AS_COMPLEX = node("ViewAsComplexBackward0", ("self",), jvp=LINEAR, self=lambda grad: view_as_real(grad.resolve_conj()))
COMPLEX = node("ComplexBackward0", ("real", "imag"), jvp=LINEAR,
               real=lambda grad, real, imag: grad.real if grad.is_complex() else grad,
               imag=lambda grad, real, imag: grad.imag if grad.is_complex() else zeros_like(grad))
POLAR = node("PolarBackward0", ("abs", "angle"),
             abs=lambda grad, result: (grad.conj() * result / result.abs()).real.masked_fill(result.abs() == 0, 0),
             angle=lambda grad, result: _polar_angle_grad(grad, result))


def _polar_angle_grad(grad: Tensor, result: Tensor) -> Tensor:
    # d result / d angle = i * result: the real part of conj(grad) * i * result
    return (grad.conj() * (result * 1j)).real


def _sliced(t: Tensor, dim: int, start: Any, end: Any, step: int) -> Tensor:
    return t[(slice(None),) * wrap_dim(dim, t.ndim) + (slice(start, end, step),)]


@op()
def broadcast_to(input: Tensor, size: Sequence[int]) -> Tensor:
    return expand(input, size)


def broadcast_shapes(*shapes: Any) -> Size:
    result: tuple = ()
    for shape in shapes:
        shape = (shape,) if isinstance(shape, int) else tuple(shape)
        for size in shape:
            if size < 0:
                raise RuntimeError(f"Trying to create tensor with negative dimension {size}: {list(shape)}")
        result = shapes_broadcast(result, shape)
    return Size(result)


op("broadcast_shapes", python="torch.functional", method=False)(broadcast_shapes)


def _tensor_list(name: str, tensors: Any, **kwargs: Any) -> dict:
    """torch.functional's variadic functions hand their arguments, as one tuple, to the C function
    `name`: its parser's checks (each element a tensor) and bound arguments."""
    return parser("torch", name).parse((tensors,), kwargs)[1]


def broadcast_tensors(*tensors: Any) -> tuple:
    tensors = _tensor_list("broadcast_tensors", tensors)["tensors"]
    shape = broadcast_shapes(*(t.shape for t in tensors))
    return tuple(t if t.shape == shape else expand(t, shape) for t in tensors)


op("broadcast_tensors", python="torch.functional", method=False)(broadcast_tensors)


def _at_least(t: Tensor, ndim: int) -> Tensor:
    """PyTorch's atleast_Nd: a scalar becomes all ones, a vector a row (and then a 1xNx1 block), a matrix
    gains a trailing axis."""
    if t.ndim >= ndim:
        return t
    if t.ndim == 0:
        return t.reshape((1,) * ndim)
    if t.ndim == 1:
        return t.unsqueeze(0) if ndim == 2 else t.unsqueeze(0).unsqueeze(-1)
    return t.unsqueeze(-1)


def _atleast(ndim: int) -> Any:
    def atleast(*tensors: Any) -> Any:
        # torch.functional's: one argument goes to the C function as it is, several as a tuple
        index, bound = parser("torch", f"atleast_{ndim}d").parse((tensors[0] if len(tensors) == 1 else tensors,), {})
        if index == 0:
            return _at_least(bound["input"], ndim)
        return tuple(_at_least(t, ndim) for t in bound["tensors"])

    return atleast


for _ndim in (1, 2, 3):
    op(f"atleast_{_ndim}d", python="torch.functional", method=False)(_atleast(_ndim))
del _ndim


def block_diag(*tensors: Tensor) -> Tensor:
    tensors = _tensor_list("block_diag", tensors)["tensors"]
    matrices = [t.reshape((1, -1)) if t.ndim == 1 else t.reshape((1, 1)) if t.ndim == 0 else t for t in tensors]
    rows = sum(m.shape[0] for m in matrices)
    columns = sum(m.shape[1] for m in matrices)
    dtype = dtypes.result_type(list(matrices)) if matrices else dtypes.get_default_dtype()
    if not matrices:  # ATen's result for no blocks: one row of no columns
        return Tensor._make(np.zeros((1, 0), dtype=dtype._numpy), dtype)

    def zeros(height: int, width: int) -> Tensor:
        return Tensor._make(np.zeros((height, width), dtype=dtype._numpy), dtype)

    # each block padded with zeros left and right to the full width, then the rows stacked: the
    # gradient flows through cat as in PyTorch
    padded, column = [], 0
    for m in matrices:
        padded.append(cat([zeros(m.shape[0], column), m.to(dtype), zeros(m.shape[0], columns - column - m.shape[1])],
                          1))
        column += m.shape[1]
    return cat(padded, 0)


op("block_diag", python="torch.functional", method=False)(block_diag)


def cartesian_prod(*tensors: Tensor) -> Tensor:
    tensors = _tensor_list("cartesian_prod", tensors)["tensors"]
    if len(tensors) == 1:
        return tensors[0]
    grids = meshgrid(*tensors, indexing="ij")
    return stack([grid.reshape(-1) for grid in grids], 1)


op("cartesian_prod", python="torch.functional", method=False)(cartesian_prod)


def meshgrid(*tensors: Any, indexing: Optional[str] = None) -> tuple:
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):  # torch's older form: one list
        tensors = tensors[0]
    bound = _tensor_list("meshgrid", tensors, **({} if indexing is None else {"indexing": indexing}))
    tensors = bound["tensors"]
    if indexing is None:
        warn_once("UserWarning", "torch.meshgrid: in an upcoming release, it will be required to pass the indexing "
                                 "argument.")
        indexing = "ij"
    if not len(tensors):
        raise RuntimeError("meshgrid expects a non-empty TensorList")
    if indexing not in ("ij", "xy"):
        raise RuntimeError(f"torch.meshgrid: indexing must be one of \"xy\" or \"ij\", but received: {indexing}")
    sizes = [t.numel() for t in tensors]
    swap = indexing == "xy" and len(tensors) >= 2
    if swap:
        sizes[0], sizes[1] = sizes[1], sizes[0]
    grids = []
    for index, t in enumerate(tensors):
        position = index if not swap or index > 1 else 1 - index
        view_shape = [1] * len(tensors)
        view_shape[position] = -1
        grids.append(t.view(tuple(view_shape)).expand(tuple(sizes)))
    return tuple(grids)


op("meshgrid", python="torch.functional", method=False)(meshgrid)


def _stacked(tensors: Sequence[Tensor], prepare: Any, dim: int) -> Tensor:
    return cat([prepare(t) for t in tensors], dim)


def _check_not_empty(tensors: Sequence[Tensor], name: str) -> None:
    if not len(tensors):
        raise RuntimeError(f"{name} expects a non-empty TensorList")


@op()
def hstack(tensors: Sequence[Tensor]) -> Tensor:
    _check_not_empty(tensors, "hstack")
    pieces = [t.reshape((1,)) if t.ndim == 0 else t for t in tensors]
    return cat(pieces, 0 if pieces and pieces[0].ndim == 1 else 1)


@op(aliases=("row_stack",))
def vstack(tensors: Sequence[Tensor]) -> Tensor:
    _check_not_empty(tensors, "vstack")
    return _stacked(tensors, lambda t: _at_least(t, 2), 0)


@op()
def dstack(tensors: Sequence[Tensor]) -> Tensor:
    _check_not_empty(tensors, "dstack")
    return _stacked(tensors, lambda t: _at_least(t, 3), 2)


@op()
def column_stack(tensors: Sequence[Tensor]) -> Tensor:
    _check_not_empty(tensors, "column_stack")
    return _stacked(tensors, lambda t: t.reshape((t.numel(), 1)) if t.ndim <= 1 else t, 1)


@op()
def tensor_split(input: Tensor, sections: Any = None, dim: int = 0, *, indices: Any = None,
                 tensor_indices_or_sections: Any = None) -> tuple:
    d = wrap_dim(dim, input.ndim)
    size = input.shape[d]
    if tensor_indices_or_sections is not None:
        values = tensor_indices_or_sections
        if values.ndim == 0:
            sections = int(values.item())
        else:
            indices = tuple(values.tolist())
    if indices is None:
        if sections <= 0:
            raise RuntimeError(f"number of sections must be larger than 0, got {sections}")
        base, extra = divmod(size, sections)
        bounds, start = [], 0
        for index in range(sections):
            length = base + (1 if index < extra else 0)
            bounds.append((start, start + length))
            start += length
    else:
        edges = [0] + [min(max(i, 0), size) for i in indices] + [size]
        bounds = [(edges[i], max(edges[i], edges[i + 1])) for i in range(len(edges) - 1)]
    return tuple(input[(slice(None),) * d + (slice(start, end),)] for start, end in bounds)


def _directional_split(name: str, dim: int, minimum: int) -> None:
    def split(input: Tensor, sections: Any = None, *, indices: Any = None) -> tuple:
        if input.ndim < minimum:
            raise RuntimeError(f"torch.{name} requires a tensor with at least {minimum} dimension, but got a tensor "
                               f"with {input.ndim} dimensions!")
        d = 0 if name == "hsplit" and input.ndim == 1 else dim
        if indices is None and input.shape[d] % sections:
            raise RuntimeError(f"torch.{name} attempted to split along dimension {d}, but the size of the dimension "
                               f"{input.shape[d]} is not divisible by the split_size {sections}!")
        return tensor_split(input, sections, d, indices=indices)

    split.__name__ = split.__qualname__ = name
    op(name)(split)


_directional_split("hsplit", 1, 1)
_directional_split("vsplit", 0, 2)
_directional_split("dsplit", 2, 3)


def _diagonal_dims(ndim: int, dim1: int, dim2: int) -> tuple:
    return wrap_dim(dim1, ndim), wrap_dim(dim2, ndim)


@op(nodes=(DIAGONAL,), inplace=False)
def diagonal(input: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor:
    d1, d2 = _diagonal_dims(input.ndim, dim1, dim2)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    reach = input.shape[d1] + input.shape[d2]  # (an offset past both sizes gives an empty diagonal)
    data = np.diagonal(input._data, max(-reach, min(offset, reach)), d1, d2)
    if input._data.flags.writeable:  # numpy's diagonal is read-only; torch's is a view to write through
        data.setflags(write=True)
    return record(DIAGONAL, (input,), data, input._dtype, view_of=input, self_sym_sizes=input.shape, offset=offset,
                  dim1=dim1, dim2=dim2)


def _diagonal_backward(grad: Tensor, shape: tuple, offset: int, dim1: int, dim2: int) -> Tensor:
    return diagonal_scatter(Tensor._make(np.zeros(shape, dtype=grad._dtype._numpy), grad._dtype), grad, offset, dim1,
                            dim2)


@op(nodes=(DIAG_EMBED,))
def diag_embed(input: Tensor, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Tensor:
    ndim = input.ndim + 1
    d1, d2 = wrap_dim(dim1, ndim), wrap_dim(dim2, ndim)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    size = input.shape[-1] + abs(offset) if input.ndim else abs(offset) + 1
    rest = list(input.shape[:-1])
    out_shape = []
    for axis in range(ndim):
        out_shape.append(size if axis in (d1, d2) else rest.pop(0))
    data = np.zeros(out_shape, dtype=input._dtype._numpy)
    view = np.diagonal(data, offset, d1, d2)
    view.setflags(write=True)
    view[...] = input._data
    return record(DIAG_EMBED, (input,), data, input._dtype, offset=offset, dim1=dim1, dim2=dim2)


@op()
def diagflat(input: Tensor, offset: int = 0) -> Tensor:
    return diag_embed(input.contiguous().view(-1), offset, 0, 1)


@op(nodes=(DIAGONAL_SCATTER,))
def diagonal_scatter(input: Tensor, src: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor:
    d1, d2 = _diagonal_dims(input.ndim, dim1, dim2)
    data = input._data.copy()
    view = np.diagonal(data, offset, d1, d2)
    view.setflags(write=True)
    view[...] = src._data
    return record(DIAGONAL_SCATTER, (input, src), data, input._dtype, offset=offset, dim1=dim1, dim2=dim2)


@op(nodes=(SELECT_SCATTER,))
def select_scatter(input: Tensor, src: Tensor, dim: int, index: int) -> Tensor:
    data = input._data.copy()
    data[(slice(None),) * wrap_dim(dim, input.ndim) + (index,)] = src._data
    return record(SELECT_SCATTER, (input, src), data, input._dtype, dim=dim, index=index)


@op(nodes=(SLICE_SCATTER,))
def slice_scatter(input: Tensor, src: Tensor, dim: int = 0, start: Any = None, end: Any = None,
                  step: int = 1) -> Tensor:
    data = input._data.copy()
    data[(slice(None),) * wrap_dim(dim, input.ndim) + (slice(start, end, step),)] = src._data
    return record(SLICE_SCATTER, (input, src), data, input._dtype, dim=dim, start=start, end=end, step=step)


@op()
def fliplr(input: Tensor) -> Tensor:
    if input.ndim < 2:
        raise RuntimeError("Input must be >= 2-d.")
    return input.flip(1)


@op()
def flipud(input: Tensor) -> Tensor:
    if input.ndim < 1:
        raise RuntimeError("Input must be >= 1-d.")
    return input.flip(0)


@op(nodes=(ROT90,))
def rot90(input: Tensor, k: int = 1, dims: Sequence[int] = (0, 1)) -> Tensor:
    if len(dims) != 2:
        raise RuntimeError(f"expected total rotation dims == 2, but got dims = {len(dims)}")
    if input.ndim < 2:
        raise RuntimeError(f"expected total dims >= 2, but got total dims = {input.ndim}")
    d0, d1 = wrap_dim(dims[0], input.ndim), wrap_dim(dims[1], input.ndim)
    if d0 == d1:
        raise RuntimeError(f"expected rotation dims to be different, but got dim0 = {d0} and dim1 = {d1}")
    data = np.ascontiguousarray(np.rot90(input._data, k, (d0, d1)))
    return record(ROT90, (input,), data, input._dtype, k=k, dims=tuple(dims))


@op()
def ravel(input: Tensor) -> Tensor:
    return input.contiguous().view(-1)


@op()
def tile(input: Tensor, dims: Sequence[int]) -> Tensor:
    dims = tuple(dims)
    if len(dims) < input.ndim:
        dims = (1,) * (input.ndim - len(dims)) + dims
    return input.repeat(dims)


def _unflatten(input: Tensor, dim: int, sizes: Sequence[int]) -> Tensor:
    d = wrap_dim(dim, input.ndim)
    sizes = tuple(sizes)
    if not sizes:
        raise RuntimeError("unflatten: sizes must be non-empty")
    try:
        inferred = infer_size(sizes, input.shape[d])
    except RuntimeError as error:  # ATen's handle_unflatten_exception (which shows C++'s backtrace too)
        if "is invalid for input of size" not in str(error):
            raise RuntimeError(f"unflatten got an unexpected error:\n{error}") from None
        raise RuntimeError(f"unflatten: Provided sizes {list(sizes)} don't multiply up to the size of dim {d} "
                           f"({input.shape[d]}) in the input tensor") from None
    return input.view(input.shape[:d] + inferred + input.shape[d + 1:])


def _unflatten_method(self: Tensor, dim: Any, sizes: Any) -> Tensor:
    """Tensor.unflatten is Python: its own check of sizes, then the C++ method's parser."""
    if not sizes:
        raise RuntimeError("unflatten: sizes must be non-empty")
    bound = parser("Tensor", "unflatten").parse((dim, sizes), {})[1]
    return _unflatten(self, bound["dim"], bound["sizes"])


op("unflatten", method=_unflatten_method)(_unflatten)


@op(function=False, nodes=(UNFOLD,))
def unfold(input: Tensor, dimension: int, size: int, step: int) -> Tensor:
    d = wrap_dim(dimension, max(input.ndim, 1))
    length = input.shape[d] if input.ndim else 1
    if size > length:
        raise RuntimeError(f"maximum size for tensor at dimension {d} is {length} but size is {size}")
    if size < 0:
        raise RuntimeError(f"size is {size} but must be >= 0")
    if step <= 0:
        raise RuntimeError(f"step is {step} but must be > 0")
    x = input._data if input.ndim else input._data.reshape(1)
    count = (length - size) // step + 1
    strides = x.strides[:d] + (x.strides[d] * step,) + x.strides[d + 1:] + (x.strides[d],)
    shape = x.shape[:d] + (count,) + x.shape[d + 1:] + (size,)
    data = np.lib.stride_tricks.as_strided(x, shape, strides)
    return record(UNFOLD, (input,), data, input._dtype, view_of=input, self_sym_sizes=input.shape, dimension=dimension,
                  size=size, step=step)


def _unfold_backward(grad: Tensor, shape: tuple, dimension: int, size: int, step: int) -> Tensor:
    """Each window's gradient added back where the window came from (index_add, so that it
    differentiates again)."""
    if not shape:
        return grad.reshape(())
    d = wrap_dim(dimension, len(shape))
    count = grad.shape[d]
    positions = (np.arange(count)[:, None] * step + np.arange(size)[None, :]).reshape(-1)
    windows = grad.movedim(-1, d + 1).flatten(d, d + 1)
    return grad.new_zeros(shape).index_add(d, int64_tensor(positions), windows)


@op(nodes=(TRACE,))
def trace(input: Tensor) -> Tensor:
    if input.ndim != 2:
        raise RuntimeError("trace: expected a matrix, but got tensor with dim " + str(input.ndim))
    dtype = dtypes.int64 if input._dtype.category <= dtypes.INTEGRAL else input._dtype
    return record(TRACE, (input,), np.asarray(np.trace(input._data), dtype=dtype._numpy), dtype,
                  self_sym_sizes=input.shape)


@op(nodes=(VIEW_AS_REAL,))
def view_as_real(input: Tensor) -> Tensor:
    if not input._dtype.is_complex:
        raise RuntimeError("view_as_real is only supported for complex tensors")
    if is_conj(input):
        raise RuntimeError("view_as_real doesn't work on unresolved conjugated tensors.  To resolve the conjugate tensor "
                           "so you can view it as real, use self.resolve_conj(); however, be warned that the resulting "
                           "tensor will NOT alias the original.")
    return _as_real_pairs(input)


def _as_real_pairs(input: Tensor) -> Tensor:
    """view_as_real's view, without its check of the conjugate bit: the real parts with one more
    axis, of stride one element, reaching the imaginary parts."""
    real = input._data.real
    data = np.lib.stride_tricks.as_strided(real, real.shape + (2,), real.strides + (real.itemsize,))
    return record(VIEW_AS_REAL, (input,), data, input._dtype.to_real(), view_of=input)


@op(method=False)
def real(input: Tensor) -> Tensor:
    # PyTorch's view: the first of the pairs view_as_real makes
    return _as_real_pairs(input).select(-1, 0) if input._dtype.is_complex else input


@op(method=False)
def imag(input: Tensor) -> Tensor:
    if not input._dtype.is_complex:
        raise RuntimeError("imag is not implemented for tensors with non-complex dtypes.")
    return _as_real_pairs(input).select(-1, 1)


@op(nodes=(VIEW_AS_COMPLEX,))
def view_as_complex(input: Tensor) -> Tensor:
    if input._dtype not in (dtypes.float32, dtypes.float64, dtypes.float16):
        raise RuntimeError(f"view_as_complex is only supported for float and double tensors, but got a tensor of "
                           f"scalar type: {input._dtype._scalar_name}")
    if not input.ndim or input.shape[-1] != 2:
        raise RuntimeError("Tensor must have a last dimension of size 2")
    data = np.ascontiguousarray(input._data).view(input._dtype.to_complex()._numpy).reshape(input.shape[:-1])
    return record(VIEW_AS_COMPLEX, (input,), data, input._dtype.to_complex(), view_of=input)


@op(nodes=(COMPLEX,), method=False)
def complex(real: Tensor, imag: Tensor) -> Tensor:
    _check_complex_parts(real, imag)
    dtype = real._dtype.to_complex()
    return record(COMPLEX, (real, imag), (real._data + 1j * imag._data).astype(dtype._numpy), dtype)


def _check_complex_parts(a: Tensor, b: Tensor) -> None:
    """complex_check_floating, complex_check_dtype, then TensorIterator's shapes."""
    if not (a._dtype in (dtypes.float32, dtypes.float64, dtypes.float16)
            and b._dtype in (dtypes.float32, dtypes.float64, dtypes.float16)):
        raise RuntimeError(f"Expected both inputs to be Half, Float or Double tensors but got "
                           f"{a._dtype._scalar_name} and {b._dtype._scalar_name}")
    if a._dtype is not b._dtype:
        raise RuntimeError(f"Expected object of scalar type {a._dtype._scalar_name} but got scalar type "
                           f"{b._dtype._scalar_name} for second argument")
    shapes_broadcast(tuple(a.shape), tuple(b.shape))


@op(nodes=(POLAR,), method=False)
def polar(abs: Tensor, angle: Tensor) -> Tensor:
    _check_complex_parts(abs, angle)
    if abs._dtype is dtypes.float16:
        raise NotImplementedError("\"polar_cpu\" not implemented for 'Half'")
    dtype = abs._dtype.to_complex()
    data = (abs._data * np.cos(angle._data) + 1j * abs._data * np.sin(angle._data)).astype(dtype._numpy)
    return record(POLAR, (abs, angle), data, dtype)


@op(method=False)
def combinations(input: Tensor, r: int = 2, with_replacement: bool = False) -> Tensor:
    if input.ndim != 1:
        raise RuntimeError(f"Expect a 1D vector, but got shape {list(input.shape)}")
    pick = combinations_with_replacement if with_replacement else index_combinations
    groups = list(pick(range(input.shape[0]), r))
    if not groups:
        return Tensor._make(np.empty((0,), dtype=input._dtype._numpy), input._dtype)
    columns = [int64_tensor([group[k] for group in groups]) for k in range(r)]
    return stack([input[column] for column in columns], 1)


def _triangle_indices(row: int, col: int, offset: int, lower: bool, dtype: Optional[Any]) -> Tensor:
    dtype = dtype or dtypes.int64
    if dtype not in (dtypes.int64, dtypes.int32):  # (the kernel's dispatch)
        raise NotImplementedError(f"\"{'tril' if lower else 'triu'}_indices\" not implemented for '{dtype._scalar_name}'")
    rows, cols = np.tril_indices(row, offset, col) if lower else np.triu_indices(row, offset, col)
    return Tensor._make(np.stack([rows, cols]).astype(dtype._numpy), dtype)


@op()
def tril_indices(row: int, col: int, offset: int = 0, *, dtype: Any = None, layout: Any = None, device: Any = None,
                 pin_memory: Any = False, requires_grad: Any = False) -> Tensor:
    return _triangle_indices(row, col, offset, True, dtype)


@op()
def triu_indices(row: int, col: int, offset: int = 0, *, dtype: Any = None, layout: Any = None, device: Any = None,
                 pin_memory: Any = False, requires_grad: Any = False) -> Tensor:
    return _triangle_indices(row, col, offset, False, dtype)


@op()
def kron(input: Tensor, other: Tensor) -> Tensor:
    ndim = max(input.ndim, other.ndim)
    a = input.reshape((1,) * (ndim - input.ndim) + tuple(input.shape))
    b = other.reshape((1,) * (ndim - other.ndim) + tuple(other.shape))
    interleaved_a = a.reshape(tuple(n for size in a.shape for n in (size, 1)))
    interleaved_b = b.reshape(tuple(n for size in b.shape for n in (1, size)))
    product = interleaved_a * interleaved_b
    return unsafe_view(product, tuple(x * y for x, y in zip(a.shape, b.shape)))


@op(method=False)
def vander(x: Tensor, N: Optional[int] = None, increasing: bool = False) -> Tensor:
    if x.ndim != 1:
        raise RuntimeError("x must be a one-dimensional tensor.")
    count = x.shape[0] if N is None else N
    if count < 0:
        raise RuntimeError("N must be non-negative.")
    powers = int64_tensor(np.arange(count)) if increasing else int64_tensor(np.arange(count)[::-1].copy())
    dtype = x._dtype if x._dtype.category >= dtypes.INTEGRAL and x._dtype is not dtypes.bool_ else dtypes.int64
    return x.to(dtype).unsqueeze(1).pow(powers)


@op()
def adjoint(input: Tensor) -> Tensor:
    return input.transpose(-2, -1).conj()


@op(aliases=("moveaxis",), inplace=False)
def movedim_alias(input: Tensor, source: Any, destination: Any) -> Tensor:
    return input.movedim(source, destination)


@op()
def narrow_copy(input: Tensor, dim: int, start: int, length: int) -> Tensor:
    return narrow(input, dim, start, length).clone()


@op()
def diff(input: Tensor, n: int = 1, dim: int = -1, prepend: Optional[Tensor] = None,
         append: Optional[Tensor] = None) -> Tensor:
    if input.ndim == 0:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    if n < 0:
        raise RuntimeError(f"order must be non-negative but got {n}")
    d = wrap_dim(dim, input.ndim)
    if n == 0:  # a copy, whatever is prepended or appended
        return zeros_like(input).copy_(input)
    current = cat([t for t in (prepend, input, append) if t is not None], d) if (prepend is not None or
                                                                                  append is not None) else input
    # an order above the size is taken as the size: nothing left, or the input itself when it is empty
    length = current.shape[d] - 1
    for _ in range(min(n, current.shape[d])):
        later, earlier = narrow(current, d, 1, length), narrow(current, d, 0, length)
        current = (later.logical_xor(earlier) if current._dtype is dtypes.bool_ else later - earlier)
        length -= 1
    return current


@op()
def repeat_interleave(input: Tensor, repeats: Any = None, dim: Optional[int] = None, *,
                      output_size: Optional[int] = None) -> Tensor:
    if repeats is None:  # repeat_interleave(repeats): the indices, each repeated its own count
        counts = input._data
        return int64_tensor(np.repeat(np.arange(counts.size), counts))
    flat = input.reshape(-1) if dim is None else input
    d = 0 if dim is None else wrap_dim(dim, input.ndim)
    if isinstance(repeats, Tensor) and repeats.numel() != 1:
        index = int64_tensor(np.repeat(np.arange(flat.shape[d]), repeats._data))
        return flat.index_select(d, index)
    count = int(repeats.item()) if isinstance(repeats, Tensor) else repeats
    if count < 0:
        raise RuntimeError("repeats can not be negative")
    expanded = flat.unsqueeze(d + 1)
    shape = list(expanded.shape)
    shape[d + 1] = count
    result = expanded.expand(tuple(shape)).clone()
    out_shape = list(flat.shape)
    out_shape[d] *= count
    return result.view(tuple(out_shape))



CONSTANT_PAD = node("ConstantPadNdBackward0", ("self",), jvp=LINEAR,
                    self=lambda grad, pad: constant_pad_nd(grad, [-p for p in pad]))


@op(nodes=(CONSTANT_PAD,), method=False)
def constant_pad_nd(input: Tensor, pad: Sequence[int], value: Any = 0) -> Tensor:
    """Pads (before, after) per dim from the last dim backwards; negative pads cut."""
    pad = list(pad)
    if len(pad) % 2:
        raise RuntimeError("Length of pad must be even but instead it equals " + str(len(pad)))
    if len(pad) // 2 > input.ndim:
        # ATen's words, without their spaces
        raise RuntimeError(f"Length of pad should be no more than twice the number of dimensions of the input. "
                           f"Pad length is {len(pad)}while the input has {input.ndim}dimensions.")
    widths = [(0, 0)] * input.ndim
    for k in range(len(pad) // 2):
        widths[input.ndim - 1 - k] = (pad[2 * k], pad[2 * k + 1])
    for (before, after), size in zip(widths, input.shape):
        if size + before + after < 0:  # ATen cuts negative pads with narrow()
            raise RuntimeError("narrow(): length must be non-negative.")
    cut = tuple(slice(max(-before, 0), size - max(-after, 0)) for (before, after), size in zip(widths, input.shape))
    value = kernel_scalar(value, input._dtype)
    data = np.pad(input._data[cut], [(max(before, 0), max(after, 0)) for before, after in widths],
                  constant_values=value)
    data = in_suggested_format(np.asarray(data, dtype=input._dtype._numpy), input._data)  # (its memory format kept)
    return record(CONSTANT_PAD, (input,), data, input._dtype, pad=tuple(pad))
