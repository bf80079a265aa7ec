// runtime.cc: demo libexecutorch.so.1, the runtime with the backend registry.
#include <string.h>

#include "runtime.h"

namespace executorch {
namespace runtime {

BackendRegistry backend_registry = {};

Error register_backend(const Backend& backend) {
  if (backend_registry.count == sizeof(backend_registry.entries) / sizeof(backend_registry.entries[0])) {
    return Error::RegistrationExceedingMaxKernels;
  }
  backend_registry.entries[backend_registry.count++] = backend;
  return Error::Ok;
}

BackendInterface* get_backend_class(const char* name) {
  for (size_t i = 0; i < backend_registry.count; i++) {
    if (strcmp(backend_registry.entries[i].name, name) == 0) return backend_registry.entries[i].backend;
  }
  return nullptr;
}

size_t get_num_registered_backends() { return backend_registry.count; }

}  // namespace runtime
}  // namespace executorch
