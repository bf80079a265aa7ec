// The registry, and a program that prints what registered.
#include <cstdio>
#include <string>
#include <vector>
static std::vector<std::string>& names() { static std::vector<std::string> v; return v; }
extern "C" void plugin_register(const char* name, void (*)()) { names().push_back(name); }
void list_plugins() { for (auto& n : names()) std::printf("%s\n", n.c_str()); }
