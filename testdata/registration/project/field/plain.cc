// A program that uses none of the libraries it links (glog, gflags), or is
// built with a sanitizer, coverage or link-time optimisation.
#include <cstdio>
#include <string>
static std::string greeting = "field";
int main() { std::puts(greeting.c_str()); }
