#!/usr/bin/env bash
# Builds the wheels of the auditwheel parity test (cmd/etlink/auditwheel_test.go)
# into OUTDIR, each an extension module (src/ext.c) that needs libraries
# outside the wheel, which need others in turn:
#
#   OUTDIR/lib/libouter.so.1   C++ (GLIBCXX, CXXABI versions), needs libinner.so.1,
#                              found through its DT_RUNPATH $ORIGIN/../inner
#   OUTDIR/inner/libinner.so.1 needs GLIBC_2.25 (getrandom)
#
# OUTDIR/lib is found as LD_LIBRARY_PATH finds it (the test gives it to ldd,
# auditwheel and etlink check --library-path). The wheels:
#
#   xnnpack-...whl  links Debian's libXNNPACK.so.0 (libxnnpack-dev), which needs
#                   libcpuinfo.so.0 and libpthreadpool.so.0 from the system
#   chain-...whl    needs libouter.so.1 (and so libinner.so.1)
#   shipped-...whl  needs its own libshipped.so (DT_RUNPATH $ORIGIN), which
#                   needs libouter.so.1
#   rpath-...whl    needs libouter.so.1 through an absolute DT_RUNPATH into OUTDIR/lib
#                   (the build machine's path: auditwheel follows it, and so does
#                   etlink for the external libraries, beside its ET203 and ET402)
#   gone-...whl     needs libgone.so.1, which is nowhere once built
#   clean-...whl    needs only what every manylinux policy allows
#
# usage: build.sh OUTDIR
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${1:?usage: build.sh OUTDIR}
mkdir -p "$out/lib" "$out/inner" "$out/build"
b=$out/build
gcc -O2 -shared -fPIC -o "$out/inner/libinner.so.1" -Wl,-soname,libinner.so.1 "$here/src/inner.c"
g++ -O2 -shared -fPIC -o "$out/lib/libouter.so.1" -Wl,-soname,libouter.so.1 "$here/src/outer.cpp" \
	"$out/inner/libinner.so.1" -Wl,--enable-new-dtags,-rpath,'$ORIGIN/../inner'
gcc -O2 -shared -fPIC -o "$b/libgone.so.1" -Wl,-soname,libgone.so.1 "$here/src/gone.c"
gcc -O2 -shared -fPIC -o "$b/libshipped.so" -Wl,-soname,libshipped.so "$here/src/shipped.c" "$out/lib/libouter.so.1"

ext() { # ext NAME CFLAGS... : the extension module built into $b/NAME.so
	local name=$1
	shift
	gcc -O2 -shared -fPIC -o "$b/$name.so" "$here/src/ext.c" "$@" -lm
}
ext xnnpack -DUSE_XNNPACK -lXNNPACK
ext chain -DUSE_OUTER "$out/lib/libouter.so.1"
ext shipped -DUSE_SHIPPED "$b/libshipped.so" -Wl,--enable-new-dtags,-rpath,'$ORIGIN'
ext rpath -DUSE_OUTER "$out/lib/libouter.so.1" -Wl,--enable-new-dtags,-rpath,"$out/lib"
ext gone -DUSE_GONE "$b/libgone.so.1"
ext clean
rm "$b/libgone.so.1"

so=cpython-311-x86_64-linux-gnu.so
tag=cp311-cp311-manylinux_2_17_x86_64
for name in xnnpack chain rpath gone clean; do
	python3 "$here/mkwheel.py" "$out/$name-1.0-$tag.whl" "$name/ext.$so=$b/$name.so"
done
python3 "$here/mkwheel.py" "$out/shipped-1.0-$tag.whl" "shipped/ext.$so=$b/shipped.so" "shipped/libshipped.so=$b/libshipped.so"
