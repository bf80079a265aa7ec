// The registries of an ExecuTorch-shaped runtime: kernels by name (a name
// registered twice aborts, as ExecuTorch's register_kernels does) and
// backends.
#pragma once
namespace et {
struct Kernel { const char* name; };
struct Backend { const char* name; };
int register_kernels(const Kernel* kernels, int n);
int register_backend(const Backend& backend);
int num_kernels();
const char* kernel_name(int i);
int num_backends();
const char* backend_name(int i);
}  // namespace et
