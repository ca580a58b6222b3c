/* The few kernels whose numpy emulation costs most of a small training step: SLEEF's float32 exp
 * and log, at::vec's lane sums, a matrix product's running sums in order and ATen's dot products
 * in lanes, float32 FMAs (the random module's uniform draws) and Welford's variance updates. Each
 * is the same arithmetic as its numpy version (simd.py, kernels.py, random.py, ops/statistics.py),
 * operation for operation: IEEE arithmetic in float and double gives the same bits in C as in
 * numpy, built with -ffp-contract=off so that nothing is fused unless written as fmaf. Either gives
 * the same answers; tests/test_native.py compares them.
 *
 * Security: these run on a program's values inside the jailed worker. Every size and stride comes
 * from the buffers themselves (never from a caller's count), every buffer is checked for its
 * format, layout and writability, and the loops only index within those sizes.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define FMA_TARGET __attribute__((target("avx2,fma")))
#define HAS_FMA_CLONE 1
#else
#define FMA_TARGET
#define HAS_FMA_CLONE 0
#endif

static float bits_to_float(uint32_t bits) { float f; memcpy(&f, &bits, 4); return f; }
static uint32_t float_to_bits(float f) { uint32_t bits; memcpy(&bits, &f, 4); return bits; }

/* A buffer of `format` ("f" or "d"), C-contiguous; writable when asked. */
static int get_buffer(PyObject *object, Py_buffer *view, const char *format, int writable) {
    int flags = PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | (writable ? PyBUF_WRITABLE : 0);
    if (PyObject_GetBuffer(object, view, flags) < 0)
        return -1;
    if (view->format == NULL || strcmp(view->format, format) != 0
            || view->itemsize != (format[0] == 'f' ? 4 : 8)) {
        PyBuffer_Release(view);
        PyErr_SetString(PyExc_TypeError, "unexpected buffer format");
        return -1;
    }
    return 0;
}

/* An input and an output buffer of one format (the output writable); -1, nothing held, on error. */
static int get_in_out(PyObject *source, PyObject *target, const char *format, Py_buffer *in, Py_buffer *out) {
    if (get_buffer(source, in, format, 0) < 0)
        return -1;
    if (get_buffer(target, out, format, 1) < 0) {
        PyBuffer_Release(in);
        return -1;
    }
    return 0;
}

/* `count` float32 buffers, the last one writable (the output); -1, nothing held, on error. */
static int get_float32_buffers(PyObject *const *objects, Py_buffer *views, int count) {
    for (int got = 0; got < count; got++)
        if (get_buffer(objects[got], &views[got], "f", got == count - 1) < 0) {
            while (got--)
                PyBuffer_Release(&views[got]);
            return -1;
        }
    return 0;
}

/* Releases `count` buffers; then None, or NULL with the error set. */
static PyObject *finish(Py_buffer *views, int count) {
    for (int i = 0; i < count; i++)
        PyBuffer_Release(&views[i]);
    if (PyErr_Occurred())
        return NULL;
    Py_RETURN_NONE;
}

/* ---------------------------------------------------------------- SLEEF's expf_u10 (vector_exp) */

static const float EXP_LOG2_E = 1.442695040888963407359924681f;
static const float EXP_LN2_HIGH = -0.693145751953125f;
static const float EXP_LN2_LOW = -1.428606765330187045e-06f;
static const float EXP_POLY[6] = {0.000198527617612853646278381f, 0.00139304355252534151077271f,
                                  0.00833336077630519866943359f, 0.0416664853692054748535156f,
                                  0.166666671633720397949219f, 0.5f};

/* Without branches (selects, about a third faster here): the formula on x clamped to where it
 * applies, then 0, inf or nan chosen past it. 2**q is taken as SLEEF takes it, two exact powers of two
 * (q has 8 bits there), which round once: numpy's ldexp. */
