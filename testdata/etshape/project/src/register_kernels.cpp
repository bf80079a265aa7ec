// portable_ops_lib's generated RegisterCodegenUnboxedKernels: only a static
// initializer registering the kernels.
#include "registry.h"
extern "C" int et_op_add(int, int);
namespace {
const et::Kernel kernels[] = {{"aten::add.out"}};
const void* keep = reinterpret_cast<const void*>(&et_op_add);
const int registered = et::register_kernels(kernels, 1);
}  // namespace
