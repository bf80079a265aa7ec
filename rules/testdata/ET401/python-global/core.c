/* An extension module that also exports the core its sibling uses. */
#include <Python.h>
int core_fn(void) { return 42; }
static struct PyModuleDef def = {PyModuleDef_HEAD_INIT, MODNAME, 0, -1, 0};
#define INIT2(n) PyInit_##n
#define INIT(n) INIT2(n)
PyMODINIT_FUNC INIT(MOD)(void) { return PyModule_Create(&def); }
