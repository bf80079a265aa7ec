#include <pybind11/embed.h>
int main() { pybind11::scoped_interpreter guard; return 0; }