#define EXP_FLOAT32(NAME, ATTRIBUTE)                                                               \
    ATTRIBUTE static void NAME(const float *in, float *out, Py_ssize_t count) {                    \
        for (Py_ssize_t i = 0; i < count; i++) {                                                   \
            float x = in[i];                                                                       \
            float clamped = fminf(fmaxf(x, -104.0f), 100.0f); /* (-104 for nan) */                \
            float rounded = __builtin_rintf(clamped * EXP_LOG2_E);                                 \
            int32_t q = (int32_t)rounded;                                                          \
            double s = (double)(rounded * EXP_LN2_HIGH + clamped);                                 \
            s += (double)rounded * (double)EXP_LN2_LOW;                                            \
            float narrow = (float)s;                                                               \
            s = narrow;                                                                            \
            float square = narrow * narrow;                                                        \
            double u = s * (double)EXP_POLY[0];                                                    \
            u += (double)EXP_POLY[1];                                                              \
            u = (float)u;                                                                          \
            u = (float)(u * s + (double)EXP_POLY[2]);                                              \
            u = (float)(u * s + (double)EXP_POLY[3]);                                              \
            u = (float)(u * s + (double)EXP_POLY[4]);                                              \
            u = (float)(u * s + (double)EXP_POLY[5]);                                              \
            u *= (double)square;                                                                   \
            u += s;                                                                                \
            narrow = (float)u;                                                                     \
            narrow += 1.0f;                                                                        \
            int32_t half = q >> 1;                                                                 \
            narrow = narrow * bits_to_float((uint32_t)(half + 0x7F) << 23)                         \
                     * bits_to_float((uint32_t)(q - half + 0x7F) << 23);                           \
            narrow = x < -104.0f ? 0.0f : narrow;                                                  \
            narrow = x > 100.0f ? INFINITY : narrow;                                               \
            out[i] = x != x ? x : narrow;                                                          \
        }                                                                                          \
    }

EXP_FLOAT32(exp_generic, )
#if HAS_FMA_CLONE
EXP_FLOAT32(exp_avx2, FMA_TARGET)
#endif

static void exp_float32(const float *in, float *out, Py_ssize_t count) {
#if HAS_FMA_CLONE
    if (__builtin_cpu_supports("avx2")) {
        exp_avx2(in, out, count);
        return;
    }
#endif
    exp_generic(in, out, count);
}

/* out = function(x) for an input and an output buffer of one format and size. */
static PyObject *elementwise(PyObject *args, const char *format,
                             void (*function)(const void *, void *, Py_ssize_t)) {
    PyObject *source, *target;
    if (!PyArg_ParseTuple(args, "OO", &source, &target))
        return NULL;
    Py_buffer views[2];
    if (get_in_out(source, target, format, &views[0], &views[1]) < 0)
        return NULL;
    if (views[0].len != views[1].len)
        PyErr_SetString(PyExc_ValueError, "buffers of different sizes");
    else
        function(views[0].buf, views[1].buf, views[0].len / views[0].itemsize);
    return finish(views, 2);
}

static void exp_float32_any(const void *in, void *out, Py_ssize_t count) { exp_float32(in, out, count); }

static PyObject *py_exp_float32(PyObject *self, PyObject *args) { return elementwise(args, "f", exp_float32_any); }

/* ---------------------------------------------------------------- SLEEF's exp_u10 for double */

/* SLEEF's xexp as its builds with fused multiply-adds compute it (ATen's Vectorized<double>::exp
 * with AVX2 or AVX-512): the polynomial by Estrin's scheme, every multiply-add an fma. */
static const double EXPD_POLY[10] = {0.1666666666666669072e+0, 0.4166666666666602598e-1, 0.8333333333314938210e-2,
                                     0.1388888888914497797e-2, 0.1984126989855865850e-3, 0.2480158687479686264e-4,
                                     0.2755723402025388239e-5, 0.2755762628169491192e-6, 0.2511210703042288022e-7,
                                     0.2081276378237164457e-8};

static double double_from_bits(uint64_t bits) { double d; memcpy(&d, &bits, 8); return d; }

