// Links Debian's libLLVMCore.a and libLLVMSupport.a: many members hold cl::opt
// registrations the program never pulls in (notes).
#include <llvm/Support/CommandLine.h>
int main(int argc, char** argv) { llvm::cl::ParseCommandLineOptions(argc, argv); return 0; }
