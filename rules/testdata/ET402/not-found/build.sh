#!/usr/bin/env bash
# DT_NEEDED entries once the package is installed: one found through
# $ORIGIN, one found only through a build-tree RUNPATH that will not exist,
# one found nowhere (its library left out of the package), one from the
# system (gcc).
set -euo pipefail
out=$1
mkdir -p "$out/pkg/lib" "$out/build"
echo 'int shipped(void) { return 1; }' > "$out/shipped.c"
echo 'int forgotten(void) { return 2; }' > "$out/forgotten.c"
gcc -shared -fPIC -o "$out/pkg/lib/libshipped.so" -Wl,-soname,libshipped.so "$out/shipped.c"
gcc -shared -fPIC -o "$out/build/libforgotten.so" -Wl,-soname,libforgotten.so "$out/forgotten.c"
gcc -shared -fPIC -o "$out/pkg/_ok.cpython-311-x86_64-linux-gnu.so" ok.c \
  -L"$out/pkg/lib" -Wl,--no-as-needed -lshipped -lm -Wl,-rpath,'$ORIGIN/lib'
gcc -shared -fPIC -o "$out/pkg/_missing.cpython-311-x86_64-linux-gnu.so" missing.c \
  -L"$out/build" -Wl,--no-as-needed -lforgotten
rm "$out"/*.c
