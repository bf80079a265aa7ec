// The prim ops: registered by a static initializer (ExecuTorch's
// kernels/prim_ops/register_prim_ops.cpp, in the `executorch` archive).
#include "registry.h"
namespace {
const et::Kernel prim_ops[] = {{"aten::sym_size.int"}, {"executorch_prim::add.Scalar"}};
const int registered = et::register_kernels(prim_ops, 2);
}  // namespace
