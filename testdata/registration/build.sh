#!/usr/bin/env bash
# Builds the registration matrix at one optimisation level.
# usage: build.sh BUILDDIR -O0|-O2 [--jobs N]
# Writes the CMake File API queries first (codemodel, toolchains), then
# configures with Ninja and builds everything. Exit 0 ok, 1 build failed,
# 2 usage.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
[ $# -ge 2 ] || { echo "usage: $0 BUILDDIR -O0|-O2 [--jobs N]" >&2; exit 2; }
dir=$1 opt=$2; shift 2
jobs=$(nproc)
while [ $# -gt 0 ]; do
  case $1 in
    --jobs) jobs=$2; shift 2 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
case $opt in -O0|-O2) ;; *) echo "optimisation level: -O0 or -O2" >&2; exit 2 ;; esac
mkdir -p "$dir/.cmake/api/v1/query"
touch "$dir/.cmake/api/v1/query/codemodel-v2" "$dir/.cmake/api/v1/query/toolchains-v1"
cmake -S "$here/project" -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE= \
  -DPython3_EXECUTABLE=/usr/bin/python3 "-DCMAKE_C_FLAGS=$opt" "-DCMAKE_CXX_FLAGS=$opt" >"$dir/configure.log" 2>&1 ||
  { cat "$dir/configure.log" >&2; exit 1; }
cmake --build "$dir" -j "$jobs" >"$dir/build.log" 2>&1 || { tail -50 "$dir/build.log" >&2; exit 1; }
