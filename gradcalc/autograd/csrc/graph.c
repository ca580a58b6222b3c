/* The graph's objects, which a training step makes by the dozen: Tensor._make's common cases
 * (autograd/tensor.py: a new tensor on a numpy array, or a view of another tensor, not bfloat16,
 * outside inference mode), a grad_fn's making (ops/registry.py's new_node) and an op's recording
 * with what its node saves (registry.record, without forward-mode levels, meta tensors or saved
 * tensor hooks). The same fields as the Python code writes, into the slots' places, which are read
 * once from the classes' own member descriptors (prepare_tensors, prepare_nodes, prepare_record);
 * every other call is the Python code's, given the same arguments.
 *
 * Security: a program never holds these functions (private names are not a program's to read),
 * and what they make is what the Python code would make from the same arguments. */
#include "graph.h"
#include <structmember.h>

static const char *const SLOT_NAMES[SLOTS] = {"_data", "_dtype", "_vc", "_requires_grad", "_node", "_output_nr",
                                              "_grad", "_retains_grad", "_base", "_view_kind", "_is_inference",
                                              "_hooks", "_accumulator", "_fw", "_wrapped", "_view_version"};

Py_ssize_t offsets[SLOTS], node_offsets[NODE_SLOTS];
PyTypeObject *tensor_type;
PyObject *shape_name, *enabled_name;
static Py_ssize_t counter_offset;
static PyTypeObject *counter_type;
PyTypeObject *ndarray_type;
/* the Python method's function, grad_mode's globals (its `_inference`), BFLOAT16, INFERENCE_VERSION,
 * VIEW_DEFAULT, VIEW_INFERENCE; the keywords' names */
PyObject *grad_mode_globals;
static PyObject *slow_make, *bfloat16, *inference_version, *view_default, *view_inference;
static PyObject *inference_name, *base_name, *requires_grad_name, *view_kind_name, *value_name;

Py_ssize_t slot_offset(PyTypeObject *type, const char *name) {
    PyObject *descriptor = PyDict_GetItemString(type->tp_dict, name);
    if (descriptor == NULL || Py_TYPE(descriptor) != &PyMemberDescr_Type
            || ((PyMemberDescrObject *)descriptor)->d_member->type != T_OBJECT_EX) {
        PyErr_Format(PyExc_TypeError, "%s.%s is not an object slot", type->tp_name, name);
        return -1;
    }
    return ((PyMemberDescrObject *)descriptor)->d_member->offset;
}


int intern(PyObject **name, const char *text) {
    return *name != NULL || (*name = PyUnicode_InternFromString(text)) != NULL ? 0 : -1;
}

/* prepare_tensors(Tensor, VersionCounter, ndarray, make, grad_mode_globals, BFLOAT16, INFERENCE_VERSION,
 * VIEW_DEFAULT, VIEW_INFERENCE) */
static PyObject *py_prepare_tensors(PyObject *self, PyObject *args) {
    PyObject *tensor, *counter, *ndarray, *make, *globals, *bf16, *frozen, *default_kind, *inference_kind;
    if (!PyArg_ParseTuple(args, "O!O!O!OO!OOOO", &PyType_Type, &tensor, &PyType_Type, &counter, &PyType_Type,
                          &ndarray, &make, &PyDict_Type, &globals, &bf16, &frozen, &default_kind, &inference_kind))
        return NULL;
    for (int slot = 0; slot < SLOTS; slot++)
        if ((offsets[slot] = slot_offset((PyTypeObject *)tensor, SLOT_NAMES[slot])) < 0)
            return NULL;
    if ((counter_offset = slot_offset((PyTypeObject *)counter, "value")) < 0)
        return NULL;
    if (intern(&inference_name, "_inference") < 0 || intern(&base_name, "base") < 0
            || intern(&requires_grad_name, "requires_grad") < 0 || intern(&view_kind_name, "view_kind") < 0
            || intern(&value_name, "value") < 0)
        return NULL;
    Py_XSETREF(tensor_type, (PyTypeObject *)Py_NewRef(tensor));
    Py_XSETREF(counter_type, (PyTypeObject *)Py_NewRef(counter));
    Py_XSETREF(ndarray_type, (PyTypeObject *)Py_NewRef(ndarray));
    Py_XSETREF(slow_make, Py_NewRef(make));
    Py_XSETREF(grad_mode_globals, Py_NewRef(globals));
    Py_XSETREF(bfloat16, Py_NewRef(bf16));
    Py_XSETREF(inference_version, Py_NewRef(frozen));
    Py_XSETREF(view_default, Py_NewRef(default_kind));
    Py_XSETREF(view_inference, Py_NewRef(inference_kind));
    Py_RETURN_NONE;
}

/* The keywords base, requires_grad and view_kind into their places; 0 when another was given. */
static int read_keywords(PyObject *const *values, PyObject *kwnames, PyObject **base, PyObject **requires_grad,
                         PyObject **view_kind) {
    Py_ssize_t count = kwnames == NULL ? 0 : PyTuple_GET_SIZE(kwnames);
    for (Py_ssize_t i = 0; i < count; i++) {
        PyObject *name = PyTuple_GET_ITEM(kwnames, i);
        if (name == base_name)
            *base = values[i];
        else if (name == requires_grad_name)
            *requires_grad = values[i];
        else if (name == view_kind_name)
            *view_kind = values[i];
        else
            return 0;
    }
    return 1;
}

/* Whether make() takes these arguments: an ndarray's data, not bfloat16, outside inference mode,
 * for a Tensor class, of no base or a tensor base whose fields are written; -1 with an error set. */
