int forgotten(void);
void *PyInit__missing(void) { return (void *)(long)forgotten(); }
