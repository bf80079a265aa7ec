/* References a symbol of a library it was never linked with. */
int xnn_initialize(void *allocator);
void *PyInit__broken(void) { return (void *)(long)xnn_initialize(0); }
