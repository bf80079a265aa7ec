// A backend that statically contains its own copy of the runtime
// (libet_runtime_static.a). Its register_backend call binds to whichever
// definition the loader (or -Bsymbolic) picks.
#include "registry.h"

namespace {
int fat_init() { return 0; }

const executorch::runtime::Backend kBackend{"FatBackend", fat_init};

struct FatRegistrar {
  FatRegistrar() { executorch::runtime::register_backend(kBackend); }
};
FatRegistrar fat_registrar;
}  // namespace

extern "C" int et_backend_fat_anchor() { return 1; }
