/* An op's call as ops/generate.py makes it (`x.view(-1, 30)`, `torch.tanh(a)`), for the calls whose
 * binding the op's parser remembered (ops/parser.py's Parser._remember): the call key, the bound
 * arguments, the conversions Param.convert would leave as they are (an int or a float, a tuple of
 * ints, in range) and the call of the implementation, without the Python frames of the method, Parser.parse and the call helper.
 * Every other call (not yet remembered, a deprecated overload, meta tensors made in the session,
 * inside `with torch.device(...)`, `out=`) is the Python function's, which does what it always did.
 *
 * Security: a program never holds these functions (private names are not a program's to read);
 * they call what the Python code would call, with the same arguments. */
#include "graph.h"
#include <structmember.h>

/* ops/parser.py's _parsers, DEVICE_CONTEXT, Size, and the Python helpers: what a MemoryError or
 * RecursionError becomes (`translate(error)` raises it), generate._call (meta.state: graph.c's) */
static PyObject *parsers, *device_context, *size_type, *translate, *python_call;
static PyObject *bindings_name, *name_name, *convert_name, *input_name, *out_name, *device_name;

enum { AS_PYTHON, PLAIN_INT, PLAIN_INTS, PLAIN_SYM_INTS, PLAIN_NUMBER, PLAIN_FLOAT };  /* parser.py's _native_plan */

/* prepare_dispatch(_parsers, DEVICE_CONTEXT, Size, translate, _call); after prepare_record. */
static PyObject *py_prepare_dispatch(PyObject *self, PyObject *args) {
    PyObject *found, *context, *size, *translator, *caller;
    if (!PyArg_ParseTuple(args, "O!O!O!OO", &PyDict_Type, &found, &PyList_Type, &context, &PyType_Type, &size,
                          &translator, &caller))
        return NULL;
    if (meta_state == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "prepare_record was not called");
        return NULL;
    }
    const char *texts[] = {"_bindings", "name", "convert", "input", "out", "device"};
    PyObject **names[] = {&bindings_name, &name_name, &convert_name, &input_name, &out_name, &device_name};
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++)
        if (*names[i] == NULL && (*names[i] = PyUnicode_InternFromString(texts[i])) == NULL)
            return NULL;
    Py_XSETREF(parsers, Py_NewRef(found));
    Py_XSETREF(device_context, Py_NewRef(context));
    Py_XSETREF(size_type, Py_NewRef(size));
    Py_XSETREF(translate, Py_NewRef(translator));
    Py_XSETREF(python_call, Py_NewRef(caller));
    Py_RETURN_NONE;
}

/* Whether the factory's `device=` or `out=` is given, not None: Signature.read_options has nothing to
 * do otherwise (bound's keys are the parameters' names, strings: a lookup cannot fail). */
static int given_option(PyObject *bound, PyObject *name) {
    PyObject *value = PyDict_GetItem(bound, name);
    return value != NULL && value != Py_None;
}

/* 1 when the call is the Python function's (meta tensors made, a device context), 0, -1 on error. */
static int needs_python(void) {
    if (PyList_GET_SIZE(device_context) > 0)
        return 1;
    PyObject *made = PyDict_GetItemWithError(meta_state, made_name);
    if (made == NULL)
        return PyErr_Occurred() ? -1 : 1;
    return PyObject_IsTrue(made);
}

static int is_sequence(PyObject *value) {
    return PyTuple_CheckExact(value) || PyList_CheckExact(value) || Py_IS_TYPE(value, (PyTypeObject *)size_type);
}

/* parser.py's _call_key: each argument's type (a sequence's with its first item's), then the
 * keyword names. */
