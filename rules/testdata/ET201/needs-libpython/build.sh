#!/usr/bin/env bash
# An extension module and a program, both linked against an interpreter
# library (a stand-in with libpython's SONAME, built here), and a module
# that is not (gcc, binutils).
set -euo pipefail
out=$1
mkdir -p "$out/stub" "$out/pkg/bin"
gcc -shared -fPIC -o "$out/stub/libpython3.11.so" -Wl,-soname,libpython3.11.so.1.0 python.c
gcc -shared -fPIC -o "$out/pkg/_embeds.cpython-311-x86_64-linux-gnu.so" module.c -L"$out/stub" -Wl,--no-as-needed -lpython3.11
gcc -shared -fPIC -o "$out/pkg/_clean.cpython-311-x86_64-linux-gnu.so" module.c
gcc -o "$out/pkg/bin/embedder" embedder.c -L"$out/stub" -lpython3.11
