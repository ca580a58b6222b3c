"""Recurrent layers: RNN, LSTM and GRU (layers, batch_first, bidirectional, dropout between
layers, initial states) and their cells, computed step by step as PyTorch's CPU kernels do:
the input projection of the whole sequence first, then per step the hidden projection added
to it, the gates, and the outputs stacked."""
from __future__ import annotations

import math
from typing import Any, Optional

import numpy as np

from ...autograd import dtypes
from ...autograd.dtypes import DType
from ...autograd.ops.joining import cat, stack
from ...autograd.tensor import Tensor
from ...warnings import warn
from .. import functional as F
from .. import init
from ..parameter import Parameter
from .module import Module

_GATES = {"LSTM": 4, "GRU": 3, "RNN_TANH": 1, "RNN_RELU": 1}


def _parameter(shape: tuple, dtype: DType) -> Parameter:
    return Parameter(Tensor._make(np.zeros(shape, dtype=dtype._numpy), dtype))


def _lstm_step(pre: Tensor, h: Tensor, c: Tensor, w_hh: Tensor, b_hh: Optional[Tensor]) -> tuple:
    gates = F.linear(h, w_hh, b_hh) + pre
    i, f, g, o = gates.chunk(4, -1)
    c = f.sigmoid() * c + i.sigmoid() * g.tanh()
    return o.sigmoid() * c.tanh(), c


def _gru_step(pre: Tensor, h: Tensor, w_hh: Tensor, b_hh: Optional[Tensor]) -> Tensor:
    hidden = F.linear(h, w_hh, b_hh)
    i_r, i_z, i_n = pre.chunk(3, -1)
    h_r, h_z, h_n = hidden.chunk(3, -1)
    reset = (i_r + h_r).sigmoid()
    update = (i_z + h_z).sigmoid()
    new = (i_n + reset * h_n).tanh()
    return (h - new) * update + new


def _rnn_step(pre: Tensor, h: Tensor, w_hh: Tensor, b_hh: Optional[Tensor], relu: bool) -> Tensor:
    total = F.linear(h, w_hh, b_hh) + pre
    return total.relu() if relu else total.tanh()


