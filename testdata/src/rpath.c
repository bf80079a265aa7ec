/* rpath.c: librpath.so, linked with --disable-new-dtags so it carries
   DT_RPATH instead of DT_RUNPATH. */
int rpath_fn(int x) { return x + 100; }
