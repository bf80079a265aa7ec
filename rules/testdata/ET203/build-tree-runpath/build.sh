#!/usr/bin/env bash
# RUNPATHs as a build leaves them: a build-tree directory, an absolute
# directory of the build machine, a system directory, $ORIGIN (gcc), and an
# absolute directory where the loader finds a library the package needs but
# does not ship (dep/, beside the package, as a build tree's lib/ is).
set -euo pipefail
out=$1
mkdir -p "$out/pkg" "$out/dep"
echo 'int f(void) { return 1; }' > "$out/f.c"
gcc -shared -fPIC -o "$out/pkg/libbuildtree.so" "$out/f.c" -Wl,-rpath,/home/ci/executorch/cmake-out/lib
gcc -shared -fPIC -o "$out/pkg/libabsolute.so" "$out/f.c" -Wl,-rpath,/opt/vendor/lib
gcc -shared -fPIC -o "$out/pkg/libsystem.so" "$out/f.c" -Wl,-rpath,/usr/lib/x86_64-linux-gnu
gcc -shared -fPIC -o "$out/pkg/liborigin.so" "$out/f.c" -Wl,-rpath,'$ORIGIN/../lib'
gcc -shared -fPIC -o "$out/dep/libdep.so" "$out/f.c"
gcc -shared -fPIC -o "$out/pkg/libneedsdep.so" "$out/f.c" -L"$out/dep" -Wl,--no-as-needed -ldep -Wl,-rpath,"$out/dep"
rm "$out/f.c"
