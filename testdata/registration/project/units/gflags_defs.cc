// gflags: DEFINE_int32 hands the flag's storage to a FlagRegisterer.
#include <gflags/gflags.h>
DEFINE_int32(reg_port, 80, "a flag defined in a library");
extern "C" int reg_gflags_anchor() { return 1; }
