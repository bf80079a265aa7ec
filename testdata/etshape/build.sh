#!/usr/bin/env bash
# testdata/etshape/build.sh BUILDDIR STAGE: configures project/ (Ninja,
# Release) with CMake File API queries written first, builds it verbosely
# (BUILDDIR/build.log holds every command, as ninja -v prints them),
# installs it with cmake --install into STAGE, and builds consumer/ against
# STAGE in BUILDDIR-consumer. Needs cmake, ninja, g++.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
[ $# -eq 2 ] || { echo "usage: build.sh BUILDDIR STAGE" >&2; exit 2; }
b=$1 stage=$2
q=$b/.cmake/api/v1/query
mkdir -p "$q"
touch "$q/codemodel-v2" "$q/cache-v2" "$q/toolchains-v1"
cmake -S "$here/project" -B "$b" -G Ninja -DCMAKE_BUILD_TYPE=Release > "$b/configure.log"
ninja -C "$b" -v > "$b/build.log"
cmake --install "$b" --prefix "$stage" > "$b/install.log"
c=$b-consumer
mkdir -p "$c/.cmake/api/v1/query"
touch "$c/.cmake/api/v1/query/codemodel-v2"
cmake -S "$here/consumer" -B "$c" -G Ninja -DSTAGE="$stage" > "$c/configure.log"
ninja -C "$c" -v > "$c/build.log"
