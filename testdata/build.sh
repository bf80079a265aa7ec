#!/usr/bin/env bash
# testdata/build.sh: regenerate every committed binary fixture under testdata/
# from the sources in testdata/src/. Run it from anywhere:
#
#     bash testdata/build.sh
#
# It rebuilds elf/, broken/ and demo/ from scratch. With the same Debian 12
# toolchain (gcc 12.2, binutils 2.40) a rerun gives identical bytes: fixed
# flags, no debug info (-g0), no build ID (--build-id=none), relative source
# names, deterministic archives (ar D) and zips with fixed timestamps.
# elf/EXPECT.md records the tool versions used.
#
# Needs (Debian packages): g++ binutils g++-aarch64-linux-gnu
# binutils-aarch64-linux-gnu zip unzip. /usr/bin/python3 is not needed.
#
# What each fixture is for
# ------------------------
# elf/<arch>/ for arch in x86_64 (g++) and aarch64 (aarch64-linux-gnu-g++):
#   libversioned.so.1  one shared library with every symbol shape the ELF
#                      reader must classify (source: src/versioned.cc, version
#                      script src/versioned.map):
#                        foo@@V2 (default version) and foo@V1 (old version,
#                          via .symver), v2_only@@V2;
#                        unversioned_fn: exported with VER_NDX_GLOBAL (the
#                          script has no "local: *");
#                        protected_fn: STV_PROTECTED;
#                        hidden_fn: STV_HIDDEN, must NOT be in .dynsym;
#                        weak_fn: STB_WEAK;
#                        Registry<int>::count: STB_GNU_UNIQUE ("u" in nm);
#                        tls_counter: STT_TLS;
#                        ifunc_fn: STT_GNU_IFUNC ("i" in nm), both arches;
#                        exported_table: an exported OBJECT;
#                        twice<int>: a weak explicit template instantiation;
#                        undefined exp@GLIBC_2.29 (libm) and memcpy@GLIBC_x;
#                        V1, V2: version definitions, which nm -D lists as
#                          defined "A" symbols;
#                      SONAME libversioned.so.1, DT_NEEDED libm.so.6 and
#                      libc.so.6, DT_RUNPATH $ORIGIN/../lib:/opt/abs/lib.
#   librpath.so        DT_RPATH ($ORIGIN:/opt/old/lib, --disable-new-dtags)
#                      instead of DT_RUNPATH; no SONAME.
#   reg.o              relocatable object whose static initializer (an
#                      .init_array entry, _GLOBAL__sub_I_reg.cc) calls the
#                      undefined executorch::runtime::register_backend.
#   backend_xnnpack_helpers.o
#                      second archive member; its name is over 15 characters.
#   libreg.a           GNU archive of reg.o and backend_xnnpack_helpers.o,
#                      with a symbol index and a "//" long-name table.
#   libthin.a          thin archive (ar T) of the same two members. It stores
#                      only their names, relative to its own directory, so
#                      the two .o files are committed beside it.
#   prog               PIE executable linked against libversioned.so.1
#                      (DT_RUNPATH $ORIGIN), referencing foo@V2, protected_fn,
#                      the TLS variable and exported_table, which it holds
#                      through a copy relocation.
#   expect/            what binutils says about each fixture, generated here
#                      for Go tests to compare with: FIXTURE.readelf-d.txt
#                      (readelf -dW), FIXTURE.nm-D.txt (nm -D),
#                      FIXTURE.dyn-syms.txt (readelf --dyn-syms -W, with
#                      binding, type, visibility and version),
#                      FIXTURE.readelf-V.txt (readelf -VW),
#                      FIXTURE.relocs.txt (readelf -rW); for objects and
#                      archives FIXTURE.nm.txt (nm); for archives
#                      FIXTURE.ar-t.txt (ar t).
#
# broken/: malformed inputs made from elf/x86_64/libversioned.so.1; a parser
# must return an error naming the file for each, never panic or allocate
# without bound:
#   truncated-100.so    its first 100 bytes (the ELF header is 64: program
#                       headers cut off)
#   truncated-3000.so   its first 3000 bytes (headers present, sections cut)
#   shoff-past-eof.so   e_shoff rewritten to point 4096 bytes past EOF
#   huge-dynsym.so      the .dynsym section header's sh_size rewritten to
#                       0x180000000000 (a multiple of the 24-byte entry size,
#                       ~26 TB); patched with printf + dd, see patch_u64 below
#   libfake.so          not ELF: a GNU ld linker script, as libc.so is
#   empty.so            zero bytes
#   bad.whl             a valid zip (one .so and a dist-info file) truncated
#                       to its first 1000 bytes: the central directory is gone
#   evil.whl            a zip whose entry is named ../../evil.so (path
#                       traversal); its content is librpath.so
#
# demo/ (x86_64 only): the corpus the README's demo command runs on. It models
# the ExecuTorch wheel next to torch without needing either:
#   demo/wheel/executorch/lib/libexecutorch.so.1
#       the runtime: executorch::runtime::register_backend,
#       get_backend_class and the exported registry object backend_registry.
#   demo/wheel/executorch/lib/libexecutorch_threadpool.so.1
#       pthreadpool_create, pthreadpool_destroy, pthreadpool_parallelize_1d,
#       pthreadpool_get_threads_count, cpuinfo_initialize (functions) and
#       cpuinfo_is_initialized (an OBJECT): src/demo/pthreadpool_lite.c.
#   demo/wheel/executorch/lib/libexecutorch_backend_xnnpack.so.1
#       xnn_initialize, xnn_deinitialize, xnn_create_runtime_v2,
#       xnn_delete_runtime, the weak flatbuffers::ReadScalar<unsigned int>,
#       and a static initializer calling register_backend. DT_NEEDED
#       libexecutorch.so.1 and libexecutorch_threadpool.so.1, RUNPATH $ORIGIN.
#   demo/wheel/executorch/extension/pybindings/_portable_lib.cpython-311-x86_64-linux-gnu.so
#       exports only PyInit__portable_lib; DT_NEEDED the three libraries
#       above, RUNPATH $ORIGIN/../../lib.
#   demo/torch/_C.cpython-311-x86_64-linux-gnu.so
#       exports PyInit__C; DT_NEEDED libtorch_cpu.so, RUNPATH $ORIGIN/lib.
#   demo/torch/lib/libtorch_cpu.so
#       SONAME libtorch_cpu.so, RUNPATH $ORIGIN; exports its own at::
#       functions plus the same pthreadpool_*, cpuinfo_* (with the OBJECT),
#       xnn_* and flatbuffers::ReadScalar<unsigned int> as the wheel.
#   demo/torch/__init__.py
#       marks demo/torch as a package directory, like an installed torch.
# Expected conflicts of the wheel against demo/torch (the exact exported names
# both sides define) are written to demo/EXPECTED-CONFLICTS.txt, computed with
# nm -D --defined-only and comm, not by hand.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
src=$here/src
export LC_ALL=C TZ=UTC SOURCE_DATE_EPOCH=0
umask 022

