#!/usr/bin/env bash
# oracle.sh WHEELDIR
#
# The independent oracle for the end-to-end conflicts test: prints, sorted
# (LC_ALL=C) and one per line, every dynamic symbol name that an ELF file
# under WHEELDIR defines and that torch or its loader closure also defines.
# It uses only binutils and the dynamic loader, none of etlink's code:
#
#   wheel side  every ELF file under WHEELDIR (found by its magic bytes):
#               names from `nm -D --defined-only`.
#   torch side  $TORCH_DIR's extension modules (*.cpython-*.so, *.abi3.so,
#               anywhere in the package) and $TORCH_DIR/lib/*.so* (dangling
#               symlinks skipped), plus every library `ldd` resolves for them;
#               names from `nm -D --defined-only`.
#   excluded    from the torch side, the wheel's own files, should torch's
#               closure reach one (paths compared after readlink -f): that
#               file is one definition on both sides. A system library both
#               closures load (libstdc++, libm, and with --fixed libXNNPACK and
#               friends) stays on the torch side: the loader maps it once, but
#               a wheel file that exports the same names (a statically linked
#               copy) is a second definition.
#
# Names are compared without their version suffix (foo@@V2 and foo@V1 are
# both foo). Nothing else is filtered: linker-defined names such as _init,
# _fini, __bss_start, _edata and _end, and version-definition names (nm -D
# lists a library's version nodes as "A" symbols), are printed as they come.
#
# TORCH_DIR defaults to Debian's python3-torch,
# /usr/lib/python3/dist-packages/torch.
set -euo pipefail
export LC_ALL=C

[[ $# -eq 1 ]] || {
	echo "usage: oracle.sh WHEELDIR" >&2
	exit 2
}
wheel=$1
torch=${TORCH_DIR:-/usr/lib/python3/dist-packages/torch}
[[ -d $wheel ]] || {
	echo "oracle.sh: $wheel: not a directory" >&2
	exit 2
}
[[ -d $torch/lib ]] || {
	echo "oracle.sh: $torch: no torch here (install python3-torch or set TORCH_DIR)" >&2
	exit 2
}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

is_elf() { head -c 4 "$1" | cmp -s - <(printf '\177ELF'); }

# ldd_paths FILE...: the resolved path of every library ldd lists, one per
# line ("not found" entries and the vDSO have no path and are dropped).
ldd_paths() {
	local f
	for f in "$@"; do
		{ ldd "$f" 2>/dev/null || true; } | awk '
			$2 == "=>" && $3 ~ /^\// {print $3; next}
			$1 ~ /^\// {print $1}'
	done | xargs -r readlink -f | sort -u
}

# defined_names FILE...: defined dynamic symbol names, version suffix removed.
# Version definitions, which nm -D lists as absolute symbols at 0 named after
# the version node ("0000000000000000 A V1"), are not symbols and are dropped.
# One nm for all files: nm loads its plugins at every start, and a process
# per library of torch's ~280-library closure costs half a minute. With
# several files nm prints a "FILE:" header line before each, which has one
# field and is skipped. nm's diagnostics stay on stderr; a file it cannot
# read contributes no names.
defined_names() {
	(($#)) || return 0
	{ printf '%s\0' "$@" | xargs -0 nm -D --defined-only || true; } |
		awk 'NF >= 3 && !($2 == "A" && $1 ~ /^0+$/ && $3 !~ /@/) {sub(/@.*/, "", $3); print $3}' | sort -u
}

# Wheel files.
find "$wheel" -type f -print0 | sort -z >"$tmp/all"
: >"$tmp/wheel-files"
while IFS= read -r -d '' f; do
	if is_elf "$f"; then echo "$f" >>"$tmp/wheel-files"; fi
done <"$tmp/all"
mapfile -t wheel_files <"$tmp/wheel-files"

# Torch's own files.
torch_own=()
while IFS= read -r -d '' f; do
	[[ -e $f ]] && torch_own+=("$(readlink -f "$f")")
done < <(find "$torch" \( -path "$torch/lib/*.so*" -o -name '*.cpython-*.so' -o -name '*.abi3.so' \) -print0 | sort -z)
((${#torch_own[@]})) || {
	echo "oracle.sh: no extension modules or lib/*.so* under $torch" >&2
	exit 2
}

{
	printf '%s\n' "${torch_own[@]}"
	ldd_paths "${torch_own[@]}"
} | sort -u >"$tmp/torch-set"
if ((${#wheel_files[@]})); then
	printf '%s\0' "${wheel_files[@]}" | xargs -0 readlink -f | sort -u >"$tmp/wheel-real"
else
	: >"$tmp/wheel-real"
fi
comm -23 "$tmp/torch-set" "$tmp/wheel-real" >"$tmp/torch-files"

defined_names ${wheel_files[@]+"${wheel_files[@]}"} >"$tmp/wheel-names"
mapfile -t torch_files <"$tmp/torch-files"
defined_names ${torch_files[@]+"${torch_files[@]}"} >"$tmp/torch-names"

comm -12 "$tmp/wheel-names" "$tmp/torch-names"
