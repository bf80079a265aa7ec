#!/usr/bin/env bash
# SONAMEs: one naming a file the package does not ship (the library was
# installed under its link name only), one naming its own file, one with
# none; a module needs the first by its SONAME (gcc).
set -euo pipefail
out=$1
mkdir -p "$out/pkg"
echo 'int rt(void) { return 1; }' > "$out/rt.c"
gcc -shared -fPIC -o "$out/pkg/libruntime.so" -Wl,-soname,libruntime.so.1 "$out/rt.c"
gcc -shared -fPIC -o "$out/pkg/libfine.so" -Wl,-soname,libfine.so "$out/rt.c"
echo 'int rt(void); void *PyInit__m(void) { return (void *)(long)rt(); }' > "$out/m.c"
gcc -shared -fPIC -o "$out/pkg/_m.cpython-311-x86_64-linux-gnu.so" "$out/m.c" \
  -L"$out/pkg" -Wl,--no-as-needed -lruntime -Wl,-rpath,'$ORIGIN'
gcc -shared -fPIC -o "$out/pkg/libnosoname.so" "$out/rt.c"
rm "$out"/*.c
