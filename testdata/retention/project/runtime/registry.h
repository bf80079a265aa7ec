// A tiny model of the ExecuTorch runtime's backend and kernel registries.
#pragma once

namespace executorch {
namespace runtime {

struct Backend {
  const char* name;
  int (*init)();
};

struct Kernel {
  const char* name;
};

// Backend registry (executorch::runtime::register_backend in the real tree).
int register_backend(const Backend& backend);
const Backend* get_backend(const char* name);
int num_registered_backends();
const Backend* get_backend_at(int i);

// Operator kernel registry.
int register_kernels(const Kernel* kernels, int n);
int num_registered_kernels();

namespace internal {
// The registry state. Global, default visibility: a second copy of the
// runtime in the same process defines these a second time (ET103).
extern Backend registered_backends[16];
extern int num_backends;
extern const Kernel* registered_kernels[64];
extern int num_kernels;
}  // namespace internal

}  // namespace runtime
}  // namespace executorch