die() {
	echo "testdata/build.sh: $*" >&2
	exit 1
}

need() { # need COMMAND DEBIAN-PACKAGE
	command -v "$1" >/dev/null 2>&1 || die "$1 not found; install it with: apt-get install $2"
}

need g++ g++
need gcc gcc
need ar binutils
need readelf binutils
need nm binutils
need strip binutils
need aarch64-linux-gnu-g++ g++-aarch64-linux-gnu
need aarch64-linux-gnu-readelf binutils-aarch64-linux-gnu
need zip zip
need unzip unzip

# Flags shared by every compile and link. -z max-page-size=4096 keeps aarch64
# outputs small (its default is 64 KiB); on x86_64 it is the default already.
CFLAGS_COMMON=(-O2 -g0 -fPIC)
LDFLAGS_COMMON=(-Wl,--build-id=none -Wl,-z,max-page-size=4096 -Wl,--hash-style=gnu -Wl,--as-needed)

# patch_u64 FILE OFFSET VALUE: overwrite 8 bytes at OFFSET with VALUE,
# little-endian, in place.
patch_u64() {
	local file=$1 off=$2 val=$3 bytes="" i
	for i in 0 1 2 3 4 5 6 7; do
		bytes+=$(printf '\\x%02x' $(((val >> (8 * i)) & 0xff)))
	done
	# shellcheck disable=SC2059 # the format is the escaped bytes
	printf "$bytes" | dd of="$file" bs=1 seek="$off" conv=notrunc status=none
}

# expect_so OUTDIR FIXTURE PREFIX: binutils' views of a linked ELF file.
expect_so() {
	local out=$1 f=$2 p=$3
	"${p}readelf" -dW "$out/$f" >"$out/expect/$f.readelf-d.txt"
	"${p}nm" -D "$out/$f" >"$out/expect/$f.nm-D.txt"
	"${p}readelf" --dyn-syms -W "$out/$f" >"$out/expect/$f.dyn-syms.txt"
	"${p}readelf" -VW "$out/$f" >"$out/expect/$f.readelf-V.txt"
	"${p}readelf" -rW "$out/$f" >"$out/expect/$f.relocs.txt"
}

