"""torch.testing.assert_close and assert_allclose: the pairs of values PyTorch compares (None,
booleans, numbers, tensor-likes, inside sequences and mappings) and its messages."""
from __future__ import annotations

import cmath
import collections.abc
import contextlib
from typing import Any, Callable, NoReturn, Optional, Union

import numpy as np

from ..autograd import dtypes
from ..autograd.ops import creation
from ..autograd.tensor import Tensor
from ..warnings import deprecated

Message = Union[str, Callable[[str], str], None]

_DTYPE_PRECISIONS = {
    dtypes.float16: (0.001, 1e-5), dtypes.bfloat16: (0.016, 1e-5), dtypes.float32: (1.3e-6, 1e-5),
    dtypes.float64: (1e-7, 1e-7), dtypes.complex64: (1.3e-6, 1e-5), dtypes.complex128: (1e-7, 1e-7),
}
# assert_allclose's own, looser defaults
_ALLCLOSE_PRECISIONS = {dtypes.float16: (0.001, 0.001), dtypes.float32: (0.0001, 1e-05), dtypes.float64: (1e-05, 1e-08)}
_NUMBER_DTYPES = {int: dtypes.int64, float: dtypes.float64, complex: dtypes.complex128}


class ErrorMeta(Exception):
    """A failed comparison: the error to raise, its message and the item it occurred for."""

    def __init__(self, type: type, msg: str, *, id: tuple = ()) -> None:
        super().__init__(msg)
        self.type, self.msg, self.id = type, msg, id

    def to_error(self, msg: Message = None) -> Exception:
        if not isinstance(msg, str):
            generated = self.msg
            if self.id:
                generated += f"\n\nThe failure occurred for item {''.join(str([item]) for item in self.id)}"
            msg = msg(generated) if callable(msg) else generated
        return self.type(msg)


class _Unsupported(Exception):
    """The pair does not handle these inputs: the next one is tried."""


def default_tolerances(*dtype_list: Any, precisions: Optional[dict] = None) -> tuple:
    rtols, atols = zip(*[(precisions or _DTYPE_PRECISIONS).get(dtype, (0.0, 0.0)) for dtype in dtype_list])
    return max(rtols), max(atols)


def _tolerances(*dtype_list: Any, rtol: Optional[float], atol: Optional[float], id: tuple) -> tuple:
    if (rtol is None) ^ (atol is None):
        raise ErrorMeta(ValueError, f"Both 'rtol' and 'atol' must be either specified or omitted, "
                                    f"but got no {'rtol' if rtol is None else 'atol'}.", id=id)
    if rtol is not None:
        return rtol, atol
    return default_tolerances(*dtype_list)


def _mismatch_message(*, default_identifier: str, identifier: Message, extra: str, abs_diff: float, atol: float,
                      rel_diff: float, rtol: float, abs_diff_idx: Any = None, rel_diff_idx: Any = None) -> str:
    equality = rtol == 0 and atol == 0

    def difference(kind: str, diff: float, idx: Any, tol: float) -> str:
        text = f"{kind.title()} difference: {diff}" if idx is None else f"Greatest {kind} difference: {diff} at index {idx}"
        return text + ("" if equality else f" (up to {tol} allowed)") + "\n"

    if identifier is None:
        identifier = default_identifier
    elif callable(identifier):
        identifier = identifier(default_identifier)
    text = f"{identifier} are not {'equal' if equality else 'close'}!\n\n{extra.strip()}\n"
    text += difference("absolute", abs_diff, abs_diff_idx, atol) + difference("relative", rel_diff, rel_diff_idx, rtol)
    return text.strip()


def _scalar_mismatch(actual: Any, expected: Any, *, rtol: float, atol: float) -> str:
    abs_diff = abs(actual - expected)
    rel_diff = float("inf") if expected == 0 else abs_diff / abs(expected)
    return _mismatch_message(default_identifier="Scalars", identifier=None, extra=f"Expected {expected} but got {actual}.",
                             abs_diff=abs_diff, atol=atol, rel_diff=rel_diff, rtol=rtol)


def _tensor_mismatch(actual: Tensor, expected: Tensor, matches: Tensor, *, rtol: float, atol: float) -> str:
    shape = tuple(matches.shape)
    count = matches.numel()
    mismatches = count - int(matches.sum())
    extra = f"Mismatched elements: {mismatches} / {count} ({mismatches / count:.1%})"
    actual_flat, expected_flat, matches_flat = actual.flatten(), expected.flatten(), matches.flatten()
    if actual.dtype.category < dtypes.FLOATING:
        actual_flat, expected_flat = actual_flat.to(dtypes.int64), expected_flat.to(dtypes.int64)
    abs_diff = (actual_flat - expected_flat).abs()
    abs_diff[matches_flat] = 0
    max_abs, max_abs_index = abs_diff.max(0)
    rel_diff = abs_diff / expected_flat.abs()
    rel_diff[matches_flat] = 0
    max_rel, max_rel_index = rel_diff.max(0)
    return _mismatch_message(default_identifier="Tensor-likes", identifier=None, extra=extra,
                             abs_diff=max_abs.item(), abs_diff_idx=_unravel(int(max_abs_index), shape), atol=atol,
                             rel_diff=max_rel.item(), rel_diff_idx=_unravel(int(max_rel_index), shape), rtol=rtol)


