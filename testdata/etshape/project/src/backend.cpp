// The XNNPACK-like delegate: registers its backend from a static
// initializer and creates the thread pool its private copy defines.
#include "registry.h"
extern "C" void* pthreadpool_create(unsigned threads);
namespace {
const et::Backend backend{"XnnpackBackend"};
const int registered = et::register_backend(backend);
}  // namespace
extern "C" void* xnn_backend_threadpool() { return pthreadpool_create(1); }
