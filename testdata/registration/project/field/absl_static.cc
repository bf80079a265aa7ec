// Links Debian's libabsl_flags_parse.a and libabsl_flags_usage*.a, using a part.
#include <absl/flags/flag.h>
#include <absl/flags/parse.h>
ABSL_FLAG(int, field_n, 1, "n");
int main(int argc, char** argv) { absl::ParseCommandLine(argc, argv); return absl::GetFlag(FLAGS_field_n) - 1; }
