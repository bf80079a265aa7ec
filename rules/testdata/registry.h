// The registries of a tiny ExecuTorch runtime, shared by the rule cases
// ET101, ET102 and ET103.
#pragma once
namespace executorch {
namespace runtime {
struct Backend { const char* name; };
struct Kernel { const char* name; };
int register_backend(const Backend& backend);
int register_kernels(const Kernel* kernels, int n);
int num_registered_backends();
}  // namespace runtime
}  // namespace executorch
