#!/usr/bin/env bash
# RUNPATHs as a build leaves them: a build-tree directory, an absolute
# directory of the build machine, a system directory, and $ORIGIN (gcc).
set -euo pipefail
out=$1
mkdir -p "$out/pkg"
echo 'int f(void) { return 1; }' > "$out/f.c"
gcc -shared -fPIC -o "$out/pkg/libbuildtree.so" "$out/f.c" -Wl,-rpath,/home/ci/executorch/cmake-out/lib
gcc -shared -fPIC -o "$out/pkg/libabsolute.so" "$out/f.c" -Wl,-rpath,/opt/vendor/lib
gcc -shared -fPIC -o "$out/pkg/libsystem.so" "$out/f.c" -Wl,-rpath,/usr/lib/x86_64-linux-gnu
gcc -shared -fPIC -o "$out/pkg/liborigin.so" "$out/f.c" -Wl,-rpath,'$ORIGIN/../lib'
rm "$out/f.c"
