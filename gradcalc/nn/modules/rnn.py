"""Recurrent layers: RNN, LSTM and GRU (layers, batch_first, bidirectional, dropout between
layers, initial states, packed sequences, LSTM projections) and their cells, as
torch/nn/modules/rnn.py drives ATen's kernels (nn/functional/recurrent.py): a float32 LSTM
through oneDNN's layers, the others natively."""
from __future__ import annotations

import math
from typing import Any, Optional

import numpy as np

from ...autograd import dtypes, meta
from ...autograd.ops.creation import allocated
from ...autograd.dtypes import DType
from ...autograd.ops.joining import stack
from ...autograd.tensor import Tensor
from ...display.names import type_name
from ...warnings import warn, warn_once
from .. import functional as F
from .. import init
from ..functional import recurrent
from ..parameter import Parameter
from ..utils.rnn import PackedSequence
from .module import Module
from .utils import own_init, unwrapped

_GATES = {"LSTM": 4, "GRU": 3, "RNN_TANH": 1, "RNN_RELU": 1}
_NAMES = {"LSTM": "LSTM", "GRU": "GRU", "RNN_TANH": "RNN", "RNN_RELU": "RNN"}


def _parameter(shape: tuple, dtype: DType) -> Parameter:
    return Parameter(allocated(shape, dtype))


def _zeros(shape: tuple, like: Tensor) -> Tensor:
    """The initial state PyTorch makes with torch.zeros on the input's device (the meta device's too);
    a size given as a bool (`hidden_size=True`) is its int."""
    shape = tuple(int(n) for n in shape)
    if like.is_meta:
        return meta.make_meta(shape, like.dtype)
    return Tensor._make(np.zeros(shape, dtype=like.dtype._numpy), like.dtype)


def _dims(input: Any) -> int:
    """`input.dim()`, torch's modules' first look at their input (AttributeError for a non-tensor)."""
    if not isinstance(input, Tensor):
        raise AttributeError(f"'{type_name(input)}' object has no attribute 'dim'")
    return input.ndim


