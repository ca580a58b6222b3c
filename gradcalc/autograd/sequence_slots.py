"""torch.Tensor is no sequence to C code: its `__getitem__` and `__setitem__` are C functions of
the mapping protocol only, so `PySequence_Check(t)` is false and numpy reads `np.ones(t)` as one
integer (`expected a sequence of integers or a single integer, got 'tensor([2, 3])'`).

A class statement that defines `__getitem__` fills both of CPython's slots, the mapping's
`mp_subscript` and the sequence's `sq_item` (and `__setitem__` both `mp_ass_subscript` and
`sq_ass_item`), and Python offers no way to define one alone. So the sequence slots of
gradcalc's Tensor, and of each subclass that keeps its indexing, are emptied once the class is
made; indexing itself goes through the mapping slots, which stay as they are.
"""
from __future__ import annotations

import ctypes
from typing import Optional

from ..language.limits import native_call

# typeslots.h: the slot numbers PyType_GetSlot reads
_SQ_ASS_ITEM, _SQ_CONTAINS, _SQ_ITEM, _SQ_LENGTH = 39, 41, 44, 45
# PyTypeObject's tp_as_sequence, counted in pointers from the object's start (the variable-size
# object head's three words, tp_name, tp_basicsize, tp_itemsize, tp_dealloc,
# tp_vectorcall_offset, tp_getattr, tp_setattr, tp_as_async, tp_repr, tp_as_number)
_AS_SEQUENCE_WORD = 13

_get_slot = ctypes.pythonapi.PyType_GetSlot
_get_slot.restype = ctypes.c_void_p
_get_slot.argtypes = (ctypes.py_object, ctypes.c_int)


class _SequenceMethods(ctypes.Structure):
    """CPython's PySequenceMethods."""
    _fields_ = [(name, ctypes.c_void_p) for name in (
        "sq_length", "sq_concat", "sq_repeat", "sq_item", "was_sq_slice", "sq_ass_item", "was_sq_ass_slice",
        "sq_contains", "sq_inplace_concat", "sq_inplace_repeat")]


def _sequence_methods(cls: type) -> Optional[_SequenceMethods]:
    """`cls`'s sequence methods, or None where the interpreter lays its type objects out otherwise
    (every slot read must agree with PyType_GetSlot's): Tensor is then left a sequence to numpy,
    whose messages differ, rather than a type's memory written blind."""
    words = ctypes.cast(id(cls), ctypes.POINTER(ctypes.c_void_p))
    methods = _SequenceMethods.from_address(words[_AS_SEQUENCE_WORD])
    if any(getattr(methods, field) != _get_slot(cls, number) for field, number in (
            ("sq_length", _SQ_LENGTH), ("sq_item", _SQ_ITEM), ("sq_ass_item", _SQ_ASS_ITEM),
            ("sq_contains", _SQ_CONTAINS))):
        return None
    return methods


def _class_attribute(cls: type, name: str) -> object:
    """`name` as `cls`'s MRO holds it, without running a descriptor of a program's class."""
    return next((vars(base)[name] for base in cls.__mro__ if name in vars(base)), None)


def _empty_item_slots(cls: type, item: bool, assign_item: bool) -> None:
    methods = _sequence_methods(cls)
    if methods is None:
        return
    if item:
        methods.sq_item = None
    if assign_item:
        methods.sq_ass_item = None


def index_as_mapping_only(cls: type, owner: type) -> None:
    """Empty `cls`'s sequence item slots where its `__getitem__`/`__setitem__` are still `owner`'s
    (a subclass that defines its own is a sequence, as under PyTorch)."""
    item = _class_attribute(cls, "__getitem__") is vars(owner)["__getitem__"]
    assign_item = _class_attribute(cls, "__setitem__") is vars(owner)["__setitem__"]
    if item or assign_item:
        # gradcalc's own reads and writes of the type's memory, no program code among them: the
        # sandbox's wall refuses ctypes otherwise (a program's class is made behind it)
        native_call(_empty_item_slots, cls, item, assign_item)


def index_tree_as_mapping_only(root: type) -> None:
    """`index_as_mapping_only` for `root` and every subclass it has so far (setting a special
    method on a class, as the op tables do on Tensor, fills its subclasses' slots again)."""
    pending = [root]
    while pending:
        cls = pending.pop()
        index_as_mapping_only(cls, root)
        pending.extend(cls.__subclasses__())


__all__ = ["index_as_mapping_only", "index_tree_as_mapping_only"]
