// A consumer that looks backends up but references no backend's symbol.
#include "registry.h"
int op_add(int, int);
int main() { return executorch::runtime::num_registered_backends() + op_add(0, 0); }