static int makes(PyObject *cls, PyObject *data, PyObject *dtype, PyObject *base) {
    PyObject *inference = PyDict_GetItemWithError(grad_mode_globals, inference_name);
    if (inference == NULL)
        return PyErr_Occurred() ? -1 : 0;
    if (inference != Py_False || Py_TYPE(data) != ndarray_type || dtype == bfloat16 || !PyType_Check(cls)
            || !PyType_IsSubtype((PyTypeObject *)cls, tensor_type))
        return 0;
    if (base == Py_None)
        return 1;
    return PyObject_TypeCheck(base, tensor_type) && get(base, VC) != NULL && get(base, BASE) != NULL
           && get(base, VIEW_KIND) != NULL && get(base, IS_INFERENCE) != NULL;
}

/* What a view of BASE takes from it (new references): its counter (an inference tensor's counts
 * nothing), its root base, its kind (a view of a restricted view keeps its restriction), the
 * counter's version now and whether it is an inference tensor; 0, -1 with an error set. */
static int from_base(PyObject *base, PyObject *view_kind, PyObject **counter, PyObject **root, PyObject **kind,
                     PyObject **version, PyObject **is_inference) {
    PyObject *base_counter = field(base, VC), *base_kind = base_counter ? field(base, VIEW_KIND) : NULL;
    PyObject *base_root = base_kind ? field(base, BASE) : NULL, *inference = base_root ? field(base, IS_INFERENCE)
                                                                                      : NULL;
    if (inference == NULL)
        return -1;
    int inferred = PyObject_IsTrue(inference);
    int restricted = inferred < 0 ? -1 : PyObject_RichCompareBool(base_kind, view_inference, Py_EQ);
    int plain = restricted == 0 && base_root != Py_None ? PyObject_RichCompareBool(view_kind, view_default, Py_EQ)
                                                        : 0;
    if (restricted < 0 || plain < 0 || (*version = PyObject_GetAttr(base_counter, value_name)) == NULL)
        return -1;
    *counter = Py_NewRef(inferred ? inference_version : base_counter);
    *root = Py_NewRef(base_root != Py_None ? base_root : base);
    *kind = Py_NewRef(restricted || plain ? base_kind : view_kind);
    *is_inference = Py_NewRef(inferred ? Py_True : Py_False);
    return 0;
}

/* Tensor._make(data, dtype, base=base, requires_grad=requires_grad, view_kind=view_kind) where
 * makes() said so: a new reference, NULL with an error set. */
static PyObject *make(PyTypeObject *cls, PyObject *data, PyObject *dtype, PyObject *base, PyObject *requires_grad,
                      PyObject *view_kind) {
    PyObject *counter = NULL, *root = NULL, *kind = NULL, *version = NULL, *is_inference = NULL, *tensor = NULL;
    if (base == Py_None) {
        if ((counter = counter_type->tp_alloc(counter_type, 0)) == NULL)
            return NULL;
        *(PyObject **)((char *)counter + counter_offset) = PyLong_FromLong(0);
        root = Py_NewRef(Py_None);
        kind = Py_NewRef(view_kind);
        is_inference = Py_NewRef(Py_False);
    } else if (from_base(base, view_kind, &counter, &root, &kind, &version, &is_inference) < 0) {
        Py_XDECREF(version);
        return NULL;
    }
    if ((tensor = cls->tp_alloc(cls, 0)) != NULL) {
        PyObject *zero = PyLong_FromLong(0);
        put(tensor, DATA, data);
        put(tensor, DTYPE, dtype);
        put(tensor, VC, counter);
        put(tensor, BASE, root);
        put(tensor, VIEW_KIND, kind);
        if (version != NULL)
            put(tensor, VIEW_VERSION, version);
        put(tensor, IS_INFERENCE, is_inference);
        put(tensor, REQUIRES_GRAD, requires_grad);
        put(tensor, NODE, Py_None);
        put(tensor, OUTPUT_NR, zero);
        put(tensor, GRAD, Py_None);
        put(tensor, RETAINS_GRAD, Py_False);
        put(tensor, HOOKS, Py_None);
        put(tensor, ACCUMULATOR, Py_None);
        put(tensor, FW, Py_None);
        put(tensor, WRAPPED, Py_False);
        Py_DECREF(zero);
    }
    Py_DECREF(counter);
    Py_DECREF(root);
    Py_DECREF(kind);
    Py_XDECREF(version);
    Py_DECREF(is_inference);
    return tensor;
}

/* make_tensor(cls, data, dtype, *, base=None, requires_grad=False, view_kind=VIEW_DEFAULT):
 * Tensor._make, bound to the class as a classmethod. */
static PyObject *py_make_tensor(PyObject *self, PyObject *const *args, Py_ssize_t count, PyObject *kwnames) {
    if (tensor_type == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "prepare_tensors was not called");
        return NULL;
    }
    PyObject *base = Py_None, *requires_grad = Py_False, *view_kind = view_default;
    int taken = count == 3 && read_keywords(args + 3, kwnames, &base, &requires_grad, &view_kind)
                ? makes(args[0], args[1], args[2], base) : 0;
    if (taken < 0)
        return NULL;
    if (!taken)
        return PyObject_Vectorcall(slow_make, args, count, kwnames);
    return make((PyTypeObject *)args[0], args[1], args[2], base, requires_grad, view_kind);
}

/* ------------------------------------------------------------------ nodes */

const char *const NODE_SLOT_NAMES[NODE_SLOTS] = {"next_functions", "_seq", "_input_meta", "_tensor_hooks",
                                                        "_retained", "_node_hooks", "_metadata", "_saved",
                                                        "_params", "_released"};
static PyTypeObject *op_node_type;
/* itertools.count of the nodes' _seq, the shared input metas (and how many are kept), NO_EDGE,
 * engine.gradient_edge, the Python new_node; the names read */
