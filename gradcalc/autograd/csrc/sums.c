/* Sums in PyTorch's order: at::vec's lane sums, a float32 matrix product's running sums over k
 * (kernels._panel_in_order) and ATen's dot products in lanes (kernels._dot_products). */
#include "native.h"

/* ---------------------------------------------------------------- at::vec's reduce_all (lane_sum) */

#define LANE_SUM(NAME, T)                                                                          \
    void NAME(const T *values, T *out, Py_ssize_t rows, Py_ssize_t size, Py_ssize_t width) { \
        T acc[16];                                                                                 \
        for (Py_ssize_t r = 0; r < rows; r++) {                                                    \
            const T *row = values + r * size;                                                      \
            if (size < width) {                                                                    \
                T total = row[0];                                                                  \
                for (Py_ssize_t i = 1; i < size; i++)                                              \
                    total = total + row[i];                                                        \
                out[r] = total;                                                                    \
                continue;                                                                          \
            }                                                                                      \
            for (Py_ssize_t j = 0; j < width; j++)                                                 \
                acc[j] = row[j];                                                                   \
            Py_ssize_t full = size - size % width;                                                 \
            for (Py_ssize_t start = width; start < full; start += width)                           \
                for (Py_ssize_t j = 0; j < width; j++)                                             \
                    acc[j] = acc[j] + row[start + j];                                              \
            for (Py_ssize_t j = 0; j < size - full; j++)                                           \
                acc[j] = acc[j] + row[full + j];                                                   \
            for (Py_ssize_t half = width / 2; half >= 1; half /= 2)                                \
                for (Py_ssize_t j = 0; j < half; j++)                                              \
                    acc[j] = acc[j] + acc[j + half];                                               \
            out[r] = acc[0];                                                                       \
        }                                                                                          \
    }

LANE_SUM(lane_sum_float32, float)
LANE_SUM(lane_sum_float64, double)

/* lane_sum(values, out, width): each row of the last axis of `values` (C-contiguous, float32 or
 * float64) summed into `out` (one element per row, same format), `width` lanes of at most 16. */
