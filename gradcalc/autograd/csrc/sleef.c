/* SLEEF's float32 exp and log (u10) and its float64 exp with FMAs, as ATen's vectorized kernels
 * compute them: simd.vector_exp, simd.vector_log and simd.vector_exp64's arithmetic; and float64
 * sigmoid, its SIMD loop on SLEEF's exp and its scalar loop on the C library's (simd.sigmoid64);
 * float32 log_softmax along the last axis and its gradient, of those and at::vec's lane sums. */
#include "native.h"

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
/* The same, eight at a time with FMA instructions (the generic loop's double steps round as
 * these fused ones do). */
FMA_TARGET static inline __m256 exp_register(__m256 x) {
    const __m256 low = _mm256_set1_ps(-104.0f), high = _mm256_set1_ps(100.0f);
    __m256 clamped = _mm256_min_ps(_mm256_max_ps(x, low), high); /* (-104 for nan) */
    __m256 rounded = _mm256_round_ps(_mm256_mul_ps(clamped, _mm256_set1_ps(EXP_LOG2_E)),
                                     _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    __m256i q = _mm256_cvtps_epi32(rounded);
    __m256 s = _mm256_fmadd_ps(rounded, _mm256_set1_ps(EXP_LN2_HIGH), clamped);
    s = _mm256_fmadd_ps(rounded, _mm256_set1_ps(EXP_LN2_LOW), s);
    __m256 u = _mm256_fmadd_ps(_mm256_set1_ps(EXP_POLY[0]), s, _mm256_set1_ps(EXP_POLY[1]));
    for (int k = 2; k < 6; k++)
        u = _mm256_fmadd_ps(u, s, _mm256_set1_ps(EXP_POLY[k]));
    u = _mm256_add_ps(_mm256_fmadd_ps(_mm256_mul_ps(s, s), u, s), _mm256_set1_ps(1.0f));
    __m256i half = _mm256_srai_epi32(q, 1), bias = _mm256_set1_epi32(0x7F);
    u = _mm256_mul_ps(u, _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(half, bias), 23)));
    u = _mm256_mul_ps(u, _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(_mm256_sub_epi32(q, half), bias), 23)));
    u = _mm256_andnot_ps(_mm256_cmp_ps(x, low, _CMP_LT_OQ), u);
    u = _mm256_blendv_ps(u, _mm256_set1_ps(INFINITY), _mm256_cmp_ps(x, high, _CMP_GT_OQ));
    return _mm256_blendv_ps(u, x, _mm256_cmp_ps(x, x, _CMP_UNORD_Q));
}

/* REGISTER (a function of one register of LANES values of T) over a buffer: whole registers, then
 * the tail through one padded register. */
#define OVER_REGISTERS(NAME, T, LANES, REGISTER, LOAD, STORE)                                     \
    FMA_TARGET static void NAME(const T *in, T *out, Py_ssize_t count) {                           \
        Py_ssize_t i = 0;                                                                          \
        for (; i + LANES <= count; i += LANES)                                                     \
            STORE(out + i, REGISTER(LOAD(in + i)));                                                \
        if (i < count) {                                                                           \
            T tail[LANES] = {0};                                                                   \
            memcpy(tail, in + i, (count - i) * sizeof(T));                                         \
            STORE(tail, REGISTER(LOAD(tail)));                                                     \
            memcpy(out + i, tail, (count - i) * sizeof(T));                                        \
        }                                                                                          \
    }

OVER_REGISTERS(exp_avx2, float, 8, exp_register, _mm256_loadu_ps, _mm256_storeu_ps)
#endif

