/* The autograd engine's loop (engine.run_backward's), for a pass that accumulates into leaves (not
 * torch.autograd.grad's pruned passes): nodes taken from the ready queue in PyTorch's order (heap.c),
 * each plain node's turn (a grad_fn without hooks) taken here, the others handed to engine._turn.
 * The same steps, in the same order, as _turn's; a node with OpNode's own apply (one output, not
 * variadic) has its formulas called from here with the values OpNode._value gives them.
 *
 * Security: a program never holds these functions; every object read is checked for its type, and
 * the engine's own buffers are read through their sizes. */
#include "graph.h"

static PyTypeObject *accumulate_grad_type;
/* engine._validate, anomaly_mode's globals; the names read */
static PyObject *validate_function, *anomaly_globals;
static PyObject *apply_name, *release_name, *dtype_name, *data_name;

static PyTypeObject *node_type;

/* prepare_engine(Node, AccumulateGrad, _validate, anomaly_mode_globals) */
static PyObject *py_prepare_engine(PyObject *self, PyObject *args) {
    PyObject *node, *accumulate, *validate, *globals;
    if (!PyArg_ParseTuple(args, "O!O!OO!", &PyType_Type, &node, &PyType_Type, &accumulate, &validate, &PyDict_Type,
                          &globals))
        return NULL;
    for (int slot = 0; slot < SAVED; slot++)
        if ((node_offsets[slot] = slot_offset((PyTypeObject *)node, NODE_SLOT_NAMES[slot])) < 0)
            return NULL;
    if (intern(&shape_name, "shape") < 0 || intern(&apply_name, "apply") < 0 || intern(&release_name, "release") < 0
            || intern(&dtype_name, "_dtype") < 0 || intern(&data_name, "_data") < 0
            || intern(&enabled_name, "_enabled") < 0)
        return NULL;
    Py_XSETREF(node_type, (PyTypeObject *)Py_NewRef(node));
    Py_XSETREF(accumulate_grad_type, (PyTypeObject *)Py_NewRef(accumulate));
    Py_XSETREF(validate_function, Py_NewRef(validate));
    Py_XSETREF(anomaly_globals, Py_NewRef(globals));
    Py_RETURN_NONE;
}

/* Whether the loop runs NODE's turn itself: a grad_fn (not a leaf's accumulator) with no hooks on it
 * or its outputs, anomaly detection off; 1, 0, -1 with an error set. */
static int plain_turn(PyObject *node) {
    if (Py_TYPE(node) == accumulate_grad_type || !PyObject_TypeCheck(node, node_type))
        return 0;
    PyObject *tensor_hooks = node_slot(node, TENSOR_HOOKS), *retained = node_slot(node, RETAINED);
    PyObject *node_hooks = node_slot(node, NODE_HOOKS), *edges = node_slot(node, NEXT_FUNCTIONS);
    if (tensor_hooks == NULL || retained == NULL || node_hooks != Py_None || edges == NULL
            || node_slot(node, INPUT_META) == NULL)
        return 0;
    int hooked = PyObject_IsTrue(tensor_hooks);
    if (hooked == 0)
        hooked = PyObject_IsTrue(retained);
    if (hooked != 0)
        return hooked < 0 ? -1 : 0;
    PyObject *anomaly = PyDict_GetItemWithError(anomaly_globals, enabled_name);
    if (anomaly == NULL)
        return PyErr_Occurred() ? -1 : 0;
    int detecting = PyObject_IsTrue(anomaly);
    return detecting < 0 ? -1 : !detecting;
}

/* The gradients a node's formula gets: [grads[0]] for one output, else grads[i] (None where none
 * came) for i up to the highest output number; a new list, NULL with an error set. */
