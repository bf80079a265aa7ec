#include "support.h"
Widget::Widget() : n(1) { parts[1] = "one"; parts[2] = "two"; }
Widget::~Widget() {}
Logger& Logger::get(const char*) { static Logger l{2}; return l; }
std::string compute_name() { return "computed"; }
std::map<int, int> build_table() { return {{5, 6}, {7, 8}}; }
int reg_support_guarded() { return Counter<int>::value; }  // carries the guarded static's COMDAT too
