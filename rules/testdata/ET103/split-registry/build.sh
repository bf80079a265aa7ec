#!/usr/bin/env bash
# A consumer loading the runtime and a backend that compiled the runtime's
# sources in again, once as is and once linked -Bsymbolic (its own calls
# then bind to its own copy: it registers where the consumer never looks);
# g++ and the system linker.
set -euo pipefail
out=$1 src=$(cd ../.. && pwd)
source ../../link.sh
run g++ -fPIC -c "$src/runtime.cpp" -o runtime.o
run g++ -fPIC -I"$src" -c "$src/fat.cpp" -o fat.o
run g++ -c "$src/main.cpp" -o main.o
run g++ -c "$src/op_add.cpp" -o op_add.o
run g++ -shared -o libet_runtime.so -Wl,-soname,libet_runtime.so runtime.o
run g++ -shared -o libet_backend_fat.so -Wl,-soname,libet_backend_fat.so fat.o
run g++ -shared -o libet_backend_fat_symbolic.so -Wl,-soname,libet_backend_fat_symbolic.so -Wl,-Bsymbolic fat.o
run g++ -o consumer_split main.o op_add.o -L. -Wl,--no-as-needed -let_runtime -let_backend_fat -Wl,-rpath,'$ORIGIN'
run g++ -o consumer_split_symbolic main.o op_add.o -L. -Wl,--no-as-needed -let_runtime -let_backend_fat_symbolic -Wl,-rpath,'$ORIGIN'
