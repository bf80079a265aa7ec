// Lists the library's flags Abseil's registry knows.
#include <cstdio>
#include <absl/flags/reflection.h>
int main() {
  if (absl::FindCommandLineFlag("reg_depth")) std::puts("reg_depth");
}
