/* The autograd engine's ready queue (engine._ReadyQueue): PyTorch's std::priority_queue of nodes,
 * the latest created first, with libstdc++'s heap steps (push_heap, and pop_heap's
 * __adjust_heap), so that nodes of equal priority (leaves' AccumulateGrad) come out in PyTorch's
 * order. The heap is a Python list of nodes; a node's priority is its `_seq`, an int below 2**64.
 * The list is the engine's own (a program never sees it), but every item is read through the
 * list's own size and checked for its type. */
#include "native.h"

static PyObject *SEQ;  /* "_seq", interned */

/* node._seq as an unsigned 64-bit integer; -1 with an error set (which also reads as 2**64 - 1:
 * callers check PyErr_Occurred). */
static unsigned long long priority(PyObject *node) {
    PyObject *seq = PyObject_GetAttr(node, SEQ);
    if (seq == NULL)
        return (unsigned long long)-1;
    unsigned long long value = PyLong_AsUnsignedLongLong(seq);
    Py_DECREF(seq);
    return value;
}

/* heap[index] (borrowed), or NULL with an error when the list no longer holds it. */
static PyObject *item(PyObject *heap, Py_ssize_t index) {
    if (index < 0 || index >= PyList_GET_SIZE(heap)) {
        PyErr_SetString(PyExc_RuntimeError, "the ready queue changed while it was reordered");
        return NULL;
    }
    return PyList_GET_ITEM(heap, index);
}

/* libstdc++'s __push_heap: the hole at HOLE moves up past parents of lower priority, then takes
 * NODE (whose reference the list takes over). */
static int sift_up(PyObject *heap, Py_ssize_t hole, PyObject *node, unsigned long long key) {
    Py_ssize_t parent = (hole - 1) / 2;
    while (hole > 0) {
        PyObject *above = item(heap, parent);
        if (above == NULL)
            return -1;
        unsigned long long above_key = priority(above);
        if (PyErr_Occurred())
            return -1;
        if (!(above_key < key))
            break;
        if (item(heap, hole) == NULL)
            return -1;
        Py_INCREF(above);
        PyList_SetItem(heap, hole, above);  /* (drops the reference held at HOLE) */
        hole = parent;
        parent = (hole - 1) / 2;
    }
    if (item(heap, hole) == NULL)
        return -1;
    Py_INCREF(node);
    PyList_SetItem(heap, hole, node);
    return 0;
}

/* heap_push(heap, node): append NODE and restore the heap. */
static PyObject *py_heap_push(PyObject *self, PyObject *const *args, Py_ssize_t count) {
    if (count != 2 || !PyList_CheckExact(args[0])) {
        PyErr_SetString(PyExc_TypeError, "heap_push(heap, node)");
        return NULL;
    }
    PyObject *heap = args[0], *node = args[1];
    unsigned long long key = priority(node);
    if (PyErr_Occurred() || PyList_Append(heap, node) < 0)
        return NULL;
    Py_INCREF(node);  /* held while the list's own reference moves */
    int failed = sift_up(heap, PyList_GET_SIZE(heap) - 1, node, key);
    Py_DECREF(node);
    if (failed)
        return NULL;
    Py_RETURN_NONE;
}

/* heap_pop(heap): the top node, taken out; libstdc++'s pop_heap: the hole left at the top moves
 * down to a leaf along the children of higher priority (the right one where they tie), then the
 * last node sifts up from there. */
static PyObject *py_heap_pop(PyObject *self, PyObject *heap) {
    if (!PyList_CheckExact(heap) || PyList_GET_SIZE(heap) == 0) {
        PyErr_SetString(PyExc_TypeError, "heap_pop(heap) of a list with a node");
        return NULL;
    }
    Py_ssize_t length = PyList_GET_SIZE(heap) - 1;
    PyObject *top = PyList_GET_ITEM(heap, 0), *last = PyList_GET_ITEM(heap, length);
    Py_INCREF(top);
    Py_INCREF(last);
    if (PyList_SetSlice(heap, length, length + 1, NULL) < 0)
        goto failed;
    if (length > 0) {
        unsigned long long last_key = priority(last);
        if (PyErr_Occurred())
            goto failed;
        Py_ssize_t hole = 0, child = 0;
        while (child < (length - 1) / 2) {
            child = 2 * (child + 1);
            PyObject *right_node = item(heap, child), *left_node = item(heap, child - 1);
            if (right_node == NULL || left_node == NULL)
                goto failed;
            unsigned long long right = priority(right_node), left = priority(left_node);
            if (PyErr_Occurred())
                goto failed;
            if (right < left)
                child--;
            PyObject *moved = item(heap, child);
            if (moved == NULL || item(heap, hole) == NULL)
                goto failed;
            Py_INCREF(moved);
            PyList_SetItem(heap, hole, moved);
            hole = child;
        }
        if (length % 2 == 0 && child == (length - 2) / 2) {
            child = 2 * (child + 1);
            PyObject *moved = item(heap, child - 1);
            if (moved == NULL || item(heap, hole) == NULL)
                goto failed;
            Py_INCREF(moved);
            PyList_SetItem(heap, hole, moved);
            hole = child - 1;
        }
        if (sift_up(heap, hole, last, last_key) < 0)
            goto failed;
    }
    Py_DECREF(last);
    return top;
failed:
    Py_DECREF(top);
    Py_DECREF(last);
    return NULL;
}

int heap_push_node(PyObject *heap, PyObject *node) {
    PyObject *args[2] = {heap, node}, *done = py_heap_push(NULL, args, 2);
    Py_XDECREF(done);
    return done == NULL ? -1 : 0;
}

PyObject *heap_pop_node(PyObject *heap) { return py_heap_pop(NULL, heap); }

PyMethodDef heap_methods[] = {
    {"heap_push", (PyCFunction)(void (*)(void))py_heap_push, METH_FASTCALL,
     "heap_push(heap, node): the engine's ready queue's push (libstdc++'s push_heap by node._seq)."},
    {"heap_pop", py_heap_pop, METH_O,
     "heap_pop(heap) -> node: the engine's ready queue's pop (libstdc++'s pop_heap by node._seq)."},
    {NULL, NULL, 0, NULL},
};

int heap_init(void) {
    SEQ = PyUnicode_InternFromString("_seq");
    return SEQ == NULL ? -1 : 0;
}
