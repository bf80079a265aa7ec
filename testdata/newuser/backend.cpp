#include "registry.h"

namespace {
int make_mine() { return 42; }
// Runs when the library is loaded: only if the module's DT_NEEDED keeps it.
struct Registrar {
  Registrar() { newuser::register_backend("mine", make_mine); }
} registrar;
}  // namespace