static PyObject *call_key(PyObject *args, PyObject *kwargs) {
    Py_ssize_t count = PyTuple_GET_SIZE(args), keywords = kwargs != NULL ? PyDict_GET_SIZE(kwargs) : 0;
    PyObject *key = PyTuple_New(count + 2 * keywords);
    if (key == NULL)
        return NULL;
    Py_ssize_t position = 0, at = 0;
    PyObject *name, *value;
    for (Py_ssize_t i = 0; i < count + keywords; i++) {
        if (i < count) {
            value = PyTuple_GET_ITEM(args, i);
        } else {
            PyDict_Next(kwargs, &position, &name, &value);
            Py_INCREF(name);
            PyTuple_SET_ITEM(key, count + keywords + (i - count), name);
        }
        PyObject *entry;
        if (is_sequence(value)) {
            Py_ssize_t length = PyList_CheckExact(value) ? PyList_GET_SIZE(value) : PyTuple_GET_SIZE(value);
            PyObject *first = length == 0 ? Py_None : (PyObject *)Py_TYPE(
                PyList_CheckExact(value) ? PyList_GET_ITEM(value, 0) : PyTuple_GET_ITEM(value, 0));
            entry = PyTuple_Pack(2, (PyObject *)Py_TYPE(value), first);
            if (entry == NULL) {
                Py_DECREF(key);
                return NULL;
            }
        } else {
            entry = Py_NewRef((PyObject *)Py_TYPE(value));
        }
        PyTuple_SET_ITEM(key, at++, entry);
    }
    return key;
}

/* An exact int in int64's range (at least `least`). */
static int plain_int(PyObject *value, long long least) {
    if (!PyLong_CheckExact(value))
        return 0;
    int overflow;
    long long number = PyLong_AsLongLongAndOverflow(value, &overflow);
    return overflow == 0 && !(number == -1 && PyErr_Occurred()) && number >= least;
}

/* A non-empty exact tuple of plain ints. */
static int plain_ints(PyObject *value, long long least) {
    if (!PyTuple_CheckExact(value) || PyTuple_GET_SIZE(value) == 0)
        return 0;
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(value); i++)
        if (!plain_int(PyTuple_GET_ITEM(value, i), least))
            return 0;
    return 1;
}

/* Whether Param.convert returns VALUE as it is for a parameter of PLAN. */
static int unchanged(PyObject *value, long plan) {
    if (value == Py_None)
        return 1;
    switch (plan) {
    case PLAIN_INT:
        return plain_int(value, LLONG_MIN);
    case PLAIN_INTS:
        return plain_ints(value, LLONG_MIN);
    case PLAIN_SYM_INTS:
        return plain_ints(value, -(1LL << 62));
    case PLAIN_NUMBER:
        return PyFloat_CheckExact(value) || plain_int(value, LLONG_MIN);
    case PLAIN_FLOAT:
        return PyFloat_CheckExact(value);
    default:
        return 0;
    }
}

/* The bound arguments (a new dict) from PARSER's remembered binding; NULL with no error set where
 * there is none the native call takes. */
