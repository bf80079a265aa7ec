// Lists the modules the embedded interpreter has built in from ours, as
// many times as they were appended to its inittab, then imports each.
#include <cstdio>
#include <string>
#include <pybind11/embed.h>
int main() {
  pybind11::scoped_interpreter interpreter;
  for (auto name : pybind11::module_::import("sys").attr("builtin_module_names")) {
    std::string s = pybind11::str(name);
    if (s.rfind("reg_", 0) == 0) {
      pybind11::module_::import(s.c_str());
      std::puts(s.c_str());
    }
  }
}