#define EXP_FLOAT64(NAME, ATTRIBUTE)                                                               \
    ATTRIBUTE static void NAME(const double *in, double *out, Py_ssize_t count) {                  \
        const double *c = EXPD_POLY;                                                               \
        for (Py_ssize_t i = 0; i < count; i++) {                                                   \
            double d = in[i];                                                                      \
            double clamped = fmin(fmax(d, -1000.0), 710.0); /* (-1000 for nan) */                  \
            double u = rint(clamped * 1.442695040888963407359924681001892137426645954152985934135449406931); \
            int32_t q = (int32_t)u;                                                                \
            double s = fma(u, -.69314718055966295651160180568695068359375, clamped);               \
            s = fma(u, -.28235290563031577122588448175013436025525412068e-12, s);                  \
            double s2 = s * s, s4 = s2 * s2, s8 = s4 * s4;                                         \
            double low = fma(s4, fma(s2, fma(s, c[7], c[6]), fma(s, c[5], c[4])),                 \
                             fma(s2, fma(s, c[3], c[2]), fma(s, c[1], c[0])));                     \
            u = fma(s8, fma(s, c[9], c[8]), low);                                                  \
            u = fma(u, s, 0.5);                                                                    \
            u = fma(u, s, 1.0);                                                                    \
            u = fma(u, s, 1.0);                                                                    \
            int32_t half = q >> 1;                                                                 \
            u = u * double_from_bits((uint64_t)(half + 0x3FF) << 52)                               \
                  * double_from_bits((uint64_t)(q - half + 0x3FF) << 52);                          \
            u = d > 709.78271114955742909217217426 ? INFINITY : u;                                 \
            u = d < -1000.0 ? 0.0 : u;                                                             \
            out[i] = d != d ? d : u;                                                               \
        }                                                                                          \
    }

EXP_FLOAT64(exp64_generic, )
#if HAS_FMA_CLONE
EXP_FLOAT64(exp64_fma, FMA_TARGET)
#endif

static void exp_float64(const void *in, void *out, Py_ssize_t count) {
#if HAS_FMA_CLONE
    if (__builtin_cpu_supports("fma")) {
        exp64_fma(in, out, count);
        return;
    }
#endif
    exp64_generic(in, out, count);
}

static PyObject *py_exp_float64(PyObject *self, PyObject *args) { return elementwise(args, "d", exp_float64); }

/* ---------------------------------------------------------------- SLEEF's logf_u10 (vector_log) */

static const double LN2_HIGH = (double)0.69314718246459960938f;
static const double LN2_LOW = (double)-1.904654323148236017e-09f;
static const double LOG_POLY[3] = {(double)0.3027294874f, (double)0.3996108174f, (double)0.6666694880f};

/* Normal, finite, positive inputs only (the caller checks): e and m as SLEEF's AVX2 build
 * (avx512 = 0) or AVX-512 build takes them, then its double-float steps. */
static void log_float32(const float *in, float *out, Py_ssize_t count, int avx512) {
    for (Py_ssize_t i = 0; i < count; i++) {
        float d = in[i];
        int32_t exponent = (int32_t)((float_to_bits(d * (float)(1.0 / 0.75)) >> 23) & 0xFF) - 0x7F;
        float m;
        if (avx512) {
            uint32_t fraction = float_to_bits(d) & 0x7FFFFF;
            m = bits_to_float(fraction | (0x3F800000u - ((fraction >> 22) << 23)));
        } else {
            m = bits_to_float((uint32_t)((int32_t)float_to_bits(d) - (exponent << 23)));
        }
        float e = (float)exponent;
        double wide_e = e;
        float high = e * (float)LN2_HIGH;
        float low = (float)((LN2_HIGH * wide_e - (double)high) + LN2_LOW * wide_e);
        double wide_m = m;
        float denominator = m + 1.0f;
        double wide_denominator = denominator;
        float reciprocal = 1.0f / denominator;
        float q = (m - 1.0f) * reciprocal;
        double wide_reciprocal = reciprocal, wide_q = q;
        double quotient_error = wide_reciprocal * (wide_m - 1.0) - wide_q;
        float residual = (float)((1.0 - wide_denominator * wide_reciprocal)
                                 - ((wide_m + 1.0) - wide_denominator) * wide_reciprocal);
        float q_low = (float)(wide_q * (double)residual + quotient_error);
        float q2 = q * q;
        double wide_q2 = q2;
        float t = (float)(LOG_POLY[0] * wide_q2 + LOG_POLY[1]);
        t = (float)((double)t * wide_q2 + LOG_POLY[2]);
        float twice = q + q;
        float total = high + twice;
        low = (((high - total) + twice) + low) + (q_low + q_low);
        float tail = q2 * q * t;
        float summed = total + tail;
        out[i] = summed + (((total - summed) + tail) + low);
    }
}

