#include <Python.h>
void load() { Py_InitializeEx(0); }
