// executorch_core: the one kernel and backend registry a process should have.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include "registry.h"
namespace et {
namespace {
const char* kernels[64];
int nkernels;
const char* backends[16];
int nbackends;
}  // namespace
int register_kernels(const Kernel* ks, int n) {
  for (int i = 0; i < n; i++) {
    for (int j = 0; j < nkernels; j++) {
      if (std::strcmp(kernels[j], ks[i].name) == 0) {
        std::fprintf(stderr, "kernel %s already registered\n", ks[i].name);
        std::abort();
      }
    }
    if (nkernels < 64) kernels[nkernels++] = ks[i].name;
  }
  return nkernels;
}
int register_backend(const Backend& b) {
  if (nbackends < 16) backends[nbackends++] = b.name;
  return nbackends;
}
int num_kernels() { return nkernels; }
const char* kernel_name(int i) { return kernels[i]; }
int num_backends() { return nbackends; }
const char* backend_name(int i) { return backends[i]; }
}  // namespace et