# expect_obj OUTDIR FIXTURE PREFIX: binutils' views of an object or archive.
expect_obj() {
	local out=$1 f=$2 p=$3
	(cd "$out" && "${p}nm" "$f") >"$out/expect/$f.nm.txt"
	(cd "$out" && "${p}readelf" -rW "$f") >"$out/expect/$f.relocs.txt"
	case $f in
	*.a) (cd "$out" && "${p}ar" t "$f") >"$out/expect/$f.ar-t.txt" ;;
	esac
}

build_arch() { # build_arch ARCH TOOL-PREFIX
	local arch=$1 p=$2
	local out=$here/elf/$arch
	local cc=${p}gcc cxx=${p}g++
	rm -rf "$out"
	mkdir -p "$out/expect"
	local tmp
	tmp=$(mktemp -d)
	# Compile from inside src/ with relative names, so the only path recorded
	# (the STT_FILE symbol) is the bare source name.
	(
		cd "$src"
		"$cxx" -std=c++17 "${CFLAGS_COMMON[@]}" -c versioned.cc -o "$tmp/versioned.o"
		"$cc" "${CFLAGS_COMMON[@]}" -c rpath.c -o "$tmp/rpath.o"
		"$cxx" -std=c++17 "${CFLAGS_COMMON[@]}" -c reg.cc -o "$out/reg.o"
		"$cc" "${CFLAGS_COMMON[@]}" -c backend_xnnpack_helpers.c -o "$out/backend_xnnpack_helpers.o"
		"$cc" -O2 -g0 -c prog.c -o "$tmp/prog.o"
	)
	# libversioned.so.1: linked with the C driver so the C++ code (which needs
	# no runtime support) does not pull in libstdc++. --no-as-needed -lm
	# keeps DT_NEEDED libm.so.6 even if exp were inlined away.
	"$cc" -shared -o "$out/libversioned.so.1" "$tmp/versioned.o" \
		"${LDFLAGS_COMMON[@]}" \
		-Wl,-soname,libversioned.so.1 \
		-Wl,--version-script="$src/versioned.map" \
		-Wl,-rpath,'$ORIGIN/../lib:/opt/abs/lib' -Wl,--enable-new-dtags \
		-Wl,--no-as-needed -lm
	"$cc" -shared -o "$out/librpath.so" "$tmp/rpath.o" \
		"${LDFLAGS_COMMON[@]}" \
		-Wl,-rpath,'$ORIGIN:/opt/old/lib' -Wl,--disable-new-dtags
	"$cc" -o "$out/prog" "$tmp/prog.o" \
		"${LDFLAGS_COMMON[@]}" \
		-L"$out" -l:libversioned.so.1 -Wl,-rpath,'$ORIGIN' -Wl,--enable-new-dtags
	rm -rf "$tmp"
	"${p}strip" --strip-debug "$out/libversioned.so.1" "$out/librpath.so" "$out/prog" \
		"$out/reg.o" "$out/backend_xnnpack_helpers.o"
	(
		cd "$out"
		"${p}ar" rcsD libreg.a reg.o backend_xnnpack_helpers.o
		"${p}ar" rcsDT libthin.a reg.o backend_xnnpack_helpers.o
	)
	local f
	for f in libversioned.so.1 librpath.so prog; do
		expect_so "$out" "$f" "$p"
	done
	for f in reg.o backend_xnnpack_helpers.o libreg.a libthin.a; do
		expect_obj "$out" "$f" "$p"
	done
}

