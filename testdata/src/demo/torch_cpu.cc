// torch_cpu.cc: the demo torch's libtorch_cpu.so. Besides its own code it
// links pthreadpool_lite.c and xnnpack_lite.c and instantiates the same
// flatbuffers template, so it exports every name the demo wheel exports from
// those components.
#include <stddef.h>

#include "flatbuffers_lite.h"

template uint32_t flatbuffers::ReadScalar<uint32_t>(const void*);

namespace at {
static int num_threads = 1;
void init_num_threads() { num_threads = 1; }
int get_num_threads() { return num_threads; }
}  // namespace at
