// A consumer: lists the kernels and backends it sees. References no symbol
// of the backend or the kernel library.
#include <cstdio>
#include "registry.h"
int main() {
  for (int i = 0; i < et::num_kernels(); i++) std::printf("kernel %s\n", et::kernel_name(i));
  for (int i = 0; i < et::num_backends(); i++) std::printf("backend %s\n", et::backend_name(i));
  return 0;
}
