#!/usr/bin/env bash
# testdata/field/mustflag/build.sh OUTDIR
#
# Builds small installed-package trees that etlink must flag, each with the
# real toolchain and Debian's own libraries, in under a second each. Every
# tree OUTDIR/NAME/ holds a package directory and an EXPECT file: one line
# "COMMAND RULE SEVERITY" for each (rule, severity) etlink must report, and
# nothing else at warning or error (cmd/etlink/field_test.go runs etlink and
# confirms each error and warning with the real loader):
#
#   static-libstdcxx   _slib.so linked -static-libstdc++ -static-libgcc with
#                      default visibility: it exports the part of libstdc++ it
#                      uses, beside the system libstdc++.so.6 torch loads.
#   grafted            _cpu.so needs a copy of Debian's libcpuinfo.so.0
#                      grafted as auditwheel does (renamed libcpuinfo-HASH.so.0,
#                      SONAME set to it, RUNPATH $ORIGIN/../cpupkg.libs):
#                      loaded after torch, two cpuinfo states live side by side.
#   grafted-unrenamed  the same copy left as libcpuinfo.so.0: torch already
#                      loaded a file of that SONAME, so the loader reuses it and
#                      _cpu's references bind to torch's copy, not the shipped one.
#   missing-needed     _cpu.so uses cpuinfo without linking libcpuinfo (no
#                      DT_NEEDED): undefined at import.
#   interp-libm        _math.so calls hypot without linking libm: it loads only
#                      because python3 loads libm (a note, not an error).
#   unfindable         _gone.so needs libgone.so.1, which is not shipped.
#   soname-mismatch    libgone.so ships with SONAME libgone.so.1: a consumer
#                      linked against it looks for a file of that name.
#
# Needs (Debian packages): gcc g++ patchelf python3-dev libcpuinfo-dev.
set -euo pipefail

[[ $# -eq 1 ]] || {
	echo "usage: build.sh OUTDIR" >&2
	exit 2
}
out=$1
src=$(cd "$(dirname "${BASH_SOURCE[0]}")/src" && pwd)
for tool in gcc g++ patchelf python3-config sha256sum; do
	command -v "$tool" >/dev/null || {
		echo "build.sh: $tool not found (apt-get install gcc g++ patchelf python3-dev)" >&2
		exit 2
	}
done
cpuinfo=/usr/lib/x86_64-linux-gnu/libcpuinfo.so.0
[[ -f $cpuinfo && -f /usr/include/cpuinfo.h ]] || {
	echo "build.sh: $cpuinfo or cpuinfo.h missing (apt-get install libcpuinfo-dev)" >&2
	exit 2
}
ext=$(python3-config --extension-suffix)
# Extension modules as pybind11 and setuptools build them: the interpreter's
# headers, no libpython, undefined C API left to the interpreter.
pyflags=($(python3-config --includes) -O2 -fPIC -shared)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
rm -rf "$out"
mkdir -p "$out"

tree() { # tree NAME: a fresh tree directory; EXPECT lines follow on stdin
	mkdir -p "$out/$1"
	cat >"$out/$1/EXPECT"
}

# An error: its references to libstdc++'s writable state (the guard
# variables of std::locale's facet ids) bind to the system libstdc++.so.6
# torch loaded, its other references to its own copy: two runtimes mixed.
tree static-libstdcxx <<'EOF'
conflicts ET301 error
EOF
mkdir -p "$out/static-libstdcxx/slibpkg"
g++ "${pyflags[@]}" "$src/slib.cc" -o "$out/static-libstdcxx/slibpkg/_slib$ext" -static-libstdc++ -static-libgcc

# graft NAME SONAME: _cpu.so and a copy of libcpuinfo.so.0 under SONAME.
graft() {
	local t=$out/$1 soname=$2
	mkdir -p "$t/cpupkg" "$t/cpupkg.libs"
	cp "$cpuinfo" "$t/cpupkg.libs/$soname"
	patchelf --set-soname "$soname" "$t/cpupkg.libs/$soname"
	gcc "${pyflags[@]}" "$src/cpuinfo_user.c" -o "$t/cpupkg/_cpu$ext" -L"$t/cpupkg.libs" -l:"$soname" \
		-Wl,-rpath,'$ORIGIN/../cpupkg.libs' -Wl,--enable-new-dtags
}
hash=$(sha256sum "$cpuinfo" | cut -c1-8)
tree grafted <<'EOF'
conflicts ET301 warning
EOF
graft grafted "libcpuinfo-$hash.so.0"
tree grafted-unrenamed <<'EOF'
conflicts ET301 error
EOF
graft grafted-unrenamed libcpuinfo.so.0

tree missing-needed <<'EOF'
check ET401 error
EOF
mkdir -p "$out/missing-needed/cpupkg"
gcc "${pyflags[@]}" "$src/cpuinfo_user.c" -o "$out/missing-needed/cpupkg/_cpu$ext"

tree interp-libm <<'EOF'
check ET401 note
EOF
mkdir -p "$out/interp-libm/mathpkg"
gcc "${pyflags[@]}" -fno-builtin "$src/math_user.c" -o "$out/interp-libm/mathpkg/_math$ext"

gcc -O2 -fPIC -shared "$src/gone.c" -o "$tmp/libgone.so.1" -Wl,-soname,libgone.so.1
tree unfindable <<'EOF'
check ET402 error
EOF
mkdir -p "$out/unfindable/gonepkg"
gcc "${pyflags[@]}" "$src/gone_user.c" -o "$out/unfindable/gonepkg/_gone$ext" "$tmp/libgone.so.1" \
	-Wl,-rpath,'$ORIGIN' -Wl,--enable-new-dtags

tree soname-mismatch <<'EOF'
check ET403 warning
EOF
mkdir -p "$out/soname-mismatch/gonepkg"
cp "$tmp/libgone.so.1" "$out/soname-mismatch/gonepkg/libgone.so"
