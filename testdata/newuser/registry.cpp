#include "registry.h"

#include <map>

namespace newuser {
static std::map<std::string, Factory>& table() {
  static std::map<std::string, Factory> t;
  return t;
}
void register_backend(const char* name, Factory make) { table()[name] = make; }
std::vector<std::string> backends() {
  std::vector<std::string> out;
  for (auto& [name, make] : table()) out.push_back(name);
  return out;
}
}  // namespace newuser
