// main.o, the only object on the link line. It references used_fn (member
// used.o of libstatic.a), thin_fn (member thin/thin_member.o of the thin
// archive libthin.a) and yes_fn (libyes.so.1). Nothing references the
// member reg.o of libstatic.a or the library libno.so.
#include <cstdio>

int used_fn(int);
int thin_fn(int);
int yes_fn(int);

// Nothing calls gc_dead: compiled with -ffunction-sections and linked with
// --gc-sections, its section .text._Z7gc_deadi is discarded.
int gc_dead(int x) { return x * 7 + 3; }

int main(int argc, char **) {
	std::printf("%d\n", used_fn(argc) + thin_fn(argc) + yes_fn(argc));
	return 0;
}
