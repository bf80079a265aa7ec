// backend_xnnpack.cc: demo libexecutorch_backend_xnnpack.so.1. It exports
// the xnn_* entry points (xnnpack_lite.c is linked into it), a weak
// flatbuffers instantiation, and registers itself from a static
// initializer, as ExecuTorch's XNNPACK delegate does.
#include "flatbuffers_lite.h"
#include "runtime.h"

extern "C" {
int xnn_initialize(const void* allocator);
struct pthreadpool;
pthreadpool* pthreadpool_create(size_t threads_count);
}

template uint32_t flatbuffers::ReadScalar<uint32_t>(const void*);

namespace executorch {
namespace backends {
namespace xnnpack {
namespace {
struct Registrar {
  Registrar() {
    static runtime::Backend backend{"XnnpackBackend", nullptr};
    (void)xnn_initialize(nullptr);
    (void)pthreadpool_create(0);
    (void)runtime::register_backend(backend);
  }
};
Registrar registrar;
}  // namespace
}  // namespace xnnpack
}  // namespace backends
}  // namespace executorch
