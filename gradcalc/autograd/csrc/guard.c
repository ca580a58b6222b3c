/* The sandbox guard's two commonest paths (language/guard.py), which a program's compiled code
 * calls for every attribute it reads or writes that is not read directly: compiled_getattr for a
 * name its object's rule allows, and guarded_setattr for a name the rule lets it write. Each takes
 * the Python function's steps in the same order, on the same policy tables (RULES, each rule's
 * `read`, `public`, `deny` and `write`), and calls that function for every other case, before it
 * has read or written anything: the policy's decisions stay in Python, and the Python versions,
 * used where this module is not built, give the same answers. */
#include "native.h"
#include <structmember.h>

/* guard.RULES, guard.held, guard.compiled_getattr and guard.guarded_setattr (prepare_guard). */
static PyObject *rules, *held, *python_getattr, *python_setattr;
/* policy.Rule, and where its slots `read`, `public`, `deny` and `write` lie in an instance. */
static PyTypeObject *rule_type;
enum { READ, PUBLIC, DENY, WRITE, FIELDS };
static Py_ssize_t offsets[FIELDS];

/* prepare_guard(RULES, held, compiled_getattr, guarded_setattr, Rule). */
static PyObject *py_prepare_guard(PyObject *self, PyObject *args) {
    PyObject *found, *after_read, *getter, *setter;
    PyTypeObject *rule_class;
    if (!PyArg_ParseTuple(args, "O!OOOO!", &PyDict_Type, &found, &after_read, &getter, &setter, &PyType_Type,
                          &rule_class))
        return NULL;
    const char *names[FIELDS] = {"read", "public", "deny", "write"};
    for (int field = 0; field < FIELDS; field++) {  /* each a slot: a member descriptor of an object field */
        PyObject *member = PyDict_GetItemString(rule_class->tp_dict, names[field]);
        if (member == NULL || !Py_IS_TYPE(member, &PyMemberDescr_Type)
                || ((PyMemberDescrObject *)member)->d_member->type != T_OBJECT_EX) {
            PyErr_Format(PyExc_TypeError, "the rule class has no slot '%s'", names[field]);
            return NULL;
        }
        offsets[field] = ((PyMemberDescrObject *)member)->d_member->offset;
    }
    Py_XSETREF(rule_type, (PyTypeObject *)Py_NewRef(rule_class));
    Py_XSETREF(rules, Py_NewRef(found));
    Py_XSETREF(held, Py_NewRef(after_read));
    Py_XSETREF(python_getattr, Py_NewRef(getter));
    Py_XSETREF(python_setattr, Py_NewRef(setter));
    Py_RETURN_NONE;
}

/* A rule's slot, borrowed (NULL while unset), as `rule.field` reads it without the attribute lookup. */
static inline PyObject *slot(PyObject *rule, int field) {
    return *(PyObject **)((char *)rule + offsets[field]);
}

/* Whether `name` is in the rule's set `field`: 1, 0, or -1 with an error set; 0 for anything but
 * a set (an unset slot included), which the Python function then judges. */
static int in_rule_set(PyObject *rule, int field, PyObject *name) {
    PyObject *names = slot(rule, field);
    return names != NULL && PyAnySet_Check(names) ? PySet_Contains(names, name) : 0;
}

/* compiled_getattr's test: `name in rule.read or (rule.public and name[0] != "_" and name not in
 * rule.deny)`, for a non-empty exact str; 0 where a slot is not as the rule class sets it. */
static int readable(PyObject *rule, PyObject *name) {
    int found = in_rule_set(rule, READ, name);
    if (found != 0)
        return found;
    PyObject *public = slot(rule, PUBLIC), *deny = slot(rule, DENY);
    if (public != Py_True || PyUnicode_READ_CHAR(name, 0) == '_' || deny == NULL || !PyAnySet_Check(deny))
        return 0;
    int denied = PySet_Contains(deny, name);
    return denied < 0 ? -1 : !denied;
}

/* The rule of obj's exact type, borrowed; NULL without an error when it has none, or when it is
 * not a policy.Rule itself (the Python function then reads it). */
static PyObject *rule_of(PyObject *obj) {
    PyObject *rule = PyDict_GetItemWithError(rules, (PyObject *)Py_TYPE(obj));
    return rule != NULL && Py_IS_TYPE(rule, rule_type) ? rule : NULL;
}

/* compiled_getattr(obj, name[, called]) */
static PyObject *py_compiled_getattr(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (rules == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "prepare_guard was not called");
        return NULL;
    }
    if (nargs < 2 || nargs > 3 || !PyUnicode_CheckExact(args[1]) || PyUnicode_GET_LENGTH(args[1]) == 0)
        return PyObject_Vectorcall(python_getattr, args, nargs, NULL);
    PyObject *obj = args[0], *name = args[1];
    PyObject *rule = rule_of(obj);
    if (rule == NULL && PyErr_Occurred())
        return NULL;
    int allowed = rule == NULL ? 0 : readable(rule, name);
    if (allowed < 0)
        return NULL;
    if (!allowed)  /* (nothing read yet: the Python function decides, and reads) */
        return PyObject_Vectorcall(python_getattr, args, nargs, NULL);
    PyObject *value = PyObject_GetAttr(obj, name);
    if (value == NULL)
        return NULL;
    PyTypeObject *kind = Py_TYPE(value);
    if (kind != &PyMethod_Type && kind != &PyCFunction_Type) {
        int listed = PyDict_Contains(rules, (PyObject *)kind);
        if (listed != 0) {  /* a value of a type programs hold, as it is (or an error) */
            if (listed < 0)
                Py_CLEAR(value);
            return value;
        }
    }
    PyObject *result = PyObject_CallFunctionObjArgs(held, value, obj, name, nargs == 3 ? args[2] : Py_False,
                                                    rule, NULL);
    Py_DECREF(value);
    return result;
}

/* guarded_setattr(value, obj, name) */
static PyObject *py_guarded_setattr(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (rules == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "prepare_guard was not called");
        return NULL;
    }
    if (nargs != 3 || !PyUnicode_CheckExact(args[2]))
        return PyObject_Vectorcall(python_setattr, args, nargs, NULL);
    PyObject *rule = rule_of(args[1]);
    if (rule == NULL && PyErr_Occurred())
        return NULL;
    int writable = rule == NULL ? 0 : in_rule_set(rule, WRITE, args[2]);
    if (writable < 0)
        return NULL;
    if (!writable)  /* (nothing written: the Python function checks, and writes) */
        return PyObject_Vectorcall(python_setattr, args, nargs, NULL);
    if (PyObject_SetAttr(args[1], args[2], args[0]) < 0)
        return NULL;
    Py_RETURN_NONE;
}

PyMethodDef guard_methods[] = {
    {"prepare_guard", py_prepare_guard, METH_VARARGS,
     "prepare_guard(RULES, held, compiled_getattr, guarded_setattr, Rule): the guard's tables and functions."},
    {"compiled_getattr", (PyCFunction)(void (*)(void))py_compiled_getattr, METH_FASTCALL,
     "compiled_getattr(obj, name, called=False): guard.compiled_getattr, its common path in C."},
    {"guarded_setattr", (PyCFunction)(void (*)(void))py_guarded_setattr, METH_FASTCALL,
     "guarded_setattr(value, obj, name): guard.guarded_setattr, its common path in C."},
    {NULL, NULL, 0, NULL},
};
