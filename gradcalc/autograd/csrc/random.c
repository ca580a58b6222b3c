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
    if (get_draws(source, &views[0], 0) < 0)
        return NULL;
    if (PyObject_GetBuffer(target, &views[1], PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | PyBUF_WRITABLE) < 0) {
        PyBuffer_Release(&views[0]);
        return NULL;
    }
    const char *kind = views[1].format ? views[1].format : "";
    int single = strcmp(kind, "f") == 0 && views[1].itemsize == 4;
    Py_ssize_t count = views[1].len / views[1].itemsize, draws = views[0].len / 8;
    if (!single && !(strcmp(kind, "d") == 0 && views[1].itemsize == 8))
        PyErr_SetString(PyExc_TypeError, "unexpected buffer format");
    else if (draws != (single ? count : 2 * count))
        PyErr_SetString(PyExc_ValueError, "unexpected sizes");
    else if (single)
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

/* box_muller(raw, out): RAW's 32-bit draws (a uint64 array), four per pair of values, make u1
 * and u2 (two draws each), then r = sqrt(-2 log1p(-u2)) and theta = 2 pi u1 give r cos(theta)
 * and r sin(theta), in that order, into OUT (float64, two values per four draws). */
static PyObject *py_box_muller(PyObject *self, PyObject *args) {
    PyObject *source, *target;
    if (!PyArg_ParseTuple(args, "OO", &source, &target))
        return NULL;
    Py_buffer views[2];
    if (get_draws(source, &views[0], 0) < 0)
        return NULL;
    if (get_buffer(target, &views[1], "d", 1) < 0) {
        PyBuffer_Release(&views[0]);
        return NULL;
    }
    const Py_ssize_t draws = views[0].len / 8;
    if (draws % 4 != 0 || views[1].len / 8 != draws / 2) {
        PyErr_SetString(PyExc_ValueError, "four draws for each two values");
        return finish(views, 2);
    }
    const uint64_t *raw = views[0].buf;
    double *out = views[1].buf;
    for (Py_ssize_t pair = 0; pair < draws / 4; pair++) {
        const uint64_t *four = raw + 4 * pair;
        double u1 = uniform53(four[0], four[1]), u2 = uniform53(four[2], four[3]);
        double r = sqrt(-2.0 * log1p(-u2)), theta = 2.0 * Py_MATH_PI * u1;
        out[2 * pair] = r * cos(theta);
        out[2 * pair + 1] = r * sin(theta);
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
    {"uniform_from_raw", py_uniform_from_raw, METH_VARARGS,
     "uniform_from_raw(raw, low, width, high, out): uniform_real_distribution's samples from the twister's draws."},
    {"draws_in_range", py_draws_in_range, METH_VARARGS,
     "draws_in_range(raw, span, base): each uint64 draw made (draw % span) + base, in place."},
    {"box_muller", py_box_muller, METH_VARARGS,
     "box_muller(raw, out): normal_distribution<double>'s pairs of values from raw 32-bit draws, four a pair."},
    {NULL, NULL, 0, NULL},
};