static PyObject *sequence, *input_metas, *no_edge, *gradient_edge, *slow_new_node;
static Py_ssize_t metas_kept;
static PyObject *node_class_name, *dtype_name;
/* engine.AccumulateGrad, where its `variable` lies, its sequence number (LAST) */
static PyTypeObject *accumulator_type;
static Py_ssize_t variable_offset;
static PyObject *last_sequence;
/* torch.Size, and Tensor's own `shape` and `dtype` properties */
static PyTypeObject *size_type;
static PyObject *shape_property, *dtype_property;

/* prepare_nodes(Node, OpNode, sequence, input_metas, metas_kept, NO_EDGE, gradient_edge, new_node,
 * AccumulateGrad, LAST, Size); after prepare_tensors. */
static PyObject *py_prepare_nodes(PyObject *self, PyObject *args) {
    PyObject *node, *op_node, *count, *metas, *edge, *edge_function, *slow, *accumulator, *last, *size;
    Py_ssize_t kept;
    if (!PyArg_ParseTuple(args, "O!O!OO!nO!OOO!O!O!", &PyType_Type, &node, &PyType_Type, &op_node, &count,
                          &PyDict_Type, &metas, &kept, &PyTuple_Type, &edge, &edge_function, &slow, &PyType_Type,
                          &accumulator, &PyLong_Type, &last, &PyType_Type, &size))
        return NULL;
    if (tensor_type == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "prepare_tensors was not called");
        return NULL;
    }
    for (int slot = 0; slot < NODE_SLOTS; slot++)
        if ((node_offsets[slot] = slot_offset((PyTypeObject *)(slot < SAVED ? node : op_node),
                                              NODE_SLOT_NAMES[slot])) < 0)
            return NULL;
    if (!PyType_IsSubtype((PyTypeObject *)accumulator, (PyTypeObject *)node)
            || (variable_offset = slot_offset((PyTypeObject *)accumulator, "variable")) < 0) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_TypeError, "AccumulateGrad is not a Node");
        return NULL;
    }
    if (intern(&shape_name, "shape") < 0 || intern(&node_class_name, "_node_class") < 0
            || intern(&dtype_name, "dtype") < 0)
        return NULL;
    if (!PyType_IsSubtype((PyTypeObject *)size, &PyTuple_Type)) {
        PyErr_SetString(PyExc_TypeError, "Size is not a tuple");
        return NULL;
    }
    Py_XSETREF(size_type, (PyTypeObject *)Py_NewRef(size));
    Py_XSETREF(shape_property, Py_XNewRef(_PyType_Lookup(tensor_type, shape_name)));
    Py_XSETREF(dtype_property, Py_XNewRef(_PyType_Lookup(tensor_type, dtype_name)));
    Py_XSETREF(accumulator_type, (PyTypeObject *)Py_NewRef(accumulator));
    Py_XSETREF(last_sequence, Py_NewRef(last));
    Py_XSETREF(op_node_type, (PyTypeObject *)Py_NewRef(op_node));
    Py_XSETREF(sequence, Py_NewRef(count));
    Py_XSETREF(input_metas, Py_NewRef(metas));
    Py_XSETREF(no_edge, Py_NewRef(edge));
    Py_XSETREF(gradient_edge, Py_NewRef(edge_function));
    Py_XSETREF(slow_new_node, Py_NewRef(slow));
    metas_kept = kept;
    Py_RETURN_NONE;
}

static void put_node(PyObject *node, int slot, PyObject *value) {
    PyObject **place = (PyObject **)((char *)node + node_offsets[slot]);
    Py_XSETREF(*place, value);  /* (takes the reference) */
}

/* The tensor's `shape` and `dtype` into *SHAPE and *DTYPE (new references): Tensor's own
 * properties' values read from its fields where its class keeps them. 0, -1 with an error set. */
static int shape_metadata(PyObject *tensor, PyObject **shape, PyObject **dtype) {
    PyTypeObject *cls = Py_TYPE(tensor);
    PyObject *data = get(tensor, DATA), *kind = get(tensor, DTYPE);
    if (shape_property != NULL && data != NULL && kind != NULL && Py_IS_TYPE(data, ndarray_type)
            && _PyType_Lookup(cls, shape_name) == shape_property && _PyType_Lookup(cls, dtype_name) == dtype_property) {
        PyObject *dims = PyObject_GetAttr(data, shape_name), *arguments = dims ? PyTuple_Pack(1, dims) : NULL;
        *shape = arguments ? PyTuple_Type.tp_new(size_type, arguments, NULL) : NULL;  /* tuple.__new__(Size, dims) */
        Py_XDECREF(dims);
        Py_XDECREF(arguments);
        *dtype = Py_NewRef(kind);
    } else {
        *shape = PyObject_GetAttr(tensor, shape_name);
        *dtype = *shape ? PyObject_GetAttr(tensor, dtype_name) : NULL;
    }
    if (*shape != NULL && *dtype != NULL)
        return 0;
    Py_CLEAR(*shape);
    Py_CLEAR(*dtype);
    return -1;
}

/* Tensor._grad_accumulator(): the leaf's AccumulateGrad while one lives (the tensor holds it
 * weakly), else a new one made as AccumulateGrad.__init__ makes it, a sequence number taken as
 * Node.__init__ takes one. A new reference; NULL with an error set. */
