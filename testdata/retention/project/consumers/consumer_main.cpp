// Every consumer executable: prints what the registries hold at run time.
// ET_USE_* macros select the one symbol each variant references.
#include <cstdio>

#include "registry.h"

extern "C" int et_backend_xnn_anchor();
extern "C" int et_backend_fat_anchor();
extern "C" int et_op_add(int, int);
extern "C" int et_glue_touch();

int main() {
#ifdef ET_USE_XNN_ANCHOR
  et_backend_xnn_anchor();
#endif
#ifdef ET_USE_FAT_ANCHOR
  et_backend_fat_anchor();
#endif
#ifdef ET_USE_OP_ADD
  et_op_add(1, 2);
#endif
#ifdef ET_USE_GLUE
  et_glue_touch();
#endif
  namespace rt = executorch::runtime;
  std::printf("backends=%d kernels=%d\n", rt::num_registered_backends(),
              rt::num_registered_kernels());
  for (int i = 0; i < rt::num_registered_backends(); ++i)
    std::printf("backend=%s\n", rt::get_backend_at(i)->name);
  return 0;
}
