"""Matrix products: dot, mv, mm, bmm, addmm, matmul, outer."""
from __future__ import annotations

import numpy as np

from .. import autocast, dtypes, forward_mode, kernels, meta, mkl
from ..dtypes import DType
from ..tensor import Tensor
from .common import batch_front, broadcast_shapes, check_has_kernel, opmath_scalar
from .registry import node, op, record, recording_not_needed
from .shape import expanded_shape, squeeze, squeeze_inplace, unsafe_view, unsqueeze

DOT = node("DotBackward0", ("self", "tensor"),
           jvp={"self": lambda tangent, tensor: tangent.dot(tensor), "tensor": lambda tangent, self: self.dot(tangent)},
           self=lambda grad, tensor: grad * tensor.conj(), tensor=lambda grad, self: grad * self.conj())
MV = node("MvBackward0", ("self", "vec"),
          jvp={"self": lambda tangent, vec: tangent.mv(vec), "vec": lambda tangent, self: self.mv(tangent)},
          self=lambda grad, vec: grad.unsqueeze(1) * vec.conj().unsqueeze(0),
          vec=lambda grad, self: self.conj().t().mv(grad))
MM = node("MmBackward0", ("self", "mat2"), saved=("self_sym_sizes", "self_sym_strides", "mat2_sym_sizes",
                                                   "mat2_sym_strides"),
          jvp={"self": lambda tangent, mat2: tangent.mm(mat2), "mat2": lambda tangent, self: self.mm(tangent)},
          self=lambda grad, mat2, self_sym_sizes, self_sym_strides: _mat1_grad(grad, mat2, self_sym_sizes,
                                                                               self_sym_strides, 1),
          mat2=lambda grad, self, mat2_sym_sizes, mat2_sym_strides: _mat2_grad(grad, self, mat2_sym_sizes,
                                                                               mat2_sym_strides, 1))
ADDMM = node("AddmmBackward0", ("self", "mat1", "mat2"),
             saved=("mat1_sym_sizes", "mat1_sym_strides", "mat2_sym_sizes", "mat2_sym_strides"),
             jvp={"self": lambda tangent, beta: tangent * beta,
                  "mat1": lambda tangent, mat2, alpha: tangent.mm(mat2) * alpha,
                  "mat2": lambda tangent, mat1, alpha: mat1.mm(tangent) * alpha},
             self=lambda grad, beta: grad if beta == 1 else grad * beta,
             mat1=lambda grad, mat2, alpha, mat1_sym_sizes, mat1_sym_strides: _mat1_grad(
                 grad, mat2, mat1_sym_sizes, mat1_sym_strides, alpha),
             mat2=lambda grad, mat1, alpha, mat2_sym_sizes, mat2_sym_strides: _mat2_grad(
                 grad, mat1, mat2_sym_sizes, mat2_sym_strides, alpha))
BMM = node("BmmBackward0", ("self", "mat2"),
           jvp={"self": lambda tangent, mat2: tangent.bmm(mat2), "mat2": lambda tangent, self: self.bmm(tangent)},
           self=lambda grad, mat2: grad.bmm(mat2.conj().transpose(1, 2)),
           mat2=lambda grad, self: self.conj().transpose(1, 2).bmm(grad))


def _scaled(grad: Tensor, alpha: object) -> Tensor:
    return grad if alpha == 1 else grad * alpha


def _column_major(sizes: tuple, strides: tuple) -> bool:
    return strides[0] == 1 and strides[1] == sizes[0]


# A column-major matrix (a transposed weight, as linear passes it) gets its gradient column-major
# too, computed as PyTorch's mm_mat1_backward / mm_mat2_backward compute it.
def _mat1_grad(grad: Tensor, mat2: Tensor, sizes: tuple, strides: tuple, alpha: object) -> Tensor:
    if _direct(grad, mat2, alpha):
        g, m = grad._data, mat2._data
        data = product_data(m, g.T).T if _column_major(sizes, strides) else product_data(g, m.T)
        return Tensor._make(data, grad._dtype)
    if _column_major(sizes, strides):
        return _scaled(mat2.conj().mm(grad.t()).t(), alpha)
    return _scaled(grad.mm(mat2.conj().t()), alpha)


