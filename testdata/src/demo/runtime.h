// runtime.h: the slice of the ExecuTorch runtime API the demo corpus uses.
#pragma once
#include <stddef.h>
#include <stdint.h>

namespace executorch {
namespace runtime {
class BackendInterface;
enum class Error : uint32_t { Ok = 0, Internal = 1, RegistrationExceedingMaxKernels = 2 };
struct Backend {
  const char* name;
  BackendInterface* backend;
};
// The registry state. Exported on purpose: a second definition of it in the
// same process is the split-registry failure (ET103).
struct BackendRegistry {
  Backend entries[16];
  size_t count;
};
extern BackendRegistry backend_registry;

Error register_backend(const Backend& backend);
BackendInterface* get_backend_class(const char* name);
size_t get_num_registered_backends();
}  // namespace runtime
}  // namespace executorch
