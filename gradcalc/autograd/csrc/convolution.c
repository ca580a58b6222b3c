/* oneDNN's direct float32 convolution (jit:avx512_core and jit:avx2, which ATen's use_mkldnn hands
 * a plain NCHW convolution of one group and no dilation), in its order of operations: for each
 * output element, the input channels taken in blocks (16 with AVX-512, 8 with AVX2), within a
 * block the kernel's rows, then its columns, then the block's channels, one fused multiply-add
 * each. The AVX-512 kernel sums each block from zero, adds the bias to the first block's sum and
 * each later block's sum to that; the AVX2 kernel runs one sum from the bias through every block.
 * ops/convolution.py's `_onednn_direct` emulates the same in numpy; tests/test_native.py compares
 * them, and golden programs compare both with PyTorch. */
#include "native.h"

/* One output position's sums for all `outs` output channels at once (as oneDNN holds them, a
 * register of output channels): acc[o] = fma(x's element, w_t[..., o], acc[o]) for each kernel row,
 * column and channel of [c0, c1) in that order; w_t is the weight laid out (C, KH, KW, O). */
#define POSITION_FMAS(NAME, FMA, ATTRIBUTE)                                                        \
    ATTRIBUTE static void NAME(const float *x, const float *w_t, float *restrict acc, Py_ssize_t c0, \
                               Py_ssize_t c1, Py_ssize_t height, Py_ssize_t width, Py_ssize_t kh_size, \
                               Py_ssize_t kw_size, Py_ssize_t outs) {                              \
        for (Py_ssize_t kh = 0; kh < kh_size; kh++)                                                \
            for (Py_ssize_t kw = 0; kw < kw_size; kw++)                                            \
                for (Py_ssize_t c = c0; c < c1; c++) {                                             \
                    const float value = x[(c * height + kh) * width + kw];                         \
                    const float *restrict weights = w_t + ((c * kh_size + kh) * kw_size + kw) * outs; \
                    for (Py_ssize_t o = 0; o < outs; o++)                                          \
                        acc[o] = FMA(value, weights[o], acc[o]);                                   \
                }                                                                                  \
    }

POSITION_FMAS(position_fmas_generic, fmaf, )
#if HAS_FMA_CLONE
POSITION_FMAS(position_fmas_avx2, __builtin_fmaf, FMA_TARGET)
#endif

/* acc[i] = fma(x's window element i, weight, acc[i]) over one output plane of one output channel,
 * for each kernel row, column and channel of [c0, c1) in that order: the loop for few output
 * channels, the same sums as POSITION_FMAS's. */
#define PLANE_FMAS(NAME, FMA, ATTRIBUTE)                                                           \
    ATTRIBUTE static void NAME(const float *x, const float *w, float *acc, Py_ssize_t c0,          \
                               Py_ssize_t c1, Py_ssize_t height, Py_ssize_t width, Py_ssize_t kh_size, \
                               Py_ssize_t kw_size, Py_ssize_t out_h, Py_ssize_t out_w, Py_ssize_t sh, \
                               Py_ssize_t sw) {                                                    \
        for (Py_ssize_t kh = 0; kh < kh_size; kh++)                                                \
            for (Py_ssize_t kw = 0; kw < kw_size; kw++)                                            \
                for (Py_ssize_t c = c0; c < c1; c++) {                                             \
                    const float weight = w[(c * kh_size + kh) * kw_size + kw];                     \
                    const float *plane = x + c * height * width;                                   \
                    for (Py_ssize_t oh = 0; oh < out_h; oh++) {                                    \
                        const float *restrict row = plane + (oh * sh + kh) * width + kw;           \
                        float *restrict out = acc + oh * out_w;                                    \
                        if (sw == 1) /* (contiguous: the compiler's vector loop) */                \
                            for (Py_ssize_t ow = 0; ow < out_w; ow++)                              \
                                out[ow] = FMA(row[ow], weight, out[ow]);                           \
                        else                                                                       \
                            for (Py_ssize_t ow = 0; ow < out_w; ow++)                              \
                                out[ow] = FMA(row[ow * sw], weight, out[ow]);                      \
                    }                                                                              \
                }                                                                                  \
    }