def _mat2_grad(grad: Tensor, mat1: Tensor, sizes: tuple, strides: tuple, alpha: object) -> Tensor:
    if _direct(grad, mat1, alpha):
        g, m = grad._data, mat1._data
        data = product_data(g.T, m).T if _column_major(sizes, strides) else product_data(m.T, g)
        return Tensor._make(data, grad._dtype)
    if _column_major(sizes, strides):
        return _scaled(grad.t().mm(mat1.conj()).t(), alpha)
    return _scaled(mat1.conj().t().mm(grad), alpha)


def _direct(grad: Tensor, other: Tensor, alpha: object) -> bool:
    """Whether the gradient's product may be computed on the arrays, as mm would compute it (the
    common case of a backward pass), rather than through the ops."""
    return (alpha == 1 and grad._dtype is other._dtype and grad._dtype in (dtypes.float32, dtypes.float64)
            and recording_not_needed() and not autocast.cpu_enabled())


def product_data(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """mm's values: MKL's where its backend is in use, else the emulation of its order."""
    data = mkl.gemm(a, b)
    if data is not None:
        return np.asarray(data, dtype=a.dtype)
    data = kernels.matmul(a, b)
    # a view into the emulation's wider work array would be the tensor's storage: a storage of its own
    return data.copy() if data.base is not None and data.base.size != data.size else data


# element strides by (byte strides, item size): a product in a loop asks for the same few
_ELEMENT_STRIDES: dict = {}


def _strides(t: Tensor) -> tuple:
    """Tensor.stride() without its call, which only an empty tensor needs."""
    data = t._data
    if not data.size:
        return t.stride()
    key = data.strides, data.itemsize
    strides = _ELEMENT_STRIDES.get(key)
    if strides is None:
        if len(_ELEMENT_STRIDES) >= 1024:
            _ELEMENT_STRIDES.clear()
        strides = _ELEMENT_STRIDES[key] = tuple([step // data.itemsize for step in data.strides])
    return strides


def check_addmm_dtypes(input: Tensor, mat1: Tensor, mat2: Tensor) -> None:
    for name, t in (("self", input), ("mat1", mat1)):
        if t._dtype is not mat2._dtype:
            raise RuntimeError(f"{name} and mat2 must have the same dtype, but got {t._dtype._scalar_name} and "
                               f"{mat2._dtype._scalar_name}")


def _same_dtype(a: Tensor, b: Tensor) -> DType:
    if a._dtype is not b._dtype:
        raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: {a._dtype._cpp_name} != "
                           f"{b._dtype._cpp_name}")
    return a._dtype


def check_vectors(a: Tensor, b: Tensor) -> None:
    """dot's and vdot's checks, in PyTorch's order (the dtype before the sizes)."""
    if a.ndim != 1 or b.ndim != 1:
        raise RuntimeError(f"1D tensors expected, but got {a.ndim}D and {b.ndim}D tensors")
    if a._dtype is not b._dtype:  # checked before the sizes, as PyTorch does
        raise RuntimeError(f"dot : expected both vectors to have same dtype, but found {a._dtype._scalar_name} and "
                           f"{b._dtype._scalar_name}")
    if a.shape[0] != b.shape[0]:
        _check_batched_vectors(a, b)
        # (the meta kernel's words lack a space, as PyTorch's Python decomposition writes them)
        same = "thesame" if meta.state["made"] and meta.any_meta((a, b)) else "the same"
        raise RuntimeError(f"inconsistent tensor size, expected tensor [{a.shape[0]}] and src [{b.shape[0]}] to have "
                           f"{same} number of elements, but got {a.shape[0]} and {b.shape[0]} elements respectively")


def _check_batched_vectors(a: Tensor, b: Tensor) -> None:
    """Under vmap, PyTorch's dot batching rule multiplies the physical tensors as matrices: the
    size check is bmm's, mv's or mm's."""
    a_front, b_front = batch_front(a), batch_front(b)
    n, m = a.shape[0], b.shape[0]
    if a_front and b_front:
        size = a_front[0]
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: [{size}, {n}] but got: "
                           f"[{size}, {m}].")
    if a_front:
        raise RuntimeError(f"size mismatch, got input ({a_front[0]}), mat ({a_front[0]}x{n}), vec ({m})")
    if b_front:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied (1x{n} and {m}x{b_front[0]})")


@op(nodes=(DOT,))
def dot(input: Tensor, tensor: Tensor) -> Tensor:
    a, b = input, tensor
    check_vectors(a, b)
    if meta.state["made"] and meta.any_meta((a, b)):
        meta.check_same_device((a, b))
    check_has_kernel("dot", a)
    data = mkl.dot(a._data, b._data)
    if data is None:
        data = np.dot(a._data, b._data)
    return record(DOT, (a, b), np.asarray(data, dtype=a._dtype._numpy), a._dtype)


@op(nodes=(MV,))
def mv(input: Tensor, vec: Tensor) -> Tensor:
    a, b = input, vec
    if a.ndim != 2 or b.ndim != 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got 1, {a.ndim}, {b.ndim}")
    if a.shape[1] != b.shape[0] and meta.state["made"] and meta.any_meta((a, b)):
        raise RuntimeError(f"size mismatch, got input ({a.shape[0]}x{a.shape[1]}), vec ({b.shape[0]})")
    if a.shape[1] != b.shape[0]:
        raise RuntimeError(f"size mismatch, got input ({a.shape[0]}), mat ({a.shape[0]}x{a.shape[1]}), "
                           f"vec ({b.shape[0]})")
    if a._dtype is not b._dtype:
        raise RuntimeError(f"addmv input tensors must have the same dtype, but got {b._dtype._scalar_name}, "
                           f"{a._dtype._scalar_name}, and {b._dtype._scalar_name}")
    check_has_kernel("addmv_impl_cpu", a)
    data = mkl.gemv(a._data, b._data)
    if data is None:
        data = a._data @ b._data
    return record(MV, (a, b), np.asarray(data, dtype=a._dtype._numpy), a._dtype)


def _inner_sizes_differ(a: Tensor, b: Tensor, *others: Tensor) -> RuntimeError:
    """mm's and addmm's error for matrices whose inner sizes differ; on meta tensors, in the words of
    PyTorch's meta kernel of mm (addmm's decomposes to it)."""
    if meta.state["made"] and meta.any_meta((a, b, *others)):
        return RuntimeError(f"a and b must have same reduction dim, but got [{a.shape[0]}, {a.shape[1]}] X "
                            f"[{b.shape[0]}, {b.shape[1]}].")
    # under vmap, a batched matrix times a plain one is one product of the examples' rows stacked
    rows = a.shape[0]
    if forward_mode.LEVELS and not forward_mode.batched(b):
        rows *= forward_mode.batch_size(a)
    return RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({rows}x{a.shape[1]} and "
                        f"{b.shape[0]}x{b.shape[1]})")


@op(nodes=(MM,))
def mm(input: Tensor, mat2: Tensor) -> Tensor:
    input, mat2 = autocast.lower_precision(input, mat2)
    a, b = input, mat2
    x, y = a._data, b._data
    if x.ndim != 2:
        raise RuntimeError("self must be a matrix")
    if y.ndim != 2:
        raise RuntimeError("mat2 must be a matrix")
    if x.shape[1] != y.shape[0]:
        raise _inner_sizes_differ(a, b)
    dtype = _same_dtype(a, b)
    if dtype is dtypes.bool_ or dtype in dtypes.BAREBONES_UNSIGNED:
        check_has_kernel("addmm_impl_cpu_", a)
    return record(MM, (a, b), np.asarray(product_data(x, y), dtype=dtype._numpy), dtype, self_sym_sizes=x.shape,
                  self_sym_strides=_strides(a), mat2_sym_sizes=y.shape, mat2_sym_strides=_strides(b))


@op(nodes=(BMM,))
def bmm(input: Tensor, mat2: Tensor) -> Tensor:
    input, mat2 = autocast.lower_precision(input, mat2)
    a, b = input, mat2
    for name, t in (("batch1", a), ("batch2", b)):
        if t.ndim != 3:
            raise RuntimeError(f"{name} must be a 3D tensor")
    if b.shape[:2] != (a.shape[0], a.shape[2]):
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: [{a.shape[0]}, "
                           f"{a.shape[2]}] but got: [{b.shape[0]}, {b.shape[1]}].")
    check_has_kernel("bmm", a)  # the kernel of batch1's dtype, which then reads batch2 as that type
    if a._dtype is not b._dtype:
        raise RuntimeError(f"expected scalar type {a._dtype._scalar_name} but found {b._dtype._scalar_name}")
    return record(BMM, (a, b), np.asarray(batched_products(a._data, b._data), dtype=a._dtype._numpy), a._dtype)


# ATen's bmm and baddbmm loop over k themselves below this many multiplications per matrix
SMALL_BATCHED_PRODUCT = 400


def batched_products(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """a @ b for stacks of matrices as ATen's CPU bmm computes them: a small product (the
    attention scores of short sequences) is one running sum per element over k, each product
    rounded, in the inputs' type; larger ones go to BLAS (to MKL's gemm, as ATen's, when it is in use)."""
    m, k = a.shape[-2:]
    n = b.shape[-1]
    small = k * m * n < SMALL_BATCHED_PRODUCT
    if not small and a.ndim == 3:
        product = mkl.bmm(a, b)  # ATen's batched gemm, when MKL is in use
        if product is not None:
            return product
    if a.dtype.kind != "f" or not small or not a.size or not b.size:
        return a @ b
    total = np.zeros(a.shape[:-1] + (n,), a.dtype)
    for i in range(k):
        total += a[..., :, i:i + 1] * b[..., i:i + 1, :]
    return total


@op(nodes=(ADDMM,))
def addmm(input: Tensor, mat1: Tensor, mat2: Tensor, *, beta: object = 1, alpha: object = 1) -> Tensor:
    input, mat1, mat2 = autocast.lower_precision(input, mat1, mat2)
    a, b = mat1, mat2
    check_addmm_dtypes(input, a, b)
    for name, t in (("mat1", a), ("mat2", b)):
        if t.ndim != 2:
            raise RuntimeError(f"{name} must be a matrix, got {t.ndim}-D tensor")
    if a.shape[1] != b.shape[0]:
        raise _inner_sizes_differ(a, b, input)
    product_shape = (a.shape[0], b.shape[1])
    if meta.state["made"] and meta.any_meta((input, a, b)):  # the meta kernel broadcasts the bias as torch._refs
        meta.check_operands((meta.make_meta(product_shape, a._dtype), input))
        meta.check_same_device((a, b, input))
    bias_shape = input._data.shape
    if bias_shape != product_shape and bias_shape != product_shape[1:]:  # (the common shapes expand as they are)
        expanded_shape(input, product_shape)  # the bias is expanded to the product's shape
    dtype = a._dtype
    beta, alpha = opmath_scalar(beta, dtype), opmath_scalar(alpha, dtype)
    check_has_kernel("addmm_impl_cpu_", a)
    data = _mkl_addmm(input._data, a._data, b._data, alpha, beta)
    if data is not None:
        return record(ADDMM, (input, a, b), data, dtype, beta=beta, alpha=alpha, mat1_sym_sizes=a._data.shape,
                      mat1_sym_strides=_strides(a), mat2_sym_sizes=b._data.shape, mat2_sym_strides=_strides(b))
    product = kernels.matmul(a._data, b._data)
    if alpha != 1:
        product = product * np.asarray(alpha, dtype=product.dtype)
    bias = input._data if beta == 1 else input._data * np.asarray(beta, dtype=input._data.dtype)
    # the bias is added to the finished product, as sgemm adds C (beta = 1) at the end
    data = np.asarray(bias + product, dtype=dtype._numpy)
    return record(ADDMM, (input, a, b), data, dtype, beta=beta, alpha=alpha, mat1_sym_sizes=a._data.shape,
                  mat1_sym_strides=_strides(a), mat2_sym_sizes=b._data.shape, mat2_sym_strides=_strides(b))


def _mkl_addmm(bias: np.ndarray, mat1: np.ndarray, mat2: np.ndarray, alpha: object, beta: object) -> object:
    """addmm through MKL, when it is in use: ATen copies the bias into the result, which ?gemm_
    then scales by beta and adds the product to."""
    shape = (mat1.shape[0], mat2.shape[1])
    fits = bias.ndim <= 2 and all(size in (1, full) for size, full in zip(bias.shape[::-1], shape[::-1]))
    if not fits or not all(isinstance(x, (int, float)) for x in (alpha, beta)) or bias.dtype != mat1.dtype:
        return None
    return mkl.gemm(mat1, mat2, bias if beta != 0 else None, alpha, beta)  # (copied in, broadcast)


@op()
def matmul(input: Tensor, other: Tensor) -> Tensor:
    """torch.matmul, decomposed into the same ops as PyTorch's, so its graph shows the same nodes."""
    input, other = autocast.lower_precision(input, other)
    a, b = input, other
    if a._data.ndim == 2 and b._data.ndim == 2:  # the commonest case first
        return mm(a, b)
    if a.ndim == 0 or b.ndim == 0:
        raise RuntimeError(f"both arguments to matmul need to be at least 1D, but they are {a.ndim}D and {b.ndim}D")
    if a.ndim == 1 and b.ndim == 1:
        return dot(a, b)
    if a.ndim == 2 and b.ndim == 1:
        return mv(a, b)
    if a.ndim == 1 and b.ndim == 2:
        return squeeze_inplace(mm(a.unsqueeze(0), b), 0)
    if a.ndim == 2 and b.ndim == 2:
        return mm(a, b)
    if a.ndim == 3 and b.ndim == 3 and (a.shape[0] == 1) != (b.shape[0] == 1):
        # a single matrix that requires grad is taken out of its batch of one, then folded
        if a.shape[0] == 1 and a.requires_grad:
            return matmul(squeeze(a, 0), b)
        if b.shape[0] == 1 and b.requires_grad:
            return matmul(a, squeeze(b, 0))
    if _should_fold(a, b):
        transpose = b.ndim > a.ndim
        t1 = b.mT if transpose else a
        t2 = (a.t() if a.ndim == 2 else a) if transpose else b
        output_shape = t1.shape[:-1]
        folded = t1.reshape((int(np.prod(output_shape, dtype=np.int64)), t1.shape[-1]))
        if t2.ndim == 2:
            output = unsafe_view(mm(folded, t2), output_shape + (t2.shape[1],))
            return output.mT.contiguous() if transpose else output
        return unsafe_view(mv(folded, t2), output_shape)
    n = a.shape[-2] if a.ndim > 1 else 1
    p = b.shape[-1] if b.ndim > 1 else 1
    batch = broadcast_shapes(tuple(a.shape[:-2]), tuple(b.shape[:-2]))
    count = int(np.prod(batch, dtype=np.int64))
    a3 = a.expand(batch + (n, a.shape[-1])).reshape((count, n, a.shape[-1]))
    shape = batch + ((n,) if a.ndim > 1 else ()) + ((p,) if b.ndim > 1 else ())
    if b.ndim == 1:  # a vector is expanded as one, then made a column of each matrix
        b3 = unsqueeze(b.expand(batch + (b.shape[0],)).reshape((count, b.shape[0])), 2)
        return unsafe_view(squeeze(bmm(a3, b3), -1), shape)
    b3 = b.expand(batch + (b.shape[-2], p)).reshape((count, b.shape[-2], p))
    return unsafe_view(bmm(a3, b3), shape)


def _should_fold(a: Tensor, b: Tensor) -> bool:
    """PyTorch folds the batch of the larger operand into matrix rows (mm/mv instead of bmm)
    when that needs no copy, or when the smaller operand requires grad."""
    a_larger = a.ndim >= b.ndim
    t1 = a if a_larger else b.mT
    small_ndim = b.ndim if a_larger else a.ndim
    if not (t1.ndim >= 3 and small_ndim in (1, 2)):
        return False
    if (b if a_larger else a).requires_grad:
        return True
    if a.ndim == 2:
        return False
    if t1.numel() == 0:
        return True
    shape, strides = t1.shape, t1.stride()
    return all(strides[i] == strides[i + 1] * shape[i + 1] for i in range(t1.ndim - 2))


@op(aliases=("ger",))
def outer(input: Tensor, vec2: Tensor) -> Tensor:
    for name, t in (("self", input), ("vec2", vec2)):
        if t.ndim != 1:
            raise RuntimeError(f"outer: Expected 1-D argument {name}, but got {t.ndim}-D")
    return input.reshape((input.shape[0], 1)) * vec2
