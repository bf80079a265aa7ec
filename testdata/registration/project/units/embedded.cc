// pybind11: PYBIND11_EMBEDDED_MODULE appends the module to Python's inittab.
#include <pybind11/embed.h>
PYBIND11_EMBEDDED_MODULE(reg_embedded, m) { m.def("one", [] { return 1; }); }
extern "C" int reg_embedded_anchor() { return 1; }
