// Abseil: ABSL_FLAG registers the flag with RegisterCommandLineFlag.
#include <absl/flags/flag.h>
ABSL_FLAG(int, reg_depth, 3, "a flag defined in a library");
extern "C" int reg_absl_anchor() { return 1; }
