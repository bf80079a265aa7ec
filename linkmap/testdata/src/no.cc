// libno.so: a backend that registers itself from a static initializer and
// that nothing references. Under --as-needed every linker leaves it out of
// DT_NEEDED, so the registration never runs (etlink rule ET101).
#include <cstdio>

namespace {
struct Register {
	Register() { std::puts("no: backend registered"); }
};
Register registered;
} // namespace

int no_fn(int x) { return x - 1; }
