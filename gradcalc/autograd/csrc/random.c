/* The twister's draws made values: uniform samples (random.uniform_); normal_distribution<double>
 * for a few values (random._normal_scalar), each pair of 53-bit uniforms through Box-Muller with
 * the C library's log1p, sqrt, cos and sin, the functions Python's math module calls, in the same
 * order of operations: the same bits; and random_'s (draw % range) + base in uint64
 * (random.randint). */
#include "native.h"

/* The twister's draws: a C-contiguous uint64 array (writable when asked); -1, nothing held, on error. */
static int get_draws(PyObject *object, Py_buffer *view, int writable) {
    if (PyObject_GetBuffer(object, view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | (writable ? PyBUF_WRITABLE : 0)) < 0)
        return -1;
    const char *format = view->format ? view->format : "";
    if ((strcmp(format, "L") && strcmp(format, "Q")) || view->itemsize != 8) {
        PyBuffer_Release(view);
        PyErr_SetString(PyExc_TypeError, "unexpected buffer format");
        return -1;
    }
    return 0;
}

/* numpy.random's bitgen_t (numpy/random/bitgen.h), which a BitGenerator's `capsule` holds. */
typedef struct {
    void *state;
    uint64_t (*next_uint64)(void *state);
    uint32_t (*next_uint32)(void *state);
    double (*next_double)(void *state);
    uint64_t (*next_raw)(void *state);
} bitgen_t;

/* raw_draws(capsule, out): out's uint64 elements each the bit generator's next raw draw, as its
 * random_raw(n) gives them, without making an array or taking its lock (the GIL is held here). */
static PyObject *py_raw_draws(PyObject *self, PyObject *args) {
    PyObject *capsule, *target;
    if (!PyArg_ParseTuple(args, "O!O", &PyCapsule_Type, &capsule, &target))
        return NULL;
    bitgen_t *bitgen = PyCapsule_GetPointer(capsule, "BitGenerator");
    if (bitgen == NULL)
        return NULL;
    Py_buffer view;
    if (get_draws(target, &view, 1) < 0)
        return NULL;
    uint64_t *raw = view.buf;
    for (Py_ssize_t i = 0; i < view.len / 8; i++)
        raw[i] = bitgen->next_raw(bitgen->state);
    return finish(&view, 1);
}

/* RAW's draws (views[0], read) and OUT's values (views[1], written: float32 or float64,
 * C-contiguous), one draw a float or two a double: 1 or 2, or -1 (nothing held) with an error set. */
static int get_draws_and_values(PyObject *raw, PyObject *out, Py_buffer views[2]) {
    if (get_draws(raw, &views[0], 0) < 0)
        return -1;
    if (PyObject_GetBuffer(out, &views[1], PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | PyBUF_WRITABLE) < 0) {
        PyBuffer_Release(&views[0]);
        return -1;
    }
    const char *format = views[1].format ? views[1].format : "";
    int per_value = strcmp(format, "f") == 0 && views[1].itemsize == 4 ? 1
                    : strcmp(format, "d") == 0 && views[1].itemsize == 8 ? 2 : 0;
    if (per_value == 0)
        PyErr_SetString(PyExc_TypeError, "unexpected buffer format");
    else if (views[0].len / 8 != per_value * (views[1].len / views[1].itemsize))
        PyErr_SetString(PyExc_ValueError, "one draw a float value, two a double");
    if (!PyErr_Occurred())
        return per_value;
    PyBuffer_Release(&views[0]);
    PyBuffer_Release(&views[1]);
    return -1;
}

/* ---------------------------------------------------------------- uniform samples (random.uniform_) */

/* ATen's uniform_real_distribution: float takes a draw's 24 low bits times 2**-24, double two
 * draws (the first the high half) and their 53 low bits times 2**-53; then fma(u, to - from, from),
 * and a result that rounded up to `to` is `from`. */
