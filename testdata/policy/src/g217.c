/* Needs GLIBC_2.17 from libc.so.6: clock_gettime moved there from librt in 2.17. */
#include <time.h>
int needs_2_17(void) { struct timespec t; return clock_gettime(CLOCK_MONOTONIC, &t); }
