/* torch.sum's 2-D loop (aten/src/ATen/native/cpu/SumKernel.cpp) in its order of additions:
 * kernels._chunk's arithmetic, which the numpy emulation there spells out and tests/test_native.py
 * compares with this. Every lane of a SIMD register is an accumulator of its own, so adding lane by
 * lane in C gives the register's bits. Besides: nll_loss's loop over its targets (LossNLL.cpp),
 * whose sums cascade through eight levels of its own (ops/loss.py's _nll_values emulates it). */
#include "native.h"

#define LEVELS 4
#define ILP 4     /* running sums per row (row_sum) and rows per outer block */
#define WIDEST 8  /* lanes in a register: 32 bytes of float (the kernel's AVX2 build runs everywhere) */

/* multi_row_sum: `nrows` x `width` running sums over `size` rows (row i's element (k, w) at
 * in + i * row_stride + k * column_stride + w * lane_stride), cascaded through four levels: each
 * full block of 2**power rows is carried up a level, and so on; then the levels added into the first. */
#define CASCADE(T)                                                                                 \
    static void multi_row_sum_##T(const char *in, Py_ssize_t row_stride, Py_ssize_t column_stride, \
                                  Py_ssize_t lane_stride, Py_ssize_t size, int nrows, int width,   \
                                  T *out) {                                                        \
        T acc[LEVELS][ILP * WIDEST];                                                               \
        const int count = nrows * width;                                                           \
        for (int level = 0; level < LEVELS; level++)                                               \
            for (int n = 0; n < count; n++)                                                        \
                acc[level][n] = 0;                                                                 \
        const Py_ssize_t ceil_log2 = size <= 2 ? 1 : 64 - __builtin_clzll((unsigned long long)(size - 1)); \
        const Py_ssize_t power = ceil_log2 / LEVELS > 4 ? ceil_log2 / LEVELS : 4;                  \
        const Py_ssize_t step = (Py_ssize_t)1 << power, mask = step - 1;                           \
        Py_ssize_t i = 0;                                                                          \
        while (i + step <= size) {                                                                 \
            for (Py_ssize_t j = 0; j < step; j++, i++)                                             \
                add_row_##T(acc[0], in + i * row_stride, column_stride, lane_stride, nrows, width); \
            for (int level = 1; level < LEVELS; level++) {                                         \
                for (int n = 0; n < count; n++) {                                                  \
                    acc[level][n] = acc[level][n] + acc[level - 1][n];                             \
                    acc[level - 1][n] = 0;                                                         \
                }                                                                                  \
                if ((i & (mask << (level * power))) != 0)                                          \
                    break;                                                                         \
            }                                                                                      \
        }                                                                                          \
        for (; i < size; i++)                                                                      \
            add_row_##T(acc[0], in + i * row_stride, column_stride, lane_stride, nrows, width);    \
        for (int level = 1; level < LEVELS; level++)                                               \
            for (int n = 0; n < count; n++)                                                        \
                acc[0][n] = acc[0][n] + acc[level][n];                                             \
        memcpy(out, acc[0], count * sizeof(T));                                                    \
    }                                                                                              \
                                                                                                   \
    /* row_sum: `width` lanes summed over `size` items (item i's lane w at in + i * stride +      \
     * w * lane_stride) by four interleaved running sums, the items past them into the first. */  \
    static void row_sum_##T(const char *in, Py_ssize_t stride, Py_ssize_t lane_stride, Py_ssize_t size, \
                            int width, T *out) {                                                   \
        T partial[ILP * WIDEST];                                                                   \
        const Py_ssize_t rows = size / ILP;                                                        \
        multi_row_sum_##T(in, stride * ILP, stride, lane_stride, rows, ILP, width, partial);      \
        for (Py_ssize_t i = rows * ILP; i < size; i++)                                             \
            for (int w = 0; w < width; w++)                                                        \
                partial[w] = partial[w] + *(const T *)(in + i * stride + w * lane_stride);         \
        for (int k = 1; k < ILP; k++)                                                              \
            for (int w = 0; w < width; w++)                                                        \
                partial[w] = partial[w] + partial[k * width + w];                                  \
        memcpy(out, partial, width * sizeof(T));                                                   \
    }                                                                                              \
                                                                                                   \
    /* One call of the 2-D loop: block (size1, size0) summed along its axis 1 into out[size1];     \
     * s0, s1 its strides in bytes, decide0, decide1 the strides TensorIterator reports (the same  \
     * but for an axis of one element), which choose among the four loops. */                     \
    static void chunk_##T(const char *base, Py_ssize_t s0, Py_ssize_t s1, Py_ssize_t size0,       \
                          Py_ssize_t size1, Py_ssize_t decide0, Py_ssize_t decide1, T *out) {      \
        const Py_ssize_t unit = sizeof(T);                                                         \
        const int lanes = (int)(32 / unit);                                                        \
        T sums[ILP * WIDEST];                                                                      \
        Py_ssize_t j = 0;                                                                          \
        if (decide0 == unit && size0 >= lanes) { /* vectorized_inner_sum */                       \
            const Py_ssize_t registers = size0 / lanes;                                            \
            for (; j < size1; j++) {                                                               \
                const char *row = base + j * s1;                                                   \
                row_sum_##T(row, lanes * s0, s0, registers, lanes, sums);                          \
                T total = 0;                                                                       \
                for (Py_ssize_t k = registers * lanes; k < size0; k++)                             \
                    total = total + *(const T *)(row + k * s0);                                    \
                for (int w = 0; w < lanes; w++)                                                    \
                    total = total + sums[w];                                                       \
                out[j] = total;                                                                    \
            }                                                                                      \
        } else if (decide1 == unit && size1 >= lanes) { /* vectorized_outer_sum */                \
            for (; j + ILP * lanes <= size1; j += ILP * lanes) {                                   \
                multi_row_sum_##T(base + j * s1, s0, lanes * s1, s1, size0, ILP, lanes, sums);    \
                memcpy(out + j, sums, ILP * lanes * sizeof(T));                                    \
            }                                                                                      \
            for (; j + lanes <= size1; j += lanes)                                                 \
                row_sum_##T(base + j * s1, s0, s1, size0, lanes, out + j);                         \
            for (; j < size1; j++)                                                                 \
                row_sum_##T(base + j * s1, s0, 0, size0, 1, out + j);                              \
        } else if (decide0 < decide1) { /* scalar_inner_sum */                                    \
            for (; j < size1; j++)                                                                 \
                row_sum_##T(base + j * s1, s0, 0, size0, 1, out + j);                              \
        } else { /* scalar_outer_sum */                                                            \
            for (; j + ILP <= size1; j += ILP)                                                     \
                multi_row_sum_##T(base + j * s1, s0, s1, 0, size0, ILP, 1, out + j);              \
            for (; j < size1; j++)                                                                 \
                row_sum_##T(base + j * s1, s0, 0, size0, 1, out + j);                              \
        }                                                                                          \
    }