#define UNIFORM_LOOPS(ATTRIBUTE, SUFFIX, FMAF, FMA)                                                      \
    ATTRIBUTE static void uniform32_##SUFFIX(const uint64_t *raw, float low, float width, float high,    \
                                             float *out, Py_ssize_t count) {                             \
        for (Py_ssize_t i = 0; i < count; i++) {                                                         \
            float value = FMAF((float)(uint32_t)(raw[i] & 0xFFFFFF) * 0x1p-24f, width, low);             \
            out[i] = value == high ? low : value;                                                        \
        }                                                                                                \
    }                                                                                                    \
    ATTRIBUTE static void uniform64_##SUFFIX(const uint64_t *raw, double low, double width, double high, \
                                             double *out, Py_ssize_t count) {                            \
        for (Py_ssize_t i = 0; i < count; i++) {                                                         \
            uint64_t bits = (raw[2 * i] << 32 | (raw[2 * i + 1] & 0xFFFFFFFFu)) & ((1ull << 53) - 1);    \
            double value = FMA((double)bits * 0x1p-53, width, low);                                      \
            out[i] = value == high ? low : value;                                                        \
        }                                                                                                \
    }

UNIFORM_LOOPS(, generic, fmaf, fma)
#if HAS_FMA_CLONE
UNIFORM_LOOPS(FMA_TARGET, avx2, __builtin_fmaf, __builtin_fma)
#endif

/* uniform_from_raw(raw, low, width, high, out): out (float32 or float64, C-contiguous) from the
 * draws in raw (uint64, one per float, two per double); low, width and high in out's precision. */
static PyObject *py_uniform_from_raw(PyObject *self, PyObject *args) {
    PyObject *source, *target;
    double low, width, high;
    if (!PyArg_ParseTuple(args, "OdddO", &source, &low, &width, &high, &target))
        return NULL;
    Py_buffer views[2];
    int per_value = get_draws_and_values(source, target, views);
    if (per_value < 0)
        return NULL;
    Py_ssize_t count = views[1].len / views[1].itemsize;
    if (per_value == 1)
        CALL_CLONED(uniform32_avx2, uniform32_generic, views[0].buf, (float)low, (float)width, (float)high,
                    views[1].buf, count);
    else
        CALL_CLONED(uniform64_avx2, uniform64_generic, views[0].buf, low, width, high, views[1].buf, count);
    return finish(views, 2);
}

/* ---------------------------------------------------------------- normal values (random._normal_scalar) */

static const uint64_t LOW_53_BITS = (1ULL << 53) - 1;

/* A 53-bit uniform in [0, 1) from two 32-bit draws, the first one the high half. */
static double uniform53(uint64_t high, uint64_t low) {
    return (double)((high << 32 | low) & LOW_53_BITS) * 0x1p-53;
}

/* normal_values(raw, cached, mean, std, out) -> float or None: OUT's values (float64) as
 * normal_distribution<double> gives them: CACHED first where it is a float, then each pair's: RAW's
 * 32-bit draws (a uint64 array), four a pair, make u1 and u2 (two draws each), and r = sqrt(-2
 * log1p(-u2)), theta = 2 pi u1 give r cos(theta) and r sin(theta), in that order; each value v is
 * written as fma(v, std, mean) (v + mean where std is 1). The last pair's second value, where OUT
 * has no room for it, is returned as it was drawn (the generator caches it), else None. */
