/* xnnpack_lite.c: a few XNNPACK entry points by their real names, compiled
   into both the demo wheel's XNNPACK backend and the demo torch. */
#include <stddef.h>
#include <stdint.h>

enum xnn_status { xnn_status_success = 0, xnn_status_uninitialized = 1, xnn_status_invalid_parameter = 2 };

static int xnn_initialized;

enum xnn_status xnn_initialize(const void* allocator) {
  (void)allocator;
  xnn_initialized = 1;
  return xnn_status_success;
}

enum xnn_status xnn_deinitialize(void) {
  xnn_initialized = 0;
  return xnn_status_success;
}

enum xnn_status xnn_create_runtime_v2(void* subgraph, void* threadpool, uint32_t flags, void** runtime_out) {
  (void)subgraph;
  (void)flags;
  if (!xnn_initialized) return xnn_status_uninitialized;
  if (runtime_out == NULL) return xnn_status_invalid_parameter;
  *runtime_out = threadpool;
  return xnn_status_success;
}

enum xnn_status xnn_delete_runtime(void* runtime) {
  (void)runtime;
  return xnn_status_success;
}
