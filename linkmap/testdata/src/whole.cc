// whole_archive_backend_registration.o, the only member of libwhole.a,
// linked under --whole-archive: every linker includes it although nothing
// references it, so its static initializer runs. The member name is long
// enough to make GNU ld and gold wrap the column of their archive table.
#include <cstdio>

namespace {
struct Register {
	Register() { std::puts("whole: backend registered"); }
};
Register registered;
} // namespace
