/* Needs GLIBC_2.34: pthread_create moved into libc.so.6 in 2.34, under a new version. */
#include <pthread.h>
static void *run(void *arg) { return arg; }
int needs_2_34(void) { pthread_t t; return pthread_create(&t, 0, run, 0); }
