/* cpuinfo_user.c: an extension module that uses cpuinfo's state (the
 * cpuinfo_isa table, which XNNPACK in torch's closure reads too) and one of
 * its functions, from whatever libcpuinfo its DT_NEEDED names. */
#include <Python.h>
#include <cpuinfo.h>

static PyObject *avx(PyObject *self, PyObject *args) {
	cpuinfo_initialize();
	return PyBool_FromLong(cpuinfo_isa.avx);
}

static PyMethodDef methods[] = {{"avx", avx, METH_NOARGS, NULL}, {NULL, NULL, 0, NULL}};
static struct PyModuleDef mod = {PyModuleDef_HEAD_INIT, "_cpu", NULL, -1, methods};
PyMODINIT_FUNC PyInit__cpu(void) { return PyModule_Create(&mod); }