static PyObject *py_normal_values(PyObject *self, PyObject *args) {
    PyObject *source, *cached, *target;
    double mean, std;
    if (!PyArg_ParseTuple(args, "OOddO", &source, &cached, &mean, &std, &target))
        return NULL;
    double first = 0.0;
    int has_first = cached != Py_None;
    if (has_first && (first = PyFloat_AsDouble(cached)) == -1.0 && PyErr_Occurred())
        return NULL;
    Py_buffer views[2];
    if (get_draws(source, &views[0], 0) < 0)
        return NULL;
    if (get_buffer(target, &views[1], "d", 1) < 0) {
        PyBuffer_Release(&views[0]);
        return NULL;
    }
    const Py_ssize_t pairs = views[0].len / 32, count = views[1].len / 8, drawn = count - has_first;
    if (views[0].len % 32 != 0 || drawn < 0 || pairs != (drawn + 1) / 2) {
        PyErr_SetString(PyExc_ValueError, "four draws for each two values wanted");
        return finish(views, 2);
    }
    const uint64_t *raw = views[0].buf;
    double *out = views[1].buf, left = 0.0;
    if (has_first)
        out[0] = fma(first, std, mean);
    for (Py_ssize_t pair = 0; pair < pairs; pair++) {
        const uint64_t *four = raw + 4 * pair;
        double u1 = uniform53(four[0], four[1]), u2 = uniform53(four[2], four[3]);
        double r = sqrt(-2.0 * log1p(-u2)), theta = 2.0 * Py_MATH_PI * u1;
        double *values = out + has_first + 2 * pair;
        values[0] = fma(r * cos(theta), std, mean);
        if (2 * pair + 1 < drawn)
            values[1] = fma(r * sin(theta), std, mean);
        else
            left = r * sin(theta);
    }
    int cache = drawn % 2 == 1;
    PyObject *done = finish(views, 2);
    if (done == NULL)
        return NULL;
    Py_DECREF(done);
    return cache ? PyFloat_FromDouble(left) : Py_NewRef(Py_None);
}

/* ---------------------------------------------------------------- normal_fill's blocks of 16 */

/* avx_mathfun.h's log256_ps and sincos256_ps as PyTorch's AVX2 build computes them (GCC fuses
 * their multiply-adds): random._log_ps and random._sincos_ps, operation for operation. */
static const float LOG_P[9] = {7.0376836292e-2f, -1.1514610310e-1f, 1.1676998740e-1f, -1.2420140846e-1f,
                               1.4249322787e-1f, -1.6668057665e-1f, 2.0000714765e-1f, -2.4999993993e-1f,
                               3.3333331174e-1f};
static const float LOG_Q1 = -2.12194440e-4f, LOG_Q2 = 0.693359375f, SQRTHF = 0.707106781186547524f;
static const float DP[3] = {-0.78515625f, -2.4187564849853515625e-4f, -3.77489497744594108e-8f};
static const float COS_P[3] = {2.443315711809948e-005f, -1.388731625493765e-003f, 4.166664568298827e-002f};
static const float SIN_P[3] = {-1.9515295891e-4f, 8.3321608736e-3f, -1.6666654611e-1f};
static const float FOPI = 1.27323954473516f;

/* For x in [2^-24, 1] (1 - a uniform): no denormal or non-positive input to handle. */
static float log_ps(float x) {
    int32_t bits = (int32_t)float_to_bits(x);
    float e = (float)((bits >> 23) - 0x7F) + 1.0f;
    x = bits_to_float(((uint32_t)bits & ~0x7F800000u) | 0x3F000000u);
    int small = x < SQRTHF;
    e = e - (small ? 1.0f : 0.0f);
    x = (x - 1.0f) + (small ? x : 0.0f);
    float z = x * x, y = LOG_P[0];
    for (int k = 1; k < 9; k++)
        y = fmaf(y, x, LOG_P[k]);
    y = y * x;
    y = fmaf(y, z, e * LOG_Q1);
    y = fmaf(-z, 0.5f, y);
    return fmaf(e, LOG_Q2, x + y);
}

