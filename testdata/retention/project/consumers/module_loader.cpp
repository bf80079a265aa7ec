// Loads a module the way CPython imports an extension (RTLD_NOW|RTLD_LOCAL)
// and prints what its registries hold. Not a consumer itself: it links no
// ExecuTorch library.
#include <dlfcn.h>

#include <cstdio>

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s MODULE.so\n", argv[0]);
    return 2;
  }
  void* h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    std::fprintf(stderr, "dlopen: %s\n", dlerror());
    return 1;
  }
  auto nb = reinterpret_cast<int (*)()>(dlsym(h, "et_portable_num_backends"));
  auto nk = reinterpret_cast<int (*)()>(dlsym(h, "et_portable_num_kernels"));
  if (!nb || !nk) {
    std::fprintf(stderr, "dlsym: %s\n", dlerror());
    return 1;
  }
  std::printf("backends=%d kernels=%d\n", nb(), nk());
  return 0;
}