static PyObject *grad_accumulator(PyObject *tensor) {
    PyObject *held = field(tensor, ACCUMULATOR);
    if (held == NULL)
        return NULL;
    if (PyWeakref_CheckRefExact(held)) {
        PyObject *alive = PyWeakref_GetObject(held);
        if (alive == NULL)
            return NULL;
        if (alive != Py_None)
            return Py_NewRef(alive);
    }
    PyObject *taken = PyIter_Next(sequence);
    if (taken == NULL) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_StopIteration, "the sequence ended");
        return NULL;
    }
    Py_DECREF(taken);
    PyObject *node = accumulator_type->tp_alloc(accumulator_type, 0);
    if (node == NULL)
        return NULL;
    PyObject *shape, *dtype;
    if (shape_metadata(tensor, &shape, &dtype) < 0) {
        Py_DECREF(node);
        return NULL;
    }
    PyObject *meta = PyTuple_Pack(2, shape, dtype), *metas = meta ? PyList_New(1) : NULL;
    Py_XDECREF(shape);
    Py_XDECREF(dtype);
    if (metas == NULL) {
        Py_XDECREF(meta);
        Py_DECREF(node);
        return NULL;
    }
    PyList_SET_ITEM(metas, 0, meta);
    put_node(node, NEXT_FUNCTIONS, PyTuple_New(0));
    put_node(node, SEQ, Py_NewRef(last_sequence));
    put_node(node, INPUT_META, metas);
    for (int slot = TENSOR_HOOKS; slot <= METADATA; slot++)
        put_node(node, slot, Py_NewRef(Py_None));
    PyObject **variable = (PyObject **)((char *)node + variable_offset);
    Py_XSETREF(*variable, Py_NewRef(tensor));
    PyObject *reference = PyWeakref_NewRef(node, NULL);
    if (reference == NULL || node_slot(node, NEXT_FUNCTIONS) == NULL) {
        Py_XDECREF(reference);
        Py_DECREF(node);
        return NULL;
    }
    put(tensor, ACCUMULATOR, reference);
    Py_DECREF(reference);
    return node;
}

static PyObject *py_grad_accumulator(PyObject *self, PyObject *tensor) {
    if (accumulator_type == NULL || !PyObject_TypeCheck(tensor, tensor_type)) {
        PyErr_SetString(PyExc_TypeError, accumulator_type ? "expected a tensor" : "prepare_nodes was not called");
        return NULL;
    }
    return grad_accumulator(tensor);
}

/* engine.gradient_edge(tensor): a new reference, NULL with an error set. */
static PyObject *edge_of(PyObject *tensor) {
    PyObject *base = get(tensor, BASE), *node = get(tensor, NODE), *output_nr = get(tensor, OUTPUT_NR);
    PyObject *requires_grad = get(tensor, REQUIRES_GRAD);
    if (base != Py_None || node == NULL || output_nr == NULL || requires_grad == NULL)  /* a view: its history may
                                                                                          need refreshing */
        return PyObject_CallOneArg(gradient_edge, tensor);
    if (node != Py_None)
        return PyTuple_Pack(2, node, output_nr);
    int wanted = PyObject_IsTrue(requires_grad);
    if (wanted <= 0)
        return wanted < 0 ? NULL : Py_NewRef(no_edge);
    PyObject *accumulator = grad_accumulator(tensor);
    if (accumulator == NULL)
        return NULL;
    PyObject *zero = PyLong_FromLong(0), *edge = zero ? PyTuple_Pack(2, accumulator, zero) : NULL;
    Py_DECREF(accumulator);
    Py_XDECREF(zero);
    return edge;
}

/* Whether node_of() makes op's grad_fn on INPUTS (a tuple of tensors whose fields are written, the
 * op's class made): 1 with *cls set to its class (a new reference), 0 if not, -1 with an error set. */
static int node_made(PyObject *op, PyObject *inputs, PyObject **cls) {
    if (!PyTuple_CheckExact(inputs))
        return 0;
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(inputs); i++) {
        PyObject *tensor = PyTuple_GET_ITEM(inputs, i);
        if (!PyObject_TypeCheck(tensor, tensor_type) || get(tensor, DATA) == NULL || get(tensor, DTYPE) == NULL)
            return 0;
    }
    if ((*cls = PyObject_GetAttr(op, node_class_name)) == NULL)
        return -1;
    if (PyType_Check(*cls) && PyType_IsSubtype((PyTypeObject *)*cls, op_node_type))
        return 1;
    Py_CLEAR(*cls);  /* not made yet */
    return 0;
}

/* registry.new_node's grad_fn of class CLS on INPUTS where node_made() said so: a new reference,
 * NULL with an error set. */
static PyObject *node_of(PyTypeObject *cls, PyObject *inputs, PyObject *params) {
    Py_ssize_t size = PyTuple_GET_SIZE(inputs);
    PyObject *metas = PyTuple_New(size), *edges = PyTuple_New(size), *node = NULL;
    if (metas == NULL || edges == NULL)
        goto done;
    for (Py_ssize_t i = 0; i < size; i++) {
        PyObject *tensor = PyTuple_GET_ITEM(inputs, i);
        PyObject *data = field(tensor, DATA), *dtype = data ? field(tensor, DTYPE) : NULL;
        PyObject *shape = dtype ? PyObject_GetAttr(data, shape_name) : NULL;
        PyObject *meta = shape ? PyTuple_Pack(2, shape, dtype) : NULL;
        Py_XDECREF(shape);
        if (meta == NULL)
            goto done;
        PyTuple_SET_ITEM(metas, i, meta);
        PyObject *edge = edge_of(tensor);
        if (edge == NULL)
            goto done;
        PyTuple_SET_ITEM(edges, i, edge);
    }
    /* one tuple for all nodes with the same input metas */
    PyObject *shared = PyDict_GetItemWithError(input_metas, metas);
    if (shared != NULL) {
        Py_SETREF(metas, Py_NewRef(shared));
    } else {
        if (PyErr_Occurred())
            goto done;
        if (PyDict_GET_SIZE(input_metas) >= metas_kept)
            PyDict_Clear(input_metas);
        if (PyDict_SetItem(input_metas, metas, metas) < 0)
            goto done;
    }
    PyObject *seq = PyIter_Next(sequence);
    PyObject *saved = seq ? PyDict_New() : NULL;
    if (saved == NULL) {
        Py_XDECREF(seq);
        goto done;
    }
    node = cls->tp_alloc(cls, 0);
    if (node == NULL) {
        Py_DECREF(seq);
        Py_DECREF(saved);
        goto done;
    }
    put_node(node, NEXT_FUNCTIONS, Py_NewRef(edges));
    put_node(node, SEQ, seq);
    put_node(node, INPUT_META, Py_NewRef(metas));
    put_node(node, TENSOR_HOOKS, Py_NewRef(Py_None));
    put_node(node, RETAINED, Py_NewRef(Py_None));
    put_node(node, NODE_HOOKS, Py_NewRef(Py_None));
    put_node(node, METADATA, Py_NewRef(Py_None));
    put_node(node, PARAMS, Py_NewRef(params));
    put_node(node, RELEASED, Py_NewRef(Py_False));
    put_node(node, SAVED, saved);
done:
    Py_XDECREF(metas);
    Py_XDECREF(edges);
    return node;
}

