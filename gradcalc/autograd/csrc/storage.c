/* Where arrays lie: numpy's storages on 64 bytes, as c10's, and an array's address (mkl.py). */
#include "native.h"

/* ---------------------------------------------------------------- numpy's storages on 64 bytes */

/* numpy's allocator interface (numpy/ndarraytypes.h, version 1 of the struct, numpy 1.22 on),
 * written out here so that the module builds without numpy's headers. */
typedef struct {
    void *ctx;
    void *(*malloc)(void *ctx, size_t size);
    void *(*calloc)(void *ctx, size_t count, size_t size);
    void *(*realloc)(void *ctx, void *ptr, size_t size);
    void (*free)(void *ctx, void *ptr, size_t size);
} NumpyAllocator;

typedef struct {
    char name[127];
    uint8_t version;
    NumpyAllocator allocator;
} NumpyHandler;

/* PyDataMem_SetHandler's place in numpy's C API table (numpy/__multiarray_api.h) */
#define NUMPY_SET_HANDLER 304
#define STORAGE_ALIGNMENT 64

_Static_assert(_Alignof(max_align_t) >= 16, "malloc's blocks leave room for the header");

/* A block of `size` bytes starting on 64, as c10's CPU allocator gives one: malloc's block (16 bytes
 * aligned at least) moved on to the next multiple of 64, the block's own address and the size kept
 * in the 16 bytes or more skipped. */
static void *placed_block(char *raw, size_t size) {
    if (raw == NULL)
        return NULL;
    char *start = raw + (STORAGE_ALIGNMENT - (uintptr_t)raw % STORAGE_ALIGNMENT);
    ((void **)start)[-1] = raw;
    ((size_t *)start)[-2] = size;
    return start;
}

static void *storage_malloc(void *ctx, size_t size) {
    return size > SIZE_MAX - STORAGE_ALIGNMENT ? NULL : placed_block(malloc(size + STORAGE_ALIGNMENT), size);
}

static void *storage_calloc(void *ctx, size_t count, size_t size) {
    if (size && count > (SIZE_MAX - STORAGE_ALIGNMENT) / size)
        return NULL;
    return placed_block(calloc(1, count * size + STORAGE_ALIGNMENT), count * size);
}

static void storage_free(void *ctx, void *start, size_t size) {
    if (start != NULL)
        free(((void **)start)[-1]);
}

static void *storage_realloc(void *ctx, void *start, size_t size) {
    if (start == NULL)
        return storage_malloc(ctx, size);
    void *moved = storage_malloc(ctx, size);
    if (moved != NULL) {
        size_t old = ((size_t *)start)[-2];
        memcpy(moved, start, old < size ? old : size);
        storage_free(ctx, start, old);
    }
    return moved;
}

static NumpyHandler storage_handler = {
    "gradcalc_aligned_64", 1, {NULL, storage_malloc, storage_calloc, storage_realloc, storage_free}};

/* Makes numpy allocate this thread's new arrays (its context's) on 64 bytes, once: MKL's kernels
 * take other paths by their operands' alignment, so mkl.py copies every operand that does not lie
 * as PyTorch's would; this makes those copies rare. No argument: the table called into is the one
 * numpy's own module exports, and only the first call does anything. */
static PyObject *py_align_numpy_storages(PyObject *self, PyObject *unused) {
    static int done = 0;
    if (done)
        Py_RETURN_FALSE;
    done = 1;
    PyObject *module = PyImport_ImportModule("numpy._core._multiarray_umath");
    if (module == NULL) {
        PyErr_Clear();
        module = PyImport_ImportModule("numpy.core._multiarray_umath");
        if (module == NULL)
            return NULL;
    }
    PyObject *table = PyObject_GetAttrString(module, "_ARRAY_API");
    Py_DECREF(module);
    if (table == NULL)
        return NULL;
    void **api = PyCapsule_IsValid(table, NULL) ? PyCapsule_GetPointer(table, NULL) : NULL;
    Py_DECREF(table);
    if (api == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "numpy's C API table was not found");
        return NULL;
    }
    PyObject *handler = PyCapsule_New(&storage_handler, "mem_handler", NULL);
    if (handler == NULL)
        return NULL;
    PyObject *previous = ((PyObject * (*)(PyObject *)) api[NUMPY_SET_HANDLER])(handler);
    Py_DECREF(handler);
    if (previous == NULL)
        return NULL;
    Py_DECREF(previous);
    Py_RETURN_TRUE;
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

PyMethodDef storage_methods[] = {
    {"align_numpy_storages", py_align_numpy_storages, METH_NOARGS,
     "align_numpy_storages() -> bool: numpy's new arrays start on 64 bytes from now on, in this thread's "
     "context (True the first time only)."},
    {"address", py_address, METH_O, "address(array) -> int: the address of its first element."},
    {NULL, NULL, 0, NULL},
};