static PyObject *py_log_float32(PyObject *self, PyObject *args) {
    PyObject *source, *target;
    int avx512;
    if (!PyArg_ParseTuple(args, "OOp", &source, &target, &avx512))
        return NULL;
    Py_buffer views[2];
    if (get_in_out(source, target, "f", &views[0], &views[1]) < 0)
        return NULL;
    int normal = 1;
    if (views[0].len != views[1].len) {
        PyErr_SetString(PyExc_ValueError, "buffers of different sizes");
    } else {
        const float *values = views[0].buf;
        Py_ssize_t count = views[0].len / 4;
        for (Py_ssize_t i = 0; i < count && normal; i++)
            normal = values[i] >= 1.17549435e-38f && values[i] < INFINITY;  /* (false for nan) */
        if (normal)
            log_float32(values, views[1].buf, count, avx512);
    }
    PyObject *done = finish(views, 2);
    if (done == NULL)
        return NULL;
    Py_DECREF(done);
    return PyBool_FromLong(normal);
}

/* ---------------------------------------------------------------- at::vec's reduce_all (lane_sum) */

#define LANE_SUM(NAME, T)                                                                          \
    static void NAME(const T *values, T *out, Py_ssize_t rows, Py_ssize_t size, Py_ssize_t width) { \
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
    if (width < 1 || width > 16 || (width & (width - 1))) {
        PyErr_SetString(PyExc_ValueError, "width must be a power of two up to 16");
        return NULL;
    }
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
        if (__builtin_cpu_supports("fma") && __builtin_cpu_supports("avx2")) {
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
#if HAS_FMA_CLONE
    if (__builtin_cpu_supports("avx2")) {
        dot_products_avx2(a, rows, out, m, k, n, lanes);
        return;
    }
#endif
    dot_products_generic(a, rows, out, m, k, n, lanes);
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

/* ---------------------------------------------------------------- float32 fma (random._fma32) */

#define FMA_FLOAT32(NAME, ATTRIBUTE)                                                               \
    ATTRIBUTE static void NAME(const float *a, const float *b, const float *c, float *out,         \
                               Py_ssize_t count, const Py_ssize_t *steps) {                        \
        for (Py_ssize_t i = 0; i < count; i++)                                                     \
            out[i] = fmaf(a[i * steps[0]], b[i * steps[1]], c[i * steps[2]]);                      \
    }

FMA_FLOAT32(fma_generic, )
#if HAS_FMA_CLONE
FMA_FLOAT32(fma_avx2, FMA_TARGET)
#endif

static void fma_float32(const float *a, const float *b, const float *c, float *out, Py_ssize_t count,
                        const Py_ssize_t *steps) {
#if HAS_FMA_CLONE
    if (__builtin_cpu_supports("fma")) {
        fma_avx2(a, b, c, out, count, steps);
        return;
    }
#endif
    fma_generic(a, b, c, out, count, steps);
}

/* out = fma(a, b, c) element by element; each of a, b, c has out's elements or one. */
static PyObject *py_fma_float32(PyObject *self, PyObject *args) {
    PyObject *objects[4];
    if (!PyArg_ParseTuple(args, "OOOO", &objects[0], &objects[1], &objects[2], &objects[3]))
        return NULL;
    Py_buffer views[4];
    if (get_float32_buffers(objects, views, 4) < 0)
        return NULL;
    Py_ssize_t count = views[3].len / 4;
    Py_ssize_t steps[3];
    for (int i = 0; i < 3; i++) {
        Py_ssize_t size = views[i].len / 4;
        steps[i] = size == count ? 1 : 0;
        if (size != count && size != 1)
            PyErr_SetString(PyExc_ValueError, "unexpected sizes");
    }
    if (!PyErr_Occurred())
        fma_float32(views[0].buf, views[1].buf, views[2].buf, views[3].buf, count, steps);
    return finish(views, 4);
}

/* ---------------------------------------------------------------- Welford's squares (statistics._spread) */

/* out[r] = the sum of squared deviations of row r of `rows` (float64, C-contiguous) by Welford's
 * updates, in the double arithmetic of statistics._welford_squares. */
static PyObject *py_welford_squares(PyObject *self, PyObject *args) {
    PyObject *source, *target;
    if (!PyArg_ParseTuple(args, "OO", &source, &target))
        return NULL;
    Py_buffer views[2];
    if (get_in_out(source, target, "d", &views[0], &views[1]) < 0)
        return NULL;
    Py_ssize_t size = views[0].ndim ? views[0].shape[views[0].ndim - 1] : 1;
    Py_ssize_t rows = size ? views[0].len / 8 / size : 0;
    if (views[0].ndim < 1 || size == 0 || views[1].len / 8 != rows) {
        PyErr_SetString(PyExc_ValueError, "unexpected sizes");
    } else {
        const double *values = views[0].buf;
        double *totals = views[1].buf;
        for (Py_ssize_t r = 0; r < rows; r++) {
            double running = 0.0, total = 0.0;
            for (Py_ssize_t k = 0; k < size; k++) {
                double value = values[r * size + k];
                double delta = value - running;
                running = running + delta / (double)(k + 1);
                total = total + delta * (value - running);
            }
            totals[r] = total;
        }
    }
    return finish(views, 2);
}

/* ---------------------------------------------------------------- an array's address (mkl.py) */

/* The address of an array's first element, as __array_interface__["data"][0] gives it, without
 * the dictionary that builds (about a microsecond, several times per MKL call). */
static PyObject *py_address(PyObject *self, PyObject *object) {
    Py_buffer view;
    if (PyObject_GetBuffer(object, &view, PyBUF_STRIDES) < 0)
        return NULL;
    void *start = view.buf;
    PyBuffer_Release(&view);
    return PyLong_FromVoidPtr(start);
}

static PyMethodDef methods[] = {
    {"exp_float32", py_exp_float32, METH_VARARGS, "exp_float32(x, out): SLEEF's expf_u10 of float32 x into out."},
    {"log_float32", py_log_float32, METH_VARARGS,
     "log_float32(x, out, avx512) -> bool: SLEEF's logf_u10 of float32 x into out; False (out untouched) "
     "unless every x is a positive, finite, normal float."},
    {"lane_sum", py_lane_sum, METH_VARARGS, "lane_sum(values, out, width): at::vec's reduce_all of each row."},
    {"products", py_products, METH_VARARGS,
     "products(a, b, out, fused): out = a @ b (float32), each element a running sum over k in order."},
    {"dot_products", py_dot_products, METH_VARARGS,
     "dot_products(a, rows, out, lanes): out[i, j] = a[i] . rows[j] in `lanes` running sums, then a tree."},
    {"fma_float32", py_fma_float32, METH_VARARGS,
     "fma_float32(a, b, c, out): out = fmaf(a, b, c), a, b or c one element or out's."},
    {"welford_squares", py_welford_squares, METH_VARARGS,
     "welford_squares(rows, out): each float64 row's sum of squared deviations by Welford's updates."},
    {"exp_float64", py_exp_float64, METH_VARARGS,
     "exp_float64(x, out): SLEEF's exp_u10 (with FMA) of float64 x into out."},
    {"address", py_address, METH_O, "address(array) -> int: the address of its first element."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_native", NULL, -1, methods, NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__native(void) { return PyModule_Create(&module); }
