// A backend built with its own copy of the runtime's sources: it carries a
// registry of its own.
#include "registry.h"
#include "runtime.cpp"
namespace {
const executorch::runtime::Backend fat{"fat"};
const int registered = executorch::runtime::register_backend(fat);
}  // namespace
