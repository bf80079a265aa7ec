/* Everything it references is defined at load time: PyModule_Create2 by
 * the interpreter, helper_value by its own library, and cos by libm, which
 * it does not link but the interpreter loads (a note: it loads only where
 * that holds). */
void *PyModule_Create2(void *def, int api);
int helper_value(void);
double cos(double);
static char def[64];
double angle = 0.5;
void *PyInit__fine(void) { return helper_value() && cos(angle) > 0 ? PyModule_Create2(def, 1013) : 0; }
