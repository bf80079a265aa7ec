// Lists the library's flags gflags knows.
#include <cstdio>
#include <gflags/gflags.h>
int main() {
  gflags::CommandLineFlagInfo info;
  if (gflags::GetCommandLineFlagInfo("reg_port", &info)) std::puts("reg_port");
}
