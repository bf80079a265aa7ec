// Registers "XnnpackBackend" from a static initializer. Nothing here is
// referenced by a consumer except the optional anchor, so under --as-needed a
// consumer that does not call the anchor records no DT_NEEDED on this library
// and the initializer never runs.
#include "registry.h"

namespace {
int xnnpack_init() { return 0; }

const executorch::runtime::Backend kBackend{"XnnpackBackend", xnnpack_init};

struct XnnpackRegistrar {
  XnnpackRegistrar() { executorch::runtime::register_backend(kBackend); }
};
XnnpackRegistrar xnnpack_registrar;  // namespace-scope static: the registration
}  // namespace

// Optional anchor: referencing it keeps the library in DT_NEEDED.
extern "C" int et_backend_xnn_anchor() { return 1; }