static PyObject *grad_outputs_of(PyObject *grads) {
    PyObject *zero = PyLong_FromLong(0);
    if (zero == NULL)
        return NULL;
    PyObject *first = PyDict_GetItemWithError(grads, zero);
    Py_DECREF(zero);
    if (first == NULL && PyErr_Occurred())
        return NULL;
    if (first != NULL && PyDict_GET_SIZE(grads) == 1) {
        PyObject *list = PyList_New(1);
        if (list != NULL)
            PyList_SET_ITEM(list, 0, Py_NewRef(first));
        return list;
    }
    long highest = 0;
    Py_ssize_t position = 0;
    PyObject *key, *value;
    while (PyDict_Next(grads, &position, &key, &value)) {
        long number = PyLong_AsLong(key);
        if (number == -1 && PyErr_Occurred())
            return NULL;
        if (number > highest)
            highest = number;
    }
    PyObject *list = PyList_New(highest + 1);
    for (long i = 0; list != NULL && i <= highest; i++) {
        PyObject *number = PyLong_FromLong(i);
        PyObject *grad = number ? PyDict_GetItemWithError(grads, number) : NULL;
        Py_XDECREF(number);
        if (grad == NULL && PyErr_Occurred()) {
            Py_CLEAR(list);
            break;
        }
        PyList_SET_ITEM(list, i, Py_NewRef(grad ? grad : Py_None));
    }
    return list;
}

/* grad._dtype is dtype and grad._data.shape == shape, read in that order: 1, 0, -1 with an error set. */
static int fits(PyObject *grad, PyObject *shape, PyObject *dtype) {
    int tensor = PyObject_TypeCheck(grad, tensor_type) && get(grad, DTYPE) != NULL && get(grad, DATA) != NULL;
    PyObject *own_dtype = tensor ? Py_NewRef(get(grad, DTYPE)) : PyObject_GetAttr(grad, dtype_name);
    if (own_dtype == NULL)
        return -1;
    Py_DECREF(own_dtype);
    if (own_dtype != dtype)
        return 0;
    PyObject *data = tensor ? Py_NewRef(get(grad, DATA)) : PyObject_GetAttr(grad, data_name);
    PyObject *own_shape = data ? PyObject_GetAttr(data, shape_name) : NULL;
    Py_XDECREF(data);
    int same = own_shape == NULL ? -1 : PyObject_RichCompareBool(own_shape, shape, Py_EQ);
    Py_XDECREF(own_shape);
    return same;
}

/* GRAD into CHILD's buffer at OUTPUT_NR (added to what is there); 0, -1 with an error set. */
static int buffer_grad(PyObject *buffers, PyObject *child, PyObject *output_nr, PyObject *grad) {
    PyObject *slot = PyDict_GetItemWithError(buffers, child);
    if (slot == NULL) {
        if (PyErr_Occurred() || (slot = PyDict_New()) == NULL)
            return -1;
        int failed = PyDict_SetItem(slot, output_nr, grad) < 0 || PyDict_SetItem(buffers, child, slot) < 0;
        Py_DECREF(slot);
        return failed ? -1 : 0;
    }
    Py_INCREF(slot);
    PyObject *previous = PyDict_GetItemWithError(slot, output_nr), *sum;
    if (previous == NULL && PyErr_Occurred()) {
        Py_DECREF(slot);
        return -1;
    }
    sum = previous == NULL || previous == Py_None ? Py_NewRef(grad) : PyNumber_Add(previous, grad);
    int failed = sum == NULL || PyDict_SetItem(slot, output_nr, sum) < 0;
    Py_XDECREF(sum);
    Py_DECREF(slot);
    return failed ? -1 : 0;
}

/* ------------------------------------------------------------------ a grad_fn's formulas */

/* OpNode.apply (the Python function the native apply stands in for), FREED_MESSAGE; the names read */
static PyObject *op_node_apply, *freed_message;
static PyObject *op_name, *multi_output_name, *variadic_name, *formulas_name, *formula_args_name,
    *saved_tensors_name, *wrap_number_name;