static void exp_float32(const float *in, float *out, Py_ssize_t count) {
    CALL_CLONED(exp_avx2, exp_generic, in, out, count);
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
/* The same, four at a time. */
FMA_TARGET static inline __m256d exp64_register(__m256d d) {
    const double *c = EXPD_POLY;
    const __m256d lowest = _mm256_set1_pd(-1000.0);
    __m256d clamped = _mm256_min_pd(_mm256_max_pd(d, lowest), _mm256_set1_pd(710.0)); /* (-1000 for nan) */
    __m256d u = _mm256_round_pd(_mm256_mul_pd(clamped, _mm256_set1_pd(1.442695040888963407359924681001892137426645954152985934135449406931)),
                                _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    __m128i q = _mm256_cvtpd_epi32(u);
    __m256d s = _mm256_fmadd_pd(u, _mm256_set1_pd(-.69314718055966295651160180568695068359375), clamped);
    s = _mm256_fmadd_pd(u, _mm256_set1_pd(-.28235290563031577122588448175013436025525412068e-12), s);
#define C(k) _mm256_set1_pd(c[k])
    __m256d s2 = _mm256_mul_pd(s, s), s4 = _mm256_mul_pd(s2, s2), s8 = _mm256_mul_pd(s4, s4);
    __m256d low = _mm256_fmadd_pd(s4, _mm256_fmadd_pd(s2, _mm256_fmadd_pd(s, C(7), C(6)), _mm256_fmadd_pd(s, C(5), C(4))),
                                  _mm256_fmadd_pd(s2, _mm256_fmadd_pd(s, C(3), C(2)), _mm256_fmadd_pd(s, C(1), C(0))));
    u = _mm256_fmadd_pd(s8, _mm256_fmadd_pd(s, C(9), C(8)), low);
#undef C
    u = _mm256_fmadd_pd(u, s, _mm256_set1_pd(0.5));
    u = _mm256_fmadd_pd(u, s, _mm256_set1_pd(1.0));
    u = _mm256_fmadd_pd(u, s, _mm256_set1_pd(1.0));
    __m128i half = _mm_srai_epi32(q, 1);
    const __m256i bias = _mm256_set1_epi64x(0x3FF);
    __m256i first = _mm256_slli_epi64(_mm256_add_epi64(_mm256_cvtepi32_epi64(half), bias), 52);
    __m256i second = _mm256_slli_epi64(_mm256_add_epi64(_mm256_cvtepi32_epi64(_mm_sub_epi32(q, half)), bias), 52);
    u = _mm256_mul_pd(_mm256_mul_pd(u, _mm256_castsi256_pd(first)), _mm256_castsi256_pd(second));
    u = _mm256_blendv_pd(u, _mm256_set1_pd(INFINITY), _mm256_cmp_pd(d, _mm256_set1_pd(709.78271114955742909217217426), _CMP_GT_OQ));
    u = _mm256_andnot_pd(_mm256_cmp_pd(d, lowest, _CMP_LT_OQ), u);
    return _mm256_blendv_pd(u, d, _mm256_cmp_pd(d, d, _CMP_UNORD_Q));
}

OVER_REGISTERS(exp64_fma, double, 4, exp64_register, _mm256_loadu_pd, _mm256_storeu_pd)
#endif

static void exp_float64(const void *in, void *out, Py_ssize_t count) {
    CALL_CLONED(exp64_fma, exp64_generic, in, out, count);
}

static PyObject *py_exp_float64(PyObject *self, PyObject *args) { return elementwise(args, "d", exp_float64); }

/* sigmoid_float64(x, out, row, lanes): ATen's float64 sigmoid, 1 / (1 + exp(-x)), over rows of ROW
 * elements (its inner loop's run): whole pairs of LANES-wide registers take SLEEF's exp, the rest of
 * each row the C library's (simd.sigmoid64's arithmetic, in one pass). */
static PyObject *py_sigmoid_float64(PyObject *self, PyObject *args) {
    PyObject *source, *target;
    Py_ssize_t row, lanes;
    if (!PyArg_ParseTuple(args, "OOnn", &source, &target, &row, &lanes))
        return NULL;
    Py_buffer views[2];
    if (get_in_out(source, target, "d", &views[0], &views[1]) < 0)
        return NULL;
    const Py_ssize_t size = views[0].len / 8;
    if (views[0].len != views[1].len || row <= 0 || size % row != 0 || lanes <= 0 || lanes > 64) {
        PyErr_SetString(PyExc_ValueError, "unexpected sizes");
        return finish(views, 2);
    }
    const double *x = views[0].buf;
    double *out = views[1].buf;
    const Py_ssize_t vector = row - row % (2 * lanes);
    for (Py_ssize_t start = 0; start < size; start += row) {
        for (Py_ssize_t i = start; i < start + vector; i++)
            out[i] = -x[i];
        exp_float64(out + start, out + start, vector);
        for (Py_ssize_t i = start; i < start + vector; i++)
            out[i] = 1.0 / (1.0 + out[i]);
        for (Py_ssize_t i = start + vector; i < start + row; i++)
            out[i] = 1.0 / (1.0 + exp(-x[i]));
    }
    return finish(views, 2);
}

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

/* ---------------------------------------------------------------- log_softmax along the last axis */

/* A row's maximum, and whether it holds a nan (*unordered). Where neither, the maximum does not
 * depend on the order of the comparisons: its sign of zero alone might, and a zero maximum is not
 * taken (see py_log_softmax_float32). */
static float row_peak_generic(const float *x, Py_ssize_t size, int *unordered) {
    float peak = -INFINITY;
    int nan = 0;
    for (Py_ssize_t i = 0; i < size; i++) {
        nan |= x[i] != x[i];
        peak = x[i] > peak ? x[i] : peak;
    }
    *unordered = nan;
    return peak;
}

#if HAS_FMA_CLONE
FMA_TARGET static float row_peak_avx2(const float *x, Py_ssize_t size, int *unordered) {
    __m256 peaks = _mm256_set1_ps(-INFINITY), nans = _mm256_setzero_ps();
    Py_ssize_t i = 0;
    for (; i + 8 <= size; i += 8) {
        __m256 v = _mm256_loadu_ps(x + i);
        nans = _mm256_or_ps(nans, _mm256_cmp_ps(v, v, _CMP_UNORD_Q));
        peaks = _mm256_max_ps(peaks, v);
    }
    float lanes[8];
    _mm256_storeu_ps(lanes, peaks);
    int nan;
    float peak = row_peak_generic(lanes, 8, &nan);
    float rest = row_peak_generic(x + i, size - i, &nan);
    *unordered = nan || _mm256_movemask_ps(nans) != 0;
    return rest > peak ? rest : peak;
}

static float row_peak(const float *x, Py_ssize_t size, int *unordered) {
    return fma_clone_runs() ? row_peak_avx2(x, size, unordered) : row_peak_generic(x, size, unordered);
}
#else
#define row_peak row_peak_generic
#endif

/* log_softmax_float32(x, out, width, avx512) -> bool: ATen's float32 log_softmax along the last
 * axis of x (C-contiguous) into out, as activation._softmax_kernel computes it: each row less its
 * maximum, SLEEF's exp of that, at::vec's lane sum of WIDTH lanes, SLEEF's logf of the sum (its
 * AVX-512 build's or AVX2's), subtracted. False, with out's values unspecified, where a row's
 * maximum is zero, infinite or nan (the emulation then computes: which zero is the maximum decides
 * a sign). */
static PyObject *py_log_softmax_float32(PyObject *self, PyObject *args) {
    PyObject *source, *target;
    Py_ssize_t width;
    int avx512;
    if (!PyArg_ParseTuple(args, "OOnp", &source, &target, &width, &avx512))
        return NULL;
    if (check_width(width) < 0)
        return NULL;
    Py_buffer views[2];
    if (get_in_out(source, target, "f", &views[0], &views[1]) < 0)
        return NULL;
    const Py_ssize_t count = views[0].len / 4, size = views[0].ndim ? views[0].shape[views[0].ndim - 1] : 1;
    if (views[0].len != views[1].len || size <= 0 || count % size != 0) {
        PyErr_SetString(PyExc_ValueError, "unexpected sizes");
        return finish(views, 2);
    }
    const float *x = views[0].buf;
    float *out = views[1].buf;
    const Py_ssize_t rows = count / size;
    /* every row less its maximum, then (each step over all rows at once) their exps, the rows'
     * lane sums and the sums' logs, subtracted */
    float *exps = PyMem_Malloc((count + 2 * rows) * sizeof(float));
    if (exps == NULL) {
        PyErr_NoMemory();
        return finish(views, 2);
    }
    float *totals = exps + count, *logs = totals + rows;
    int handled = 1;
    for (Py_ssize_t start = 0; start < count; start += size) {
        int unordered;
        float peak = row_peak(x + start, size, &unordered);
        if (unordered || peak == 0 || isinf(peak)) {
            handled = 0;
            break;
        }
        for (Py_ssize_t i = start; i < start + size; i++)
            out[i] = x[i] - peak;
    }
    if (handled) {
        exp_float32(out, exps, count);
        lane_sum_float32(exps, totals, rows, size, width);
        log_float32(totals, logs, rows, avx512);  /* each total >= 1: exp(0) is one of its terms */
        for (Py_ssize_t row = 0; row < rows; row++)
            for (Py_ssize_t i = row * size; i < (row + 1) * size; i++)
                out[i] = out[i] - logs[row];
    }
    PyMem_Free(exps);
    PyObject *done = finish(views, 2);
    if (done == NULL)
        return NULL;
    Py_DECREF(done);
    return PyBool_FromLong(handled);
}

/* log_softmax_backward_float32(grad, output, out, width): ATen's float32 log_softmax gradient
 * along the last axis (every buffer C-contiguous, of one shape): each row's grad less
 * exp(output) times the row's lane sum of grad, fused (activation.softmax_backward_data's). */
static PyObject *py_log_softmax_backward_float32(PyObject *self, PyObject *args) {
    PyObject *objects[3];
    Py_ssize_t width;
    if (!PyArg_ParseTuple(args, "OOOn", &objects[0], &objects[1], &objects[2], &width))
        return NULL;
    if (check_width(width) < 0)
        return NULL;
    Py_buffer views[3];
    if (get_float32_buffers(objects, views, 3) < 0)
        return NULL;
    const Py_ssize_t count = views[2].len / 4, size = views[2].ndim ? views[2].shape[views[2].ndim - 1] : 1;
    if (views[0].len != views[2].len || views[1].len != views[2].len || size <= 0 || count % size != 0) {
        PyErr_SetString(PyExc_ValueError, "unexpected sizes");
        return finish(views, 3);
    }
    const float *grad = views[0].buf, *output = views[1].buf;
    float *out = views[2].buf;
    for (Py_ssize_t start = 0; start < count; start += size) {
        float total;
        lane_sum_float32(grad + start, &total, 1, size, width);
        exp_float32(output + start, out + start, size);
        for (Py_ssize_t i = start; i < start + size; i++)
            out[i] = fmaf(-out[i], total, grad[i]);
    }
    return finish(views, 3);
}

PyMethodDef sleef_methods[] = {
    {"exp_float32", py_exp_float32, METH_VARARGS, "exp_float32(x, out): SLEEF's expf_u10 of float32 x into out."},
    {"log_float32", py_log_float32, METH_VARARGS,
     "log_float32(x, out, avx512) -> bool: SLEEF's logf_u10 of float32 x into out; False (out untouched) "
     "unless every x is a positive, finite, normal float."},
    {"exp_float64", py_exp_float64, METH_VARARGS,
     "exp_float64(x, out): SLEEF's exp_u10 (with FMA) of float64 x into out."},
    {"log_softmax_float32", py_log_softmax_float32, METH_VARARGS,
     "log_softmax_float32(x, out, width, avx512) -> bool: ATen's float32 log_softmax along the last axis; False "
     "(out's values unspecified) where a row's maximum is zero, infinite or nan."},
    {"log_softmax_backward_float32", py_log_softmax_backward_float32, METH_VARARGS,
     "log_softmax_backward_float32(grad, output, out, width): its gradient along the last axis."},
    {"sigmoid_float64", py_sigmoid_float64, METH_VARARGS,
     "sigmoid_float64(x, out, row, lanes): ATen's float64 sigmoid of x into out, its SIMD and scalar loops."},
    {NULL, NULL, 0, NULL},
};