/* new_node(op, inputs, params): a grad_fn of op on inputs, before anything is saved in it. */
static PyObject *py_new_node(PyObject *self, PyObject *const *args, Py_ssize_t count) {
    if (op_node_type == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "prepare_nodes was not called");
        return NULL;
    }
    PyObject *cls = NULL;
    int taken = count == 3 && PyDict_CheckExact(args[2]) ? node_made(args[0], args[1], &cls) : 0;
    if (taken < 0)
        return NULL;
    if (!taken)
        return PyObject_Vectorcall(slow_new_node, args, count, NULL);
    PyObject *node = node_of((PyTypeObject *)cls, args[1], args[2]);
    Py_DECREF(cls);
    return node;
}

/* ------------------------------------------------------------------ recording */

enum { SAVED_TENSOR, SAVED_VERSION, SAVED_IS_OUTPUT, SAVED_OUTPUT_NR, SAVED_UNPACK_HOOK, SAVED_SLOTS };
static const char *const SAVED_SLOT_NAMES[SAVED_SLOTS] = {"tensor", "version", "is_output", "output_nr",
                                                          "unpack_hook"};
static Py_ssize_t saved_offsets[SAVED_SLOTS];
PyTypeObject *saved_type;
static PyObject *unpack_name;
/* the Python record, meta.state, FORWARD_LEVELS, saved_variable.default_hooks, VIEW_NO_GRAD, dtypes.FLOATING */
PyObject *meta_state, *forward_levels, *made_name;
static PyObject *slow_record, *default_hooks, *view_no_grad;
static long floating;
static PyObject *element_wise_name, *category_name, *save_plans_name, *save_plan_name,
    *requires_grad_attr, *item_name, *is_output_name, *view_of_name;

/* prepare_record(record, SavedTensor, meta_state, FORWARD_LEVELS, default_hooks, VIEW_NO_GRAD, FLOATING);
 * after prepare_nodes. */
static PyObject *py_prepare_record(PyObject *self, PyObject *args) {
    PyObject *record, *saved, *state, *levels, *hooks, *no_grad_kind;
    long kind;
    if (!PyArg_ParseTuple(args, "OO!O!O!O!Ol", &record, &PyType_Type, &saved, &PyDict_Type, &state, &PyList_Type,
                          &levels, &PyList_Type, &hooks, &no_grad_kind, &kind))
        return NULL;
    if (op_node_type == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "prepare_nodes was not called");
        return NULL;
    }
    for (int slot = 0; slot < SAVED_SLOTS; slot++)
        if ((saved_offsets[slot] = slot_offset((PyTypeObject *)saved, SAVED_SLOT_NAMES[slot])) < 0)
            return NULL;
    if (intern(&enabled_name, "_enabled") < 0 || intern(&made_name, "made") < 0 || intern(&unpack_name, "unpack") < 0
            || intern(&element_wise_name, "element_wise") < 0 || intern(&category_name, "category") < 0
            || intern(&save_plans_name, "_save_plans") < 0 || intern(&save_plan_name, "save_plan") < 0
            || intern(&requires_grad_attr, "requires_grad") < 0 || intern(&item_name, "item") < 0
            || intern(&is_output_name, "is_output") < 0 || intern(&view_of_name, "view_of") < 0)
        return NULL;
    Py_XSETREF(slow_record, Py_NewRef(record));
    Py_XSETREF(saved_type, (PyTypeObject *)Py_NewRef(saved));
    Py_XSETREF(meta_state, Py_NewRef(state));
    Py_XSETREF(forward_levels, Py_NewRef(levels));
    Py_XSETREF(default_hooks, Py_NewRef(hooks));
    Py_XSETREF(view_no_grad, Py_NewRef(no_grad_kind));
    floating = kind;
    Py_RETURN_NONE;
}

/* Whether a numpy array lies in C order (numpy's flag, which ignores the strides of size-1
 * dimensions, as the buffer's check does); -1 where it exports no buffer. */
static int in_c_order(PyObject *array, int *ndim) {
    Py_buffer view;
    if (PyObject_GetBuffer(array, &view, PyBUF_STRIDES) < 0) {
        PyErr_Clear();
        return -1;
    }
    int contiguous = PyBuffer_IsContiguous(&view, 'C');
    if (ndim != NULL)
        *ndim = view.ndim;
    PyBuffer_Release(&view);
    return contiguous;
}

/* Tensor.requires_grad, read as record reads it: 1, 0, -1 with an error set. */
static int needs_grad(PyObject *tensor) {
    PyObject *own = field(tensor, REQUIRES_GRAD), *node = own ? field(tensor, NODE) : NULL;
    PyObject *base = node ? field(tensor, BASE) : NULL;
    if (base == NULL)
        return -1;
    int wanted = PyObject_IsTrue(own);
    if (wanted != 0 || node != Py_None)
        return wanted < 0 ? -1 : 1;
    if (base == Py_None)
        return 0;
    PyObject *value = PyObject_GetAttr(base, requires_grad_attr);
    if (value == NULL)
        return -1;
    wanted = PyObject_IsTrue(value);
    Py_DECREF(value);
    return wanted;
}