/* For x >= 0. */
static void sincos_ps(float x, float *sine, float *cosine) {
    int32_t j = (int32_t)(x * FOPI);  /* truncated, as cvttps */
    j = (j + 1) & ~1;
    float y = (float)j;
    for (int k = 0; k < 3; k++)
        x = fmaf(y, DP[k], x);
    int sin_negative = (j & 4) != 0, cos_negative = (~(j - 2) & 4) != 0, sin_polynomial = (j & 2) == 0;
    float z = x * x, c = COS_P[0], s = SIN_P[0];
    for (int k = 1; k < 3; k++) {
        c = fmaf(c, z, COS_P[k]);
        s = fmaf(s, z, SIN_P[k]);
    }
    c = fmaf(c * z, z, -(z * 0.5f)) + 1.0f;
    s = fmaf(s * z, x, x);
    /* the kernel merges the polynomials by adding a masked-out +0, which turns -0 into +0 */
    float sin_value = (sin_polynomial ? s : c) + 0.0f, cos_value = (sin_polynomial ? c : s) + 0.0f;
    *sine = sin_negative ? -sin_value : sin_value;
    *cosine = cos_negative ? -cos_value : cos_value;
}

/* A float uniform from a draw: its 24 low bits times 2^-24. */
static float uniform24(uint64_t draw) { return (float)(uint32_t)(draw & 0xFFFFFF) * 0x1p-24f; }

/* The float blocks of py_box_muller16, one value at a time. */
static void fill_float_generic(const uint64_t *raw, Py_ssize_t count, float mean, float std, float *out) {
    for (Py_ssize_t block = 0; block < count; block += 16)
        for (int k = 0; k < 8; k++) {
            float sine, cosine, radius = sqrtf(-2.0f * log_ps(1.0f - uniform24(raw[block + k])));
            sincos_ps((float)(2.0 * Py_MATH_PI) * uniform24(raw[block + 8 + k]), &sine, &cosine);
            out[block + k] = fmaf(radius * cosine, std, mean);
            out[block + 8 + k] = fmaf(radius * sine, std, mean);
        }
}

#if HAS_FMA_CLONE
/* The same, eight lanes at a time, as the AVX2 kernel itself computes (each lane's operations
 * those of the functions above). */
FMA_TARGET static inline __m256 negated(__m256 x) { return _mm256_xor_ps(x, _mm256_set1_ps(-0.0f)); }

FMA_TARGET static inline __m256 log_register(__m256 x) {
    const __m256 one = _mm256_set1_ps(1.0f);
    __m256i bits = _mm256_castps_si256(x);
    __m256 e = _mm256_add_ps(_mm256_cvtepi32_ps(_mm256_sub_epi32(_mm256_srai_epi32(bits, 23), _mm256_set1_epi32(0x7F))),
                             one);
    x = _mm256_castsi256_ps(_mm256_or_si256(_mm256_and_si256(bits, _mm256_set1_epi32(~0x7F800000)),
                                            _mm256_set1_epi32(0x3F000000)));
    __m256 small = _mm256_cmp_ps(x, _mm256_set1_ps(SQRTHF), _CMP_LT_OQ);
    e = _mm256_sub_ps(e, _mm256_and_ps(small, one));
    x = _mm256_add_ps(_mm256_sub_ps(x, one), _mm256_and_ps(small, x));
    __m256 z = _mm256_mul_ps(x, x), y = _mm256_set1_ps(LOG_P[0]);
    for (int k = 1; k < 9; k++)
        y = _mm256_fmadd_ps(y, x, _mm256_set1_ps(LOG_P[k]));
    y = _mm256_mul_ps(y, x);
    y = _mm256_fmadd_ps(y, z, _mm256_mul_ps(e, _mm256_set1_ps(LOG_Q1)));
    y = _mm256_fmadd_ps(negated(z), _mm256_set1_ps(0.5f), y);
    return _mm256_fmadd_ps(e, _mm256_set1_ps(LOG_Q2), _mm256_add_ps(x, y));
}