static PyObject *py_lane_sum(PyObject *self, PyObject *args) {
    PyObject *source, *target;
    Py_ssize_t width;
    if (!PyArg_ParseTuple(args, "OOn", &source, &target, &width))
        return NULL;
    if (check_width(width) < 0)
        return NULL;
    Py_buffer in;
    if (PyObject_GetBuffer(source, &in, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0)
        return NULL;
    const char *format = in.format ? in.format : "";
    if ((strcmp(format, "f") && strcmp(format, "d")) || in.ndim < 1) {
        PyBuffer_Release(&in);
        PyErr_SetString(PyExc_TypeError, "unexpected buffer format");
        return NULL;
    }
    Py_buffer views[2] = {in};
    if (get_buffer(target, &views[1], format, 1) < 0) { PyBuffer_Release(&in); return NULL; }
    Py_ssize_t size = in.shape[in.ndim - 1];
    Py_ssize_t rows = size ? in.len / in.itemsize / size : 0;
    if (size == 0 || views[1].len / views[1].itemsize != rows)
        PyErr_SetString(PyExc_ValueError, "unexpected sizes");
    else if (format[0] == 'f')
        lane_sum_float32(in.buf, views[1].buf, rows, size, width);
    else
        lane_sum_float64(in.buf, views[1].buf, rows, size, width);
    return finish(views, 2);
}

/* ---------------------------------------------------------------- running sums of products (matmul) */

/* out (m, n) = a (m, k) @ b (k, n), every element one running sum over k in order from +0: each
 * product added rounded (fused = 0) or fused with the sum (fused = 1), as kernels.matmul orders.
 * a and b are read through their strides (in elements); out is C-contiguous. */
typedef struct {
    const float *a;
    Py_ssize_t a_row, a_column;
    const float *b;
    Py_ssize_t b_row, b_column;
    float *out;
    Py_ssize_t m, k, n;
    int fused;
} Product;

static void products_generic(const Product *t) {
    for (Py_ssize_t i = 0; i < t->m; i++) {
        float *row = t->out + i * t->n;
        for (Py_ssize_t j = 0; j < t->n; j++)
            row[j] = 0.0f;
        for (Py_ssize_t p = 0; p < t->k; p++) {
            const float factor = t->a[i * t->a_row + p * t->a_column];
            const float *other = t->b + p * t->b_row;
            if (t->fused)
                for (Py_ssize_t j = 0; j < t->n; j++)
                    row[j] = fmaf(factor, other[j * t->b_column], row[j]);
            else
                for (Py_ssize_t j = 0; j < t->n; j++)
                    row[j] = row[j] + factor * other[j * t->b_column];
        }
    }
}

#if HAS_FMA_CLONE
/* AVX2 register blocks, as BLAS computes: R rows of out by NB blocks of 16 columns (two
 * registers each) kept in registers while p runs over k in order. A block of b is read where it
 * lies when its 16 columns are contiguous, else from a copy packed 16 to a row (zero-padded
 * past n), so that every register load is one contiguous load. */
#define BLOCK 16

FMA_TARGET static inline __attribute__((always_inline)) __m256 add_product(__m256 sum, __m256 x, __m256 y,
                                                                           int fused) {
    return fused ? _mm256_fmadd_ps(x, y, sum) : _mm256_add_ps(sum, _mm256_mul_ps(x, y));
}

/* out rows i0..i0+R, the NB column blocks whose b rows start at `blocks[c]` (p-th row at
 * blocks[c] + p * strides[c]), written to `targets[c]` (R rows, `out_row` apart). */
FMA_TARGET static inline __attribute__((always_inline)) void register_block(
        const Product *t, Py_ssize_t i0, const int R, const int NB, const float *const *blocks,
        const Py_ssize_t *strides, float *const *targets, Py_ssize_t out_row) {
    __m256 sums[4][8];
    for (int r = 0; r < R; r++)
        for (int c = 0; c < 2 * NB; c++)
            sums[r][c] = _mm256_setzero_ps();
    const float *a = t->a + i0 * t->a_row;
    for (Py_ssize_t p = 0; p < t->k; p++) {
        __m256 columns[8];
        for (int c = 0; c < NB; c++) {
            columns[2 * c] = _mm256_loadu_ps(blocks[c] + p * strides[c]);
            columns[2 * c + 1] = _mm256_loadu_ps(blocks[c] + p * strides[c] + 8);
        }
        for (int r = 0; r < R; r++) {
            __m256 factor = _mm256_set1_ps(a[r * t->a_row + p * t->a_column]);
            for (int c = 0; c < 2 * NB; c++)
                sums[r][c] = add_product(sums[r][c], factor, columns[c], t->fused);
        }
    }
    for (int r = 0; r < R; r++)
        for (int c = 0; c < NB; c++) {
            _mm256_storeu_ps(targets[c] + r * out_row, sums[r][2 * c]);
            _mm256_storeu_ps(targets[c] + r * out_row + 8, sums[r][2 * c + 1]);
        }
}

/* Rows i0..i0+R by the column blocks from `first` on, NB at a time while they are whole, then one
 * at a time (a partial last block through a tile). */
FMA_TARGET static inline __attribute__((always_inline)) void row_blocks(
        const Product *t, Py_ssize_t i0, const int R, const int NB, const float *const *block_of,
        const Py_ssize_t *stride_of, Py_ssize_t count) {
    Py_ssize_t whole = t->n / BLOCK, q = 0;
    for (; q + NB <= whole; q += NB) {
        float *targets[8];
        for (int c = 0; c < NB; c++)
            targets[c] = t->out + i0 * t->n + (q + c) * BLOCK;
        register_block(t, i0, R, NB, block_of + q, stride_of + q, targets, t->n);
    }
    for (; q < count; q++) {
        if (q < whole) {
            float *target = t->out + i0 * t->n + q * BLOCK;
            register_block(t, i0, R, 1, block_of + q, stride_of + q, &target, t->n);
        } else {  /* the last, partial block */
            float tile[4 * BLOCK];
            float *target = tile;
            register_block(t, i0, R, 1, block_of + q, stride_of + q, &target, BLOCK);
            Py_ssize_t width = t->n - q * BLOCK;
            for (int r = 0; r < R; r++)
                memcpy(t->out + (i0 + r) * t->n + q * BLOCK, tile + r * BLOCK, width * sizeof(float));
        }
    }
}

/* 0 when out of memory. */
FMA_TARGET static int products_avx2(const Product *t) {
    if (t->m == 0 || t->n == 0 || t->k == 0) {  /* (nothing to pack; sums of nothing are +0) */
        memset(t->out, 0, t->m * t->n * sizeof(float));
        return 1;
    }
    Py_ssize_t count = (t->n + BLOCK - 1) / BLOCK;
    const float **block_of = malloc(count * sizeof(float *));
    Py_ssize_t *stride_of = malloc(count * sizeof(Py_ssize_t));
    /* blocks read in place: whole ones of contiguous columns; the rest packed */
    Py_ssize_t packed_blocks = t->b_column == 1 ? (t->n % BLOCK != 0) : count;
    float *packed = packed_blocks ? malloc(packed_blocks * t->k * BLOCK * sizeof(float)) : NULL;
    if (!block_of || !stride_of || (packed_blocks && !packed)) {
        free(block_of);
        free(stride_of);
        free(packed);
        return 0;
    }
    for (Py_ssize_t q = 0, next = 0; q < count; q++) {
        Py_ssize_t j0 = q * BLOCK, width = t->n - j0 < BLOCK ? t->n - j0 : BLOCK;
        if (t->b_column == 1 && width == BLOCK) {
            block_of[q] = t->b + j0;
            stride_of[q] = t->b_row;
            continue;
        }
        float *copy = packed + next++ * t->k * BLOCK;
        for (Py_ssize_t l = 0; l < BLOCK; l++) {  /* along b's columns: contiguous in a transposed b */
            if (l < width) {
                const float *column = t->b + (j0 + l) * t->b_column;
                for (Py_ssize_t p = 0; p < t->k; p++)
                    copy[p * BLOCK + l] = column[p * t->b_row];
            } else {
                for (Py_ssize_t p = 0; p < t->k; p++)
                    copy[p * BLOCK + l] = 0.0f;
            }
        }
        block_of[q] = copy;
        stride_of[q] = BLOCK;
    }
    Py_ssize_t i = 0;
    for (; i + 4 <= t->m; i += 4)
        row_blocks(t, i, 4, 1, block_of, stride_of, count);
    switch (t->m - i) {
        case 3: row_blocks(t, i, 3, 1, block_of, stride_of, count); break;
        case 2: row_blocks(t, i, 2, 2, block_of, stride_of, count); break;
        case 1: row_blocks(t, i, 1, 4, block_of, stride_of, count); break;
    }
    free(block_of);
    free(stride_of);
    free(packed);
    return 1;
}
#endif

/* A 2-d float32 buffer and its strides in elements (any sign). */
static int get_matrix(PyObject *object, Py_buffer *view, Py_ssize_t *row, Py_ssize_t *column) {
    if (PyObject_GetBuffer(object, view, PyBUF_STRIDES | PyBUF_FORMAT) < 0)
        return -1;
    if (view->format == NULL || strcmp(view->format, "f") != 0 || view->itemsize != 4 || view->ndim != 2
            || view->strides[0] % 4 || view->strides[1] % 4) {
        PyBuffer_Release(view);
        PyErr_SetString(PyExc_TypeError, "unexpected buffer format");
        return -1;
    }
    *row = view->strides[0] / 4;
    *column = view->strides[1] / 4;
    return 0;
}

static PyObject *py_products(PyObject *self, PyObject *args) {
    PyObject *left, *right, *target;
    int fused;
    if (!PyArg_ParseTuple(args, "OOOp", &left, &right, &target, &fused))
        return NULL;
    Py_buffer views[3];
    Product t;
    if (get_matrix(left, &views[0], &t.a_row, &t.a_column) < 0)
        return NULL;
    if (get_matrix(right, &views[1], &t.b_row, &t.b_column) < 0) { PyBuffer_Release(&views[0]); return NULL; }
    if (get_buffer(target, &views[2], "f", 1) < 0) {
        PyBuffer_Release(&views[0]);
        PyBuffer_Release(&views[1]);
        return NULL;
    }
    Py_buffer *a = &views[0], *b = &views[1], *out = &views[2];
    if (out->ndim != 2 || a->shape[1] != b->shape[0] || out->shape[0] != a->shape[0]
            || out->shape[1] != b->shape[1]) {
        PyErr_SetString(PyExc_ValueError, "unexpected shapes");
    } else {
        t.a = a->buf;
        t.b = b->buf;
        t.out = out->buf;
        t.m = a->shape[0];
        t.k = a->shape[1];
        t.n = b->shape[1];
        t.fused = fused;
#if HAS_FMA_CLONE
        if (fma_clone_runs()) {
            if (!products_avx2(&t))
                PyErr_NoMemory();
        } else
#endif
            products_generic(&t);
    }
    return finish(views, 3);
}

/* ---------------------------------------------------------------- dot products in lanes (kernels._dot_products) */

/* out[i, j] = a[i] . rows[j] as ATen's dot kernel adds: `lanes` products at a time (each rounded)
 * into one running sum per lane from +0, the lanes added as a tree of halves, then the products
 * past the last whole register one by one. a (m, k) and rows (n, k) C-contiguous. */
static inline __attribute__((always_inline)) void dot_products_in(const float *a, const float *rows, float *out,
                                                                  Py_ssize_t m, Py_ssize_t k, Py_ssize_t n,
                                                                  const int lanes) {
    Py_ssize_t full = k - k % lanes;
    for (Py_ssize_t i = 0; i < m; i++)
        for (Py_ssize_t j = 0; j < n; j++) {
            const float *x = a + i * k, *y = rows + j * k;
            float sums[16];
            for (int l = 0; l < lanes; l++)
                sums[l] = 0.0f;
            for (Py_ssize_t p = 0; p < full; p += lanes)
                for (int l = 0; l < lanes; l++)
                    sums[l] = sums[l] + x[p + l] * y[p + l];
            for (int half = lanes / 2; half >= 1; half /= 2)
                for (int l = 0; l < half; l++)
                    sums[l] = sums[l] + sums[l + half];
            float total = sums[0];
            for (Py_ssize_t p = full; p < k; p++)
                total = total + x[p] * y[p];
            out[i * n + j] = total;
        }
}

/* (the lanes a constant in each case, so that a register holds them) */
#define DOT_PRODUCTS(NAME, ATTRIBUTE)                                                              \
    ATTRIBUTE static void NAME(const float *a, const float *rows, float *out, Py_ssize_t m,        \
                               Py_ssize_t k, Py_ssize_t n, int lanes) {                            \
        switch (lanes) {                                                                           \
            case 4: dot_products_in(a, rows, out, m, k, n, 4); break;                              \
            case 8: dot_products_in(a, rows, out, m, k, n, 8); break;                              \
            case 16: dot_products_in(a, rows, out, m, k, n, 16); break;                            \
            default: dot_products_in(a, rows, out, m, k, n, lanes);                                \
        }                                                                                          \
    }

DOT_PRODUCTS(dot_products_generic, )
#if HAS_FMA_CLONE
DOT_PRODUCTS(dot_products_avx2, FMA_TARGET)
#endif

static void dot_products(const float *a, const float *rows, float *out, Py_ssize_t m, Py_ssize_t k, Py_ssize_t n,
                         int lanes) {
    CALL_CLONED(dot_products_avx2, dot_products_generic, a, rows, out, m, k, n, lanes);
}

static PyObject *py_dot_products(PyObject *self, PyObject *args) {
    PyObject *left, *right, *target;
    int lanes;
    if (!PyArg_ParseTuple(args, "OOOi", &left, &right, &target, &lanes))
        return NULL;
    if (lanes < 1 || lanes > 16 || (lanes & (lanes - 1))) {
        PyErr_SetString(PyExc_ValueError, "lanes must be a power of two up to 16");
        return NULL;
    }
    PyObject *objects[3] = {left, right, target};
    Py_buffer views[3];
    if (get_float32_buffers(objects, views, 3) < 0)
        return NULL;
    Py_buffer *a = &views[0], *b = &views[1], *out = &views[2];
    if (a->ndim != 2 || b->ndim != 2 || out->ndim != 2 || a->shape[1] != b->shape[1] || out->shape[0] != a->shape[0]
            || out->shape[1] != b->shape[0])
        PyErr_SetString(PyExc_ValueError, "unexpected shapes");
    else
        dot_products(a->buf, b->buf, out->buf, a->shape[0], a->shape[1], b->shape[0], lanes);
    return finish(views, 3);
}

PyMethodDef sums_methods[] = {
    {"lane_sum", py_lane_sum, METH_VARARGS, "lane_sum(values, out, width): at::vec's reduce_all of each row."},
    {"products", py_products, METH_VARARGS,
     "products(a, b, out, fused): out = a @ b (float32), each element a running sum over k in order."},
    {"dot_products", py_dot_products, METH_VARARGS,
     "dot_products(a, rows, out, lanes): out[i, j] = a[i] . rows[j] in `lanes` running sums, then a tree."},
    {NULL, NULL, 0, NULL},
};
