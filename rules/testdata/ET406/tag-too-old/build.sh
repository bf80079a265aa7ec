#!/usr/bin/env bash
# A module needing pthread_create@GLIBC_2.34 (Debian 12's glibc 2.36 gives
# it that version) in a wheel tagged manylinux_2_17, and in one tagged
# manylinux_2_34 (gcc, python3's zipfile).
set -euo pipefail
out=$1
cat > "$out/m.c" <<'C'
#include <pthread.h>
static void *run(void *a) { return a; }
void *PyInit__m(void) { pthread_t t; pthread_create(&t, 0, run, 0); return 0; }
C
gcc -shared -fPIC -o "$out/_m.so" "$out/m.c" -pthread
mkdir -p "$out/old" "$out/new"
python3 ../../mkwheel.py "$out/old/pkg-1.0-cp311-cp311-manylinux_2_17_x86_64.whl" pkg/_m.cpython-311-x86_64-linux-gnu.so="$out/_m.so"
python3 ../../mkwheel.py "$out/new/pkg-1.0-cp311-cp311-manylinux_2_34_x86_64.whl" pkg/_m.cpython-311-x86_64-linux-gnu.so="$out/_m.so"
rm "$out/m.c" "$out/_m.so"
