#include <pybind11/pybind11.h>

static int add(int a, int b) { return a + b; }

PYBIND11_MODULE(MODNAME, m) { m.def("add", &add); }
