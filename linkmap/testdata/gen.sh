#!/usr/bin/env bash
# linkmap/testdata/gen.sh: regenerate the committed linker maps and, beside
# each, what binutils says the link really did. Run it from anywhere:
#
#     bash linkmap/testdata/gen.sh
#
# Needs (Debian 12 packages): g++ binutils g++-aarch64-linux-gnu
# binutils-aarch64-linux-gnu lld mold. versions.txt records the versions
# that wrote the committed maps.
#
# The project (sources in src/, compiled with -ffunction-sections):
#   main.o         references used_fn, thin_fn and yes_fn; defines gc_dead,
#                  which nothing calls (--gc-sections discards it)
#   libstatic.a    used.o (referenced: extracted) and reg.o (only a static
#                  initializer that registers a backend: not extracted)
#   libthin.a      thin archive of thin/thin_member.o (referenced)
#   libwhole.a     whole_archive_backend_registration.o, under
#                  --whole-archive (a static initializer, unreferenced)
#   libyes.so      SONAME libyes.so.1, referenced
#   libno.so       SONAME libno.so, a static initializer, unreferenced
# linked as
#   CXX -fuse-ld=LD -o app main.o -L. -Wl,--as-needed -lyes -lno -lstatic \
#       libthin.a -Wl,--whole-archive libwhole.a -Wl,--no-whole-archive \
#       -Wl,--gc-sections -Wl,--build-id=none -Wl,-Map=app.map
# for LD in bfd gold lld mold, with g++ (ARCH x86_64) and
# aarch64-linux-gnu-g++ (ARCH aarch64). --as-needed comes first so that
# the libraries the driver adds (-lstdc++ -lm -lgcc_s -lc) are under it too,
# whether or not the distribution's gcc passes it by default (Debian 12's
# does). Every linker accepts -Map=FILE (lld and mold spell it the GNU way
# too; -M / --print-map would print to stdout instead).
#
# GCC 12 has no --ld-path, and a cross gcc looks for
# aarch64-linux-gnu-ld.lld / -ld.mold, which do not exist: the links use
# -B with a scratch directory that holds ld.lld and ld.mold symlinks (mold
# documents -B/usr/libexec/mold for the same purpose). gold and bfd are
# found under their cross names (aarch64-linux-gnu-ld.gold, -ld.bfd).
#
# Files written (ARCH-LD stands for each of the eight links):
#   ARCH-LD.map         the map, as the linker wrote it
#   ARCH-LD.expect      what the output and its inputs say, from ar, nm,
#                       readelf and c++filt, never from the map (format
#                       below)
#   x86_64-LD-cref.map, x86_64-LD-cref.expect for LD in bfd gold lld: the
#                       same link with -Wl,--cref, which adds a cross
#                       reference table (mold has no --cref). GNU ld's table
#                       lists every symbol of libc.so.6 (200 KB): gen.sh
#                       drops the entries that name one file under /lib/
#                       and nothing else (defined there, referenced by
#                       nobody), keeping the map a real one, only shorter.
#
# .expect lines, one fact each (the test reads them):
#   format LD
#   extracted ARCHIVE MEMBER [whole-archive]
#                       a member one of whose global symbols (or its static
#                       initializer _GLOBAL__sub_I_*) is defined in app
#   not-extracted ARCHIVE MEMBER
#   reference ARCHIVE MEMBER FILE MANGLED DEMANGLED
#                       FILE has MANGLED undefined and MEMBER defines it
#   needed SONAME       DT_NEEDED of app
#   dropped SONAME      a library on the link line that app does not need
#   kept-by SONAME FILE MANGLED DEMANGLED
#                       FILE is the only input referencing MANGLED, which
#                       the library SONAME defines
#   shared PATH         a shared library named on the link line (-l), as
#                       the linker finds it
#   discarded FILE SECTION SIZE
#                       a section of FILE (readelf -S) whose function nm
#                       does not find in app
#   section NAME ADDR SIZE
#                       an allocated section of app (readelf -S)
#   symbol MANGLED DEMANGLED ADDR SIZE FILE
#                       a global function of the project as nm -S sees it
#                       in app, FILE being the input that defines it
#   absent MANGLED DEMANGLED
#                       a function of the project that is not in app
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
src=$here/src
export LC_ALL=C TZ=UTC SOURCE_DATE_EPOCH=0
umask 022

