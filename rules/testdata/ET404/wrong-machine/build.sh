#!/usr/bin/env bash
# x86_64 code in a wheel tagged for aarch64, and in one tagged for x86_64
# (gcc, python3's zipfile).
set -euo pipefail
out=$1
echo 'void *PyInit__m(void) { return 0; }' > "$out/m.c"
gcc -shared -fPIC -o "$out/_m.so" "$out/m.c"
python3 ../../mkwheel.py "$out/pkg-1.0-cp311-cp311-manylinux_2_17_aarch64.whl" pkg/_m.cpython-311-x86_64-linux-gnu.so="$out/_m.so"
python3 ../../mkwheel.py "$out/pkg-1.0-cp311-cp311-manylinux_2_17_x86_64.whl" pkg/_m.cpython-311-x86_64-linux-gnu.so="$out/_m.so"
rm "$out/m.c" "$out/_m.so"