FMA_TARGET static inline void sincos_register(__m256 x, __m256 *sine, __m256 *cosine) {
    const __m256i two = _mm256_set1_epi32(2), four = _mm256_set1_epi32(4);
    __m256i j = _mm256_cvttps_epi32(_mm256_mul_ps(x, _mm256_set1_ps(FOPI)));
    j = _mm256_and_si256(_mm256_add_epi32(j, _mm256_set1_epi32(1)), _mm256_set1_epi32(~1));
    __m256 y = _mm256_cvtepi32_ps(j);
    for (int k = 0; k < 3; k++)
        x = _mm256_fmadd_ps(y, _mm256_set1_ps(DP[k]), x);
    __m256 sin_negative = _mm256_castsi256_ps(_mm256_cmpeq_epi32(_mm256_and_si256(j, four), four));
    __m256 cos_negative = _mm256_castsi256_ps(
        _mm256_cmpeq_epi32(_mm256_andnot_si256(_mm256_sub_epi32(j, two), four), four));
    __m256 sin_polynomial = _mm256_castsi256_ps(_mm256_cmpeq_epi32(_mm256_and_si256(j, two), _mm256_setzero_si256()));
    __m256 z = _mm256_mul_ps(x, x), c = _mm256_set1_ps(COS_P[0]), s = _mm256_set1_ps(SIN_P[0]);
    for (int k = 1; k < 3; k++) {
        c = _mm256_fmadd_ps(c, z, _mm256_set1_ps(COS_P[k]));
        s = _mm256_fmadd_ps(s, z, _mm256_set1_ps(SIN_P[k]));
    }
    c = _mm256_add_ps(_mm256_fmadd_ps(_mm256_mul_ps(c, z), z, negated(_mm256_mul_ps(z, _mm256_set1_ps(0.5f)))),
                      _mm256_set1_ps(1.0f));
    s = _mm256_fmadd_ps(_mm256_mul_ps(s, z), x, x);
    __m256 sin_value = _mm256_add_ps(_mm256_blendv_ps(c, s, sin_polynomial), _mm256_setzero_ps());
    __m256 cos_value = _mm256_add_ps(_mm256_blendv_ps(s, c, sin_polynomial), _mm256_setzero_ps());
    *sine = _mm256_blendv_ps(sin_value, negated(sin_value), sin_negative);
    *cosine = _mm256_blendv_ps(cos_value, negated(cos_value), cos_negative);
}

/* Eight float uniforms from eight draws. */
FMA_TARGET static inline __m256 uniforms_register(const uint64_t *raw) {
    int32_t low[8];
    for (int k = 0; k < 8; k++)
        low[k] = (int32_t)(raw[k] & 0xFFFFFF);
    __m256 values = _mm256_cvtepi32_ps(_mm256_loadu_si256((const __m256i *)low));
    return _mm256_mul_ps(values, _mm256_set1_ps(0x1p-24f));
}

FMA_TARGET static void fill_float_avx2(const uint64_t *raw, Py_ssize_t count, float mean, float std, float *out) {
    const __m256 scale = _mm256_set1_ps(std), shift = _mm256_set1_ps(mean);
    for (Py_ssize_t block = 0; block < count; block += 16) {
        __m256 radius = _mm256_sqrt_ps(_mm256_mul_ps(
            _mm256_set1_ps(-2.0f), log_register(_mm256_sub_ps(_mm256_set1_ps(1.0f), uniforms_register(raw + block)))));
        __m256 sine, cosine;
        sincos_register(_mm256_mul_ps(_mm256_set1_ps((float)(2.0 * Py_MATH_PI)), uniforms_register(raw + block + 8)),
                        &sine, &cosine);
        _mm256_storeu_ps(out + block, _mm256_fmadd_ps(_mm256_mul_ps(radius, cosine), scale, shift));
        _mm256_storeu_ps(out + block + 8, _mm256_fmadd_ps(_mm256_mul_ps(radius, sine), scale, shift));
    }
}
#endif

