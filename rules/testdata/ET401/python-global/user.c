/* An extension module that calls core_fn without linking the module that
   defines it: it loads only where that module was opened RTLD_GLOBAL. */
#include <Python.h>
int core_fn(void);
static PyObject* f(PyObject* self, PyObject* args) { return PyLong_FromLong(core_fn()); }
static PyMethodDef methods[] = {{"f", f, METH_NOARGS, 0}, {0, 0, 0, 0}};
static struct PyModuleDef def = {PyModuleDef_HEAD_INIT, MODNAME, 0, -1, methods};
#define INIT2(n) PyInit_##n
#define INIT(n) INIT2(n)
PyMODINIT_FUNC INIT(MOD)(void) { return PyModule_Create(&def); }
