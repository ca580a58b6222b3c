"""Functions PyTorch removed but still names: calling them raises the error that explains what
replaced them (torch.eig, torch.symeig, torch.lstsq, torch.solve, torch.matrix_rank, and
Tensor.reinforce)."""
from __future__ import annotations

from typing import Any, NoReturn

from .registry import op

_EIG = (
    'This function was deprecated since version 1.9 and is now removed. `torch.linalg.eig` returns '
    'complex tensors of dtype `cfloat` or `cdouble` rather than real tensors mimicking complex '
    'tensors.\n\nL, _ = torch.eig(A) should be replaced with:\nL_complex = torch.linalg.eigvals(A)\n\n'
    'and\n\nL, V = torch.eig(A, eigenvectors=True) should be replaced with:\nL_complex, V_complex = '
    'torch.linalg.eig(A)')

_SYMEIG = (
    'This function was deprecated since version 1.9 and is now removed. The default behavior has '
    'changed from using the upper triangular portion of the matrix by default to using the lower '
    'triangular portion.\n\nL, _ = torch.symeig(A, upper=upper) should be replaced with:\nL = '
    "torch.linalg.eigvalsh(A, UPLO='U' if upper else 'L')\n\nand\n\nL, V = torch.symeig(A, "
    "eigenvectors=True) should be replaced with:\nL, V = torch.linalg.eigh(A, UPLO='U' if upper else "
    "'L')")

_MATRIX_RANK = (
    'This function was deprecated since version 1.9 and is now removed.\nPlease use the '
    "`torch.linalg.matrix_rank` function instead. The parameter 'symmetric' was renamed in "
    "`torch.linalg.matrix_rank()` to 'hermitian'.")

_LSTSQ = (
    'This function was deprecated since version 1.9 and is now removed. `torch.lstsq` is deprecated in '
    'favor of `torch.linalg.lstsq`.\n`torch.linalg.lstsq` has reversed arguments and does not return '
    'the QR decomposition in the returned tuple (although it returns other information about the '
    'problem).\n\nTo get the QR decomposition consider using `torch.linalg.qr`.\n\nThe returned '
    'solution in `torch.lstsq` stored the residuals of the solution in the last m - n columns of the '
    "returned value whenever m > n. In torch.linalg.lstsq, the residuals are in the field 'residuals' "
    'of the returned named tuple.\n\nThe unpacking of the solution, as in\nX, _ = torch.lstsq(B, '
    'A).solution[:A.size(1)]\nshould be replaced with:\nX = torch.linalg.lstsq(A, B).solution')

_SOLVE = (
    'This function was deprecated since version 1.9 and is now removed. `torch.solve` is deprecated in '
    'favor of `torch.linalg.solve`. `torch.linalg.solve` has its arguments reversed and does not '
    'return the LU factorization.\n\nTo get the LU factorization see `torch.lu`, which can be used '
    'with `torch.lu_solve` or `torch.lu_unpack`.\nX = torch.solve(B, A).solution should be replaced '
    'with:\nX = torch.linalg.solve(A, B)')

_REINFORCE = (
    'reinforce() was removed.\nUse torch.distributions instead.\nSee '
    'https://pytorch.org/docs/main/distributions.html\n\nInstead of:\n\nprobs = policy_network(state)\n'
    'action = probs.multinomial()\nnext_state, reward = env.step(action)\naction.reinforce(reward)\n'
    'action.backward()\n\nUse:\n\nprobs = policy_network(state)\n# NOTE: categorical is equivalent to '
    'what used to be called multinomial\nm = torch.distributions.Categorical(probs)\naction = '
    'm.sample()\nnext_state, reward = env.step(action)\nloss = -m.log_prob(action) * reward\n'
    'loss.backward()\n')


def eig(self: Any, eigenvectors: bool = False, e: Any = None, v: Any = None) -> NoReturn:
    raise RuntimeError(_EIG)


def _symeig(input: Any, eigenvectors: bool = False, upper: bool = True, *, out: Any = None) -> NoReturn:
    raise RuntimeError(_SYMEIG)


def lstsq(input: Any, A: Any, *, out: Any = None) -> NoReturn:
    raise RuntimeError(_LSTSQ)


def solve(input: Any, A: Any, *, out: Any = None) -> NoReturn:
    raise RuntimeError(_SOLVE)


def matrix_rank(input: Any, tol: Any = None, symmetric: bool = False, *, out: Any = None) -> NoReturn:
    raise RuntimeError(_MATRIX_RANK)


def reinforce(self: Any, reward: Any) -> NoReturn:
    raise RuntimeError(_REINFORCE)


def _removed_method(function: Any) -> Any:
    """The Tensor method of a removed function: its own function object, named as a method."""
    def method(self: Any, *args: Any, **kwargs: Any) -> Any:
        return function(self, *args, **kwargs)

    return method


for _function, _has_method in ((eig, True), (lstsq, True), (solve, True), (matrix_rank, False)):
    op(_function.__name__, python="torch._linalg_utils",
       method=_removed_method(_function) if _has_method else False)(_function)
op("symeig", python="torch._linalg_utils", method=_removed_method(_symeig))(_symeig)
op("reinforce", function=False, method=reinforce)(reinforce)
del _function, _has_method
