"""torch.nn.utils.parametrizations: weight_norm, spectral_norm and orthogonal as parametrizations
(the tensor is recomputed from `parametrizations.<name>.original*` at each access)."""
from __future__ import annotations

from enum import Enum, auto
from typing import Any, Optional

from ...autograd import grad_mode
from ...autograd.ops import info
from ...autograd.ops.common import zeros_like
from ...autograd.ops.creation import eye, randn
from ...autograd.ops.decompositions import solve
from ...autograd.ops.matrix_functions import geqrf, householder_product, matrix_exp
from ...autograd.ops.joining import cat
from ...autograd.ops.generate import make_function
from ...autograd.ops.normalization import norm_except_dim as _norm_except_dim, weight_norm_interface
from ...autograd.tensor import Tensor
from .. import functional as F
from ..modules.conv import ConvTranspose1d, ConvTranspose2d, ConvTranspose3d
from ..modules.module import Module
from . import parametrize

__all__ = ["orthogonal", "spectral_norm", "weight_norm"]


def _is_orthogonal(Q: Tensor) -> bool:
    n, k = Q.size(-2), Q.size(-1)
    Id = eye(k, dtype=Q.dtype)
    eps = 10.0 * n * info.finfo(Q.dtype).eps
    return (Q.mH @ Q).allclose(Id, atol=eps)


def _make_orthogonal(A: Tensor) -> Tensor:
    """The Q of A's QR decomposition with R's diagonal made positive."""
    X, tau = geqrf(A)
    Q = householder_product(X, tau)
    Q *= X.diagonal(dim1=-2, dim2=-1).sgn().unsqueeze(-2)
    return Q


class _OrthMaps(Enum):
    matrix_exp = auto()
    cayley = auto()
    householder = auto()


_OrthMaps.__module__ = "torch.nn.utils.parametrizations"


class _Orthogonal(Module):
    __module__ = "torch.nn.utils.parametrizations"

    def __init__(self, weight: Tensor, orthogonal_map: _OrthMaps, *, use_trivialization: bool = True) -> None:
        super().__init__()
        if weight.is_complex() and orthogonal_map == _OrthMaps.householder:
            raise ValueError("The householder parametrization does not support complex tensors.")
        self.shape = weight.shape
        self.orthogonal_map = orthogonal_map
        if use_trivialization:
            self.register_buffer("base", None)

    def forward(self, X: Tensor) -> Tensor:
        n, k = X.size(-2), X.size(-1)
        transposed = n < k
        if transposed:
            X = X.mT
            n, k = k, n
        if self.orthogonal_map in (_OrthMaps.matrix_exp, _OrthMaps.cayley):
            X = X.tril()
            if n != k:
                X = cat([X, X.new_zeros(n, n - k).expand(*X.shape[:-2], -1, -1)], dim=-1)
            A = X - X.mH
            if self.orthogonal_map == _OrthMaps.matrix_exp:
                Q = matrix_exp(A)
            else:
                Id = eye(n, dtype=A.dtype)
                Q = solve(Id.add(A, alpha=-0.5), Id.add(A, alpha=0.5))
            if n != k:
                Q = Q[..., :k]
        else:
            A = X.tril(diagonal=-1)
            tau = 2.0 / (1.0 + (A * A).sum(dim=-2))
            Q = householder_product(A, tau)
            Q = Q * X.diagonal(dim1=-2, dim2=-1).int().unsqueeze(-2)
        if hasattr(self, "base"):
            Q = self.base @ Q
        return Q.mT if transposed else Q

    def right_inverse(self, Q: Tensor) -> Tensor:
        with grad_mode.no_grad():
            return self._right_inverse(Q)

    def _right_inverse(self, Q: Tensor) -> Tensor:
        if Q.shape != self.shape:
            raise ValueError(f"Expected a matrix or batch of matrices of shape {self.shape}. Got a tensor of shape "
                             f"{Q.shape}.")
        Q_init = Q
        n, k = Q.size(-2), Q.size(-1)
        transpose = n < k
        if transpose:
            Q = Q.mT
            n, k = k, n
        if not hasattr(self, "base"):
            if self.orthogonal_map in (_OrthMaps.cayley, _OrthMaps.matrix_exp):
                raise NotImplementedError("It is not possible to assign to the matrix exponential or the Cayley "
                                          "parametrizations when use_trivialization=False.")
            A, tau = geqrf(Q)
            A.diagonal(dim1=-2, dim2=-1).sign_()
            A.diagonal(dim1=-2, dim2=-1)[tau == 0.0] *= -1
            return A.mT if transpose else A
        if n == k:
            Q = Q.clone() if _is_orthogonal(Q) else _make_orthogonal(Q)
        else:
            N = randn(tuple(Q.size()[:-2]) + (n, n - k), dtype=Q.dtype)
            Q = _make_orthogonal(cat([Q, N], dim=-1))
        self.base = Q
        neg_Id = zeros_like(Q_init)
        neg_Id.diagonal(dim1=-2, dim2=-1).fill_(-1.0)
        return neg_Id


