// Compiled with -flto: the archive member holds GCC's IR, not code.
#include <cstdio>
struct Announce { Announce() { std::puts("lto unit initialized"); } };
static Announce announce;