static PyObject *bind(PyObject *parser, PyObject *args, PyObject *kwargs) {
    PyObject *remembered = PyObject_GetAttr(parser, bindings_name);
    if (remembered == NULL)
        return NULL;
    PyObject *key = call_key(args, kwargs);
    if (key == NULL) {
        Py_DECREF(remembered);
        return NULL;
    }
    PyObject *binding = PyDict_GetItemWithError(remembered, key);  /* borrowed from remembered */
    Py_DECREF(key);
    PyObject *native = binding != NULL && PyTuple_CheckExact(binding) && PyTuple_GET_SIZE(binding) == 5
        ? PyTuple_GET_ITEM(binding, 4) : NULL;
    if (native == NULL || native == Py_None) {
        Py_DECREF(remembered);
        return NULL;
    }
    Py_INCREF(binding);
    Py_DECREF(remembered);
    PyObject *names = PyTuple_GET_ITEM(binding, 1), *keywords = PyTuple_GET_ITEM(binding, 2);
    PyObject *plans = PyTuple_GET_ITEM(native, 0), *options = PyTuple_GET_ITEM(native, 1);
    PyObject *bound = PyDict_New();
    if (bound == NULL)
        goto failed;
    if (names == Py_None) {  /* the positional ints as the one list: the first plan's parameter */
        if (PyDict_SetItem(bound, PyTuple_GET_ITEM(PyTuple_GET_ITEM(plans, 0), 0), args) < 0)
            goto failed;
    } else {
        for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(args); i++)
            if (PyDict_SetItem(bound, PyTuple_GET_ITEM(names, i), PyTuple_GET_ITEM(args, i)) < 0)
                goto failed;
    }
    if (kwargs != NULL) {
        Py_ssize_t position = 0, i = 0;
        PyObject *name, *value;
        while (PyDict_Next(kwargs, &position, &name, &value))
            if (PyDict_SetItem(bound, PyTuple_GET_ITEM(keywords, i++), value) < 0)
                goto failed;
    }
    if (options != Py_None && (given_option(bound, device_name) || given_option(bound, out_name))) {
        PyObject *done = PyObject_CallOneArg(options, bound);
        if (done == NULL)
            goto failed;
        Py_DECREF(done);
    }
    PyObject *signature_name = NULL;
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(plans); i++) {
        PyObject *plan = PyTuple_GET_ITEM(plans, i), *name = PyTuple_GET_ITEM(plan, 0);
        PyObject *value = PyDict_GetItemWithError(bound, name);
        if (value == NULL) {
            if (!PyErr_Occurred())
                PyErr_SetObject(PyExc_KeyError, name);
            Py_XDECREF(signature_name);
            goto failed;
        }
        if (unchanged(value, PyLong_AsLong(PyTuple_GET_ITEM(plan, 1))))
            continue;
        if (signature_name == NULL && (signature_name = PyObject_GetAttr(parser, name_name)) == NULL)
            goto failed;
        PyObject *converted = PyObject_CallMethodObjArgs(PyTuple_GET_ITEM(plan, 2), convert_name, value,
                                                         signature_name, NULL);
        if (converted == NULL || PyDict_SetItem(bound, name, converted) < 0) {
            Py_XDECREF(converted);
            Py_DECREF(signature_name);
            goto failed;
        }
        Py_DECREF(converted);
    }
    Py_XDECREF(signature_name);
    Py_DECREF(binding);
    return bound;
failed:
    Py_XDECREF(bound);
    Py_DECREF(binding);
    if (!PyErr_Occurred())
        PyErr_SetString(PyExc_SystemError, "a binding could not be made");
    return NULL;
}

/* A MemoryError or RecursionError raised on the way as the Python function raises it. */
static PyObject *failed_call(void) {
    if (!PyErr_ExceptionMatches(PyExc_MemoryError) && !PyErr_ExceptionMatches(PyExc_RecursionError))
        return NULL;
#if PY_VERSION_HEX >= 0x030C0000
    PyObject *error = PyErr_GetRaisedException();
#else
    PyObject *type, *error, *traceback;
    PyErr_Fetch(&type, &error, &traceback);
    PyErr_NormalizeException(&type, &error, &traceback);
    if (traceback != NULL)
        PyException_SetTraceback(error, traceback);
    Py_XDECREF(type);
    Py_XDECREF(traceback);
#endif
    PyObject *result = PyObject_CallOneArg(translate, error);  /* raises: NULL */
    Py_XDECREF(error);
    Py_XDECREF(result);
    return NULL;
}

/* The Python function's call: slow(*prefix, *args, **kwargs). */
static PyObject *call_python(PyObject *slow, PyObject *first, PyObject *args, PyObject *kwargs) {
    if (first == NULL)
        return PyObject_Call(slow, args, kwargs);
    Py_ssize_t count = PyTuple_GET_SIZE(args);
    PyObject *all = PyTuple_New(count + 1);
    if (all == NULL)
        return NULL;
    PyTuple_SET_ITEM(all, 0, Py_NewRef(first));
    for (Py_ssize_t i = 0; i < count; i++)
        PyTuple_SET_ITEM(all, i + 1, Py_NewRef(PyTuple_GET_ITEM(args, i)));
    PyObject *result = PyObject_Call(slow, all, kwargs);
    Py_DECREF(all);
    return result;
}

/* The bound arguments for KEY's op, or NULL: with an error set on failure, without one where the
 * call is the Python function's. */
