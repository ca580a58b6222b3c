/* gradcalc's native module, _native (autograd/native.py loads it). The kernels whose numpy
 * emulation costs most of a small training step: SLEEF's exp and log and float64 sigmoid
 * (sleef.c), at::vec's lane sums, a matrix product's running sums in order and ATen's dot products
 * in lanes (sums.c), torch.sum's and nll_loss's cascades of running sums (cascade.c), FMAs and
 * Welford's variance updates (arithmetic.c), oneDNN's direct float32 convolution
 * (convolution.c). Each is the same arithmetic as its numpy version (simd.py, kernels.py,
 * ops/statistics.py, ops/loss.py, ops/convolution.py), operation for operation: IEEE arithmetic
 * in float and double gives the same bits in C as in numpy, built with -ffp-contract=off so that
 * nothing is fused unless written as fmaf. Either gives the same answers; tests/test_native.py
 * compares them. The autograd engine's ready queue takes its Python version's steps (heap.c);
 * indexing by rows, its bounds and its gradient's additions, numpy's (indexing.c).
 * Besides: numpy's storages on 64 bytes and arrays' addresses (storage.c), and Tensor._make's
 * common cases and grad_fn's making (graph.c), the autograd engine's loop (engine.c), the op
 * call (dispatch.c), Python's operators on tensors (operators.c), the twister's draws made
 * uniform, normal and integer values (random.c), and the sandbox guard's commonest attribute
 * read and write (guard.c).
 *
 * Security: these run on a program's values inside the jailed worker. Every size and stride comes
 * from the buffers themselves (never from a caller's count), every buffer is checked for its
 * format, layout and writability, and the loops only index within those sizes.
 */
#include "native.h"

int get_buffer(PyObject *object, Py_buffer *view, const char *format, int writable) {
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

int get_in_out(PyObject *source, PyObject *target, const char *format, Py_buffer *in, Py_buffer *out) {
    if (get_buffer(source, in, format, 0) < 0)
        return -1;
    if (get_buffer(target, out, format, 1) < 0) {
        PyBuffer_Release(in);
        return -1;
    }
    return 0;
}

int get_float32_buffers(PyObject *const *objects, Py_buffer *views, int count) {
    for (int got = 0; got < count; got++)
        if (get_buffer(objects[got], &views[got], "f", got == count - 1) < 0) {
            while (got--)
                PyBuffer_Release(&views[got]);
            return -1;
        }
    return 0;
}

int get_int64s(PyObject *object, Py_buffer *view, Py_ssize_t count) {
    if (PyObject_GetBuffer(object, view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0)
        return -1;
    const char *format = view->format ? view->format : "";
    if (view->itemsize != 8 || (strcmp(format, "l") && strcmp(format, "q")) || (count >= 0 && view->len / 8 != count)) {
        PyBuffer_Release(view);
        PyErr_SetString(PyExc_TypeError, "unexpected int64 buffer");
        return -1;
    }
    return 0;
}

int get_at_least(PyObject *object, Py_buffer *view, const char *format, Py_ssize_t count) {
    if (get_buffer(object, view, format, 0) < 0)
        return -1;
    if (view->len / view->itemsize < count) {
        PyBuffer_Release(view);
        PyErr_SetString(PyExc_ValueError, "fewer values than needed");
        return -1;
    }
    return 0;
}

int check_width(Py_ssize_t width) {
    if (width < 1 || width > 16 || (width & (width - 1))) {
        PyErr_SetString(PyExc_ValueError, "width must be a power of two up to 16");
        return -1;
    }
    return 0;
}

PyObject *finish(Py_buffer *views, int count) {
    for (int i = 0; i < count; i++)
        PyBuffer_Release(&views[i]);
    if (PyErr_Occurred())
        return NULL;
    Py_RETURN_NONE;
}

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_native", NULL, -1, NULL, NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__native(void) {
    PyObject *created = PyModule_Create(&module);
    if (created == NULL)
        return NULL;
    if (heap_init() < 0 || dispatch_init(created) < 0) {
        Py_DECREF(created);
        return NULL;
    }
    PyMethodDef *tables[] = {sleef_methods, sums_methods, cascade_methods, arithmetic_methods, storage_methods,
                             heap_methods, indexing_methods, convolution_methods, graph_methods,
                             engine_methods, dispatch_methods, operators_methods, random_methods, guard_methods};
    for (size_t i = 0; i < sizeof tables / sizeof tables[0]; i++)
        if (PyModule_AddFunctions(created, tables[i]) < 0) {
            Py_DECREF(created);
            return NULL;
        }
    return created;
}
