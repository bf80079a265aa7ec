#!/usr/bin/env bash
# A peer (torch's stand-in: libtorch_cpu.so with a thread pool, and a module
# using it) and a wheel whose backend bundles its own copy of the pool and
# of cpuinfo's state (gcc).
set -euo pipefail
out=$1
mkdir -p "$out/torch/lib" "$out/wheel/pkg"
gcc -shared -fPIC -O1 -o "$out/torch/lib/libtorch_cpu.so" -Wl,-soname,libtorch_cpu.so pool.c
gcc -shared -fPIC -O1 -o "$out/torch/_C.cpython-311-x86_64-linux-gnu.so" torch_module.c \
  -L"$out/torch/lib" -Wl,--no-as-needed -ltorch_cpu -Wl,-rpath,'$ORIGIN/lib'
gcc -shared -fPIC -O1 -o "$out/wheel/pkg/libbackend.so" -Wl,-soname,libbackend.so pool.c backend.c
gcc -shared -fPIC -O1 -o "$out/wheel/pkg/_ext.cpython-311-x86_64-linux-gnu.so" ext.c \
  -L"$out/wheel/pkg" -Wl,--no-as-needed -lbackend -Wl,-rpath,'$ORIGIN'
