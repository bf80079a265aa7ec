int shipped(void);
void *PyInit__ok(void) { return (void *)(long)shipped(); }