class RNNBase(Module):
    __module__ = "torch.nn.modules.rnn"

    def __init__(self, mode: str, input_size: int, hidden_size: int, num_layers: int = 1, bias: bool = True,
                 batch_first: bool = False, dropout: float = 0.0, bidirectional: bool = False, proj_size: int = 0,
                 device: Any = None, dtype: Optional[DType] = None) -> None:
        super().__init__()
        if not isinstance(dropout, (int, float)) or isinstance(dropout, bool) or not 0 <= dropout <= 1:
            raise ValueError("dropout should be a number in range [0, 1] representing the probability of an "
                             "element being zeroed")
        if not isinstance(hidden_size, int):
            raise TypeError(f"hidden_size should be of type int, got: {type(hidden_size).__name__}")
        if hidden_size <= 0:
            raise ValueError("hidden_size must be greater than zero")
        if num_layers <= 0:
            raise ValueError("num_layers must be greater than zero")
        if proj_size:
            raise NotImplementedError("gradcalc's LSTM has no proj_size")
        self.mode = mode
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.bias = bias
        self.batch_first = batch_first
        self.dropout = float(dropout)
        self.bidirectional = bidirectional
        self.proj_size = proj_size
        if dropout > 0 and num_layers == 1:
            warn("UserWarning", f"dropout option adds dropout after all but last recurrent layer, so non-zero dropout "
                                f"expects num_layers greater than 1, but got dropout={dropout} and "
                                f"num_layers={num_layers}")
        dtype = dtype or dtypes.get_default_dtype()
        gate_size = _GATES[mode] * hidden_size
        directions = 2 if bidirectional else 1
        self._flat_weights_names: list = []
        for layer in range(num_layers):
            for direction in range(directions):
                layer_input = input_size if layer == 0 else hidden_size * directions
                suffix = "_reverse" if direction == 1 else ""
                shapes = [("weight_ih", (gate_size, layer_input)), ("weight_hh", (gate_size, hidden_size))]
                if bias:
                    shapes += [("bias_ih", (gate_size,)), ("bias_hh", (gate_size,))]
                for kind, shape in shapes:
                    name = f"{kind}_l{layer}{suffix}"
                    setattr(self, name, _parameter(shape, dtype))
                    self._flat_weights_names.append(name)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    @property
    def all_weights(self) -> list:
        directions = 2 if self.bidirectional else 1
        per = 4 if self.bias else 2
        names = self._flat_weights_names
        return [[getattr(self, n) for n in names[i * per:(i + 1) * per]] for i in range(self.num_layers * directions)]

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

    # -------------------------------------------------------------- forward

    def _check_input(self, input: Tensor, batch_sizes: Any) -> None:
        if input.shape[-1] != self.input_size:
            raise RuntimeError(f"input.size(-1) must be equal to input_size. Expected {self.input_size}, got "
                               f"{input.shape[-1]}")

    def _check_hidden(self, hx: Tensor, expected: tuple, message: str = "Expected hidden size {}, got {}") -> None:
        if tuple(hx.shape) != expected:
            raise RuntimeError(message.format(expected, list(hx.shape)))

    def _layer_params(self, layer: int, direction: int) -> tuple:
        suffix = "_reverse" if direction == 1 else ""
        kinds = ("weight_ih", "weight_hh") + (("bias_ih", "bias_hh") if self.bias else ())
        params = [getattr(self, f"{kind}_l{layer}{suffix}") for kind in kinds]
        return tuple(params) + (None, None) * (not self.bias)

    def _run(self, x: Tensor, states: list) -> tuple:
        """x (T, B, I) through every layer and direction; `states` the initial state per
        (layer, direction): h, or (h, c) for an LSTM. Returns the output and the final states."""
        directions = 2 if self.bidirectional else 1
        finals = []
        for layer in range(self.num_layers):
            outputs = []
            for direction in range(directions):
                w_ih, w_hh, b_ih, b_hh = self._layer_params(layer, direction)
                state = states[layer * directions + direction]
                steps, final = self._run_direction(x, state, w_ih, w_hh, b_ih, b_hh, reverse=direction == 1)
                outputs.append(steps)
                finals.append(final)
            x = outputs[0] if directions == 1 else cat(outputs, x.ndim - 1)
            if self.dropout and self.training and layer < self.num_layers - 1:
                x = F.dropout(x, self.dropout, True)
        return x, finals

    def _run_direction(self, x: Tensor, state: Any, w_ih: Tensor, w_hh: Tensor, b_ih: Optional[Tensor],
                       b_hh: Optional[Tensor], reverse: bool) -> tuple:
        pre = F.linear(x, w_ih, b_ih)
        order = range(x.shape[0] - 1, -1, -1) if reverse else range(x.shape[0])
        outputs = [None] * x.shape[0]
        for t in order:
            if self.mode == "LSTM":
                h, c = _lstm_step(pre[t], state[0], state[1], w_hh, b_hh)
                state = (h, c)
            elif self.mode == "GRU":
                state = h = _gru_step(pre[t], state, w_hh, b_hh)
            else:
                state = h = _rnn_step(pre[t], state, w_hh, b_hh, self.mode == "RNN_RELU")
            outputs[t] = h
        return stack(outputs), state

    def forward(self, input: Tensor, hx: Any = None) -> Any:
        name = type(self).__name__
        if input.ndim not in (2, 3):
            raise ValueError(f"{name}: Expected input to be 2D or 3D, got {input.ndim}D instead")
        batched = input.ndim == 3
        batch_dim = 0 if self.batch_first else 1
        if not batched:
            input = input.unsqueeze(batch_dim)
        x = input.transpose(0, 1) if self.batch_first else input
        self._check_input(x, None)
        directions = 2 if self.bidirectional else 1
        batch = x.shape[1]
        expected = (self.num_layers * directions, batch, self.hidden_size)
        lstm = self.mode == "LSTM"
        if hx is None:
            zeros = Tensor._make(np.zeros(expected, dtype=x.dtype._numpy), x.dtype)
            hx = (zeros, zeros) if lstm else zeros
        else:
            if lstm and not batched:
                if hx[0].ndim != 2 or hx[1].ndim != 2:
                    raise RuntimeError(f"For unbatched 2-D input, hx and cx should also be 2-D but got "
                                       f"({hx[0].ndim}-D, {hx[1].ndim}-D) tensors")
                hx = (hx[0].unsqueeze(1), hx[1].unsqueeze(1))
            elif not lstm and not batched:
                if hx.ndim != 2:
                    raise RuntimeError(f"For unbatched 2-D input, hx should also be 2-D but got {hx.ndim}-D tensor")
                hx = hx.unsqueeze(1)
            elif not lstm and hx.ndim != 3:
                raise RuntimeError(f"For batched 3-D input, hx should also be 3-D but got {hx.ndim}-D tensor")
            if lstm:
                self._check_hidden(hx[0], expected)
                self._check_hidden(hx[1], expected, "Expected hidden[1] size {}, got {}")
            else:
                self._check_hidden(hx, expected)
        if lstm:
            states = [(hx[0][i], hx[1][i]) for i in range(expected[0])]
        else:
            states = [hx[i] for i in range(expected[0])]
        output, finals = self._run(x, states)
        if self.batch_first:
            # in place, as PyTorch's kernel turns its output round
            output = output.transpose_(0, 1)
        if lstm:
            hidden = (stack([h for h, _ in finals]), stack([c for _, c in finals]))
        else:
            hidden = stack(finals)
        if not batched:
            output = output.squeeze(batch_dim)
            hidden = (hidden[0].squeeze(1), hidden[1].squeeze(1)) if lstm else hidden.squeeze(1)
        return output, hidden