/* prepare_apply(OpNode.apply, FREED_MESSAGE); after prepare_engine and prepare_record. */
static PyObject *py_prepare_apply(PyObject *self, PyObject *args) {
    PyObject *apply, *message;
    if (!PyArg_ParseTuple(args, "OU", &apply, &message))
        return NULL;
    if (saved_type == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "prepare_record was not called");
        return NULL;
    }
    if (intern(&op_name, "_op") < 0 || intern(&multi_output_name, "multi_output") < 0
            || intern(&variadic_name, "variadic") < 0 || intern(&formulas_name, "formulas") < 0
            || intern(&formula_args_name, "formula_args") < 0 || intern(&saved_tensors_name, "saved_tensors") < 0
            || intern(&wrap_number_name, "_wrap_number") < 0)
        return NULL;
    Py_XSETREF(op_node_apply, Py_NewRef(apply));
    Py_XSETREF(freed_message, Py_NewRef(message));
    Py_RETURN_NONE;
}

/* OpNode._value(name): a parameter, or a saved value unpacked (a kept number wrapped again); a new
 * reference, NULL with an error set (a released node's is FREED_MESSAGE). */
static PyObject *node_value(PyObject *node, PyObject *op, PyObject *name) {
    PyObject *params = node_slot(node, PARAMS), *released = node_slot(node, RELEASED);
    PyObject *saved_values = node_slot(node, SAVED);
    if (params == NULL || released == NULL || saved_values == NULL) {
        PyErr_SetString(PyExc_AttributeError, "a node's fields are not set");
        return NULL;
    }
    int given = PySequence_Contains(params, name);
    if (given < 0)
        return NULL;
    if (given) {
        PyObject *kept = PyObject_GetAttr(op, saved_tensors_name);
        int saved_too = kept ? PySequence_Contains(kept, name) : -1;
        Py_XDECREF(kept);
        if (saved_too < 0)
            return NULL;
        if (!saved_too)
            return PyObject_GetItem(params, name);
    }
    int freed = PyObject_IsTrue(released);
    if (freed != 0) {
        if (freed > 0)
            PyErr_SetObject(PyExc_RuntimeError, freed_message);
        return NULL;
    }
    if (given)
        return PyObject_GetItem(params, name);
    PyObject *saved = PyObject_GetItem(saved_values, name), *value;
    if (saved == NULL)
        return NULL;
    if (Py_TYPE(saved) == saved_type)
        value = saved_unpack(saved, node);
    else
        value = PyObject_CallMethodOneArg((PyObject *)tensor_type, wrap_number_name, saved);
    Py_DECREF(saved);
    return value;
}

/* formula(grad, *the values its names ask for): a new reference, NULL with an error set. */
static PyObject *call_formula(PyObject *node, PyObject *op, PyObject *formula, PyObject *names, PyObject *grad) {
    PyObject *list = PySequence_Fast(names, "a formula's names are a sequence");
    if (list == NULL)
        return NULL;
    Py_ssize_t count = PySequence_Fast_GET_SIZE(list);
    PyObject *small[8], **arguments = count < 8 ? small : PyMem_New(PyObject *, count + 1), *result = NULL;
    if (arguments == NULL) {
        Py_DECREF(list);
        return PyErr_NoMemory();
    }
    arguments[0] = grad;
    Py_ssize_t made = 0;
    for (; made < count; made++)
        if ((arguments[made + 1] = node_value(node, op, PySequence_Fast_GET_ITEM(list, made))) == NULL)
            break;
    if (made == count)
        result = PyObject_Vectorcall(formula, arguments, count + 1, NULL);
    for (Py_ssize_t i = 0; i < made; i++)
        Py_DECREF(arguments[i + 1]);
    if (arguments != small)
        PyMem_Free(arguments);
    Py_DECREF(list);
    return result;
}

