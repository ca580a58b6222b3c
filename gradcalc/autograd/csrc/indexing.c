/* Indexing by a tensor of rows (an embedding's C[X], a batch's Y[ix]), ops/indexing.py's shortcuts:
 * the indices' least and greatest value in one pass, and the gradient's accumulation into the
 * indexed rows in order, the additions numpy's ufunc.at makes. Besides: nll_loss's gradient, one
 * value written at each target's class (ops/loss.py's _nll_input_grad). */
#include "native.h"

/* int64_range(indices) -> (least, greatest): of a non-empty C-contiguous int64 buffer. */
static PyObject *py_int64_range(PyObject *self, PyObject *object) {
    Py_buffer view;
    if (get_int64s(object, &view, -1) < 0)
        return NULL;
    PyObject *result = NULL;
    if (view.len == 0) {
        PyErr_SetString(PyExc_TypeError, "a non-empty int64 buffer expected");
    } else {
        const int64_t *values = view.buf;
        int64_t least = values[0], greatest = values[0];
        for (Py_ssize_t i = 1; i < view.len / 8; i++) {
            least = values[i] < least ? values[i] : least;
            greatest = values[i] > greatest ? values[i] : greatest;
        }
        result = Py_BuildValue("LL", (long long)least, (long long)greatest);
    }
    PyBuffer_Release(&view);
    return result;
}

#define ADD_ROWS(T)                                                                                \
    static void add_rows_##T(T *out, const int64_t *rows, const T *values, Py_ssize_t count,       \
                             Py_ssize_t inner, int64_t height) {                                   \
        for (Py_ssize_t k = 0; k < count; k++) {                                                   \
            T *row = out + (rows[k] < 0 ? rows[k] + height : rows[k]) * inner;                     \
            for (Py_ssize_t j = 0; j < inner; j++)                                                 \
                row[j] = row[j] + values[k * inner + j];                                           \
        }                                                                                          \
    }

ADD_ROWS(float)
ADD_ROWS(double)

/* add_rows(out, rows, values): out (height, inner...) float32 or float64, C-contiguous; for each k
 * in order, values' k-th block of inner elements added into out's row rows[k] (a negative one
 * counted from the end). Every row is checked against height before anything is added. */
static PyObject *py_add_rows(PyObject *self, PyObject *args) {
    PyObject *objects[3];
    if (!PyArg_ParseTuple(args, "OOO", &objects[0], &objects[1], &objects[2]))
        return NULL;
    Py_buffer views[3];
    if (PyObject_GetBuffer(objects[0], &views[0], PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | PyBUF_WRITABLE) < 0)
        return NULL;
    const char *format = views[0].format ? views[0].format : "";
    if ((strcmp(format, "f") && strcmp(format, "d")) || views[0].ndim < 1 || views[0].shape[0] == 0) {
        PyBuffer_Release(&views[0]);
        PyErr_SetString(PyExc_TypeError, "unexpected buffer format");
        return NULL;
    }
    if (get_int64s(objects[1], &views[1], -1) < 0) {
        PyBuffer_Release(&views[0]);
        return NULL;
    }
    if (get_buffer(objects[2], &views[2], format, 0) < 0) {
        PyBuffer_Release(&views[1]);
        PyBuffer_Release(&views[0]);
        return NULL;
    }
    const int64_t height = views[0].shape[0];
    const Py_ssize_t itemsize = views[0].itemsize, inner = views[0].len / itemsize / height,
                     count = views[1].len / 8;
    const int64_t *rows = views[1].buf;
    if (views[2].len != count * inner * itemsize) {
        PyErr_SetString(PyExc_ValueError, "unexpected sizes");
    } else {
        for (Py_ssize_t k = 0; k < count; k++)
            if (rows[k] < -height || rows[k] >= height) {
                PyErr_SetString(PyExc_IndexError, "row out of bounds");
                break;
            }
        if (!PyErr_Occurred()) {
            if (format[0] == 'f')
                add_rows_float(views[0].buf, rows, views[2].buf, count, inner, height);
            else
                add_rows_double(views[0].buf, rows, views[2].buf, count, inner, height);
        }
    }
    return finish(views, 3);
}

