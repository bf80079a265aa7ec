#!/usr/bin/env bash
# build-wheel.sh OUTDIR [--fixed]
#
# Builds an unpacked, wheel-like ExecuTorch tree in OUTDIR that really carries
# third-party code torch also carries, for the end-to-end test of
# `etlink conflicts OUTDIR --with torch` against Debian's python3-torch.
# Sources are in src/ beside this script; see README.md for the layout and
# the expected conflicts, and oracle.sh for the independent expected set.
#
# Default ("bad") variant, what a careless release does:
#   executorch.libs/libpthreadpool-HASH.so.0, libcpuinfo-HASH.so.0,
#   libXNNPACK-HASH.so.0
#       Debian's real /usr/lib/MULTIARCH/libpthreadpool.so.0, libcpuinfo.so.0
#       and libXNNPACK.so.0 grafted the way `auditwheel repair` does it:
#       HASH is the first 8 hex digits of the file's sha256, the copy's SONAME
#       is set to its new name (patchelf --set-soname), a copy that needs
#       another grafted library has that DT_NEEDED rewritten to the new name
#       (patchelf --replace-needed) and gets DT_RPATH $ORIGIN (auditwheel
#       uses --force-rpath); a copy that needs none has its rpath cleared.
#       torch needs the original files, so every symbol they export is
#       exported twice in a process that imports both.
#   executorch/lib/libexecutorch_backend_xnnpack.so.1
#       src/backend.cc linked against the grafted copies (DT_NEEDED their new
#       names, DT_RUNPATH $ORIGIN/../../executorch.libs) and with Debian's real
#       static /usr/lib/MULTIARCH/libleveldb.a (libleveldb-dev) inside it,
#       under --whole-archive and with default visibility, so all of leveldb's
#       global symbols are exported. libtorch_cpu.so needs libleveldb.so.1d,
#       so torch's closure exports many of the same names.
#       (libgflags.a and libglog.a were considered: Debian's libgflags.a is
#       not PIC and cannot go into a shared object, and libglog.a is built
#       with hidden visibility, so it exports nothing. libleveldb.a is PIC.)
#   executorch/extension/pybindings/_portable_lib.cpython-311-MULTIARCH.so
#       exports only PyInit__portable_lib; DT_NEEDED the backend, DT_RUNPATH
#       $ORIGIN/../../lib.
#
# --fixed: the same tree, but nothing that torch's closure exports is
# exported a second time:
#   - no grafted copies are shipped. The backend links Debian's
#     libpthreadpool.so.0, libcpuinfo.so.0 and libXNNPACK.so.0 themselves:
#     the very files torch's closure resolves to, so the loader maps one copy
#     and there is one set of definitions (the test-bed counterpart of
#     building against the copies torch ships instead of bundling new ones);
#   - leveldb stays statically linked but is hidden: -Wl,--exclude-libs,ALL
#     and the version script src/backend.map (global: et_backend_*;
#     local: *;), so the backend exports only its own API.
#
# The script is deterministic (same inputs, same bytes) and idempotent: it
# replaces OUTDIR/executorch, OUTDIR/executorch.libs and
# OUTDIR/executorch-0.1.0.dist-info and touches nothing else in OUTDIR.
set -euo pipefail

usage() {
	echo "usage: build-wheel.sh OUTDIR [--fixed]" >&2
	exit 2
}

die() {
	echo "build-wheel.sh: $*" >&2
	exit 1
}

outdir="" fixed=0
for arg in "$@"; do
	case $arg in
	--fixed) fixed=1 ;;
	-*) usage ;;
	*) [[ -z $outdir ]] || usage; outdir=$arg ;;
	esac
done
[[ -n $outdir ]] || usage

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
src=$here/src
export LC_ALL=C TZ=UTC SOURCE_DATE_EPOCH=0
umask 022

need_cmd() { # need_cmd COMMAND DEBIAN-PACKAGE
	command -v "$1" >/dev/null 2>&1 || die "$1 not found; install it with: apt-get install $2"
}
need_file() { # need_file PATH DEBIAN-PACKAGE
	[[ -e $1 ]] || die "$1 not found; install it with: apt-get install $2"
}

need_cmd g++ g++
need_cmd patchelf patchelf
need_cmd readelf binutils
need_cmd sha256sum coreutils
multiarch=$(g++ -print-multiarch)
[[ -n $multiarch ]] || die "g++ -print-multiarch printed nothing"
libdir=/usr/lib/$multiarch
need_file "$libdir/libpthreadpool.so.0" libpthreadpool0
need_file "$libdir/libcpuinfo.so.0" libcpuinfo0
need_file "$libdir/libXNNPACK.so.0" libxnnpack0
need_file "$libdir/libleveldb.a" libleveldb-dev
need_file "$libdir/libsnappy.so.1" libsnappy1v5

