"""Gradient-check cases for torch.nn's ops: convolutions (plain, strided, dilated, grouped,
transposed), pooling, normalization, embeddings, the piecewise losses and the identity that
modules' backward hooks put around their inputs and outputs. test_gradcheck.py runs them."""
from __future__ import annotations

from gradcheck import Case, away_from_zero, constant, distinct, long_tensor, rand, seeded
from gradcalc.autograd.ops.normalization import weight_norm_interface
from gradcalc.nn import functional as NF
from gradcalc.nn.functional import recurrent
from gradcalc.nn.modules import GRU, LSTM, RNN, Linear
from gradcalc.nn.utils import rnn as rnn_utils


def _hooked_linear(x):
    layer = seeded(lambda: Linear(3, 2).double())
    layer.register_full_backward_hook(lambda module, grad_input, grad_output: None)
    return layer(x)


def _packed_layers(x):
    """A bidirectional LSTM, GRU and RNN over sequences of lengths 3, 1 and 2, packed and padded back."""
    packed = rnn_utils.pack_padded_sequence(x, [3, 1, 2], enforce_sorted=False)
    results = []
    for make in (lambda: LSTM(2, 3, bidirectional=True), lambda: GRU(2, 2, num_layers=2),
                 lambda: RNN(2, 2, nonlinearity="relu", bidirectional=True)):
        layer = seeded(lambda: make().double())
        output, hidden = layer(packed)
        padded, _ = rnn_utils.pad_packed_sequence(output, batch_first=True, total_length=4)
        results += [padded, *(hidden if isinstance(hidden, tuple) else (hidden,))]
    return results


def _projected_lstm(x, h0):
    layer = seeded(lambda: LSTM(2, 3, proj_size=2, batch_first=True).double())
    output, (h, c) = layer(x, (h0, h0.new_zeros(1, 2, 3)))
    return [output, h, c]


def _unpool_indices():
    return long_tensor([[[[0, 3], [11, 18]], [[6, 2], [15, 9]]]])


