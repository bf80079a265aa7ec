// libyes.so.1 (file libyes.so): main.o calls yes_fn, so under --as-needed
// every linker records it in DT_NEEDED.
int yes_fn(int x) { return x * 2; }
