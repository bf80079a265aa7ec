#!/usr/bin/env bash
# Extension modules with undefined symbols: one that nothing defines, one
# that the interpreter provides (PyModule_Create2 from python3, sqrt from the
# interpreter's libm), one defined by a library the module loads (gcc).
set -euo pipefail
out=$1
mkdir -p "$out/pkg"
gcc -shared -fPIC -o "$out/pkg/libhelper.so" -Wl,-soname,libhelper.so helper.c
gcc -shared -fPIC -o "$out/pkg/_broken.cpython-311-x86_64-linux-gnu.so" broken.c
gcc -shared -fPIC -o "$out/pkg/_fine.cpython-311-x86_64-linux-gnu.so" fine.c \
  -L"$out/pkg" -Wl,--no-as-needed -lhelper -Wl,-rpath,'$ORIGIN'
