#!/usr/bin/env bash
# testdata/retention/build.sh: configure and build the retention fixture
# project (project/) with one linker, one architecture and one generator.
#
#   build.sh BUILDDIR [--linker bfd|gold|lld|mold] [--arch x86_64|aarch64]
#                     [--generator ninja|ninja-rsp|ninja-multi|make] [--jobs N]
#
# Defaults: --linker bfd --arch x86_64 --generator ninja --jobs $(nproc).
#
# 1. writes the CMake File API queries (BUILDDIR/.cmake/api/v1/query/
#    codemodel-v2, toolchains-v1, cache-v2) before configuring, so the
#    replies land in BUILDDIR/.cmake/api/v1/reply/;
# 2. configures project/ from a fresh cache (cmake --fresh; log:
#    BUILDDIR/configure.log);
# 3. builds every target verbosely from clean (ninja -v / make VERBOSE=1), the
#    log teed into BUILDDIR/build.log (so a rerun logs every link line again);
# 4. checks that the outputs really are for --arch and were really linked by
#    --linker (.comment / .note.gnu.gold-version). BUILDDIR/.et-build holds
#    "linker=... arch=... generator=..." (written before configuring).
#
# Idempotent: rerunning with the same options rebuilds in place. With other
# options on a directory this script built before (it holds .et-build), the
# directory is emptied first; a non-empty directory it did not build is refused.
# Exit status: 0 ok, 1 configure/build/check failure, 2 usage or missing tool.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
project="$here/project"

die() { echo "build.sh: error: $*" >&2; exit 1; }
usage() { sed -n '5,6p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2; echo "build.sh: error: $*" >&2; exit 2; }

builddir="" linker=bfd arch=x86_64 generator=ninja jobs=$(nproc 2>/dev/null || echo 2)
while [ $# -gt 0 ]; do
  case "$1" in
    --linker)    [ $# -ge 2 ] || usage "--linker needs a value"; linker=$2; shift 2 ;;
    --linker=*)  linker=${1#*=}; shift ;;
    --arch)      [ $# -ge 2 ] || usage "--arch needs a value"; arch=$2; shift 2 ;;
    --arch=*)    arch=${1#*=}; shift ;;
    --generator) [ $# -ge 2 ] || usage "--generator needs a value"; generator=$2; shift 2 ;;
    --generator=*) generator=${1#*=}; shift ;;
    --jobs|-j)   [ $# -ge 2 ] || usage "--jobs needs a value"; jobs=$2; shift 2 ;;
    -h|--help)   sed -n '2,25p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*)          usage "unknown option $1" ;;
    *)           [ -z "$builddir" ] || usage "more than one BUILDDIR ($builddir, $1)"; builddir=$1; shift ;;
  esac
done
[ -n "$builddir" ] || usage "missing BUILDDIR"
case "$linker" in bfd|gold|lld|mold) ;; *) usage "--linker must be bfd, gold, lld or mold, not '$linker'" ;; esac
case "$arch" in x86_64|aarch64) ;; *) usage "--arch must be x86_64 or aarch64, not '$arch'" ;; esac
native_opts=()
case "$generator" in
  ninja) cmake_gen="Ninja"; gen_tool=ninja; gen_opts=() ;;
  # Every link through a response file, the files kept after the build:
  # what large projects (and Windows-minded toolchains) leave behind.
  ninja-rsp) cmake_gen="Ninja"; gen_tool=ninja; gen_opts=(-DCMAKE_NINJA_FORCE_RESPONSE_FILE=ON)
         native_opts=(-d keeprsp) ;;
  # A multi-configuration generator: objects under CMakeFiles/<t>.dir/Debug/
  # (one configuration, so that every link is built).
  ninja-multi) cmake_gen="Ninja Multi-Config"; gen_tool=ninja; gen_opts=(-DCMAKE_CONFIGURATION_TYPES=Debug) ;;
  # No per-rule progress messages or colour: each costs a cmake process, and
  # the Makefile build is already the slow one.
  make)  cmake_gen="Unix Makefiles"; gen_tool=make
         gen_opts=(-DCMAKE_RULE_MESSAGES=OFF -DCMAKE_COLOR_MAKEFILE=OFF) ;;
  *)     usage "--generator must be ninja, ninja-rsp, ninja-multi or make, not '$generator'" ;;
esac
[[ "$jobs" =~ ^[1-9][0-9]*$ ]] || usage "--jobs must be a positive number, not '$jobs'"

need() { command -v "$1" >/dev/null 2>&1 || { echo "build.sh: error: '$1' not found on PATH ($2)" >&2; exit 2; }; }
need cmake "apt-get install cmake"
need "$gen_tool" "apt-get install $([ "$gen_tool" = ninja ] && echo ninja-build || echo make)"
need readelf "apt-get install binutils"
if [ "$arch" = aarch64 ]; then
  need aarch64-linux-gnu-g++ "apt-get install g++-aarch64-linux-gnu"
  toolchain=(-DCMAKE_TOOLCHAIN_FILE="$project/aarch64.cmake")
  want_machine=AArch64
