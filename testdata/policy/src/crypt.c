/* Needs libcrypt.so.1, a system library no manylinux policy allows. */
#include <crypt.h>
const char *needs_libcrypt(const char *key) { return crypt(key, "ab"); }