die() {
	echo "linkmap/testdata/gen.sh: $*" >&2
	exit 1
}

need() { # need COMMAND DEBIAN-PACKAGE
	command -v "$1" >/dev/null 2>&1 || die "$1 not found; install it with: apt-get install $2"
}

need g++ g++
need ar binutils
need nm binutils
need readelf binutils
need c++filt binutils
need ld.gold binutils
need ld.bfd binutils
need aarch64-linux-gnu-g++ g++-aarch64-linux-gnu
need aarch64-linux-gnu-ld.gold binutils-aarch64-linux-gnu
need ld.lld lld
need mold mold

CXXFLAGS=(-std=c++17 -O2 -g0 -fPIC -ffunction-sections -fdata-sections)

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/ldbin"
ln -s "$(command -v ld.lld)" "$tmp/ldbin/ld.lld"
ln -s "$(command -v mold)" "$tmp/ldbin/ld.mold"

# build ARCH PREFIX: compile the project into $tmp/ARCH with relative names
# (the maps name inputs as the link line does).
build() {
	local arch=$1 p=$2 b=$tmp/$1 f
	mkdir -p "$b/thin"
	(
		cd "$src"
		for f in main used reg yes no whole; do
			"${p}g++" "${CXXFLAGS[@]}" -c "$f.cc" -o "$b/$f.o"
		done
		"${p}g++" "${CXXFLAGS[@]}" -c thin.cc -o "$b/thin/thin_member.o"
	)
	cd "$b"
	mv whole.o whole_archive_backend_registration.o
	"${p}ar" rcsD libstatic.a used.o reg.o
	"${p}ar" rcsDT libthin.a thin/thin_member.o
	"${p}ar" rcsD libwhole.a whole_archive_backend_registration.o
	"${p}g++" -shared -o libyes.so yes.o -Wl,-soname,libyes.so.1 -Wl,--build-id=none
	"${p}g++" -shared -o libno.so no.o -Wl,-soname,libno.so -Wl,--build-id=none
	cd - >/dev/null
}

# link ARCH PREFIX LD NAME [EXTRA...]: link $tmp/ARCH/app with LD, copy its
# map to NAME.map and write NAME.expect.
link() {
	local arch=$1 p=$2 ld=$3 name=$4 b=$tmp/$1
	shift 4
	(
		cd "$b"
		rm -f app app.map
		"${p}g++" -B"$tmp/ldbin/" -fuse-ld="$ld" -o app main.o -L. \
			-Wl,--as-needed -lyes -lno -lstatic libthin.a \
			-Wl,--whole-archive libwhole.a -Wl,--no-whole-archive \
			-Wl,--gc-sections -Wl,--build-id=none -Wl,-Map=app.map "$@"
	)
	trim_cref <"$b/app.map" >"$here/$name.map"
	expect "$arch" "$p" "$ld" >"$here/$name.expect"
}

# trim_cref: copy a map, leaving out the cross reference entries that are
# one line naming one file under /lib/.
trim_cref() {
	awk '
	function flush() { if (buf != "" && !(n == 1 && head ~ /^[^ ].* \/lib\/[^ ]*$/)) printf "%s", buf; buf = ""; n = 0 }
	/^Cross Reference Table$/ { cref = 1 }
	!cref { print; next }
	/^[^ ]/ { flush(); head = $0; buf = $0 "\n"; n = 1; next }
	/^ / && n > 0 { buf = buf $0 "\n"; n++; next }
	{ flush(); print }
	END { flush() }'
}

# defined FILE: the names FILE defines (nm --defined-only), one a line.
defined() { "$P"nm --defined-only "$1" | awk 'NF == 3 {print $3}' | sort -u; }

# keys FILE: the names that prove FILE was linked: its defined globals and
# its static initializer (a local named after its source file).
keys() {
	"$P"nm --defined-only "$1" | awk 'NF == 3 && ($2 ~ /^[A-Z]$/ || $3 ~ /^_GLOBAL__sub_I_/) {print $3}' | sort -u
}