def orthogonal(module: Module, name: str = "weight", orthogonal_map: Optional[str] = None, *,
               use_trivialization: bool = True) -> Module:
    """Make `module.<name>` an orthogonal (unitary) matrix, or a batch of them."""
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if weight.ndim < 2:
        raise ValueError(f"Expected a matrix or batch of matrices. Got a tensor of {weight.ndim} dimensions.")
    if orthogonal_map is None:
        orthogonal_map = ("matrix_exp" if weight.size(-2) == weight.size(-1) or weight.is_complex()
                          else "householder")
    orth_enum = getattr(_OrthMaps, orthogonal_map, None)
    if orth_enum is None:
        raise ValueError('orthogonal_map has to be one of "matrix_exp", "cayley", "householder". Got: '
                         f"{orthogonal_map}")
    orth = _Orthogonal(weight, orth_enum, use_trivialization=use_trivialization)
    parametrize.register_parametrization(module, name, orth, unsafe=True)
    return module


# torch.norm_except_dim as torch's Python code calls it: its arguments parsed (a dim past int64 refused)
norm_except_dim = make_function("torch", "norm_except_dim", _norm_except_dim)


def weight_norm_tensor(v: Tensor, g: Tensor, dim: int) -> Tensor:
    """torch._weight_norm: PyTorch's fused kernel for the first or last dim, elementary ops otherwise."""
    if dim == 0 or dim == v.ndim - 1:
        return weight_norm_interface(v, g, dim)
    return v * (g / _norm_except_dim(v, 2, dim))


class _WeightNorm(Module):
    __module__ = "torch.nn.utils.parametrizations"

    def __init__(self, dim: Optional[int] = 0) -> None:
        super().__init__()
        self.dim = -1 if dim is None else dim

    def forward(self, weight_g: Tensor, weight_v: Tensor) -> Tensor:
        return weight_norm_tensor(weight_v, weight_g, self.dim)

    def right_inverse(self, weight: Tensor) -> tuple:
        return norm_except_dim(weight, 2, self.dim), weight


def weight_norm(module: Module, name: str = "weight", dim: int = 0) -> Module:
    """Split `module.<name>` into a magnitude (original0) and a direction (original1)."""
    parametrize.register_parametrization(module, name, _WeightNorm(dim), unsafe=True)

    def _weight_norm_compat_hook(state_dict: dict, prefix: str, *args: Any) -> None:
        g_key, v_key = f"{prefix}{name}_g", f"{prefix}{name}_v"
        if g_key in state_dict and v_key in state_dict:
            state_dict[f"{prefix}parametrizations.{name}.original0"] = state_dict.pop(g_key)
            state_dict[f"{prefix}parametrizations.{name}.original1"] = state_dict.pop(v_key)

    module._register_load_state_dict_pre_hook(_weight_norm_compat_hook)
    return module


class _SpectralNorm(Module):
    __module__ = "torch.nn.utils.parametrizations"

    def __init__(self, weight: Tensor, n_power_iterations: int = 1, dim: int = 0, eps: float = 1e-12) -> None:
        super().__init__()
        ndim = weight.ndim
        if dim >= ndim or dim < -ndim:
            raise IndexError(f"Dimension out of range (expected to be in range of [-{ndim}, {ndim - 1}] but got "
                             f"{dim})")
        if n_power_iterations <= 0:
            raise ValueError("Expected n_power_iterations to be positive, but got "
                             f"n_power_iterations={n_power_iterations}")
        self.dim = dim if dim >= 0 else dim + ndim
        self.eps = eps
        if ndim > 1:
            self.n_power_iterations = n_power_iterations
            weight_mat = self._reshape_weight_to_matrix(weight)
            h, w = weight_mat.size()
            u = weight_mat.new_empty(h).normal_(0, 1)
            v = weight_mat.new_empty(w).normal_(0, 1)
            self.register_buffer("_u", F.normalize(u, dim=0, eps=self.eps))
            self.register_buffer("_v", F.normalize(v, dim=0, eps=self.eps))
            self._power_method(weight_mat, 15)

    def _reshape_weight_to_matrix(self, weight: Tensor) -> Tensor:
        if self.dim != 0:
            weight = weight.permute(self.dim, *(d for d in range(weight.dim()) if d != self.dim))
        return weight.flatten(1)

    def _power_method(self, weight_mat: Tensor, n_power_iterations: int) -> None:
        with grad_mode.no_grad():
            for _ in range(n_power_iterations):
                self._u = F.normalize(weight_mat.mv(self._v), dim=0, eps=self.eps, out=self._u)
                self._v = F.normalize(weight_mat.H.mv(self._u), dim=0, eps=self.eps, out=self._v)

    def forward(self, weight: Tensor) -> Tensor:
        if weight.ndim == 1:
            return F.normalize(weight, dim=0, eps=self.eps)
        weight_mat = self._reshape_weight_to_matrix(weight)
        if self.training:
            self._power_method(weight_mat, self.n_power_iterations)
        u = self._u.clone()
        v = self._v.clone()
        sigma = u.vdot(weight_mat.mv(v))
        return weight / sigma

    def right_inverse(self, value: Tensor) -> Tensor:
        return value


def spectral_norm(module: Module, name: str = "weight", n_power_iterations: int = 1, eps: float = 1e-12,
                  dim: Optional[int] = None) -> Module:
    """Divide `module.<name>` by its largest singular value, estimated by power iteration."""
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if dim is None:
        dim = 1 if isinstance(module, (ConvTranspose1d, ConvTranspose2d, ConvTranspose3d)) else 0
    parametrize.register_parametrization(module, name, _SpectralNorm(weight, n_power_iterations, dim, eps))
    return module
