// LLVM: a cl::opt's constructor runs methods defined in libLLVM (done(),
// addArgument()) that put the option into the global parser.
#include <llvm/Support/CommandLine.h>
static llvm::cl::opt<int> RegLevel("reg-level", llvm::cl::desc("an option defined in a library"), llvm::cl::init(2));
extern "C" int reg_llvm_anchor() { return RegLevel; }
