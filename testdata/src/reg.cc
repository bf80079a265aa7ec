// reg.cc: reg.o, a backend object whose static initializer registers it.
// register_backend is only declared: it is defined by the runtime library,
// as in ExecuTorch, so reg.o has an undefined reference to it and an
// .init_array entry (_GLOBAL__sub_I_reg.cc) whose code calls it.
#include <stdint.h>

namespace executorch {
namespace runtime {
class BackendInterface;
enum class Error : uint32_t { Ok = 0 };
struct Backend {
  const char* name;
  BackendInterface* backend;
};
Error register_backend(const Backend& backend);
}  // namespace runtime
}  // namespace executorch

namespace {
struct Registrar {
  Registrar() {
    static executorch::runtime::Backend b{"XnnpackBackend", nullptr};
    (void)executorch::runtime::register_backend(b);
  }
};
Registrar registrar;
}  // namespace
