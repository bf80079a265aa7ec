#!/usr/bin/env bash
# A Release link strips its output (-s, ExecuTorch's Release flags): the
# output's initializers are unnamed and no map is written, so which archive
# members were extracted is predicted from the line; etlink says so. nm -D
# and readelf still show DT_NEEDED and the dynamic symbols.
set -euo pipefail
out=$1 src=$(cd ../.. && pwd)
source ../../link.sh
run g++ -fPIC -c "$src/runtime.cpp" -o runtime.o
run g++ -c "$src/kernels.cpp" -o register_kernels.o
run g++ -c "$src/op_add.cpp" -o op_add.o
run g++ -c "$src/main.cpp" -o main.o
run g++ -shared -o libet_runtime.so -Wl,-soname,libet_runtime.so runtime.o
run ar rcs libet_kernels.a op_add.o register_kernels.o
run g++ -s -o consumer_stripped main.o -L. libet_kernels.a -let_runtime -Wl,-rpath,'$ORIGIN'