/* box_muller16(raw, mean, std, out): normal_fill's Box-Muller over blocks of 16 uniforms into out
 * (float32 or float64), made from RAW's 32-bit draws (a uint64 array) as the generator makes them:
 * a float's from one draw's 24 low bits times 2^-24, a double's from two (uniform53). The first 8
 * of a block give the radii sqrt(-2 log(1 - u)), the last 8 the angles 2 pi u; out's block is
 * fma(radius cos, std, mean) for the 8, then with sin. float: the AVX2 kernel's log256_ps and
 * sincos256_ps (random._box_muller16_float); double: libm's (random._box_muller16_double). */
static PyObject *py_box_muller16(PyObject *self, PyObject *args) {
    PyObject *source, *target;
    double mean, std;
    if (!PyArg_ParseTuple(args, "OddO", &source, &mean, &std, &target))
        return NULL;
    Py_buffer views[2];
    int per_value = get_draws_and_values(source, target, views), single = per_value == 1;
    if (per_value < 0)
        return NULL;
    const Py_ssize_t count = views[1].len / views[1].itemsize;
    if (count % 16 != 0) {
        PyErr_SetString(PyExc_ValueError, "blocks of 16 values");
        return finish(views, 2);
    }
    const uint64_t *raw = views[0].buf;
    if (single) {
        CALL_CLONED(fill_float_avx2, fill_float_generic, raw, count, (float)mean, (float)std, views[1].buf);
        return finish(views, 2);
    }
    double *out = views[1].buf;
    for (Py_ssize_t block = 0; block < count; block += 16)
        for (int k = 0; k < 8; k++) {
            Py_ssize_t first = block + k, second = block + 8 + k;
            double u1 = uniform53(raw[2 * first], raw[2 * first + 1]);
            double u2 = uniform53(raw[2 * second], raw[2 * second + 1]);
            double radius = sqrt(-2.0 * log(1.0 - u1)), theta = 2.0 * Py_MATH_PI * u2;
            out[first] = fma(radius * cos(theta), std, mean);
            out[second] = fma(radius * sin(theta), std, mean);
        }
    return finish(views, 2);
}

/* ---------------------------------------------------------------- integers (random.randint) */

/* draws_in_range(raw, span, base): each of RAW's draws (a uint64 array) made (draw % span) + base
 * in place, in uint64 arithmetic that wraps as C++'s does (numpy's uint64 remainder and add). */
static PyObject *py_draws_in_range(PyObject *self, PyObject *args) {
    PyObject *source;
    unsigned long long span, base;
    if (!PyArg_ParseTuple(args, "OKK", &source, &span, &base))
        return NULL;
    if (span == 0) {
        PyErr_SetString(PyExc_ValueError, "an empty range");
        return NULL;
    }
    Py_buffer view;
    if (get_draws(source, &view, 1) < 0)
        return NULL;
    uint64_t *raw = view.buf;
    for (Py_ssize_t i = 0; i < view.len / 8; i++)
        raw[i] = raw[i] % span + base;
    return finish(&view, 1);
}

PyMethodDef random_methods[] = {
    {"raw_draws", py_raw_draws, METH_VARARGS,
     "raw_draws(capsule, out): the bit generator's next raw draws into out (uint64), as its random_raw."},
    {"uniform_from_raw", py_uniform_from_raw, METH_VARARGS,
     "uniform_from_raw(raw, low, width, high, out): uniform_real_distribution's samples from the twister's draws."},
    {"draws_in_range", py_draws_in_range, METH_VARARGS,
     "draws_in_range(raw, span, base): each uint64 draw made (draw % span) + base, in place."},
    {"box_muller16", py_box_muller16, METH_VARARGS,
     "box_muller16(raw, mean, std, out): normal_fill's Box-Muller over blocks of 16 float32 or float64 values from "
     "raw 32-bit draws."},
    {"normal_values", py_normal_values, METH_VARARGS,
     "normal_values(raw, cached, mean, std, out) -> float or None: normal_distribution<double>'s values from raw "
     "32-bit draws, four a pair; the second value of the last pair left over."},
    {NULL, NULL, 0, NULL},
};
