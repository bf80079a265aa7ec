/* gone_user.c: an extension module that needs libgone (DT_NEEDED). */
#include <Python.h>

int gone_answer(void);

static PyObject *answer(PyObject *self, PyObject *args) { return PyLong_FromLong(gone_answer()); }

static PyMethodDef methods[] = {{"answer", answer, METH_NOARGS, NULL}, {NULL, NULL, 0, NULL}};
static struct PyModuleDef mod = {PyModuleDef_HEAD_INIT, "_gone", NULL, -1, methods};
PyMODINIT_FUNC PyInit__gone(void) { return PyModule_Create(&mod); }
