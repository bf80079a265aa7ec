/* A C API: a constructor function hands a module init function to CPython's inittab. */
#include <Python.h>
static struct PyModuleDef reg_capi_def = {PyModuleDef_HEAD_INIT, "reg_capi", NULL, -1, NULL};
static PyObject* init_reg_capi(void) { return PyModule_Create(&reg_capi_def); }
__attribute__((constructor)) static void reg_capi_register(void) { PyImport_AppendInittab("reg_capi", init_reg_capi); }
int reg_capi_anchor(void) { return 1; }
