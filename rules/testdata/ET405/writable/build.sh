#!/usr/bin/env bash
# Wheel entries installed writable by group and by others, beside a 0755
# and a 0644 one (gcc, python3's zipfile).
set -euo pipefail
out=$1
echo 'void *PyInit__m(void) { return 0; }' > "$out/m.c"
gcc -shared -fPIC -o "$out/_m.so" "$out/m.c"
echo 'x = 1' > "$out/init.py"
python3 ../../mkwheel.py "$out/pkg-1.0-cp311-cp311-manylinux_2_17_x86_64.whl" \
  pkg/_m.cpython-311-x86_64-linux-gnu.so="$out/_m.so:775" pkg/__init__.py="$out/init.py:666" \
  pkg/_n.cpython-311-x86_64-linux-gnu.so="$out/_m.so:755" pkg/data.py="$out/init.py:644"
rm "$out/m.c" "$out/_m.so" "$out/init.py"