class RNNBase(Module):
    __module__ = "torch.nn.modules.rnn"

    def __init__(self, mode: str, input_size: int, hidden_size: int, num_layers: int = 1, bias: bool = True,
                 batch_first: bool = False, dropout: float = 0.0, bidirectional: bool = False, proj_size: int = 0,
                 device: Any = None, dtype: Optional[DType] = None) -> None:
        super().__init__()
        self.mode = mode
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.bias = bias
        self.batch_first = batch_first
        self.dropout = float(dropout)
        self.bidirectional = bidirectional
        self.proj_size = proj_size
        if not isinstance(dropout, (int, float)) or isinstance(dropout, bool) or not 0 <= dropout <= 1:
            raise ValueError("dropout should be a number in range [0, 1] representing the probability of an "
                             "element being zeroed")
        if dropout > 0 and num_layers == 1:
            warn("UserWarning", f"dropout option adds dropout after all but last recurrent layer, so non-zero dropout "
                                f"expects num_layers greater than 1, but got dropout={dropout} and "
                                f"num_layers={num_layers}")
        if not isinstance(bias, bool):
            raise TypeError(f"bias should be of type bool, got: {type(bias).__name__}")
        if not isinstance(batch_first, bool):
            raise TypeError(f"batch_first should be of type bool, got: {type(batch_first).__name__}")
        if not isinstance(input_size, int):
            raise TypeError(f"input_size should be of type int, got: {type(input_size).__name__}")
        if input_size <= 0:
            raise ValueError("input_size must be greater than zero")
        if not isinstance(hidden_size, int):
            raise TypeError(f"hidden_size should be of type int, got: {type(hidden_size).__name__}")
        if hidden_size <= 0:
            raise ValueError("hidden_size must be greater than zero")
        if num_layers <= 0:
            raise ValueError("num_layers must be greater than zero")
        if proj_size < 0:
            raise ValueError("proj_size should be a positive integer or zero to disable projections")
        if proj_size >= hidden_size:
            raise ValueError("proj_size has to be smaller than hidden_size")
        dtype = dtypes.get_default_dtype() if dtype is None else dtype
        # as torch: a one-gate RNN's size is the hidden size as given (a bool stays one, for empty() to refuse)
        gate_size = hidden_size if _GATES[mode] == 1 else _GATES[mode] * hidden_size
        real_hidden_size = proj_size or hidden_size
        directions = 2 if bidirectional else 1
        self._flat_weights_names: list = []
        for layer in range(num_layers):
            for direction in range(directions):
                layer_input = input_size if layer == 0 else real_hidden_size * directions
                suffix = "_reverse" if direction == 1 else ""
                shapes = [("weight_ih", (gate_size, layer_input)), ("weight_hh", (gate_size, real_hidden_size))]
                if bias:
                    shapes += [("bias_ih", (gate_size,)), ("bias_hh", (gate_size,))]
                if proj_size:
                    shapes.append(("weight_hr", (proj_size, hidden_size)))
                for kind, shape in shapes:
                    name = f"{kind}_l{layer}{suffix}"
                    setattr(self, name, _parameter(shape, dtype))
                    self._flat_weights_names.append(name)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def flatten_parameters(self) -> None:
        """Lays the weights out for cuDNN in PyTorch: nothing to do on the CPU."""

    @property
    def _flat_weights(self) -> list:
        return [getattr(self, name) for name in self._flat_weights_names]

    @property
    def all_weights(self) -> list:
        directions = 2 if self.bidirectional else 1
        per = len(self._flat_weights_names) // (self.num_layers * directions)
        weights = self._flat_weights
        return [weights[i * per:(i + 1) * per] for i in range(self.num_layers * directions)]

    def extra_repr(self) -> str:
        text = f"{self.input_size}, {self.hidden_size}"
        if self.proj_size != 0:
            text += f", proj_size={self.proj_size}"
        if self.num_layers != 1:
            text += f", num_layers={self.num_layers}"
        if self.bias is not True:
            text += f", bias={self.bias}"
        if self.batch_first is not False:
            text += f", batch_first={self.batch_first}"
        if self.dropout != 0:
            text += f", dropout={self.dropout}"
        if self.bidirectional is not False:
            text += f", bidirectional={self.bidirectional}"
        return text

    # -------------------------------------------------------------- checks, as torch's

    def check_input(self, input: Tensor, batch_sizes: Any) -> None:
        weight_dtype = getattr(self, self._flat_weights_names[0]).dtype
        if input.dtype != weight_dtype:
            raise ValueError(f"RNN input dtype ({input.dtype}) does not match weight dtype ({weight_dtype}). Convert "
                             f"input: input.to({weight_dtype}), or convert model: model.to({input.dtype})")
        expected_dim = 2 if batch_sizes is not None else 3
        if input.ndim != expected_dim:
            raise RuntimeError(f"input must have {expected_dim} dimensions, got {input.ndim}")
        if self.input_size != input.shape[-1]:
            raise RuntimeError(f"input.size(-1) must be equal to input_size. Expected {self.input_size}, got "
                               f"{input.shape[-1]}")

    def get_expected_hidden_size(self, input: Tensor, batch_sizes: Any) -> tuple:
        if batch_sizes is not None:
            mini_batch = int(batch_sizes[0])
        else:
            mini_batch = input.shape[0] if self.batch_first else input.shape[1]
        directions = 2 if self.bidirectional else 1
        return self.num_layers * directions, mini_batch, self.proj_size or self.hidden_size

    def check_hidden_size(self, hx: Tensor, expected_hidden_size: tuple,
                          msg: str = "Expected hidden size {}, got {}") -> None:
        if tuple(hx.shape) != expected_hidden_size:
            raise RuntimeError(msg.format(expected_hidden_size, list(hx.shape)))

    def check_forward_args(self, input: Tensor, hidden: Tensor, batch_sizes: Any) -> None:
        self.check_input(input, batch_sizes)
        self.check_hidden_size(hidden, self.get_expected_hidden_size(input, batch_sizes))

    def permute_hidden(self, hx: Tensor, permutation: Optional[Tensor]) -> Tensor:
        return hx if permutation is None else hx.index_select(1, permutation)

    # -------------------------------------------------------------- forward

    def _layer_params(self) -> list:
        """(w_ih, w_hh, b_ih, b_hh, w_hr) of each layer and direction, None for those it has not."""
        params = []
        for weights in self.all_weights:
            weights = list(weights)
            w_hr = weights.pop() if self.proj_size else None
            b_ih, b_hh = weights[2:4] if self.bias else (None, None)
            params.append((weights[0], weights[1], b_ih, b_hh, w_hr))
        return params

    def _initial_states(self, input: Tensor, batch: int) -> Any:
        directions = 2 if self.bidirectional else 1
        h = _zeros((self.num_layers * directions, batch, self.proj_size or self.hidden_size), input)
        if self.mode != "LSTM":
            return h
        return h, _zeros((self.num_layers * directions, batch, self.hidden_size), input)

    def _run(self, input: Tensor, hx: Any, batch_sizes: Optional[Tensor]) -> tuple:
        """ATen's _VF.rnn_tanh / rnn_relu / gru / lstm: the output and the final states."""
        directions = 2 if self.bidirectional else 1
        lstm = self.mode == "LSTM"
        if batch_sizes is None and input.shape[1 if self.batch_first else 0] == 0:
            raise RuntimeError("Expected sequence length to be larger than 0 in RNN")
        if lstm and batch_sizes is None and input.dtype == dtypes.float32 and input.numel() != 0:
            if not self.proj_size:
                x = input.transpose(0, 1) if self.batch_first else input
                output, hidden = recurrent.mkldnn_layers(
                    x, hx[0], hx[1], self._layer_params(), self.hidden_size, self.num_layers, self.bidirectional,
                    self.batch_first, self.dropout, self.training, self.bias)
                return (output.transpose(0, 1) if self.batch_first else output), hidden
            warn_once("UserWarning", "LSTM with projections is not supported with oneDNN. Using default "
                                     "implementation.", at="aten/src/ATen/native/RNN.cpp:1512")
        if batch_sizes is None:
            x = input.transpose(0, 1) if self.batch_first else input
            sizes = None
        else:
            x, sizes = input, batch_sizes.tolist()
        states = list(zip(hx[0].unbind(0), hx[1].unbind(0))) if lstm else list(hx.unbind(0))
        output, finals = recurrent.native_layers(self.mode, x, sizes, states, self._layer_params(), self.num_layers,
                                                 directions, self.dropout, self.training)
        if self.batch_first and batch_sizes is None:
            # an LSTM turns its output round out of place, the others in place
            output = output.transpose(0, 1) if lstm else output.transpose_(0, 1)
        if lstm:
            return output, (stack([h for h, _ in finals]), stack([c for _, c in finals]))
        return output, stack(finals)

    def _forward(self, input: Any, hx: Any = None) -> Any:
        """RNN's and GRU's forward (each class has its own, as torch's: a wrong call names it)."""
        name = _NAMES[self.mode]
        if isinstance(input, PackedSequence):
            input, batch_sizes, sorted_indices, unsorted_indices = input
            hx = self._initial_states(input, int(batch_sizes[0])) if hx is None else self.permute_hidden(
                hx, sorted_indices)
            self.check_forward_args(input, hx, batch_sizes)
            output, hidden = self._run(input, hx, batch_sizes)
            return PackedSequence(output, batch_sizes, sorted_indices, unsorted_indices), self.permute_hidden(
                hidden, unsorted_indices)
        if _dims(input) not in (2, 3):
            ending = " tensor instead" if name == "RNN" else " instead"
            raise ValueError(f"{name}: Expected input to be 2D or 3D, got {input.ndim}D{ending}")
        batched = input.ndim == 3
        batch_dim = 0 if self.batch_first else 1
        if not batched:
            input = input.unsqueeze(batch_dim)
            if hx is not None:
                if hx.ndim != 2:
                    raise RuntimeError(f"For unbatched 2-D input, hx should also be 2-D but got {hx.ndim}-D tensor")
                hx = hx.unsqueeze(1)
        elif hx is not None and hx.ndim != 3:
            raise RuntimeError(f"For batched 3-D input, hx should also be 3-D but got {hx.ndim}-D tensor")
        if hx is None:
            hx = self._initial_states(input, input.shape[0] if self.batch_first else input.shape[1])
        self.check_forward_args(input, hx, None)
        output, hidden = self._run(input, hx, None)
        if not batched:
            output, hidden = output.squeeze(batch_dim), hidden.squeeze(1)
        return output, hidden


