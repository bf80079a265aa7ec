// Archive member with only a static initializer: it defines no global symbol,
// so nothing ever makes the linker extract it from libet_kernels.a unless the
// archive is linked with --whole-archive.
#include "registry.h"

namespace {
const executorch::runtime::Kernel kKernels[] = {{"aten::add.out"}, {"aten::mul.out"}};

struct KernelRegistrar {
  KernelRegistrar() { executorch::runtime::register_kernels(kKernels, 2); }
};
KernelRegistrar et_kernel_registrar;
}  // namespace
