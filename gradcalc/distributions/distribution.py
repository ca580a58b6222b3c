"""torch.distributions.distribution: the Distribution base class, with PyTorch's argument and
sample validation (on by default) and its messages."""
from __future__ import annotations

from typing import Any, Optional

from ..autograd import grad_mode
from ..autograd.tensor import Size, Tensor
from ..warnings import warn
from . import constraints
from .utils import lazy_property

__all__ = ["Distribution"]


class Distribution:
    """The abstract base class of probability distributions."""

    __module__ = "torch.distributions.distribution"
    has_rsample = False
    has_enumerate_support = False
    _validate_args = True  # Python's __debug__: programs never run optimized

    @staticmethod
    def set_default_validate_args(value: bool) -> None:
        if value not in [True, False]:
            raise ValueError
        Distribution._validate_args = value

    def __init__(self, batch_shape: Any = Size(), event_shape: Any = Size(),
                 validate_args: Optional[bool] = None) -> None:
        self._batch_shape = batch_shape
        self._event_shape = event_shape
        if validate_args is not None:
            self._validate_args = validate_args
        if self._validate_args:
            try:
                arg_constraints = self.arg_constraints
            except NotImplementedError:
                arg_constraints = {}
                warn("UserWarning", f"{self.__class__} does not define `arg_constraints`. Please set "
                     "`arg_constraints = {}` or initialize the distribution with `validate_args=False` to turn off "
                     "validation.")
            for param, constraint in arg_constraints.items():
                if param[:2] == "__" == param[-2:]:
                    continue  # a program's table never names Python's special attributes as parameters
                if constraints.is_dependent(constraint):
                    continue  # constraints that cannot be checked
                if param not in self.__dict__ and isinstance(getattr(type(self), param), lazy_property):
                    continue  # lazily constructed parameters
                value = getattr(self, param)
                if not constraint.check(value).all():
                    raise ValueError(f"Expected parameter {param} ({type(value).__name__} of shape "
                                     f"{tuple(value.shape)}) of distribution {self!r} to satisfy the constraint "
                                     f"{constraint!r}, but found invalid values:\n{value}")
        super().__init__()

    def expand(self, batch_shape: Any, _instance: Any = None) -> "Distribution":
        raise NotImplementedError

    @property
    def batch_shape(self) -> Size:
        return self._batch_shape

    @property
    def event_shape(self) -> Size:
        return self._event_shape

    @property
    def arg_constraints(self) -> dict:
        raise NotImplementedError

    @property
    def support(self) -> Any:
        raise NotImplementedError

    @property
    def mean(self) -> Tensor:
        raise NotImplementedError

    @property
    def mode(self) -> Tensor:
        raise NotImplementedError(f"{self.__class__} does not implement mode")

    @property
    def variance(self) -> Tensor:
        raise NotImplementedError

    @property
    def stddev(self) -> Tensor:
        return self.variance.sqrt()

    def sample(self, sample_shape: Any = Size()) -> Tensor:
        with grad_mode.no_grad():
            return self.rsample(sample_shape)

    def rsample(self, sample_shape: Any = Size()) -> Tensor:
        raise NotImplementedError

    def sample_n(self, n: int) -> Tensor:
        warn("FutureWarning", "`sample_n(n)` will be deprecated. Use `sample((n,))` instead.")
        return self.sample(Size((n,)))

    def log_prob(self, value: Tensor) -> Tensor:
        raise NotImplementedError

    def cdf(self, value: Tensor) -> Tensor:
        raise NotImplementedError

    def icdf(self, value: Tensor) -> Tensor:
        raise NotImplementedError

    def enumerate_support(self, expand: bool = True) -> Tensor:
        raise NotImplementedError

    def entropy(self) -> Tensor:
        raise NotImplementedError

    def perplexity(self) -> Tensor:
        return self.entropy().exp()

    def _extended_shape(self, sample_shape: Any = Size()) -> Size:
        """The shape of a sample of `sample_shape`: sample_shape + batch_shape + event_shape."""
        if not isinstance(sample_shape, Size):
            sample_shape = Size(sample_shape)
        return Size(sample_shape + self._batch_shape + self._event_shape)

    def _validate_sample(self, value: Tensor) -> None:
        """The checks of log_prob, cdf and icdf: value's rightmost dimensions against the batch
        and event shapes, and its values against the support."""
        if not isinstance(value, Tensor):
            raise ValueError("The value argument to log_prob must be a Tensor")
        event_dim_start = len(value.size()) - len(self._event_shape)
        if value.size()[event_dim_start:] != self._event_shape:
            raise ValueError(f"The right-most size of value must match event_shape: {value.size()} vs "
                             f"{self._event_shape}.")
        actual_shape = value.size()
        expected_shape = self._batch_shape + self._event_shape
        for i, j in zip(reversed(actual_shape), reversed(expected_shape)):
            if i != 1 and j != 1 and i != j:
                raise ValueError(f"Value is not broadcastable with batch_shape+event_shape: {actual_shape} vs "
                                 f"{expected_shape}.")
        try:
            support = self.support
        except NotImplementedError:
            warn("UserWarning", f"{self.__class__} does not define `support` to enable sample validation. Please "
                 "initialize the distribution with `validate_args=False` to turn off validation.")
            return
        if support is None:
            raise AssertionError("support is unexpectedly None")
        if not support.check(value).all():
            raise ValueError(f"Expected value argument ({type(value).__name__} of shape {tuple(value.shape)}) to be "
                             f"within the support ({support!r}) of the distribution {self!r}, but found invalid "
                             f"values:\n{value}")

    def _expanded(self, cls: type, batch_shape: Any, _instance: Any, names: tuple) -> Any:
        """What `expand` returns for a distribution whose parameters `names` all have the batch
        shape: each expanded (no copy), and no validation again."""
        new = self._get_checked_instance(cls, _instance)
        batch_shape = Size(batch_shape)
        for name in names:
            setattr(new, name, getattr(self, name).expand(batch_shape))
        super(cls, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _get_checked_instance(self, cls: type, _instance: Any = None) -> Any:
        if _instance is None and type(self).__init__ != cls.__init__:
            raise NotImplementedError(f"Subclass {self.__class__.__name__} of {cls.__name__} that defines a custom "
                                      "__init__ method must also define a custom .expand() method.")
        return self.__new__(type(self)) if _instance is None else _instance

    def __repr__(self) -> str:
        param_names = [k for k in self.arg_constraints if k in self.__dict__]
        args_string = ", ".join(
            f"{p}: {self.__dict__[p] if self.__dict__[p].numel() == 1 else self.__dict__[p].size()}"
            for p in param_names)
        return self.__class__.__name__ + "(" + args_string + ")"


_CLASS_TABLES: list = []  # (a class's arg_constraints dict, its entries as gradcalc made them)


def remember_class_tables() -> None:
    """Note the arg_constraints dicts of gradcalc's distribution classes, which a program can change."""
    pending = [Distribution]
    while pending:
        cls = pending.pop()
        pending += cls.__subclasses__()
        table = vars(cls).get("arg_constraints")
        if isinstance(table, dict):
            _CLASS_TABLES.append((table, dict(table)))


def reset() -> None:
    """A fresh run validates arguments again and sees the classes' tables as they were made."""
    Distribution._validate_args = True
    for table, entries in _CLASS_TABLES:
        table.clear()
        table.update(entries)
