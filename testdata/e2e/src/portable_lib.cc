// portable_lib.cc: the extension module of the end-to-end wheel. Built with
// -fvisibility=hidden, it exports only PyInit__portable_lib (declared as a
// plain function: no Python headers are needed to model the ELF shape).
extern "C" {
int et_backend_init(void);

__attribute__((visibility("default"))) void* PyInit__portable_lib(void) {
  static int status;
  status = et_backend_init();
  return &status;
}
}
