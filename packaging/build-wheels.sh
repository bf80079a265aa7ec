#!/usr/bin/env bash
# Builds etlink's wheels into OUTDIR (default dist/): the static binary
# (CGO_ENABLED=0: no dynamic loader, no libc) for Linux x86_64 and aarch64,
# each in one wheel tagged for both manylinux2014 and musllinux_1_1 systems,
# which it runs on alike. The version, commit and date come from git
# (packaging/describe.sh) and are stamped in with -X; pip install or pipx
# install of the wheel puts etlink on PATH.
#
#   packaging/build-wheels.sh [OUTDIR]
#   GOARCHES=amd64 packaging/build-wheels.sh     # one architecture
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-dist}
mkdir -p "$out"
out=$(cd "$out" && pwd)
cd "$here/.."

read -r version commit date epoch < <(packaging/describe.sh)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

for goarch in ${GOARCHES:-amd64 arm64}; do
  case $goarch in
    amd64) arch=x86_64 ;;
    arm64) arch=aarch64 ;;
    *) echo "build-wheels.sh: no wheel tag for GOARCH=$goarch" >&2; exit 2 ;;
  esac
  mkdir "$tmp/$goarch"
  # -buildvcs=false and -buildid= keep the binary the same for the same
  # commit; the -X stamps say what the build information would have.
  CGO_ENABLED=0 GOOS=linux GOARCH=$goarch go build -trimpath -buildvcs=false \
    -ldflags "-s -w -buildid= -X main.version=$version -X main.commit=$commit -X main.date=$date" \
    -o "$tmp/$goarch/etlink" ./cmd/etlink
  SOURCE_DATE_EPOCH=$epoch python3 packaging/wheel.py "$tmp/$goarch/etlink" "$version" \
    "manylinux_2_17_$arch.manylinux2014_$arch.musllinux_1_1_$arch" "$out"
done
