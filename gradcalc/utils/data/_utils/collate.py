"""torch.utils.data._utils.collate: default_collate and default_convert, PyTorch's rules for
turning a list of samples into a batch, element type by element type."""
from __future__ import annotations

import collections.abc
import copy
import re
from typing import Any, Callable, Optional

import numpy as np

from ....autograd import dtypes
from ....autograd.ops import creation, joining
from ....autograd.tensor import Tensor

__all__ = ["collate", "default_collate", "default_convert", "default_collate_fn_map", "collate_tensor_fn",
           "collate_numpy_array_fn", "collate_numpy_scalar_fn", "collate_float_fn", "collate_int_fn",
           "collate_str_fn"]

np_str_obj_array_pattern = re.compile("[SaUO]")
default_collate_err_msg_format = ("default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; "
                                  "found {}")


def _numpy_value(data: Any) -> bool:
    kind = type(data)
    return kind.__module__ == "numpy" and kind.__name__ not in ("str_", "string_")


def default_convert(data: Any) -> Any:
    """Numpy arrays and scalars become tensors, inside any mapping or sequence; the rest stays."""
    elem_type = type(data)
    if isinstance(data, Tensor):
        return data
    if _numpy_value(data):
        if isinstance(data, np.ndarray) and np_str_obj_array_pattern.search(data.dtype.str) is not None:
            return data
        return creation.as_tensor(data)
    if isinstance(data, collections.abc.Mapping):
        try:
            if isinstance(data, collections.abc.MutableMapping):
                clone = copy.copy(data)
                clone.update({key: default_convert(data[key]) for key in data})
                return clone
            return elem_type({key: default_convert(data[key]) for key in data})
        except TypeError:
            return {key: default_convert(data[key]) for key in data}
    if isinstance(data, tuple) and hasattr(data, "_fields"):
        return elem_type(*(default_convert(d) for d in data))
    if isinstance(data, tuple):
        return [default_convert(d) for d in data]
    if isinstance(data, collections.abc.Sequence) and not isinstance(data, (str, bytes)):
        try:
            if isinstance(data, collections.abc.MutableSequence):
                clone = copy.copy(data)
                for index, item in enumerate(data):
                    clone[index] = default_convert(item)
                return clone
            return elem_type([default_convert(d) for d in data])
        except TypeError:
            return [default_convert(d) for d in data]
    return data


def collate(batch: Any, *, collate_fn_map: Optional[dict] = None) -> Any:
    """Samples of one structure into one batch of that structure, leaves by `collate_fn_map`."""
    elem = batch[0]
    elem_type = type(elem)
    if collate_fn_map is not None:
        if elem_type in collate_fn_map:
            return collate_fn_map[elem_type](batch, collate_fn_map=collate_fn_map)
        for collate_type in collate_fn_map:
            if isinstance(elem, collate_type):
                return collate_fn_map[collate_type](batch, collate_fn_map=collate_fn_map)
    if isinstance(elem, collections.abc.Mapping):
        try:
            if isinstance(elem, collections.abc.MutableMapping):
                clone = copy.copy(elem)
                clone.update({key: collate([d[key] for d in batch], collate_fn_map=collate_fn_map) for key in elem})
                return clone
            return elem_type({key: collate([d[key] for d in batch], collate_fn_map=collate_fn_map) for key in elem})
        except TypeError:
            return {key: collate([d[key] for d in batch], collate_fn_map=collate_fn_map) for key in elem}
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):
        return elem_type(*(collate(samples, collate_fn_map=collate_fn_map) for samples in zip(*batch)))
    if isinstance(elem, collections.abc.Sequence):
        it = iter(batch)
        elem_size = len(next(it))
        if not all(len(other) == elem_size for other in it):
            raise RuntimeError("each element in list of batch should be of equal size")
        transposed = list(zip(*batch))
        if isinstance(elem, tuple):
            return [collate(samples, collate_fn_map=collate_fn_map) for samples in transposed]
        try:
            if isinstance(elem, collections.abc.MutableSequence):
                clone = copy.copy(elem)
                for index, samples in enumerate(transposed):
                    clone[index] = collate(samples, collate_fn_map=collate_fn_map)
                return clone
            return elem_type([collate(samples, collate_fn_map=collate_fn_map) for samples in transposed])
        except TypeError:
            return [collate(samples, collate_fn_map=collate_fn_map) for samples in transposed]
    raise TypeError(default_collate_err_msg_format.format(elem_type))


def collate_tensor_fn(batch: Any, *, collate_fn_map: Optional[dict] = None) -> Tensor:
    return joining.stack(batch, 0)


def collate_numpy_array_fn(batch: Any, *, collate_fn_map: Optional[dict] = None) -> Any:
    elem = batch[0]
    if np_str_obj_array_pattern.search(elem.dtype.str) is not None:
        raise TypeError(default_collate_err_msg_format.format(elem.dtype))
    return collate([creation.as_tensor(b) for b in batch], collate_fn_map=collate_fn_map)


def collate_numpy_scalar_fn(batch: Any, *, collate_fn_map: Optional[dict] = None) -> Tensor:
    return creation.as_tensor(batch)


def collate_float_fn(batch: Any, *, collate_fn_map: Optional[dict] = None) -> Tensor:
    return creation.tensor(batch, dtype=dtypes.float64)


def collate_int_fn(batch: Any, *, collate_fn_map: Optional[dict] = None) -> Tensor:
    return creation.tensor(batch)


def collate_str_fn(batch: Any, *, collate_fn_map: Optional[dict] = None) -> Any:
    return batch


default_collate_fn_map: dict[Any, Callable] = {
    Tensor: collate_tensor_fn, np.ndarray: collate_numpy_array_fn,
    (np.bool_, np.number, np.object_): collate_numpy_scalar_fn, float: collate_float_fn, int: collate_int_fn,
    str: collate_str_fn, bytes: collate_str_fn,
}


def default_collate(batch: Any) -> Any:
    """Tensors stacked, numbers into tensors, strings kept, structures collated field by field."""
    return collate(batch, collate_fn_map=default_collate_fn_map)


for _function in (default_convert, collate, default_collate, collate_tensor_fn, collate_numpy_array_fn,
                  collate_numpy_scalar_fn, collate_float_fn, collate_int_fn, collate_str_fn):
    _function.__module__ = "torch.utils.data._utils.collate"