/* Whether OBJECT.NAME is true: 1, 0, -1 with an error set. */
static int flag_of(PyObject *object, PyObject *name) {
    PyObject *value = PyObject_GetAttr(object, name);
    int flag = value ? PyObject_IsTrue(value) : -1;
    Py_XDECREF(value);
    return flag;
}

/* OpNode.apply(grads) of a node whose op has one output and is not variadic (1: RESULT set), 0 when
 * the Python method is to run instead, -1 with an error set. */
static int apply_plain(PyObject *node, PyObject *grads, PyObject **result) {
    PyObject *op = PyObject_GetAttr(node, op_name), *formulas = NULL, *arguments = NULL, *list = NULL;
    if (op == NULL)
        return -1;
    int status = -1, special = flag_of(op, multi_output_name);
    if (special == 0)
        special = flag_of(op, variadic_name);
    if (special != 0) {
        Py_DECREF(op);
        return special < 0 ? -1 : 0;
    }
    PyObject *nexts = node_slot(node, NEXT_FUNCTIONS), *grad = PySequence_GetItem(grads, 0);
    if (grad == NULL || nexts == NULL) {
        if (grad != NULL)
            PyErr_SetString(PyExc_AttributeError, "a node's next_functions is not set");
        goto done;
    }
    Py_INCREF(nexts);
    if (grad == Py_None) {  /* [None] * len(nexts) */
        Py_ssize_t size = PyObject_Length(nexts);
        if (size >= 0 && (list = PyList_New(size)) != NULL)
            for (Py_ssize_t i = 0; i < size; i++)
                PyList_SET_ITEM(list, i, Py_NewRef(Py_None));
        status = list ? 1 : -1;
        goto nexts_done;
    }
    if ((formulas = PyObject_GetAttr(op, formulas_name)) == NULL
            || (arguments = PyObject_GetAttr(op, formula_args_name)) == NULL || (list = PyList_New(0)) == NULL)
        goto nexts_done;
    Py_ssize_t count = PyObject_Length(formulas), names_count = PyObject_Length(arguments);
    if (count < 0 || names_count < 0)
        goto nexts_done;
    if (names_count < count)
        count = names_count;
    for (Py_ssize_t index = 0; index < count; index++) {
        PyObject *formula = PySequence_GetItem(formulas, index), *value = NULL;
        if (formula == NULL)
            goto nexts_done;
        int wanted = formula != Py_None;
        if (wanted) {  /* nexts[index][0] is not None */
            PyObject *edge = PySequence_GetItem(nexts, index), *child = edge ? PySequence_GetItem(edge, 0) : NULL;
            Py_XDECREF(edge);
            wanted = child == NULL ? -1 : child != Py_None;
            Py_XDECREF(child);
        }
        if (wanted > 0) {
            PyObject *names = PySequence_GetItem(arguments, index);
            value = names ? call_formula(node, op, formula, names, grad) : NULL;
            Py_XDECREF(names);
        } else if (wanted == 0) {
            value = Py_NewRef(Py_None);
        }
        Py_DECREF(formula);
        if (value == NULL || PyList_Append(list, value) < 0) {
            Py_XDECREF(value);
            goto nexts_done;
        }
        Py_DECREF(value);
    }
    status = 1;
nexts_done:
    Py_DECREF(nexts);
done:
    Py_XDECREF(grad);
    Py_XDECREF(formulas);
    Py_XDECREF(arguments);
    Py_DECREF(op);
    if (status == 1)
        *result = list;
    else
        Py_XDECREF(list);
    return status;
}

/* node.apply(grads): the native one where the node's class has OpNode's own apply; a new reference,
 * NULL with an error set. */
