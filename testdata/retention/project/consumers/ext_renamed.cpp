// A real Python extension module whose file name says nothing
// (OUTPUT_NAME ext_renamed, SUFFIX .so, no cpython tag), linked against
// libpython as an embedding program would be: ET201 by what it exports.
#include <Python.h>

static PyModuleDef module = {PyModuleDef_HEAD_INIT, "ext_renamed", nullptr, -1, nullptr};

PyMODINIT_FUNC PyInit_ext_renamed(void) { return PyModule_Create(&module); }