/* acc[k * width + w] += the row's element (k, w) */
#define ADD_ROW(T)                                                                                 \
    static inline void add_row_##T(T *acc, const char *row, Py_ssize_t column_stride,             \
                                   Py_ssize_t lane_stride, int nrows, int width) {                 \
        for (int k = 0; k < nrows; k++)                                                            \
            for (int w = 0; w < width; w++)                                                        \
                acc[k * width + w] = acc[k * width + w] + *(const T *)(row + k * column_stride + w * lane_stride); \
    }

ADD_ROW(float)
ADD_ROW(double)
CASCADE(float)
CASCADE(double)

/* sum_chunk(block, decide0, decide1, out): block (size1, size0), float32 or float64, any strides,
 * summed along axis 1 into out (size1 elements, C-contiguous, the same format). The addresses come
 * from the block's own strides; decide0 and decide1 only choose the loop, and must agree with them
 * wherever an axis has more than one element. */
static PyObject *py_sum_chunk(PyObject *self, PyObject *args) {
    PyObject *source, *target;
    Py_ssize_t decide0, decide1;
    if (!PyArg_ParseTuple(args, "OnnO", &source, &decide0, &decide1, &target))
        return NULL;
    Py_buffer views[2];
    if (PyObject_GetBuffer(source, &views[0], PyBUF_STRIDES | PyBUF_FORMAT) < 0)
        return NULL;
    Py_buffer *in = &views[0];
    const char *format = in->format ? in->format : "";
    if ((strcmp(format, "f") && strcmp(format, "d")) || in->ndim != 2
            || in->itemsize != (format[0] == 'f' ? 4 : 8)) {
        PyBuffer_Release(in);
        PyErr_SetString(PyExc_TypeError, "unexpected buffer format");
        return NULL;
    }
    if (get_buffer(target, &views[1], format, 1) < 0) {
        PyBuffer_Release(in);
        return NULL;
    }
    const Py_ssize_t size1 = in->shape[0], size0 = in->shape[1], s1 = in->strides[0], s0 = in->strides[1];
    if (views[1].len / views[1].itemsize != size1)
        PyErr_SetString(PyExc_ValueError, "unexpected sizes");
    else if ((size0 > 1 && decide0 != s0) || (size1 > 1 && decide1 != s1))
        PyErr_SetString(PyExc_ValueError, "strides that are not the block's");
    else if (size0 == 0)
        memset(views[1].buf, 0, views[1].len);
    else if (format[0] == 'f')
        chunk_float(in->buf, s0, s1, size0, size1, decide0, decide1, views[1].buf);
    else
        chunk_double(in->buf, s0, s1, size0, size1, decide0, decide1, views[1].buf);
    return finish(views, 2);
}

/* nll_loss_out_frame's loop: for each target in order, -x[b, t] (times weight[t]) into the first of
 * eight running sums, each level carried into the next (and cleared) after a row b that is a
 * multiple of 2**(power * (level + 1)); the levels then added from zero in order. */
