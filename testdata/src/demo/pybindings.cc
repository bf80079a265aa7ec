// pybindings.cc: demo _portable_lib extension module. Built with
// -fvisibility=hidden, it exports only its PyInit function (declared as a
// plain function: no Python headers are needed to model the ELF shape).
#include "runtime.h"

extern "C" {
struct pthreadpool;
pthreadpool* pthreadpool_create(size_t threads_count);
int xnn_initialize(const void* allocator);

__attribute__((visibility("default"))) void* PyInit__portable_lib(void) {
  static size_t n;
  n = executorch::runtime::get_num_registered_backends();
  (void)xnn_initialize(nullptr);
  return pthreadpool_create(n);
}
}
