/* Python's element-wise operators on tensors (`a * b`, `a + 1.0`) in their commonest calls,
 * computed and recorded as ops/arithmetic.py's binary computes and records them: the operands'
 * checks, the number in the result's dtype, numpy's ufunc, then the result alone where nothing is
 * tracked, else graph.c's record. Every other call is the Python operator's (tensor_members.py).
 *
 * Security: a program never holds this function (private names are not a program's to read); it
 * calls what the Python code would call, with the same arguments. */
#include "graph.h"

/* numpy.asarray; the dtypes tensor_binary takes (the floating ones whose ops numpy computes as
 * ATen); the dtypes of a wrapped float and int (float64, int64) */
static PyObject *asarray, *binary_dtypes, *wrapped_float, *wrapped_int;
static PyObject *numpy_name, *make_name, *dtype_name;

/* prepare_binary(numpy.asarray, dtypes, float64, int64); after prepare_record. */
static PyObject *py_prepare_binary(PyObject *self, PyObject *args) {
    PyObject *function, *dtypes, *float64, *int64;
    if (!PyArg_ParseTuple(args, "OO!OO", &function, &PyTuple_Type, &dtypes, &float64, &int64))
        return NULL;
    if (intern(&numpy_name, "_numpy") < 0 || intern(&dtype_name, "dtype") < 0 || intern(&make_name, "_make") < 0)
        return NULL;
    Py_XSETREF(asarray, Py_NewRef(function));
    Py_XSETREF(binary_dtypes, Py_NewRef(dtypes));
    Py_XSETREF(wrapped_float, Py_NewRef(float64));
    Py_XSETREF(wrapped_int, Py_NewRef(int64));
    Py_RETURN_NONE;
}

/* Whether tensor_binary takes A as its tensor operand: a tensor of one of binary_dtypes on an
 * ndarray, not a wrapped number, with no meta tensor made and no forward-mode level. 1, 0, -1. */
static int operand_taken(PyObject *a) {
    if (!PyObject_TypeCheck(a, tensor_type))
        return 0;
    PyObject *x = get(a, DATA), *dtype = get(a, DTYPE);
    if (x == NULL || dtype == NULL || !Py_IS_TYPE(x, ndarray_type) || get(a, WRAPPED) != Py_False
            || PyList_GET_SIZE(forward_levels) > 0)
        return 0;
    PyObject *made = PyDict_GetItemWithError(meta_state, made_name);
    if (made != Py_False)
        return made == NULL && PyErr_Occurred() ? -1 : 0;
    return PySequence_Contains(binary_dtypes, dtype);
}

/* Whether tensor_binary takes B with A: a tensor of A's dtype and shape, not a wrapped number; or a
 * Python float, or an int a float32 holds exactly (the dtype of the result is A's). 1, 0, -1. */
static int other_taken(PyObject *a, PyObject *b) {
    if (PyFloat_CheckExact(b))
        return 1;
    if (PyLong_CheckExact(b)) {
        int overflow;
        long long value = PyLong_AsLongLongAndOverflow(b, &overflow);
        if (value == -1 && PyErr_Occurred())
            return -1;
        return overflow == 0 && llabs(value) <= (1LL << 24);
    }
    if (!PyObject_TypeCheck(b, tensor_type))
        return 0;
    PyObject *x = get(a, DATA), *y = get(b, DATA);
    if (y == NULL || get(b, DTYPE) != get(a, DTYPE) || !Py_IS_TYPE(y, ndarray_type) || get(b, WRAPPED) != Py_False)
        return 0;
    PyObject *x_shape = PyObject_GetAttr(x, shape_name), *y_shape = x_shape ? PyObject_GetAttr(y, shape_name) : NULL;
    int same = y_shape ? PyObject_RichCompareBool(x_shape, y_shape, Py_EQ) : -1;
    Py_XDECREF(x_shape);
    Py_XDECREF(y_shape);
    return same;
}

/* numpy.asarray(value, dtype=numpy_dtype): a new reference, NULL with an error set. */
static PyObject *as_array(PyObject *value, PyObject *numpy_dtype) {
    PyObject *keywords = Py_BuildValue("{O:O}", dtype_name, numpy_dtype), *positional[1] = {value};
    PyObject *array = keywords ? PyObject_VectorcallDict(asarray, positional, 1, keywords) : NULL;
    Py_XDECREF(keywords);
    return array;
}

/* Tensor._make(data, dtype) through the class's own (native) method. */
static PyObject *made_tensor(PyObject *data, PyObject *dtype) {
    PyObject *arguments[3] = {(PyObject *)tensor_type, data, dtype};
    return PyObject_VectorcallMethod(make_name, arguments, 3, NULL);
}