PLANE_FMAS(plane_fmas_generic, fmaf, )
#if HAS_FMA_CLONE
PLANE_FMAS(plane_fmas_avx2, __builtin_fmaf, FMA_TARGET)
#endif

/* The sums plane by plane (few output channels); -1 with an error set when out of memory. */
static int plane_sums(const float *x, const float *w, const float *bias, float *out, Py_ssize_t n, Py_ssize_t channels,
                      Py_ssize_t height, Py_ssize_t width, Py_ssize_t outs, Py_ssize_t kh, Py_ssize_t kw,
                      Py_ssize_t out_h, Py_ssize_t out_w, Py_ssize_t sh, Py_ssize_t sw, Py_ssize_t block, int fresh) {
    const Py_ssize_t plane = out_h * out_w;
    float *partial = PyMem_Malloc((plane ? plane : 1) * sizeof(float));
    if (partial == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t b = 0; b < n; b++)
        for (Py_ssize_t o = 0; o < outs; o++) {
            const float *image = x + b * channels * height * width, *filter = w + o * channels * kh * kw;
            float *dst = out + (b * outs + o) * plane;
            for (Py_ssize_t c0 = 0; c0 < channels; c0 += block) {
                const Py_ssize_t c1 = c0 + block < channels ? c0 + block : channels;
                float *acc = fresh ? partial : dst;
                if (fresh || c0 == 0)
                    for (Py_ssize_t i = 0; i < plane; i++)
                        acc[i] = !fresh && bias != NULL ? bias[o] : 0.0f;
                CALL_CLONED(plane_fmas_avx2, plane_fmas_generic, image, filter, acc, c0, c1, height, width, kh, kw,
                            out_h, out_w, sh, sw);
                if (fresh)
                    for (Py_ssize_t i = 0; i < plane; i++)
                        dst[i] = c0 == 0 ? (bias != NULL ? acc[i] + bias[o] : acc[i]) : dst[i] + acc[i];
            }
        }
    PyMem_Free(partial);
    return 0;
}