static PyObject *apply_node(PyObject *node, PyObject *grads) {
    if (op_node_apply != NULL && PyObject_TypeCheck(node, node_type)) {
        PyObject *method = PyObject_GetAttr((PyObject *)Py_TYPE(node), apply_name);
        int own = method == op_node_apply;
        Py_XDECREF(method);
        if (method == NULL)
            return NULL;
        PyObject *result = NULL;
        int taken = own ? apply_plain(node, grads, &result) : 0;
        if (taken != 0)
            return taken < 0 ? NULL : result;
    }
    return PyObject_CallMethodOneArg(node, apply_name, grads);
}

/* Input I's gradient GRAD (a held reference) to the node of EDGE: checked against the input's
 * metadata (summed or cast by engine._validate where it differs), into that node's buffer, that
 * node queued once no gradient is still to come to it; 0, -1 with an error set. */
static int feed(PyObject *node, Py_ssize_t i, PyObject *edge, PyObject *grad, PyObject *metas, PyObject *heap,
                PyObject *buffers, PyObject *dependencies) {
    if (!PyTuple_Check(edge) || PyTuple_GET_SIZE(edge) != 2) {
        PyErr_SetString(PyExc_TypeError, "an edge is (node, output_nr)");
        return -1;
    }
    PyObject *child = PyTuple_GET_ITEM(edge, 0), *output_nr = PyTuple_GET_ITEM(edge, 1);
    if (child == Py_None)
        return 0;
    if (grad != Py_None) {
        PyObject *meta = PySequence_GetItem(metas, i), *checked;
        if (meta == NULL)
            return -1;
        int fit = PyTuple_Check(meta) && PyTuple_GET_SIZE(meta) == 2
                  ? fits(grad, PyTuple_GET_ITEM(meta, 0), PyTuple_GET_ITEM(meta, 1)) : 0;
        Py_DECREF(meta);
        if (fit < 0)
            return -1;
        if (fit) {
            checked = Py_NewRef(grad);
        } else {
            PyObject *index = PyLong_FromSsize_t(i);
            checked = index ? PyObject_CallFunctionObjArgs(validate_function, node, index, grad, NULL) : NULL;
            Py_XDECREF(index);
            if (checked == NULL)
                return -1;
        }
        int failed = buffer_grad(buffers, child, output_nr, checked);
        Py_DECREF(checked);
        if (failed)
            return -1;
    }
    PyObject *waiting = PyObject_GetItem(dependencies, child), *one = PyLong_FromLong(1), *remaining;
    remaining = waiting && one ? PyNumber_Subtract(waiting, one) : NULL;
    Py_XDECREF(one);
    Py_XDECREF(waiting);
    if (remaining == NULL)
        return -1;
    int ready = PyObject_SetItem(dependencies, child, remaining) < 0 ? -1
                : PyLong_Check(remaining) && PyLong_AsLong(remaining) == 0;
    Py_DECREF(remaining);
    if (ready <= 0)
        return ready;
    return PyList_GET_SIZE(heap) ? heap_push_node(heap, child) : PyList_Append(heap, child);
}

