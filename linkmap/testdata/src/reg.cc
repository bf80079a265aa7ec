// reg.o, member of libstatic.a: all it does is register a backend from a
// static initializer. Nothing references it, so no linker extracts it and
// the registration is silently lost (etlink rule ET102).
#include <cstdio>

namespace {
struct Register {
	Register() { std::puts("reg: backend registered"); }
};
Register registered;
} // namespace

int reg_unused_marker = 1;
