#!/usr/bin/env bash
# A kernel archive whose registration member only holds a static
# initializer: not extracted when the archive is linked plainly, extracted
# under --whole-archive (g++, ar, the system linker).
set -euo pipefail
out=$1 src=$(cd ../.. && pwd)
source ../../link.sh
run g++ -fPIC -c "$src/runtime.cpp" -o runtime.o
run g++ -c "$src/kernels.cpp" -o register_kernels.o
run g++ -c "$src/op_add.cpp" -o op_add.o
run g++ -c "$src/main.cpp" -o main.o
run g++ -shared -o libet_runtime.so -Wl,-soname,libet_runtime.so runtime.o
run ar rcs libet_kernels.a op_add.o register_kernels.o
run g++ -o consumer_plain main.o -L. libet_kernels.a -let_runtime -Wl,-rpath,'$ORIGIN'
run g++ -o consumer_whole main.o -L. -Wl,--whole-archive libet_kernels.a -Wl,--no-whole-archive -let_runtime -Wl,-rpath,'$ORIGIN'
