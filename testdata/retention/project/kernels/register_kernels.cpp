// Archive member with a static initializer and one anchor nothing calls: no
// reference ever makes the linker extract it from libet_kernels.a; only
// --whole-archive or -u et_register_kernels_anchor (--undefined) does.
#include "registry.h"

namespace {
const executorch::runtime::Kernel kKernels[] = {{"aten::add.out"}, {"aten::mul.out"}};

struct KernelRegistrar {
  KernelRegistrar() { executorch::runtime::register_kernels(kKernels, 2); }
};
KernelRegistrar et_kernel_registrar;
}  // namespace

extern "C" void et_register_kernels_anchor() {}
