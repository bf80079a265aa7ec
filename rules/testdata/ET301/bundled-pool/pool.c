/* A thread pool and cpuinfo's state, as torch and a wheel both bundle them. */
int cpuinfo_is_initialized = 0;
int cpuinfo_initialize(void) { cpuinfo_is_initialized = 1; return 1; }
int pthreadpool_create(int n) { return n; }
