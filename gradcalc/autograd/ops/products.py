"""More products: the fused multiply-adds (addmv, addr, baddbmm, addbmm), vdot and cross, and
the composite products PyTorch builds from mm, bmm and views (inner, tensordot, einsum,
multi_dot, matrix_power, vecdot), so their graphs show the nodes PyTorch's show."""
from __future__ import annotations

from typing import Any, Callable, Optional, Sequence

import numpy as np

from .. import autocast, dtypes, kernels, mkl, simd
from ..tensor import Tensor, wrap_dim
from ...display.names import type_name
from ...warnings import warn_once
from .common import broadcast_shapes, check_has_kernel, kernel_scalar, normalize_dims, opmath_scalar, shape_text
from .decompositions import check_floating
from .generate import make_inplace
from .joining import cat
from .linalg import SMALL_BATCHED_PRODUCT, batched_products, bmm, check_addmm_dtypes, check_vectors, dot, matmul, mm
from .parser import parser
from .registry import LINEAR, node, op, record
from .shape import expanded_shape


def _scaled(grad: Tensor, factor: Any) -> Tensor:
    return grad if factor == 1 else grad * factor


ADDMV = node("AddmvBackward0", ("self", "mat", "vec"), jvp=LINEAR,
             self=lambda grad, beta: _scaled(grad, beta),
             mat=lambda grad, vec, alpha: _scaled(grad.unsqueeze(1) * vec.conj().unsqueeze(0), alpha),
             vec=lambda grad, mat, alpha: _scaled(mat.t().conj().mv(grad), alpha))
ADDR = node("AddrBackward0", ("self", "vec1", "vec2"), jvp=LINEAR,
            self=lambda grad, beta: _scaled(grad, beta),
            vec1=lambda grad, vec2, alpha: _scaled(grad.mv(vec2.conj()), alpha),
            vec2=lambda grad, vec1, alpha: _scaled(grad.t().mv(vec1.conj()), alpha))
BADDBMM = node("BaddbmmBackward0", ("self", "batch1", "batch2"), jvp=LINEAR,
               self=lambda grad, beta: _scaled(grad, beta),
               batch1=lambda grad, batch2, alpha: _scaled(grad.bmm(batch2.transpose(1, 2).conj()), alpha),
               batch2=lambda grad, batch1, alpha: _scaled(batch1.transpose(1, 2).conj().bmm(grad), alpha))
ADDBMM = node("AddbmmBackward0", ("self", "batch1", "batch2"), jvp=LINEAR,
              saved=("batch1_sym_argsize_0", "batch1_sym_argsize_1", "batch2_sym_argsize_2"),
              self=lambda grad, beta: _scaled(grad, beta),
              batch1=lambda grad, batch2, alpha: _scaled(grad.unsqueeze(0).expand(
                  (batch2.shape[0],) + tuple(grad.shape)).bmm(batch2.transpose(1, 2).conj()), alpha),
              batch2=lambda grad, batch1, alpha: _scaled(batch1.transpose(1, 2).conj().bmm(grad.unsqueeze(0).expand(
                  (batch1.shape[0],) + tuple(grad.shape))), alpha))
VDOT = node("VdotBackward0", ("self", "other"),
            jvp={"self": lambda tangent, other: vdot(tangent, other), "other": lambda tangent, self: vdot(self, tangent)},
            self=lambda grad, other: grad.conj() * other, other=lambda grad, self: grad * self)
CROSS = node("LinalgCrossBackward0", ("self", "other"), jvp=LINEAR,
             self=lambda grad, other, dim: linalg_cross(other.conj(), grad, dim=dim),
             other=lambda grad, self, dim: linalg_cross(grad, self.conj(), dim=dim))


def _fused(scalar: Any, dtype: Any) -> Any:
    return np.asarray(scalar, dtype=dtype._numpy)


def _mkl_scaled(routine: Callable, input: np.ndarray, first: np.ndarray, second: np.ndarray, alpha: Any, beta: Any,
                shape: tuple) -> Optional[np.ndarray]:
    """ROUTINE(first, second, the input broadcast to SHAPE, alpha, beta) through MKL, when it is in
    use and the scalars are real numbers (None otherwise)."""
    if not all(isinstance(x, (int, float)) for x in (alpha, beta)) or input.dtype != first.dtype:
        return None
    return routine(first, second, np.broadcast_to(input, shape) if beta != 0 else None, alpha, beta)


