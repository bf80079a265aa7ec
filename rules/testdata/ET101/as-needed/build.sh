#!/usr/bin/env bash
# A backend library linked under --as-needed by a consumer that references
# none of its symbols (dropped), and linked between --push-state,
# --no-as-needed and --pop-state (kept); g++ and the system linker (bfd).
set -euo pipefail
out=$1 src=$(cd ../.. && pwd)
source ../../link.sh
run g++ -fPIC -c "$src/runtime.cpp" -o runtime.o
run g++ -fPIC -c "$src/backend.cpp" -o backend.o
run g++ -c "$src/main.cpp" -o main.o
run g++ -c "$src/op_add.cpp" -o op_add.o
run g++ -shared -o libet_runtime.so -Wl,-soname,libet_runtime.so runtime.o
run g++ -shared -o libet_backend_xnn.so -Wl,-soname,libet_backend_xnn.so backend.o -L. -let_runtime
run g++ -o consumer_dropped main.o op_add.o -Wl,--as-needed -L. -let_backend_xnn -let_runtime -Wl,-rpath,'$ORIGIN'
run g++ -o consumer_kept main.o op_add.o -Wl,--as-needed -L. -Wl,--push-state,--no-as-needed -let_backend_xnn -Wl,--pop-state -let_runtime -Wl,-rpath,'$ORIGIN'