class RNN(RNNBase):
    __module__ = "torch.nn.modules.rnn"

    # (*args, **kwargs) as torch's: a wrong call's error is RNNBase's
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        if len(args) > 3:  # nonlinearity comes fourth, before RNNBase's bias
            self.nonlinearity = args[3]
            args = args[:3] + args[4:]
        else:
            self.nonlinearity = kwargs.pop("nonlinearity", "tanh")
        if self.nonlinearity == "tanh":
            mode = "RNN_TANH"
        elif self.nonlinearity == "relu":
            mode = "RNN_RELU"
        else:
            raise ValueError(f"Unknown nonlinearity '{self.nonlinearity}'. Select from 'tanh' or 'relu'.")
        super().__init__(mode, *args, **kwargs)

    def forward(self, input: Any, hx: Any = None) -> Any:
        return self._forward(input, hx)


class LSTM(RNNBase):
    __module__ = "torch.nn.modules.rnn"

    def __init__(self, input_size: int, hidden_size: int, num_layers: int = 1, bias: bool = True,
                 batch_first: bool = False, dropout: float = 0.0, bidirectional: bool = False, proj_size: int = 0,
                 device: Any = None, dtype: Optional[DType] = None) -> None:
        super().__init__("LSTM", input_size, hidden_size, num_layers, bias, batch_first, dropout, bidirectional,
                         proj_size, device, dtype)

    def get_expected_cell_size(self, input: Tensor, batch_sizes: Any) -> tuple:
        layers, mini_batch, _ = self.get_expected_hidden_size(input, batch_sizes)
        return layers, mini_batch, self.hidden_size

    def check_forward_args(self, input: Tensor, hidden: tuple, batch_sizes: Any) -> None:  # type: ignore[override]
        self.check_input(input, batch_sizes)
        self.check_hidden_size(hidden[0], self.get_expected_hidden_size(input, batch_sizes),
                               "Expected hidden[0] size {}, got {}")
        self.check_hidden_size(hidden[1], self.get_expected_cell_size(input, batch_sizes),
                               "Expected hidden[1] size {}, got {}")

    def permute_hidden(self, hx: tuple, permutation: Optional[Tensor]) -> tuple:  # type: ignore[override]
        if permutation is None:
            return hx
        return hx[0].index_select(1, permutation), hx[1].index_select(1, permutation)

    def forward(self, input: Any, hx: Any = None) -> Any:
        if isinstance(input, PackedSequence):
            # torch checks no sizes here: a wrong state fails in the kernel
            input, batch_sizes, sorted_indices, unsorted_indices = input
            hx = self._initial_states(input, int(batch_sizes[0])) if hx is None else self.permute_hidden(
                hx, sorted_indices)
            output, hidden = self._run(input, hx, batch_sizes)
            return PackedSequence(output, batch_sizes, sorted_indices, unsorted_indices), self.permute_hidden(
                hidden, unsorted_indices)
        if _dims(input) not in (2, 3):
            raise ValueError(f"LSTM: Expected input to be 2D or 3D, got {input.ndim}D instead")
        batched = input.ndim == 3
        batch_dim = 0 if self.batch_first else 1
        if not batched:
            input = input.unsqueeze(batch_dim)
        if hx is None:
            hx = self._initial_states(input, input.shape[0] if self.batch_first else input.shape[1])
        elif batched and (hx[0].ndim != 3 or hx[1].ndim != 3):
            raise RuntimeError(f"For batched 3-D input, hx and cx should also be 3-D but got ({hx[0].ndim}-D, "
                               f"{hx[1].ndim}-D) tensors")
        elif not batched:
            if hx[0].ndim != 2 or hx[1].ndim != 2:
                raise RuntimeError(f"For unbatched 2-D input, hx and cx should also be 2-D but got ({hx[0].ndim}-D, "
                                   f"{hx[1].ndim}-D) tensors")
            hx = (hx[0].unsqueeze(1), hx[1].unsqueeze(1))
        self.check_forward_args(input, hx, None)
        _check_onednn_states(input, hx)
        output, hidden = self._run(input, hx, None)
        if not batched:
            output, hidden = output.squeeze(batch_dim), (hidden[0].squeeze(1), hidden[1].squeeze(1))
        return output, hidden


