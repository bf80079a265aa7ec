#!/usr/bin/env bash
# A kernel registration unit in an archive and in a shared library built
# from the same object file: consumer_double whole-archives the archive and
# loads the library, so the unit's initializer runs twice into
# libet_runtime.so's registry (ExecuTorch's prim ops: libexecutorch.a
# whole-archived into executor_runner, which also loads libexecutorch.so).
# consumer_carried links the archive plainly: the member stays out, and the
# loaded library's copy registers the kernels once.
set -euo pipefail
out=$1 src=$(cd ../.. && pwd)
source ../../link.sh
run g++ -fPIC -c "$src/runtime.cpp" -o runtime.o
run g++ -fPIC -c "$src/kernels.cpp" -o kernels.o
run g++ -fPIC -c "$src/op_add.cpp" -o op_add.o
run g++ -c "$src/main.cpp" -o main.o
run g++ -shared -o libet_runtime.so -Wl,-soname,libet_runtime.so runtime.o
run ar rcs libet_kernels.a kernels.o
run g++ -shared -o libet_kernels.so -Wl,-soname,libet_kernels.so kernels.o -L. -let_runtime
run g++ -o consumer_double main.o op_add.o -L. -Wl,--whole-archive libet_kernels.a -Wl,--no-whole-archive -Wl,--no-as-needed -let_kernels -let_runtime -Wl,-rpath,'$ORIGIN'
run g++ -o consumer_carried main.o op_add.o -L. libet_kernels.a -Wl,--no-as-needed -let_kernels -let_runtime -Wl,-rpath,'$ORIGIN'
