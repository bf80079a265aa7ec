/* math_user.c: an extension module that calls libm's hypot without linking
 * libm: it loads because python3 itself loads libm (its global scope). */
#include <Python.h>
#include <math.h>

static PyObject *h(PyObject *self, PyObject *args) {
	double x = PyFloat_AsDouble(args);
	return PyFloat_FromDouble(hypot(x, x));
}

static PyMethodDef methods[] = {{"h", h, METH_O, NULL}, {NULL, NULL, 0, NULL}};
static struct PyModuleDef mod = {PyModuleDef_HEAD_INIT, "_math", NULL, -1, methods};
PyMODINIT_FUNC PyInit__math(void) { return PyModule_Create(&mod); }
