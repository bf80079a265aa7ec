// Lists the library's options LLVM's command-line parser knows.
#include <cstdio>
#include <llvm/Support/CommandLine.h>
int main() {
  if (llvm::cl::getRegisteredOptions().count("reg-level")) std::puts("reg-level");
}
