# link.sh OUT CMD...: runs a compile or link command in OUT and records it in
# OUT/build.log, as make VERBOSE=1 would show it; sourced by the ET1xx cases
# (which set out and src).
run() { (cd "$out" && echo "$*" >> build.log && "$@"); }

# kernels_fixture builds, from the shared sources in $src, what the ET102
# cases link: libet_runtime.so, the kernel archive libet_kernels.a
# (op_add.o and the registration member register_kernels.o) and main.o.
kernels_fixture() {
  run g++ -fPIC -c "$src/runtime.cpp" -o runtime.o
  run g++ -c "$src/kernels.cpp" -o register_kernels.o
  run g++ -c "$src/op_add.cpp" -o op_add.o
  run g++ -c "$src/main.cpp" -o main.o
  run g++ -shared -o libet_runtime.so -Wl,-soname,libet_runtime.so runtime.o
  run ar rcs libet_kernels.a op_add.o register_kernels.o
}