/* The sums position by position, all output channels at once; -1 with an error set when out of memory. */
static int position_sums(const float *x, const float *w, const float *bias, float *out, Py_ssize_t n,
                         Py_ssize_t channels, Py_ssize_t height, Py_ssize_t width, Py_ssize_t outs, Py_ssize_t kh,
                         Py_ssize_t kw, Py_ssize_t out_h, Py_ssize_t out_w, Py_ssize_t sh, Py_ssize_t sw,
                         Py_ssize_t block, int fresh) {
    const Py_ssize_t plane = out_h * out_w, taps = channels * kh * kw;
    float *w_t = PyMem_Malloc(taps * outs * sizeof(float) + 2 * outs * sizeof(float));
    if (w_t == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    float *total = w_t + taps * outs, *partial = total + outs;
    for (Py_ssize_t o = 0; o < outs; o++)
        for (Py_ssize_t t = 0; t < taps; t++)
            w_t[t * outs + o] = w[o * taps + t];
    for (Py_ssize_t b = 0; b < n; b++)
        for (Py_ssize_t oh = 0; oh < out_h; oh++)
            for (Py_ssize_t ow = 0; ow < out_w; ow++) {
                const float *corner = x + b * channels * height * width + oh * sh * width + ow * sw;
                for (Py_ssize_t o = 0; o < outs; o++)
                    total[o] = !fresh && bias != NULL ? bias[o] : 0.0f;
                for (Py_ssize_t c0 = 0; c0 < channels; c0 += block) {
                    const Py_ssize_t c1 = c0 + block < channels ? c0 + block : channels;
                    float *acc = fresh ? partial : total;
                    if (fresh)
                        for (Py_ssize_t o = 0; o < outs; o++)
                            acc[o] = 0.0f;
                    CALL_CLONED(position_fmas_avx2, position_fmas_generic, corner, w_t, acc, c0, c1, height, width,
                                kh, kw, outs);
                    if (fresh)
                        for (Py_ssize_t o = 0; o < outs; o++)
                            total[o] = c0 == 0 ? (bias != NULL ? acc[o] + bias[o] : acc[o]) : total[o] + acc[o];
                }
                for (Py_ssize_t o = 0; o < outs; o++)
                    out[(b * outs + o) * plane + oh * out_w + ow] = total[o];
            }
    PyMem_Free(w_t);
    return 0;
}

/* conv2d_direct_float32(x, w, bias, out, sh, sw, block, fresh_blocks): x (N, C, H, W) padded
 * already, w (O, C, KH, KW), bias None or O values, out (N, O, OH, OW), every buffer float32 and
 * C-contiguous, the sizes agreeing with strides sh and sw. fresh_blocks: the AVX-512 kernel's sums
 * (each block from zero), else the AVX2 kernel's one sum. */
static PyObject *py_conv2d_direct_float32(PyObject *self, PyObject *args) {
    PyObject *objects[4];
    Py_ssize_t sh, sw, block;
    int fresh;
    if (!PyArg_ParseTuple(args, "OOOOnnnp", &objects[0], &objects[1], &objects[2], &objects[3], &sh, &sw, &block,
                          &fresh))
        return NULL;
    Py_buffer views[4];
    int held = 0;
    PyObject *result = NULL;
    for (; held < 4; held++) {
        if (held == 2 && objects[2] == Py_None)
            continue;
        if (get_buffer(objects[held], &views[held], "f", held == 3) < 0)
            goto done;
    }
    if (views[0].ndim != 4 || views[1].ndim != 4 || views[3].ndim != 4 || sh < 1 || sw < 1 || block < 1
            || views[0].shape[1] < 1) {
        PyErr_SetString(PyExc_ValueError, "unexpected sizes");
        goto done;
    }
    const Py_ssize_t n = views[0].shape[0], channels = views[0].shape[1], height = views[0].shape[2],
                     width = views[0].shape[3], outs = views[1].shape[0], kh = views[1].shape[2],
                     kw = views[1].shape[3], out_h = views[3].shape[2], out_w = views[3].shape[3];
    if (views[1].shape[1] != channels || views[3].shape[0] != n || views[3].shape[1] != outs || kh > height
            || kw > width || out_h != (height - kh) / sh + 1 || out_w != (width - kw) / sw + 1
            || (objects[2] != Py_None && views[2].len / 4 != outs)) {
        PyErr_SetString(PyExc_ValueError, "unexpected sizes");
        goto done;
    }
    const float *x = views[0].buf, *w = views[1].buf, *bias = objects[2] == Py_None ? NULL : views[2].buf;
    float *out = views[3].buf;
    if (outs < 16 ? plane_sums(x, w, bias, out, n, channels, height, width, outs, kh, kw, out_h, out_w, sh, sw, block,
                               fresh)
                  : position_sums(x, w, bias, out, n, channels, height, width, outs, kh, kw, out_h, out_w, sh, sw,
                                  block, fresh))
        goto done;
    Py_INCREF(Py_None);
    result = Py_None;
done:
    while (held--)
        if (!(held == 2 && objects[2] == Py_None))
            PyBuffer_Release(&views[held]);
    return result;
}

PyMethodDef convolution_methods[] = {
    {"conv2d_direct_float32", py_conv2d_direct_float32, METH_VARARGS,
     "conv2d_direct_float32(x, w, bias, out, sh, sw, block, fresh_blocks): oneDNN's direct float32 convolution."},
    {NULL, NULL, 0, NULL},
};
