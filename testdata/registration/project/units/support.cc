#include "support.h"
Widget::Widget() : n(1) {}
Widget::~Widget() {}
Logger& Logger::get(const char*) { static Logger l{2}; return l; }
std::string compute_name() { return "computed"; }
int reg_support_guarded() { return Counter<int>::value; }  // carries the guarded static's COMDAT too
