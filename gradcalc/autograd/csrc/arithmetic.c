/* Fused multiply-adds (kernels.fused_multiply_add), Welford's variance updates
 * (ops/statistics._spread) and float32 tanh's gradient (ops/pointwise.tanh_backward). */
#include "native.h"

/* ---------------------------------------------------------------- fma (kernels.fused_multiply_add) */

#define FMA_LOOP(NAME, TYPE, FMA, ATTRIBUTE)                                                       \
    ATTRIBUTE static void NAME(const TYPE *a, const TYPE *b, const TYPE *c, TYPE *out,             \
                               Py_ssize_t count, const Py_ssize_t *steps) {                        \
        for (Py_ssize_t i = 0; i < count; i++)                                                     \
            out[i] = FMA(a[i * steps[0]], b[i * steps[1]], c[i * steps[2]]);                       \
    }

/* fmaf and fma are exact wherever they run; the clones for processors with the instruction
 * call it inline rather than through libm */
FMA_LOOP(fma32_generic, float, fmaf, )
FMA_LOOP(fma64_generic, double, fma, )
#if HAS_FMA_CLONE
FMA_LOOP(fma32_avx2, float, __builtin_fmaf, FMA_TARGET)
FMA_LOOP(fma64_avx2, double, __builtin_fma, FMA_TARGET)
#endif

/* out = fma(a, b, c) element by element, in float32 or float64 (out's format, which a, b and c
 * share); each of a, b, c has out's elements or one. */
static PyObject *py_fused_multiply_add(PyObject *self, PyObject *args) {
    PyObject *objects[4];
    if (!PyArg_ParseTuple(args, "OOOO", &objects[0], &objects[1], &objects[2], &objects[3]))
        return NULL;
    Py_buffer views[4];
    if (PyObject_GetBuffer(objects[3], &views[3], PyBUF_FORMAT) < 0)
        return NULL;
    const char *format = views[3].format != NULL && strcmp(views[3].format, "d") == 0 ? "d" : "f";
    PyBuffer_Release(&views[3]);
    for (int got = 0; got < 4; got++)
        if (get_buffer(objects[got], &views[got], format, got == 3) < 0) {
            while (got--)
                PyBuffer_Release(&views[got]);
            return NULL;
        }
    Py_ssize_t itemsize = views[3].itemsize, count = views[3].len / itemsize;
    Py_ssize_t steps[3];
    for (int i = 0; i < 3; i++) {
        Py_ssize_t size = views[i].len / itemsize;
        steps[i] = size == count ? 1 : 0;
        if (size != count && size != 1)
            PyErr_SetString(PyExc_ValueError, "unexpected sizes");
    }
    if (!PyErr_Occurred()) {
        void *a = views[0].buf, *b = views[1].buf, *c = views[2].buf, *out = views[3].buf;
        int single = format[0] == 'f';
        if (single)
            CALL_CLONED(fma32_avx2, fma32_generic, a, b, c, out, count, steps);
        else
            CALL_CLONED(fma64_avx2, fma64_generic, a, b, c, out, count, steps);
    }
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

/* tanh_grad_float32(grad, output, out): out = grad * (1 - output * output), the bracket fused as
 * ATen's kernels compute it: the square exact in double, the difference rounded once, then to
 * float32 (tanh_backward's numpy steps, in one pass). */
static PyObject *py_tanh_grad_float32(PyObject *self, PyObject *args) {
    PyObject *objects[3];
    if (!PyArg_ParseTuple(args, "OOO", &objects[0], &objects[1], &objects[2]))
        return NULL;
    Py_buffer views[3];
    if (get_float32_buffers(objects, views, 3) < 0)
        return NULL;
    if (views[0].len != views[2].len || views[1].len != views[2].len) {
        PyErr_SetString(PyExc_ValueError, "buffers of different sizes");
        return finish(views, 3);
    }
    const float *grad = views[0].buf, *output = views[1].buf;
    float *out = views[2].buf;
    for (Py_ssize_t i = 0; i < views[2].len / 4; i++) {
        const double y = output[i];
        out[i] = grad[i] * (float)(1.0 - y * y);
    }
    return finish(views, 3);
}

PyMethodDef arithmetic_methods[] = {
    {"tanh_grad_float32", py_tanh_grad_float32, METH_VARARGS,
     "tanh_grad_float32(grad, output, out): float32 tanh's gradient, 1 - output**2 fused, times grad."},
    {"fused_multiply_add", py_fused_multiply_add, METH_VARARGS,
     "fused_multiply_add(a, b, c, out): out = fma(a, b, c) in float32 or float64, a, b or c one element or "
     "out's."},
    {"welford_squares", py_welford_squares, METH_VARARGS,
     "welford_squares(rows, out): each float64 row's sum of squared deviations by Welford's updates."},
    {NULL, NULL, 0, NULL},
};
