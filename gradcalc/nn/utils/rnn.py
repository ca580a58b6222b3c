"""torch.nn.utils.rnn: batches of variable-length sequences, padded (pad_sequence) or packed
(PackedSequence: the steps of all sequences one after another, longest first, as the recurrent
layers take them), converted as PyTorch's ATen kernels do, with their graphs."""
from __future__ import annotations

from typing import Any, Iterable, NamedTuple, Optional

import numpy as np

from ...autograd import dtypes
from ...autograd.ops.creation import arange, as_tensor, full, zeros
from ...autograd.ops.registry import LINEAR, node, record
from ...autograd.tensor import Tensor
from ...display.names import type_name

__all__ = ["PackedSequence", "invert_permutation", "pack_padded_sequence", "pad_packed_sequence", "pad_sequence",
           "unpad_sequence", "pack_sequence", "unpack_sequence"]


class PackedSequence_(NamedTuple):
    data: Tensor
    batch_sizes: Tensor
    sorted_indices: Optional[Tensor]
    unsorted_indices: Optional[Tensor]


PackedSequence_.__module__ = "torch.nn.utils.rnn"


def _bind(optional: Optional[Tensor], fn: Any) -> Optional[Tensor]:
    return None if optional is None else fn(optional)


class PackedSequence(PackedSequence_):
    """What pack_padded_sequence and pack_sequence return and the recurrent layers take."""

    __slots__ = ()
    __module__ = "torch.nn.utils.rnn"

    def __new__(cls, data: Any, batch_sizes: Optional[Tensor] = None, sorted_indices: Optional[Tensor] = None,
                unsorted_indices: Optional[Tensor] = None) -> "PackedSequence":
        return super().__new__(cls, *_packed_sequence_init_args(data, batch_sizes, sorted_indices, unsorted_indices))

    def pin_memory(self) -> "PackedSequence":
        return type(self)(self.data.pin_memory(), self.batch_sizes, _bind(self.sorted_indices, Tensor.pin_memory),
                          _bind(self.unsorted_indices, Tensor.pin_memory))

    def to(self, *args: Any, **kwargs: Any) -> "PackedSequence":
        data = self.data.to(*args, **kwargs)
        if data is self.data:
            return self
        # the indices follow the data's device, never its dtype
        sorted_indices = _bind(self.sorted_indices, lambda t: t.to(data.device))
        unsorted_indices = _bind(self.unsorted_indices, lambda t: t.to(data.device))
        return type(self)(data, self.batch_sizes, sorted_indices, unsorted_indices)

    def cuda(self, *args: Any, **kwargs: Any) -> "PackedSequence":
        return self.to(*args, **dict(kwargs, device="cuda"))

    def cpu(self, *args: Any, **kwargs: Any) -> "PackedSequence":
        return self.to(*args, **dict(kwargs, device="cpu"))

    def double(self) -> "PackedSequence":
        return self.to(dtype=dtypes.float64)

    def float(self) -> "PackedSequence":
        return self.to(dtype=dtypes.float32)

    def half(self) -> "PackedSequence":
        return self.to(dtype=dtypes.float16)

    def long(self) -> "PackedSequence":
        return self.to(dtype=dtypes.int64)

    def int(self) -> "PackedSequence":
        return self.to(dtype=dtypes.int32)

    def short(self) -> "PackedSequence":
        return self.to(dtype=dtypes.int16)

    def char(self) -> "PackedSequence":
        return self.to(dtype=dtypes.int8)

    def byte(self) -> "PackedSequence":
        return self.to(dtype=dtypes.uint8)

    @property
    def is_cuda(self) -> bool:
        return self.data.is_cuda

    def is_pinned(self) -> bool:
        return self.data.is_pinned()


def _packed_sequence_init_args(data: Any, batch_sizes: Optional[Tensor], sorted_indices: Optional[Tensor],
                               unsorted_indices: Optional[Tensor]) -> tuple:
    if unsorted_indices is None:
        unsorted_indices = invert_permutation(sorted_indices)
    if batch_sizes is not None:
        return data, batch_sizes, sorted_indices, unsorted_indices
    if not (isinstance(data, (list, tuple)) and len(data) == 2):
        raise AssertionError("Expected data to be a list or tuple of length 2")
    return data[0], data[1], sorted_indices, unsorted_indices