#define NLL_GRAD(T)                                                                                \
    static Py_ssize_t nll_grad_##T(T *out, const int64_t *targets, Py_ssize_t batch, Py_ssize_t classes, \
                                   int64_t ignore_index, const T *weight, const T *coefficient,       \
                                   Py_ssize_t step) {                                                  \
        for (Py_ssize_t b = 0; b < batch; b++) {                                                   \
            const int64_t target = targets[b];                                                     \
            if (target == ignore_index)                                                            \
                continue;                                                                          \
            if (target < 0 || target >= classes)                                                   \
                return b;                                                                          \
            const T value = coefficient[b * step];                                                 \
            out[b * classes + target] = weight != NULL ? weight[target] * value : value;           \
        }                                                                                          \
        return -1;                                                                                 \
    }

NLL_GRAD(float)
NLL_GRAD(double)

/* nll_loss_grad(out, targets, ignore_index, weight, coefficients): out (batch, classes) zeros,
 * float32 or float64, C-contiguous; at each row b whose target t is not ignore_index, out[b, t] =
 * weight[t] * coefficients[b] (weight None: coefficients[b]; one coefficient: the same for every
 * row). None, or the first row whose target is out of bounds (nothing written after it). */
static PyObject *py_nll_loss_grad(PyObject *self, PyObject *args) {
    PyObject *objects[4];
    long long ignore_index;
    if (!PyArg_ParseTuple(args, "OOLOO", &objects[0], &objects[1], &ignore_index, &objects[2], &objects[3]))
        return NULL;
    Py_buffer views[4];
    int held = 0;
    PyObject *result = NULL;
    if (PyObject_GetBuffer(objects[0], &views[0], PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | PyBUF_WRITABLE) < 0)
        return NULL;
    held = 1;
    const char *format = views[0].format ? views[0].format : "";
    if ((strcmp(format, "f") && strcmp(format, "d")) || views[0].ndim != 2) {
        PyErr_SetString(PyExc_TypeError, "unexpected buffer format");
        goto done;
    }
    const Py_ssize_t batch = views[0].shape[0], classes = views[0].shape[1];
    if (get_int64s(objects[1], &views[1], batch) < 0)
        goto done;
    held = 2;
    if (get_buffer(objects[3], &views[2], format, 0) < 0)
        goto done;
    held = 3;
    const Py_ssize_t coefficients = views[2].len / views[2].itemsize;
    if (coefficients != batch && coefficients != 1) {
        PyErr_SetString(PyExc_ValueError, "one coefficient, or one a row, expected");
        goto done;
    }
    const void *weight = NULL;
    if (objects[2] != Py_None) {
        if (get_at_least(objects[2], &views[3], format, classes) < 0)
            goto done;
        held = 4;
        weight = views[3].buf;
    }
    Py_ssize_t bad = format[0] == 'f'
        ? nll_grad_float(views[0].buf, views[1].buf, batch, classes, ignore_index, weight, views[2].buf,
                         coefficients == batch)
        : nll_grad_double(views[0].buf, views[1].buf, batch, classes, ignore_index, weight, views[2].buf,
                          coefficients == batch);
    if (bad >= 0) {
        result = PyLong_FromSsize_t(bad);
    } else {
        Py_INCREF(Py_None);
        result = Py_None;
    }
done:
    while (held--)
        PyBuffer_Release(&views[held]);
    return result;
}

PyMethodDef indexing_methods[] = {
    {"nll_loss_grad", py_nll_loss_grad, METH_VARARGS,
     "nll_loss_grad(out, targets, ignore_index, weight, coefficients): nll_loss's gradient at the targets."},
    {"int64_range", py_int64_range, METH_O, "int64_range(indices) -> (least, greatest) of int64 indices."},
    {"add_rows", py_add_rows, METH_VARARGS,
     "add_rows(out, rows, values): values' blocks added into out's rows, in order (ufunc.at's additions)."},
    {NULL, NULL, 0, NULL},
};