/* SavedTensor(tensor) for an input, as its __init__ keeps one without hooks: a new reference, NULL
 * with an error set (an inference tensor's error is the class's own). */
static PyObject *saved_input(PyObject *tensor) {
    PyObject *is_inference = field(tensor, IS_INFERENCE);
    int inferred = is_inference ? PyObject_IsTrue(is_inference) : -1;
    if (inferred != 0)
        return inferred < 0 ? NULL : PyObject_CallOneArg((PyObject *)saved_type, tensor);
    PyObject *counter = field(tensor, VC), *version = counter ? PyObject_GetAttr(counter, value_name) : NULL;
    if (version == NULL)
        return NULL;
    PyObject *saved = saved_type->tp_alloc(saved_type, 0);
    if (saved == NULL) {
        Py_DECREF(version);
        return NULL;
    }
    PyObject *zero = PyLong_FromLong(0);
    PyObject *values[SAVED_SLOTS] = {Py_NewRef(tensor), version, Py_NewRef(Py_False), zero, Py_NewRef(Py_None)};
    for (int slot = 0; slot < SAVED_SLOTS; slot++)
        *(PyObject **)((char *)saved + saved_offsets[slot]) = values[slot];
    return saved;
}

PyObject *tensor_alias(PyObject *tensor, PyObject *node, PyObject *output_nr) {
    PyObject *data = field(tensor, DATA), *dtype = data ? field(tensor, DTYPE) : NULL;
    PyObject *counter = dtype ? field(tensor, VC) : NULL, *tangents = counter ? field(tensor, FW) : NULL;
    if (tangents == NULL)
        return NULL;
    int taken = makes((PyObject *)tensor_type, data, dtype, Py_None);
    if (taken <= 0)
        return taken < 0 ? NULL : PyObject_CallMethod(tensor, "_alias", "OO", node, output_nr);
    Py_INCREF(counter);
    Py_INCREF(tangents);  /* (held: make() may run Python code that changes the tensor) */
    PyObject *alias = make(tensor_type, data, dtype, Py_None, Py_False, view_default);
    if (alias != NULL) {
        put(alias, VC, counter);
        put(alias, NODE, node);
        put(alias, OUTPUT_NR, output_nr);
        put(alias, FW, tangents);
    }
    Py_DECREF(counter);
    Py_DECREF(tangents);
    return alias;
}

/* SavedTensor(out, is_output=True) for an op's result, as its __init__ keeps one without hooks:
 * an alias with no history. A new reference, NULL with an error set. */
static PyObject *saved_output(PyObject *out) {
    PyObject *is_inference = field(out, IS_INFERENCE), *wrapped = is_inference ? field(out, WRAPPED) : NULL;
    PyObject *counter = wrapped ? field(out, VC) : NULL;
    if (counter == NULL)
        return NULL;
    if (is_inference != Py_False || wrapped != Py_False) {  /* the class's own error, or its number */
        PyObject *options = Py_BuildValue("{O:O}", is_output_name, Py_True), *arguments[1] = {out};
        PyObject *saved = options ? PyObject_VectorcallDict((PyObject *)saved_type, arguments, 1, options) : NULL;
        Py_XDECREF(options);
        return saved;
    }
    PyObject *version = PyObject_GetAttr(counter, value_name);
    PyObject *zero = version ? PyLong_FromLong(0) : NULL;
    PyObject *alias = zero ? tensor_alias(out, Py_None, zero) : NULL;
    PyObject *saved = alias ? saved_type->tp_alloc(saved_type, 0) : NULL;
    if (saved == NULL) {
        Py_XDECREF(version);
        Py_XDECREF(zero);
        Py_XDECREF(alias);
        return NULL;
    }
    PyObject *values[SAVED_SLOTS] = {alias, version, Py_NewRef(Py_True), zero, Py_NewRef(Py_None)};
    for (int slot = 0; slot < SAVED_SLOTS; slot++)
        *(PyObject **)((char *)saved + saved_offsets[slot]) = values[slot];
    return saved;
}

PyObject *saved_unpack(PyObject *saved, PyObject *node) {
    PyObject *tensor = NULL, *version = NULL, *is_output = NULL, *output_nr = NULL, *hook = NULL;
    if (Py_TYPE(saved) == saved_type) {
        PyObject **slots[SAVED_SLOTS] = {&tensor, &version, &is_output, &output_nr, &hook};
        for (int slot = 0; slot < SAVED_SLOTS; slot++)
            *slots[slot] = *(PyObject **)((char *)saved + saved_offsets[slot]);
    }
    PyObject *counter = tensor != NULL && tensor != Py_None && PyObject_TypeCheck(tensor, tensor_type)
        ? get(tensor, VC) : NULL;
    if (counter == NULL || version == NULL || output_nr == NULL || hook != Py_None
            || (is_output != Py_True && is_output != Py_False))  /* hooked, a number, not set: the method's */
        return PyObject_CallMethodOneArg(saved, unpack_name, node);
    PyObject *now = PyObject_GetAttr(counter, value_name);
    int same = now ? PyObject_RichCompareBool(now, version, Py_EQ) : -1;
    Py_XDECREF(now);
    if (same <= 0)  /* modified in place: the method's error */
        return same < 0 ? NULL : PyObject_CallMethodOneArg(saved, unpack_name, node);
    return is_output == Py_True ? tensor_alias(tensor, node, output_nr) : Py_NewRef(tensor);
}