static PyObject *bound_for(PyObject *key, PyObject *args, PyObject *kwargs) {
    int python = needs_python();
    if (python != 0)
        return NULL;
    PyObject *parser = PyDict_GetItemWithError(parsers, key);  /* (none compiled yet: the Python function's) */
    return parser != NULL ? bind(parser, args, kwargs) : NULL;
}

/* impl(first, **bound) when FIRST, else impl(**bound). */
static PyObject *call_impl(PyObject *impl, PyObject *first, PyObject *bound) {
    PyObject *positional = first != NULL ? PyTuple_Pack(1, first) : PyTuple_New(0);
    if (positional == NULL)
        return NULL;
    PyObject *result = PyObject_Call(impl, positional, bound);
    Py_DECREF(positional);
    return result;
}

/* The keywords of a call made from C with a tuple and a dict (None or empty: no keywords). */
static int read_call(PyObject *const *argv, Py_ssize_t argc, Py_ssize_t entry_size, PyObject **kwargs) {
    if (argc != 4 || !PyTuple_CheckExact(argv[0]) || PyTuple_GET_SIZE(argv[0]) != entry_size
            || !PyTuple_CheckExact(argv[2]) || (argv[3] != Py_None && !PyDict_CheckExact(argv[3]))) {
        PyErr_SetString(PyExc_TypeError, "expected (entry, self, args, kwargs)");
        return -1;
    }
    *kwargs = argv[3] != Py_None && PyDict_GET_SIZE(argv[3]) > 0 ? argv[3] : NULL;
    return 0;
}

/* call_method((key, impl, positional, self_name, slow), self, args, kwargs): generate.make_method's
 * method, where `slow` is its Python function. */
static PyObject *py_call_method(PyObject *module, PyObject *const *argv, Py_ssize_t argc) {
    PyObject *kwargs;
    if (read_call(argv, argc, 5, &kwargs) < 0)
        return NULL;
    PyObject *entry = argv[0], *self = argv[1], *args = argv[2];
    PyObject *bound = bound_for(PyTuple_GET_ITEM(entry, 0), args, kwargs);
    if (bound == NULL)
        return PyErr_Occurred() ? failed_call() : call_python(PyTuple_GET_ITEM(entry, 4), self, args, kwargs);
    PyObject *result = NULL;
    int positional = PyObject_IsTrue(PyTuple_GET_ITEM(entry, 2));
    if (positional > 0)
        result = call_impl(PyTuple_GET_ITEM(entry, 1), self, bound);
    else if (positional == 0 && PyDict_SetItem(bound, PyTuple_GET_ITEM(entry, 3), self) == 0)
        result = call_impl(PyTuple_GET_ITEM(entry, 1), NULL, bound);
    Py_DECREF(bound);
    return result != NULL ? result : failed_call();
}

/* call_function((key, impl, by_position, name, kernel, slow), None, args, kwargs): generate.make_function's
 * function, where `slow` is its Python function. */
static PyObject *py_call_function(PyObject *module, PyObject *const *argv, Py_ssize_t argc) {
    PyObject *kwargs;
    if (read_call(argv, argc, 6, &kwargs) < 0)
        return NULL;
    PyObject *entry = argv[0], *args = argv[2];
    PyObject *bound = bound_for(PyTuple_GET_ITEM(entry, 0), args, kwargs);
    if (bound == NULL)
        return PyErr_Occurred() ? failed_call() : call_python(PyTuple_GET_ITEM(entry, 5), NULL, args, kwargs);
    PyObject *impl = PyTuple_GET_ITEM(entry, 1), *result = NULL;
    int by_position = PyObject_IsTrue(PyTuple_GET_ITEM(entry, 2));
    if (by_position > 0) {  /* impl(bound.pop("input"), **bound) */
        PyObject *input = PyDict_GetItemWithError(bound, input_name);
        if (input == NULL) {
            if (!PyErr_Occurred())
                PyErr_SetObject(PyExc_KeyError, input_name);
        } else {
            Py_INCREF(input);
            if (PyDict_DelItem(bound, input_name) == 0)
                result = call_impl(impl, input, bound);
            Py_DECREF(input);
        }
    } else if (by_position == 0) {
        int out = PyDict_Contains(bound, out_name);
        if (out > 0)  /* generate._call's out= */
            result = PyObject_CallFunctionObjArgs(python_call, impl, bound, Py_False, PyTuple_GET_ITEM(entry, 3),
                                                  PyTuple_GET_ITEM(entry, 4), NULL);
        else if (out == 0)
            result = call_impl(impl, NULL, bound);
    }
    Py_DECREF(bound);
    return result != NULL ? result : failed_call();
}