def invert_permutation(permutation: Optional[Tensor]) -> Optional[Tensor]:
    if permutation is None:
        return None
    inverse = np.empty(permutation.shape, dtype=permutation.dtype._numpy)
    inverse[permutation._data] = np.arange(permutation.numel())
    return Tensor._make(inverse, permutation.dtype)


def _pack_padded_backward(grad: Tensor, input_sym_sizes: tuple, batch_first: bool, result1: Tensor) -> Tensor:
    # ATen's _pack_padded_sequence_backward: each step's rows copied back into zeros
    sizes = list(input_sym_sizes)
    if batch_first:
        sizes[0], sizes[1] = sizes[1], sizes[0]
    grad_input = zeros(sizes, dtype=grad.dtype)
    offset = 0
    for step, size in enumerate(result1.tolist()):
        grad_input[step].narrow(0, 0, size).copy_(grad.narrow(0, offset, size))
        offset += size
    return grad_input.transpose(0, 1) if batch_first else grad_input


PACK_PADDED = node("PackPaddedSequenceBackward0", ("input",), jvp=LINEAR, input=_pack_padded_backward)


def _pack_padded(input: Tensor, lengths: Tensor, batch_first: bool) -> tuple:
    """torch._pack_padded_sequence: the packed data and the batch size of each step."""
    if input.numel() == 0:
        raise RuntimeError("Cannot pack empty tensors.")
    padded = input._data.swapaxes(0, 1) if batch_first else input._data
    batch = padded.shape[1]
    counts = [int(n) for n in lengths._data.reshape(-1)]
    if len(counts) != batch:
        raise RuntimeError(f"Expected `len(lengths)` to be equal to batch_size, but got {len(counts)} "
                           f"(batch_size={batch})")
    if counts[-1] <= 0:
        raise RuntimeError("Length of all samples has to be greater than 0, but found an element in 'lengths' that "
                           "is <= 0")
    if any(later > earlier for earlier, later in zip(counts, counts[1:])):
        raise RuntimeError("`lengths` array must be sorted in decreasing order when `enforce_sorted` is True. You "
                           "can pass `enforce_sorted=False` to pack_padded_sequence and/or pack_sequence to sidestep "
                           "this requirement if you do not need ONNX exportability.")
    blocks, batch_sizes, done = [], [], 0
    for rank in range(batch):  # the shortest sequence first: the steps all sequences still have
        length = counts[batch - 1 - rank]
        if length > done:
            blocks.append(padded[done:length, :batch - rank].reshape((-1,) + padded.shape[2:]))
            batch_sizes += [batch - rank] * (length - done)
            done = length
    result1 = Tensor._make(np.array(batch_sizes, dtype=np.int64), dtypes.int64)
    data = record(PACK_PADDED, (input,), np.concatenate(blocks), input.dtype, batch_first=batch_first,
                  input_sym_sizes=input.shape, result1=result1)
    return data, result1


def pack_padded_sequence(input: Tensor, lengths: Any, batch_first: bool = False,
                         enforce_sorted: bool = True) -> PackedSequence:
    if not isinstance(lengths, Tensor):
        lengths = as_tensor(lengths, dtype=dtypes.int64)
    else:
        lengths = lengths.to(dtype=dtypes.int64)
    if enforce_sorted:
        sorted_indices = None
    else:
        lengths, sorted_indices = lengths.sort(descending=True)
        input = input.index_select(0 if batch_first else 1, sorted_indices)
    data, batch_sizes = _pack_padded(input, lengths, batch_first)
    return PackedSequence(data, batch_sizes, sorted_indices, None)