def _check_onednn_states(input: Tensor, hx: tuple) -> None:
    """A float32 LSTM runs on oneDNN's primitive (ATen's use_mkldnn), which takes no float64
    state and no state of another dtype than the input's."""
    if input.dtype is not dtypes.float32 or not input.numel():
        return
    if any(state.dtype is dtypes.float64 for state in hx):
        raise RuntimeError("get_mkldnn_dtype: unsupported data type")
    if any(state.dtype is not input.dtype for state in hx):
        raise RuntimeError("could not create a primitive descriptor for the LSTM forward propagation primitive. Run "
                           "workload with environment variable ONEDNN_VERBOSE=all to get additional diagnostic "
                           "information.")


class GRU(RNNBase):
    __module__ = "torch.nn.modules.rnn"

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        super().__init__("GRU", *args, **kwargs)

    def forward(self, input: Any, hx: Any = None) -> Any:
        return self._forward(input, hx)


# ------------------------------------------------------------------ cells

class RNNCellBase(Module):
    __module__ = "torch.nn.modules.rnn"
    _gates = 1

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, device: Any = None,
                 dtype: Optional[DType] = None) -> None:
        super().__init__()
        dtype = dtypes.get_default_dtype() if dtype is None else dtype
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.bias = bias
        gate_size = self._gates * hidden_size
        self.weight_ih = _parameter((gate_size, input_size), dtype)
        self.weight_hh = _parameter((gate_size, hidden_size), dtype)
        if bias:
            self.bias_ih = _parameter((gate_size,), dtype)
            self.bias_hh = _parameter((gate_size,), dtype)
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def extra_repr(self) -> str:
        text = f"{self.input_size}, {self.hidden_size}"
        if self.bias is not True:
            text += f", bias={self.bias}"
        nonlinearity = self.__dict__.get("nonlinearity", "tanh")
        if nonlinearity != "tanh":
            text += f", nonlinearity={nonlinearity}"
        return text

    def _prepare(self, input: Tensor, hx: Any, name: str) -> tuple:
        if _dims(input) not in (1, 2):
            raise ValueError(f"{name}: Expected input to be 1D or 2D, got {input.ndim}D instead")
        batched = input.ndim == 2
        if not batched:
            input = input.unsqueeze(0)
        if input.shape[1] != self.input_size:
            raise RuntimeError(f"input has inconsistent input_size: got {input.shape[1]} expected {self.input_size}")
        return input, batched

    def _zeros(self, input: Tensor) -> Tensor:
        return _zeros((input.shape[0], self.hidden_size), input)