/* Tensor._wrap_number(number) for a float or an int: a new reference, NULL with an error set. */
static PyObject *wrapped_number(PyObject *number) {
    PyObject *dtype = PyFloat_CheckExact(number) ? wrapped_float : wrapped_int;
    PyObject *numpy_dtype = PyObject_GetAttr(dtype, numpy_name);
    PyObject *data = numpy_dtype ? as_array(number, numpy_dtype) : NULL;
    PyObject *tensor = data ? made_tensor(data, dtype) : NULL;
    Py_XDECREF(numpy_dtype);
    Py_XDECREF(data);
    if (tensor != NULL) {
        if (!PyObject_TypeCheck(tensor, tensor_type) || get(tensor, WRAPPED) == NULL) {
            Py_DECREF(tensor);
            PyErr_SetString(PyExc_TypeError, "Tensor._make made no tensor");
            return NULL;
        }
        put(tensor, WRAPPED, Py_True);
    }
    return tensor;
}

/* Whether an op on A and numbers leaves a graph (registry.untracked's opposite, with no forward
 * level or meta tensor, which operand_taken made sure of): 1, 0, -1 with an error set. */
static int tracked(PyObject *a) {
    PyObject *enabled = PyDict_GetItemWithError(grad_mode_globals, enabled_name);
    if (enabled == NULL)
        return PyErr_Occurred() ? -1 : 1;
    int recording = PyObject_IsTrue(enabled);
    if (recording <= 0)
        return recording;
    PyObject *requires_grad = field(a, REQUIRES_GRAD), *node = requires_grad ? field(a, NODE) : NULL;
    PyObject *base = node ? field(a, BASE) : NULL;
    if (base == NULL)
        return -1;
    if (node != Py_None || base != Py_None)  /* (a view of a base that does not require grad: the record's too) */
        return 1;
    return PyObject_IsTrue(requires_grad);
}

/* tensor_binary(op, forward, params, a, b): an element-wise operator's commonest calls (`a * b`,
 * `a + 1.0`; see operand_taken, other_taken) as arithmetic.binary computes and records them: the
 * number in the result's dtype, forward(a's data, b's), then the result alone where nothing is
 * tracked, else record(op, (a, b or b wrapped), data, dtype, **params). None for any other call. */
static PyObject *py_tensor_binary(PyObject *self, PyObject *const *args, Py_ssize_t count) {
    if (count != 5 || asarray == NULL || !PyDict_CheckExact(args[2])) {
        PyErr_SetString(PyExc_TypeError, asarray ? "tensor_binary(op, forward, params, a, b)"
                                                 : "prepare_binary was not called");
        return NULL;
    }
    PyObject *op = args[0], *forward = args[1], *a = args[3], *b = args[4];
    int taken = operand_taken(a);
    if (taken > 0)
        taken = other_taken(a, b);
    if (taken <= 0)
        return taken < 0 ? NULL : Py_NewRef(Py_None);
    int number = !PyObject_TypeCheck(b, tensor_type);
    PyObject *dtype = Py_NewRef(get(a, DTYPE)), *x = Py_NewRef(get(a, DATA));
    PyObject *numpy_dtype = PyObject_GetAttr(dtype, numpy_name), *y = NULL, *data = NULL, *inputs = NULL;
    PyObject *params = NULL, *out = NULL;
    if (numpy_dtype == NULL || (y = number ? as_array(b, numpy_dtype) : Py_NewRef(get(b, DATA))) == NULL
            || (data = PyObject_CallFunctionObjArgs(forward, x, y, NULL)) == NULL)
        goto done;
    PyObject *data_dtype = Py_IS_TYPE(data, ndarray_type) ? PyObject_GetAttr(data, dtype_name) : NULL;
    Py_XDECREF(data_dtype);
    if (data_dtype != numpy_dtype) {  /* a numpy scalar from 0-d arrays: as an array of the dtype */
        PyErr_Clear();
        Py_SETREF(data, as_array(data, numpy_dtype));
        if (data == NULL)
            goto done;
    }
    if (number) {
        int graph = tracked(a);
        if (graph <= 0) {
            out = graph < 0 ? NULL : made_tensor(data, dtype);
            goto done;
        }
        PyObject *wrapped = wrapped_number(b);
        inputs = wrapped ? PyTuple_Pack(2, a, wrapped) : NULL;
        Py_XDECREF(wrapped);
    } else {
        inputs = PyTuple_Pack(2, a, b);
    }
    if (inputs == NULL || (params = PyDict_Copy(args[2])) == NULL)
        goto done;
    out = record_op(op, inputs, data, dtype, params);
done:
    Py_DECREF(dtype);
    Py_DECREF(x);
    Py_XDECREF(numpy_dtype);
    Py_XDECREF(y);
    Py_XDECREF(data);
    Py_XDECREF(inputs);
    Py_XDECREF(params);
    return out;
}

PyMethodDef operators_methods[] = {
    {"prepare_binary", py_prepare_binary, METH_VARARGS,
     "prepare_binary(numpy.asarray, dtypes, float64, int64): what tensor_binary calls, the dtypes it takes, "
     "a wrapped float's and int's."},
    {"tensor_binary", (PyCFunction)(void (*)(void))py_tensor_binary, METH_FASTCALL,
     "tensor_binary(op, forward, params, a, b): `a * b` on two tensors of one floating dtype and shape or a "
     "tensor and a number, computed and recorded as arithmetic.binary does; None for any other call."},
    {NULL, NULL, 0, NULL},
};
