/* What graph.c (the graph's objects) shares with engine.c (the engine's loop): where the fields of
 * tensors and nodes lie, read once from their classes' member descriptors. */
#ifndef GRADCALC_GRAPH_H
#define GRADCALC_GRAPH_H

#include "native.h"

enum { DATA, DTYPE, VC, REQUIRES_GRAD, NODE, OUTPUT_NR, GRAD, RETAINS_GRAD, BASE, VIEW_KIND, IS_INFERENCE, HOOKS,
       ACCUMULATOR, FW, WRAPPED, VIEW_VERSION, SLOTS };
/* Node's slots, then OpNode's (from SAVED on) */
enum { NEXT_FUNCTIONS, SEQ, INPUT_META, TENSOR_HOOKS, RETAINED, NODE_HOOKS, METADATA, SAVED, PARAMS, RELEASED,
       NODE_SLOTS };
extern const char *const NODE_SLOT_NAMES[NODE_SLOTS];
extern Py_ssize_t offsets[SLOTS], node_offsets[NODE_SLOTS];
extern PyTypeObject *tensor_type;  /* NULL until prepare_tensors */
extern PyTypeObject *saved_type;  /* SavedTensor; NULL until prepare_record */
extern PyObject *shape_name, *enabled_name;  /* "shape", "_enabled" */

extern PyTypeObject *ndarray_type;  /* numpy.ndarray */
/* grad_mode's globals, meta.state, FORWARD_LEVELS and "made" (read by records() and operators.c) */
extern PyObject *grad_mode_globals, *meta_state, *forward_levels, *made_name;

/* Where the object slot NAME of TYPE lies in its instances; -1 with an error set. */
Py_ssize_t slot_offset(PyTypeObject *type, const char *name);
/* *NAME made the interned TEXT once; -1 with an error set. */
int intern(PyObject **name, const char *text);

/* Tensor._alias(grad_fn=node, output_nr=output_nr): the same storage and version counter with the
 * given history (its tangents too). A new reference, NULL with an error set. */
PyObject *tensor_alias(PyObject *tensor, PyObject *node, PyObject *output_nr);
/* SavedTensor.unpack(node): its common cases (no hooks, not modified since saved, a tensor kept)
 * without a Python frame, the others by the method. A new reference, NULL with an error set. */
PyObject *saved_unpack(PyObject *saved, PyObject *node);

/* A tensor's slot (borrowed); NULL, with no error set, when it was never written. */
static inline PyObject *get(PyObject *tensor, int slot) { return *(PyObject **)((char *)tensor + offsets[slot]); }
/* A tensor's slot (borrowed), or NULL with an AttributeError set where it is not written: what
 * Python code that ran since the tensor was checked may have taken away. */
static inline PyObject *field(PyObject *tensor, int slot) {
    PyObject *value = get(tensor, slot);
    if (value == NULL)
        PyErr_SetString(PyExc_AttributeError, "a tensor's field is not set");
    return value;
}
/* Writes a tensor's slot (a new reference to VALUE). */
static inline void put(PyObject *object, int slot, PyObject *value) {
    PyObject **place = (PyObject **)((char *)object + offsets[slot]);
    Py_XSETREF(*place, Py_NewRef(value));
}
/* registry.record(op, inputs, data, dtype, **params) of an op that makes no view: natively where
 * it can, else by the Python record. A new reference, NULL with an error set. */
PyObject *record_op(PyObject *op, PyObject *inputs, PyObject *data, PyObject *dtype, PyObject *params);
/* A node's slot (borrowed); NULL when it was never written. */
static inline PyObject *node_slot(PyObject *node, int slot) {
    return *(PyObject **)((char *)node + node_offsets[slot]);
}

#endif
