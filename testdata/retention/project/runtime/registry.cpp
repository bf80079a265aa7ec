#include "registry.h"

#include <cstring>

namespace executorch {
namespace runtime {
namespace internal {
Backend registered_backends[16];
int num_backends = 0;
const Kernel* registered_kernels[64];
int num_kernels = 0;
}  // namespace internal

int register_backend(const Backend& backend) {
  if (internal::num_backends >= 16) return -1;
  internal::registered_backends[internal::num_backends++] = backend;
  return 0;
}

const Backend* get_backend(const char* name) {
  for (int i = 0; i < internal::num_backends; ++i)
    if (std::strcmp(internal::registered_backends[i].name, name) == 0)
      return &internal::registered_backends[i];
  return nullptr;
}

int num_registered_backends() { return internal::num_backends; }

const Backend* get_backend_at(int i) {
  return i >= 0 && i < internal::num_backends ? &internal::registered_backends[i] : nullptr;
}

int register_kernels(const Kernel* kernels, int n) {
  for (int i = 0; i < n && internal::num_kernels < 64; ++i)
    internal::registered_kernels[internal::num_kernels++] = &kernels[i];
  return 0;
}

int num_registered_kernels() { return internal::num_kernels; }

}  // namespace runtime
}  // namespace executorch