demangle() { c++filt "$1"; }

# HEX: an awk function that rewrites readelf's and nm's zero-padded hex as
# 0x without padding (mawk has no strtonum).
HEX='function hex(x) { sub(/^0+/, "", x); return "0x" (x == "" ? "0" : x) }'

expect() {
	local arch=$1 ld=$3 b=$tmp/$1
	P=$2
	local appdefs m a sym f so
	appdefs=$(defined "$b/app")
	echo "# Generated by gen.sh from readelf, nm, ar and c++filt of the link"
	echo "# (not from the map); do not edit. Format: see gen.sh."
	echo "format $ld"
	for a in libstatic.a libthin.a libwhole.a; do
		for m in $(cd "$b" && "$P"ar t "$a"); do
			local tag=""
			[[ $a == libwhole.a ]] && tag=" whole-archive"
			if comm -12 <(keys "$b/$m") <(echo "$appdefs") | grep -q .; then
				echo "extracted $a $m$tag"
				# main.o is the only object: every reference is its.
				for sym in $(comm -12 <("$P"nm -u "$b/main.o" | awk '{print $2}' | sort -u) <(keys "$b/$m")); do
					echo "reference $a $m main.o $sym $(demangle "$sym")"
				done
			else
				echo "not-extracted $a $m"
			fi
		done
	done
	local needed
	needed=$("$P"readelf -dW "$b/app" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
	for so in $needed; do echo "needed $so"; done
	for f in libyes.so libno.so; do
		so=$("$P"readelf -dW "$b/$f" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
		grep -qxF "$so" <<<"$needed" || echo "dropped $so"
		echo "shared ./$f"
	done
	for sym in $(comm -12 <("$P"nm -u "$b/main.o" | awk '{print $2}' | sort -u) <("$P"nm -D --defined-only "$b/libyes.so" | awk '{print $3}' | sort -u)); do
		echo "kept-by libyes.so.1 main.o $sym $(demangle "$sym")"
	done
	if ! grep -qxF _Z7gc_deadi <<<"$appdefs"; then
		"$P"readelf -SW "$b/main.o" | sed 's/^ *\[ *[0-9]*\] *//' |
			awk "$HEX"' $1 == ".text._Z7gc_deadi" {print "discarded main.o", $1, hex($5)}'
	fi
	"$P"readelf -SW "$b/app" | sed 's/^ *\[ *[0-9]*\] *//' |
		awk "$HEX"' NF == 10 && $7 ~ /A/ {print "section", $1, hex($3), hex($5)}'
	local -A file=([main]=main.o [_Z7used_fni]="libstatic.a(used.o)" [_Z7thin_fni]="libthin.a(thin/thin_member.o)")
	for sym in main _Z7used_fni _Z7thin_fni; do
		"$P"nm -S --defined-only "$b/app" |
			awk -v s="$sym" -v d="$(demangle "$sym")" -v f="${file[$sym]}" \
				"$HEX"' $NF == s && NF == 4 {print "symbol", s, d, hex($1), hex($2), f}'
	done
	for sym in _Z7gc_deadi _Z5no_fni reg_unused_marker; do
		grep -qxF "$sym" <<<"$appdefs" || echo "absent $sym $(demangle "$sym")"
	done
}

rm -f "$here"/*.map "$here"/*.expect
build x86_64 ""
build aarch64 aarch64-linux-gnu-
for ld in bfd gold lld mold; do
	link x86_64 "" "$ld" "x86_64-$ld"
	link aarch64 aarch64-linux-gnu- "$ld" "aarch64-$ld"
done
for ld in bfd gold lld; do
	link x86_64 "" "$ld" "x86_64-$ld-cref" -Wl,--cref
done

{
	echo "# Tool versions that wrote the committed maps (gen.sh)."
	g++ --version | head -n1
	aarch64-linux-gnu-g++ --version | head -n1
	ld.bfd --version | head -n1
	ld.gold --version | head -n1
	ld.lld --version | head -n1
	mold --version | head -n1
} >"$here/versions.txt"
echo "linkmap/testdata/gen.sh: maps rebuilt under $here"
