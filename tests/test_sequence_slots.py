"""Tensor is no sequence to C code, as torch's C type is not (numpy's shape parsing asks
PySequence_Check): its subclasses neither, unless they define their own indexing."""
from __future__ import annotations

import ctypes

from gradcalc.autograd.ops import Tensor
from gradcalc.autograd.ops.creation import tensor as make
from gradcalc.nn.parameter import Parameter

_is_sequence = ctypes.pythonapi.PySequence_Check
_is_sequence.argtypes = (ctypes.py_object,)


def test_tensor_and_parameter_index_as_mappings_only() -> None:
    assert _is_sequence(make([1.0, 2.0])) == 0
    assert _is_sequence(Parameter(make([1.0, 2.0]))) == 0
    assert make([1.0, 2.0, 3.0])[1:].tolist() == [2.0, 3.0]  # indexing itself still works


def test_a_subclass_keeps_indexing_as_a_mapping_unless_it_defines_its_own() -> None:
    class Plain(Tensor):
        pass

    class Indexed(Tensor):
        def __getitem__(self, index: object) -> int:
            return 5

    plain, indexed = object.__new__(Plain), object.__new__(Indexed)
    assert _is_sequence(plain) == 0
    assert _is_sequence(indexed) == 1