static PyObject *py_unpack_saved(PyObject *self, PyObject *const *args, Py_ssize_t count) {
    if (count != 2 || saved_type == NULL) {
        PyErr_SetString(PyExc_TypeError, saved_type ? "unpack_saved(saved, node)" : "prepare_record was not called");
        return NULL;
    }
    return saved_unpack(args[0], args[1]);
}

/* What the node keeps under each name the op's save plan for NEEDS lists: 0, -1 with an error set. */
static int save(PyObject *op, PyObject *node, PyObject *inputs, PyObject *out, PyObject *needs, PyObject *params) {
    PyObject *plans = PyObject_GetAttr(op, save_plans_name), *plan = NULL;
    if (plans == NULL)
        return -1;
    plan = PyDict_CheckExact(plans) ? PyDict_GetItemWithError(plans, needs) : NULL;
    Py_XINCREF(plan);
    Py_DECREF(plans);
    if (plan == NULL && (PyErr_Occurred() || (plan = PyObject_CallMethodOneArg(op, save_plan_name, needs)) == NULL))
        return -1;
    PyObject *saved = *(PyObject **)((char *)node + node_offsets[SAVED]);
    PyObject *entries = PySequence_Fast(plan, "a save plan is a sequence");
    Py_DECREF(plan);
    if (entries == NULL)
        return -1;
    int status = 0;
    for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(entries) && status == 0; i++) {
        PyObject *entry = PySequence_Fast_GET_ITEM(entries, i), *name, *value = NULL;
        Py_ssize_t index;
        if (!PyTuple_Check(entry) || PyTuple_GET_SIZE(entry) != 2
                || ((index = PyLong_AsSsize_t(PyTuple_GET_ITEM(entry, 1))) == -1 && PyErr_Occurred())) {
            if (!PyErr_Occurred())
                PyErr_SetString(PyExc_TypeError, "a save plan's entry is (name, index)");
            status = -1;
            break;
        }
        name = PyTuple_GET_ITEM(entry, 0);
        if (index < 0) {  /* the result, kept without its grad_fn: the class's own way */
            value = saved_output(out);
        } else {
            int given = PyDict_Contains(params, name);
            if (given != 0) {
                status = given < 0 ? -1 : 0;
                continue;
            }
            if (index >= PyTuple_GET_SIZE(inputs)) {
                PyErr_SetString(PyExc_IndexError, "a save plan's index is past the inputs");
                status = -1;
                break;
            }
            PyObject *tensor = PyTuple_GET_ITEM(inputs, index);
            PyObject *number = field(tensor, WRAPPED), *data = number ? field(tensor, DATA) : NULL;
            int wrapped = data ? PyObject_IsTrue(number) : -1;
            /* a Python number is kept as the number (see OpNode._kept) */
            value = wrapped < 0 ? NULL : wrapped ? PyObject_CallMethodNoArgs(data, item_name) : saved_input(tensor);
        }
        if (value == NULL || PyDict_SetItem(saved, name, value) < 0)
            status = -1;
        Py_XDECREF(value);
    }
    Py_DECREF(entries);
    return status;
}

/* Whether record's native path takes this call: 1, 0 (the Python record's), -1 with an error set. */
static int records(PyObject *op, PyObject *inputs, PyObject *data, PyObject *dtype, PyObject *view_of) {
    if (!PyTuple_CheckExact(inputs) || PyList_GET_SIZE(forward_levels) || PyList_GET_SIZE(default_hooks))
        return 0;
    PyObject *made = PyDict_GetItemWithError(meta_state, made_name);
    if (made != Py_False)
        return made == NULL && PyErr_Occurred() ? -1 : 0;
    int taken = makes((PyObject *)tensor_type, data, dtype, view_of);
    if (taken <= 0)
        return taken;
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(inputs); i++) {
        PyObject *tensor = PyTuple_GET_ITEM(inputs, i);
        if (!PyObject_TypeCheck(tensor, tensor_type))
            return 0;
        for (int slot = 0; slot < SLOTS; slot++)
            if (slot != VIEW_VERSION && get(tensor, slot) == NULL)
                return 0;
    }
    /* an element-wise op on inputs not all in C order: the result's layout is worked out in Python */
    PyObject *element_wise = PyObject_GetAttr(op, element_wise_name);
    if (element_wise == NULL)
        return -1;
    int each = PyObject_IsTrue(element_wise), ndim = 0;
    Py_DECREF(element_wise);
    if (each < 0)
        return -1;
    if (each) {
        if (in_c_order(data, &ndim) < 0)
            return 0;
        for (Py_ssize_t i = 0; ndim > 1 && i < PyTuple_GET_SIZE(inputs); i++)
            if (in_c_order(get(PyTuple_GET_ITEM(inputs, i), DATA), NULL) != 1)
                return 0;
    }
    return 1;
}

/* record(op, inputs, data, dtype, view_of=None, **params): registry.record, the output tensor of op
 * on inputs with its grad_fn when the graph is being recorded. */
static PyObject *record_taken(PyObject *op, PyObject *inputs, PyObject *data, PyObject *dtype, PyObject *view_of,
                              PyObject *params, int *python);

static PyObject *py_record(PyObject *self, PyObject *const *args, Py_ssize_t count, PyObject *kwnames) {
    if (saved_type == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "prepare_record was not called");
        return NULL;
    }
    if (count < 4 || count > 5)
        return PyObject_Vectorcall(slow_record, args, count, kwnames);
    PyObject *op = args[0], *inputs = args[1], *data = args[2], *dtype = args[3];
    PyObject *view_of = count == 5 ? args[4] : Py_None;
    PyObject *params = PyDict_New();
    if (params == NULL)
        return NULL;
    Py_ssize_t keywords = kwnames == NULL ? 0 : PyTuple_GET_SIZE(kwnames);
    for (Py_ssize_t i = 0; i < keywords; i++) {
        PyObject *name = PyTuple_GET_ITEM(kwnames, i);
        if (name == view_of_name && count == 4)
            view_of = args[count + i];
        else if (PyDict_SetItem(params, name, args[count + i]) < 0) {
            Py_DECREF(params);
            return NULL;
        }
    }
    int python = 0, taken = records(op, inputs, data, dtype, view_of);
    PyObject *out = taken > 0 ? record_taken(op, inputs, data, dtype, view_of, params, &python) : NULL;
    Py_DECREF(params);
    if (taken == 0 || python)
        return PyObject_Vectorcall(slow_record, args, count, kwnames);
    return out;
}