/* _native._Call: the base of generate.BuiltinFunction (`torch.tanh` as programs hold it), whose call
 * is its function's without a Python frame of its own: the native call of the function's entry when
 * it has one (make_function's), else the function. */
typedef struct {
    PyObject_HEAD
    PyObject *function, *entry;
} CallObject;

static PyObject *call_call(PyObject *self, PyObject *args, PyObject *kwargs) {
    CallObject *call = (CallObject *)self;
    if (call->function == NULL) {
        PyErr_SetString(PyExc_TypeError, "the function is not set");
        return NULL;
    }
    if (call->entry == NULL || call->entry == Py_None)
        return PyObject_Call(call->function, args, kwargs);
    PyObject *argv[4] = {call->entry, Py_None, args, kwargs != NULL ? kwargs : Py_None};
    return py_call_function(NULL, argv, 4);
}

static int call_traverse(PyObject *self, visitproc visit, void *arg) {
    Py_VISIT(((CallObject *)self)->function);
    Py_VISIT(((CallObject *)self)->entry);
    return 0;
}

static int call_clear(PyObject *self) {
    Py_CLEAR(((CallObject *)self)->function);
    Py_CLEAR(((CallObject *)self)->entry);
    return 0;
}

/* (a subclass's instance: subtype_dealloc calls this, then releases the heap type itself) */
static void call_dealloc(PyObject *self) {
    PyObject_GC_UnTrack(self);
    call_clear(self);
    Py_TYPE(self)->tp_free(self);
}

static PyMemberDef call_members[] = {
    {"_function", T_OBJECT_EX, offsetof(CallObject, function), 0, NULL},
    {"_entry", T_OBJECT, offsetof(CallObject, entry), 0, NULL},
    {NULL, 0, 0, 0, NULL},
};

static PyTypeObject call_type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "builtin_function_or_method",  /* (what CPython's messages about the type say: PyTorch's words) */
    .tp_basicsize = sizeof(CallObject),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC,
    .tp_new = PyType_GenericNew,
    .tp_call = call_call,
    .tp_traverse = call_traverse,
    .tp_clear = call_clear,
    .tp_dealloc = call_dealloc,
    .tp_members = call_members,
};

int dispatch_init(PyObject *module) {
    if (PyType_Ready(&call_type) < 0)
        return -1;
    return PyModule_AddObjectRef(module, "_Call", (PyObject *)&call_type);
}

/* plain_ints(value, least): parser.plain_ints, a non-empty tuple of Python ints from LEAST up. */
static PyObject *py_plain_ints(PyObject *self, PyObject *const *args, Py_ssize_t count) {
    long long least;
    if (count != 2 || ((least = PyLong_AsLongLong(args[1])) == -1 && PyErr_Occurred())) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_TypeError, "plain_ints(value, least)");
        return NULL;
    }
    int plain = plain_ints(args[0], least);
    if (PyErr_Occurred())
        return NULL;
    return PyBool_FromLong(plain);
}

PyMethodDef dispatch_methods[] = {
    {"prepare_dispatch", py_prepare_dispatch, METH_VARARGS, NULL},
    {"call_method", (PyCFunction)(void (*)(void))py_call_method, METH_FASTCALL, NULL},
    {"call_function", (PyCFunction)(void (*)(void))py_call_function, METH_FASTCALL, NULL},
    {"plain_ints", (PyCFunction)(void (*)(void))py_plain_ints, METH_FASTCALL, NULL},
    {NULL, NULL, 0, NULL},
};
