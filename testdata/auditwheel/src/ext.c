/* The extension module: which library it calls is chosen at build time. */
#include <math.h>
#if defined(USE_OUTER)
int outer_value(const char *s);
#define VALUE outer_value("ext")
#elif defined(USE_SHIPPED)
int shipped_value(void);
#define VALUE shipped_value()
#elif defined(USE_GONE)
int gone_value(void);
#define VALUE gone_value()
#elif defined(USE_XNNPACK)
#include <xnnpack.h>
#define VALUE (int)xnn_initialize(0)
#else
#define VALUE 0
#endif
void *PyInit_ext(void) { return (void *)(long)(VALUE + (int)floor(sqrt(2.0))); }
