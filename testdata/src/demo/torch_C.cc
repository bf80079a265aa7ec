// torch_C.cc: the demo torch's _C extension module.
namespace at {
void init_num_threads();
}

extern "C" __attribute__((visibility("default"))) void* PyInit__C(void) {
  at::init_num_threads();
  return nullptr;
}