/* One plain node's turn (engine._turn's steps for it); 0, -1 with an error set. */
static int run_plain(PyObject *node, PyObject *heap, PyObject *buffers, PyObject *dependencies, int retain_graph) {
    PyObject *grads = PyDict_GetItemWithError(buffers, node), *outputs = NULL, *results = NULL, *sequence = NULL;
    int status = -1;
    if (grads == NULL) {
        if (PyErr_Occurred() || (grads = PyDict_New()) == NULL)
            return -1;
    } else {
        Py_INCREF(grads);
        if (PyDict_DelItem(buffers, node) < 0)
            goto done;
        if (!PyDict_Check(grads)) {
            PyErr_SetString(PyExc_TypeError, "a node's buffer is a dict");
            goto done;
        }
    }
    if ((outputs = grad_outputs_of(grads)) == NULL)
        goto done;
    Py_CLEAR(grads);
    if ((results = apply_node(node, outputs)) == NULL)
        goto done;
    Py_CLEAR(outputs);
    if (!retain_graph) {
        PyObject *released = PyObject_CallMethodNoArgs(node, release_name);
        if (released == NULL)
            goto done;
        Py_DECREF(released);
    }
    /* read again: the formula's Python code ran since plain_turn read them */
    PyObject *edges = node_slot(node, NEXT_FUNCTIONS), *metas = node_slot(node, INPUT_META);
    if (edges == NULL || metas == NULL || !PyTuple_Check(edges)) {
        PyErr_SetString(PyExc_TypeError, "a node's next_functions is a tuple, and its input metas are set");
        goto done;
    }
    Py_INCREF(edges);
    Py_INCREF(metas);
    if ((sequence = PySequence_Fast(results, "a node's formula returns a sequence")) == NULL)
        goto edges_done;
    /* zip(next_functions, results): the results' list is read through its size each time */
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(edges) && i < PySequence_Fast_GET_SIZE(sequence); i++) {
        PyObject *grad = Py_NewRef(PySequence_Fast_GET_ITEM(sequence, i));
        int failed = feed(node, i, PyTuple_GET_ITEM(edges, i), grad, metas, heap, buffers, dependencies);
        Py_DECREF(grad);
        if (failed)
            goto edges_done;
    }
    status = 0;
edges_done:
    Py_DECREF(edges);
    Py_DECREF(metas);
done:
    Py_XDECREF(grads);
    Py_XDECREF(outputs);
    Py_XDECREF(results);
    Py_XDECREF(sequence);
    return status;
}

/* run_ready(turn, run, heap, buffers, dependencies, retain_graph): the engine's loop while nodes are
 * ready, each taken from the heap by PyTorch's order; the plain ones run here, the others by
 * turn(run, node) (engine._turn: leaves, hooks, anomaly detection). */
static PyObject *py_run_ready(PyObject *self, PyObject *args) {
    PyObject *turn, *run, *heap, *buffers, *dependencies;
    int retain_graph;
    if (!PyArg_ParseTuple(args, "OOO!O!O!p", &turn, &run, &PyList_Type, &heap, &PyDict_Type, &buffers, &PyDict_Type,
                          &dependencies, &retain_graph))
        return NULL;
    if (accumulate_grad_type == NULL || tensor_type == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "prepare_engine and prepare_tensors were not both called");
        return NULL;
    }
    while (PyList_GET_SIZE(heap) > 0) {
        PyObject *node;
        if (PyList_GET_SIZE(heap) == 1) {  /* a chain keeps one node ready at a time: no heap to reorder */
            node = Py_NewRef(PyList_GET_ITEM(heap, 0));
            if (PyList_SetSlice(heap, 0, 1, NULL) < 0) {
                Py_DECREF(node);
                return NULL;
            }
        } else if ((node = heap_pop_node(heap)) == NULL) {
            return NULL;
        }
        int plain = plain_turn(node), failed;
        if (plain < 0) {
            failed = 1;
        } else if (plain) {
            failed = run_plain(node, heap, buffers, dependencies, retain_graph) < 0;
        } else {
            PyObject *done = PyObject_CallFunctionObjArgs(turn, run, node, NULL);
            failed = done == NULL;
            Py_XDECREF(done);
        }
        Py_DECREF(node);
        if (failed)
            return NULL;
    }
    Py_RETURN_NONE;
}

PyMethodDef engine_methods[] = {
    {"prepare_apply", py_prepare_apply, METH_VARARGS,
     "prepare_apply(OpNode.apply, FREED_MESSAGE): what the native apply reads."},
    {"prepare_engine", py_prepare_engine, METH_VARARGS,
     "prepare_engine(Node, AccumulateGrad, _validate, anomaly_mode_globals): what run_ready reads."},
    {"run_ready", py_run_ready, METH_VARARGS,
     "run_ready(turn, run, heap, buffers, dependencies, retain_graph): the engine's loop while nodes are ready."},
    {NULL, NULL, 0, NULL},
};
