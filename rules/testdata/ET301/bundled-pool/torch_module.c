int cpuinfo_initialize(void);
int pthreadpool_create(int n);
void *PyInit__C(void) { return (void *)(long)(cpuinfo_initialize() + pthreadpool_create(1)); }