def _unravel(flat_index: int, shape: tuple) -> tuple:
    return tuple(int(i) for i in np.unravel_index(flat_index, shape)) if shape else ()


# ------------------------------------------------------------------ the pairs

class _Pair:
    """One pair of inputs PyTorch compares; its repr (torch's Pair.__repr__) names it in the error an unexpected
    exception during the comparison becomes."""
    _options: tuple = ()

    def __init__(self, actual: Any, expected: Any, id: tuple) -> None:
        self.actual, self.expected, self.id = actual, expected, id

    def compare(self) -> None:
        raise NotImplementedError

    def _fail(self, type: type, msg: str) -> NoReturn:
        raise ErrorMeta(type, msg, id=self.id)

    def __repr__(self) -> str:
        fields = [("id", self.id), ("actual", self.actual), ("expected", self.expected),
                  *((name, getattr(self, name)) for name in self._options)]
        return "\n".join((f"{type(self).__name__}(", *(f"    {name}={value!s}," for name, value in fields), ")"))


class NonePair(_Pair):
    def __init__(self, actual: Any, expected: Any, id: tuple, **options: Any) -> None:
        if not (actual is None or expected is None):
            raise _Unsupported
        super().__init__(actual, expected, id)

    def compare(self) -> None:
        if not (self.actual is None and self.expected is None):
            self._fail(AssertionError, f"None mismatch: {self.actual} is not {self.expected}")


class BooleanPair(_Pair):
    def __init__(self, actual: Any, expected: Any, id: tuple, **options: Any) -> None:
        if not all(isinstance(value, (bool, np.bool_)) for value in (actual, expected)):
            raise _Unsupported
        super().__init__(bool(actual), bool(expected), id)

    def compare(self) -> None:
        if self.actual is not self.expected:
            self._fail(AssertionError, f"Booleans mismatch: {self.actual} is not {self.expected}")


class NumberPair(_Pair):
    _options = ("rtol", "atol", "equal_nan", "check_dtype")

    def __init__(self, actual: Any, expected: Any, id: tuple, *, rtol: Optional[float], atol: Optional[float],
                 equal_nan: Any, check_dtype: Any, **options: Any) -> None:
        if not all(isinstance(value, (int, float, complex, np.number)) for value in (actual, expected)):
            raise _Unsupported
        super().__init__(*(value.item() if isinstance(value, np.number) else value for value in (actual, expected)),
                         id)
        self.rtol, self.atol = _tolerances(*(_NUMBER_DTYPES[type(value)] for value in (self.actual, self.expected)),
                                           rtol=rtol, atol=atol, id=id)
        self.equal_nan, self.check_dtype = equal_nan, check_dtype

    def compare(self) -> None:
        actual, expected = self.actual, self.expected
        if self.check_dtype and type(actual) is not type(expected):
            self._fail(AssertionError, f"The (d)types do not match: {type(actual)} != {type(expected)}.")
        if actual == expected or (self.equal_nan and cmath.isnan(actual) and cmath.isnan(expected)):
            return
        abs_diff = abs(actual - expected)
        if cmath.isfinite(abs_diff) and abs_diff <= self.atol + self.rtol * abs(expected):
            return
        self._fail(AssertionError, _scalar_mismatch(actual, expected, rtol=self.rtol, atol=self.atol))


class TensorLikePair(_Pair):
    _options = ("rtol", "atol", "equal_nan", "check_device", "check_dtype", "check_layout", "check_stride")

    def __init__(self, actual: Any, expected: Any, id: tuple, *, allow_subclasses: Any, rtol: Optional[float],
                 atol: Optional[float], equal_nan: Any, check_device: Any, check_dtype: Any, check_layout: Any,
                 check_stride: Any) -> None:
        if not (isinstance(actual, type(expected)) or isinstance(expected, type(actual))):
            raise _Unsupported
        if not allow_subclasses and type(actual) is not type(expected):
            raise _Unsupported
        super().__init__(*(_as_tensor(value) for value in (actual, expected)), id)
        self.rtol, self.atol = _tolerances(self.actual.dtype, self.expected.dtype, rtol=rtol, atol=atol, id=id)
        self.equal_nan, self.check_device, self.check_dtype = equal_nan, check_device, check_dtype
        self.check_layout, self.check_stride = check_layout, check_stride

    def _mismatch(self, attribute: str, actual_value: Any, expected_value: Any) -> NoReturn:
        self._fail(AssertionError, f"The values for attribute '{attribute}' do not match: {actual_value} != "
                                   f"{expected_value}.")

    def compare(self) -> None:
        first, second = self.actual, self.expected
        if first.shape != second.shape:
            self._mismatch("shape", first.shape, second.shape)
        if self.check_stride and first.stride() != second.stride():
            self._mismatch("stride()", first.stride(), second.stride())
        if self.check_device and first.device != second.device:
            self._mismatch("device", first.device, second.device)
        if self.check_dtype and first.dtype is not second.dtype:
            self._mismatch("dtype", first.dtype, second.dtype)
        if first.is_meta or second.is_meta:  # no values to compare
            return
        if first.dtype is not second.dtype:
            dtype = dtypes.promote_types(first.dtype, second.dtype)
            first, second = first.to(dtype), second.to(dtype)
        matches = first.isclose(second, rtol=self.rtol, atol=self.atol, equal_nan=self.equal_nan)
        if bool(matches.all()):
            return
        if first.ndim == 0:
            message = _scalar_mismatch(first.item(), second.item(), rtol=self.rtol, atol=self.atol)
        else:
            message = _tensor_mismatch(first, second, matches, rtol=self.rtol, atol=self.atol)
        self._fail(AssertionError, message)


