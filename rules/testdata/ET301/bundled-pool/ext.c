int backend_init(void);
void *PyInit__ext(void) { return (void *)(long)backend_init(); }
