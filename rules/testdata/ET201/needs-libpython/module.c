/* An extension module (defines PyInit_). */
void *PyModule_Create2(void *def, int api);
static char def[64];
void *PyInit__embeds(void) { return PyModule_Create2(def, 1013); }