/* registry.record where records() took the call (PARAMS: the node's, taken over): the output, or
 * NULL with an error set, or NULL with *python set where the Python record is to run instead. */
PyObject *record_op(PyObject *op, PyObject *inputs, PyObject *data, PyObject *dtype, PyObject *params) {
    int python = 0, taken = records(op, inputs, data, dtype, Py_None);
    PyObject *out = taken > 0 ? record_taken(op, inputs, data, dtype, Py_None, params, &python) : NULL;
    if (taken == 0 || python) {
        PyObject *positional[4] = {op, inputs, data, dtype};
        out = PyObject_VectorcallDict(slow_record, positional, 4, params);
    }
    return out;
}

static PyObject *record_taken(PyObject *op, PyObject *inputs, PyObject *data, PyObject *dtype, PyObject *view_of,
                              PyObject *params, int *python) {
    PyObject *out = NULL, *cls = NULL, *needs = NULL, *node = NULL;
    PyObject *enabled = PyDict_GetItemWithError(grad_mode_globals, enabled_name);
    if (enabled == NULL) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_RuntimeError, "grad_mode has no _enabled");
        goto done;
    }
    int recording = PyObject_IsTrue(enabled);
    if (recording < 0)
        goto done;
    /* registry.view_kind(VIEW_DEFAULT) outside inference mode (records() made sure of it) */
    out = make(tensor_type, data, dtype, view_of, Py_False, view_of == Py_None || recording ? view_default
                                                                                           : view_no_grad);
    if (out == NULL || !recording)
        goto done;
    Py_ssize_t size = PyTuple_GET_SIZE(inputs);
    int any = 0;
    if ((needs = PyTuple_New(size)) == NULL)
        goto failed;
    for (Py_ssize_t i = 0; i < size; i++) {
        int wanted = needs_grad(PyTuple_GET_ITEM(inputs, i));
        if (wanted < 0)
            goto failed;
        any |= wanted;
        PyTuple_SET_ITEM(needs, i, Py_NewRef(wanted ? Py_True : Py_False));
    }
    if (!any)
        goto done;
    PyObject *category = PyObject_GetAttr(dtype, category_name);
    long kind_of_dtype = category ? PyLong_AsLong(category) : -1;
    Py_XDECREF(category);
    if (kind_of_dtype == -1 && PyErr_Occurred())
        goto failed;
    int made_here = kind_of_dtype >= floating ? node_made(op, inputs, &cls) : 0;
    if (made_here < 0)
        goto failed;
    if (!made_here) {  /* an integer output's error, or a node class not made yet: the Python record's */
        *python = 1;
        goto failed;
    }
    if ((node = node_of((PyTypeObject *)cls, inputs, params)) == NULL)
        goto failed;
    put(out, NODE, node);  /* before saving: a pack hook sees the output with its grad_fn */
    if (save(op, node, inputs, out, needs, params) < 0)
        goto failed;
    goto done;
failed:
    Py_CLEAR(out);
done:
    Py_XDECREF(cls);
    Py_XDECREF(needs);
    Py_XDECREF(node);
    return out;
}

PyMethodDef graph_methods[] = {
    {"prepare_tensors", py_prepare_tensors, METH_VARARGS,
     "prepare_tensors(Tensor, VersionCounter, ndarray, make, grad_mode_globals, BFLOAT16, INFERENCE_VERSION, "
     "VIEW_DEFAULT, VIEW_INFERENCE): where make_tensor writes, and what it hands the other calls to."},
    {"make_tensor", (PyCFunction)(void (*)(void))py_make_tensor, METH_FASTCALL | METH_KEYWORDS,
     "make_tensor(cls, data, dtype, *, base=None, requires_grad=False, view_kind='default'): Tensor._make, "
     "its common cases without a Python frame."},
    {"prepare_nodes", py_prepare_nodes, METH_VARARGS,
     "prepare_nodes(Node, OpNode, sequence, input_metas, metas_kept, NO_EDGE, gradient_edge, new_node, "
     "AccumulateGrad, LAST, Size): where new_node writes, and what it hands the other calls to."},
    {"unpack_saved", (PyCFunction)(void (*)(void))py_unpack_saved, METH_FASTCALL,
     "unpack_saved(saved, node): SavedTensor.unpack(node), its common cases without a Python frame."},
    {"grad_accumulator", py_grad_accumulator, METH_O,
     "grad_accumulator(tensor): Tensor._grad_accumulator without a Python frame."},
    {"prepare_record", py_prepare_record, METH_VARARGS,
     "prepare_record(record, SavedTensor, meta_state, FORWARD_LEVELS, default_hooks, VIEW_NO_GRAD, FLOATING): what "
     "record reads, and what it hands the other calls to."},
    {"record", (PyCFunction)(void (*)(void))py_record, METH_FASTCALL | METH_KEYWORDS,
     "record(op, inputs, data, dtype, view_of=None, **params): registry.record without a Python frame."},
    {"new_node", (PyCFunction)(void (*)(void))py_new_node, METH_FASTCALL,
     "new_node(op, inputs, params): registry.new_node, a grad_fn before anything is saved in it."},
    {NULL, NULL, 0, NULL},
};
