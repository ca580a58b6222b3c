"""The recurrent kernels PyTorch's CPU build runs for nn.RNN, nn.LSTM and nn.GRU (ATen's RNN.cpp),
with their graphs: the native layers, step by step (the input projection of the whole sequence
first, then per step the hidden projection added to it and the gates; packed sequences on the
first batch_sizes[t] rows of each step), and the oneDNN LSTM layer a float32 LSTM runs through,
one MkldnnRnnLayerBackward0 node per layer and direction.

The oneDNN layer's values are the native steps' (oneDNN's own gemm order and activations are not
copied); its node differentiates the native steps, recorded on stand-in leaves so that the
layer's backward runs them once and hooks on the real inputs fire once. A backward that records
a graph (create_graph) uses PyTorch's differentiable formula instead, whose graph it shows."""
from __future__ import annotations

from typing import Any, Optional, Sequence

import numpy as np

from ...autograd import grad_mode
from ...autograd.engine import run_backward
from ...autograd.ops.common import zeros_like
from ...autograd.ops.joining import cat, stack
from ...autograd.ops.registry import node, record_outputs
from ...autograd.tensor import Tensor
from .activation import dropout
from .layers import linear

# (w_ih, w_hh, b_ih, b_hh, w_hr) of one layer and direction; None for those it has not
LayerParams = tuple


def lstm_cell(pre: Tensor, state: tuple, w_hh: Tensor, b_hh: Optional[Tensor], w_hr: Optional[Tensor]) -> tuple:
    gates = linear(state[0], w_hh, b_hh) + pre
    i, f, g, o = gates.unsafe_chunk(4, 1)
    c = f.sigmoid() * state[1] + i.sigmoid() * g.tanh()
    h = o.sigmoid() * c.tanh()
    return (h if w_hr is None else h.matmul(w_hr.t())), c


def gru_cell(pre: Tensor, h: Tensor, w_hh: Tensor, b_hh: Optional[Tensor]) -> Tensor:
    i_r, i_z, i_n = pre.unsafe_chunk(3, 1)
    h_r, h_z, h_n = linear(h, w_hh, b_hh).unsafe_chunk(3, 1)
    reset = (h_r + i_r).sigmoid()
    update = (h_z + i_z).sigmoid()
    new = (i_n + h_n * reset).tanh()
    return (h - new) * update + new


def _cell(mode: str, pre: Tensor, state: Any, params: LayerParams) -> Any:
    _, w_hh, _, b_hh, w_hr = params
    if mode == "LSTM":
        return lstm_cell(pre, state, w_hh, b_hh, w_hr)
    if mode == "GRU":
        return gru_cell(pre, state, w_hh, b_hh)
    total = linear(state, w_hh, b_hh) + pre
    return total.relu() if mode == "RNN_RELU" else total.tanh()


def _output(state: Any) -> Tensor:
    return state[0] if isinstance(state, tuple) else state


def _hidden_slice(state: Any, start: int, end: int) -> Any:
    if isinstance(state, tuple):
        return tuple(part.narrow(0, start, end - start) for part in state)
    return state.narrow(0, start, end - start)


def _hidden_concat(states: Sequence) -> Any:
    if isinstance(states[0], tuple):
        return tuple(cat(list(parts), 0) for parts in zip(*states))
    return cat(list(states), 0)


def full_layer(mode: str, x: Tensor, state: Any, params: LayerParams, reverse: bool) -> tuple:
    """One direction of one layer over x (T, B, I): the outputs stacked and the final state."""
    steps = linear(x, params[0], params[2]).unbind(0)
    outputs = []
    for step in (reversed(steps) if reverse else steps):
        state = _cell(mode, step, state, params)
        outputs.append(_output(state))
    if reverse:
        outputs.reverse()
    return stack(outputs), state


def packed_layer(mode: str, data: Tensor, batch_sizes: list, state: Any, params: LayerParams,
                 reverse: bool) -> tuple:
    """One direction of one layer over packed data: each step on its first batch_sizes[t] rows;
    the final state of each sequence taken where it ends (forward) or begun where it starts
    (reverse)."""
    pre = linear(data, params[0], params[2])
    outputs = []
    if not reverse:
        finals, offset, last = [], 0, batch_sizes[0]
        for size in batch_sizes:
            step = pre.narrow(0, offset, size)
            offset += size
            if size < last:
                finals.append(_hidden_slice(state, size, last))
                state = _hidden_slice(state, 0, size)
            last = size
            state = _cell(mode, step, state, params)
            outputs.append(_output(state))
        finals.append(state)
        return cat(outputs, 0), _hidden_concat(finals[::-1])
    initial, offset, last = state, data.shape[0], batch_sizes[-1]
    state = _hidden_slice(initial, 0, last)
    for size in reversed(batch_sizes):
        if size > last:
            state = _hidden_concat([state, _hidden_slice(initial, last, size)])
        step = pre.narrow(0, offset - size, size)
        offset -= size
        last = size
        state = _cell(mode, step, state, params)
        outputs.append(_output(state))
    return cat(outputs[::-1], 0), state


