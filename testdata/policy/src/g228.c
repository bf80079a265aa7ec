/* Needs GLIBC_2.28: fcntl64 is new in 2.28. */
#define _GNU_SOURCE
#include <fcntl.h>
int needs_2_28(int fd) { return fcntl64(fd, F_GETFD); }