else
  need g++ "apt-get install g++"
  toolchain=()
  want_machine="Advanced Micro Devices X86-64"
fi
case "$linker" in
  bfd)  [ "$arch" = aarch64 ] && need aarch64-linux-gnu-ld.bfd "apt-get install binutils-aarch64-linux-gnu" || need ld.bfd "apt-get install binutils" ;;
  gold) [ "$arch" = aarch64 ] && need aarch64-linux-gnu-ld.gold "apt-get install binutils-aarch64-linux-gnu" || need ld.gold "apt-get install binutils" ;;
  lld)  need ld.lld "apt-get install lld" ;;
  mold) need ld.mold "apt-get install mold" ;;
esac

config="linker=$linker arch=$arch generator=$generator"
mkdir -p "$builddir"
builddir=$(cd "$builddir" && pwd)
stamp="$builddir/.et-build"
if [ -f "$stamp" ]; then
  if [ "$(cat "$stamp")" != "$config" ]; then
    echo "build.sh: $builddir was built with '$(cat "$stamp")'; emptying it for '$config'" >&2
    find "$builddir" -mindepth 1 -delete
  fi
elif [ -n "$(ls -A "$builddir")" ]; then
  die "$builddir is not empty and was not made by this script (no .et-build); use an empty or new directory"
fi

# Claim the directory now, so that a rerun after a failed build is accepted.
echo "$config" > "$stamp"

# 1. File API queries, before configuring.
query="$builddir/.cmake/api/v1/query"
mkdir -p "$query"
for q in codemodel-v2 toolchains-v1 cache-v2; do : > "$query/$q"; done

start=$(date +%s%N)
# 2. Configure.
if ! cmake --fresh -S "$project" -B "$builddir" -G "$cmake_gen" "${toolchain[@]}" "${gen_opts[@]}" \
      -DET_LINKER="$linker" -DCMAKE_BUILD_TYPE= >"$builddir/configure.log" 2>&1; then
  cat "$builddir/configure.log" >&2
  die "configure failed ($config); log: $builddir/configure.log"
fi
# 3. Build everything, verbosely, from clean.
if ! cmake --build "$builddir" --clean-first --verbose --parallel "$jobs" -- "${native_opts[@]}" 2>&1 | tee "$builddir/build.log"; then
  grep -E -m 10 'error|FAILED|Error [0-9]' "$builddir/build.log" >&2 || true
  die "build failed ($config); log: $builddir/build.log"
fi
[ -s "$builddir/.cmake/api/v1/reply/$(ls "$builddir/.cmake/api/v1/reply" 2>/dev/null | grep '^index-' | tail -1)" ] \
  || die "no CMake File API reply in $builddir/.cmake/api/v1/reply"

# 4. Check architecture and linker of every linked output.
elf_info() {  # prints "MACHINE<tab>LINKER" (bfd, gold, lld or mold) with one readelf
  readelf -hSW -p .comment "$1" 2>/dev/null | awk '
    /^ *Machine:/ { m = $0; sub(/^ *Machine: */, "", m) }
    /\.note\.gnu\.gold-version/ { gold = 1 }
    /Linker: .*LLD/ { lld = 1 }
    /^  \[ *[0-9a-f]+\]  mold / { mold = 1 }
    END { print m "\t" (gold ? "gold" : lld ? "lld" : mold ? "mold" : "bfd") }'
}
n=0
if [ "$generator" = ninja-rsp ] && ! compgen -G "$builddir/CMakeFiles/*.rsp" >/dev/null; then
  die "no link response file kept in $builddir/CMakeFiles ($config)"
fi
for f in "$builddir"/bin/* "$builddir"/lib/*.so; do
  case "$f" in *.map) continue ;; esac
  [ -f "$f" ] || continue
  IFS=$'\t' read -r m l < <(elf_info "$f")
  [ "$m" = "$want_machine" ] || die "$f is for '$m', expected '$want_machine' (--arch $arch)"
  [ "$l" = "$linker" ] || die "$f was linked by $l, expected $linker (is -fuse-ld=$linker honoured?)"
  [ -s "$f.map" ] || die "no link map $f.map"
  n=$((n + 1))
done
[ "$n" -ge 10 ] || die "only $n linked outputs in $builddir/bin and $builddir/lib"
end=$(date +%s%N)
printf 'build.sh: ok: %s, %d outputs in %s (%d ms)\n' "$config" "$n" "$builddir" "$(( (end - start) / 1000000 ))" >&2
