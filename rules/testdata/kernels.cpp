// A kernel library's registration member: only a static initializer.
#include "registry.h"
namespace {
const executorch::runtime::Kernel ks[] = {{"aten::add"}};
const int registered = executorch::runtime::register_kernels(ks, 1);
}  // namespace
