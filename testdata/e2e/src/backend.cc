// backend.cc: libexecutorch_backend_xnnpack.so.1 of the end-to-end wheel
// (see ../build-wheel.sh). Its own API is et_backend_*; it calls into
// pthreadpool, cpuinfo and XNNPACK (Debian's real shared libraries, grafted
// or not) and into leveldb (Debian's real static archive, linked whole).
#include <stddef.h>

extern "C" {
// Declared here rather than included so the build needs only the runtime
// packages of these three, not their -dev headers.
struct pthreadpool;
pthreadpool* pthreadpool_create(size_t threads_count);
void pthreadpool_destroy(pthreadpool* pool);
bool cpuinfo_initialize(void);
int xnn_initialize(const void* allocator);  // enum xnn_status
int leveldb_major_version(void);            // leveldb/c.h

int et_backend_init(void) {
  if (!cpuinfo_initialize()) return -1;
  if (xnn_initialize(NULL) != 0) return -2;
  pthreadpool* pool = pthreadpool_create(1);
  if (pool == NULL) return -3;
  pthreadpool_destroy(pool);
  return 0;
}

const char* et_backend_name(void) { return "XnnpackBackend"; }

int et_backend_store_version(void) { return leveldb_major_version(); }
}