def native_layers(mode: str, x: Tensor, batch_sizes: Optional[list], states: list, params: list, num_layers: int,
                  directions: int, dropout_p: float, train: bool) -> tuple:
    """Every layer and direction (ATen's apply_layer_stack): the output and each final state."""
    finals = []
    for layer in range(num_layers):
        outputs = []
        for direction in range(directions):
            index = layer * directions + direction
            if batch_sizes is None:
                out, final = full_layer(mode, x, states[index], params[index], direction == 1)
            else:
                out, final = packed_layer(mode, x, batch_sizes, states[index], params[index], direction == 1)
            outputs.append(out)
            finals.append(final)
        x = outputs[0] if directions == 1 else cat(outputs, outputs[0].ndim - 1)
        if dropout_p and train and layer < num_layers - 1:
            x = dropout(x, dropout_p, True)
    return x, finals


# ------------------------------------------------------------------ the oneDNN LSTM layer

class _LayerGraph:
    """The native steps of one oneDNN layer recorded on stand-ins of its inputs, and the
    gradients its node gives for one set of output gradients."""

    __slots__ = ("leaves", "outputs", "settings", "_grads", "_results")

    def __init__(self, leaves: list, outputs: tuple, settings: tuple) -> None:
        self.leaves = leaves
        self.outputs = outputs
        self.settings = settings  # (reverse, has_biases)
        self._grads: Any = None
        self._results: list = []

    def gradient(self, grads: list, index: int, inputs: tuple, results: tuple) -> Optional[Tensor]:
        if grads is not self._grads:  # the first of the node's inputs in this backward: all of them at once
            self._grads = grads
            given = list(grads) + [None] * (3 - len(grads))
            if grad_mode.is_grad_enabled():  # create_graph: PyTorch's differentiable formula, on the real inputs
                self._results = differentiable_backward(inputs, results, given, *self.settings)
            else:
                given = [g if g is not None else zeros_like(out) for g, out in zip(given, self.outputs)]
                wanted = [position for position, t in enumerate(self.leaves) if t.requires_grad]
                found = run_backward(list(self.outputs), given, retain_graph=True, create_graph=False,
                                     inputs=[self.leaves[position] for position in wanted], accumulate=False)
                self._results = [None] * len(self.leaves)
                for position, grad in zip(wanted, found):
                    self._results[position] = grad
        return self._results[index]


def _one_minus(t: Tensor) -> Tensor:
    # C++'s `1 - t`: a tensor of ones, t subtracted in place (SubBackward0)
    return Tensor._make(np.ones(t.shape, dtype=t.dtype._numpy), t.dtype).sub_(t)


def differentiable_backward(inputs: Sequence[Tensor], results: Sequence[Tensor], grads: list, reverse: bool,
                            has_biases: bool) -> list:
    """The gradients of one oneDNN layer's inputs as PyTorch computes them when the backward pass
    records a graph (mkldnn_rnn_layer_differentiable_backward): the gates recomputed step by step,
    then each step's gradients by hand, in its order."""
    input, weight0, weight1, weight2, weight3, hx_, cx_ = inputs
    output = results[0]
    grad_output = grads[0] if grads[0] is not None else zeros_like(output)
    grad_hy = grads[1] if grads[1] is not None else zeros_like(hx_)
    grad_cy = grads[2] if grads[2] is not None else zeros_like(cx_)
    if has_biases:
        bias_ih, bias_hh = weight2, weight3
    else:
        bias_ih = bias_hh = Tensor._make(np.zeros(weight0.shape[0], dtype=weight0.dtype._numpy), weight0.dtype)
    seq_length = input.shape[0]
    gates: list = [None] * seq_length
    states = [(hx_, cx_)]
    h, c = hx_, cx_
    for seq in range(1, seq_length + 1):
        x_index = seq_length - seq if reverse else seq - 1
        i, f, g, o = (linear(input[x_index], weight0, bias_ih) + linear(h, weight1, bias_hh)).unsafe_chunk(4, 1)
        i, f, g, o = i.sigmoid(), f.sigmoid(), g.tanh(), o.sigmoid()
        gates[x_index] = (i, f, g, o)
        c = f * c + i * g
        h = o * c.tanh()
        states.append((h, c))
    layer_dx: list = [None] * seq_length
    for seq in range(seq_length - 1, -1, -1):
        x_index = seq_length - seq - 1 if reverse else seq
        i, f, g, o = gates[x_index]
        cy = states[seq + 1][1]
        hx, cx = states[seq]
        new_grad_hy = grad_output[x_index] + grad_hy
        d1 = grad_cy + new_grad_hy * o * _one_minus(cy.tanh() * cy.tanh())
        dprev_c = d1 * f
        do_ = new_grad_hy * cy.tanh() * o * _one_minus(o)
        da = cat([d1 * g * i * _one_minus(i), d1 * cx * f * _one_minus(f), d1 * i * _one_minus(g * g), do_], 1)
        layer_dx[x_index] = da.matmul(weight0).unsqueeze(0)
        dprev_h = da.matmul(weight1)
        step_grads = (da.sum(0), da.transpose(0, 1).matmul(input[x_index]), da.transpose(0, 1).matmul(hx))
        if seq == seq_length - 1:
            db, dWx, dWh = step_grads
        else:
            db, dWx, dWh = db + step_grads[0], dWx + step_grads[1], dWh + step_grads[2]
        grad_hy, grad_cy = dprev_h, dprev_c
    return [cat(layer_dx, 0), dWx, dWh, db, db, grad_hy, grad_cy]


