#pragma once
#include <string>
#include <vector>

namespace newuser {
using Factory = int (*)();
// Backends register here from their static initializers.
void register_backend(const char* name, Factory make);
std::vector<std::string> backends();
}  // namespace newuser
