// Lists the built-in modules the embedded interpreter can import.
#include <cstdio>
#include <pybind11/embed.h>
int main() {
  pybind11::scoped_interpreter interpreter;
  for (const char* name : {"reg_embedded", "reg_capi"}) {
    try {
      pybind11::module_::import(name);
      std::puts(name);
    } catch (const std::exception&) {
    }
  }
}