write_expect_index() {
	local md=$here/elf/EXPECT.md
	{
		echo "# What binutils says about the fixtures"
		echo
		echo "Generated by testdata/build.sh; do not edit. For each fixture FIXTURE in"
		echo "x86_64/ and aarch64/, expect/ beside it holds the output of:"
		echo
		echo "| file | command |"
		echo "|---|---|"
		echo "| FIXTURE.readelf-d.txt | readelf -dW FIXTURE |"
		echo "| FIXTURE.nm-D.txt | nm -D FIXTURE |"
		echo "| FIXTURE.dyn-syms.txt | readelf --dyn-syms -W FIXTURE |"
		echo "| FIXTURE.readelf-V.txt | readelf -VW FIXTURE |"
		echo "| FIXTURE.nm.txt | nm FIXTURE (objects and archives) |"
		echo "| FIXTURE.relocs.txt | readelf -rW FIXTURE |"
		echo "| FIXTURE.ar-t.txt | ar t FIXTURE (archives) |"
		echo
		echo "aarch64 files were read with the aarch64-linux-gnu- binutils. The exact"
		echo "bytes of the fixtures depend on these tool versions:"
		echo
		echo '```'
		g++ --version | head -n1
		aarch64-linux-gnu-g++ --version | head -n1
		ld --version | head -n1
		aarch64-linux-gnu-ld --version | head -n1
		echo '```'
		echo
		echo "## Fixtures"
		echo
		local arch f
		for arch in x86_64 aarch64; do
			echo "### $arch"
			echo
			echo "| file | bytes | sha256 |"
			echo "|---|---|---|"
			for f in libversioned.so.1 librpath.so prog reg.o backend_xnnpack_helpers.o libreg.a libthin.a; do
				echo "| $arch/$f | $(stat -c %s "$here/elf/$arch/$f") | $(sha256sum "$here/elf/$arch/$f" | cut -c1-16) |"
			done
			echo
		done
		echo "## nm -D, by fixture"
		echo
		for arch in x86_64 aarch64; do
			for f in libversioned.so.1 librpath.so prog; do
				echo "### $arch/$f"
				echo
				echo '```'
				cat "$here/elf/$arch/expect/$f.nm-D.txt"
				echo '```'
				echo
			done
		done
	} >"$md"
}

