"""The Tensor: a numpy array, a dtype, a version counter shared with its views, and its
place in the autograd graph (a leaf that may require grad, or the output of a grad_fn)."""
from __future__ import annotations

import builtins
import numbers
import operator
import re
import weakref
from typing import Any, Callable, Optional, Sequence

import numpy as np

from . import dtypes, grad_mode
from .dtypes import DType, bfloat16 as BFLOAT16
from .engine import AccumulateGrad, Node, PostAccumulateGradHook, RemovableHandle, remove_hook
from .grad_mode import FORWARD_LEVELS as LEVELS
from .native import address, kernels
from .layout import CHANNELS_LAST_ORDERS
from .sequence_slots import index_as_mapping_only
from ..display.names import torch_class, type_name
from ..warnings import warn, warn_once

NON_LEAF_GRAD_WARNING = (
    "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad attribute "
    "won't be populated during autograd.backward(). If you indeed want the .grad field to be populated "
    "for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor. If you access the non-leaf Tensor "
    "by mistake, make sure you access the leaf Tensor instead. See github.com/pytorch/pytorch/pull/30531 "
    "for more information.")
T_DEPRECATED_WARNING = ("The use of `x.T` on tensors of dimension other than 2 to reverse their shape is deprecated "
                        "and it will throw an error in a future release. Consider `x.mT` to transpose batches of "
                        "matrices or `x.permute(*torch.arange(x.ndim - 1, -1, -1))` to reverse the dimensions of a "
                        "tensor.")
LEAF_INPLACE_MESSAGE = "a leaf Variable that requires grad is being used in an in-place operation."
VIEW_OF_LEAF_INPLACE_MESSAGE = "a view of a leaf Variable that requires grad is being used in an in-place operation."
ONLY_FLOAT_GRAD_MESSAGE = "Only Tensors of floating point and complex dtype can require gradients"
NO_CUDA_MESSAGE = "Torch not compiled with CUDA enabled"
# How a view was made (PyTorch's CreationMeta), which decides whether it may be modified in place
VIEW_DEFAULT, VIEW_NO_GRAD, VIEW_MULTI_OUTPUT, VIEW_INFERENCE = "default", "no_grad", "multi_output", "inference"


# the dims of a channels-last layout, innermost first (NHWC, NDHWC)


FUNCTORCH_REQUIRES_GRAD = (
    "You are attempting to call Tensor.requires_grad_() (or perhaps using torch.autograd.functional.* APIs) inside "
    "of a function being transformed by a functorch transform. This is unsupported, please attempt to use the "
    "functorch transforms (e.g. grad, vjp, jacrev, jacfwd, hessian) or call requires_grad_() outside of a function "
    "being transformed instead.")

class VersionCounter:
    """Counts in-place changes to one storage; a tensor, its views and `detach()` share one."""

    __slots__ = ("value",)

    def __init__(self) -> None:
        self.value = 0


INFERENCE_INPLACE_MESSAGE = ("Inplace update to inference tensor outside InferenceMode is not allowed.You can make a "
                             "clone to get a normal tensor before doing inplace update.See "
                             "https://github.com/pytorch/rfcs/pull/17 for more details.")


class InferenceVersion(VersionCounter):
    """An inference tensor's counter. PyTorch's have none: counting an in-place change, which comes
    after the op has written its values, fails outside inference mode."""

    __slots__ = ()

    def __init__(self) -> None:
        pass

    @property  # type: ignore[override]
    def value(self) -> int:
        return 0

    @value.setter
    def value(self, _: int) -> None:
        if not grad_mode._inference:
            raise RuntimeError(INFERENCE_INPLACE_MESSAGE)


INFERENCE_VERSION = InferenceVersion()