#define NLL_LEVELS 8
#define NLL_LOOP(T)                                                                                \
    static Py_ssize_t nll_##T(const char *x, Py_ssize_t row_stride, Py_ssize_t column_stride,     \
                              Py_ssize_t batch, Py_ssize_t classes, const int64_t *targets,        \
                              int64_t ignore_index, const T *weight, T *loss, T *total_weight) {   \
        const Py_ssize_t ceil_log2 = batch <= 2 ? 1 : 64 - __builtin_clzll((unsigned long long)(batch - 1)); \
        const Py_ssize_t power = ceil_log2 / NLL_LEVELS > 4 ? ceil_log2 / NLL_LEVELS : 4;          \
        const int64_t mask = ((int64_t)1 << power) - 1;                                            \
        T losses[NLL_LEVELS] = {0}, weights[NLL_LEVELS] = {0};                                     \
        Py_ssize_t ignored = 0;                                                                    \
        for (Py_ssize_t b = 0; b < batch; b++) {                                                   \
            const int64_t target = targets[b];                                                     \
            if (target == ignore_index) {                                                          \
                ignored++;                                                                         \
                continue;                                                                          \
            }                                                                                      \
            if (target < 0 || target >= classes)                                                   \
                return b; /* the first target out of bounds */                                     \
            const T value = *(const T *)(x + b * row_stride + target * column_stride);            \
            if (weight != NULL) {                                                                  \
                losses[0] = losses[0] - value * weight[target];                                    \
                weights[0] = weights[0] + weight[target];                                          \
            } else {                                                                               \
                losses[0] = losses[0] - value;                                                     \
            }                                                                                      \
            for (int level = 0; level + 1 < NLL_LEVELS; level++) {                                 \
                if ((b & (mask << (level * power))) != 0)                                          \
                    break;                                                                         \
                weights[level + 1] = weights[level + 1] + weights[level];                          \
                losses[level + 1] = losses[level + 1] + losses[level];                             \
                weights[level] = 0;                                                                \
                losses[level] = 0;                                                                 \
            }                                                                                      \
        }                                                                                          \
        T total = 0, weight_total = 0;                                                             \
        for (int level = 0; level < NLL_LEVELS; level++) {                                         \
            total = total + losses[level];                                                         \
            weight_total = weight_total + weights[level];                                          \
        }                                                                                          \
        *loss = total;                                                                             \
        *total_weight = weight != NULL ? weight_total : (T)(batch - ignored);                      \
        return -1;                                                                                 \
    }

NLL_LOOP(float)
NLL_LOOP(double)

/* nll_loss_sum(x, targets, ignore_index, weight): x (batch, classes) float32 or float64, any
 * strides; targets batch int64s; weight None or classes values of x's format. Returns (loss,
 * total weight, None) as Python floats (each exactly the loop's float or double), or (None, None,
 * b) for the first target b out of bounds. */
static PyObject *py_nll_loss_sum(PyObject *self, PyObject *args) {
    PyObject *source, *targets_object, *weight_object;
    long long ignore_index;
    if (!PyArg_ParseTuple(args, "OOLO", &source, &targets_object, &ignore_index, &weight_object))
        return NULL;
    Py_buffer views[3];
    int held = 0;
    PyObject *result = NULL;
    if (PyObject_GetBuffer(source, &views[0], PyBUF_STRIDES | PyBUF_FORMAT) < 0)
        return NULL;
    held = 1;
    const char *format = views[0].format ? views[0].format : "";
    if ((strcmp(format, "f") && strcmp(format, "d")) || views[0].ndim != 2
            || views[0].itemsize != (format[0] == 'f' ? 4 : 8)) {
        PyErr_SetString(PyExc_TypeError, "unexpected buffer format");
        goto done;
    }
    const Py_ssize_t batch = views[0].shape[0], classes = views[0].shape[1];
    if (get_int64s(targets_object, &views[1], batch) < 0)
        goto done;
    held = 2;
    const void *weight = NULL;
    if (weight_object != Py_None) {
        if (get_at_least(weight_object, &views[2], format, classes) < 0)
            goto done;
        held = 3;
        weight = views[2].buf;
    }
    Py_ssize_t bad;
    double loss, total_weight;
    if (format[0] == 'f') {
        float loss32, total32;
        bad = nll_float(views[0].buf, views[0].strides[0], views[0].strides[1], batch, classes, views[1].buf,
                        ignore_index, weight, &loss32, &total32);
        loss = loss32;
        total_weight = total32;
    } else {
        bad = nll_double(views[0].buf, views[0].strides[0], views[0].strides[1], batch, classes, views[1].buf,
                         ignore_index, weight, &loss, &total_weight);
    }
    result = bad >= 0 ? Py_BuildValue("OOn", Py_None, Py_None, bad) : Py_BuildValue("ddO", loss, total_weight, Py_None);
done:
    while (held--)
        PyBuffer_Release(&views[held]);
    return result;
}

PyMethodDef cascade_methods[] = {
    {"nll_loss_sum", py_nll_loss_sum, METH_VARARGS,
     "nll_loss_sum(x, targets, ignore_index, weight): nll_loss's sum and total weight, in its loop's order."},
    {"sum_chunk", py_sum_chunk, METH_VARARGS,
     "sum_chunk(block, decide0, decide1, out): torch.sum's 2-D loop over block's axis 1, in its order."},
    {NULL, NULL, 0, NULL},
};
