// The nanobind form of ext.cpp.
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>
#include <map>
#include <mutex>
int alpha(const std::string&); int beta(int);
std::mutex em; std::map<std::string, int> et;
NB_MODULE(_ext, m) {
  m.def("alpha", &alpha); m.def("beta", &beta);
  m.def("local", [](std::string k) { std::lock_guard<std::mutex> g(em); et.emplace(std::piecewise_construct, std::forward_as_tuple(k), std::forward_as_tuple(2)); return et.size(); });
}