@torch_class("torch.Size", c_type=True)
class Size(tuple):
    """torch.Size: a tuple of ints that prints as `torch.Size([2, 3])`."""

    def __new__(cls, *args: Any, **kwargs: Any) -> "Size":
        if kwargs:  # as tuple's constructor, which torch.Size's is
            raise TypeError("tuple() takes no keyword arguments")
        if len(args) > 1:
            raise TypeError(f"tuple expected at most 1 argument, got {len(args)}")
        items = tuple(args[0]) if args else ()
        if all(type(n) is int for n in items):  # the common case: a numpy shape
            return tuple.__new__(cls, items)
        converted = []
        for position, item in enumerate(items):
            try:
                converted.append(operator.index(item))  # also a one-element integer tensor
            except TypeError:
                raise TypeError(f"torch.Size() takes an iterable of 'int' (item {position} is "
                                f"'{type_name(item)}')") from None
        return tuple.__new__(cls, converted)

    def _check_items(self) -> None:
        # torch.Size keeps any int, and reads each as an int64 where it uses them
        if self and not (-2 ** 63 <= min(self) and max(self) < 2 ** 63):
            raise ValueError("Overflow when unpacking long long")

    def __repr__(self) -> str:
        self._check_items()
        return f"torch.Size([{', '.join(map(str, self))}])"

    __str__ = __repr__

    def numel(self) -> int:
        self._check_items()
        return int(np.prod(self, dtype=np.int64))

    def __getitem__(self, index: Any) -> Any:
        try:
            item = tuple.__getitem__(self, index)
        except (IndexError, TypeError) as error:  # the tuple's own error, as torch.Size's C code gives it
            raise error.with_traceback(None)
        return Size(item) if isinstance(index, slice) else item

    def __add__(self, other: Any) -> "Size":
        if not isinstance(other, tuple):
            raise TypeError(f"can only concatenate tuple (not {type_name(other)}) to torch.Size")
        return Size(tuple(self) + other)

    def __radd__(self, other: Any) -> Any:
        if not isinstance(other, tuple):
            return NotImplemented  # Python's own error then names torch.Size
        return Size(other + tuple(self))  # a plain tuple on the left: torch keeps the Size type

    def __mul__(self, times: Any) -> Any:
        if not hasattr(times, "__index__"):
            raise TypeError(f"can't multiply sequence by non-int of type '{type_name(times)}'")
        return Size(tuple(self) * times)

    __rmul__ = __mul__


# The device types torch knows, in the order its error message lists them.
DEVICE_TYPES = ("cpu", "cuda", "ipu", "xpu", "mkldnn", "opengl", "opencl", "ideep", "hip", "ve", "fpga", "maia", "xla",
                "lazy", "vulkan", "mps", "meta", "hpu", "mtia", "privateuseone")
_DEVICE_STRING = re.compile(r"([a-zA-Z_]+)(?::(0|[1-9][0-9]*))?")


@torch_class("torch.device", c_type=True)
class Device:
    """torch.device: any device torch knows can be named (`cuda:0`), but gradcalc computes on
    the CPU only; check_device refuses the others as a CPU-only PyTorch does."""

    __slots__ = ("type", "index")
    # torch's argument parser of the constructor, bound to its parameter names: set by the op
    # registry (ops/__init__.py), as the parser's module imports this one
    _parse_arguments: Callable[[tuple, dict], dict]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if len(args) == 1 and not kwargs and builtins.type(args[0]) in (str, Device):
            type, index = args[0], None  # gradcalc's own calls: nothing for the parser to refuse
        else:
            bound = Device._parse_arguments(args, kwargs)
            type, index = bound.get("device", bound.get("type")), bound.get("index")
        if isinstance(type, int):  # an index alone: of the accelerator, checked as an index first
            if type < 0:
                raise RuntimeError("Device index must not be negative")
            raise RuntimeError("Cannot access accelerator device when none is available.")
        if isinstance(type, Device):
            self.type, self.index = type.type, type.index
            return
        match = _DEVICE_STRING.fullmatch(type)
        if match is None:
            raise RuntimeError(f"Invalid device string: '{type}'")
        kind, number = match.groups()
        if kind not in DEVICE_TYPES:
            raise RuntimeError(f"Expected one of {', '.join(DEVICE_TYPES)} device type at start of device string: "
                               f"{type}")
        if number is not None:
            if index is not None:
                raise RuntimeError(f"type (string) must not include an index because index was passed explicitly: "
                                   f"{type}")
            index = int(number)
        elif index is not None and index < 0:
            raise RuntimeError("Device index must not be negative")
        self.type = kind
        self.index = index

    def __repr__(self) -> str:
        index = "" if self.index is None else f", index={self.index}"
        return f"device(type='{self.type}'{index})"

    def __str__(self) -> str:
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, Device) and (other.type, other.index) == (self.type, self.index)

    def __hash__(self) -> int:
        return hash((self.type, self.index))

    # `with torch.device("meta"):` — the factories called inside make tensors on that device
    def __enter__(self) -> None:
        DEVICE_CONTEXT.append(self)

    def __exit__(self, *exc_info: Any) -> None:
        DEVICE_CONTEXT.pop()


