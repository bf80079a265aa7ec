#include <sys/random.h>
/* getrandom: GLIBC_2.25 */
int inner_value(void) { unsigned char b = 0; return (int)getrandom(&b, 1, GRND_NONBLOCK) + b; }