def _pad_packed(data: Tensor, batch_sizes: Tensor, batch_first: bool, padding_value: float,
                total_length: int) -> tuple:
    """torch._pad_packed_sequence: each run of steps with one batch size copied into the padding."""
    sizes = batch_sizes.tolist()
    max_batch, steps = sizes[0], len(sizes)
    trailing = tuple(data.shape[1:])
    output = full((total_length, max_batch) + trailing, padding_value, dtype=data.dtype)
    lengths = np.empty(max_batch, dtype=np.int64)
    position, offset, previous_size, previous_step = max_batch - 1, 0, max_batch, 0
    for step in range(steps + 1):
        size = sizes[step] if step != steps else 0
        if size != previous_size:
            count = previous_size * (step - previous_step)
            rows = data.narrow(0, offset, count).view((step - previous_step, previous_size) + trailing)
            output.narrow(0, previous_step, step - previous_step).narrow(1, 0, previous_size).copy_(rows)
            offset += count
            previous_step = step
            for _ in range(previous_size - size):  # the sequences that end here
                lengths[position] = step
                position -= 1
        previous_size = size
    if batch_first:
        output = output.transpose(0, 1)
    return output, Tensor._make(lengths, dtypes.int64)


def pad_packed_sequence(sequence: PackedSequence, batch_first: bool = False, padding_value: float = 0.0,
                        total_length: Optional[int] = None) -> tuple:
    max_seq_length = sequence.batch_sizes.size(0)
    if total_length is not None:
        if total_length < max_seq_length:
            raise ValueError("Expected total_length to be at least the length of the longest sequence in input, but "
                             f"got total_length={total_length} and max sequence length being {max_seq_length}")
        max_seq_length = total_length
    padded_output, lengths = _pad_packed(sequence.data, sequence.batch_sizes, batch_first, padding_value,
                                         max_seq_length)
    unsorted_indices = sequence.unsorted_indices
    if unsorted_indices is not None:
        batch_dim = 0 if batch_first else 1
        return padded_output.index_select(batch_dim, unsorted_indices), lengths[unsorted_indices.cpu()]
    return padded_output, lengths


def pad_sequence(sequences: Any, batch_first: bool = False, padding_value: float = 0.0,
                 padding_side: str = "right") -> Tensor:
    if not isinstance(sequences, Iterable):
        raise RuntimeError(f"pad_sequence: Expected iterable for input sequences, but got arg of type: "
                           f"{type(sequences)}")
    sequences = tuple(sequences)
    for index, seq in enumerate(sequences):  # torch._C._nn.pad_sequence's TensorList argument
        if not isinstance(seq, Tensor):
            raise TypeError(f"expected Tensor as element {index} in argument 0, but got {type_name(seq)}")
    if not sequences:
        raise RuntimeError("received an empty list of sequences")
    if padding_side not in ("left", "right"):
        raise RuntimeError(f"Expected padding_side to be one of left or right, but got {padding_side}.")
    max_len = max(seq.shape[0] for seq in sequences)
    count = len(sequences)
    dims = (count, max_len) if batch_first else (max_len, count)
    out = full(dims + tuple(sequences[0].shape[1:]), padding_value, dtype=sequences[0].dtype)
    for index, seq in enumerate(sequences):
        length = seq.shape[0]
        start = max_len - length if padding_side == "left" else 0
        if batch_first:
            out.select(0, index).narrow(0, start, length).copy_(seq)
        else:
            out.narrow(0, start, length).select(1, index).copy_(seq)
    return out


def unpad_sequence(padded_sequences: Tensor, lengths: Tensor, batch_first: bool = False) -> list:
    if not batch_first:
        padded_sequences.transpose_(0, 1)  # in place, as PyTorch does it: the caller's tensor turns round
    positions = arange(0, padded_sequences.shape[1])
    return [seq[positions < length] for seq, length in zip(padded_sequences, lengths, strict=True)]


def pack_sequence(sequences: list, enforce_sorted: bool = True) -> PackedSequence:
    lengths = as_tensor([v.size(0) for v in sequences])
    return pack_padded_sequence(pad_sequence(sequences), lengths, enforce_sorted=enforce_sorted)


def unpack_sequence(packed_sequences: PackedSequence) -> list:
    padded_sequences, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded_sequences, lengths, batch_first=True)