DEVICE_CONTEXT: list = []  # the devices of the `with torch.device(...)` blocks running, innermost last


def check_device(device: Any) -> None:
    """Refuse any device but the CPU, as a CPU-only PyTorch does."""
    if device is None:
        return
    kind = Device(device).type
    if kind == "cuda":
        raise AssertionError(NO_CUDA_MESSAGE)
    if kind not in ("cpu", "meta"):  # meta: shapes without data (autograd/meta.py)
        raise RuntimeError(f"PyTorch is not linked with support for {kind} devices")


CPU = Device("cpu")
META = Device("meta")


@torch_class("torch.Tensor")
class Tensor:
    # torch writes these methods in Python (bound methods); all its other methods are C built-ins
    # (and, read from the class, print as functions; the others as torch._C.TensorBase's descriptors)
    _python_methods = frozenset({
        "backward", "register_hook", "register_post_accumulate_grad_hook", "split", "norm", "unflatten", "unique",
        "unique_consecutive", "lu", "stft", "istft", "dim_order", "storage", "storage_type", "is_shared",
        "share_memory_", "resize", "resize_as", "to_sparse_coo", "module_load", "__array__", "__array_wrap__",
        "__contains__", "__deepcopy__", "__floordiv__", "__format__", "__hash__", "__ipow__", "__iter__", "__len__",
        "__pow__", "__repr__", "__reversed__", "__rfloordiv__", "__rlshift__", "__rmatmul__", "__rmod__", "__rpow__",
        "__rrshift__", "__rsub__", "__rtruediv__",
        "__new__", "__str__", "__copy__"})  # (not TensorBase's either: type's, object's, copy's)
    _c_base = "torch._C.TensorBase"
    __slots__ = ("_data", "_dtype", "_vc", "_requires_grad", "_node", "_output_nr", "_grad",
                 "_retains_grad", "_base", "_view_kind", "_view_version", "_is_inference", "_hooks",
                 "_accumulator", "_fw", "_wrapped", "__weakref__", "__dict__")

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "__getitem__" in Tensor.__dict__:  # the op tables are installed (ops/__init__.py)
            index_as_mapping_only(cls, Tensor)  # a subclass is no sequence either (numpy asks)

    @classmethod
    def _make(cls, data: np.ndarray, dtype: DType, *, base: Optional["Tensor"] = None,
              requires_grad: bool = False, view_kind: str = VIEW_DEFAULT) -> "Tensor":
        """A new tensor on `data`; a view of `base` shares its version counter and is tied to
        the root base, whose in-place changes it must follow (`view_kind` is PyTorch's
        CreationMeta: how the view was made decides which in-place changes are allowed)."""
        tensor = object.__new__(cls)
        # numpy arithmetic on 0-d arrays gives numpy scalars, which are immutable: keep an array
        if type(data) is not np.ndarray:
            data = np.asarray(data, dtype=dtype._numpy)
        if dtype is BFLOAT16:  # new values rounded; views and aliases of rounded storage kept as they are
            rounded = dtypes.round_to_bfloat16(data)
            if not np.array_equal(rounded, data, equal_nan=True):
                data = rounded
        tensor._data = data
        tensor._dtype = dtype
        if base is None:
            tensor._vc = INFERENCE_VERSION if grad_mode._inference else VersionCounter()
            tensor._base = None
            tensor._view_kind = view_kind
            # an inference tensor: made in inference mode, or a view of one (a view takes its base's kind)
            tensor._is_inference = grad_mode._inference
        else:
            # an inference tensor's views count no changes, whatever their base's counter (a detached one's)
            tensor._vc = INFERENCE_VERSION if base._is_inference else base._vc
            tensor._base = base._base if base._base is not None else base
            if base._view_kind == VIEW_INFERENCE or (base._base is not None and view_kind == VIEW_DEFAULT):
                view_kind = base._view_kind  # a view of a restricted view keeps its restriction
            tensor._view_kind = view_kind
            tensor._view_version = base._vc.value
            tensor._is_inference = base._is_inference
        tensor._requires_grad = requires_grad
        tensor._node = None
        tensor._output_nr = 0
        tensor._grad = None
        tensor._retains_grad = False
        tensor._hooks = None
        tensor._accumulator = None
        tensor._fw = None  # forward-mode tangents: {level: tangent}
        # a Python number passed where a tensor is expected (PyTorch's wrapped number): it takes
        # part in type promotion as the number would, here and wherever it is saved for backward
        tensor._wrapped = False
        return tensor

    def _alias(self, grad_fn: Optional[Node] = None, output_nr: int = 0) -> "Tensor":
        """The same storage and version counter, with no history of its own (or the given one)."""
        alias = Tensor._make(self._data, self._dtype)
        alias._vc = self._vc
        alias._grad_fn = grad_fn
        alias._output_nr = output_nr
        alias._fw = self._fw  # a saved output keeps the tangents it has or gets
        return alias

    @staticmethod
    def _wrap_number(value: Any) -> "Tensor":
        """A Python number where a tensor is expected, as PyTorch wraps it: float64 for a float,
        complex128 for a complex number, and promoted as the number would be."""
        dtype = dtypes.WRAPPED_DTYPES.get(type(value)) or dtypes.scalar_dtype(value, wrapped=True)
        if dtype is dtypes.int64:  # a number past int64's range is unsigned, as torch's Scalar holds it
            dtype = dtypes.unpack_scalar_int(value)
        tensor = Tensor._make(np.array(value, dtype=dtype._numpy), dtype)
        tensor._wrapped = True
        return tensor

    def _copy(self) -> "Tensor":
        """A copy with no history: what `detach().clone()` gives with grad mode off (on the same device)."""
        copy = Tensor._make(self._data.copy(), self._dtype)
        if self.__dict__.get("_meta"):
            copy.__dict__["_meta"] = True
        return copy

    def _grad_accumulator(self) -> AccumulateGrad:
        node = self._accumulator() if self._accumulator is not None else None
        if node is None:
            node = AccumulateGrad(self)
            self._accumulator = weakref.ref(node)
        return node

    # ------------------------------------------------------------ properties

    @property
    def shape(self) -> Size:
        return tuple.__new__(Size, self._data.shape)  # a numpy shape holds ints: nothing to check

    @property
    def dtype(self) -> DType:
        return self._dtype

    @property
    def device(self) -> Device:
        return META if self.__dict__.get("_meta") else CPU

    @property
    def is_meta(self) -> bool:
        return self.__dict__.get("_meta", False)

    @property
    def is_cuda(self) -> bool:
        return False

    @property
    def ndim(self) -> int:
        return self._data.ndim

    @property
    def _grad_fn(self) -> Optional[Node]:
        # a view whose storage changed in place since its history was set (through itself, its
        # base or another view) gets a fresh history on the base's current one, as PyTorch does
        if self._base is not None and self._view_version != self._vc.value:
            self._refresh_view_history()  # the view machinery of ops/inplace.py
        return self._node

    @_grad_fn.setter
    def _grad_fn(self, node: Optional[Node]) -> None:
        self._node = node

    def _set_history(self, node: Node, output_nr: int) -> None:
        """A new grad_fn after an in-place change. retain_grad follows the tensor to it; hooks
        registered before stay with the old one, as in PyTorch."""
        previous, previous_nr = self._node, self._output_nr
        self._node, self._output_nr = node, output_nr
        if self._retains_grad and previous is not None and previous._retained:
            ref = previous._retained.pop(previous_nr, None)
            if ref is not None:
                node._retained = node._retained or {}
                node._retained[output_nr] = ref

    @property
    def requires_grad(self) -> bool:
        return (self._requires_grad or self._node is not None
                or (self._base is not None and self._base.requires_grad))

    @requires_grad.setter
    def requires_grad(self, value: bool) -> None:
        if type(value) is not bool:  # the C setter's PyBool_Check, before anything else
            raise RuntimeError("requires_grad must be a bool")
        # the attribute refuses any change on a non-leaf; requires_grad_() below accepts True
        if self._grad_fn is not None:
            raise RuntimeError(_requires_grad_leaf_error(bool(value)))
        if value and self._dtype.category < dtypes.FLOATING:
            raise RuntimeError("only Tensors of floating point and complex dtype can require gradients")
        if value:
            self._check_not_inference()
        self._requires_grad = bool(value)

    def _check_not_inference(self) -> None:
        if self._is_inference and not grad_mode.is_inference_mode_enabled():
            raise RuntimeError("Setting requires_grad=True on inference tensor outside InferenceMode is not allowed.")

    @property
    def is_leaf(self) -> bool:
        return self._grad_fn is None

    @property
    def grad_fn(self) -> Optional[Node]:
        return self._grad_fn

    @property
    def grad(self) -> Optional["Tensor"]:
        if self._grad_fn is not None and not self._retains_grad and self._grad is None:
            warn("UserWarning", NON_LEAF_GRAD_WARNING, at="build/aten/src/ATen/core/TensorBody.h:493")
        return self._grad

    @grad.setter
    def grad(self, value: Optional["Tensor"]) -> None:
        if value is not None:
            if not isinstance(value, Tensor):
                raise TypeError(f"assigned grad expected to be a Tensor or None but got grad of type "
                                f"{type_name(value)}")
            if value._dtype is not self._dtype:
                raise RuntimeError(
                    f"attempting to assign a gradient with dtype '{value._dtype._cpp_name}' to a tensor with "
                    f"grad_dtype '{self._dtype.tensor_type[:-len('Tensor')]}'. The gradient must match the "
                    "tensor's grad_dtype (defaults to the tensor's dtype). You can set the tensor's grad_dtype "
                    "attribute with a specific dtype, or None to allow any dtype. Set grad_dtype with caution. "
                    "Diverging the dtypes of a tensor and its gradient may break downstream systems that assume "
                    "they match.")
            if value.shape != self.shape:
                raise RuntimeError(
                    f"attempting to assign a gradient of size '[{', '.join(map(str, value.shape))}]' to a tensor "
                    f"of size '[{', '.join(map(str, self.shape))}]'. Please ensure that the gradient and the "
                    "tensor are the same size")
        self._grad = value


    @grad.deleter
    def grad(self) -> None:
        self._grad = None

    @property
    def retains_grad(self) -> bool:
        return self._retains_grad

    @property
    def data(self) -> "Tensor":
        # shares the storage but not the version counter: changes through it go unseen by autograd
        # (an inference tensor's counts none in inference mode, as detach()'s)
        out = Tensor._make(self._data, self._dtype)
        out._is_inference = self._is_inference
        if grad_mode._inference and not self._is_inference:
            out._vc = VersionCounter()
        if self.__dict__.get("_meta"):
            out.__dict__["_meta"] = True
        return out

    @data.setter
    def data(self, value: "Tensor") -> None:
        if not isinstance(value, Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got {type_name(value)}")
        if self.requires_grad and value._dtype.category < dtypes.FLOATING:
            raise RuntimeError("data set to a tensor that requires gradients must be floating point or complex dtype")
        self._data = value._data
        self._dtype = value._dtype
        if value.__dict__.get("_meta"):
            self.__dict__["_meta"] = True
        else:
            self.__dict__.pop("_meta", None)

    @property
    def _version(self) -> int:
        if self._vc is INFERENCE_VERSION:
            raise RuntimeError("Inference tensors do not track version counter.")
        return self._vc.value

    def is_inference(self) -> bool:
        return self._is_inference

    # -------------------------------------------------------------- autograd

    def detach_(self) -> "Tensor":
        if self._base is not None:
            raise RuntimeError(
                "Can't detach views in-place. Use detach() instead. If you are using DistributedDataParallel "
                "(DDP) for training, and gradient_as_bucket_view is set as True, gradients are views of DDP "
                "buckets, and hence detach_() cannot be called on these gradients. To fix this error, please "
                "refer to the Optimizer.zero_grad() function in torch/optim/optimizer.py as the solution.")
        self._grad_fn = None
        self._output_nr = 0
        self._requires_grad = False
        return self

    def requires_grad_(self, requires_grad: bool = True) -> "Tensor":
        if grad_mode.functorch_active():  # the Python method's own check, not the flag's
            raise RuntimeError(FUNCTORCH_REQUIRES_GRAD)
        return self._set_requires_grad(requires_grad)

    def _set_requires_grad(self, requires_grad: bool = True) -> "Tensor":
        if self._grad_fn is not None:
            if not requires_grad:
                raise RuntimeError(_requires_grad_leaf_error(False))
            return self
        if requires_grad and self._dtype.category < dtypes.FLOATING:
            raise RuntimeError("only Tensors of floating point dtype can require gradients")
        if requires_grad:
            self._check_not_inference()
        self._requires_grad = bool(requires_grad)
        return self

    def retain_grad(self) -> None:
        if not self.requires_grad:
            raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
        if self._grad_fn is None or self._retains_grad:
            return
        node = self._grad_fn
        node._retained = node._retained or {}
        node._retained[self._output_nr] = weakref.ref(self)
        self._retains_grad = True

    def register_hook(self, hook: Callable) -> "RemovableHandle":
        if not self.requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        if self._grad_fn is None:
            self._hooks = (self._hooks or []) + [hook]
            return RemovableHandle(lambda: remove_hook(self._hooks, hook))
        node = self._grad_fn
        node._tensor_hooks = node._tensor_hooks or {}
        hooks = node._tensor_hooks.setdefault(self._output_nr, [])
        hooks.append(hook)
        return RemovableHandle(lambda: remove_hook(hooks, hook))

    def register_post_accumulate_grad_hook(self, hook: Callable) -> "RemovableHandle":
        """`hook(tensor)` after a backward pass has accumulated into this leaf's .grad."""
        if not self.requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        if self._grad_fn is not None:
            raise RuntimeError("post accumulate grad hooks cannot be registered on non-leaf tensors")
        entry = PostAccumulateGradHook(hook)
        self._hooks = (self._hooks or []) + [entry]
        return RemovableHandle(lambda: remove_hook(self._hooks, entry))

    # -------------------------------------------------------------- numbers

    def _batched(self) -> bool:
        """Computed from a running vmap's examples (see forward_mode.BatchLevel)."""
        return any(type(level) is not int and level in self._fw for level in LEVELS)

    def item(self) -> Any:
        if self._fw and self._batched():
            raise RuntimeError("vmap: It looks like you're calling .item() on a Tensor. We don't support vmap over "
                               "calling .item() on a Tensor, please try to rewrite what you're doing with other "
                               "operations. If error is occurring somewhere inside PyTorch internals, please file a "
                               "bug report.")
        if self._data.size != 1:
            raise RuntimeError(f"a Tensor with {self._data.size} elements cannot be converted to Scalar")
        if self.__dict__.get("_meta"):
            raise RuntimeError("Tensor.item() cannot be called on meta tensors")
        return self._data.item()  # (numpy's item() of any one element)

    def tolist(self) -> Any:
        if self.__dict__.get("_meta"):
            raise NotImplementedError("Cannot copy out of meta tensor; no data!")
        return self._data.tolist()

    def __bool__(self) -> bool:
        if self._fw and self._batched():
            raise RuntimeError("vmap: It looks like you're attempting to use a Tensor in some data-dependent control "
                               "flow. We don't support that yet, please file an issue at "
                               "https://github.com/pytorch/pytorch/issues .")
        if self._data.size != 1:
            if self._data.size == 0:
                raise RuntimeError("Boolean value of Tensor with no values is ambiguous")
            raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
        if self.__dict__.get("_meta"):
            raise RuntimeError("Tensor.item() cannot be called on meta tensors")
        return bool(self._data.reshape(()))

    def __float__(self) -> float:
        self._warn_if_requires_grad()
        self._only_one_element()
        return float(self._real_value("double"))

    def __int__(self) -> int:
        self._only_one_element()
        return int(self._real_value("int64_t"))

    def _real_value(self, c_type: str) -> Any:
        if self.__dict__.get("_meta"):
            raise RuntimeError("Tensor.item() cannot be called on meta tensors")
        value = self._data.reshape(())
        if self._dtype.is_complex:
            if value.imag != 0:  # c10's checked conversion of a complex number to a real type
                raise RuntimeError(f"value cannot be converted to type {c_type} without overflow")
            return value.real
        return value

    def __complex__(self) -> complex:
        self._warn_if_requires_grad()
        self._only_one_element()
        return complex(self._data.reshape(()))

    def __index__(self) -> int:
        if self._dtype.category > dtypes.INTEGRAL or self._data.size != 1:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return int(self._data.reshape(()))

    def _only_one_element(self) -> None:
        if self._data.size != 1:
            raise ValueError("only one element tensors can be converted to Python scalars")

    def _warn_if_requires_grad(self) -> None:
        # float() and complex() warn (once) in PyTorch, with grad mode on; int() and item() do not
        if self.requires_grad and grad_mode.is_grad_enabled():
            warn_once("UserWarning", "Converting a tensor with requires_grad=True to a scalar may lead to unexpected "
                                     "behavior.\nConsider using tensor.detach() first.",
                                     at="torch/csrc/autograd/generated/python_variable_methods.cpp:822")

    def __len__(self) -> int:
        if self.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self._data.shape[0]

    def __contains__(self, element: Any) -> bool:
        if not isinstance(element, (Tensor, numbers.Number)):
            raise RuntimeError(f"Tensor.__contains__ only supports Tensor or scalar, but you passed in a "
                               f"{type(element)}.")
        found = element == self  # torch's order: the element's __eq__ first
        if isinstance(found, bool):  # neither side compares (a Fraction): torch's `.any()` fails on it too
            raise AttributeError("'bool' object has no attribute 'any'")
        return bool(found.any())

    def __hash__(self) -> int:
        return id(self)

    def __format__(self, spec: str) -> str:
        # as torch: a 0-dim plain tensor formats as its number; any other only without a spec, as its str
        if self.ndim == 0 and type(self) is Tensor:
            return format(self.item(), spec)
        return object.__format__(self, spec)

    def __repr__(self) -> str:
        from ..display.tensor_repr import format_meta, format_tensor  # on first use: it costs start-up milliseconds
        try:
            grad_fn = self._grad_fn.name() if self._grad_fn is not None else None
        except RuntimeError:  # a view made in no-grad mode and changed in place has no valid history
            grad_fn = "Invalid"
        if grad_fn is not None and "::" in grad_fn:
            grad_fn = grad_fn.rsplit("::", 1)[1]
        # requires_grad, not the flag: a view made in no-grad mode requires grad when its base does
        shown = [level for level in LEVELS if type(level) is int]
        tangent = self._fw.get(shown[-1]) if self._fw and shown else None
        if self.__dict__.get("_meta"):
            text = format_meta(self._data.shape, self._dtype.name, grad_fn=grad_fn, requires_grad=self.requires_grad,
                               default_dtype=dtypes.get_default_dtype().name)
        else:
            text = format_tensor(self._data, self._dtype.name, grad_fn=grad_fn, requires_grad=self.requires_grad,
                                 default_dtype=dtypes.get_default_dtype().name,
                                 tangent=None if tangent is None else repr(tangent) if tangent.ndim
                                 else repr(tangent.item()))
        if getattr(type(self), "is_parameter", False):
            return "Parameter containing:\n" + text
        return text

    __str__ = __repr__

    # -------------------------------------------------------------- sizes

    def size(self, dim: Optional[int] = None) -> Any:
        if dim is None:
            return self.shape
        if self.ndim == 0:
            raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
        return self._data.shape[wrap_dim(dim, self.ndim)]

    def dim(self) -> int:
        return self._data.ndim

    def numel(self) -> int:
        return int(self._data.size)

    nelement = numel

    def element_size(self) -> int:
        return self._dtype.itemsize

    def stride(self, dim: Optional[int] = None) -> Any:
        strides = tuple(s // self._data.itemsize for s in self._data.strides)
        if not self._data.size and not builtins.any(strides):
            # numpy gives an empty array zero strides; PyTorch gives it contiguous ones, each size counted as >= 1
            sizes = [builtins.max(size, 1) for size in self._data.shape]
            strides = tuple(int(np.prod(sizes[i + 1:], dtype=np.int64)) for i in range(len(sizes)))
        return strides if dim is None else strides[wrap_dim(dim, self.ndim)]

    def storage_offset(self) -> int:
        if not self._data.size:
            return 0
        owner = self._data
        while isinstance(owner.base, np.ndarray):  # the array that owns the storage
            owner = owner.base
        return (address(self._data) - address(owner)) // self._data.itemsize

    def data_ptr(self) -> int:
        # a meta tensor's storage has no memory, an empty one none allocated
        return address(self._data) if self._data.size and not self.is_meta else 0

    def is_contiguous(self, memory_format: Any = None) -> bool:
        order = CHANNELS_LAST_ORDERS.get(getattr(memory_format, "_name", None))
        if order is None:
            return bool(self._data.flags.c_contiguous)
        # c10's channels-last contiguity: dense with the channels innermost (dims of size 1 ignored)
        if self._data.ndim != len(order):
            return False
        expected = self._data.itemsize
        for dim in order:
            size = self._data.shape[dim]
            if size != 1:
                if self._data.strides[dim] != expected:
                    return False
                expected *= size
        return True

    def is_floating_point(self) -> bool:
        return self._dtype.is_floating_point

    def is_complex(self) -> bool:
        return self._dtype.is_complex

    def cpu(self, memory_format: Any = None) -> "Tensor":
        if self.__dict__.get("_meta"):
            raise NotImplementedError("Cannot copy out of meta tensor; no data!")
        return self

    def cuda(self, device: Any = None, non_blocking: bool = False, memory_format: Any = None) -> "Tensor":
        raise AssertionError(NO_CUDA_MESSAGE)

    def get_device(self) -> int:
        return -1


python_make = Tensor._make.__func__  # the method as written: the native one hands it the calls it does not take
if kernels is not None:  # _make's common cases without a Python frame (csrc/tensor.c)
    kernels.prepare_tensors(Tensor, VersionCounter, np.ndarray, python_make, vars(grad_mode), BFLOAT16,
                            INFERENCE_VERSION, VIEW_DEFAULT, VIEW_INFERENCE)
    Tensor._make = classmethod(kernels.make_tensor)  # type: ignore[assignment]


def _requires_grad_leaf_error(requires_grad: bool) -> str:
    message = "you can only change requires_grad flags of leaf variables."
    if not requires_grad:
        message += (" If you want to use a computed variable in a subgraph that doesn't require "
                    "differentiation use var_no_grad = var.detach().")
    return message


def wrap_dim(dim: int, ndim: int) -> int:
    """A dimension index with negatives counted from the end, checked as PyTorch checks it."""
    low, high = (-1, 0) if ndim == 0 else (-ndim, ndim - 1)
    if not low <= dim <= high:
        raise IndexError(f"Dimension out of range (expected to be in range of [{low}, {high}], but got {dim})")
    return dim % max(ndim, 1)



def to_arguments(args: tuple, kwargs: dict) -> tuple:
    """The (dtype or None, copy) that `.to(...)` asks for, checking any device it names."""
    dtype = kwargs.pop("dtype", None)
    copy = kwargs.pop("copy", False)
    check_device(kwargs.pop("device", None))
    for arg in args:
        if isinstance(arg, DType):
            dtype = arg
        elif isinstance(arg, Tensor):
            dtype = arg._dtype
        else:
            check_device(arg)
    return dtype, copy

