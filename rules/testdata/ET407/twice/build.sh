#!/usr/bin/env bash
# A wheel holding one entry name twice, with different contents (gcc,
# python3's zipfile).
set -euo pipefail
out=$1
echo 'void *PyInit__m(void) { return 0; }' > "$out/a.c"
echo 'void *PyInit__m(void) { return (void *)1; }' > "$out/b.c"
gcc -shared -fPIC -o "$out/a.so" "$out/a.c"
gcc -shared -fPIC -o "$out/b.so" "$out/b.c"
python3 ../../mkwheel.py "$out/pkg-1.0-cp311-cp311-manylinux_2_17_x86_64.whl" \
  pkg/_m.cpython-311-x86_64-linux-gnu.so="$out/a.so" pkg/_m.cpython-311-x86_64-linux-gnu.so="$out/b.so"
rm "$out"/a.* "$out"/b.*
