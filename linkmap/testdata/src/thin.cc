// thin/thin_member.o, the member of the thin archive libthin.a: main.o
// references thin_fn. GNU ld names a thin archive's member in its map by
// the member's own path, without the archive.
int thin_fn(int x) { return x - 2; }
