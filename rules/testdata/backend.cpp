// A backend that registers itself from a static initializer and exports
// nothing a consumer calls.
#include "registry.h"
namespace {
const executorch::runtime::Backend xnn{"xnnpack"};
const int registered = executorch::runtime::register_backend(xnn);
}  // namespace
