/* torch.sum's 2-D loop (aten/src/ATen/native/cpu/SumKernel.cpp) in its order of additions:
 * kernels._chunk's arithmetic, which the numpy emulation there spells out and tests/test_native.py
 * compares with this. Every lane of a SIMD register is an accumulator of its own, so adding lane by
 * lane in C gives the register's bits. */
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

PyMethodDef cascade_methods[] = {
    {"sum_chunk", py_sum_chunk, METH_VARARGS,
     "sum_chunk(block, decide0, decide1, out): torch.sum's 2-D loop over block's axis 1, in its order."},
    {NULL, NULL, 0, NULL},
};
