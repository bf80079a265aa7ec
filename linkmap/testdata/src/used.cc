// used.o, member of libstatic.a: main.o references used_fn, so every
// linker extracts it.
int used_fn(int x) { return x + 1; }