def _layer_steps(inputs: Sequence[Tensor], reverse: bool, has_biases: bool) -> tuple:
    x, w_ih, w_hh, b_ih, b_hh, hx, cx = inputs
    params = (w_ih, w_hh, b_ih if has_biases else None, b_hh if has_biases else None, None)
    output, (hy, cy) = full_layer("LSTM", x, (hx, cx), params, reverse)
    return output, hy, cy


def _formula(index: int) -> Any:
    def formula(grads: list, _layer: _LayerGraph, input: Tensor, weight0: Tensor, weight1: Tensor, weight2: Tensor,
                weight3: Tensor, hx_: Tensor, cx_: Tensor, result0: Tensor, result1: Tensor,
                result2: Tensor) -> Optional[Tensor]:
        return _layer.gradient(grads, index, (input, weight0, weight1, weight2, weight3, hx_, cx_),
                               (result0, result1, result2))
    return formula


def _no_forward_ad(tangents: list) -> list:
    raise NotImplementedError(
        "Trying to use forward AD with mkldnn_rnn_layer that does not support it because it has not been "
        "implemented yet.\nPlease file an issue to PyTorch at "
        "https://github.com/pytorch/pytorch/issues/new?template=feature-request.yml so that we can prioritize its "
        "implementation or submit a PR adding the implementation to derivatives.yaml")


_INPUTS = ("input", "weight0", "weight1", "weight2", "weight3", "hx_", "cx_")
MKLDNN_RNN_LAYER = node(
    "MkldnnRnnLayerBackward0", _INPUTS, multi_output=True, jvp=_no_forward_ad,
    saved_tensors=("result0", "result1", "result2"),
    saved=("reverse", "mode", "hidden_size", "num_layers", "has_biases", "bidirectional", "batch_first", "train",
           "batch_sizes"),
    **{name: _formula(index) for index, name in enumerate(_INPUTS)})


def mkldnn_rnn_layer(input: Tensor, weight0: Tensor, weight1: Tensor, weight2: Tensor, weight3: Tensor, hx_: Tensor,
                     cx_: Tensor, reverse: bool, hidden_size: int, num_layers: int, has_biases: bool,
                     bidirectional: bool, batch_first: bool, train: bool) -> tuple:
    """torch.mkldnn_rnn_layer for an LSTM: (output, hy, cy) of one layer and direction, one node."""
    inputs = (input, weight0, weight1, weight2, weight3, hx_, cx_)
    settings = (reverse, has_biases)
    recording = grad_mode.is_grad_enabled() and any(t.requires_grad for t in inputs)
    if recording:
        leaves = [t.detach()._set_requires_grad() if t.requires_grad else t for t in inputs]
        outputs = _layer_steps(leaves, *settings)
        layer = _LayerGraph(leaves, outputs, settings)
    else:
        outputs, layer = _layer_steps(inputs, *settings), None
    return record_outputs(MKLDNN_RNN_LAYER, inputs, [(out._data, out.dtype) for out in outputs],
                          ["result0", "result1", "result2"], _layer=layer, reverse=reverse, mode=2,
                          hidden_size=hidden_size, num_layers=num_layers, has_biases=has_biases,
                          bidirectional=bidirectional, batch_first=batch_first, train=train, batch_sizes=())


def mkldnn_layers(x: Tensor, hx: Tensor, cx: Tensor, params: list, hidden_size: int, num_layers: int,
                  bidirectional: bool, batch_first: bool, dropout_p: float, train: bool, has_biases: bool) -> tuple:
    """ATen's mkldnn_rnn for an LSTM: each layer and direction one oneDNN layer. Returns the
    output and the stacked final states."""
    directions = 2 if bidirectional else 1
    hy, cy = [], []
    for layer in range(num_layers):
        outputs = []
        for direction in range(directions):
            index = layer * directions + direction
            w_ih, w_hh, b_ih, b_hh, _ = params[index]
            if not has_biases:
                b_ih, b_hh = zeros_like(w_ih), zeros_like(w_hh)
            out, h, c = mkldnn_rnn_layer(x, w_ih, w_hh, b_ih, b_hh, hx[index], cx[index], direction == 1,
                                         hidden_size, num_layers, has_biases, bidirectional, batch_first, train)
            outputs.append(out)
            hy.append(h)
            cy.append(c)
        x = outputs[0] if directions == 1 else cat(outputs, -1)
        if dropout_p and train and layer < num_layers - 1:
            x = dropout(x, dropout_p, True)
    return x, (stack(hy), stack(cy))