mkdir -p "$outdir"
out=$(cd "$outdir" && pwd)
rm -rf "$out/executorch" "$out/executorch.libs" "$out/executorch-0.1.0.dist-info"
lib=$out/executorch/lib
ext=$out/executorch/extension/pybindings
graft=$out/executorch.libs
mkdir -p "$lib" "$ext"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Compile from inside src/ so the only recorded path is the bare file name.
(
	cd "$src"
	g++ -std=c++17 -O2 -g0 -fPIC -c backend.cc -o "$tmp/backend.o"
	g++ -std=c++17 -O2 -g0 -fPIC -fvisibility=hidden -c portable_lib.cc -o "$tmp/portable_lib.o"
)

# graft_lib NAME: copy $libdir/NAME into executorch.libs under auditwheel's
# name, set its SONAME, and print the new name.
graft_lib() {
	local name=$1 file hash new
	file=$(readlink -f "$libdir/$name")
	hash=$(sha256sum "$file" | cut -c1-8)
	new=${name%%.*}-$hash.${name#*.}
	cp "$file" "$graft/$new"
	chmod u+w "$graft/$new"
	patchelf --set-soname "$new" "$graft/$new"
	echo "$new"
}

backend_inputs=()
if ((fixed)); then
	backend_inputs=(
		-Wl,--version-script="$src/backend.map" -Wl,--exclude-libs,ALL
		"$libdir/libXNNPACK.so.0" "$libdir/libpthreadpool.so.0" "$libdir/libcpuinfo.so.0"
	)
else
	mkdir -p "$graft"
	declare -A renamed
	for name in libpthreadpool.so.0 libcpuinfo.so.0 libXNNPACK.so.0; do
		renamed[$name]=$(graft_lib "$name")
	done
	# The grafted copies' DT_NEEDED on one another, as auditwheel rewrites
	# them (libXNNPACK needs libpthreadpool and libcpuinfo).
	for name in libpthreadpool.so.0 libcpuinfo.so.0 libXNNPACK.so.0; do
		f=$graft/${renamed[$name]}
		repl=()
		while read -r needed; do
			if [[ -n ${renamed[$needed]:-} ]]; then
				repl+=(--replace-needed "$needed" "${renamed[$needed]}")
			fi
		done < <(patchelf --print-needed "$f")
		if ((${#repl[@]})); then
			patchelf --remove-rpath "$f"
			patchelf --force-rpath --set-rpath '$ORIGIN' "$f"
			patchelf "${repl[@]}" "$f"
		else
			patchelf --remove-rpath "$f"
		fi
	done
	backend_inputs=(
		-Wl,-rpath,'$ORIGIN/../../executorch.libs' -Wl,--enable-new-dtags -Wl,-rpath-link,"$graft"
		"$graft/${renamed[libXNNPACK.so.0]}" "$graft/${renamed[libpthreadpool.so.0]}"
		"$graft/${renamed[libcpuinfo.so.0]}"
	)
fi

g++ -shared -o "$lib/libexecutorch_backend_xnnpack.so.1" "$tmp/backend.o" \
	-Wl,--build-id=none -Wl,-soname,libexecutorch_backend_xnnpack.so.1 \
	-Wl,--whole-archive "$libdir/libleveldb.a" -Wl,--no-whole-archive \
	"${backend_inputs[@]}" "$libdir/libsnappy.so.1" -lpthread

g++ -shared -o "$ext/_portable_lib.cpython-311-$multiarch.so" "$tmp/portable_lib.o" \
	-Wl,--build-id=none -Wl,-rpath,'$ORIGIN/../../lib' -Wl,--enable-new-dtags \
	-Wl,-rpath-link,"$graft" "$lib/libexecutorch_backend_xnnpack.so.1"

di=$out/executorch-0.1.0.dist-info
mkdir -p "$di"
printf 'Metadata-Version: 2.1\nName: executorch\nVersion: 0.1.0\n' >"$di/METADATA"
printf 'Wheel-Version: 1.0\nGenerator: etlink testdata/e2e/build-wheel.sh\nRoot-Is-Purelib: false\nTag: cp311-cp311-linux_%s\n' \
	"${multiarch%%-*}" >"$di/WHEEL"

# Check the shape promised above, so a toolchain change fails here and not
# as a puzzling test diff.
backend=$lib/libexecutorch_backend_xnnpack.so.1
if ((fixed)); then
	exported=$(readelf --dyn-syms -W "$backend" | awk '$5 != "LOCAL" && $7 != "UND" && NR > 3 {print $8}' | grep -v '^et_backend_' || true)
	[[ -z $exported ]] || die "--fixed backend still exports: $(echo "$exported" | head -5 | tr '\n' ' ')"
else
	for name in libpthreadpool.so.0 libcpuinfo.so.0 libXNNPACK.so.0; do
		readelf -dW "$backend" | grep -qF "[${renamed[$name]}]" || die "backend lacks DT_NEEDED ${renamed[$name]}"
	done
fi
echo "build-wheel.sh: built $([[ $fixed == 1 ]] && echo fixed || echo bad) wheel tree in $out" >&2
