#!/usr/bin/env bash
# Two libraries of one package export the same thread-pool entry point and
# the same state; an extension module links both (gcc, binutils).
set -euo pipefail
out=$1
mkdir -p "$out/pkg"
gcc -shared -fPIC -O1 -o "$out/pkg/liba.so" -Wl,-soname,liba.so pool.c
gcc -shared -fPIC -O1 -o "$out/pkg/libb.so" -Wl,-soname,libb.so pool.c
gcc -shared -fPIC -O1 -o "$out/pkg/_ext.cpython-311-x86_64-linux-gnu.so" ext.c \
  -L"$out/pkg" -Wl,--no-as-needed -la -lb -Wl,-rpath,'$ORIGIN'