class RNN(RNNBase):
    __module__ = "torch.nn.modules.rnn"

    def __init__(self, input_size: int, hidden_size: int, num_layers: int = 1, nonlinearity: str = "tanh",
                 bias: bool = True, batch_first: bool = False, dropout: float = 0.0, bidirectional: bool = False,
                 device: Any = None, dtype: Optional[DType] = None) -> None:
        if nonlinearity == "tanh":
            mode = "RNN_TANH"
        elif nonlinearity == "relu":
            mode = "RNN_RELU"
        else:
            raise ValueError(f"Unknown nonlinearity '{nonlinearity}'. Select from 'tanh' or 'relu'.")
        self.nonlinearity = nonlinearity
        super().__init__(mode, input_size, hidden_size, num_layers, bias, batch_first, dropout, bidirectional,
                         device=device, dtype=dtype)


class LSTM(RNNBase):
    __module__ = "torch.nn.modules.rnn"

    def __init__(self, input_size: int, hidden_size: int, num_layers: int = 1, bias: bool = True,
                 batch_first: bool = False, dropout: float = 0.0, bidirectional: bool = False, proj_size: int = 0,
                 device: Any = None, dtype: Optional[DType] = None) -> None:
        super().__init__("LSTM", input_size, hidden_size, num_layers, bias, batch_first, dropout, bidirectional,
                         proj_size, device, dtype)


class GRU(RNNBase):
    __module__ = "torch.nn.modules.rnn"

    def __init__(self, input_size: int, hidden_size: int, num_layers: int = 1, bias: bool = True,
                 batch_first: bool = False, dropout: float = 0.0, bidirectional: bool = False,
                 device: Any = None, dtype: Optional[DType] = None) -> None:
        super().__init__("GRU", input_size, hidden_size, num_layers, bias, batch_first, dropout, bidirectional,
                         device=device, dtype=dtype)


# ------------------------------------------------------------------ cells

class RNNCellBase(Module):
    __module__ = "torch.nn.modules.rnn"
    _gates = 1

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, device: Any = None,
                 dtype: Optional[DType] = None) -> None:
        super().__init__()
        dtype = dtype or dtypes.get_default_dtype()
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
        if input.ndim not in (1, 2):
            raise ValueError(f"{name}: Expected input to be 1D or 2D, got {input.ndim}D instead")
        batched = input.ndim == 2
        if not batched:
            input = input.unsqueeze(0)
        if input.shape[1] != self.input_size:
            raise RuntimeError(f"input has inconsistent input_size: got {input.shape[1]} expected {self.input_size}")
        return input, batched

    def _zeros(self, input: Tensor) -> Tensor:
        return Tensor._make(np.zeros((input.shape[0], self.hidden_size), dtype=input.dtype._numpy), input.dtype)


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
        gates = F.linear(input, self.weight_ih, self.bias_ih) + F.linear(hx[0], self.weight_hh, self.bias_hh)
        i, f, g, o = gates.chunk(4, 1)
        c = f.sigmoid() * hx[1] + i.sigmoid() * g.tanh()
        h = o.sigmoid() * c.tanh()
        return (h, c) if batched else (h.squeeze(0), c.squeeze(0))


class GRUCell(RNNCellBase):
    __module__ = "torch.nn.modules.rnn"
    _gates = 3

    def forward(self, input: Tensor, hx: Optional[Tensor] = None) -> Tensor:
        input, batched = self._prepare(input, hx, "GRUCell")
        hx = self._zeros(input) if hx is None else (hx if batched else hx.unsqueeze(0))
        out = _gru_step(F.linear(input, self.weight_ih, self.bias_ih), hx, self.weight_hh, self.bias_hh)
        return out if batched else out.squeeze(0)