def _as_tensor(value: Any) -> Tensor:
    if isinstance(value, Tensor):
        return value
    try:
        return creation.as_tensor(value)
    except Exception:
        raise _Unsupported from None


_PAIRS = (NonePair, BooleanPair, NumberPair, TensorLikePair)


def _pairs(actual: Any, expected: Any, id: tuple, **options: Any) -> list:
    if isinstance(actual, collections.abc.Sequence) and not isinstance(actual, str) and isinstance(
            expected, collections.abc.Sequence) and not isinstance(expected, str):
        if len(actual) != len(expected):
            raise ErrorMeta(AssertionError, f"The length of the sequences mismatch: {len(actual)} != {len(expected)}",
                            id=id)
        return [pair for index in range(len(actual))
                for pair in _pairs(actual[index], expected[index], (*id, index), **options)]
    if isinstance(actual, collections.abc.Mapping) and isinstance(expected, collections.abc.Mapping):
        actual_keys, expected_keys = set(actual.keys()), set(expected.keys())
        if actual_keys != expected_keys:
            raise ErrorMeta(AssertionError, f"The keys of the mappings do not match:\nMissing keys in the actual mapping: "
                                            f"{sorted(expected_keys - actual_keys)}\nAdditional keys in the actual "
                                            f"mapping: {sorted(actual_keys - expected_keys)}", id=id)
        keys: Any = actual_keys
        with contextlib.suppress(Exception):
            keys = sorted(keys)
        return [pair for key in keys for pair in _pairs(actual[key], expected[key], (*id, key), **options)]
    for pair_type in _PAIRS:
        try:
            return [pair_type(actual, expected, id, **options)]
        except _Unsupported:
            continue
    raise ErrorMeta(TypeError, f"No comparison pair was able to handle inputs of type {type(actual)} and "
                               f"{type(expected)}.", id=id)


def assert_close(actual: Any, expected: Any, *, allow_subclasses: bool = True, rtol: Optional[float] = None,
                 atol: Optional[float] = None, equal_nan: bool = False, check_device: bool = True,
                 check_dtype: bool = True, check_layout: bool = True, check_stride: bool = False,
                 msg: Message = None) -> None:
    try:
        pairs = _pairs(actual, expected, (), allow_subclasses=allow_subclasses, rtol=rtol, atol=atol,
                       equal_nan=equal_nan, check_device=check_device, check_dtype=check_dtype,
                       check_layout=check_layout, check_stride=check_stride)
    except ErrorMeta as error:
        raise error.to_error() from None
    # every pair is compared, as torch's not_close_error_metas does: a later pair's unexpected error wins over an
    # earlier mismatch
    failures = []
    for pair in pairs:
        try:
            pair.compare()
        except ErrorMeta as error:
            failures.append(error)
        except Exception as error:
            raise RuntimeError(
                f"Comparing\n\n{pair}\n\nresulted in the unexpected exception above. If you are a user and see this "
                "message during normal operation please file an issue at https://github.com/pytorch/pytorch/issues. "
                "If you are a developer and working on the comparison functions, please except the previous error "
                "and raise an expressive `ErrorMeta` instead.") from error
    if failures:
        raise failures[0].to_error(msg) from None


@deprecated("FutureWarning", "`torch.testing.assert_allclose()` is deprecated since 1.12 and will be removed in a "
                             "future release. Please use `torch.testing.assert_close()` instead. You can find detailed "
                             "upgrade instructions in https://github.com/pytorch/pytorch/issues/61844.")
def assert_allclose(actual: Any, expected: Any, rtol: Optional[float] = None, atol: Optional[float] = None,
                    equal_nan: bool = True, msg: str = "") -> None:
    if not isinstance(actual, Tensor):
        actual = creation.tensor(actual)
    if not isinstance(expected, Tensor):
        expected = creation.tensor(expected, dtype=actual.dtype)
    if rtol is None and atol is None:
        rtol, atol = default_tolerances(actual.dtype, expected.dtype, precisions=_ALLCLOSE_PRECISIONS)
    assert_close(actual, expected, rtol=rtol, atol=atol, equal_nan=equal_nan, check_device=True, check_dtype=False,
                 check_stride=False, msg=msg or None)


# as torch names the module of its own (Python names it in a call's argument errors)
for _function in (assert_close, assert_allclose, default_tolerances):
    _function.__module__ = "torch.testing._comparison"
del _function
