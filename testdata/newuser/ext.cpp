#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "registry.h"

PYBIND11_MODULE(_core, m) { m.def("backends", &newuser::backends); }