NN_CASES = [
    Case("max_unpool2d", lambda x: NF.max_unpool2d(x, _unpool_indices(), 2, output_size=(4, 5)), [rand(1, 2, 2, 2)],
         True),
    Case("lp_pool1d lp_pool2d", lambda x, y: NF.lp_pool1d(x, 2, 2).sum() + NF.lp_pool2d(y, 3, 2, stride=1).sum(),
         [rand(1, 2, 5, low=0.5, high=2.0), rand(1, 1, 3, 3, low=0.5, high=2.0, seed=1)]),
    Case("embedding_bag sum with per-sample weights",
         lambda w, p: NF.embedding_bag(long_tensor([1, 2, 4, 1, 0]), w, long_tensor([0, 2]), mode="sum",
                                       per_sample_weights=p), [rand(5, 3), rand(5, seed=1)]),
    Case("embedding_bag mean and max", lambda w: NF.embedding_bag(long_tensor([[1, 2], [4, 4]]), w, mode="mean")
         + NF.embedding_bag(long_tensor([[1, 2], [4, 0]]), w, mode="max"), [distinct(5, 3)]),
    Case("unfold (im2col)", lambda x: NF.unfold(x, (2, 3), dilation=(1, 2), padding=1, stride=(2, 1)),
         [rand(2, 2, 4, 5)], True),
    Case("fold (col2im) overlapping", lambda c: NF.fold(c, (4, 5), (2, 2), padding=(1, 0), stride=1),
         [rand(2, 8, 20)], True),
    Case("pixel_shuffle pixel_unshuffle", lambda x, y: NF.pixel_shuffle(x, 2).flatten() * NF.pixel_unshuffle(y, 2).sum(),
         [rand(1, 4, 2, 3), rand(2, 1, 4, 2, seed=1)], True),
    Case("affine_grid", lambda theta: NF.affine_grid(theta, (2, 1, 3, 4), align_corners=False), [rand(2, 2, 3)], False),
    Case("grid_sample bilinear zeros", lambda x, g: NF.grid_sample(x, g, align_corners=False),
         [rand(2, 2, 3, 4), rand(2, 3, 2, 2, low=-1.2, high=1.2, seed=1)], False),
    Case("grid_sample bilinear border aligned", lambda x, g: NF.grid_sample(x, g, padding_mode="border",
                                                                             align_corners=True),
         [rand(1, 2, 4, 3), rand(1, 2, 3, 2, low=-0.9, high=0.9, seed=2)], False),
    Case("grid_sample bilinear reflection", lambda x, g: NF.grid_sample(x, g, padding_mode="reflection",
                                                                         align_corners=False),
         [rand(1, 1, 3, 3), rand(1, 2, 2, 2, low=-0.9, high=0.9, seed=3)], False),
    Case("grid_sample nearest", lambda x: NF.grid_sample(x, constant(rand(1, 2, 3, 2, low=-0.9, high=0.9, seed=4)),
                                                         mode="nearest", align_corners=False), [rand(1, 2, 3, 3)], False),
    Case("grid_sample bicubic", lambda x, g: NF.grid_sample(x, g, mode="bicubic", align_corners=True),
         [rand(1, 1, 4, 4), rand(1, 2, 2, 2, low=-0.8, high=0.8, seed=5)], False),
    Case("channel_shuffle", lambda x: NF.channel_shuffle(x, 3) * constant(rand(2, 6, 2, seed=1)), [rand(2, 6, 2)], True),
    Case("conv2d", lambda x, w, b: NF.conv2d(x, w, b, stride=2, padding=1),
         [rand(2, 3, 5, 5), rand(4, 3, 3, 3, seed=1), rand(4, seed=2)]),
    Case("conv2d dilated grouped", lambda x, w: NF.conv2d(x, w, None, 1, (1, 0), 2, 2),
         [rand(1, 4, 6, 5), rand(2, 2, 2, 2, seed=1)]),
    Case("conv2d same", lambda x, w: NF.conv2d(x, w, padding="same"), [rand(1, 2, 4, 4), rand(3, 2, 2, 3, seed=1)]),
    Case("conv1d conv3d", lambda x, w, y, v: NF.conv1d(x, w).sum() + NF.conv3d(y, v).sum(),
         [rand(2, 2, 6), rand(3, 2, 3, seed=1), rand(1, 1, 3, 3, 3, seed=2), rand(2, 1, 2, 2, 2, seed=3)]),
    Case("conv_transpose2d", lambda x, w, b: NF.conv_transpose2d(x, w, b, stride=2, padding=1, output_padding=1),
         [rand(2, 3, 3, 3), rand(3, 2, 3, 3, seed=1), rand(2, seed=2)]),
    Case("conv_transpose1d grouped", lambda x, w: NF.conv_transpose1d(x, w, groups=2, dilation=2),
         [rand(1, 4, 4), rand(4, 1, 2, seed=1)]),
    Case("max_pool2d", lambda x: NF.max_pool2d(x, 3, 2, 1, ceil_mode=True), [distinct(2, 2, 5, 5)]),
    Case("max_pool1d dilated", lambda x: NF.max_pool1d(x, 2, dilation=2), [distinct(2, 3, 7)]),
    Case("avg_pool1d", lambda x: NF.avg_pool1d(x, 3, 2, 1, ceil_mode=True, count_include_pad=False), [rand(2, 2, 7)]),
    Case("adaptive pools 1d", lambda x: NF.adaptive_avg_pool1d(x, 3) + NF.adaptive_max_pool1d(x, 3),
         [distinct(2, 2, 7)]),
    Case("avg_pool2d", lambda x: NF.avg_pool2d(x, 3, 2, 1, ceil_mode=True, count_include_pad=False),
         [rand(2, 2, 6, 5)]),
    Case("adaptive_avg_pool2d", lambda x: NF.adaptive_avg_pool2d(x, (3, 2)), [rand(2, 2, 7, 5)]),
    Case("adaptive_max_pool2d", lambda x: NF.adaptive_max_pool2d(x, 3), [distinct(1, 2, 5, 7)]),
    Case("max_pool3d", lambda x: NF.max_pool3d(x, 2, 1, 1, dilation=(1, 2, 1), ceil_mode=True),
         [distinct(1, 2, 3, 4, 3)]),
    Case("avg_pool3d", lambda x: NF.avg_pool3d(x, 3, 2, 1, ceil_mode=True, count_include_pad=False),
         [rand(1, 2, 4, 5, 3)], True),
    Case("adaptive_max_pool3d", lambda x: NF.adaptive_max_pool3d(x, (2, 3, 2)), [distinct(1, 2, 4, 5, 3)]),
    Case("batch_norm training", lambda x, w, b: NF.batch_norm(x, constant(rand(3) * 0), constant(rand(3) * 0 + 1), w,
                                                              b, True),
         [rand(4, 3, 2, 2), rand(3, seed=1), rand(3, seed=2)], True),
    Case("batch_norm eval", lambda x, w: NF.batch_norm(x, constant(rand(3)), constant(rand(3, low=0.5) + 1), w),
         [rand(4, 3), rand(3, seed=1)], True),
    Case("layer_norm", lambda x, w, b: NF.layer_norm(x, (2, 3), w, b),
         [rand(4, 2, 3), rand(2, 3, seed=1), rand(2, 3, seed=2)], True),
    Case("group_norm", lambda x, w, b: NF.group_norm(x, 2, w, b), [rand(2, 4, 3), rand(4, seed=1), rand(4, seed=2)],
         True),
    Case("embedding", lambda w: NF.embedding(long_tensor([[0, 2], [2, 3]]), w), [rand(4, 3)], True),
    Case("smooth_l1_loss huber_loss", lambda x, y: NF.smooth_l1_loss(x, y, beta=0.5) + NF.huber_loss(x, y, delta=0.7),
         [rand(2, 3), rand(2, 3, seed=1)], True),
    Case("module backward hook", _hooked_linear, [rand(2, 3)]),
    Case("multi_margin_loss", lambda x: NF.multi_margin_loss(x, long_tensor([1, 0, 4]), margin=1.5).reshape(1)
         + NF.multi_margin_loss(x, long_tensor([2, 2, 3]), p=2, weight=constant(rand(5, seed=1)), reduction="none"),
         [distinct(3, 5)]),
    Case("multilabel_margin_loss", lambda x: NF.multilabel_margin_loss(
        x, long_tensor([[3, 0, -1, 1, 2], [0, 1, 2, 4, -1], [1, -1, 0, 0, 0]]), reduction="none"),
         [distinct(3, 5)]),
    Case("pdist", lambda x: NF.pdist(x) * NF.pdist(x, 1.5).sum() + NF.pdist(x, 3).sum() + NF.pdist(x, 1).sum()
         + NF.pdist(x, float("inf")).sum(), [rand(4, 3)]),
    Case("rrelu training, evaluation, in place", lambda x: seeded(lambda: NF.rrelu(x, training=True)) * NF.rrelu(x)
         + seeded(lambda: NF.rrelu(x * 1, 0.2, 0.4, True, inplace=True)), [away_from_zero(3, 4)]),
    Case("ctc_loss", lambda x: NF.ctc_loss(x.log_softmax(2), long_tensor([[1, 2, 2], [3, 1, 0]]), [6, 5], [3, 2],
                                           reduction="none"), [rand(6, 2, 4)]),
    Case("weight_norm first and last dim", lambda v, g, h: weight_norm_interface(v, g, 0).sum()
         + (weight_norm_interface(v, h, 2) ** 2).sum(), [rand(3, 2, 4), rand(3, 1, 1, seed=1), rand(1, 1, 4, seed=2)],
         True),
    # attention: 3-d inputs take the math composition (its safe softmax), 4-d ones the flash kernel
    Case("scaled_dot_product_attention math", lambda q, k, v: NF.scaled_dot_product_attention(q, k, v, is_causal=True),
         [rand(2, 3, 4), rand(2, 5, 4, seed=1), rand(2, 5, 4, seed=2)], True),
    Case("scaled_dot_product_attention flash", lambda q, k, v: NF.scaled_dot_product_attention(
        q, k, v, attn_mask=constant(rand(3, 5, seed=3))), [rand(1, 2, 3, 4), rand(1, 2, 5, 4, seed=1),
                                                           rand(1, 2, 5, 4, seed=2)], True),
    Case("scaled_dot_product_attention flash causal", lambda q, k, v: NF.scaled_dot_product_attention(
        q, k, v, is_causal=True, scale=0.3), [rand(1, 2, 4, 3), rand(1, 2, 4, 3, seed=1), rand(1, 2, 4, 3, seed=2)],
        True),
    # upsampling: each mode's op in 1, 2 and 3 dims, by size and by scale factor
    Case("interpolate nearest", lambda a, b, c: NF.interpolate(a, scale_factor=2).sum() * NF.interpolate(
        b, size=(3, 5)).mean() + NF.interpolate(c, scale_factor=1.5)[0, 0, 0, 0], [rand(1, 2, 3), rand(1, 1, 2, 3, seed=1),
                                                                                 rand(1, 1, 2, 2, 3, seed=2)], True),
    Case("interpolate nearest-exact", lambda a, b, c: NF.interpolate(a, size=5, mode="nearest-exact").sum()
         + (NF.interpolate(b, scale_factor=1.7, mode="nearest-exact") ** 2).sum()
         + NF.interpolate(c, size=(3, 2, 4), mode="nearest-exact")[0, 0, 1, 1],
         [rand(1, 2, 3), rand(1, 1, 2, 3, seed=1), rand(1, 1, 2, 2, 3, seed=2)], True),
    Case("interpolate linear bilinear trilinear", lambda a, b, c: (
        NF.interpolate(a, size=5, mode="linear") ** 2).sum() + (NF.interpolate(
            b, scale_factor=1.6, mode="bilinear", align_corners=True) ** 2).sum() + (NF.interpolate(
                c, scale_factor=2, mode="trilinear") ** 2).sum(),
         [rand(1, 2, 3), rand(1, 1, 2, 3, seed=1), rand(1, 1, 2, 2, 3, seed=2)], True),
    Case("interpolate bicubic", lambda x: NF.interpolate(x, size=(4, 5), mode="bicubic") ** 2,
         [rand(1, 2, 3, 3)], True),
    # antialias: down (the filter widened), up, and one dim kept
    Case("interpolate antialias", lambda x: (NF.interpolate(x, size=(2, 7), mode="bilinear", antialias=True) ** 2).sum()
         + (NF.interpolate(x, scale_factor=0.6, mode="bicubic", antialias=True) ** 2).sum()
         + NF.interpolate(x, size=(5, 2), mode="bicubic", align_corners=True, antialias=True)[0, 1, 3, 1],
         [rand(1, 2, 5, 4)], True),
    Case("adaptive_avg_pool3d and area interpolation", lambda x: (NF.adaptive_avg_pool3d(x, (2, 3, 2)) ** 2).sum()
         + NF.interpolate(x, scale_factor=0.5, mode="area")[0, 1, 0, 1, 0], [rand(1, 2, 3, 4, 5)], True),
    Case("interpolate lanczos", lambda x: (NF.interpolate(x, size=(3, 9), mode="lanczos", antialias=True) ** 2).sum()
         + NF.interpolate(x, scale_factor=0.7, mode="lanczos", antialias=True)[0, 0, 1, 2], [rand(1, 2, 6, 5)], True),
    Case("mkldnn_rnn_layer", lambda x, w_ih, w_hh, b_ih, b_hh, hx, cx: recurrent.mkldnn_rnn_layer(
        x, w_ih, w_hh, b_ih, b_hh, hx, cx, True, 2, 1, True, False, False, True),
         [rand(3, 2, 2), rand(8, 2, seed=1), rand(8, 2, seed=2), rand(8, seed=3), rand(8, seed=4), rand(2, 2, seed=5),
          rand(2, 2, seed=6)], True),
    Case("pack_padded_sequence pad_sequence", lambda a, b: rnn_utils.pack_padded_sequence(
        rnn_utils.pad_sequence([a, b], batch_first=True), [3, 2], batch_first=True).data, [rand(3, 2), rand(2, 2)],
         True),
    Case("packed recurrent layers", _packed_layers, [rand(3, 3, 2)]),
    Case("lstm projections", _projected_lstm, [rand(2, 3, 2), rand(1, 2, 2, seed=1)]),
]