# torch's RNN, LSTM and GRU hand their arguments to RNNBase.__init__, which Python's messages about them name
for _recurrent in (RNN, LSTM, GRU):
    unwrapped(_recurrent.__init__).__qualname__ = "RNNBase.__init__"


class RNNCell(RNNCellBase):
    __module__ = "torch.nn.modules.rnn"

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, nonlinearity: str = "tanh",
                 device: Any = None, dtype: Optional[DType] = None) -> None:
        super().__init__(input_size, hidden_size, bias, device, dtype)
        self.nonlinearity = nonlinearity

    def forward(self, input: Tensor, hx: Optional[Tensor] = None) -> Tensor:
        input, batched = self._prepare(input, hx, "RNNCell")
        hx = self._zeros(input) if hx is None else (hx if batched else hx.unsqueeze(0))
        total = F.linear(input, self.weight_ih, self.bias_ih) + F.linear(hx, self.weight_hh, self.bias_hh)
        if self.nonlinearity == "tanh":
            out = total.tanh()
        elif self.nonlinearity == "relu":
            out = total.relu()
        else:
            raise RuntimeError(f"Unknown nonlinearity: {self.nonlinearity}")
        return out if batched else out.squeeze(0)


@own_init
class LSTMCell(RNNCellBase):
    __module__ = "torch.nn.modules.rnn"
    _gates = 4

    def forward(self, input: Tensor, hx: Any = None) -> tuple:
        input, batched = self._prepare(input, hx, "LSTMCell")
        if hx is None:
            zeros = self._zeros(input)
            hx = (zeros, zeros)
        elif not batched:
            hx = (hx[0].unsqueeze(0), hx[1].unsqueeze(0))
        h, c = recurrent.lstm_cell(F.linear(input, self.weight_ih, self.bias_ih), hx, self.weight_hh, self.bias_hh, None)
        return (h, c) if batched else (h.squeeze(0), c.squeeze(0))


@own_init
class GRUCell(RNNCellBase):
    __module__ = "torch.nn.modules.rnn"
    _gates = 3

    def forward(self, input: Tensor, hx: Optional[Tensor] = None) -> Tensor:
        input, batched = self._prepare(input, hx, "GRUCell")
        hx = self._zeros(input) if hx is None else (hx if batched else hx.unsqueeze(0))
        out = recurrent.gru_cell(F.linear(input, self.weight_ih, self.bias_ih), hx, self.weight_hh, self.bias_hh)
        return out if batched else out.squeeze(0)
