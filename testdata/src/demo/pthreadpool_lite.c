/* pthreadpool_lite.c: a tiny serial stand-in for pthreadpool and cpuinfo,
   with the real libraries' entry-point names and signatures and default
   visibility. Compiled into both the demo wheel's
   libexecutorch_threadpool.so.1 and the demo torch's libtorch_cpu.so, as
   the real wheel and the real torch each carry their own copy. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

struct pthreadpool {
  size_t threads_count;
};
typedef struct pthreadpool* pthreadpool_t;
typedef void (*pthreadpool_task_1d_t)(void*, size_t);

pthreadpool_t pthreadpool_create(size_t threads_count) {
  pthreadpool_t pool = calloc(1, sizeof(*pool));
  if (pool != NULL) pool->threads_count = threads_count == 0 ? 1 : threads_count;
  return pool;
}

void pthreadpool_destroy(pthreadpool_t pool) { free(pool); }

size_t pthreadpool_get_threads_count(pthreadpool_t pool) { return pool == NULL ? 1 : pool->threads_count; }

void pthreadpool_parallelize_1d(pthreadpool_t pool, pthreadpool_task_1d_t task, void* context, size_t range,
                                uint32_t flags) {
  (void)pool;
  (void)flags;
  for (size_t i = 0; i < range; i++) task(context, i);
}

/* State, not code: an exported OBJECT. Two copies in one process are two
   different flags, which is why a duplicate here matters more than a
   duplicate function. */
bool cpuinfo_is_initialized = false;

bool cpuinfo_initialize(void) {
  cpuinfo_is_initialized = true;
  return true;
}