@op(nodes=(ADDMV,))
def addmv(input: Tensor, mat: Tensor, vec: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:
    if mat.ndim != 2 or vec.ndim != 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got {input.ndim}, {mat.ndim}, {vec.ndim}")
    if mat.shape[1] != vec.shape[0] or input.shape not in ((), (1,), (mat.shape[0],)):
        raise RuntimeError(f"size mismatch, got input ({input.shape[0] if input.ndim else 1}), mat "
                           f"({mat.shape[0]}x{mat.shape[1]}), vec ({vec.shape[0]})")
    if not input._dtype is mat._dtype is vec._dtype:
        raise RuntimeError(f"addmv input tensors must have the same dtype, but got {input._dtype._scalar_name}, "
                           f"{mat._dtype._scalar_name}, and {vec._dtype._scalar_name}")
    dtype = mat._dtype
    beta, alpha = opmath_scalar(beta, dtype), opmath_scalar(alpha, dtype)
    check_has_kernel("addmv_impl_cpu", mat)
    data = _mkl_scaled(mkl.gemv, input._data, mat._data, vec._data, alpha, beta, (mat.shape[0],))
    if data is not None:  # ATen copies the input into the result, which ?gemv_ scales by beta and adds to
        return record(ADDMV, (input, mat, vec), data, dtype, beta=beta, alpha=alpha)
    data = _fused(beta, dtype) * input._data + _fused(alpha, dtype) * (mat._data @ vec._data) if beta != 0 else \
        _fused(alpha, dtype) * (mat._data @ vec._data)
    return record(ADDMV, (input, mat, vec), np.asarray(np.broadcast_to(data, (mat.shape[0],)), dtype=dtype._numpy),
                  dtype, beta=beta, alpha=alpha)


def _addr_kernel(input: np.ndarray, vec1: np.ndarray, vec2: np.ndarray, alpha: Any,
                 beta: Any) -> Optional[np.ndarray]:
    """ATen's addr_kernel (an element-wise kernel, not BLAS) on float32/float64 as its compiled
    loops compute it, measured (the same on both capabilities: its AVX2 build runs on both):
    alpha * vec1 * vec2 from the left; with beta, a multiply-add the compiler fused,
    fma(alpha*vec1, vec2, beta*input) over whole pairs of registers along the inner dimension
    (the columns, or the rows of a column-major input or a single column) and
    fma(beta, input, alpha*vec1*vec2) in the scalar tail, or everywhere when two operands are
    constant along it. None for other layouts (a strided operand), not measured."""
    dtype = vec1.dtype
    m, n = vec1.shape[0], vec2.shape[0]
    if dtype.type not in (np.float32, np.float64) or not input.dtype == vec2.dtype == dtype or \
            not all(isinstance(x, (int, float)) for x in (alpha, beta)):
        return None
    scaled = (dtype.type(alpha) * vec1)[:, None] * np.ones(n, dtype)
    if beta == 0:
        return scaled * vec2
    whole = np.broadcast_to(input, (m, n))
    tail = kernels.fused_multiply_add(np.full((m, n), beta, dtype), whole, scaled * vec2)
    step = dtype.itemsize
    column_major = m > 1 and n > 1 and whole.strides[0] == step and whole.strides[1] >= m * step
    axis = 0 if n == 1 or column_major else 1
    length, pair = (m, n)[axis], 64 // step  # two AVX2 registers
    if length < pair:
        return tail
    strides = (whole.strides[axis], vec1.strides[0] if axis == 0 else 0, 0 if axis == 0 else vec2.strides[0])
    if any(stride not in (0, step) for stride in strides):
        return None
    if strides.count(0) > 1:  # no vectorised loop
        return tail
    body = kernels.fused_multiply_add(scaled, np.broadcast_to(vec2, (m, n)), dtype.type(beta) * whole)
    position = np.arange(length)[:, None] if axis == 0 else np.arange(length)
    return np.where(position < length - length % pair, body, tail)


def _reduced_addr(input: np.ndarray, vec1: np.ndarray, vec2: np.ndarray, alpha: Any, beta: Any,
                  dtype: dtypes.DType) -> np.ndarray:
    """addr_kernel on float16 and bfloat16: alpha and beta in the tensors' dtype, and each of
    beta * self + alpha * vec1 * vec2's operations computed in float and rounded back, as c10's
    Half and BFloat16 operators (and their Vectorized ones) compute."""
    def rounded(values: Any) -> np.ndarray:
        values = np.asarray(values, np.float32)
        return values.astype(np.float16) if dtype is dtypes.float16 else dtypes.round_to_bfloat16(values)

    alpha_value, beta_value = rounded(float(alpha)), rounded(float(beta))
    wide = np.float32
    scaled = rounded(wide(alpha_value) * vec1.astype(wide))
    product = rounded(scaled.astype(wide)[:, None] * vec2.astype(wide)[None, :])
    if beta_value == 0:
        return product
    shifted = rounded(wide(beta_value) * np.broadcast_to(input, product.shape).astype(wide))
    return rounded(shifted.astype(wide) + product.astype(wide))


def _addr_in_place(input: Tensor, vec1: Tensor, vec2: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:
    # addr_'s own check comes first: the tensor written must have the product's shape
    if input.ndim != 2 or input.shape[0] != vec1.shape[0] or input.shape[1] != vec2.shape[0]:
        raise RuntimeError(f"size mismatch, input: {shape_text(input.shape)}, v1: {shape_text(vec1.shape)}, "
                           f"v2: {shape_text(vec2.shape)}")
    return addr(input, vec1, vec2, beta=beta, alpha=alpha)


@op(nodes=(ADDR,), inplace=make_inplace(_addr_in_place, name="addr_"))
def addr(input: Tensor, vec1: Tensor, vec2: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:
    if vec1.ndim != 1 or vec2.ndim != 1:
        raise RuntimeError(f"addr: Expected 1-D argument vec1, but got {vec1.ndim}-D" if vec1.ndim != 1 else
                           f"addr: Expected 1-D argument vec2, but got {vec2.ndim}-D")
    dtype = dtypes.result_type([input, vec1, vec2])
    for name, scalar in (("beta", beta), ("alpha", alpha)):  # addr's own check of its scalars
        if isinstance(scalar, bool) and dtype is not dtypes.bool_:
            raise RuntimeError(f"Boolean {name} only supported for Boolean results.")
        if dtype.category <= dtypes.INTEGRAL and not isinstance(scalar, int):
            raise RuntimeError(f"For integral input tensors, argument {name} must not be a floating point number.")
    expanded_shape(input, (vec1.shape[0], vec2.shape[0]))  # input is expanded to the product's shape, not broadcast
    beta, alpha = kernel_scalar(beta, dtype), kernel_scalar(alpha, dtype)
    if dtype in (dtypes.float16, dtypes.bfloat16) and input._dtype is vec1._dtype is vec2._dtype:
        data = _reduced_addr(input._data, vec1._data, vec2._data, alpha, beta, dtype)
    else:
        data = _addr_kernel(input._data, vec1._data, vec2._data, alpha, beta)
    if data is None:
        product = np.multiply.outer(vec1._data, vec2._data)
        data = product * _fused(alpha, dtype) + (input._data * _fused(beta, dtype) if beta != 0 else 0)
    return record(ADDR, (input, vec1, vec2), np.asarray(data, dtype=dtype._numpy), dtype, beta=beta, alpha=alpha)


def _check_batches(batch1: Tensor, batch2: Tensor) -> None:
    for name, t in (("batch1", batch1), ("batch2", batch2)):
        if t.ndim != 3:
            raise RuntimeError(f"{name} must be a 3D tensor")
    if batch1.shape[0] != batch2.shape[0] or batch1.shape[2] != batch2.shape[1]:
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: [{batch1.shape[0]}, "
                           f"{batch1.shape[2]}] but got: [{batch2.shape[0]}, {batch2.shape[1]}].")


@op(nodes=(BADDBMM,))
def baddbmm(input: Tensor, batch1: Tensor, batch2: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:
    input, batch1, batch2 = autocast.lower_precision(input, batch1, batch2)
    _check_batches(batch1, batch2)
    if input._dtype is not batch1._dtype:
        raise RuntimeError(f"Input dtypes must be the same, got: input {input._dtype._cpp_name}, batch1: "
                           f"{batch1._dtype._cpp_name}, batch2: {batch2._dtype._cpp_name}")
    if batch2._dtype is not batch1._dtype:  # then the kernel's own check
        raise RuntimeError(f"expected scalar type {batch1._dtype._scalar_name} but found {batch2._dtype._scalar_name}")
    dtype = batch1._dtype
    if dtype is dtypes.bool_:
        raise NotImplementedError("\"baddbmm\" not implemented for 'Bool'")
    shape = (batch1.shape[0], batch1.shape[1], batch2.shape[2])
    broadcast_shapes(tuple(input.shape), shape)
    beta, alpha = opmath_scalar(beta, dtype), opmath_scalar(alpha, dtype)
    if batch1.shape[1] * batch1.shape[2] * batch2.shape[2] >= SMALL_BATCHED_PRODUCT:
        data = _mkl_scaled(mkl.bmm, input._data, batch1._data, batch2._data, alpha, beta, shape)
        if data is not None:  # as bmm, the input copied into the result first
            return record(BADDBMM, (input, batch1, batch2), data, dtype, beta=beta, alpha=alpha)
    data = batched_products(batch1._data, batch2._data) * _fused(alpha, dtype)
    if beta != 0:
        data = data + input._data * _fused(beta, dtype)
    return record(BADDBMM, (input, batch1, batch2), np.asarray(data, dtype=dtype._numpy), dtype, beta=beta,
                  alpha=alpha)


def _addbmm_through_mkl(input: np.ndarray, batch1: np.ndarray, batch2: np.ndarray, alpha: Any, beta: Any,
                        shape: tuple) -> Optional[np.ndarray]:
    """ATen's addbmm_impl_ through MKL's gemm: the input copied into the result (unless beta is
    0), then one addmm_ into it per pair of matrices, beta on the first only; None when MKL is
    not in use or there is no pair."""
    if not batch1.shape[0] or not all(isinstance(x, (int, float)) for x in (alpha, beta)) or \
            input.dtype != batch1.dtype:
        return None
    result = np.broadcast_to(input, shape) if beta != 0 else None
    for first, second in zip(batch1, batch2):
        result = mkl.gemm(first, second, result, alpha, beta)
        if result is None:
            return None
        beta = 1  # the products accumulate onto the result
    return result


@op(nodes=(ADDBMM,))
def addbmm(input: Tensor, batch1: Tensor, batch2: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:
    input, batch1, batch2 = autocast.lower_precision(input, batch1, batch2)
    _check_batches(batch1, batch2)
    check_addmm_dtypes(input, batch1, batch2)  # its products are addmm_ calls
    dtype = batch1._dtype
    shape = (batch1.shape[1], batch2.shape[2])
    broadcast_shapes(tuple(input.shape), shape)
    beta, alpha = opmath_scalar(beta, dtype), opmath_scalar(alpha, dtype)
    data = _addbmm_through_mkl(input._data, batch1._data, batch2._data, alpha, beta, shape)
    if data is None:
        data = (batch1._data @ batch2._data).sum(axis=0) * _fused(alpha, dtype)
        if beta != 0:
            data = data + input._data * _fused(beta, dtype)
    return record(ADDBMM, (input, batch1, batch2), np.asarray(data, dtype=dtype._numpy), dtype, beta=beta,
                  alpha=alpha, batch1_sym_argsize_0=batch1.shape[0], batch1_sym_argsize_1=batch1.shape[1],
                  batch2_sym_argsize_2=batch2.shape[2])


@op(nodes=(VDOT,))
def vdot(input: Tensor, other: Tensor) -> Tensor:
    check_vectors(input, other)
    check_has_kernel("dot", input)
    return record(VDOT, (input, other), np.asarray(np.vdot(input._data, other._data), dtype=input._dtype._numpy),
                  input._dtype)


@op("cross", nodes=(CROSS,), module="linalg")
def linalg_cross(input: Tensor, other: Tensor, *, dim: int = -1) -> Tensor:
    if input.ndim != other.ndim:
        raise RuntimeError("linalg.cross: inputs must have the same number of dimensions.")
    d = wrap_dim(dim, input.ndim)
    if input.shape[d] != 3 or other.shape[d] != 3:
        raise RuntimeError(f"linalg.cross: inputs dimension {dim} must have length 3. Got {input.shape[d]} and "
                           f"{other.shape[d]}")
    if input._dtype is not other._dtype:
        raise RuntimeError(f"expected scalar type {input._dtype._scalar_name} but found {other._dtype._scalar_name}")
    if input._dtype is dtypes.bool_:  # (the kernel's dispatch)
        raise NotImplementedError("\"cross\" not implemented for 'Bool'")
    dtype = input._dtype
    a, b = np.broadcast_arrays(np.moveaxis(input._data.astype(dtype._numpy), d, 0),
                               np.moveaxis(other._data.astype(dtype._numpy), d, 0))
    # each component one fused multiply-add: a_i b_j - round(a_j b_i), as PyTorch's kernel
    parts = [simd.fused_multiply_add(a[i], b[j], -(a[j] * b[i])) for i, j in ((1, 2), (2, 0), (0, 1))]
    data = np.moveaxis(np.stack(parts), 0, d)
    return record(CROSS, (input, other), np.asarray(data, dtype=dtype._numpy), dtype, dim=dim)


@op()
def cross(input: Tensor, other: Tensor, dim: Optional[int] = None) -> Tensor:
    if dim is None:
        warn_once("UserWarning", "Using torch.cross without specifying the dim arg is deprecated.\nPlease either "
                                 "pass the dim explicitly or simply use torch.linalg.cross.\nThe default value of "
                                 "dim will change to agree with that of linalg.cross in a future release.",
                                 at="aten/src/ATen/native/Cross.cpp:63")
        dim = next((d for d, size in enumerate(input.shape) if size == 3), -1)
    return linalg_cross(input, other, dim=dim)


# ------------------------------------------------------------------ composites

def tensordot(a: Tensor, b: Tensor, dims: Any = 2, out: Optional[Tensor] = None) -> Tensor:
    """torch.functional.tensordot: an int n contracts a's last n dims (counted from the end, as
    its messages show them) with b's first n."""
    if isinstance(dims, Tensor):
        dims = dims.tolist() if dims.numel() > 1 else int(dims.item())
    if isinstance(dims, int):
        if dims < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        for operand in (a, b):  # torch's Python code reads a.dim() and b.dim() here
            if not isinstance(operand, Tensor):
                raise AttributeError(f"'{type_name(operand)}' object has no attribute 'dim'")
        if dims > min(a.ndim, b.ndim):
            raise RuntimeError(f"tensordot expects dims < ndim_a or ndim_b, but got dims={dims}")
        dims_a, dims_b = list(range(-dims, 0)), list(range(dims))
    else:
        dims_a, dims_b = ([d] if isinstance(d, int) else list(d) for d in dims)
    # torch's Python code hands them to _VF.tensordot, whose parser checks them
    parser("torch", "tensordot").parse((a, b, dims_a, dims_b), {} if out is None else {"out": out})
    result = _tensordot(a, b, dims_a, dims_b)
    if out is not None:
        out.resize_(result.shape).copy_(result)
        return out
    return result


def _tensordot(a: Tensor, b: Tensor, dims_a: list, dims_b: list) -> Tensor:
    """ATen's tensordot: size-1 contracted dims summed away first, then one mm of the permuted,
    flattened operands."""
    if len(dims_a) != len(dims_b):
        raise RuntimeError("both dimension lists should have same length")
    if a._dtype is not b._dtype:
        raise RuntimeError("both inputs should have same dtype")
    left, right, size = a, b, 1
    for da, db in zip(dims_a, dims_b):
        size_a, size_b = a.shape[wrap_dim(da, a.ndim)], b.shape[wrap_dim(db, b.ndim)]
        if size_b == 1:
            left = left.sum(da, True, dtype=left.dtype)
        elif size_a == 1:
            right = right.sum(db, True, dtype=right.dtype)
        elif size_a != size_b:
            raise RuntimeError(f"contracted dimensions need to match, but first has size {size_a} in dim {da} and "
                               f"second has size {size_b} in dim {db}")
        else:
            size *= size_a
    contracted_a, contracted_b = normalize_dims(dims_a, a.ndim), normalize_dims(dims_b, b.ndim)
    free_a = [d for d in range(a.ndim) if d not in contracted_a]
    free_b = [d for d in range(b.ndim) if d not in contracted_b]
    rows = int(np.prod([left.shape[d] for d in free_a], dtype=np.int64))
    columns = int(np.prod([right.shape[d] for d in free_b], dtype=np.int64))
    shape = tuple(left.shape[d] for d in free_a) + tuple(right.shape[d] for d in free_b)
    if rows == 1 and columns == 1:  # a full contraction: dot of contiguous operands, else mul and sum
        left, right = left.permute(free_a + list(contracted_a)), right.permute(list(contracted_b) + free_b)
        if left.is_contiguous() and right.is_contiguous():
            return dot(left.flatten(), right.flatten()).reshape(shape)
        return (left.squeeze() * right.squeeze()).sum(dtype=left.dtype).reshape(shape)
    left = left.permute(free_a + list(contracted_a)).reshape((rows, size))
    right = right.permute(list(contracted_b) + free_b).reshape((size, columns))
    return mm(left, right).reshape(shape)


op("tensordot", python="torch.functional", method=False)(tensordot)


@op()
def inner(input: Tensor, other: Tensor) -> Tensor:
    if input.ndim == 0 or other.ndim == 0:
        return input * other
    if input.shape[-1] != other.shape[-1]:
        raise RuntimeError(f"inner() the last dimension must match on both input tensors but got shapes "
                           f"{list(input.shape)} and {list(other.shape)}")
    return _tensordot(input, other, [-1], [-1])


@op(module="linalg")
def vecdot(x: Tensor, y: Tensor, *, dim: int = -1) -> Tensor:
    check_floating(x, "linalg.vecdot")
    if x._dtype is not y._dtype:
        raise RuntimeError(f"linalg.vecdot: Expected x and y to have the same dtype, but found x of type "
                           f"{x._dtype._scalar_name} and y of type {y._dtype._scalar_name} instead")
    return (x.conj() * y).sum(dim)


def _chain_order(shapes: list) -> list:
    """The cheapest parenthesisation of a matrix chain (the classic dynamic program), as nested
    pairs of indices."""
    n = len(shapes)
    cost = [[0] * n for _ in range(n)]
    split = [[0] * n for _ in range(n)]
    for length in range(1, n):
        for i in range(n - length):
            j = i + length
            cost[i][j] = None
            for k in range(i, j):
                c = cost[i][k] + cost[k + 1][j] + shapes[i][0] * shapes[k][1] * shapes[j][1]
                if cost[i][j] is None or c < cost[i][j]:
                    cost[i][j], split[i][j] = c, k

    def order(i: int, j: int) -> Any:
        return i if i == j else (order(i, split[i][j]), order(split[i][j] + 1, j))

    return order(0, n - 1)


@op(module="linalg")
def multi_dot(tensors: Sequence[Tensor]) -> Tensor:
    tensors = list(tensors)
    if len(tensors) < 2:
        raise RuntimeError(f"multi_dot(): expected at least 2 tensors but got {len(tensors)}")
    first_1d, last_1d = tensors[0].ndim == 1, tensors[-1].ndim == 1
    matrices = list(tensors)
    if first_1d:
        matrices[0] = matrices[0].unsqueeze(0)
    if last_1d:
        matrices[-1] = matrices[-1].unsqueeze(1)
    for index, m in enumerate(matrices):
        if m.ndim != 2:
            raise RuntimeError(f"multi_dot(): tensor {index} must be 2D but got {m.ndim}D")
    for index in range(1, len(matrices)):
        if matrices[index]._dtype is not matrices[0]._dtype:
            raise RuntimeError(f"multi_dot(): all tensors must have be the same dtype but tensor 0 is "
                               f"{matrices[0]._dtype._cpp_name} and tensor {index} {matrices[index]._dtype._cpp_name}")
        if matrices[index - 1].shape[-1] != matrices[index].shape[0]:
            raise RuntimeError(f"multi_dot(): tensors {index - 1} and {index} with shapes "
                               f"{shape_text(tensors[index - 1].shape)} and {shape_text(tensors[index].shape)} cannot "
                               "be multiplied")

    def product(plan: Any) -> Tensor:
        return matrices[plan] if isinstance(plan, int) else mm(product(plan[0]), product(plan[1]))

    result = product(_chain_order([tuple(m.shape) for m in matrices]))
    shape = tuple(result.shape[i] for i, drop in ((0, first_1d), (1, last_1d)) if not drop)
    return result.view(shape)


def chain_matmul(*matrices: Any, out: Optional[Tensor] = None) -> Tensor:
    warn_once("UserWarning", "torch.chain_matmul is deprecated and will be removed in a future PyTorch release. Use "
                             "torch.linalg.multi_dot instead, which accepts a list of two or more tensors rather "
                             "than multiple parameters.", at="aten/src/ATen/native/LinearAlgebra.cpp:1102")
    if len(matrices) == 1:
        return matrices[0].clone()
    return multi_dot(matrices)


op("chain_matmul", python="torch.functional", method=False)(chain_matmul)


@op(module="linalg")
def matrix_power(input: Tensor, n: int) -> Tensor:
    if input.ndim < 2 or input.shape[-1] != input.shape[-2]:
        raise RuntimeError(f"linalg.matrix_power: A must be batches of square matrices, but they are "
                           f"{input.shape[-2] if input.ndim > 1 else input.shape[0]} by {input.shape[-1]} matrices")
    if n == 0:  # identities written into a copy of the input, as PyTorch does
        eye = Tensor._make(np.broadcast_to(np.eye(input.shape[-1], dtype=input._dtype._numpy), input.shape),
                           input._dtype)
        return input.clone().copy_(eye)
    a = input if n > 0 else input.inverse()
    n = abs(n)
    if n == 1:
        return a.clone()
    if n == 2:
        return matmul(a, a)
    if n == 3:
        return matmul(matmul(a, a), a)
    # binary exponentiation, from the lowest bit up, as PyTorch multiplies
    z = result = None
    while n > 0:
        bit, n = n % 2, n // 2
        z = a if z is None else matmul(z, z)
        if bit:
            if n == 0:
                return z if result is None else matmul(result, z)
            result = z if result is None else matmul(result, z)
    return result


op("matrix_power", module="torch")(matrix_power)


@op("matmul", module="linalg")
def linalg_matmul(input: Tensor, other: Tensor) -> Tensor:
    return matmul(input, other)


@op("diagonal", module="linalg")
def linalg_diagonal(A: Tensor, *, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Tensor:
    return A.diagonal(offset, dim1, dim2)


@op("vander", module="linalg")
def linalg_vander(x: Tensor, *, N: Optional[int] = None) -> Tensor:
    if x.ndim < 1:
        raise RuntimeError("linalg.vander: x must have at least one dimension")
    count = x.shape[-1] if N is None else N
    if count <= 1:
        if count < 0:
            raise RuntimeError("N must be greater than 1.")
        return x.new_ones(tuple(x.shape) + (count,))
    powers = x.unsqueeze(-1).expand(tuple(x.shape) + (count - 1,)).cumprod(-1)
    return cat([x.new_ones(tuple(x.shape) + (1,)).to(powers.dtype), powers], -1)


# ------------------------------------------------------------------ einsum

# the labels of the dims an ellipsis covers: characters no equation can name
_ELLIPSIS_LABELS = 0x100


def _einsum_terms(text: str, first_index: int, operand: Optional[int]) -> list:
    """The subscripts of one side of an equation as ATen's einsum scans them, character by
    character: spaces skipped, `...` (once) as "...", a label in [a-zA-Z]; for the inputs
    (`operand` the first one's number), the terms between commas; for the output, one term."""
    terms: list = [[]]
    ellipsis = False
    where = "output" if operand is None else "operand {}"
    i = 0
    while i < len(text):
        label = text[i]
        if label == ".":
            shown = where.format(operand + len(terms) - 1) if operand is not None else where
            if ellipsis:
                raise RuntimeError(f"einsum(): found '.' for {shown} "
                                   + ("but an ellipsis (...) was already found" if operand is None
                                      else "for which an ellipsis was already found"))
            if not text.startswith("...", i):
                raise RuntimeError(f"einsum(): found '.' for {shown} that is not part of any ellipsis"
                                   + (" (...)" if operand is None else ""))
            terms[-1].append("...")
            ellipsis = True
            i += 3
            continue
        if label == "," and operand is not None:
            terms.append([])
            ellipsis = False
        elif label != " ":
            if not (label.isascii() and label.isalpha()):
                raise RuntimeError(f"einsum(): invalid subscript given at index {first_index + i} in the equation "
                                   "string, subscripts must be in [a-zA-Z]")
            terms[-1].append(label)
        i += 1
    return terms


def _parse_einsum(equation: str, operands: Sequence[Tensor]) -> tuple:
    """Each operand's labels and the output's, as ATen's einsum parses the equation: its checks in
    ATen's order (the inputs' subscripts, the operand count, each operand's dims, the output's)."""
    arrow = equation.find("->")
    lhs = equation if arrow < 0 else equation[:arrow]
    terms = _einsum_terms(lhs, 0, 0)
    if len(terms) > len(operands):
        raise RuntimeError("einsum(): fewer operands were provided than specified in the equation")
    if len(terms) < len(operands):
        raise RuntimeError("einsum(): more operands were provided than specified in the equation")
    ellipsis_dims = 0
    for index, (term, t) in enumerate(zip(terms, operands)):
        named = len(term) - ("..." in term)
        if "..." in term:
            if named > t.ndim:
                raise RuntimeError(f"einsum(): the number of subscripts in the equation ({named}) is more than the "
                                   f"number of dimensions ({t.ndim}) for operand {index}")
            ellipsis_dims = max(ellipsis_dims, t.ndim - named)
        elif named != t.ndim:
            raise RuntimeError(f"einsum(): the number of subscripts in the equation ({named}) does not match the "
                               f"number of dimensions ({t.ndim}) for operand {index} and no ellipsis was given")
    broadcast = [chr(_ELLIPSIS_LABELS + i) for i in range(ellipsis_dims)]

    def expand(term: list, ndim: Optional[int]) -> list:
        if "..." not in term:
            return list(term)
        at = term.index("...")
        count = ellipsis_dims if ndim is None else ndim - (len(term) - 1)
        return term[:at] + broadcast[ellipsis_dims - count:] + term[at + 1:]

    operand_labels = [expand(term, t.ndim) for term, t in zip(terms, operands)]
    if arrow >= 0:
        (output_term,) = _einsum_terms(equation[arrow + 2:], arrow + 2, None)
        seen = {label for term in terms for label in term}
        placed: set = set()
        for label in output_term:
            if label == "...":
                continue
            if label in placed:
                raise RuntimeError(f"einsum(): output subscript {label} appears more than once in the output")
            if label not in seen:
                raise RuntimeError(f"einsum(): output subscript {label} does not appear in the equation for any "
                                   "input operand")
            placed.add(label)
        output = expand(output_term, None)
    else:
        counts: dict = {}
        for term in operand_labels:
            for label in term:
                counts[label] = counts.get(label, 0) + 1
        output = broadcast + sorted(label for label, count in counts.items() if count == 1 and label not in broadcast)
    return operand_labels, output


def _take_diagonals(t: Tensor, labels: list) -> tuple:
    """A label repeated in one operand keeps only the diagonal (moved to its first place)."""
    labels = list(labels)
    while len(set(labels)) < len(labels):
        for i, label in enumerate(labels):
            j = labels.index(label, i + 1) if labels.count(label) > 1 else -1
            if j > i:
                t = t.diagonal(0, i, j).movedim(-1, i)
                labels.pop(j)
                break
    return t, labels


def _sum_out(t: Tensor, labels: list, keep: set) -> tuple:
    drop = [i for i, label in enumerate(labels) if label not in keep]
    if not drop:
        return t, labels
    return t.sum(drop), [label for i, label in enumerate(labels) if i not in drop]


def _to_order(t: Tensor, labels: list, order: list) -> Tensor:
    perm = [labels.index(label) for label in order]
    return t if perm == list(range(len(perm))) else t.permute(perm)


def _contract(a: Tensor, a_labels: list, b: Tensor, b_labels: list, keep: set) -> tuple:
    """Two operands into one, over their shared labels that nothing later needs: bmm on the
    batch of labels both keep, then a view (or a broadcast product when nothing is contracted)."""
    shared = [label for label in a_labels if label in b_labels]
    contracted = [label for label in shared if label not in keep]
    batch = [label for label in shared if label in keep]
    a_only = [label for label in a_labels if label not in b_labels]
    b_only = [label for label in b_labels if label not in a_labels]
    sizes = dict(zip(a_labels, a.shape))
    sizes.update((label, max(size, sizes.get(label, 1))) for label, size in zip(b_labels, b.shape))
    if not contracted:
        out_labels = batch + a_only + b_only
        left = _to_order(a, a_labels, batch + a_only).reshape(
            tuple(a.shape[a_labels.index(label)] for label in batch + a_only) + (1,) * len(b_only))
        right = _to_order(b, b_labels, batch + b_only)
        right = right.reshape(tuple(b.shape[b_labels.index(label)] for label in batch) + (1,) * len(a_only)
                              + tuple(b.shape[b_labels.index(label)] for label in b_only))
        return left * right, out_labels

    def size_of(labels: list, t: Tensor, t_labels: list) -> int:
        return int(np.prod([t.shape[t_labels.index(label)] for label in labels], dtype=np.int64))

    batch_shape = tuple(sizes[label] for label in batch)
    count = int(np.prod(batch_shape, dtype=np.int64))
    left = _to_order(a, a_labels, batch + a_only + contracted)
    left = left.expand(batch_shape + tuple(left.shape[len(batch):])).reshape(
        (count, size_of(a_only, a, a_labels), size_of(contracted, a, a_labels)))
    right = _to_order(b, b_labels, batch + contracted + b_only)
    right = right.expand(batch_shape + tuple(right.shape[len(batch):])).reshape(
        (count, size_of(contracted, b, b_labels), size_of(b_only, b, b_labels)))
    out_labels = batch + a_only + b_only
    result = bmm(left, right).view(batch_shape + tuple(sizes[label] for label in a_only + b_only))
    return result, out_labels


def _broadcast_einsum_operands(operands: tuple, operand_labels: list) -> tuple:
    """The operands with each subscript's size-1 dims expanded to its size elsewhere, after
    PyTorch's check that each subscript's sizes broadcast."""
    seen: dict = {}
    for index, (t, labels) in enumerate(zip(operands, operand_labels)):
        own: dict = {}
        for label, size in zip(labels, t.shape):
            if own.setdefault(label, size) != size:  # a diagonal needs equal sizes, even 1
                raise RuntimeError(f"einsum(): subscript {label} is repeated for operand {index} but the sizes don't "
                                   f"match, {size} != {own[label]}")
        for label, size in zip(labels, t.shape):
            previous = seen.get(label)
            if previous is not None and size != previous and 1 not in (size, previous):
                if label.isascii():
                    raise RuntimeError(f"einsum(): subscript {label} has size {size} for operand {index} which does "
                                       f"not broadcast with previously seen size {previous}")
                raise RuntimeError(f"einsum(): dimension {ord(label) - _ELLIPSIS_LABELS} covered by ellipsis in "
                                   f"operand {index}has size {size} which does not broadcast with previously seen "
                                   f"ellipsis with size {previous} for the respective dimension")
            if previous is None or previous == 1:
                seen[label] = size
    return tuple(t.expand(*(seen[label] for label in labels))
                 if any(n != seen[label] for label, n in zip(labels, t.shape)) else t
                 for t, labels in zip(operands, operand_labels))


def _sublist_label(n: Any) -> str:
    # torch's comparisons, as it writes them: their TypeError for a subscript that is no number names them
    if n == Ellipsis:
        return "..."
    if n >= 0 and n < 26:
        return chr(ord("A") + n)
    if n >= 26 and n < 52:
        return chr(ord("a") + n - 26)
    raise ValueError("einsum(): subscript in subscript list is not within the valid range [0, 52)")


def einsum(*args: Any) -> Tensor:
    message = ("einsum(): must specify the equation string and at least one operand, or at least one operand and "
               "its subscripts list")
    if len(args) < 2:
        raise ValueError(message)
    if isinstance(args[0], Tensor):
        # the sublist form, einsum(a, [0, 1], b, [1, 2], [0, 2]): torch.functional writes it as an equation
        equation = ",".join("".join(_sublist_label(n) for n in labels) for labels in args[1::2])
        if len(args) % 2 == 1:
            equation += "->" + "".join(_sublist_label(n) for n in args[-1])
            operands = args[:-1:2]
        else:
            operands = args[::2]
    else:
        equation, operands = args[0], args[1:]
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):  # the old form: one list of operands
        return einsum(equation, *operands[0])
    # torch.functional hands them to _VF.einsum, whose parser checks them
    equation, operands = parser("torch", "einsum").parse((equation, operands), {})[1].values()
    operand_labels, output = _parse_einsum(equation, operands)
    operands = _broadcast_einsum_operands(operands, operand_labels)
    prepared = []
    for index, (t, labels) in enumerate(zip(operands, operand_labels)):
        t, labels = _take_diagonals(t, labels)
        later = set(output).union(*(set(other) for j, other in enumerate(operand_labels) if j != index))
        prepared.append(_sum_out(t, labels, later))
    result, labels = prepared[0]
    for index in range(1, len(prepared)):
        keep = set(output).union(*(set(lbl) for _, lbl in prepared[index + 1:]))
        result, labels = _contract(result, labels, *prepared[index], keep)
    result, labels = _sum_out(result, labels, set(output))
    return _to_order(result, labels, output)


op("einsum", python="torch.functional", method=False)(einsum)