# mkzip OUT NAME=FILE...: a zip whose entries have fixed timestamps, so the
# bytes do not depend on when or where it was built. Entries are staged in
# a scratch directory under their (possibly hostile) names; zip stores
# "../" names as given when run with -X and names read from stdin.
mkzip() {
	local out=$1
	shift
	local stage pair name file
	stage=$(mktemp -d)
	mkdir -p "$stage/a/b"
	: >"$stage/list"
	for pair in "$@"; do
		name=${pair%%=*}
		file=${pair#*=}
		mkdir -p "$(dirname "$stage/a/b/$name")"
		cp "$file" "$stage/a/b/$name"
		touch -d '1980-01-01 00:00:00 UTC' "$stage/a/b/$name"
		echo "$name" >>"$stage/list"
	done
	rm -f "$out"
	(cd "$stage/a/b" && zip -q -X -0 "$stage/out.zip" -@ <"$stage/list")
	cp "$stage/out.zip" "$out"
	rm -rf "$stage"
}

build_broken() {
	local out=$here/broken base=$here/elf/x86_64/libversioned.so.1
	rm -rf "$out"
	mkdir -p "$out"
	head -c 100 "$base" >"$out/truncated-100.so"
	head -c 3000 "$base" >"$out/truncated-3000.so"

	# e_shoff is the 8 bytes at offset 0x28 of an ELF64 header.
	cp "$base" "$out/shoff-past-eof.so"
	patch_u64 "$out/shoff-past-eof.so" $((0x28)) $(($(stat -c %s "$base") + 4096))

	# The section header of .dynsym is at e_shoff + index * e_shentsize, and
	# sh_size is at offset 0x20 inside an Elf64_Shdr.
	cp "$base" "$out/huge-dynsym.so"
	local shoff shentsize idx
	shoff=$(readelf -hW "$base" | awk -F: '/Start of section headers/ {print $2+0}')
	shentsize=$(readelf -hW "$base" | awk -F: '/Size of section headers/ {print $2+0}')
	idx=$(readelf -SW "$base" | sed -n 's/^ *\[ *\([0-9]*\)\] \.dynsym .*/\1/p')
	[[ -n $idx ]] || die "no .dynsym in $base"
	patch_u64 "$out/huge-dynsym.so" $((shoff + idx * shentsize + 0x20)) $((0x180000000000))

	cat >"$out/libfake.so" <<'EOF'
/* GNU ld script
   Not an ELF file: a linker script named like a shared library, as libc.so is. */
OUTPUT_FORMAT(elf64-x86-64)
GROUP ( libfake.so.1 AS_NEEDED ( libfake_extra.so.1 ) )
EOF
	: >"$out/empty.so"

	local tmp
	tmp=$(mktemp -d)
	printf 'Metadata-Version: 2.1\nName: bad\nVersion: 0.1\n' >"$tmp/METADATA"
	mkzip "$tmp/good.whl" "bad/libversioned.so.1=$base" "bad-0.1.dist-info/METADATA=$tmp/METADATA"
	head -c 1000 "$tmp/good.whl" >"$out/bad.whl"
	mkzip "$out/evil.whl" "../../evil.so=$here/elf/x86_64/librpath.so"
	rm -rf "$tmp"
	# zip refuses nothing but may normalise names: check the traversal survived.
	unzip -Z1 "$out/evil.whl" | grep -qx '\.\./\.\./evil\.so' || die "evil.whl lost its ../../ entry name"
}

build_demo() {
	local out=$here/demo
	local wlib=$out/wheel/executorch/lib
	local wext=$out/wheel/executorch/extension/pybindings
	local tdir=$out/torch
	rm -rf "$out/wheel" "$out/torch" "$out/EXPECTED-CONFLICTS.txt"
	mkdir -p "$wlib" "$wext" "$tdir/lib"
	local tmp
	tmp=$(mktemp -d)
	(
		cd "$src/demo"
		g++ -std=c++17 "${CFLAGS_COMMON[@]}" -c runtime.cc -o "$tmp/runtime.o"
		gcc "${CFLAGS_COMMON[@]}" -c pthreadpool_lite.c -o "$tmp/pthreadpool_lite.o"
		gcc "${CFLAGS_COMMON[@]}" -c xnnpack_lite.c -o "$tmp/xnnpack_lite.o"
		g++ -std=c++17 "${CFLAGS_COMMON[@]}" -c backend_xnnpack.cc -o "$tmp/backend_xnnpack.o"
		g++ -std=c++17 "${CFLAGS_COMMON[@]}" -fvisibility=hidden -c pybindings.cc -o "$tmp/pybindings.o"
		g++ -std=c++17 "${CFLAGS_COMMON[@]}" -c torch_cpu.cc -o "$tmp/torch_cpu.o"
		g++ -std=c++17 "${CFLAGS_COMMON[@]}" -fvisibility=hidden -c torch_C.cc -o "$tmp/torch_C.o"
	)
	# -z noseparate-code: the demo models a layout, not a loader detail, and
	# this halves its size.
	local so=(g++ -shared "${LDFLAGS_COMMON[@]}" -Wl,-z,noseparate-code -Wl,--enable-new-dtags)
	"${so[@]}" -o "$wlib/libexecutorch.so.1" "$tmp/runtime.o" \
		-Wl,-soname,libexecutorch.so.1
	"${so[@]}" -o "$wlib/libexecutorch_threadpool.so.1" "$tmp/pthreadpool_lite.o" \
		-Wl,-soname,libexecutorch_threadpool.so.1
	"${so[@]}" -o "$wlib/libexecutorch_backend_xnnpack.so.1" "$tmp/backend_xnnpack.o" "$tmp/xnnpack_lite.o" \
		-Wl,-soname,libexecutorch_backend_xnnpack.so.1 -Wl,-rpath,'$ORIGIN' \
		"$wlib/libexecutorch.so.1" "$wlib/libexecutorch_threadpool.so.1"
	"${so[@]}" -o "$wext/_portable_lib.cpython-311-x86_64-linux-gnu.so" "$tmp/pybindings.o" \
		-Wl,-rpath,'$ORIGIN/../../lib' \
		"$wlib/libexecutorch.so.1" "$wlib/libexecutorch_threadpool.so.1" "$wlib/libexecutorch_backend_xnnpack.so.1"
	"${so[@]}" -o "$tdir/lib/libtorch_cpu.so" "$tmp/torch_cpu.o" "$tmp/pthreadpool_lite.o" "$tmp/xnnpack_lite.o" \
		-Wl,-soname,libtorch_cpu.so -Wl,-rpath,'$ORIGIN'
	"${so[@]}" -o "$tdir/_C.cpython-311-x86_64-linux-gnu.so" "$tmp/torch_C.o" \
		-Wl,-rpath,'$ORIGIN/lib' "$tdir/lib/libtorch_cpu.so"
	rm -rf "$tmp"
	find "$out/wheel" "$tdir" -name '*.so*' -type f -exec strip --strip-debug {} +
	cat >"$tdir/__init__.py" <<'EOF'
# A stand-in for an installed torch package, for etlink's demo (see
# testdata/build.sh). It has no Python code: only its ELF files matter.
EOF
	# The conflicts the demo must show: names defined in .dynsym by both a
	# wheel file and a torch file, versions stripped.
	names() { find "$1" -name '*.so*' -type f -print0 | sort -z | xargs -0 nm -D --defined-only |
		awk 'NF == 3 {sub(/@.*/, "", $3); print $3}' | sort -u; }
	{
		echo "# Exported by both demo/wheel and demo/torch (nm -D --defined-only, comm -12)."
		echo "# Generated by testdata/build.sh; do not edit."
		comm -12 <(names "$out/wheel") <(names "$tdir")
	} >"$out/EXPECTED-CONFLICTS.txt"
}

build_arch x86_64 ""
build_arch aarch64 aarch64-linux-gnu-
write_expect_index
build_broken
build_demo
echo "testdata/build.sh: fixtures rebuilt under $here"
