int cpuinfo_initialize(void);
extern int cpuinfo_is_initialized;
int backend_init(void) { return cpuinfo_initialize() && cpuinfo_is_initialized; }
