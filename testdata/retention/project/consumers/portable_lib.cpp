// A Python-extension-shaped module (the real _portable_lib.so case). It does
// not include Python.h: PyInit__portable_lib only gives it the shape.
#include "registry.h"

extern "C" __attribute__((visibility("default"))) void* PyInit__portable_lib() { return nullptr; }

extern "C" __attribute__((visibility("default"))) int et_portable_num_backends() {
  return executorch::runtime::num_registered_backends();
}

extern "C" __attribute__((visibility("default"))) int et_portable_num_kernels() {
  return executorch::runtime::num_registered_kernels();
}
